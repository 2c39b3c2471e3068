//! JSON text in and out: Kubernetes' number typing on the way in, Go's `json.Marshal` on the way out.

use std::fmt;

use super::Value;
use super::read::{self, Numbers};
use crate::go::json_scan as scan;

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
        write!(
            f,
            "{} at line {}, column {}",
            self.message, self.line, self.column
        )
    }
}

impl std::error::Error for ParseError {}

/// Kubernetes' decoding of a JSON document, with Go's error texts.
pub(super) fn parse(text: &str) -> Result<Value, ParseError> {
    parse_with(text, Numbers::Kubernetes).map(|(v, _)| v)
}

/// A JSON document read with the typing `numbers`, with Go's error texts, and
/// whether it holds the integer literal `-0` (see [`Numbers::Struct`]).
pub(super) fn parse_with(text: &str, numbers: Numbers) -> Result<(Value, bool), ParseError> {
    read::read_noting_minus_zero(text, numbers, super::MAX_DEPTH).map_err(|fault| {
        let (message, at) = match fault.message(super::MAX_DEPTH) {
            Some(message) => (message, fault.offset()),
            None => scan::syntax_error(text.as_bytes())
                .unwrap_or_else(|| ("invalid JSON".to_owned(), fault.offset())),
        };
        let (line, column) = position(text, at);
        ParseError {
            message,
            line,
            column,
        }
    })
}

/// 1-based line and column (in characters) of byte offset `at`.
fn position(text: &str, at: usize) -> (usize, usize) {
    let before = text.as_bytes().get(..at).unwrap_or(text.as_bytes());
    let line_start = before
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |i| i + 1);
    let line = 1 + before.iter().filter(|&&c| c == b'\n').count();
    // A character counts by its first byte, so one cut at `at` counts once.
    let column = 1 + before[line_start..]
        .iter()
        .filter(|&&b| b & 0xC0 != 0x80)
        .count();
    (line, column)
}

