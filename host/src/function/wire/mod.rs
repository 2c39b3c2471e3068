//! `google.protobuf.Struct` as the function server holds it: the bytes it arrived in.
//!
//! A RunFunction request is mostly Structs (the XR, observed and desired resources, the input)
//! and the engine reads JSON. Decoded into prost's `Struct`, every object becomes a B-tree of
//! boxed values that is built, walked to write JSON, and dropped; the answer goes the same way
//! back, and encoding it measures each nested message once per level above it. Here a Struct
//! keeps its entries' bytes, and each entry's value is written as JSON in the same walk that
//! checks its bytes as prost checks them; an answer's JSON is written straight into a Struct's
//! bytes. On the medium workload that serves twice the requests of prost's `Struct` with a
//! streaming JSON bridge (docs/benchmarks.md). build.rs maps the server's
//! `google.protobuf.Struct` to this type; clients of the server (its tests and benches) keep
//! prost's, so they check it as any other client would.
//!
//! Protobuf's merge rules hold: a message field given twice is the concatenation of both, a
//! oneof takes its last member, a map its last entry of a key (written as JSON's last
//! duplicate, which the engine keeps).
//!
//! Reading: `fields` (the wire format), `merge` (the merge rules), `check` (members a later one
//! replaces), `json` and `escape` (the JSON written), `order` (key order), `fault` (numbers
//! JSON cannot hold). `members` answers the server's questions of a held Struct; `from_json`
//! and `lengths` write an answer's JSON as Struct bytes.

mod check;
mod escape;
mod fault;
mod fields;
mod from_json;
mod json;
mod lengths;
mod members;
mod merge;
mod order;
#[cfg(test)]
mod tests;

use std::fmt;
use std::ops::Range;

use prost::bytes::{Buf, BufMut};
use prost::encoding::{DecodeContext, WireType, decode_varint, encode_key, encode_varint};
use prost::{DecodeError, Message};

use fault::{OwnedStep, Step};
use fields::{Field, fields};
use json::Writer;
use merge::entry_parts;

pub(crate) use fault::Fault;

/// A `google.protobuf.Struct`: its `fields` entries (field 1), as encoded, and each entry's
/// value as JSON, written while its bytes were checked.
#[derive(Default)]
pub(crate) struct Struct {
    bytes: Vec<u8>,
    /// Empty for a Struct built here (from an answer's JSON, or by `with_member`), which is
    /// written from its bytes when asked.
    written: Written,
}

/// A Struct's entries as JSON, in the order they arrived: each value written once, when its
/// entry is read, so that checking and writing are one walk of the bytes. Only the top level
/// is left to sort, when the Struct is written (its entries may arrive in several pieces).
#[derive(Clone, Default)]
struct Written {
    keys: Vec<u8>,
    json: Vec<u8>,
    members: Vec<Member>,
}

#[derive(Clone)]
struct Member {
    key: Range<usize>,
    json: Range<usize>,
    /// The first number JSON cannot hold in the value.
    fault: Option<Box<Unheld>>,
}

/// A number JSON cannot hold, and its path.
type Unheld = (Vec<OwnedStep>, f64);

/// A copy goes into a response, which needs the bytes only; its JSON is written again if asked.
impl Clone for Struct {
    fn clone(&self) -> Self {
        Struct {
            bytes: self.bytes.clone(),
            written: Written::default(),
        }
    }
}

impl PartialEq for Struct {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes
    }
}

impl Eq for Struct {}

impl fmt::Debug for Struct {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut json = Vec::new();
        match self.write_json(&mut json, &[]) {
            Ok(()) => f.write_str(&String::from_utf8_lossy(&json)),
            Err(e) => write!(f, "Struct({e})"),
        }
    }
}

impl Message for Struct {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        buf.put_slice(&self.bytes);
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        if tag != 1 {
            return prost::encoding::skip_field(wire_type, tag, buf, ctx);
        }
        // The entry read where the buffer holds it whole (tonic's does), and taken as it is
        // when it checks.
        if wire_type == WireType::LengthDelimited {
            let chunk = buf.chunk();
            let mut rest = chunk;
            if let Ok(len) = decode_varint(&mut rest)
                && let Some(entry) = usize::try_from(len).ok().and_then(|n| rest.get(..n))
                && self.written.push(entry)
            {
                encode_key(1, WireType::LengthDelimited, &mut self.bytes);
                encode_varint(len, &mut self.bytes);
                self.bytes.extend_from_slice(entry);
                let read = chunk.len() - rest.len() + entry.len();
                buf.advance(read);
                return Ok(());
            }
        }
        // Anything else is read by prost's own Struct, from the buffer as it is (a length
        // that runs past the entry reads on into what follows it, as in prost): it fails
        // with prost's error, or gives the entry in the form prost writes it, which checks.
        let mut canonical = prost_types::Struct::default();
        canonical.merge_field(tag, wire_type, buf, ctx)?;
        let canonical = canonical.encode_to_vec();
        for f in fields(&canonical).flatten() {
            if let (1, Field::Bytes(entry)) = f {
                self.written.push(entry);
            }
        }
        self.bytes.extend_from_slice(&canonical);
        Ok(())
    }

    fn encoded_len(&self) -> usize {
        self.bytes.len()
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.written = Written::default();
    }
}

impl Written {
    /// The entries of a Struct's bytes, written (for a Struct built here).
    fn of(bytes: &[u8]) -> Written {
        let mut w = Written::default();
        for f in fields(bytes).flatten() {
            if let (1, Field::Bytes(entry)) = f {
                w.push(entry);
            }
        }
        w
    }

    /// Writes a map entry's value, checking its bytes as prost would read them; `false`,
    /// with nothing kept, at bytes prost would not take as they are.
    fn push(&mut self, entry: &[u8]) -> bool {
        let (keys, json) = (self.keys.len(), self.json.len());
        // JSON takes about as many bytes as protobuf: room for it at once, not by doubling.
        self.json.reserve(entry.len());
        let mut w = Writer::new(&mut self.json);
        let (key, value) = entry_parts(entry, &mut w.invalid);
        w.value(&value);
        if w.invalid {
            self.json.truncate(json);
            return false;
        }
        let fault = w.fault.map(|(path, n)| {
            let path = path
                .into_iter()
                .map(|step| match step {
                    Step::Key(k) => OwnedStep::Key(k.to_vec()),
                    Step::Index(i) => OwnedStep::Index(i),
                })
                .collect();
            Box::new((path, n))
        });
        self.keys.extend_from_slice(key);
        self.members.push(Member {
            key: keys..self.keys.len(),
            json: json..self.json.len(),
            fault,
        });
        true
    }

    fn key(&self, m: &Member) -> &[u8] {
        &self.keys[m.key.clone()]
    }

    fn json(&self, m: &Member) -> &[u8] {
        &self.json[m.json.clone()]
    }
}
