//! Go's `json.Unmarshal` into `any`, a map or a slice: Go's syntax errors
//! (its scanner's messages), then the value with every number a float64.

use crate::value::{Map, Value};

/// What the JSON is decoded into.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// `map[string]interface {}`.
    Object,
    /// `[]interface {}`.
    Array,
}

/// Go's scanner nests at most this deep.
const MAX_DEPTH: usize = 10_000;
/// The engine's own bound: values nested deeper than this would exhaust a
/// wasm stack in the recursive code that later walks them.
const ENGINE_MAX_DEPTH: usize = 1000;

/// `json.Unmarshal([]byte(s), &target)`; `null` gives `Value::Null`.
///
/// # Errors
/// Go's error text (`ErrorKind::Render`), or `ErrorKind::Limit` for JSON
/// nested deeper than the engine accepts.
pub(crate) fn unmarshal(s: &str, target: Target) -> crate::error::Result<Value> {
    use crate::error::{Error, ErrorKind};
    let go = |e: String| Error::new(ErrorKind::Render, e);
    check_valid(s.as_bytes()).map_err(go)?;
    let b = s.as_bytes();
    let mut p = Parser { b, i: 0 };
    p.ws();
    let first = b.get(p.i).copied().unwrap_or(b'n');
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
    if depth_exceeds(b, ENGINE_MAX_DEPTH) {
        return Err(Error::new(
            ErrorKind::Limit,
            format!(
                "JSON nested more than {ENGINE_MAX_DEPTH} levels deep is beyond the engine's limit"
            ),
        ));
    }
    p.value().map_err(go)
}

