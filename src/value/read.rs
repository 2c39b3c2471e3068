//! The engine's one JSON reader: strict JSON text to a [`Value`] in one pass, without recursion.
//!
//! It only says *where* the text goes wrong; callers that need Go's wording for
//! a syntax error ask Go's scanner port (`transform::gojson`), which is slower
//! and only runs on text this reader refused.

use std::ops::Range;

use super::{Map, Value, scan};

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
    /// The reading gave up: a second such member, a `documents` member, a top-level
    /// key with escapes (it might spell either), or a member `known` did not know.
    Unsure,
}

/// Reads a request as [`read`] does, except for its top-level `"composition"`
/// member: `known` is given the text where that member's value starts and says
/// how long the value is (a Composition it has read before, or reads there
/// itself), and the value reads as `null` without being looked at. One pass over
/// the rest of the request, which is read as if the Composition were `null`.
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
    let member = match (r.top, r.span) {
        (Top::Unsure, _) => Member::Unsure,
        (_, Some(span)) => Member::At(span),
        (_, None) => Member::Absent,
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

/// The items of a closing container, from `start` on the shared stack, at
/// their exact size: `split_off` moves them in one copy where collecting a
/// drain moves them one by one (but at 0 it hands over the whole buffer).
fn tail<T>(stack: &mut Vec<T>, start: usize) -> Vec<T> {
    if start == 0 {
        #[allow(clippy::drain_collect)] // `take` would hand over the whole buffer too
        stack.drain(..).collect()
    } else {
        stack.split_off(start)
    }
}

/// Bytes that end a plain run in a string literal.
const STRING_STOP: [bool; 256] = scan::byte_set(true, b"\"\\");

/// What a reading reads: text already checked as UTF-8, or bytes not known to
/// be UTF-8 ([`Bytes`]). A reading of each is compiled on its own, so that a
/// reading of text carries nothing of the checks.
pub(crate) trait Source<'t>: Copy {
    /// Whether a reading that becomes unsure stops (see [`Member::Unsure`]).
    const STOPS_WHEN_UNSURE: bool;

    fn bytes(&self) -> &'t [u8];

    /// The text of `start..end`, which the grammar found between ASCII bytes;
    /// `None` when it is not UTF-8.
    fn slice(&self, start: usize, end: usize) -> Option<&'t str>;

    /// The checked text from `at` to the end, if there is one.
    fn text_from(&self, at: usize) -> Option<&'t str>;

    /// Notes that `known` vouched for the bytes up to `at`; `false` when the
    /// bytes from `at` on are not UTF-8.
    fn vouched_to(&mut self, at: usize) -> bool;
}

/// Text known to be UTF-8.
#[derive(Clone, Copy)]
pub(crate) struct Checked<'t>(pub(crate) &'t str);

impl<'t> Source<'t> for Checked<'t> {
    /// The caller reads the request whole.
    const STOPS_WHEN_UNSURE: bool = false;

    fn bytes(&self) -> &'t [u8] {
        self.0.as_bytes()
    }

    #[inline(always)]
    fn slice(&self, start: usize, end: usize) -> Option<&'t str> {
        self.0.get(start..end)
    }

    fn text_from(&self, at: usize) -> Option<&'t str> {
        self.0.get(at..)
    }

    fn vouched_to(&mut self, _: usize) -> bool {
        true
    }
}

/// Bytes not known to be UTF-8. Each string before the span `known` vouches
/// for is checked as it is read, and everything after it in one pass; a string
/// that is not UTF-8 is a `Syntax` fault. Every other byte the grammar accepts
/// is ASCII, so the bytes are UTF-8 when they read.
#[derive(Clone, Copy)]
pub(crate) struct Bytes<'t> {
    b: &'t [u8],
    /// The bytes after the vouched span as text, and where they start.
    after: Option<(usize, &'t str)>,
}

impl<'t> Bytes<'t> {
    pub(crate) fn new(b: &'t [u8]) -> Self {
        Bytes { b, after: None }
    }
}

