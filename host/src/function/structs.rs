//! prost's protobuf `Struct` values to and from JSON, for clients of the function server (its
//! tests and benches, and the checks of `wire`, which the server holds Structs as).
//!
//! Every number in a `Struct` is a float64. Crossplane's Go SDK turns a `Struct` into JSON with
//! protojson, which writes a whole float below 1e21 as an integer literal; the engine then reads
//! numbers as function-patch-and-transform does. Integers go back as floats.

use std::fmt;

use prost_types::value::Kind;
use prost_types::{ListValue, Struct, Value};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::ser::{self, SerializeMap as _, SerializeSeq as _};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value as Json;

/// 2^63: whole floats below it in magnitude are written as integers.
const INT_LIMIT: f64 = 9_223_372_036_854_775_808.0;

/// A `Struct` as a JSON object.
///
/// # Errors
/// A NaN or infinite number, which JSON cannot hold (protojson refuses it too).
pub(crate) fn to_json(s: &Struct) -> Result<Json, String> {
    serde_json::to_value(StructJson(s)).map_err(|e| e.to_string())
}

/// A JSON object as a `Struct`; anything else is an empty `Struct`.
pub(crate) fn from_json(j: &Json) -> Struct {
    StructFromJson::deserialize(j).map_or_else(|_| Struct::default(), |s| s.0)
}

/// A `Struct` written as a JSON object. Serializing fails on a number JSON cannot hold, with
/// the path to it (`spec.list[0]: invalid number NaN: ...`).
pub(crate) struct StructJson<'a>(pub(crate) &'a Struct);

/// A `Value` written as JSON, as [`StructJson`] writes its members.
pub(crate) struct ValueJson<'a>(pub(crate) &'a Value);

/// `e` behind `key`, as a path: `key.rest`, `key[0]…` or `key: reason`.
pub(crate) fn at(key: &str, e: &str) -> String {
    if e.starts_with('[') || e.starts_with('.') {
        format!("{key}{e}")
    } else {
        format!("{key}: {e}")
    }
}

impl Serialize for StructJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.fields.len()))?;
        for (k, v) in &self.0.fields {
            m.serialize_entry(k, &ValueJson(v))
                .map_err(|e| ser::Error::custom(at(k, &e.to_string())))?;
        }
        m.end()
    }
}

impl Serialize for ValueJson<'_> {
    #[allow(clippy::cast_possible_truncation, clippy::float_cmp)]
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0.kind {
            None | Some(Kind::NullValue(_)) => s.serialize_unit(),
            Some(Kind::BoolValue(b)) => s.serialize_bool(*b),
            Some(Kind::StringValue(t)) => s.serialize_str(t),
            Some(Kind::NumberValue(n)) => {
                let n = *n;
                if !n.is_finite() {
                    Err(ser::Error::custom(format!(
                        "invalid number {n}: JSON has no NaN or infinity"
                    )))
                } else if n.trunc() == n && n.abs() < INT_LIMIT {
                    s.serialize_i64(n as i64)
                } else {
                    s.serialize_f64(n)
                }
            }
            Some(Kind::StructValue(st)) => StructJson(st)
                .serialize(s)
                .map_err(|e| ser::Error::custom(format!(".{e}"))),
            Some(Kind::ListValue(l)) => {
                let mut seq = s.serialize_seq(Some(l.values.len()))?;
                for (i, v) in l.values.iter().enumerate() {
                    seq.serialize_element(&ValueJson(v))
                        .map_err(|e| ser::Error::custom(at(&format!("[{i}]"), &e.to_string())))?;
                }
                seq.end()
            }
        }
    }
}

/// A JSON object read as a `Struct`; any other value reads as an empty `Struct`.
pub(crate) struct StructFromJson(pub(crate) Struct);

impl<'de> Deserialize<'de> for StructFromJson {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match d.deserialize_any(ValueVisitor)?.kind {
            Some(Kind::StructValue(s)) => Ok(StructFromJson(s)),
            _ => Ok(StructFromJson(Struct::default())),
        }
    }
}

/// One JSON value as a protobuf `Value`.
struct ValueSeed;

impl<'de> DeserializeSeed<'de> for ValueSeed {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

fn value(kind: Kind) -> Value {
    Value { kind: Some(kind) }
}

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(value(Kind::NullValue(0)))
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        self.visit_unit()
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Value, E> {
        Ok(value(Kind::BoolValue(b)))
    }

    #[allow(clippy::cast_precision_loss)]
    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Value, E> {
        Ok(value(Kind::NumberValue(n as f64)))
    }

    #[allow(clippy::cast_precision_loss)]
    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Value, E> {
        Ok(value(Kind::NumberValue(n as f64)))
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Value, E> {
        Ok(value(Kind::NumberValue(n)))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Value, E> {
        Ok(value(Kind::StringValue(s.to_owned())))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Value, E> {
        Ok(value(Kind::StringValue(s)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut values = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        while let Some(v) = seq.next_element_seed(ValueSeed)? {
            values.push(v);
        }
        Ok(value(Kind::ListValue(ListValue { values })))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut fields = std::collections::BTreeMap::new();
        // The last of duplicate keys counts, as for any JSON decoder the host uses.
        while let Some(k) = map.next_key::<String>()? {
            fields.insert(k, map.next_value_seed(ValueSeed)?);
        }
        Ok(value(Kind::StructValue(Struct { fields })))
    }
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
            r#"{"a":3,"b":2.5,"c":1e+21,"d":[0,9007199254740992],"e":null}"#
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
