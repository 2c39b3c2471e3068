//! Go's `json.Unmarshal` into `any`, a map or a slice: Go's syntax errors
//! (its scanner's messages), then the value with every number a float64.

use crate::error::{Error, ErrorKind};
use crate::go::json_scan as scan;
use crate::value::Value;
use crate::value::read::{self, Fault, Numbers};

/// What the JSON is decoded into.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// `map[string]interface {}`.
    Object,
    /// `[]interface {}`.
    Array,
}

/// The engine's bound: values nested deeper than this would exhaust a wasm
/// stack in the recursive code that later walks them.
const ENGINE_MAX_DEPTH: usize = crate::value::MAX_DEPTH;

/// `json.Unmarshal([]byte(s), &target)`; `null` gives `Value::Null`.
///
/// # Errors
/// Go's error text (`ErrorKind::Render`), or `ErrorKind::Limit` for JSON
/// nested deeper than the engine accepts.
pub(crate) fn unmarshal(s: &str, target: Target) -> crate::error::Result<Value> {
    let go = |e: String| Error::new(ErrorKind::Render, e);
    let read = read::read(s, Numbers::Floats, ENGINE_MAX_DEPTH);
    // Go checks the whole text's syntax before decoding anything.
    if read.is_err()
        && let Some((message, _)) = scan::syntax_error(s.as_bytes())
    {
        return Err(go(message));
    }
    let first = s
        .bytes()
        .find(|c| !matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
        .unwrap_or(b'n');
    let (want, type_name) = match target {
        Target::Object => (b'{', "map[string]interface {}"),
        Target::Array => (b'[', "[]interface {}"),
    };
    if first != want && first != b'n' {
        let kind = match first {
            b'{' => "object",
            b'[' => "array",
            b'"' => "string",
            b't' | b'f' => "bool",
            _ => "number",
        };
        return Err(go(format!(
            "json: cannot unmarshal {kind} into Go value of type {type_name}"
        )));
    }
    read.map_err(|fault| match (fault.message(ENGINE_MAX_DEPTH), fault) {
        (Some(message), Fault::Depth(_)) => Error::new(ErrorKind::Limit, message),
        (Some(message), _) => go(message),
        // Both readers refuse the same texts; the scanner names the fault.
        (None, _) => go("invalid JSON".to_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(s: &str) -> String {
        unmarshal(s, Target::Object).unwrap_err().to_string()
    }

    #[test]
    fn syntax_errors() {
        assert_eq!(err(""), "unexpected end of JSON input");
        assert_eq!(err("{} x"), "invalid character 'x' after top-level value");
        assert_eq!(err("-"), "invalid character ' ' in numeric literal");
        assert_eq!(err("{\"a\" 1}"), "invalid character '1' after object key");
        assert_eq!(
            err("[1,]"),
            "invalid character ']' looking for beginning of value"
        );
        assert_eq!(
            err("tru"),
            "invalid character ' ' in literal true (expecting 'e')"
        );
        assert_eq!(
            err("[1]"),
            "json: cannot unmarshal array into Go value of type map[string]interface {}"
        );
    }

    #[test]
    fn values() {
        let v = unmarshal(
            r#"{"a":1,"b":[true,null,"\ud83d\ude00"],"c":{}}"#,
            Target::Object,
        );
        assert_eq!(
            v.map(|v| v.to_json()),
            Ok(r#"{"a":1,"b":[true,null,"😀"],"c":{}}"#.to_owned())
        );
    }
}
