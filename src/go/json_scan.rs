//! Go's `encoding/json` scanner: which byte makes a text invalid JSON, in Go's words.
//!
//! Only consulted once the engine's JSON reader has refused a text, to name the fault
//! exactly as Go's `json.Unmarshal` and Kubernetes' decoders do.

/// Go's scanner nests at most this deep.
const MAX_DEPTH: usize = 10_000;

/// Go's syntax error for `b` and the byte offset it occurs at; `None` for valid JSON.
pub(crate) fn syntax_error(b: &[u8]) -> Option<(String, usize)> {
    let mut s = Scanner {
        step: St::BeginValue,
        stack: Vec::new(),
        end_top: false,
    };
    for (i, &c) in b.iter().enumerate() {
        if let Err(e) = s.feed(c) {
            return Some((e.to_string(), i));
        }
    }
    if s.end_top {
        return None;
    }
    if let Err(e) = s.feed(b' ') {
        return Some((e.to_string(), b.len()));
    }
    if s.end_top {
        return None;
    }
    Some(("unexpected end of JSON input".to_owned(), b.len()))
}

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
            let q = super::strconv::quote(&char::from(c).to_string());
            let inner = q.get(1..q.len().saturating_sub(1)).unwrap_or_default();
            format!("'{inner}'")
        }
    }
}

/// The character the scanner refused and where it met it, worded by `Display`
/// as Go's `*json.SyntaxError`.
struct InvalidChar {
    c: u8,
    context: &'static str,
    /// In a literal (`true`, `false`, `null`): the literal and the byte expected.
    literal: Option<(&'static str, u8)>,
}

impl std::fmt::Display for InvalidChar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid character {} ", quote_char(self.c))?;
        match self.literal {
            Some((word, want)) => write!(f, "in literal {word} (expecting {})", quote_char(want)),
            None => f.write_str(self.context),
        }
    }
}

fn error(c: u8, context: &'static str) -> InvalidChar {
    InvalidChar {
        c,
        context,
        literal: None,
    }
}

