//! Validation of a set of documents as the playground holds them: the CRDs and XRDs among
//! them give the schemas, and every other object is checked against its kind's (a
//! Composition deeply). What has no schema is left alone: the playground holds many objects
//! (Functions, EnvironmentConfigs, observed resources) and templates that nothing describes,
//! since provider CRDs are rarely given there.

use serde_json::{Value, json};

use crate::definitions::{Schemas, is_definition};
use crate::problem::{Problem, Seg, Severity};
use crate::schema::Options;
use crate::validate_object;

/// Every problem of `documents`, each with the index of its document.
pub fn validate_documents(documents: &[Value]) -> Vec<(usize, Problem)> {
    let mut schemas = Schemas::new();
    let mut found = Vec::new();
    for (i, doc) in documents.iter().enumerate() {
        if is_definition(doc) {
            found.extend(schemas.add(doc).into_iter().map(|p| (i, p)));
        }
    }
    for (i, doc) in documents.iter().enumerate() {
        if !doc.is_object() || is_definition(doc) {
            continue;
        }
        let report = validate_object(&schemas, doc, Options::default());
        for p in report.problems {
            // A PatchSet's patch is checked for every template that uses it: said once.
            if !unschematized_base(&schemas, doc, &p) && !found.contains(&(i, p.clone())) {
                found.push((i, p));
            }
        }
    }
    found
}

/// Whether `p` is the warning that a template's base has no schema (so its patches are not
/// checked against one): a template's `base` whose kind no definition given describes.
fn unschematized_base(schemas: &Schemas, doc: &Value, p: &Problem) -> bool {
    if p.severity != Severity::Warning || p.path.0.last() != Some(&Seg::Field("base".into())) {
        return false;
    }
    let mut at = doc;
    for seg in &p.path.0 {
        let next = match seg {
            Seg::Field(n) | Seg::Key(n) => at.get(n),
            Seg::Index(i) => at.get(i),
        };
        let Some(next) = next else { return false };
        at = next;
    }
    let api = at.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = at.get("kind").and_then(Value::as_str).unwrap_or("");
    !kind.is_empty() && schemas.lookup(api, kind).is_none()
}

/// The problems as JSON: `{document, severity, path, field, message, suggestion?}` each,
/// `path` the steps (names and keys as strings, indices as numbers), `field` its text.
pub fn problems_json(problems: &[(usize, Problem)]) -> Value {
    let list = problems.iter().map(|(doc, p)| {
        let path: Vec<Value> = p
            .path
            .0
            .iter()
            .map(|s| match s {
                Seg::Field(n) | Seg::Key(n) => json!(n),
                Seg::Index(i) => json!(i),
            })
            .collect();
        let mut v = json!({
            "document": doc,
            "severity": p.severity.as_str(),
            "path": path,
            "field": p.path.to_string(),
            "message": p.message,
        });
        if let Some(s) = &p.suggestion {
            v["suggestion"] =
                json!({"target": s.target.as_str(), "wrong": s.wrong, "right": s.right});
        }
        v
    });
    Value::Array(list.collect())
}
