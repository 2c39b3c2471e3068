//! Test entry points for `fmt`.

use crate::error::Result;
use crate::value::Value;

/// `fmt.Sprintf(format, args...)`.
///
/// # Errors
/// As the engine's `sprintf` (output limit).
pub fn sprintf(format: &str, args: &[Value]) -> Result<String> {
    crate::fmt::sprintf(format, args)
}

/// `fmt.Sprintf("%v", v)`.
#[must_use]
pub fn sprint_v(v: &Value) -> String {
    crate::fmt::sprint_v(v)
}

/// `strconv.Quote(s)`.
#[must_use]
pub fn quote(s: &str) -> String {
    crate::go::quote(s)
}

/// `strconv.IsPrint(c)`.
#[must_use]
pub fn is_print(c: char) -> bool {
    crate::go::strconv::is_print(c)
}

/// `strconv.FormatFloat(f, 'f', -1, 64)`.
#[must_use]
pub fn format_float_f(f: f64) -> String {
    crate::value::go_format_float_f(f)
}

/// The largest output `sprintf` produces before failing with `ErrorKind::Limit`.
pub const MAX_OUTPUT: usize = crate::fmt::MAX_OUTPUT;

/// Decodes a typed operand of the fmt test data: `{"t": "nil" | "bool" | "string" |
/// "int64" | "float64" | "map" | "slice", "v": ...}`, with int64 as a number or a
/// decimal string and float64 as a string (`"1e6"`, `"NaN"`, `"+Inf"`, `"-0"`).
///
/// # Errors
/// A description of the malformed operand.
pub fn typed(op: &Value) -> Result<Value, String> {
    let t = op
        .get("t")
        .and_then(Value::as_str)
        .ok_or("operand without \"t\"")?;
    let v = op.get("v").unwrap_or(&Value::Null);
    Ok(match (t, v) {
        ("nil", _) => Value::Null,
        ("bool", Value::Bool(b)) => Value::Bool(*b),
        ("string", Value::String(s)) => Value::String(s.clone()),
        ("int64", Value::Int(i)) => Value::Int(*i),
        ("int64", Value::String(s)) => {
            Value::Int(s.parse().map_err(|e| format!("int64 {s:?}: {e}"))?)
        }
        ("float64", Value::String(s)) => Value::Float(parse_go_float(s)?),
        ("map", Value::Object(m)) => Value::Object(
            m.iter()
                .map(|(k, v)| Ok((k.clone(), typed(v)?)))
                .collect::<Result<_, String>>()?,
        ),
        ("slice", Value::Array(a)) => Value::Array(a.iter().map(typed).collect::<Result<_, _>>()?),
        _ => return Err(format!("malformed operand {}", op.to_json())),
    })
}

/// `strconv.ParseFloat(s, 64)` for the forms the test data uses.
fn parse_go_float(s: &str) -> Result<f64, String> {
    match s {
        "NaN" => Ok(f64::NAN),
        "+Inf" | "Inf" => Ok(f64::INFINITY),
        "-Inf" => Ok(f64::NEG_INFINITY),
        _ if s
            .bytes()
            .any(|b| b.is_ascii_alphabetic() && b != b'e' && b != b'E') =>
        {
            Err(format!("float64 {s:?}: not a number"))
        }
        _ => s.parse().map_err(|e| format!("float64 {s:?}: {e}")),
    }
}