/// Whether valid JSON text nests containers deeper than `max`.
fn depth_exceeds(b: &[u8], max: usize) -> bool {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &c in b {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

// ---- validation: a port of encoding/json's scanner state machine ----

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ps {
    ObjectKey,
    ObjectValue,
    ArrayValue,
}

#[derive(Clone, Copy)]
enum St {
    BeginValueOrEmpty,
    BeginValue,
    BeginStringOrEmpty,
    BeginString,
    EndValue,
    EndTop,
    InString,
    InStringEsc,
    InStringEscU(u8),
    Neg,
    One,
    Zero,
    Dot,
    Dot0,
    E,
    ESign,
    E0,
    Lit(&'static str, usize),
}

struct Scanner {
    step: St,
    stack: Vec<Ps>,
    end_top: bool,
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

fn quote_char(c: u8) -> String {
    match c {
        b'\'' => r"'\''".to_owned(),
        b'"' => "'\"'".to_owned(),
        _ => {
            let q = crate::fmt::quote(&char::from(c).to_string());
            let inner = q.get(1..q.len().saturating_sub(1)).unwrap_or_default();
            format!("'{inner}'")
        }
    }
}

fn error(c: u8, context: &str) -> String {
    format!("invalid character {} {context}", quote_char(c))
}

impl Scanner {
    fn push(&mut self, c: u8, ps: Ps, next: St) -> Result<(), String> {
        self.stack.push(ps);
        self.step = next;
        if self.stack.len() > MAX_DEPTH {
            return Err(error(c, "exceeded max depth"));
        }
        Ok(())
    }

    fn pop(&mut self) {
        self.stack.pop();
        if self.stack.is_empty() {
            self.step = St::EndTop;
            self.end_top = true;
        } else {
            self.step = St::EndValue;
        }
    }

    fn begin_value(&mut self, c: u8) -> Result<(), String> {
        if is_space(c) {
            return Ok(());
        }
        self.step = match c {
            b'{' => return self.push(c, Ps::ObjectKey, St::BeginStringOrEmpty),
            b'[' => return self.push(c, Ps::ArrayValue, St::BeginValueOrEmpty),
            b'"' => St::InString,
            b'-' => St::Neg,
            b'0' => St::Zero,
            b'1'..=b'9' => St::One,
            b't' => St::Lit("true", 1),
            b'f' => St::Lit("false", 1),
            b'n' => St::Lit("null", 1),
            _ => return Err(error(c, "looking for beginning of value")),
        };
        Ok(())
    }

    fn end_value(&mut self, c: u8) -> Result<(), String> {
        let Some(&top) = self.stack.last() else {
            self.step = St::EndTop;
            self.end_top = true;
            return self.end_top_step(c);
        };
        if is_space(c) {
            self.step = St::EndValue;
            return Ok(());
        }
        match top {
            Ps::ObjectKey if c == b':' => {
                self.set_top(Ps::ObjectValue);
                self.step = St::BeginValue;
            }
            Ps::ObjectKey => return Err(error(c, "after object key")),
            Ps::ObjectValue if c == b',' => {
                self.set_top(Ps::ObjectKey);
                self.step = St::BeginString;
            }
            Ps::ObjectValue if c == b'}' => self.pop(),
            Ps::ObjectValue => return Err(error(c, "after object key:value pair")),
            Ps::ArrayValue if c == b',' => self.step = St::BeginValue,
            Ps::ArrayValue if c == b']' => self.pop(),
            Ps::ArrayValue => return Err(error(c, "after array element")),
        }
        Ok(())
    }

    fn set_top(&mut self, ps: Ps) {
        if let Some(top) = self.stack.last_mut() {
            *top = ps;
        }
    }

    fn end_top_step(&mut self, c: u8) -> Result<(), String> {
        if is_space(c) {
            Ok(())
        } else {
            Err(error(c, "after top-level value"))
        }
    }

    fn feed(&mut self, c: u8) -> Result<(), String> {
        match self.step {
            St::BeginValueOrEmpty => {
                if is_space(c) {
                    Ok(())
                } else if c == b']' {
                    self.end_value(c)
                } else {
                    self.begin_value(c)
                }
            }
            St::BeginValue => self.begin_value(c),
            St::BeginStringOrEmpty => {
                if is_space(c) {
                    Ok(())
                } else if c == b'}' {
                    self.set_top(Ps::ObjectValue);
                    self.end_value(c)
                } else {
                    self.begin_string(c)
                }
            }
            St::BeginString => self.begin_string(c),
            St::EndValue => self.end_value(c),
            St::EndTop => self.end_top_step(c),
            St::InString => {
                match c {
                    b'"' => self.step = St::EndValue,
                    b'\\' => self.step = St::InStringEsc,
                    0..0x20 => return Err(error(c, "in string literal")),
                    _ => {}
                }
                Ok(())
            }
            St::InStringEsc => {
                self.step = match c {
                    b'b' | b'f' | b'n' | b'r' | b't' | b'\\' | b'/' | b'"' => St::InString,
                    b'u' => St::InStringEscU(0),
                    _ => return Err(error(c, "in string escape code")),
                };
                Ok(())
            }
            St::InStringEscU(n) => {
                if !c.is_ascii_hexdigit() {
                    return Err(error(c, "in \\u hexadecimal character escape"));
                }
                self.step = if n == 3 {
                    St::InString
                } else {
                    St::InStringEscU(n + 1)
                };
                Ok(())
            }
            St::Neg => {
                self.step = match c {
                    b'0' => St::Zero,
                    b'1'..=b'9' => St::One,
                    _ => return Err(error(c, "in numeric literal")),
                };
                Ok(())
            }
            St::One if c.is_ascii_digit() => Ok(()),
            St::One | St::Zero => match c {
                b'.' => {
                    self.step = St::Dot;
                    Ok(())
                }
                b'e' | b'E' => {
                    self.step = St::E;
                    Ok(())
                }
                _ => self.end_value(c),
            },
            St::Dot => {
                if c.is_ascii_digit() {
                    self.step = St::Dot0;
                    Ok(())
                } else {
                    Err(error(c, "after decimal point in numeric literal"))
                }
            }
            St::Dot0 => match c {
                b'0'..=b'9' => Ok(()),
                b'e' | b'E' => {
                    self.step = St::E;
                    Ok(())
                }
                _ => self.end_value(c),
            },
            St::E if c == b'+' || c == b'-' => {
                self.step = St::ESign;
                Ok(())
            }
            St::E | St::ESign => {
                if c.is_ascii_digit() {
                    self.step = St::E0;
                    Ok(())
                } else {
                    Err(error(c, "in exponent of numeric literal"))
                }
            }
            St::E0 if c.is_ascii_digit() => Ok(()),
            St::E0 => self.end_value(c),
            St::Lit(word, i) => {
                let want = word.as_bytes().get(i).copied().unwrap_or(b' ');
                if c != want {
                    return Err(error(
                        c,
                        &format!("in literal {word} (expecting {})", quote_char(want)),
                    ));
                }
                self.step = if i + 1 == word.len() {
                    St::EndValue
                } else {
                    St::Lit(word, i + 1)
                };
                Ok(())
            }
        }
    }

    fn begin_string(&mut self, c: u8) -> Result<(), String> {
        if is_space(c) {
            return Ok(());
        }
        if c == b'"' {
            self.step = St::InString;
            return Ok(());
        }
        Err(error(c, "looking for beginning of object key string"))
    }
}

/// `checkValid`: the first syntax error, as Go reports it.
fn check_valid(b: &[u8]) -> Result<(), String> {
    let mut s = Scanner {
        step: St::BeginValue,
        stack: Vec::new(),
        end_top: false,
    };
    for &c in b {
        s.feed(c)?;
    }
    if s.end_top {
        return Ok(());
    }
    s.feed(b' ')?;
    if s.end_top {
        return Ok(());
    }
    Err("unexpected end of JSON input".to_owned())
}

// ---- decoding of valid JSON, without recursion ----

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
}

enum Frame {
    Array(Vec<Value>),
    Object(Map, String),
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.b.get(self.i).is_some_and(|&c| is_space(c)) {
            self.i += 1;
        }
    }

    fn peek(&self) -> u8 {
        self.b.get(self.i).copied().unwrap_or(0)
    }

    /// One complete value (input already validated).
    fn value(&mut self) -> Result<Value, String> {
        let mut stack: Vec<Frame> = Vec::new();
        let mut first_err: Option<String> = None;
        loop {
            self.ws();
            // Open containers or read a scalar.
            let mut v = match self.peek() {
                b'{' => {
                    self.i += 1;
                    self.ws();
                    if self.peek() == b'}' {
                        self.i += 1;
                        Value::Object(Map::new())
                    } else {
                        let key = self.string();
                        self.ws();
                        self.i += 1; // ':'
                        stack.push(Frame::Object(Map::new(), key));
                        continue;
                    }
                }
                b'[' => {
                    self.i += 1;
                    self.ws();
                    if self.peek() == b']' {
                        self.i += 1;
                        Value::Array(Vec::new())
                    } else {
                        stack.push(Frame::Array(Vec::new()));
                        continue;
                    }
                }
                b'"' => Value::String(self.string()),
                b't' => {
                    self.i += 4;
                    Value::Bool(true)
                }
                b'f' => {
                    self.i += 5;
                    Value::Bool(false)
                }
                b'n' => {
                    self.i += 4;
                    Value::Null
                }
                _ => {
                    let start = self.i;
                    while self.b.get(self.i).is_some_and(|c| {
                        matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                    }) {
                        self.i += 1;
                    }
                    let lit = std::str::from_utf8(&self.b[start..self.i]).unwrap_or("0");
                    match lit.parse::<f64>() {
                        Ok(f) if f.is_finite() => Value::Float(f),
                        _ => {
                            first_err.get_or_insert_with(|| {
                                format!(
                                    "json: cannot unmarshal number {lit} into Go value of type float64"
                                )
                            });
                            Value::Null
                        }
                    }
                }
            };
            // Attach the value, closing containers as they end.
            loop {
                let Some(top) = stack.last_mut() else {
                    return match first_err {
                        Some(e) => Err(e),
                        None => Ok(v),
                    };
                };
                self.ws();
                match top {
                    Frame::Array(items) => items.push(v),
                    Frame::Object(map, key) => {
                        map.insert(std::mem::take(key), v);
                    }
                }
                match self.peek() {
                    b',' => {
                        self.i += 1;
                        if let Frame::Object(_, key) = top {
                            self.ws();
                            *key = self.string();
                            self.ws();
                            self.i += 1; // ':'
                        }
                        break;
                    }
                    _ => {
                        self.i += 1; // '}' or ']'
                        v = match stack.pop() {
                            Some(Frame::Array(items)) => Value::Array(items),
                            Some(Frame::Object(map, _)) => Value::Object(map),
                            None => Value::Null,
                        };
                    }
                }
            }
        }
    }

    /// A string literal at `self.i` (validated), unescaped as Go does.
    fn string(&mut self) -> String {
        self.i += 1;
        let mut out: Vec<u8> = Vec::new();
        while let Some(&c) = self.b.get(self.i) {
            self.i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let e = self.b.get(self.i).copied().unwrap_or(b'\\');
                    self.i += 1;
                    let ch = match e {
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let r = self.hex4();
                            if (0xD800..0xDC00).contains(&r)
                                && self.b.get(self.i) == Some(&b'\\')
                                && self.b.get(self.i + 1) == Some(&b'u')
                            {
                                let save = self.i;
                                self.i += 2;
                                let r2 = self.hex4();
                                if (0xDC00..0xE000).contains(&r2) {
                                    char::from_u32(0x10000 + ((r - 0xD800) << 10) + (r2 - 0xDC00))
                                        .unwrap_or('\u{FFFD}')
                                } else {
                                    self.i = save;
                                    '\u{FFFD}'
                                }
                            } else {
                                char::from_u32(r).unwrap_or('\u{FFFD}')
                            }
                        }
                        other => char::from(other),
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                _ => out.push(c),
            }
        }
        String::from_utf8(out).unwrap_or_default()
    }

    fn hex4(&mut self) -> u32 {
        let mut r = 0;
        for _ in 0..4 {
            let d = self
                .b
                .get(self.i)
                .and_then(|&c| char::from(c).to_digit(16))
                .unwrap_or(0);
            r = r * 16 + d;
            self.i += 1;
        }
        r
    }
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