impl Scanner {
    fn push(&mut self, c: u8, ps: Ps, next: St) -> Result<(), InvalidChar> {
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

    fn begin_value(&mut self, c: u8) -> Result<(), InvalidChar> {
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

    fn end_value(&mut self, c: u8) -> Result<(), InvalidChar> {
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

    fn end_top_step(&mut self, c: u8) -> Result<(), InvalidChar> {
        if is_space(c) {
            Ok(())
        } else {
            Err(error(c, "after top-level value"))
        }
    }

    /// One byte through the state machine (Go's `scanner.step`).
    fn feed(&mut self, c: u8) -> Result<(), InvalidChar> {
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
            St::InString | St::InStringEsc | St::InStringEscU(_) => self.in_string(c),
            St::Lit(word, i) => self.in_literal(c, word, i),
            St::Neg | St::One | St::Zero | St::Dot | St::Dot0 | St::E | St::ESign | St::E0 => {
                self.in_number(c)
            }
        }
    }

    /// A byte inside a string literal, its escapes included.
    #[inline]
    fn in_string(&mut self, c: u8) -> Result<(), InvalidChar> {
        match self.step {
            St::InStringEsc => {
                self.step = match c {
                    b'b' | b'f' | b'n' | b'r' | b't' | b'\\' | b'/' | b'"' => St::InString,
                    b'u' => St::InStringEscU(0),
                    _ => return Err(error(c, "in string escape code")),
                };
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
            }
            _ => match c {
                b'"' => self.step = St::EndValue,
                b'\\' => self.step = St::InStringEsc,
                0..0x20 => return Err(error(c, "in string literal")),
                _ => {}
            },
        }
        Ok(())
    }

    /// A byte inside a number literal (or the byte just after it).
    #[inline]
    fn in_number(&mut self, c: u8) -> Result<(), InvalidChar> {
        match self.step {
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
            // `E0` past its digits (`feed` sends no other state here).
            _ => self.end_value(c),
        }
    }

    /// Byte `i` of the literal `word` (`true`, `false` or `null`).
    #[inline]
    fn in_literal(&mut self, c: u8, word: &'static str, i: usize) -> Result<(), InvalidChar> {
        let want = word.as_bytes().get(i).copied().unwrap_or(b' ');
        if c != want {
            return Err(InvalidChar {
                c,
                context: "",
                literal: Some((word, want)),
            });
        }
        self.step = if i + 1 == word.len() {
            St::EndValue
        } else {
            St::Lit(word, i + 1)
        };
        Ok(())
    }

    fn begin_string(&mut self, c: u8) -> Result<(), InvalidChar> {
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

#[cfg(test)]
mod tests {
    use super::syntax_error;

    /// Go's `json.Unmarshal` syntax errors (message, `SyntaxError.Offset - 1`).
    #[test]
    fn go_wording_and_offsets() {
        let cases: &[(&str, Option<(&str, usize)>)] = &[
            ("{}", None),
            (" [1, 2.5e-3, \"x\", true, null] ", None),
            ("", Some(("unexpected end of JSON input", 0))),
            ("   ", Some(("unexpected end of JSON input", 3))),
            ("[1,", Some(("unexpected end of JSON input", 3))),
            (
                "x",
                Some(("invalid character 'x' looking for beginning of value", 0)),
            ),
            (
                "[1,]",
                Some(("invalid character ']' looking for beginning of value", 3)),
            ),
            (
                "{1:2}",
                Some((
                    "invalid character '1' looking for beginning of object key string",
                    1,
                )),
            ),
            (
                "{\"a\" 1}",
                Some(("invalid character '1' after object key", 5)),
            ),
            (
                "{\"a\":1 \"b\"}",
                Some(("invalid character '\"' after object key:value pair", 7)),
            ),
            (
                "[1 2]",
                Some(("invalid character '2' after array element", 3)),
            ),
            (
                "{} x",
                Some(("invalid character 'x' after top-level value", 3)),
            ),
            (
                "\"a\u{1}\"",
                Some(("invalid character '\\x01' in string literal", 2)),
            ),
            (
                "\"\\x\"",
                Some(("invalid character 'x' in string escape code", 2)),
            ),
            (
                "\"\\u12g4\"",
                Some((
                    "invalid character 'g' in \\u hexadecimal character escape",
                    5,
                )),
            ),
            (
                "01",
                Some(("invalid character '1' after top-level value", 1)),
            ),
            ("-x", Some(("invalid character 'x' in numeric literal", 1))),
            (
                "1.x",
                Some((
                    "invalid character 'x' after decimal point in numeric literal",
                    2,
                )),
            ),
            (
                "1ex",
                Some(("invalid character 'x' in exponent of numeric literal", 2)),
            ),
            // At the end Go feeds one space: a literal or number cut short says so.
            (
                "tru",
                Some(("invalid character ' ' in literal true (expecting 'e')", 3)),
            ),
            (
                "1.",
                Some((
                    "invalid character ' ' after decimal point in numeric literal",
                    2,
                )),
            ),
            (
                "trux",
                Some(("invalid character 'x' in literal true (expecting 'e')", 3)),
            ),
            (
                "nul1",
                Some(("invalid character '1' in literal null (expecting 'l')", 3)),
            ),
            (
                "'a'",
                Some(("invalid character '\\'' looking for beginning of value", 0)),
            ),
            ("[\"a\",\"", Some(("unexpected end of JSON input", 6))),
        ];
        let mut wrong = Vec::new();
        for (text, want) in cases {
            let got = syntax_error(text.as_bytes());
            let got = got.as_ref().map(|(m, at)| (m.as_str(), *at));
            if got != *want {
                wrong.push(format!("{text:?}: got {got:?}, want {want:?}"));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn depth_is_bounded_like_go() {
        let ok = "[".repeat(10_000) + &"]".repeat(10_000);
        assert_eq!(syntax_error(ok.as_bytes()), None);
        let deep = "[".repeat(10_001);
        assert_eq!(
            syntax_error(deep.as_bytes()),
            Some((
                "invalid character '[' exceeded max depth".to_owned(),
                10_000
            ))
        );
    }
}
