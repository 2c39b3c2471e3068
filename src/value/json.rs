//! JSON text in and out: Kubernetes' number typing on the way in, Go's `json.Marshal` on the way out.

use std::fmt::{self, Write as _};

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use super::{Map, Value};

/// Why a JSON text could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// What is wrong.
    pub message: String,
    /// 1-based line of the fault (0 when unknown).
    pub line: usize,
    /// 1-based column of the fault (0 when unknown).
    pub column: usize,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseError {}

pub(super) fn parse(text: &str) -> Result<Value, ParseError> {
    serde_json::from_str(text).map_err(|e| ParseError {
        message: e.to_string(),
        line: e.line(),
        column: e.column(),
    })
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        // Kubernetes' decoder: an integer literal that overflows int64 is a float64.
        Ok(match i64::try_from(v) {
            Ok(i) => Value::Int(i),
            #[allow(clippy::cast_precision_loss)]
            Err(_) => Value::Float(v as f64),
        })
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Deserialize::deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut map = Map::new();
        while let Some((k, v)) = access.next_entry::<String, Value>()? {
            map.insert(k, v);
        }
        Ok(Value::Object(map))
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => serializer.serialize_unit(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::Int(i) => serializer.serialize_i64(*i),
            Value::Float(f) => serializer.serialize_f64(*f),
            Value::String(s) => serializer.serialize_str(s),
            Value::Array(a) => {
                let mut seq = serializer.serialize_seq(Some(a.len()))?;
                for item in a {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Value::Object(m) => {
                let mut map = serializer.serialize_map(Some(m.len()))?;
                for (k, v) in m {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

pub(super) fn write(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float(f) => write_float(out, *f),
        Value::String(s) => write_string(out, s),
        Value::Array(a) => {
            out.push('[');
            for (i, item) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(out, item);
            }
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            for (i, (k, item)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, k);
                out.push(':');
                write(out, item);
            }
            out.push('}');
        }
    }
}

/// Go's `floatEncoder` for 64-bit floats.
pub(super) fn write_float(out: &mut String, f: f64) {
    if !f.is_finite() {
        out.push_str("null");
        return;
    }
    // strconv's shortest digits (ties to even, unlike Rust's `{}`), then
    // Go's clean-up of `e-07` to `e-7`.
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let start = out.len();
        crate::fmt::append_float(out, f, b'e', -1);
        let b = out.as_bytes();
        let n = b.len();
        if n - start >= 4 && b[n - 4] == b'e' && b[n - 3] == b'-' && b[n - 2] == b'0' {
            out.remove(n - 2);
        }
    } else {
        crate::fmt::append_float(out, f, b'f', -1);
    }
}

pub(super) fn go_nonfinite(f: f64) -> &'static str {
    if f.is_nan() {
        "NaN"
    } else if f > 0.0 {
        "+Inf"
    } else {
        "-Inf"
    }
}

/// The integer a float becomes after Go's JSON round trip, if any: its JSON
/// text must be an integer literal that `ParseInt` accepts.
pub(super) fn float_as_int(f: f64) -> Option<i64> {
    // Exponent form (|f| >= 1e21 or tiny) is never an integer literal.
    if !f.is_finite() || f.fract() != 0.0 || f.abs() >= 1e21 {
        return None;
    }
    // -2^63 is exactly representable; 2^63 is not an int64.
    #[allow(clippy::cast_possible_truncation)]
    if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f) {
        Some(f as i64)
    } else {
        None
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Go's `encodeState.string` with HTML escaping on.
pub(crate) fn write_string(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let escape: Option<&str> = match c {
            '"' => Some("\\\""),
            '\\' => Some("\\\\"),
            '\n' => Some("\\n"),
            '\r' => Some("\\r"),
            '\t' => Some("\\t"),
            '\u{8}' => Some("\\b"),
            '\u{c}' => Some("\\f"),
            _ => None,
        };
        let needs_hex = escape.is_none()
            && (c < '\u{20}'
                || c == '<'
                || c == '>'
                || c == '&'
                || c == '\u{2028}'
                || c == '\u{2029}');
        if escape.is_none() && !needs_hex {
            continue;
        }
        out.push_str(&s[start..i]);
        if let Some(e) = escape {
            out.push_str(e);
        } else {
            let n = c as u32;
            out.push_str("\\u");
            for shift in [12, 8, 4, 0] {
                out.push(HEX[((n >> shift) & 0xF) as usize] as char);
            }
        }
        start = i + c.len_utf8();
    }
    out.push_str(&s[start..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: f64) -> String {
        let mut s = String::new();
        write_float(&mut s, x);
        s
    }

    #[test]
    fn go_float_forms() {
        assert_eq!(f(3.0), "3");
        assert_eq!(f(-0.0), "-0");
        assert_eq!(f(1e21), "1e+21");
        assert_eq!(f(1e20), "100000000000000000000");
        assert_eq!(f(1e-7), "1e-7");
        assert_eq!(f(0.000_001), "0.000001");
        assert_eq!(f(1.5e300), "1.5e+300");
        assert_eq!(f(2.5), "2.5");
    }

    #[test]
    fn kubernetes_number_typing() {
        // serde_json reads `-0` as the float -0.0 (Kubernetes: int 0); the JSON
        // round trip of every write turns it into int 0 again.
        let v = parse(r#"[1, 1.0, 1e2, 9223372036854775808, -9223372036854775808]"#).unwrap();
        assert_eq!(
            v,
            Value::Array(vec![
                Value::Int(1),
                Value::Float(1.0),
                Value::Float(100.0),
                Value::Float(9.223_372_036_854_776e18),
                Value::Int(i64::MIN),
            ])
        );
        assert!(parse("1e400").is_err());
    }

    #[test]
    fn go_string_escapes() {
        let mut s = String::new();
        write_string(&mut s, "a<b>&\"\\\n\u{1}\u{2028}é");
        assert_eq!(s, r#""a\u003cb\u003e\u0026\"\\\n\u0001\u2028é""#);
    }

    #[test]
    fn round_trip_normalisation() {
        assert_eq!(float_as_int(3.0), Some(3));
        assert_eq!(float_as_int(-0.0), Some(0));
        assert_eq!(float_as_int(1e20), None);
        assert_eq!(float_as_int(9.223_372_036_854_776e18), None);
        assert_eq!(float_as_int(-9.223_372_036_854_776e18), Some(i64::MIN));
        assert_eq!(float_as_int(2.5), None);
    }
}
