//! YAML is read the way kubectl reads it: go-yaml v2 (YAML 1.1 scalars), then JSON.

mod common;

use common::{built_request, built_request_text, run, temp_dir, write, xprender};
use serde_json::{Value, json};

/// Reads `spec` of an XR whose spec is `body`, through the CLI's YAML reader (the XR is the
/// first document of the request the CLI builds).
fn read_spec(name: &str, body: &str) -> Value {
    let request: Value = serde_json::from_str(&request_for_spec(name, body)).unwrap();
    request["documents"][0]["spec"].clone()
}

/// The text of the request the CLI builds for an XR whose spec is `body`.
fn request_for_spec(name: &str, body: &str) -> String {
    let dir = temp_dir(name);
    let xr = write(
        &dir,
        "xr.yaml",
        &format!(
            "apiVersion: example.org/v1\nkind: XThing\nmetadata:\n  name: thing\nspec:\n{body}"
        ),
    );
    let comp = write(
        &dir,
        "comp.yaml",
        "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: c\n\
         spec:\n  compositeTypeRef:\n    apiVersion: example.org/v1\n    kind: XThing\n  resources: []\n",
    );
    built_request_text(&dir, &[xr.to_str().unwrap(), comp.to_str().unwrap()])
}

#[test]
fn yaml_1_1_scalars_like_kubectl() {
    // (YAML text, value kubectl sends to the API server)
    let cases: &[(&str, Value)] = &[
        ("yes", json!(true)),
        ("Yes", json!(true)),
        ("YES", json!(true)),
        ("no", json!(false)),
        ("on", json!(true)),
        ("Off", json!(false)),
        ("y", json!(true)),
        ("n", json!(false)),
        ("true", json!(true)),
        ("False", json!(false)),
        ("\"yes\"", json!("yes")),
        ("'on'", json!("on")),
        ("0777", json!(511)),
        ("\"0777\"", json!("0777")),
        ("0o17", json!(15)),
        ("0x1F", json!(31)),
        ("1_000", json!(1000)),
        ("1e3", json!(1000)),
        ("2.0", json!(2)),
        ("-0.0", json!(0)),
        ("1.5", json!(1.5)),
        ("1e21", json!(1e21)),
        (
            "12345678901234567890",
            json!(12_345_678_901_234_567_890_u64),
        ),
        ("~", json!(null)),
        ("null", json!(null)),
        ("", json!(null)),
        ("2024-01-15", json!("2024-01-15")),
        ("2024-01-15T10:00:00Z", json!("2024-01-15T10:00:00Z")),
        ("1:20", json!("1:20")),
        ("0.1.2", json!("0.1.2")),
        ("'123'", json!("123")),
    ];
    let body: String = cases
        .iter()
        .enumerate()
        .map(|(i, (text, _))| format!("  k{i}: {text}\n"))
        .collect();
    let spec = read_spec("yaml-scalars", &body);
    for (i, (text, want)) in cases.iter().enumerate() {
        assert_eq!(&spec[format!("k{i}")], want, "YAML `{text}`");
    }
}

#[test]
fn non_string_keys_become_strings() {
    let spec = read_spec(
        "yaml-keys",
        "  m:\n    yes: a\n    off: b\n    1: c\n    1.5: d\n    ~: e\n    \"on\": f\n",
    );
    assert_eq!(
        spec["m"],
        json!({"true": "a", "false": "b", "1": "c", "1.5": "d", "null": "e", "on": "f"})
    );
}

#[test]
fn anchors_aliases_and_duplicate_keys() {
    let spec = read_spec("yaml-anchors", "  a: &x {p: 1}\n  b: *x\n  c: 1\n  c: 2\n");
    assert_eq!(spec, json!({"a": {"p": 1}, "b": {"p": 1}, "c": 2}));
}