pub(super) fn write(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Int(i) => write_int(out, *i),
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

/// The decimal digits of `i`, without going through `core::fmt`.
pub(crate) fn write_int(out: &mut String, i: i64) {
    let mut buf = [0u8; 20];
    let mut at = buf.len();
    let mut n = i.unsigned_abs();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if i < 0 {
        out.push('-');
    }
    for &d in &buf[at..] {
        out.push(char::from(d));
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
        crate::go::strconv::append_float(out, f, b'e', -1);
        let b = out.as_bytes();
        let n = b.len();
        if n - start >= 4 && b[n - 4] == b'e' && b[n - 3] == b'-' && b[n - 2] == b'0' {
            out.remove(n - 2);
        }
    } else {
        crate::go::strconv::append_float(out, f, b'f', -1);
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
    // Below 2^53 every integer is a float, so the shortest digits that
    // identify a whole float are its own integer digits.
    if f.abs() < 9_007_199_254_740_992.0 {
        #[allow(clippy::cast_possible_truncation)] // whole and in range
        return Some(f as i64);
    }
    // The decoder sees Go's shortest digits, not the exact value: 2^60 is
    // written `1152921504606847000`, which is the integer that comes back,
    // and -2^63 is written `-9223372036854776000`, which no int64 holds.
    let mut text = String::new();
    write_float(&mut text, f);
    text.parse().ok()
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Bytes that may start a character Go escapes: controls, `"`, `\\`, `<`,
/// `>`, `&`, the lead byte of U+2028 and U+2029, and that of the raw-byte characters.
const MAY_ESCAPE: [bool; 256] = super::scan::byte_set(true, b"\"\\<>&\xe2\xf4");

/// The index of the first byte at or after `from` that may start a character
/// Go escapes.
#[inline(always)]
pub(super) fn may_escape(b: &[u8], from: usize) -> Option<usize> {
    use super::scan::{control, eq, find};
    let stops = |w| {
        control(w)
            | eq(w, b'"')
            | eq(w, b'\\')
            | eq(w, b'<')
            | eq(w, b'>')
            | eq(w, b'&')
            | eq(w, 0xe2)
            | eq(w, 0xf4)
    };
    find(b, from, &MAY_ESCAPE, stops)
}

/// Go's `encodeState.string` with HTML escaping on.
pub(crate) fn write_string(out: &mut String, s: &str) {
    // Most texts (keys, names, values) have nothing to escape: one scan, one copy.
    match may_escape(s.as_bytes(), 0) {
        None => {
            out.reserve(s.len() + 2);
            out.push('"');
            out.push_str(s);
            out.push('"');
        }
        Some(first) => write_escaped(out, s, first),
    }
}

/// [`write_string`] for a text with a byte that may need escaping at `first`.
#[inline(never)]
fn write_escaped(out: &mut String, s: &str, first: usize) {
    out.reserve(s.len() + 2);
    out.push('"');
    let b = s.as_bytes();
    let (mut start, mut i) = (0, first);
    // Every character that needs escaping starts with a byte of its own
    // (U+2028 and U+2029 with E2 80 A8/A9): runs of other bytes are found
    // a word at a time and copied whole.
    while let Some(n) = may_escape(b, i) {
        i = n;
        let c = b[i];
        let (escape, len): (&str, usize) = match c {
            b'"' => ("\\\"", 1),
            b'\\' => ("\\\\", 1),
            b'\n' => ("\\n", 1),
            b'\r' => ("\\r", 1),
            b'\t' => ("\\t", 1),
            0x08 => ("\\b", 1),
            0x0c => ("\\f", 1),
            0x00..=0x1f | b'<' | b'>' | b'&' => ("", 1),
            0xe2 if b.get(i + 1) == Some(&0x80) && matches!(b.get(i + 2), Some(0xa8 | 0xa9)) => {
                ("", 3)
            }
            // A raw byte (`go::bytestr`): Go's encoder writes invalid UTF-8 as `\ufffd`.
            0xf4 if b.get(i + 1) == Some(&0x8f) && matches!(b.get(i + 2), Some(0xbe | 0xbf)) => {
                ("\\ufffd", 4)
            }
            _ => {
                i += 1;
                continue;
            }
        };
        out.push_str(&s[start..i]);
        if escape.is_empty() {
            let n = if len == 3 {
                0x2000 | u32::from(b[i + 2] & 0x3f)
            } else {
                u32::from(c)
            };
            out.push_str("\\u");
            for shift in [12, 8, 4, 0] {
                out.push(HEX[((n >> shift) & 0xF) as usize] as char);
            }
        } else {
            out.push_str(escape);
        }
        i += len;
        start = i;
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
    fn positions_count_characters() {
        let text = "{\"a\":\n  \"é€😀\" x}";
        let x = text.find('x').unwrap();
        assert_eq!(position(text, x), (2, 9));
        assert_eq!(position(text, 0), (1, 1));
        assert_eq!(position(text, text.len() + 5), (2, 11));
        // An offset inside "€" counts the cut character once, as its lossy decoding does.
        let euro = text.find('€').unwrap();
        assert_eq!(position(text, euro + 1), (2, 6));
        assert_eq!(position(text, euro + 2), (2, 6));
        let err = parse("[1,\n \"ü\" ]x").unwrap_err();
        assert_eq!((err.line, err.column), (2, 7));
    }

    #[test]
    fn kubernetes_number_typing() {
        let v = parse(r#"[1, 1.0, 1e2, 9223372036854775808, -9223372036854775808, -0]"#).unwrap();
        assert_eq!(
            v,
            Value::Array(vec![
                Value::Int(1),
                Value::Float(1.0),
                Value::Float(100.0),
                Value::Float(9.223_372_036_854_776e18),
                Value::Int(i64::MIN),
                Value::Int(0),
            ])
        );
        let e = |s: &str| parse(s).unwrap_err().to_string();
        assert_eq!(
            e("[1,\n 1e400]"),
            "json: cannot unmarshal number 1e400 into Go value of type float64 at line 2, column 2"
        );
        assert_eq!(
            e("{\"a\":\n  tru}"),
            "invalid character '}' in literal true (expecting 'e') at line 2, column 6"
        );
        assert_eq!(e(""), "unexpected end of JSON input at line 1, column 1");
        assert_eq!(
            e(&"[".repeat(1001)),
            "JSON nested more than 1000 levels deep is beyond the engine's limit at line 1, column 1001"
        );
    }

    #[test]
    fn go_string_escapes() {
        let mut s = String::new();
        write_string(&mut s, "a<b>&\"\\\n\u{1}\u{2028}é");
        assert_eq!(s, r#""a\u003cb\u003e\u0026\"\\\n\u0001\u2028é""#);
    }

    #[test]
    fn escapes_are_found_at_every_position_of_a_word() {
        for c in [
            "\"", "\\", "<", ">", "&", "\n", "\u{1f}", "\u{2028}", "\u{2029}", "\u{2027}", "é",
            "\u{7f}",
        ] {
            for at in 0..20 {
                let text = format!("{}{c}{}", "x".repeat(at), "y".repeat(20 - at));
                let b = text.as_bytes();
                let want = b.iter().position(|&c| MAY_ESCAPE[c as usize]);
                assert_eq!(may_escape(b, 0), want, "{text:?}");
                let mut s = String::new();
                write_string(&mut s, &text);
                assert_eq!(
                    s.len() > text.len() + 2,
                    !matches!(c, "\u{2027}" | "é" | "\u{7f}")
                );
            }
        }
    }

    #[test]
    fn integers() {
        for i in [0, 7, -7, 10, 1024, i64::MAX, i64::MIN, -1_000_000] {
            let mut s = String::new();
            write_int(&mut s, i);
            assert_eq!(s, i.to_string());
        }
    }

    #[test]
    fn round_trip_normalisation() {
        assert_eq!(float_as_int(3.0), Some(3));
        assert_eq!(float_as_int(-0.0), Some(0));
        assert_eq!(float_as_int(1e20), None);
        assert_eq!(float_as_int(9.223_372_036_854_776e18), None);
        assert_eq!(float_as_int(-9.223_372_036_854_776e18), None);
        assert_eq!(float_as_int(2.5), None);
        assert_eq!(float_as_int(20_480.0), Some(20_480));
        assert_eq!(
            float_as_int(-9_007_199_254_740_991.0),
            Some(-9_007_199_254_740_991)
        );
        assert_eq!(
            float_as_int(9_007_199_254_740_992.0),
            Some(9_007_199_254_740_992)
        );
        assert_eq!(float_as_int(1e17), Some(100_000_000_000_000_000));
        assert_eq!(
            float_as_int(1_152_921_504_606_846_976.0),
            Some(1_152_921_504_606_847_000)
        );
        assert_eq!(
            float_as_int(9_007_199_254_740_993.0),
            Some(9_007_199_254_740_992)
        );
    }
}
