//! The `serde` feature: `Value`, `Request` and `Output` as serde data, for Rust callers that
//! hold typed values rather than JSON text.
//!
//! `Value` maps onto serde's data model one to one (an integer that fits `i64` is an `Int`,
//! every other number a `Float`, as the engine reads JSON). A `Request` deserializes from either
//! form of the render contract and serializes as its parts; an `Output` is the Output document,
//! resources in Composition order.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::compose::{Output, Request};
use crate::value::{Map, Value};

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Int(n) => s.serialize_i64(*n),
            Value::Float(f) => s.serialize_f64(*f),
            Value::String(t) => s.serialize_str(t),
            Value::Array(a) => s.collect_seq(a),
            Value::Object(m) => m.serialize(s),
        }
    }
}

impl Serialize for Map {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.len()))?;
        for (k, v) in self {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor(0))
    }
}

/// Builds a `Value`; the number is the nesting depth, bounded as the JSON reader bounds it.
struct ValueVisitor(usize);

impl ValueVisitor {
    fn nested<E: de::Error>(&self) -> Result<ValueVisitor, E> {
        if self.0 >= crate::value::MAX_DEPTH {
            return Err(E::custom(format!(
                "exceeded max depth of {}",
                crate::value::MAX_DEPTH
            )));
        }
        Ok(ValueVisitor(self.0 + 1))
    }
}

impl<'de> de::DeserializeSeed<'de> for ValueVisitor {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Int(n))
    }
    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Value, E> {
        // Past int64, Kubernetes' decoder reads a float64.
        #[allow(clippy::cast_precision_loss)]
        Ok(i64::try_from(n).map_or(Value::Float(n as f64), Value::Int))
    }
    fn visit_f64<E: de::Error>(self, f: f64) -> Result<Value, E> {
        Ok(Value::Float(f))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_owned()))
    }
    fn visit_string<E: de::Error>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(v) = seq.next_element_seed(self.nested()?)? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(k) = map.next_key::<String>()? {
            // Of repeated keys the last one wins, as in the JSON reader.
            let v = map.next_value_seed(self.nested()?)?;
            out.insert(k, v);
        }
        Ok(Value::Object(out))
    }
}

impl Serialize for Request {
    /// The request as its parts (`xr`, `composition`, `observed`, `options`).
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Request {
    /// Either form of the render contract; a malformed request fails with the engine's message.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Request, D::Error> {
        let v = Value::deserialize(d)?;
        Request::from_value(v).map_err(|e| de::Error::custom(e.message()))
    }
}

impl Serialize for Output {
    /// The Output document, resources in Composition order.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let doc = Value::from_json(&self.to_json()).map_err(serde::ser::Error::custom)?;
        let Value::Object(m) = doc else {
            return Err(serde::ser::Error::custom("the Output is not an object"));
        };
        let mut out = s.serialize_map(Some(m.len()))?;
        for key in self.member_order() {
            match (key, m.get(key)) {
                ("resources", Some(Value::Object(rs))) => {
                    out.serialize_entry(key, &InOrder(self.resource_names(), rs))?;
                }
                (_, Some(v)) => out.serialize_entry(key, v)?,
                (_, None) => {}
            }
        }
        out.end()
    }
}

/// An object's members in a given key order.
struct InOrder<'a>(Vec<&'a str>, &'a Map);

impl Serialize for InOrder<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut out = s.serialize_map(Some(self.0.len()))?;
        for k in &self.0 {
            if let Some(v) = self.1.get(k) {
                out.serialize_entry(k, v)?;
            }
        }
        out.end()
    }
}

impl<'de> Deserialize<'de> for Output {
    /// The Output document as `Output::to_json` writes it (an error document is not an Output).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Output, D::Error> {
        d.deserialize_map(OutputVisitor)
    }
}

struct OutputVisitor;

impl<'de> Visitor<'de> for OutputVisitor {
    type Value = Output;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an Output document")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Output, A::Error> {
        let mut members = Vec::new();
        while let Some(k) = map.next_key::<String>()? {
            if k == "resources" {
                // Composition order is the document's order: keep it.
                members.push((k, Value::Array(map.next_value::<Ordered>()?.0)));
            } else {
                members.push((k, map.next_value::<Value>()?));
            }
        }
        Output::from_members(members).map_err(de::Error::custom)
    }
}

/// An object read as `[{"name": key, ...value}]`, in document order.
struct Ordered(Vec<Value>);

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Ordered, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Ordered;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("resources by template name")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
                let mut out = Vec::new();
                while let Some(k) = map.next_key::<String>()? {
                    let mut entry = Map::new();
                    entry.insert("name".into(), Value::String(k));
                    entry.insert("entry".into(), map.next_value::<Value>()?);
                    out.push(Value::Object(entry));
                }
                Ok(Ordered(out))
            }
        }
        d.deserialize_map(V)
    }
}