#[test]
fn json_files_read_as_the_api_server_stores_them() {
    let dir = temp_dir("json-input");
    let xr = write(
        &dir,
        "xr.json",
        r#"{"apiVersion": "example.org/v1", "kind": "XThing", "metadata": {"name": "t"},
            "spec": {"a": "yes", "b": 1.0, "c": 777, "d": 2.5, "e": 1e3}}"#,
    );
    let comp = write(
        &dir,
        "comp.json",
        r#"{"apiVersion": "apiextensions.crossplane.io/v1", "kind": "Composition", "metadata": {"name": "c"},
            "spec": {"compositeTypeRef": {"apiVersion": "example.org/v1", "kind": "XThing"}}}"#,
    );
    let req = built_request(&dir, &[xr.to_str().unwrap(), comp.to_str().unwrap()]);
    assert_eq!(
        req["documents"][0]["spec"],
        json!({"a": "yes", "b": 1, "c": 777, "d": 2.5, "e": 1000})
    );
}

#[test]
fn large_and_deep_documents_read_whole() {
    // 300,000 nodes in one list (the YAML crate's default stops at 250,000), a flow
    // sequence 900 levels deep and a block mapping 500 deep (its defaults: 255 and 64).
    // The request is compared as text: serde_json reads 128 levels.
    let list = vec!["7"; 300_000].join(",");
    let flow = format!("{}1{}", "[".repeat(900), "]".repeat(900));
    let mut block = String::new();
    for i in 0..500 {
        block.push_str(&format!("{}k:\n", " ".repeat(4 + i)));
    }
    block.push_str(&format!("{}leaf: 1\n", " ".repeat(504)));
    let request = request_for_spec(
        "yaml-large",
        &format!("  list: [{list}]\n  flow: {flow}\n  block:\n{block}"),
    );
    let block_json = format!("{}{{\"leaf\":1}}{}", "{\"k\":".repeat(500), "}".repeat(500));
    let spec = format!("\"spec\":{{\"block\":{block_json},\"flow\":{flow},\"list\":[{list}]}}");
    assert!(
        request.contains(&spec),
        "{}",
        &request[..request.len().min(400)]
    );
}

#[test]
fn streams_of_many_documents_read_whole() {
    // 1,500 objects in one stream (the YAML crate's default stops at 1,024 documents).
    let dir = temp_dir("yaml-many");
    let crd = write(
        &dir,
        "crd.yaml",
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n\
         metadata:\n  name: things.example.org\nspec:\n  group: example.org\n  names:\n    \
         kind: Thing\n    plural: things\n  scope: Cluster\n  versions:\n  - name: v1\n    \
         served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        \
         type: object\n        properties:\n          spec:\n            type: object\n            \
         properties:\n              size:\n                type: integer\n",
    );
    let objects: Vec<String> = (0..1500)
        .map(|i| {
            format!("apiVersion: example.org/v1\nkind: Thing\nmetadata:\n  name: t{i}\nspec:\n  size: {i}\n")
        })
        .collect();
    let resources = write(&dir, "things.yaml", &objects.join("---\n"));
    let (code, out, err) = run(xprender()
        .arg("validate")
        .arg("--resources")
        .arg(&resources)
        .arg(&crd));
    assert_eq!(code, 0, "stdout: {out}\nstderr: {err}");
    assert!(out.contains("1500 objects checked: 1500 valid"), "{out}");
}

#[test]
fn one_anchor_aliased_many_times() {
    // serde-saphyr's default refuses more than ten aliases per anchor; kubectl reads these.
    let mut body = String::from("  common: &c {region: eu-west-1, tier: gold}\n  items:\n");
    for _ in 0..150 {
        body.push_str("  - *c\n");
    }
    let spec = read_spec("yaml-aliases", &body);
    let items = spec["items"].as_array().unwrap();
    assert_eq!(items.len(), 150);
    assert!(
        items
            .iter()
            .all(|i| *i == json!({"region": "eu-west-1", "tier": "gold"}))
    );
}

/// The CLI's error for an XR file whose spec is `body`, which it refuses as bad input.
fn refused_spec(name: &str, body: &str) -> String {
    let dir = temp_dir(name);
    let xr = write(
        &dir,
        "xr.yaml",
        &format!("apiVersion: example.org/v1\nkind: XThing\nmetadata:\n  name: t\nspec:\n{body}"),
    );
    let (code, _, err) = run(xprender().arg("render").arg(&xr).arg(&xr));
    assert_eq!(code, 2, "stderr: {err}");
    err
}

