//! The documents request renders what the request of parts renders.
//!
//! Every golden fixture with an XR, a Composition for its type and observed resources is turned
//! into the Kubernetes documents a host would hold (the observed resources annotated with their
//! template name, connection details as Secrets, the environment as an EnvironmentConfig), given
//! in several orders, and must render byte for byte what the request of parts renders, plus the
//! `inputs` report; and that request of parts renders the fixture's committed expected.json.

// A test harness reads fixture files and reports differences.
#![allow(clippy::disallowed_methods, clippy::print_stderr)]

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

#[path = "support/fixtures.rs"]
mod fixtures;

const RESOURCE_NAME: &str = "crossplane.io/composition-resource-name";

/// A fixture render's name, its expected file, its request of parts, its documents and its
/// options.
type Case = (String, PathBuf, Value, Vec<Value>, Value);

/// Every fixture render that has an XR, its Composition and observed resources (each semantics
/// of a case that runs under both); why the others do not.
fn convertible() -> (Vec<Case>, Vec<String>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut cases = Vec::new();
    let mut left = Vec::new();
    for r in fixtures::renders(&root) {
        if r.area == "documents" {
            continue;
        }
        let Ok(request) = serde_json::from_str::<Value>(&r.request) else {
            continue;
        };
        match convert(&request) {
            Ok((parts, docs, options)) => cases.push((r.name, r.expected, parts, docs, options)),
            Err(why) => left.push(format!("{}: {why}", r.name)),
        }
    }
    (cases, left)
}

/// The request of parts as a host that gathered documents would have built it, and the documents.
fn convert(request: &Value) -> Result<(Value, Vec<Value>, Value), &'static str> {
    let xr = request.get("xr").ok_or("no xr")?.clone();
    let composition = request
        .get("composition")
        .filter(|c| c.is_object())
        .ok_or("no composition")?;
    if !xr.is_object() {
        return Err("the xr is no object");
    }
    if request.get("desired").is_some_and(|d| !d.is_null()) {
        return Err("the desired state of earlier steps has no documents form");
    }
    let observed = request.get("observed").cloned().unwrap_or(json!({}));
    if observed.get("composite").is_some_and(|c| *c != xr) {
        return Err("observed.composite differs from xr");
    }
    let resources = observed
        .get("resources")
        .and_then(Value::as_object)
        .filter(|r| !r.is_empty())
        .ok_or("no observed resources")?;
    let type_ref = &composition["spec"]["compositeTypeRef"];
    if type_ref["apiVersion"] != xr["apiVersion"] || type_ref["kind"] != xr["kind"] {
        return Err("the Composition is for another type than the XR");
    }
    let named = xr["spec"]["compositionRef"]["name"].as_str();
    if named.is_some_and(|n| Some(n) != composition["metadata"]["name"].as_str()) {
        return Err("the XR references another Composition");
    }
    if composition["spec"]["environment"]["environmentConfigs"].is_array() {
        return Err("the Composition selects EnvironmentConfigs by name");
    }
    let mut docs = vec![xr.clone(), composition.clone()];
    let mut paired = Map::new();
    for (i, (name, entry)) in resources.iter().enumerate() {
        let mut resource = entry["resource"].clone();
        if !resource.is_object() {
            return Err("an observed resource is no object");
        }
        let meta = resource
            .as_object_mut()
            .unwrap()
            .entry("metadata")
            .or_insert(json!({}));
        let annotations = meta
            .as_object_mut()
            .ok_or("metadata is no object")?
            .entry("annotations")
            .or_insert(json!({}));
        annotations
            .as_object_mut()
            .ok_or("annotations are no object")?
            .insert(RESOURCE_NAME.into(), name.clone().into());
        let mut out = Map::new();
        if let Some(cd) = entry
            .get("connectionDetails")
            .filter(|c| c.as_object().is_some_and(|c| !c.is_empty()))
        {
            let spec = resource
                .as_object_mut()
                .unwrap()
                .entry("spec")
                .or_insert(json!({}));
            let spec = spec.as_object_mut().ok_or("spec is no object")?;
            let r = spec
                .entry("writeConnectionSecretToRef")
                .or_insert(json!({"name": format!("conn-{i}"), "namespace": "crossplane-system"}));
            let secret_name = r["name"]
                .as_str()
                .ok_or("a secret ref without a name")?
                .to_owned();
            docs.push(json!({"apiVersion": "v1", "kind": "Secret",
                "metadata": {"name": secret_name, "namespace": r.get("namespace").cloned().unwrap_or(json!("default"))},
                "data": cd}));
            out.insert("connectionDetails".into(), cd.clone());
        }
        out.insert("resource".into(), resource.clone());
        docs.push(resource);
        paired.insert(name.clone(), Value::Object(out));
    }
    let mut parts_observed = json!({"resources": paired});
    if let Some(env) = observed.get("environment").filter(|e| !e.is_null()) {
        let mut data = env
            .as_object()
            .ok_or("the environment is no object")?
            .clone();
        data.remove("apiVersion");
        data.remove("kind");
        let mut merged =
            json!({"apiVersion": "internal.crossplane.io/v1alpha1", "kind": "Environment"});
        merged.as_object_mut().unwrap().extend(data.clone());
        parts_observed["environment"] = merged;
        docs.push(json!({"apiVersion": "apiextensions.crossplane.io/v1alpha1", "kind": "EnvironmentConfig",
            "metadata": {"name": "env"}, "data": data}));
    }
    let options = request.get("options").cloned().unwrap_or(json!({}));
    let parts = json!({"xr": xr, "composition": composition, "observed": parts_observed, "options": options});
    Ok((parts, docs, options))
}

