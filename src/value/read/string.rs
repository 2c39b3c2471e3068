//! String literals: plain runs a word at a time, escapes unescaped as Go's decoder does.

use super::document::Reader;
use super::{Fault, Source};
use crate::value::scan;

/// Bytes that end a plain run in a string literal.
const STRING_STOP: [bool; 256] = scan::byte_set(true, b"\"\\");

impl<'t, S: Source<'t>> Reader<'t, '_, S> {
    /// The end of the run of string bytes from `from` that need no attention
    /// (not a quote, a backslash or a control character).
    #[inline(always)]
    fn plain_run(&self, from: usize) -> usize {
        let stops = |w| scan::control(w) | scan::eq(w, b'"') | scan::eq(w, b'\\');
        scan::find(self.b, from, &STRING_STOP, stops).unwrap_or_else(|| self.b.len().max(from))
    }

    /// A string literal at `self.i`, unescaped as Go's decoder does (a lone
    /// surrogate escape becomes U+FFFD).
    #[inline]
    pub(super) fn string(&mut self) -> Result<String, Fault> {
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
