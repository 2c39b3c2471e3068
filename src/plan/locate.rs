//! Where a request's top-level `composition` member's value lies in the request text.
//!
//! A walk over the top level that skips every member's value by its brackets
//! and strings, without building anything. It assumes nothing about validity:
//! callers parse the span and the rest of the text, and any text this walk
//! cannot read simply has no span (the render then reads the whole request).

use std::ops::Range;

use crate::value::scan::{self, byte_set, eq};

/// The byte range of the value of the one top-level `"composition"` member.
///
/// `None` when there is no such member, when there are several, when a
/// top-level key is escaped (it might spell `composition`), when the request
/// is a documents request, or when the text is not an object this walk can read.
///
/// `known` is asked first for the length of the value at the start of the
/// text it is given (a Composition already read); only when it does not know
/// is the value walked.
pub(crate) fn composition(
    text: &str,
    mut known: impl FnMut(&str) -> Option<usize>,
) -> Option<Range<usize>> {
    let b = text.as_bytes();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_ws(b, i + 1);
    if b.get(i) == Some(&b'}') {
        return None;
    }
    let mut found = None;
    loop {
        let (key, after) = raw_key(b, i)?;
        i = skip_ws(b, after);
        if b.get(i) != Some(&b':') {
            return None;
        }
        let start = skip_ws(b, i + 1);
        let end = match key {
            b"composition" if found.is_none() => match text.get(start..).and_then(&mut known) {
                Some(len) => start + len,
                None => skip_value(b, start)?,
            },
            _ => skip_value(b, start)?,
        };
        match key {
            b"composition" if found.is_some() => return None,
            b"composition" => found = Some(start..end),
            b"documents" => return None,
            _ => {}
        }
        i = skip_ws(b, end);
        match b.get(i) {
            Some(b',') => i = skip_ws(b, i + 1),
            Some(b'}') => return found,
            _ => return None,
        }
    }
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// A key without escapes and the index after its closing quote.
fn raw_key(b: &[u8], i: usize) -> Option<(&[u8], usize)> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let rest = b.get(i + 1..)?;
    let len = rest.iter().position(|&c| c == b'"' || c == b'\\')?;
    if rest[len] == b'\\' {
        return None;
    }
    Some((&rest[..len], i + 1 + len + 1))
}

/// The index just after the value starting at `i`.
fn skip_value(b: &[u8], mut i: usize) -> Option<usize> {
    let mut depth = 0usize;
    loop {
        match *b.get(i)? {
            b'"' => i = skip_string(b, i)?,
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                i += 1;
            }
            _ if depth > 0 => i = next_structural(b, i + 1)?,
            _ => {
                // A scalar at the top: up to the next delimiter.
                while !matches!(
                    b.get(i),
                    None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                ) {
                    i += 1;
                }
                return Some(i);
            }
        }
        if depth == 0 {
            return Some(i);
        }
    }
}

/// Bytes that matter to the walk inside a container: quotes and brackets.
const STRUCTURAL: [bool; 256] = byte_set(false, b"\"{}[]");
/// Bytes that end a run inside a string: the closing quote and escapes.
const IN_STRING: [bool; 256] = byte_set(false, b"\"\\");

fn next_structural(b: &[u8], i: usize) -> Option<usize> {
    scan::find(b, i, &STRUCTURAL, |w| {
        eq(w, b'"') | eq(w, b'{') | eq(w, b'}') | eq(w, b'[') | eq(w, b']')
    })
}

/// The index after the string whose opening quote is at `i`.
fn skip_string(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    loop {
        j = scan::find(b, j, &IN_STRING, |w| eq(w, b'"') | eq(w, b'\\'))?;
        match b[j] {
            b'"' => return Some(j + 1),
            _ => j += 2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::composition;

    fn span(text: &str) -> Option<&str> {
        composition(text, |_| None).map(|r| &text[r])
    }

    #[test]
    fn finds_the_top_level_member() {
        let t = r#" { "xr": {"composition": 1, "s": "}\"{"}, "composition" : {"a": [1, {"b": "]"}]} , "n": -1.5e3 }"#;
        assert_eq!(span(t), Some(r#"{"a": [1, {"b": "]"}]}"#));
        assert_eq!(span(r#"{"composition":null}"#), Some("null"));
        assert_eq!(span(r#"{"composition":12,"x":true}"#), Some("12"));
    }

    #[test]
    fn gives_up_where_the_whole_request_must_be_read() {
        for t in [
            r#"{"composition":{},"composition":{}}"#,
            r#"{"compos\u0069tion":{},"composition":{}}"#,
            r#"{"documents":[],"composition":{}}"#,
            r#"{"xr":{}}"#,
            r#"{"composition":{"a":1}"#,
            r#"{"composition":{"a":1}]}"#,
            r#"[{"composition":{}}]"#,
            r#"{"composition":"unterminated}"#,
            "{}",
            "",
        ] {
            assert_eq!(span(t), None, "{t}");
        }
    }

    #[test]
    fn structure_is_found_at_every_position_of_a_word() {
        for pad in 0..20 {
            let x = "x".repeat(pad);
            let t =
                format!(r#"{{"{x}":"{x}\"{x}","composition":[{x}1,{{"{x}":{x}2}}],"z":"{x}"}}"#);
            let want = format!(r#"[{x}1,{{"{x}":{x}2}}]"#);
            assert_eq!(span(&t), Some(want.as_str()), "{t}");
        }
    }

    #[test]
    fn a_known_value_is_not_walked() {
        let t = r#"{"xr":{},"composition":{"a":"b"} ,"o":1}"#;
        let known = |at: &str| at.starts_with(r#"{"a":"b"}"#).then_some(9);
        assert_eq!(composition(t, known).map(|r| &t[r]), Some(r#"{"a":"b"}"#));
        let twice = r#"{"composition":{"a":"b"},"composition":{"a":"b"}}"#;
        assert_eq!(composition(twice, known), None);
    }
}
