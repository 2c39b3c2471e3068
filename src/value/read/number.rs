//! Number literals, typed as the reading's [`Numbers`] says.

use super::document::Reader;
use super::{Fault, Numbers, Source};
use crate::value::Value;

impl<'t, S: Source<'t>> Reader<'t, '_, S> {
    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    #[inline]
    pub(super) fn number(&mut self) -> Result<Value, Fault> {
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
}