impl<'t> Source<'t> for Bytes<'t> {
    /// The caller checks the bytes whole and reads them as text.
    const STOPS_WHEN_UNSURE: bool = true;

    fn bytes(&self) -> &'t [u8] {
        self.b
    }

    #[inline(always)]
    fn slice(&self, start: usize, end: usize) -> Option<&'t str> {
        match self.after {
            Some((at, t)) if start >= at => t.get(start - at..end - at),
            _ => std::str::from_utf8(self.b.get(start..end)?).ok(),
        }
    }

    fn text_from(&self, _: usize) -> Option<&'t str> {
        None
    }

    fn vouched_to(&mut self, at: usize) -> bool {
        match self.b.get(at..).map(std::str::from_utf8) {
            Some(Ok(t)) => {
                self.after = Some((at, t));
                true
            }
            _ => false,
        }
    }
}

struct Reader<'t, 'k, S> {
    /// `source.bytes()`, at hand for every byte read.
    b: &'t [u8],
    source: S,
    i: usize,
    numbers: Numbers,
    /// Whether the last string read had escapes.
    escaped: bool,
    /// Whether an integer literal `-0` was read.
    minus_zero: bool,
    /// Asked for the length of the top-level `composition` member's value.
    known: Option<&'k mut dyn FnMut(&'t [u8]) -> Option<usize>>,
    top: Top,
    /// Where the top-level `composition` member's value lies.
    span: Option<Range<usize>>,
}

/// Where the reader stands with the top-level `composition` member.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Top {
    /// Not looking for it (no `known`), or no top-level key read yet.
    Idle,
    /// The key just read is `composition`: its value comes next.
    Value,
    /// The reading cannot vouch for the member (see [`Member::Unsure`]).
    Unsure,
}

/// An open container: where its items start on the shared item stack (and,
/// for an object, the key whose value is being read).
enum Open {
    Array(usize),
    Object(usize, String),
}

