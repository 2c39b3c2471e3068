//! The engine's one JSON reader: strict JSON text to a [`Value`] in one pass, without recursion.
//!
//! It only says *where* the text goes wrong; callers that need Go's wording for
//! a syntax error ask Go's scanner port (`transform::gojson`), which is slower
//! and only runs on text this reader refused.

use std::ops::Range;

use super::Value;

mod document;
mod number;
mod source;
mod string;

use document::Reader;
pub(crate) use source::{Bytes, Checked, Source};

/// How number literals become values.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Numbers {
    /// Kubernetes' decoder: an integer literal that fits `int64` is an `Int`,
    /// every other number a `Float`. The literal `-0` is `Int(0)`.
    Kubernetes,
    /// A request read for function semantics, whose objects stand for protobuf
    /// `Struct`s: every number is a float64 there, and protojson reads `-0` as
    /// float64 -0. Read as [`Numbers::Kubernetes`] reads, except that `-0` is
    /// `Float(-0.0)` (no `Int` holds its sign); `compose::wire` turns the other
    /// integers into floats where the function sees them.
    Struct,
    /// Go's `json.Unmarshal` into `any`: every number is a `float64`.
    Floats,
}

/// Why the text was refused, and the byte offset where that became clear.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Fault {
    /// Not JSON.
    Syntax(usize),
    /// A number literal beyond `float64` (`json: cannot unmarshal number … into … float64`).
    Range(usize, String),
    /// Containers nested deeper than allowed.
    Depth(usize),
}

impl Fault {
    /// The byte offset where the text goes wrong.
    pub(crate) fn offset(&self) -> usize {
        match self {
            Fault::Syntax(at) | Fault::Range(at, _) | Fault::Depth(at) => *at,
        }
    }

    /// The text of a fault other than a syntax error (whose text comes from Go's scanner).
    pub(crate) fn message(&self, max_depth: usize) -> Option<String> {
        match self {
            Fault::Syntax(_) => None,
            Fault::Range(_, lit) => Some(format!(
                "json: cannot unmarshal number {lit} into Go value of type float64"
            )),
            Fault::Depth(_) => Some(format!(
                "JSON nested more than {max_depth} levels deep is beyond the engine's limit"
            )),
        }
    }
}

/// Reads one JSON document (surrounding whitespace allowed).
pub(crate) fn read(text: &str, numbers: Numbers, max_depth: usize) -> Result<Value, Fault> {
    read_noting_minus_zero(text, numbers, max_depth).map(|(v, _)| v)
}

/// [`read`], also saying whether the text holds the integer literal `-0`, which
/// Kubernetes' typing and a `Struct`'s read as different numbers (see [`Numbers::Struct`]).
///
/// Never inlined: the module should hold one copy of it.
#[inline(never)]
pub(crate) fn read_noting_minus_zero(
    text: &str,
    numbers: Numbers,
    max_depth: usize,
) -> Result<(Value, bool), Fault> {
    let (v, i, minus_zero) = value_at(text, numbers, max_depth)?;
    end_of_document(text.as_bytes(), i)?;
    Ok((v, minus_zero))
}

/// What [`read_around`] found of the top-level `"composition"` member.
pub(crate) enum Member {
    /// The document is an object with one such member, whose value spans this range.
    At(Range<usize>),
    /// There is no such member.
    Absent,
}

