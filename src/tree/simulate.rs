//! The simulated providers of the iterations: what the API server and a provider would make of
//! each desired object before the next reconcile observes it.
//!
//! A `Simulation` document (`xprender.dev/v1alpha1`) says, per kind, what a provider writes:
//!
//! ```yaml
//! apiVersion: xprender.dev/v1alpha1
//! kind: Simulation
//! spec:
//!   resources:
//!   - apiVersion: rds.aws.upbound.io/v1beta1   # optional: any version of the kind
//!     kind: Instance
//!     status: {atProvider: {address: db.example.org}}   # merged into status
//!     copy:                                             # fields copied from the object
//!     - {fromFieldPath: spec.forProvider.region, toFieldPath: status.atProvider.region}
//!     connectionDetails: {password: s3cret}             # its connection Secret's data
//!     ready: true                                       # default: Ready and Synced True
//! ```
//!
//! Every composed resource gets a name (its `generateName` completed), a uid, and `Ready` and
//! `Synced` conditions; the first rule for its kind adds the rest. A nested XR is what its own
//! render left (status and Ready condition), and every XR lists its composed resources in its
//! resource references, as Crossplane records them.

use crate::error::{Error, ErrorKind, Result};
use crate::semantics::Semantics;
use crate::value::{Map, Value};

/// The API group and kind of a simulation document.
pub(crate) const GROUP: &str = "xprender.dev";
pub(crate) const KIND: &str = "Simulation";

/// One rule: what a provider writes for objects of one kind.
#[derive(Debug)]
pub(crate) struct Rule {
    api_version: Option<String>,
    kind: String,
    status: Option<Value>,
    copies: Vec<(String, String)>,
    connection_details: Vec<(String, String)>,
    ready: bool,
}

/// Whether the document is a simulation.
pub(crate) fn is_simulation(d: &Value) -> bool {
    let av = d.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    av.split('/').next() == Some(GROUP) && d.get("kind").and_then(Value::as_str) == Some(KIND)
}

/// The rules of every simulation among the documents, in order.
///
/// # Errors
/// `InvalidRequest` naming the document and field of a rule that does not read.
pub(crate) fn rules(docs: &[Value]) -> Result<Vec<Rule>> {
    let mut out = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        if !is_simulation(d) {
            continue;
        }
        let at = format!("documents[{i}].spec.resources");
        let list = d.get("spec").and_then(|s| s.get("resources"));
        let Some(list) = list.and_then(Value::as_array) else {
            return Err(invalid(&at, "expected an array of rules"));
        };
        for (j, r) in list.iter().enumerate() {
            out.push(rule(r, &format!("{at}[{j}]"))?);
        }
    }
    Ok(out)
}

fn rule(r: &Value, at: &str) -> Result<Rule> {
    let text = |k: &str| r.get(k).and_then(Value::as_str).map(str::to_owned);
    let kind = text("kind").ok_or_else(|| invalid(&format!("{at}.kind"), "required value"))?;
    let status = match r.get("status") {
        None | Some(Value::Null) => None,
        Some(s @ Value::Object(_)) => Some(s.clone()),
        Some(_) => return Err(invalid(&format!("{at}.status"), "expected object")),
    };
    let mut copies = Vec::new();
    for (k, c) in r
        .get("copy")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let path = |f: &str| {
            c.get(f)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| invalid(&format!("{at}.copy[{k}].{f}"), "required value"))
        };
        copies.push((path("fromFieldPath")?, path("toFieldPath")?));
    }
    let mut connection_details = Vec::new();
    for (k, v) in r
        .get("connectionDetails")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let Some(s) = v.as_str() else {
            return Err(invalid(
                &format!("{at}.connectionDetails.{k}"),
                "expected string",
            ));
        };
        connection_details.push((k.clone(), s.to_owned()));
    }
    Ok(Rule {
        api_version: text("apiVersion"),
        kind,
        status,
        copies,
        connection_details,
        ready: r.get("ready") != Some(&Value::Bool(false)),
    })
}

fn invalid(at: &str, what: &str) -> Error {
    Error::new(ErrorKind::InvalidRequest, format!("{at}: {what}")).with_field_path(at.to_owned())
}

/// The first rule for the object's kind.
fn rule_for<'r>(rules: &'r [Rule], d: &Value) -> Option<&'r Rule> {
    let av = d.get("apiVersion").and_then(Value::as_str);
    let kind = d.get("kind").and_then(Value::as_str);
    rules.iter().find(|r| {
        Some(r.kind.as_str()) == kind && r.api_version.as_deref().is_none_or(|v| Some(v) == av)
    })
}

