//! A Value's bytes written as the engine's JSON, checked as they are read.

use super::escape::string;
use super::fault::Step;
use super::fields::Field;
use super::merge::{Kind, Pieces, entry_parts, kind};
use super::order::key_order;

/// 2^63: whole floats below it in magnitude are written as integers (as protojson does).
const INT_LIMIT: f64 = 9_223_372_036_854_775_808.0;

/// Writes a Value's pieces as JSON, members of objects in key order, noting the number JSON
/// cannot hold that a walk of sorted maps meets first, and whether the bytes are ones prost
/// would not take.
///
/// Go's protobuf writes a map's entries in Go's map order, which differs from one marshal to
/// the next: Crossplane sends the same function input in a different order with every request.
/// In key order, the same content is the same text, and the engine finds its kept plan for the
/// Composition by its text. Entries of the same key keep their order (the last one wins).
pub(super) struct Writer<'a, 'o> {
    out: &'o mut Vec<u8>,
    path: Vec<Step<'a>>,
    pub(super) fault: Option<(Vec<Step<'a>>, f64)>,
    /// Lists for the members of the objects being written, reused.
    lists: Vec<Vec<(&'a [u8], Pieces<'a>)>>,
    pub(super) invalid: bool,
    /// Entries being written that a later entry of their key overrides.
    overridden: usize,
}

impl<'a, 'o> Writer<'a, 'o> {
    pub(super) fn new(out: &'o mut Vec<u8>) -> Self {
        Writer {
            out,
            path: Vec::new(),
            fault: None,
            lists: Vec::new(),
            invalid: false,
            overridden: 0,
        }
    }

    fn object(&mut self, pieces: &Pieces<'a>) {
        self.out.push(b'{');
        // Collected into a list kept from object to object (each nesting level its own), and
        // sorted unless already in key order (as prost writes them).
        let mut members = self.lists.pop().unwrap_or_default();
        let mut it = pieces.fields();
        for f in &mut it {
            match f {
                (1, Field::Bytes(entry)) => members.push(entry_parts(entry, &mut self.invalid)),
                (1, _) => self.invalid = true,
                _ => {}
            }
        }
        self.invalid |= it.bad;
        if !members.is_sorted_by(|a, b| key_order(a.0, b.0).is_le()) {
            members.sort_by(|a, b| key_order(a.0, b.0));
        }
        let mut entries = members.drain(..).peekable();
        let mut first = true;
        while let Some((key, value)) = entries.next() {
            if !first {
                self.out.push(b',');
            }
            first = false;
            // Written and checked, but prost keeps only a key's last entry: a number JSON
            // cannot hold in an earlier one is no fault.
            let overridden = entries.peek().is_some_and(|(next, _)| *next == key);
            self.overridden += usize::from(overridden);
            self.path.push(Step::Key(key));
            string(self.out, key);
            self.out.push(b':');
            self.value(&value);
            self.path.pop();
            self.overridden -= usize::from(overridden);
        }
        drop(entries);
        self.lists.push(members);
        self.out.push(b'}');
    }

    pub(super) fn value(&mut self, pieces: &Pieces<'a>) {
        match kind(pieces, &mut self.invalid) {
            Kind::Null => self.out.extend_from_slice(b"null"),
            Kind::Bool(b) => self
                .out
                .extend_from_slice(if b { b"true" } else { b"false" }),
            Kind::Str(s) => string(self.out, s),
            Kind::Number(n) => self.number(n),
            Kind::Struct(pieces) => self.object(&pieces),
            Kind::List(pieces) => {
                self.out.push(b'[');
                let mut i = 0;
                let mut it = pieces.fields();
                for f in &mut it {
                    match f {
                        (1, Field::Bytes(item)) => {
                            if i > 0 {
                                self.out.push(b',');
                            }
                            self.path.push(Step::Index(i));
                            self.value(&Pieces::one(item));
                            self.path.pop();
                            i += 1;
                        }
                        (1, _) => self.invalid = true,
                        _ => {}
                    }
                }
                self.invalid |= it.bad;
                self.out.push(b']');
            }
        }
    }

    #[allow(clippy::cast_possible_truncation, clippy::float_cmp)]
    fn number(&mut self, n: f64) {
        if !n.is_finite() {
            if self.overridden == 0 && self.fault.as_ref().is_none_or(|(at, _)| self.path < *at) {
                self.fault = Some((self.path.clone(), n));
            }
            self.out.extend_from_slice(b"null");
        } else if n == 0.0 && n.is_sign_negative() {
            // protojson writes negative zero as `-0`, and the engine reads it as float64 -0.
            self.out.extend_from_slice(b"-0");
        } else if n.trunc() == n && n.abs() < INT_LIMIT {
            let _ = serde_json::to_writer(&mut *self.out, &(n as i64));
        } else {
            let _ = serde_json::to_writer(&mut *self.out, &n);
        }
    }
}
