//! The walk over a document: containers opened and closed on one stack, and the
//! top-level `composition` member a request reading steps around.

use std::ops::Range;

use super::{Fault, Numbers, Source};
use crate::value::{Map, Value};

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

/// A reading in progress: where it stands in the bytes and what it has noted.
pub(super) struct Reader<'t, 'k, S> {
    /// `source.bytes()`, at hand for every byte read.
    pub(super) b: &'t [u8],
    source: S,
    pub(super) i: usize,
    pub(super) numbers: Numbers,
    /// Whether the last string read had escapes.
    pub(super) escaped: bool,
    /// Whether an integer literal `-0` was read.
    pub(super) minus_zero: bool,
    /// Asked for the length of the top-level `composition` member's value.
    known: Option<&'k mut dyn FnMut(&'t [u8]) -> Option<usize>>,
    pub(super) top: Top,
    /// Where the top-level `composition` member's value lies.
    pub(super) span: Option<Range<usize>>,
}

/// Where the reader stands with the top-level `composition` member.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Top {
    /// Not looking for it (no `known`), or no top-level key read yet.
    Idle,
    /// The key just read is `composition`: its value comes next.
    Value,
    /// The reading cannot vouch for the member: it stops, and the caller reads the
    /// request whole (see [`super::read_around`]).
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
    pub(super) fn new(
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

    /// A reading that cannot vouch for the member stops where it became unsure.
    fn unsure(&self) -> Result<(), Fault> {
        if self.top == Top::Unsure {
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
    pub(super) fn slice(&self, start: usize, end: usize) -> Result<&'t str, Fault> {
        self.source.slice(start, end).ok_or(Fault::Syntax(start))
    }

    #[inline(always)]
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    #[inline(always)]
    pub(super) fn peek(&self) -> Option<u8> {
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

    pub(super) fn document(&mut self, max_depth: usize) -> Result<Value, Fault> {
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
}
