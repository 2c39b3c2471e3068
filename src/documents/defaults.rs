//! The XRD's `openAPIV3Schema` defaults, applied to the XR as the API server applies them.
//!
//! Structural defaulting: at every object level, a property with a `default` that is absent (or
//! null where the schema is not `nullable`) is set to it; then every present value is defaulted
//! by its property's schema, by `additionalProperties` for other keys, by `items` in arrays. A
//! default never replaces a value the XR sets.

use crate::value::Value;

use super::classify::{at, str_at};

/// Defaults `xr` by the schema of the XRD version its apiVersion names.
pub(crate) fn apply(xr: &mut Value, xrd: &Value) {
    let version = str_at(xr, &["apiVersion"])
        .and_then(|av| av.split_once('/'))
        .map_or("", |(_, v)| v)
        .to_owned();
    let schema = at(xrd, &["spec", "versions"])
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|v| str_at(v, &["name"]) == Some(version.as_str()))
        .and_then(|v| at(v, &["schema", "openAPIV3Schema"]));
    if let Some(schema) = schema {
        default(xr, schema, 0);
    }
}

/// Deeper schemas than this are not walked (a schema is data; its depth is the caller's).
const MAX_DEPTH: usize = crate::value::MAX_DEPTH;

fn default(x: &mut Value, schema: &Value, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match x {
        Value::Object(m) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            for (k, prop) in properties.into_iter().flatten() {
                let Some(d) = prop.get("default") else {
                    continue;
                };
                let nullable = prop.get("nullable") == Some(&Value::Bool(true));
                match m.get_mut(k) {
                    None => {
                        m.insert(k.clone(), d.clone());
                    }
                    Some(v) if v.is_null() && !nullable => *v = d.clone(),
                    Some(_) => {}
                }
            }
            let additional = schema
                .get("additionalProperties")
                .filter(|a| a.as_object().is_some());
            for (k, v) in m.iter_mut() {
                match properties.and_then(|p| p.get(k)) {
                    Some(prop) => default(v, prop, depth + 1),
                    None => {
                        if let Some(a) = additional {
                            default(v, a, depth + 1);
                        }
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(s) = schema.get("items") {
                for v in items {
                    default(v, s, depth + 1);
                }
            }
        }
        _ => {}
    }
}
