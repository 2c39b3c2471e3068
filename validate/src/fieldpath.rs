//! Crossplane field paths (`spec.forProvider.tags[0]`, `metadata.labels[app.io/name]`,
//! `spec['dotted.key']`) and what a schema says lies at one.

use serde_json::{Value, json};

pub use xprender::model::Segment as Step;

/// Parses a field path as the engine (and Crossplane's fieldpath package) does.
///
/// # Errors
/// The engine's message; an empty path, which names no field, is refused too.
pub fn parse(path: &str) -> Result<Vec<Step>, String> {
    if path.is_empty() {
        return Err("empty field path".into());
    }
    xprender::model::parse_field_path(path).map_err(|e| e.message().to_owned())
}

/// What a field path reaches in a schema.
#[derive(Debug)]
pub enum Reach<'a> {
    /// The schema of the value at the path.
    Schema(&'a Value),
    /// The path enters a part of the object the schema leaves open: anything goes.
    Open,
    /// Step `at` names a field the schema does not have; its siblings are listed.
    NoField { at: usize, candidates: Vec<String> },
    /// Step `at` indexes something that is not a list, or names a field of a non-object.
    WrongShape { at: usize, found: &'static str },
}

fn object_meta() -> &'static Value {
    static META: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    META.get_or_init(|| {
        let map = json!({"type": "object", "additionalProperties": {"type": "string"}});
        json!({"type": "object", "properties": {
            "name": {"type": "string"}, "namespace": {"type": "string"},
            "generateName": {"type": "string"}, "uid": {"type": "string"},
            "labels": map.clone(), "annotations": map,
            "finalizers": {"type": "array", "items": {"type": "string"}},
            "ownerReferences": {"type": "array", "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
            "resourceVersion": {"type": "string"}, "generation": {"type": "integer"},
            "creationTimestamp": {"type": "string"}, "deletionTimestamp": {"type": "string"}
        }})
    })
}

fn string_schema() -> &'static Value {
    static S: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    S.get_or_init(|| json!({"type": "string"}))
}

fn shape(schema: &Value) -> &'static str {
    if schema.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
        return "int-or-string";
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("string") => "string",
        Some("integer") => "integer",
        Some("number") => "number",
        Some("boolean") => "boolean",
        Some("array") => "array",
        _ => "object",
    }
}

/// Follows `steps` through the schema of a whole object (root: apiVersion, kind and
/// metadata are implicit).
pub fn reach<'a>(root: &'a Value, steps: &[Step]) -> Reach<'a> {
    let mut schema = root;
    for (i, step) in steps.iter().enumerate() {
        let embedded =
            i == 0 || schema.get("x-kubernetes-embedded-resource") == Some(&Value::Bool(true));
        let props = schema.get("properties").and_then(Value::as_object);
        let preserve =
            schema.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
        match step {
            Step::Field(f) if !step.is_wildcard() => {
                // ObjectMeta is the API server's own, whatever the CRD says of metadata.
                if embedded && f == "metadata" {
                    schema = object_meta();
                    continue;
                }
                if let Some(sub) = props.and_then(|p| p.get(f)) {
                    schema = sub;
                    continue;
                }
                if embedded {
                    match f.as_str() {
                        "metadata" => {
                            schema = object_meta();
                            continue;
                        }
                        "apiVersion" | "kind" => {
                            schema = string_schema();
                            continue;
                        }
                        _ => {}
                    }
                }
                match schema.get("additionalProperties") {
                    Some(sub @ Value::Object(_)) => schema = sub,
                    Some(Value::Bool(true)) => return Reach::Open,
                    _ if preserve => return Reach::Open,
                    _ if props.is_none() && !matches!(shape(schema), "object") => {
                        return Reach::WrongShape {
                            at: i,
                            found: shape(schema),
                        };
                    }
                    _ if props.is_none() && schema.get("type").is_none() => return Reach::Open,
                    _ => {
                        return Reach::NoField {
                            at: i,
                            candidates: props
                                .map(|p| p.keys().cloned().collect())
                                .unwrap_or_default(),
                        };
                    }
                }
            }
            Step::Index(_) | Step::Field(_) => match schema.get("items") {
                Some(sub) => schema = sub,
                None if step.is_wildcard()
                    && schema
                        .get("additionalProperties")
                        .is_some_and(Value::is_object) =>
                {
                    schema = &schema["additionalProperties"];
                }
                None if preserve || schema.get("type").is_none() => return Reach::Open,
                None => {
                    return Reach::WrongShape {
                        at: i,
                        found: shape(schema),
                    };
                }
            },
        }
    }
    Reach::Schema(schema)
}

/// The type a schema gives its values, as messages name it.
pub fn type_of(schema: &Value) -> Option<&'static str> {
    if schema.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
        return Some("int-or-string");
    }
    schema.get("type").and_then(Value::as_str).map(|t| match t {
        "string" => "string",
        "integer" => "integer",
        "number" => "number",
        "boolean" => "boolean",
        "array" => "array",
        _ => "object",
    })
}

/// The steps up to and including `at`, written back as a path.
pub fn prefix(steps: &[Step], at: usize) -> String {
    let mut out = String::new();
    for s in &steps[..=at.min(steps.len().saturating_sub(1))] {
        match s {
            s if s.is_wildcard() => out.push_str("[*]"),
            Step::Field(f) if f.contains('.') || f.contains('/') => out.push_str(&format!("[{f}]")),
            Step::Field(f) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(f);
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_crossplane_paths() {
        assert_eq!(
            parse("spec.forProvider.tags[0].key").unwrap(),
            vec![
                Step::Field("spec".into()),
                Step::Field("forProvider".into()),
                Step::Field("tags".into()),
                Step::Index(0),
                Step::Field("key".into())
            ]
        );
        assert_eq!(
            parse("metadata.labels[app.io/name]").unwrap()[2],
            Step::Field("app.io/name".into())
        );
        assert_eq!(parse("spec['a.b']").unwrap()[1], Step::Field("a.b".into()));
        assert!(parse("spec..x").is_err());
        assert!(parse("spec[0").is_err());
        assert!(parse("spec[*]").unwrap()[1].is_wildcard());
    }
}