/// Reads a request as [`read`] does, except for its top-level `"composition"`
/// member: `known` is given the text where that member's value starts and says
/// how long the value is (a Composition it has read before, or reads there
/// itself), and the value reads as `null` without being looked at. One pass over
/// the rest of the request, which is read as if the Composition were `null`.
/// Where the reading cannot vouch for the member (a second one, a `documents`
/// member, a top-level key with escapes that might spell either, a value `known`
/// does not know) it stops with an error there: the caller reads the request whole.
///
/// `source` is the request: checked text, or bytes (see [`Source`]). The flag
/// says whether the text read (not the member's) holds the integer literal `-0`.
#[inline(never)]
pub(crate) fn read_around<'t, S: Source<'t>>(
    source: S,
    numbers: Numbers,
    max_depth: usize,
    known: &mut dyn FnMut(&'t [u8]) -> Option<usize>,
) -> Result<(Value, Member, bool), Fault> {
    let mut r = Reader::new(source, numbers, Some(known));
    let v = r.document(max_depth)?;
    end_of_document(r.b, r.i)?;
    let member = match r.span {
        Some(span) => Member::At(span),
        None => Member::Absent,
    };
    Ok((v, member, r.minus_zero))
}

/// Only whitespace may follow the document, which ends at `i`.
fn end_of_document(b: &[u8], mut i: usize) -> Result<(), Fault> {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = b.get(i) {
        i += 1;
    }
    if i < b.len() {
        return Err(Fault::Syntax(i));
    }
    Ok(())
}

/// Reads the one JSON value at the start of `text` (no whitespace before it)
/// and says where it ends, without looking at the text after it: a request's
/// Composition is read where the walk over the request finds it. The flag says
/// whether the value holds the integer literal `-0`.
pub(crate) fn read_prefix(
    text: &str,
    numbers: Numbers,
    max_depth: usize,
) -> Result<(Value, usize, bool), Fault> {
    value_at(text, numbers, max_depth)
}

/// The value after any whitespace at the start of `text`, where it ends, and
/// whether it holds the integer literal `-0`.
#[inline(never)]
fn value_at(text: &str, numbers: Numbers, max_depth: usize) -> Result<(Value, usize, bool), Fault> {
    let mut r = Reader::new(Checked(text), numbers, None);
    let v = r.document(max_depth)?;
    Ok((v, r.i, r.minus_zero))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(s: &str) -> Result<String, Fault> {
        read(s, Numbers::Kubernetes, 4).map(|v| v.to_json())
    }

    #[test]
    fn documents() {
        let ok = |s: &str, want: &str| assert_eq!(k(s), Ok(want.to_owned()), "{s}");
        ok(
            " {\"b\":1, \"a\" : [true,false,null,\"x\"]}\n",
            r#"{"a":[true,false,null,"x"],"b":1}"#,
        );
        ok(r#"{"a":1,"a":2}"#, r#"{"a":2}"#);
        ok(
            r#""\u00e9\ud83d\ude00\ud800x\"\\\/\b\f\n\r\t""#,
            r#""é😀�x\"\\/\b\f\n\r\t""#,
        );
        ok(
            "[-0, 0.5, 1e2, 1E-2, 9223372036854775807, 9223372036854775808]",
            "[0,0.5,100,0.01,9223372036854775807,9223372036854776000]",
        );
        ok("[[[[1]]]]", "[[[[1]]]]");
        ok("[[[[[]]]]]", "[[[[[]]]]]");
        assert_eq!(
            read("[1, 2.0, 3]", Numbers::Floats, 4),
            Ok(Value::Array(vec![
                Value::Float(1.0),
                Value::Float(2.0),
                Value::Float(3.0)
            ]))
        );
        assert_eq!(
            read("[1, 2.0]", Numbers::Kubernetes, 4),
            Ok(Value::Array(vec![Value::Int(1), Value::Float(2.0)]))
        );
    }

    /// `-0` is int64 0 to Kubernetes' typing and float64 -0 to a Struct's; `-0.0`
    /// and `-0e0` are float64 -0 to both. Only the literal `-0` is noted.
    #[test]
    fn negative_zero() {
        let typed = |text: &str, numbers| {
            let (v, minus_zero) = read_noting_minus_zero(text, numbers, 4).unwrap();
            let items: Vec<String> = v
                .as_array()
                .unwrap()
                .iter()
                .map(|n| match n {
                    Value::Int(i) => format!("int {i}"),
                    Value::Float(f) => format!("float {f:?}"),
                    other => format!("{other:?}"),
                })
                .collect();
            (items.join(", "), minus_zero)
        };
        let text = r#"[-0, -0.0, -0e0, -0E+0, 0, "-0"]"#;
        assert_eq!(
            typed(text, Numbers::Kubernetes),
            (
                r#"int 0, float -0.0, float -0.0, float -0.0, int 0, String("-0")"#.to_owned(),
                true
            )
        );
        assert_eq!(
            typed(text, Numbers::Struct),
            (
                r#"float -0.0, float -0.0, float -0.0, float -0.0, int 0, String("-0")"#.to_owned(),
                true
            )
        );
        assert_eq!(
            typed(text, Numbers::Floats).0,
            r#"float -0.0, float -0.0, float -0.0, float -0.0, float 0.0, String("-0")"#
        );
        for unnoted in [
            r#"[-0.0, -0e0, 0, "-0", -1, -10]"#,
            "[-0.5, 10, -9223372036854775808]",
        ] {
            assert!(!typed(unnoted, Numbers::Kubernetes).1, "{unnoted}");
        }
    }

    #[test]
    fn a_prefix_ends_where_its_value_does() {
        let at =
            |s: &str| read_prefix(s, Numbers::Kubernetes, 4).map(|(v, end, _)| (v.to_json(), end));
        assert_eq!(
            at(r#"{"b":[1,"}"],"a":{}} ,"x":tru"#),
            Ok((r#"{"a":{},"b":[1,"}"]}"#.to_owned(), 20))
        );
        assert_eq!(at("[[[[1]]]]]"), Ok(("[[[[1]]]]".to_owned(), 9)));
        assert_eq!(at(r#"{"a":1"#), Err(Fault::Syntax(6)));
        assert_eq!(at("[[[[[1]]]]]"), Err(Fault::Depth(4)));
    }

    #[test]
    fn faults() {
        let syntax = |s: &str, at: usize| assert_eq!(k(s), Err(Fault::Syntax(at)), "{s}");
        syntax("", 0);
        syntax("{", 1);
        syntax("{\"a\" 1}", 5);
        syntax("{\"a\":1,}", 7);
        syntax("[1,]", 3);
        syntax("[1 2]", 3);
        syntax("[1}", 2);
        syntax("tru", 0);
        syntax("01", 1);
        syntax("-", 1);
        syntax("1.", 2);
        syntax("1e+", 3);
        syntax("\"a\u{1}\"", 2);
        syntax("\"\\x\"", 2);
        syntax("\"\\u12\"", 5);
        syntax("\"abc", 4);
        syntax("{} x", 3);
        syntax("{1:2}", 1);
        // A raw control byte or an unterminated string at every offset
        // around the eight-byte steps of a plain run.
        for pre in 0..20 {
            let a = "a".repeat(pre);
            syntax(&format!("\"{a}\u{1}aaaaaaaa\""), 1 + pre);
            syntax(&format!("[\"{a}é\u{1f}\"]"), 4 + pre);
            syntax(&format!("\"{a}"), 1 + pre);
            syntax(&format!("{{\"{a}\n\":1}}"), 2 + pre);
            assert_eq!(k(&format!("\"{a}\\\"\"")), Ok(format!("\"{a}\\\"\"")));
        }
        assert_eq!(k("[1e400]"), Err(Fault::Range(1, "1e400".to_owned())));
        assert_eq!(k("[[[[[1]]]]]"), Err(Fault::Depth(4)));
    }

    /// "Both readers refuse the same texts": the scanner only words what the reader refused.
    #[test]
    fn agrees_with_the_reader_on_acceptance() {
        use crate::go::json_scan::syntax_error;
        for text in [
            "{}",
            "[1,2]",
            "{\"a\":[true,false,null]}",
            "\"\\ud800\"",
            "1e5",
            "-0.0",
            "[",
            "]",
            "{\"a\"}",
            "[1,]",
            "01",
            "1.",
            "\"\\u00\"",
            "\u{feff}1",
            "nulll",
            "[1]x",
            "\"\t\"",
            "{\"a\":1,}",
        ] {
            let reader = read(text, Numbers::Floats, 10_000).is_ok();
            let scanner = syntax_error(text.as_bytes()).is_none();
            assert_eq!(reader, scanner, "{text:?}");
        }
    }
}
