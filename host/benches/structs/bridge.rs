//! The yardstick of the server's Struct codec: `google.protobuf.Struct` as prost decodes it,
//! written as JSON text and read from it in one pass each way, with no JSON tree in between.
//! It gives the server's JSON, faults included (the server's unit tests passed on it).
//!
//! prost's map is a B-tree, so members are written in key order without sorting, and a key
//! given twice keeps its last value, as protobuf's merge rules say.

use std::collections::BTreeMap;
use std::fmt;

use prost_types::value::Kind;
use prost_types::{ListValue, Value};
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};

pub(crate) use prost_types::Struct;

/// 2^63: whole floats below it in magnitude are written as integers (as protojson does).
const INT_LIMIT: f64 = 9_223_372_036_854_775_808.0;

/// A number JSON cannot hold, and where: reported as `spec.list[0].x: invalid number NaN: ...`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Fault(String);

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The first number JSON cannot hold, with its path from the innermost step out (it is
/// collected while the walk unwinds).
struct Unheld<'a> {
    path: Vec<Step<'a>>,
    n: f64,
}

enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

impl Unheld<'_> {
    fn fault(self) -> Fault {
        let mut at = String::new();
        for step in self.path.iter().rev() {
            match step {
                Step::Key(k) => {
                    if !at.is_empty() {
                        at.push('.');
                    }
                    at.push_str(k);
                }
                Step::Index(i) => at.push_str(&format!("[{i}]")),
            }
        }
        Fault(format!(
            "{at}: invalid number {}: JSON has no NaN or infinity",
            self.n
        ))
    }
}

/// Writes the Struct as a JSON object, members in key order: `fixed` string members first, in
/// place of any entries of those keys.
///
/// # Errors
/// A number JSON cannot hold, with its path: the first a walk of the members in key order
/// meets, replaced members included.
pub(crate) fn write_json(
    s: &Struct,
    out: &mut Vec<u8>,
    fixed: &[(&str, &str)],
) -> Result<(), Fault> {
    out.push(b'{');
    for (i, (k, v)) in fixed.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        string(out, k);
        out.push(b':');
        string(out, v);
    }
    let mut first = fixed.is_empty();
    let mut scratch = Vec::new();
    for (k, v) in &s.fields {
        if fixed.iter().any(|(f, _)| f == k) {
            // Not written, but a fault in it is still one.
            scratch.clear();
            value(&mut scratch, v).map_err(|u| at_key(u, k).fault())?;
            continue;
        }
        if !first {
            out.push(b',');
        }
        first = false;
        string(out, k);
        out.push(b':');
        value(out, v).map_err(|u| at_key(u, k).fault())?;
    }
    out.push(b'}');
    Ok(())
}

fn at_key<'a>(mut u: Unheld<'a>, key: &'a str) -> Unheld<'a> {
    u.path.push(Step::Key(key));
    u
}

fn object<'a>(out: &mut Vec<u8>, s: &'a Struct) -> Result<(), Unheld<'a>> {
    out.push(b'{');
    for (i, (k, v)) in s.fields.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        string(out, k);
        out.push(b':');
        value(out, v).map_err(|u| at_key(u, k))?;
    }
    out.push(b'}');
    Ok(())
}

fn value<'a>(out: &mut Vec<u8>, v: &'a Value) -> Result<(), Unheld<'a>> {
    match &v.kind {
        None | Some(Kind::NullValue(_)) => out.extend_from_slice(b"null"),
        Some(Kind::BoolValue(b)) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Some(Kind::StringValue(s)) => string(out, s),
        Some(Kind::NumberValue(n)) => number(out, *n).map_err(|n| Unheld {
            path: Vec::new(),
            n,
        })?,
        Some(Kind::StructValue(s)) => object(out, s)?,
        Some(Kind::ListValue(l)) => {
            out.push(b'[');
            for (i, item) in l.values.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                value(out, item).map_err(|mut u| {
                    u.path.push(Step::Index(i));
                    u
                })?;
            }
            out.push(b']');
        }
    }
    Ok(())
}

#[allow(clippy::cast_possible_truncation, clippy::float_cmp)]
fn number(out: &mut Vec<u8>, n: f64) -> Result<(), f64> {
    if !n.is_finite() {
        return Err(n);
    }
    if n == 0.0 && n.is_sign_negative() {
        // protojson writes negative zero as `-0`, and the engine reads it as float64 -0.
        out.extend_from_slice(b"-0");
    } else if n.trunc() == n && n.abs() < INT_LIMIT {
        let _ = serde_json::to_writer(&mut *out, &(n as i64));
    } else {
        let _ = serde_json::to_writer(&mut *out, &n);
    }
    Ok(())
}

/// A string as JSON, escaped by serde_json.
fn string(out: &mut Vec<u8>, s: &str) {
    let _ = serde_json::to_writer(&mut *out, s);
}

/// A JSON object as a Struct, read straight into prost's types; any other value as an empty
/// Struct.
///
/// # Errors
/// The deserializer's, for text that is not JSON.
pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Struct, D::Error> {
    d.deserialize_any(Top)
}

/// The top-level value: an object's members, nothing for anything else.
struct Top;

impl<'de> Visitor<'de> for Top {
    type Value = Struct;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Struct, A::Error> {
        members(map)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Struct, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Struct::default())
    }

    fn visit_unit<E: de::Error>(self) -> Result<Struct, E> {
        Ok(Struct::default())
    }

    fn visit_none<E: de::Error>(self) -> Result<Struct, E> {
        Ok(Struct::default())
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Struct, E> {
        Ok(Struct::default())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Struct, E> {
        Ok(Struct::default())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Struct, E> {
        Ok(Struct::default())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Struct, E> {
        Ok(Struct::default())
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Struct, E> {
        Ok(Struct::default())
    }
}

fn members<'de, A: MapAccess<'de>>(mut map: A) -> Result<Struct, A::Error> {
    let mut fields = BTreeMap::new();
    while let Some(key) = map.next_key::<String>()? {
        let JsonValue(v) = map.next_value()?;
        fields.insert(key, v);
    }
    Ok(Struct { fields })
}

/// A JSON value read as a `google.protobuf.Value`.
struct JsonValue(Value);

impl<'de> Deserialize<'de> for JsonValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

fn of(kind: Kind) -> JsonValue {
    JsonValue(Value { kind: Some(kind) })
}

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = JsonValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<JsonValue, E> {
        Ok(of(Kind::NullValue(0)))
    }

    fn visit_none<E: de::Error>(self) -> Result<JsonValue, E> {
        self.visit_unit()
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<JsonValue, E> {
        Ok(of(Kind::BoolValue(b)))
    }

    #[allow(clippy::cast_precision_loss)]
    fn visit_i64<E: de::Error>(self, n: i64) -> Result<JsonValue, E> {
        Ok(of(Kind::NumberValue(n as f64)))
    }

    #[allow(clippy::cast_precision_loss)]
    fn visit_u64<E: de::Error>(self, n: u64) -> Result<JsonValue, E> {
        Ok(of(Kind::NumberValue(n as f64)))
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<JsonValue, E> {
        Ok(of(Kind::NumberValue(n)))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<JsonValue, E> {
        Ok(of(Kind::StringValue(s.to_owned())))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<JsonValue, E> {
        Ok(of(Kind::StringValue(s)))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<JsonValue, A::Error> {
        members(map).map(|s| of(Kind::StructValue(s)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<JsonValue, A::Error> {
        let mut values = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(JsonValue(v)) = seq.next_element()? {
            values.push(v);
        }
        Ok(of(Kind::ListValue(ListValue { values })))
    }
}
