//! An object as the API server stores it after an apply: the fields the applier sets over the
//! object as it was.

use crate::value::Value;

/// `desired` over `observed`: objects merge key by key, anything else is replaced.
pub(crate) fn over(observed: &Value, desired: &Value) -> Value {
    match (observed, desired) {
        (Value::Object(o), Value::Object(d)) => {
            let mut out = o.clone();
            for (k, v) in d {
                let merged = match out.get(k) {
                    Some(old) => over(old, v),
                    None => v.clone(),
                };
                out.insert(k.clone(), merged);
            }
            Value::Object(out)
        }
        _ => desired.clone(),
    }
}

#[cfg(test)]
mod tests {
    use crate::value::Value;

    fn v(s: &str) -> Value {
        Value::from_json(s).unwrap()
    }

    #[test]
    fn desired_fields_win_and_others_stay() {
        let observed =
            v(r#"{"metadata":{"name":"n","uid":"u"},"spec":{"a":1,"l":[1,2]},"status":{"s":1}}"#);
        let desired = v(r#"{"metadata":{"generateName":"p-"},"spec":{"b":2,"l":[3]}}"#);
        assert_eq!(
            super::over(&observed, &desired),
            v(
                r#"{"metadata":{"generateName":"p-","name":"n","uid":"u"},"spec":{"a":1,"b":2,"l":[3]},"status":{"s":1}}"#
            )
        );
    }
}
