//! The XRD's `openAPIV3Schema` defaults, applied to the XR as the API server applies them.
//!
//! Structural defaulting: at every object level, a property with a `default` that is absent (or
//! null where the schema is not `nullable`) is set to it; then every present value is defaulted
//! by its property's schema, by `additionalProperties` for other keys, by `items` in arrays. A
//! default never replaces a value the XR sets.

use crate::value::{Map, Value};

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
        apply_schema(xr, schema);
    }
}

/// Defaults `xr` as Crossplane v2's `crossplane render --xrd` does: by the CRD Crossplane
/// derives from the XRD, which adds the XRD's `defaultCompositionUpdatePolicy` as the default
/// of the XR's update policy (`spec.crossplane.compositionUpdatePolicy` for a `Namespaced` or
/// `Cluster` XRD, `spec.compositionUpdatePolicy` for a `LegacyCluster` one or one without a
/// scope). Structural defaulting creates no parents: the first lands only in an XR that has
/// `spec.crossplane`. An XR version the XRD
/// does not define is an error, in Crossplane's words.
pub(crate) fn apply_v2(xr: &mut Value, xrd: &Value) -> crate::error::Result<()> {
    let api_version = str_at(xr, &["apiVersion"]).unwrap_or("").to_owned();
    let group = str_at(xrd, &["spec", "group"]).unwrap_or("");
    let version = at(xrd, &["spec", "versions"])
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|v| str_at(v, &["name"]).is_some_and(|n| api_version == format!("{group}/{n}")));
    let Some(version) = version else {
        return Err(crate::error::Error::new(
            crate::error::ErrorKind::Render,
            format!(
                "cannot default values for XR {}: the specified API version '{api_version}' does not exist in the XRD",
                crate::go::quote(str_at(xr, &["metadata", "name"]).unwrap_or(""))
            ),
        ));
    };
    let mut schema = at(version, &["schema", "openAPIV3Schema"])
        .cloned()
        .unwrap_or_else(|| Value::Object(Map::new()));
    if let Some(policy) =
        at(xrd, &["spec", "defaultCompositionUpdatePolicy"]).filter(|p| p.as_str().is_some())
    {
        // An XRD read from a file has no API server defaults: without a scope it is laid out
        // as a LegacyCluster one.
        let v2 = matches!(
            str_at(xrd, &["spec", "scope"]),
            Some("Namespaced" | "Cluster")
        );
        let path: &[&str] = if v2 {
            &["spec", "crossplane", "compositionUpdatePolicy"]
        } else {
            &["spec", "compositionUpdatePolicy"]
        };
        let mut node = Some(&mut schema);
        for key in path {
            node = node.and_then(|n| property(n, key));
        }
        if let Some(Value::Object(m)) = node {
            m.set("default", policy.clone());
        }
    }
    apply_schema(xr, &schema);
    Ok(())
}

/// The schema of property `key` of an object schema, created when absent (`None` in a schema
/// that is not an object: no default can be placed there).
fn property<'a>(schema: &'a mut Value, key: &str) -> Option<&'a mut Value> {
    let Value::Object(m) = schema else {
        return None;
    };
    let Value::Object(props) = m.get_or_insert_with("properties", || Value::Object(Map::new()))
    else {
        return None;
    };
    Some(props.get_or_insert_with(key, || Value::Object(Map::new())))
}

/// Defaults `x` by an `openAPIV3Schema` given as it is (`crossplane render --xrd`).
pub(crate) fn apply_schema(x: &mut Value, schema: &Value) {
    default(x, schema, 0);
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

#[cfg(test)]
mod tests {
    use super::apply_schema as apply;
    use crate::value::Value;

    fn v(s: &str) -> Value {
        Value::from_json(s).expect("valid JSON")
    }

    #[test]
    fn defaults_fill_missing_fields_without_creating_parents() {
        let schema = v(r#"{"type":"object","properties":{
            "spec":{"type":"object","properties":{
                "size":{"type":"string","default":"small"},
                "replicas":{"type":"integer","default":2},
                "storage":{"type":"object","default":{},"properties":{
                    "gb":{"type":"integer","default":20}}},
                "rules":{"type":"array","items":{"type":"object","properties":{
                    "port":{"type":"integer","default":443}}}},
                "labels":{"type":"object","additionalProperties":{"type":"object",
                    "properties":{"v":{"type":"string","default":"x"}}}}}},
            "status":{"type":"object","properties":{"phase":{"type":"string","default":"New"}}}}}"#);
        let mut xr = v(r#"{"apiVersion":"example.org/v1","kind":"X","spec":{
            "size":"large","rules":[{"port":80},{}],"labels":{"a":{}}}}"#);
        apply(&mut xr, &schema);
        assert_eq!(
            xr,
            v(r#"{"apiVersion":"example.org/v1","kind":"X","spec":{
                "size":"large","replicas":2,"storage":{"gb":20},
                "rules":[{"port":80},{"port":443}],"labels":{"a":{"v":"x"}}}}"#)
        );
    }
}
