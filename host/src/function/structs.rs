//! prost's protobuf `Struct` values to and from JSON, for clients of the function server (its
//! tests and benches, and the checks of `wire`, which the server holds Structs as).
//!
//! Every number in a `Struct` is a float64. Crossplane's Go SDK turns a `Struct` into JSON with
//! protojson, which writes a whole float below 1e21 as an integer literal; the engine then reads
//! numbers as function-patch-and-transform does. Integers go back as floats.

use prost_types::value::Kind;
use prost_types::{ListValue, Struct, Value};
use serde_json::{Map, Number, Value as Json};

/// 2^63: whole floats below it in magnitude are written as integers.
const INT_LIMIT: f64 = 9_223_372_036_854_775_808.0;

/// A `Struct` as a JSON object.
///
/// # Errors
/// A NaN or infinite number, which JSON cannot hold (protojson refuses it too).
pub fn to_json(s: &Struct) -> Result<Json, String> {
    let mut m = Map::with_capacity(s.fields.len());
    for (k, v) in &s.fields {
        m.insert(k.clone(), value_to_json(v).map_err(|e| at(k, &e))?);
    }
    Ok(Json::Object(m))
}

fn at(key: &str, e: &str) -> String {
    if e.starts_with('[') || e.starts_with('.') {
        format!("{key}{e}")
    } else {
        format!("{key}: {e}")
    }
}

fn value_to_json(v: &Value) -> Result<Json, String> {
    Ok(match &v.kind {
        None | Some(Kind::NullValue(_)) => Json::Null,
        Some(Kind::BoolValue(b)) => Json::Bool(*b),
        Some(Kind::StringValue(s)) => Json::String(s.clone()),
        Some(Kind::NumberValue(n)) => number(*n)?,
        Some(Kind::StructValue(s)) => to_json(s).map_err(|e| format!(".{e}"))?,
        Some(Kind::ListValue(l)) => {
            let mut out = Vec::with_capacity(l.values.len());
            for (i, v) in l.values.iter().enumerate() {
                out.push(value_to_json(v).map_err(|e| at(&format!("[{i}]"), &e))?);
            }
            Json::Array(out)
        }
    })
}

#[allow(clippy::cast_possible_truncation, clippy::float_cmp)]
fn number(n: f64) -> Result<Json, String> {
    if !n.is_finite() {
        return Err(format!("invalid number {n}: JSON has no NaN or infinity"));
    }
    // Negative zero keeps its sign, as protojson writes it (`-0`).
    if n.trunc() == n && n.abs() < INT_LIMIT && !(n == 0.0 && n.is_sign_negative()) {
        return Ok(Json::Number(Number::from(n as i64)));
    }
    Ok(Number::from_f64(n).map_or(Json::Null, Json::Number))
}

/// A JSON object as a `Struct`; anything else is an empty `Struct`.
pub fn from_json(j: &Json) -> Struct {
    match j {
        Json::Object(m) => Struct {
            fields: m
                .iter()
                .map(|(k, v)| (k.clone(), value_from_json(v)))
                .collect(),
        },
        _ => Struct::default(),
    }
}

#[allow(clippy::cast_precision_loss)]
fn value_from_json(j: &Json) -> Value {
    let kind = match j {
        Json::Null => Kind::NullValue(0),
        Json::Bool(b) => Kind::BoolValue(*b),
        Json::String(s) => Kind::StringValue(s.clone()),
        Json::Number(n) => Kind::NumberValue(n.as_f64().unwrap_or_default()),
        Json::Array(a) => Kind::ListValue(ListValue {
            values: a.iter().map(value_from_json).collect(),
        }),
        Json::Object(_) => Kind::StructValue(from_json(j)),
    };
    Value { kind: Some(kind) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_travel_as_protojson_writes_them() {
        let j = serde_json::json!({"a": 3, "b": 2.5, "c": 1e21, "d": [-0.0, 9007199254740993_i64], "e": null});
        let back = to_json(&from_json(&j)).expect("finite");
        assert_eq!(
            back.to_string(),
            r#"{"a":3,"b":2.5,"c":1e+21,"d":[-0.0,9007199254740992],"e":null}"#
        );
    }

    #[test]
    fn nan_is_refused_with_its_path() {
        let mut s = from_json(&serde_json::json!({"spec": {"list": [1]}}));
        let Some(Kind::StructValue(spec)) = s.fields.get_mut("spec").and_then(|v| v.kind.as_mut())
        else {
            panic!("spec is a struct")
        };
        spec.fields.insert(
            "x".into(),
            Value {
                kind: Some(Kind::NumberValue(f64::NAN)),
            },
        );
        assert_eq!(
            to_json(&s).unwrap_err(),
            "spec.x: invalid number NaN: JSON has no NaN or infinity"
        );
    }
}