/// A composed resource as a provider leaves it: `desired` applied over what was observed,
/// its conditions, and the status its rule gives. `seed` names it reproducibly.
pub(crate) fn provider(
    rules: &[Rule],
    observed: Option<&Value>,
    desired: &Value,
    seed: &str,
    now: Option<&str>,
) -> Result<Value> {
    let mut d = match observed {
        Some(o) => super::merge::over(o, desired),
        None => desired.clone(),
    };
    identify(&mut d, seed);
    let rule = rule_for(rules, &d);
    if let Some(r) = rule {
        if let Some(status) = &r.status {
            let old = d
                .get("status")
                .cloned()
                .unwrap_or(Value::Object(Map::new()));
            set(&mut d, "status", super::merge::over(&old, status));
        }
        for (from, to) in &r.copies {
            if let Ok(v) = crate::fieldpath::get_value(&d, from, Semantics::Native) {
                let v = v.clone();
                crate::fieldpath::merge_value(&mut d, to, v, None, Semantics::Native)
                    .map_err(|e| e.wrap(format!("simulation of {}: copy to {to}", seed)))?;
            }
        }
    }
    let ready = rule.is_none_or(|r| r.ready);
    set_conditions(&mut d, ready, now);
    Ok(d)
}

/// The connection Secret a provider writes for the object (its rule's details, at the
/// object's `spec.writeConnectionSecretToRef`).
pub(crate) fn connection_secret(rules: &[Rule], d: &Value) -> Option<Value> {
    let r = rule_for(rules, d)?;
    if r.connection_details.is_empty() {
        return None;
    }
    let to = d.get("spec")?.get("writeConnectionSecretToRef")?;
    let mut metadata = Map::new();
    metadata.insert("name".into(), to.get("name")?.clone());
    if let Some(ns) = to.get("namespace") {
        metadata.insert("namespace".into(), ns.clone());
    }
    let mut data = Map::new();
    for (k, v) in &r.connection_details {
        data.insert(k.clone(), v.as_str().into());
    }
    let mut s = Map::new();
    s.insert("apiVersion".into(), "v1".into());
    s.insert("kind".into(), "Secret".into());
    s.insert("metadata".into(), Value::Object(metadata));
    s.insert("stringData".into(), Value::Object(data));
    Some(Value::Object(s))
}

/// Gives the object a name (its `generateName` completed) and a uid when it has none, as the
/// API server does on create; both drawn from `seed`, so iterations repeat.
pub(crate) fn identify(d: &mut Value, seed: &str) {
    let Some(root) = d.as_object_mut() else {
        return;
    };
    let Value::Object(m) = root.get_or_insert_with("metadata", || Value::Object(Map::new())) else {
        return;
    };
    let name = m.get("name").and_then(Value::as_str).unwrap_or("");
    if name.is_empty() {
        let prefix = m
            .get("generateName")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        m.insert(
            "name".into(),
            crate::documents::names::generated(&prefix, seed).into(),
        );
    }
    if m.get("uid")
        .and_then(Value::as_str)
        .unwrap_or("")
        .is_empty()
    {
        m.insert("uid".into(), crate::documents::names::uid(seed).into());
    }
}

fn set(d: &mut Value, key: &str, v: Value) {
    if let Value::Object(m) = d {
        m.insert(key.into(), v);
    }
}

/// `Ready` and `Synced` conditions as a provider writes them.
fn set_conditions(d: &mut Value, ready: bool, now: Option<&str>) {
    let (status, reason) = if ready {
        ("True", "Available")
    } else {
        ("False", "Creating")
    };
    let condition = |kind: &str, status: &str, reason: &str| {
        let mut c = Map::new();
        if let Some(t) = now {
            c.insert("lastTransitionTime".into(), t.into());
        }
        c.insert("reason".into(), reason.into());
        c.insert("status".into(), status.into());
        c.insert("type".into(), kind.into());
        Value::Object(c)
    };
    let Value::Object(root) = d else { return };
    let status_obj = root.get_or_insert_with("status", || Value::Object(Map::new()));
    let Value::Object(sm) = status_obj else {
        return;
    };
    let mut conditions: Vec<Value> = sm
        .get("conditions")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter(|c| {
                    !matches!(
                        c.get("type").and_then(Value::as_str),
                        Some("Ready" | "Synced")
                    )
                })
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    conditions.push(condition("Ready", status, reason));
    conditions.push(condition("Synced", "True", "ReconcileSuccess"));
    sm.insert("conditions".into(), Value::Array(conditions));
}
