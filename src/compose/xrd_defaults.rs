//! `crossplane render --xrd`: the defaults of the XR's schema (the XRD version's
//! `openAPIV3Schema`, request member `xrdSchema`) applied to the XR as the API
//! server applies CRD defaults: a missing property with a `default` gets it,
//! then defaulting continues inside every present value (defaulted ones too),
//! through `properties`, `additionalProperties` and array `items`. Missing
//! parents are not created.

use crate::value::Value;

/// Applies `schema`'s defaults to `obj`.
pub(crate) fn apply(obj: &mut Value, schema: &Value) {
    match obj {
        Value::Object(m) => {
            let props = schema.get("properties").and_then(Value::as_object);
            if let Some(props) = props {
                for (k, s) in props.iter() {
                    if !m.contains_key(k)
                        && let Some(d) = s.get("default")
                    {
                        m.insert(k.clone(), d.clone());
                    }
                }
            }
            let additional = schema
                .get("additionalProperties")
                .filter(|a| a.as_object().is_some());
            for (k, v) in m.iter_mut() {
                match props.and_then(|p| p.get(k)) {
                    Some(s) => apply(v, s),
                    None => {
                        if let Some(s) = additional {
                            apply(v, s);
                        }
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(s) = schema.get("items") {
                for v in items {
                    apply(v, s);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::apply;
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
