//! Go's `fmt.Sprintf` for the operand types compositions produce.
//!
//! Placeholder: the full emulation replaces this module.

use crate::error::Result;
use crate::value::Value;

/// `fmt.Sprintf(format, args...)`.
///
/// # Errors
/// A width or precision beyond the engine's limit (`ErrorKind::Limit`).
pub(crate) fn sprintf(format: &str, args: &[Value]) -> Result<String> {
    let mut out = String::new();
    let mut args = args.iter();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('%') => out.push('%'),
            Some(_) => match args.next() {
                Some(a) => out.push_str(&sprint_v(a)),
                None => out.push_str("%!v(MISSING)"),
            },
            None => out.push_str("%!(NOVERB)"),
        }
    }
    Ok(out)
}

/// `fmt.Sprintf("%v", v)`.
pub(crate) fn sprint_v(v: &Value) -> String {
    match v {
        Value::Null => "<nil>".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => f.to_string(),
        Value::String(s) => s.clone(),
        Value::Array(a) => {
            let items: Vec<String> = a.iter().map(sprint_v).collect();
            format!("[{}]", items.join(" "))
        }
        Value::Object(m) => {
            let items: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{k}:{}", sprint_v(v)))
                .collect();
            format!("map[{}]", items.join(" "))
        }
    }
}

/// Go's `strconv.Quote`, as `%q` prints strings.
pub(crate) fn quote(s: &str) -> String {
    format!("{s:?}")
}