// The small helpers are inlined by hand: the module is built for size, which
// would otherwise leave a call per byte.
impl<'t, 'k, S: Source<'t>> Reader<'t, 'k, S> {
    fn new(
        source: S,
        numbers: Numbers,
        known: Option<&'k mut dyn FnMut(&'t [u8]) -> Option<usize>>,
    ) -> Self {
        Reader {
            b: source.bytes(),
            source,
            i: 0,
            numbers,
            escaped: false,
            minus_zero: false,
            known,
            top: Top::Idle,
            span: None,
        }
    }

    /// Notes a top-level key, when there is a `known` to ask about `composition`.
    #[inline(never)]
    fn top_key(&mut self, key: &str) -> Result<(), Fault> {
        if self.top == Top::Unsure {
            return Ok(());
        }
        self.top = match key {
            _ if self.escaped => Top::Unsure,
            "composition" if self.span.is_some() => Top::Unsure,
            "composition" => Top::Value,
            "documents" => Top::Unsure,
            _ => Top::Idle,
        };
        self.unsure()
    }

    /// Whether the reading goes on once unsure ([`Source::STOPS_WHEN_UNSURE`]).
    fn unsure(&self) -> Result<(), Fault> {
        if S::STOPS_WHEN_UNSURE && self.top == Top::Unsure {
            return Err(Fault::Syntax(self.i));
        }
        Ok(())
    }

    /// The top-level `composition` member's value, at `self.i`: `known` says
    /// how long it is, and it reads as `null`.
    #[inline(never)]
    fn known_value(&mut self) -> Result<Value, Fault> {
        let at = self.i;
        let len = match (self.known.as_mut(), self.b.get(at..)) {
            (Some(known), Some(rest)) => known(rest),
            _ => None,
        };
        match len {
            Some(len) => {
                self.top = Top::Idle;
                self.span = Some(at..at + len);
                self.i = at + len;
                if !self.source.vouched_to(self.i) {
                    return Err(Fault::Syntax(self.i));
                }
            }
            // The value is read as any other; the caller reads the whole request.
            None => self.top = Top::Unsure,
        }
        self.unsure()?;
        Ok(Value::Null)
    }

    /// The text from `start` to `end` ([`Source::slice`]).
    #[inline(always)]
    fn slice(&self, start: usize, end: usize) -> Result<&'t str, Fault> {
        self.source.slice(start, end).ok_or(Fault::Syntax(start))
    }

    #[inline(always)]
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn expect(&mut self, c: u8) -> Result<(), Fault> {
        self.ws();
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            Err(Fault::Syntax(self.i))
        }
    }

    /// `"key":` of an object member.
    #[inline(always)]
    fn key(&mut self) -> Result<String, Fault> {
        self.ws();
        if self.peek() != Some(b'"') {
            return Err(Fault::Syntax(self.i));
        }
        self.escaped = false;
        let k = self.string()?;
        // Compact text has the colon right after the key: no call for it.
        if self.peek() == Some(b':') {
            self.i += 1;
        } else {
            self.expect(b':')?;
        }
        Ok(k)
    }

    fn document(&mut self, max_depth: usize) -> Result<Value, Fault> {
        let mut stack: Vec<Open> = Vec::new();
        // Items of all open containers, so each container is allocated once,
        // at its exact size, when it closes.
        let mut items: Vec<Value> = Vec::new();
        let mut members: Vec<(String, Value)> = Vec::new();
        loop {
            self.ws();
            let mut v = match self.peek() {
                _ if self.top == Top::Value => match self.known_value()? {
                    _ if self.top == Top::Unsure => continue,
                    v => v,
                },
                Some(b'{') => {
                    let open = self.i;
                    self.i += 1;
                    self.ws();
                    if self.peek() == Some(b'}') {
                        self.i += 1;
                        Value::Object(Map::new())
                    } else {
                        if stack.len() >= max_depth {
                            return Err(Fault::Depth(open));
                        }
                        let key = self.key()?;
                        if stack.is_empty() && self.known.is_some() {
                            self.top_key(&key)?;
                        }
                        stack.push(Open::Object(members.len(), key));
                        continue;
                    }
                }
                Some(b'[') => {
                    let open = self.i;
                    self.i += 1;
                    self.ws();
                    if self.peek() == Some(b']') {
                        self.i += 1;
                        Value::Array(Vec::new())
                    } else {
                        if stack.len() >= max_depth {
                            return Err(Fault::Depth(open));
                        }
                        stack.push(Open::Array(items.len()));
                        continue;
                    }
                }
                Some(b'"') => Value::String(self.string()?),
                Some(b't') => self.literal("true", Value::Bool(true))?,
                Some(b'f') => self.literal("false", Value::Bool(false))?,
                Some(b'n') => self.literal("null", Value::Null)?,
                Some(b'-' | b'0'..=b'9') => self.number()?,
                _ => return Err(Fault::Syntax(self.i)),
            };
            // Attach the value to its container, closing containers as they end.
            loop {
                let depth = stack.len();
                let Some(top) = stack.last_mut() else {
                    return Ok(v);
                };
                match top {
                    Open::Array(_) => items.push(v),
                    Open::Object(_, key) => members.push((std::mem::take(key), v)),
                }
                self.ws();
                match (self.peek(), top) {
                    (Some(b','), Open::Array(_)) => {
                        self.i += 1;
                        break;
                    }
                    (Some(b','), Open::Object(_, key)) => {
                        self.i += 1;
                        *key = self.key()?;
                        if depth == 1 && self.known.is_some() {
                            self.top_key(key)?;
                        }
                        break;
                    }
                    (Some(b']'), Open::Array(_)) | (Some(b'}'), Open::Object(..)) => {
                        self.i += 1;
                        v = match stack.pop() {
                            Some(Open::Array(start)) => Value::Array(tail(&mut items, start)),
                            Some(Open::Object(start, _)) => {
                                Value::Object(Map::from_unsorted(tail(&mut members, start)))
                            }
                            None => Value::Null,
                        };
                    }
                    _ => return Err(Fault::Syntax(self.i)),
                }
            }
        }
    }

    fn literal(&mut self, word: &str, v: Value) -> Result<Value, Fault> {
        let end = self.i + word.len();
        if self.b.get(self.i..end) == Some(word.as_bytes()) {
            self.i = end;
            Ok(v)
        } else {
            Err(Fault::Syntax(self.i))
        }
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    fn number(&mut self) -> Result<Value, Fault> {
        let start = self.i;
        let digits = |r: &mut Self| {
            let from = r.i;
            while let Some(b'0'..=b'9') = r.peek() {
                r.i += 1;
            }
            if r.i == from {
                Err(Fault::Syntax(r.i))
            } else {
                Ok(())
            }
        };
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        if self.peek() == Some(b'0') {
            self.i += 1;
        } else {
            digits(self)?;
        }
        let mut integer = true;
        if self.peek() == Some(b'.') {
            self.i += 1;
            digits(self)?;
            integer = false;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            digits(self)?;
            integer = false;
        }
        let lit = self.slice(start, self.i)?;
        if integer
            && self.numbers != Numbers::Floats
            && let Ok(i) = lit.parse::<i64>()
        {
            // `-0` is the only integer literal whose sign the value loses.
            if lit == "-0" {
                self.minus_zero = true;
                if self.numbers == Numbers::Struct {
                    return Ok(Value::Float(-0.0));
                }
            }
            return Ok(Value::Int(i));
        }
        match crate::go::strconv::parse_f64(lit) {
            Some(f) if f.is_finite() => Ok(Value::Float(f)),
            _ => Err(Fault::Range(start, lit.to_owned())),
        }
    }

    /// The end of the run of string bytes from `from` that need no attention
    /// (not a quote, a backslash or a control character).
    #[inline(always)]
    fn plain_run(&self, from: usize) -> usize {
        let stops = |w| scan::control(w) | scan::eq(w, b'"') | scan::eq(w, b'\\');
        scan::find(self.b, from, &STRING_STOP, stops).unwrap_or_else(|| self.b.len().max(from))
    }

    /// A string literal at `self.i`, unescaped as Go's decoder does (a lone
    /// surrogate escape becomes U+FFFD).
    fn string(&mut self) -> Result<String, Fault> {
        self.i += 1;
        let start = self.i;
        // Most strings have no escapes: one copy of the slice.
        let i = self.plain_run(start);
        self.i = i;
        match self.peek() {
            Some(b'"') => {
                self.i += 1;
                Ok(self.slice(start, i)?.to_owned())
            }
            Some(b'\\') => self.escaped(start),
            _ => Err(Fault::Syntax(i)),
        }
    }

    /// The rest of a string literal from `start` whose plain run ends at an
    /// escape. Apart, so that the common string needs no stack frame; the runs
    /// between escapes are scanned a word at a time, as the first one is, so a
    /// long text with many escapes (embedded JSON, scripts) reads as fast.
    #[inline(never)]
    fn escaped(&mut self, start: usize) -> Result<String, Fault> {
        self.escaped = true;
        let mut out = String::from(self.slice(start, self.i)?);
        loop {
            let run = self.i;
            self.i = self.plain_run(run);
            out.push_str(self.slice(run, self.i)?);
            match self.peek() {
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    let c = self.escape()?;
                    out.push(c);
                }
                _ => return Err(Fault::Syntax(self.i)),
            }
        }
    }

    /// The character of the escape after a backslash.
    fn escape(&mut self) -> Result<char, Fault> {
        let e = self.peek().ok_or(Fault::Syntax(self.i))?;
        self.i += 1;
        Ok(match e {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let r = self.hex4()?;
                if (0xD800..0xDC00).contains(&r)
                    && self.b.get(self.i..self.i + 2) == Some(b"\\u".as_slice())
                {
                    let save = self.i;
                    self.i += 2;
                    let r2 = self.hex4()?;
                    if (0xDC00..0xE000).contains(&r2) {
                        char::from_u32(0x10000 + ((r - 0xD800) << 10) + (r2 - 0xDC00))
                            .unwrap_or('\u{FFFD}')
                    } else {
                        // Not a pair: the lone surrogate is replaced and the
                        // second escape read on its own.
                        self.i = save;
                        '\u{FFFD}'
                    }
                } else {
                    char::from_u32(r).unwrap_or('\u{FFFD}')
                }
            }
            _ => return Err(Fault::Syntax(self.i - 1)),
        })
    }

    fn hex4(&mut self) -> Result<u32, Fault> {
        let mut r = 0;
        for _ in 0..4 {
            let d = self
                .peek()
                .and_then(|c| char::from(c).to_digit(16))
                .ok_or(Fault::Syntax(self.i))?;
            r = r * 16 + d;
            self.i += 1;
        }
        Ok(r)
    }
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
