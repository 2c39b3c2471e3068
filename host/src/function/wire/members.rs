//! A held Struct read as the server needs it: written whole, one member written or counted,
//! one member replaced.

use std::borrow::Cow;

use prost::encoding::{WireType, encode_key, encode_varint};

use super::escape::string;
use super::fault::{Fault, OwnedStep};
use super::fields::{Field, fields};
use super::lengths::{close, open};
use super::merge::{Kind, entry_parts, kind};
use super::{Member, Struct, Unheld, Written};

impl Struct {
    /// The entries as JSON: kept from decoding, or written now for a Struct built from JSON.
    fn written(&self) -> Cow<'_, Written> {
        if self.written.members.is_empty() && !self.bytes.is_empty() {
            Cow::Owned(Written::of(&self.bytes))
        } else {
            Cow::Borrowed(&self.written)
        }
    }

    /// Writes the Struct as a JSON object, members in key order: `fixed` string members
    /// first, in place of any entries of those keys.
    ///
    /// # Errors
    /// A number JSON cannot hold (protojson refuses it too), with its path: the first a walk
    /// of the members in key order meets, in the entries prost keeps.
    pub(crate) fn write_json(
        &self,
        out: &mut Vec<u8>,
        fixed: &[(&str, &str)],
    ) -> Result<(), Fault> {
        let written = self.written();
        let w = written.as_ref();
        let mut order: Vec<&Member> = w.members.iter().collect();
        if !order.is_sorted_by(|a, b| w.key(a) <= w.key(b)) {
            order.sort_by(|a, b| w.key(a).cmp(w.key(b)));
        }
        out.push(b'{');
        let mut first = true;
        let mut comma = |out: &mut Vec<u8>| {
            if !first {
                out.push(b',');
            }
            first = false;
        };
        for (k, v) in fixed {
            comma(out);
            string(out, k.as_bytes());
            out.push(b':');
            string(out, v.as_bytes());
        }
        // A member replaced by a fixed one still has its fault; an entry a later one of its
        // key overrides (prost keeps the last) has none.
        let mut fault: Option<(&[u8], &Unheld)> = None;
        let mut members = order.into_iter().peekable();
        while let Some(m) = members.next() {
            let key = w.key(m);
            let overridden = members.peek().is_some_and(|next| w.key(next) == key);
            if let Some(f) = &m.fault
                && !overridden
                && fault.is_none_or(|(k, (at, _))| (key, &f.0) < (k, at))
            {
                fault = Some((key, f));
            }
            if fixed.iter().any(|(k, _)| k.as_bytes() == key) {
                continue;
            }
            comma(out);
            string(out, key);
            out.push(b':');
            out.extend_from_slice(w.json(m));
        }
        out.push(b'}');
        match fault {
            None => Ok(()),
            Some((key, (at, n))) => {
                let mut path = vec![OwnedStep::Key(key.to_vec())];
                path.extend(at.iter().cloned());
                Err(Fault::at(&path, *n))
            }
        }
    }

    /// What the member `key` holds (its last entry), when there is one.
    fn member(&self, key: &str) -> Option<Kind<'_>> {
        let mut ignored = false;
        let (_, value) = fields(&self.bytes)
            .flatten()
            .filter_map(|f| match f {
                (1, Field::Bytes(entry)) => Some(entry_parts(entry, &mut ignored)),
                _ => None,
            })
            .filter(|(k, _)| *k == key.as_bytes())
            .last()?;
        Some(kind(&value, &mut ignored))
    }

    /// Writes the member `key` as a JSON object, when it is one; `None` when it is not.
    ///
    /// # Errors
    /// As [`Struct::write_json`], with the path within the member.
    pub(crate) fn write_member_json(
        &self,
        key: &str,
        out: &mut Vec<u8>,
    ) -> Option<Result<(), Fault>> {
        let written = self.written();
        let w = written.as_ref();
        let m = w.members.iter().rfind(|m| w.key(m) == key.as_bytes())?;
        let json = w.json(m);
        if json.first() != Some(&b'{') {
            return None;
        }
        out.extend_from_slice(json);
        Some(match &m.fault {
            None => Ok(()),
            Some(f) => Err(Fault::at(&f.0, f.1)),
        })
    }

    /// The number of items of the member `key`, when it is a list.
    pub(crate) fn list_len(&self, key: &str) -> Option<usize> {
        let Some(Kind::List(pieces)) = self.member(key) else {
            return None;
        };
        Some(
            pieces
                .fields()
                .filter(|f| matches!(f, (1, Field::Bytes(_))))
                .count(),
        )
    }

    /// This Struct with the member `key` set to the object `value` (any entry of that key
    /// before is left out).
    pub(crate) fn with_member(&self, key: &str, value: &Struct) -> Struct {
        let mut bytes = Vec::with_capacity(self.bytes.len() + value.bytes.len() + key.len() + 16);
        for f in fields(&self.bytes).flatten() {
            if let (1, Field::Bytes(entry)) = f
                && entry_parts(entry, &mut false).0 != key.as_bytes()
            {
                encode_key(1, WireType::LengthDelimited, &mut bytes);
                encode_varint(entry.len() as u64, &mut bytes);
                bytes.extend_from_slice(entry);
            }
        }
        let entry = open(&mut bytes, 1, 0);
        encode_key(1, WireType::LengthDelimited, &mut bytes);
        encode_varint(key.len() as u64, &mut bytes);
        bytes.extend_from_slice(key.as_bytes());
        let v = open(&mut bytes, 2, 1);
        let s = open(&mut bytes, 5, 2);
        bytes.extend_from_slice(&value.bytes);
        close(&mut bytes, s);
        close(&mut bytes, v);
        close(&mut bytes, entry);
        Struct {
            bytes,
            written: Written::default(),
        }
    }
}