/// A deterministic shuffle (a small linear congruential generator).
fn shuffled(docs: &[Value], seed: u64) -> Vec<Value> {
    let mut out = docs.to_vec();
    let mut state = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    for i in (1..out.len()).rev() {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let j = usize::try_from((state >> 33) % (i as u64 + 1)).unwrap();
        out.swap(i, j);
    }
    out
}

/// The Output without its trailing `inputs` member (error documents have none).
fn without_inputs(output: &str) -> String {
    match output.rfind(",\"inputs\":") {
        Some(i) if !output.starts_with("{\"error\"") => format!("{}}}", &output[..i]),
        _ => output.to_owned(),
    }
}

#[test]
fn documents_render_what_parts_render_in_any_order() {
    let (cases, left) = convertible();
    eprintln!(
        "{} fixture renders converted; not convertible:\n  {}",
        cases.len(),
        left.join("\n  ")
    );
    // The fixture renders with an XR, its Composition and observed resources: all take part.
    assert!(
        cases.len() >= 70,
        "only {} fixture renders converted",
        cases.len()
    );
    let mut failed = Vec::new();
    for (name, expected_path, parts, docs, options) in &cases {
        let want = xprender::render_json(&parts.to_string());
        // The request of parts stands for the fixture: it renders the committed expected output.
        let expected = fs::read_to_string(expected_path).unwrap();
        if serde_json::from_str::<Value>(&expected).unwrap()
            != serde_json::from_str::<Value>(&want).unwrap()
        {
            failed.push(format!(
                "{name}: the request of parts does not render {}",
                expected_path.display()
            ));
        }
        for seed in 0..4 {
            let order = if seed == 0 {
                docs.clone()
            } else {
                shuffled(docs, seed)
            };
            let request = json!({"documents": order, "options": options}).to_string();
            let got = xprender::render_json(&request);
            let invalid = "{\"error\":{\"context\":";
            if want.starts_with(invalid) && want.contains("\"kind\":\"InvalidRequest\"") {
                // Input errors name what is at fault: a field of the parts, a document here.
                if !(got.starts_with(invalid)
                    && got.contains("\"kind\":\"InvalidRequest\",\"message\":\"documents["))
                {
                    failed.push(format!("{name} (order {seed}): {want} became {got}"));
                }
            } else if !want.starts_with("{\"error\"") && !got.contains(",\"inputs\":") {
                failed.push(format!("{name} (order {seed}): no inputs in {got}"));
            } else if without_inputs(&got) != want {
                failed.push(format!(
                    "{name} (order {seed}):\n  parts:     {want}\n  documents: {got}"
                ));
            }
        }
    }
    assert!(
        failed.is_empty(),
        "{} differ:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

#[test]
fn the_rust_api_takes_documents() {
    let (cases, _) = convertible();
    // The first fixture whose parts render; error documents are compared elsewhere.
    let (_, _, parts, docs, options) = cases
        .iter()
        .find(|(_, _, parts, _, _)| {
            xprender::Request::from_json(&parts.to_string())
                .and_then(|r| xprender::render(&r))
                .is_ok()
        })
        .expect("a fixture that renders");
    let values: Vec<xprender::Value> = docs
        .iter()
        .map(|d| xprender::Value::from_json(&d.to_string()).unwrap())
        .collect();
    let options = xprender::Value::from_json(&options.to_string()).unwrap();
    let request = xprender::Request::from_documents(values, options).unwrap();
    let got = xprender::render(&request).unwrap().to_json();
    assert_eq!(
        without_inputs(&got),
        xprender::render_json(&parts.to_string())
    );
}