#[test]
fn alias_bombs_are_refused() {
    // Ten levels of ten aliases each: 10^10 nodes once expanded.
    let mut body = String::from("  a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..10 {
        let refs = vec![format!("*a{}", i - 1); 10].join(", ");
        body.push_str(&format!("  a{i}: &a{i} [{refs}]\n"));
    }
    let err = refused_spec("yaml-bomb", &body);
    assert!(
        err.contains("xr.yaml:11:17: aliases expand the YAML past 250000 nodes"),
        "{err}"
    );
}

#[test]
fn block_nesting_past_the_limit_is_refused_in_words() {
    let mut body = String::new();
    for i in 0..1001 {
        body.push_str(&format!("{}k:\n", " ".repeat(2 + i)));
    }
    body.push_str(&format!("{}leaf: 1\n", " ".repeat(1003)));
    let err = refused_spec("yaml-too-deep", &body);
    assert!(
        err.contains("xr.yaml:1005:1002: nested more than 1000 levels deep"),
        "{err}"
    );
}

#[test]
fn json_files_nest_as_deep_as_yaml_files() {
    // serde_json's own limit is 128 levels; files read 1000, as the engine does.
    let dir = temp_dir("json-deep");
    let xr_with = |nested: &str| {
        format!(
            "{{\"apiVersion\": \"example.org/v1\", \"kind\": \"XThing\", \"metadata\": {{\"name\": \"t\"}},\n\
             \"spec\": {{\"s\": \"[[{{\\\"\", \"deep\": {nested}}}}}"
        )
    };
    let comp = write(
        &dir,
        "comp.json",
        r#"{"apiVersion": "apiextensions.crossplane.io/v1", "kind": "Composition", "metadata": {"name": "c"},
            "spec": {"compositeTypeRef": {"apiVersion": "example.org/v1", "kind": "XThing"}}}"#,
    );
    // 997 levels under `spec` (1000 with the XR and spec objects and `deep`'s first).
    let deep = format!("{}1{}", "[".repeat(998), "]".repeat(998));
    let xr = write(&dir, "xr.json", &xr_with(&deep));
    let request = built_request_text(&dir, &[xr.to_str().unwrap(), comp.to_str().unwrap()]);
    assert!(
        request.contains(&format!("\"deep\":{deep}")),
        "{}",
        &request[..200]
    );

    let deeper = format!("{}1{}", "[".repeat(999), "]".repeat(999));
    let xr = write(&dir, "xr.json", &xr_with(&deeper));
    let (code, _, err) = run(xprender().arg("render").arg(&xr).arg(&comp));
    assert_eq!(code, 2, "stderr: {err}");
    assert!(
        err.contains("xr.json:2:1030: recursion limit exceeded"),
        "{err}"
    );
}

#[test]
fn packages_of_many_crds_build_and_inspect() {
    // 1,100 CRDs in package.yaml (the YAML crate's default stops at 1,024 documents).
    let dir = temp_dir("yaml-package");
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    write(
        &src,
        "crossplane.yaml",
        "apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: many\n",
    );
    let crds: Vec<String> = (0..1100)
        .map(|i| {
            format!(
                "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n\
                 metadata:\n  name: things{i}.example.org\nspec:\n  group: example.org\n  \
                 names: {{kind: Thing{i}, plural: things{i}}}\n  scope: Cluster\n  versions:\n  \
                 - {{name: v1, served: true, storage: true, schema: {{openAPIV3Schema: {{type: object}}}}}}\n"
            )
        })
        .collect();
    write(&src, "crds.yaml", &crds.join("---\n"));
    let package = dir.join("many.xpkg");
    let (code, _, err) = run(xprender()
        .args(["xpkg", "build"])
        .arg(&src)
        .arg("-o")
        .arg(&package));
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = run(xprender()
        .args(["xpkg", "inspect", "-o", "json"])
        .arg(&package));
    assert_eq!(code, 0, "{err}");
    let inspected: Value = serde_json::from_str(&out).unwrap();
    let names = inspected["package"]["customResourceDefinitions"]
        .as_array()
        .unwrap();
    assert_eq!(names.len(), 1100);
    assert_eq!(names[1099], "things1099.example.org");
}
