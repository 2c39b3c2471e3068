//! `google.protobuf.Struct` as the function server holds it: the bytes it arrived in.
//!
//! A RunFunction request is mostly Structs (the XR, observed and desired resources, the input)
//! and the engine reads JSON. Decoded into prost's `Struct`, every object became a B-tree of
//! boxed values that was built, walked to write JSON, and dropped; the answer went the same way
//! back, and encoding it measured each nested message once per level above it. Here a Struct
//! keeps its entries' bytes, and each entry's value is written as JSON in the same walk that
//! checks its bytes as prost checks them; an answer's JSON is written straight into a Struct's
//! bytes. build.rs maps the
//! server's `google.protobuf.Struct` to this type; clients of the server (its tests and
//! benches) keep prost's, so they check it as any other client would.
//!
//! Protobuf's merge rules hold: a message field given twice is the concatenation of both, a
//! oneof takes its last member, a map its last entry of a key (written as JSON's last
//! duplicate, which the engine keeps).

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

use prost::bytes::{Buf, BufMut};
use prost::encoding::{DecodeContext, WireType, decode_varint, encode_key, encode_varint};
use prost::{DecodeError, Message};
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};

/// 2^63: whole floats below it in magnitude are written as integers (as protojson does).
const INT_LIMIT: f64 = 9_223_372_036_854_775_808.0;

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

/// A field as read from the wire.
enum Field<'a> {
    Varint(u64),
    Fixed64(u64),
    Fixed32,
    Bytes(&'a [u8]),
}

/// The fields of a message's bytes in order; reading stops at bytes that are not a field
/// (or a group, which no message here has), with `Err`.
struct Fields<'a> {
    rest: &'a [u8],
}

fn fields(bytes: &[u8]) -> Fields<'_> {
    Fields { rest: bytes }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<(u32, Field<'a>), ()>;

    // Inlined where fields are read, the field is returned in registers rather than memory.
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let field = self.read();
        if field.is_err() {
            self.rest = &[];
        }
        Some(field)
    }
}

impl<'a> Fields<'a> {
    #[inline(always)]
    fn read(&mut self) -> Result<(u32, Field<'a>), ()> {
        let key = varint(&mut self.rest)?;
        let tag = u32::try_from(key >> 3).map_err(|_| ())?;
        if tag == 0 {
            return Err(());
        }
        let field = match key & 7 {
            0 => Field::Varint(varint(&mut self.rest)?),
            1 => {
                let (bits, rest) = self.rest.split_first_chunk::<8>().ok_or(())?;
                self.rest = rest;
                Field::Fixed64(u64::from_le_bytes(*bits))
            }
            5 => {
                let (_, rest) = self.rest.split_first_chunk::<4>().ok_or(())?;
                self.rest = rest;
                Field::Fixed32
            }
            2 => {
                let len = usize::try_from(varint(&mut self.rest)?).map_err(|_| ())?;
                if len > self.rest.len() {
                    return Err(());
                }
                let (bytes, rest) = self.rest.split_at(len);
                self.rest = rest;
                Field::Bytes(bytes)
            }
            _ => return Err(()),
        };
        Ok((tag, field))
    }
}

/// A varint: one byte for most keys and lengths, read here; longer ones by prost.
#[inline]
fn varint(bytes: &mut &[u8]) -> Result<u64, ()> {
    match bytes.split_first() {
        Some((&b, rest)) if b < 0x80 => {
            *bytes = rest;
            Ok(u64::from(b))
        }
        _ => decode_varint(bytes).map_err(|_| ()),
    }
}

// What prost accepts, or stricter, for a oneof member a later one replaces: the walk that
// writes an entry checks everything else it reads.

fn check_entry(bytes: &[u8]) -> bool {
    fields(bytes).all(|f| match f {
        Ok((1, Field::Bytes(key))) => utf8(key),
        Ok((2, Field::Bytes(value))) => check_value(value),
        Ok((1 | 2, _)) | Err(()) => false,
        Ok(_) => true,
    })
}

fn check_value(bytes: &[u8]) -> bool {
    fields(bytes).all(|f| match f {
        Ok((1 | 4, Field::Varint(_)) | (2, Field::Fixed64(_))) => true,
        Ok((3, Field::Bytes(s))) => utf8(s),
        Ok((5, Field::Bytes(s))) => check_repeated(s, check_entry),
        Ok((6, Field::Bytes(l))) => check_repeated(l, check_value),
        Ok((1..=6, _)) | Err(()) => false,
        Ok(_) => true,
    })
}

/// Whether a string's bytes are UTF-8, as prost requires. Keys and values are mostly short and
/// ASCII, which is checked without the general decoder's setup.
fn utf8(s: &[u8]) -> bool {
    s.is_ascii() || std::str::from_utf8(s).is_ok()
}

/// A Struct's entries or a ListValue's values: every field 1 a message `check` takes.
fn check_repeated(bytes: &[u8], check: fn(&[u8]) -> bool) -> bool {
    fields(bytes).all(|f| match f {
        Ok((1, Field::Bytes(m))) => check(m),
        Ok((1, _)) | Err(()) => false,
        Ok(_) => true,
    })
}

/// A message given in one or more pieces: a message field given again is both, concatenated.
#[derive(Default)]
struct Pieces<'a> {
    first: Option<&'a [u8]>,
    more: Vec<&'a [u8]>,
}

impl<'a> Pieces<'a> {
    fn one(piece: &'a [u8]) -> Self {
        Pieces {
            first: Some(piece),
            more: Vec::new(),
        }
    }

    fn push(&mut self, piece: &'a [u8]) {
        match self.first {
            None => self.first = Some(piece),
            Some(_) => self.more.push(piece),
        }
    }

    /// The fields of all pieces, in order (a piece's reading ends at bytes that are not a
    /// field, which the check on decoding has let through only where prost skips them).
    fn fields(&self) -> PieceFields<'a, '_> {
        PieceFields {
            current: fields(self.first.unwrap_or_default()),
            more: self.more.iter(),
            bad: false,
        }
    }
}

/// [`Pieces::fields`]: a loop rather than a chain of adapters, which the writer's every value
/// and entry goes through.
struct PieceFields<'a, 'p> {
    current: Fields<'a>,
    more: std::slice::Iter<'p, &'a [u8]>,
    /// Whether a piece's reading ended at bytes that are not a field.
    bad: bool,
}

impl<'a> Iterator for PieceFields<'a, '_> {
    type Item = (u32, Field<'a>);

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match self.current.next() {
                Some(Ok(field)) => return Some(field),
                Some(Err(())) => self.bad = true,
                None => {}
            }
            self.current = fields(self.more.next()?);
        }
    }
}

/// What a `Value` holds, by protobuf's rules for a oneof: the last member given wins, and a
/// message member given again in a row merges with the one before (its pieces).
enum Kind<'a> {
    Null,
    Number(f64),
    Str(&'a [u8]),
    Bool(bool),
    Struct(Pieces<'a>),
    List(Pieces<'a>),
}

/// A Value's kind; `invalid` set at bytes prost would not take (a member of the wrong wire
/// type, a string that is not UTF-8, a message member given up for a later one that is bad).
#[inline(always)]
fn kind<'a>(pieces: &Pieces<'a>, invalid: &mut bool) -> Kind<'a> {
    let mut kind = Kind::Null;
    let mut it = pieces.fields();
    for f in &mut it {
        kind = match (f, kind) {
            ((5, Field::Bytes(s)), Kind::Struct(mut p)) => {
                p.push(s);
                Kind::Struct(p)
            }
            ((6, Field::Bytes(l)), Kind::List(mut p)) => {
                p.push(l);
                Kind::List(p)
            }
            ((tag @ 1..=6, f), before) => {
                let next = match (tag, f) {
                    (1, Field::Varint(_)) => Kind::Null,
                    (2, Field::Fixed64(bits)) => Kind::Number(f64::from_bits(bits)),
                    (3, Field::Bytes(s)) => {
                        *invalid |= !utf8(s);
                        Kind::Str(s)
                    }
                    (4, Field::Varint(b)) => Kind::Bool(b != 0),
                    (5, Field::Bytes(s)) => Kind::Struct(Pieces::one(s)),
                    (6, Field::Bytes(l)) => Kind::List(Pieces::one(l)),
                    _ => {
                        *invalid = true;
                        return Kind::Null;
                    }
                };
                given_up(before, invalid);
                next
            }
            (_, kind) => kind,
        };
    }
    *invalid |= it.bad;
    kind
}

/// Checks the message a oneof gave up for a later member: prost read it all the same.
fn given_up(before: Kind<'_>, invalid: &mut bool) {
    let (pieces, check): (_, fn(&[u8]) -> bool) = match before {
        Kind::Struct(p) => (p, check_entry),
        Kind::List(p) => (p, check_value),
        _ => return,
    };
    let mut all = pieces.first.into_iter().chain(pieces.more.iter().copied());
    *invalid |= !all.all(|b| check_repeated(b, check));
}

/// A map entry's key (its last) and its value's pieces; `invalid` as for [`kind`].
#[inline(always)]
fn entry_parts<'a>(entry: &'a [u8], invalid: &mut bool) -> (&'a [u8], Pieces<'a>) {
    let mut key: &[u8] = b"";
    let mut value = Pieces::default();
    for f in fields(entry) {
        match f {
            Ok((1, Field::Bytes(k))) => {
                *invalid |= !utf8(k);
                key = k;
            }
            Ok((2, Field::Bytes(v))) => value.push(v),
            Ok((1 | 2, _)) | Err(()) => *invalid = true,
            Ok(_) => {}
        }
    }
    (key, value)
}

/// Keys in byte order, compared inline: most are a few bytes long, and differ in the first
/// eight.
#[inline(always)]
fn key_order(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    let word = |s: &[u8], i: usize| {
        s.get(i..i + 8)
            .map_or(0, |w| u64::from_be_bytes(w.try_into().unwrap_or_default()))
    };
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 8 <= n {
        let (x, y) = (word(a, i), word(b, i));
        if x != y {
            return x.cmp(&y);
        }
        i += 8;
    }
    for (x, y) in a[i..n].iter().zip(&b[i..n]) {
        if x != y {
            return x.cmp(y);
        }
    }
    a.len().cmp(&b.len())
}

/// One step of a path into a Struct.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Step<'a> {
    Key(&'a [u8]),
    Index(usize),
}

/// A [`Step`] kept with a written entry.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
enum OwnedStep {
    Key(Vec<u8>),
    Index(usize),
}

/// A number JSON cannot hold, and where: reported as `spec.list[0].x: invalid number NaN: ...`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Fault(String);

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Fault {
    fn at(path: &[OwnedStep], n: f64) -> Fault {
        let mut at = String::new();
        for step in path {
            match step {
                OwnedStep::Key(k) => {
                    if !at.is_empty() {
                        at.push('.');
                    }
                    at.push_str(&String::from_utf8_lossy(k));
                }
                OwnedStep::Index(i) => at.push_str(&format!("[{i}]")),
            }
        }
        Fault(format!(
            "{at}: invalid number {n}: JSON has no NaN or infinity"
        ))
    }
}

/// Writes a Value's pieces as JSON, members of objects in key order, noting the number JSON
/// cannot hold that a walk of sorted maps meets first, and whether the bytes are ones prost
/// would not take.
///
/// Go's protobuf writes a map's entries in Go's map order, which differs from one marshal to
/// the next: Crossplane sends the same function input in a different order with every request.
/// In key order, the same content is the same text, and the engine finds its kept plan for the
/// Composition by its text. Entries of the same key keep their order (the last one wins).
struct Writer<'a, 'o> {
    out: &'o mut Vec<u8>,
    path: Vec<Step<'a>>,
    fault: Option<(Vec<Step<'a>>, f64)>,
    /// Lists for the members of the objects being written, reused.
    lists: Vec<Vec<(&'a [u8], Pieces<'a>)>>,
    invalid: bool,
}

impl<'a, 'o> Writer<'a, 'o> {
    fn new(out: &'o mut Vec<u8>) -> Self {
        Writer {
            out,
            path: Vec::new(),
            fault: None,
            lists: Vec::new(),
            invalid: false,
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
        for (i, (key, value)) in members.drain(..).enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            self.path.push(Step::Key(key));
            string(self.out, key);
            self.out.push(b':');
            self.value(&value);
            self.path.pop();
        }
        self.lists.push(members);
        self.out.push(b'}');
    }

    fn value(&mut self, pieces: &Pieces<'a>) {
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
            if self.fault.as_ref().is_none_or(|(at, _)| self.path < *at) {
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

/// A string's bytes (checked UTF-8) as a JSON string: quotes, backslashes and control
/// characters escaped, everything else as it is.
fn string(out: &mut Vec<u8>, s: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(s.len() + 2);
    out.push(b'"');
    let mut start = 0;
    while let Some(i) = escaped_from(s, start) {
        let b = s[i];
        out.extend_from_slice(&s[start..i]);
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            _ => out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 15)],
            ]),
        }
        start = i + 1;
    }
    out.extend_from_slice(&s[start..]);
    out.push(b'"');
}

/// The first byte at or after `from` that a JSON string escapes (a quote, a backslash, a
/// control character). Most strings have none: eight bytes are looked at in one step.
fn escaped_from(s: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // The first byte of `w` (in memory order) to escape. Each test may also flag bytes after
    // one it rightly flags (a borrow carries up), never before, so the lowest flag is exact.
    let first = |w: u64| {
        let zero = |w: u64| w.wrapping_sub(ONES) & !w & HIGHS;
        // Bytes below 0x20, and bytes equal to '"' or '\\'.
        let stops = (w.wrapping_sub(ONES * 0x20) & !w & HIGHS)
            | zero(w ^ (ONES * u64::from(b'"')))
            | zero(w ^ (ONES * u64::from(b'\\')));
        (stops != 0).then(|| stops.trailing_zeros() as usize / 8)
    };
    let mut i = from;
    while let Some(chunk) = s.get(i..i + 8) {
        if let Some(at) = first(u64::from_le_bytes(chunk.try_into().unwrap_or_default())) {
            return Some(i + at);
        }
        i += 8;
    }
    // The last bytes, fewer than eight, padded with spaces (which need no escaping).
    let rest = s.get(i..).filter(|r| !r.is_empty())?;
    let mut word = [b' '; 8];
    word[..rest.len()].copy_from_slice(rest);
    first(u64::from_le_bytes(word)).map(|at| i + at)
}

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
    /// of the members in key order meets.
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
        // A replaced member's fault is still one.
        let mut fault: Option<(&[u8], &Unheld)> = None;
        for m in order {
            let key = w.key(m);
            if let Some(f) = &m.fault
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

/// Message levels from which a length is written five bytes wide. A length is written when
/// its message is closed, in the one byte kept for it, which holds most; a longer one moves the
/// message to make room, and over a chain of nested messages that moves the deepest one's bytes
/// once per level. Real documents nest less deep than this; a deeper one takes four bytes more
/// per message instead of moving it again and again.
const MOVED_LEVELS: usize = 48;

/// A length-delimited field whose length is written when it is closed.
#[derive(Clone, Copy)]
struct Open {
    start: usize,
    wide: bool,
}

fn open(out: &mut Vec<u8>, tag: u32, depth: usize) -> Open {
    encode_key(tag, WireType::LengthDelimited, out);
    let wide = depth >= MOVED_LEVELS;
    out.extend_from_slice(if wide { &[0; 5] } else { &[0] });
    Open {
        start: out.len(),
        wide,
    }
}

/// Drops a field opened for a member that turned out not to be there.
fn cancel(out: &mut Vec<u8>, open: Open) {
    // The key of every field opened here is one byte (tags below 16).
    out.truncate(open.start - if open.wide { 6 } else { 2 });
}

#[allow(clippy::cast_possible_truncation)]
fn close(out: &mut Vec<u8>, open: Open) {
    let len = out.len() - open.start;
    let kept = if open.wide { 5 } else { 1 };
    if open.wide && len < 1 << 35 {
        // A varint padded to five bytes: protobuf's readers take it as the same number.
        for i in 0..5 {
            let b = ((len >> (7 * i)) & 0x7f) as u8;
            out[open.start - 5 + i] = if i < 4 { b | 0x80 } else { b };
        }
        return;
    }
    let mut varint = [0u8; 10];
    let n = prost::encoding::encoded_len_varint(len as u64);
    encode_varint(len as u64, &mut &mut varint[..]);
    let (first, rest) = varint[..n].split_at(kept.min(n));
    out[open.start - kept..open.start - kept + first.len()].copy_from_slice(first);
    if first.len() < kept {
        out.drain(open.start - kept + first.len()..open.start);
    } else if !rest.is_empty() {
        out.splice(open.start..open.start, rest.iter().copied());
    }
}

// JSON text to a Struct's bytes, written as the text is read.

/// A JSON object as a Struct; any other value as an empty one.
///
/// # Errors
/// The deserializer's, for text that is not JSON.
pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Struct, D::Error> {
    Struct::deserialize(d)
}

impl<'de> Deserialize<'de> for Struct {
    /// A JSON object as a Struct; any other value as an empty one.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut bytes = Vec::new();
        d.deserialize_any(Top(&mut bytes))?;
        Ok(Struct {
            bytes,
            written: Written::default(),
        })
    }
}

/// The top-level value: an object's entries, nothing for anything else.
struct Top<'o>(&'o mut Vec<u8>);

impl<'de> Visitor<'de> for Top<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        write_entries(self.0, map, 0)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
}

/// An object's members as `fields` entries.
fn write_entries<'de, A: MapAccess<'de>>(
    out: &mut Vec<u8>,
    mut map: A,
    depth: usize,
) -> Result<(), A::Error> {
    loop {
        let entry = open(out, 1, depth);
        if map.next_key_seed(Key(out))?.is_none() {
            cancel(out, entry);
            return Ok(());
        }
        let value = open(out, 2, depth + 1);
        map.next_value_seed(ValueSeed(out, depth + 2))?;
        close(out, value);
        close(out, entry);
    }
}

/// A member's key, written as the entry's field 1.
struct Key<'o>(&'o mut Vec<u8>);

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<(), E> {
        encode_key(1, WireType::LengthDelimited, self.0);
        encode_varint(s.len() as u64, self.0);
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// A JSON value written as a `google.protobuf.Value`'s fields, this many messages deep.
struct ValueSeed<'o>(&'o mut Vec<u8>, usize);

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl ValueSeed<'_> {
    fn number(self, n: f64) {
        encode_key(2, WireType::SixtyFourBit, self.0);
        self.0.put_f64_le(n);
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.0.extend_from_slice(&[0x08, 0x00]);
        Ok(())
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.visit_unit()
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<(), E> {
        self.0.extend_from_slice(&[0x20, u8::from(b)]);
        Ok(())
    }

    #[allow(clippy::cast_precision_loss)]
    fn visit_i64<E: de::Error>(self, n: i64) -> Result<(), E> {
        self.number(n as f64);
        Ok(())
    }

    #[allow(clippy::cast_precision_loss)]
    fn visit_u64<E: de::Error>(self, n: u64) -> Result<(), E> {
        self.number(n as f64);
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<(), E> {
        self.number(n);
        Ok(())
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<(), E> {
        encode_key(3, WireType::LengthDelimited, self.0);
        encode_varint(s.len() as u64, self.0);
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        let s = open(self.0, 5, self.1);
        write_entries(self.0, map, self.1 + 1)?;
        close(self.0, s);
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let list = open(self.0, 6, self.1);
        loop {
            let item = open(self.0, 1, self.1 + 1);
            if seq
                .next_element_seed(ValueSeed(self.0, self.1 + 2))?
                .is_none()
            {
                cancel(self.0, item);
                break;
            }
            close(self.0, item);
        }
        close(self.0, list);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use prost::Message as _;
    use prost_types::value::Kind as PKind;
    use serde_json::{Value as Json, json};

    use super::super::{go_order, structs};
    use super::*;

    /// A deterministic stream of numbers for random documents.
    struct Rng(go_order::Rng);

    impl Rng {
        fn next(&mut self, n: u64) -> u64 {
            let n = usize::try_from(n).unwrap();
            self.0.below(n) as u64
        }

        fn text(&mut self) -> String {
            const PARTS: [&str; 13] = [
                "a", "spec", "é", "\"", "\\", "\n", "日本", "😀", "x.y", "0", "\u{1}", "\u{7f}",
                "\t\r",
            ];
            (0..self.next(4))
                .map(|_| PARTS[self.next(13) as usize])
                .collect()
        }

        fn value(&mut self, depth: u32) -> Json {
            match self.next(if depth == 0 { 5 } else { 7 }) {
                0 => Json::Null,
                1 => json!(self.next(2) == 1),
                2 => json!(self.text()),
                3 => {
                    let numbers = [
                        0.0,
                        -0.0,
                        1.0,
                        -3.0,
                        2.5,
                        1e21,
                        9_007_199_254_740_993.0,
                        1e-7,
                        9.3e18,
                        -1e300,
                    ];
                    json!(numbers[self.next(10) as usize])
                }
                4 => json!(self.next(1 << 40) as i64 - (1 << 39)),
                5 => Json::Array((0..self.next(4)).map(|_| self.value(depth - 1)).collect()),
                _ => self.object(depth - 1),
            }
        }

        fn object(&mut self, depth: u32) -> Json {
            Json::Object(
                (0..self.next(5))
                    .map(|_| (self.text(), self.value(depth)))
                    .collect(),
            )
        }
    }

    fn ours_json(s: &Struct) -> Json {
        let mut out = Vec::new();
        s.write_json(&mut out, &[]).unwrap();
        serde_json::from_slice(&out).unwrap()
    }

    /// What a prost server made of the same bytes, and what this type makes of them.
    fn both(bytes: &[u8]) -> (Result<Json, String>, Result<Json, String>) {
        let prost = prost_types::Struct::decode(bytes)
            .map_err(|e| e.to_string())
            .and_then(|s| structs::to_json(&s));
        let ours = Struct::decode(bytes)
            .map_err(|e| e.to_string())
            .and_then(|s| {
                let mut out = Vec::new();
                s.write_json(&mut out, &[]).map_err(|e| e.to_string())?;
                Ok(serde_json::from_slice(&out).unwrap())
            });
        (prost, ours)
    }

    #[test]
    fn documents_read_and_written_as_prost_reads_and_writes_them() {
        let mut rng = Rng(go_order::Rng(7));
        for _ in 0..2000 {
            let doc = rng.object(4);
            let prost = structs::from_json(&doc);
            let bytes = prost.encode_to_vec();
            // Read: the JSON a prost server writes.
            let (theirs, ours) = both(&bytes);
            assert_eq!(ours, theirs, "{doc}");
            // A copy (which keeps only the bytes) writes the same text.
            let decoded = Struct::decode(bytes.as_slice()).unwrap();
            let (mut text, mut copied) = (Vec::new(), Vec::new());
            let _ = decoded.write_json(&mut text, &[]);
            let _ = decoded.clone().write_json(&mut copied, &[]);
            assert_eq!(text, copied);
            // Written: bytes prost reads back as the document.
            let written = Struct::deserialize(&doc).unwrap();
            assert_eq!(
                prost_types::Struct::decode(written.encode_to_vec().as_slice()).unwrap(),
                prost,
                "{doc}"
            );
            assert_eq!(ours_json(&written), theirs.unwrap());
            // Two messages given one after the other merge: entries of both, the later winning.
            let other = structs::from_json(&rng.object(3)).encode_to_vec();
            let merged = [bytes.as_slice(), &other].concat();
            let (theirs, ours) = both(&merged);
            assert_eq!(ours, theirs, "{doc}");
        }
    }

    #[test]
    fn damaged_bytes_read_as_prost_reads_them() {
        // Valid documents, in Go's order, with a byte changed, dropped or added: whatever
        // prost makes of them (a document, or its error), this type makes the same.
        let mut rng = Rng(go_order::Rng(13));
        let mut go = go_order::Rng(17);
        let (mut taken, mut refused) = (0, 0);
        for _ in 0..6000 {
            let doc = rng.object(3);
            let mut bytes = go_order::go_struct(&structs::from_json(&doc), &mut go);
            if bytes.is_empty() {
                continue;
            }
            for _ in 0..=rng.next(2) {
                let at = rng.next(bytes.len() as u64) as usize;
                let byte = u8::try_from(rng.next(256)).unwrap();
                match rng.next(3) {
                    0 => bytes[at] = byte,
                    1 => drop(bytes.remove(at)),
                    _ => bytes.insert(at, byte),
                }
            }
            let (theirs, ours) = both(&bytes);
            assert_eq!(ours, theirs, "{doc} {bytes:?}");
            match ours {
                Ok(_) => taken += 1,
                Err(_) => refused += 1,
            }
        }
        // Both outcomes are well represented.
        assert!(taken > 250 && refused > 250, "{taken} {refused}");
    }

    #[test]
    fn the_same_content_in_any_order_is_the_same_text() {
        let mut rng = Rng(go_order::Rng(11));
        let mut go = go_order::Rng(5);
        for _ in 0..500 {
            let doc = rng.object(4);
            let prost = structs::from_json(&doc);
            let mut sorted = Vec::new();
            Struct::decode(prost.encode_to_vec().as_slice())
                .unwrap()
                .write_json(&mut sorted, &[("kind", "K")])
                .unwrap();
            for _ in 0..3 {
                let bytes = go_order::go_struct(&prost, &mut go);
                assert_eq!(
                    prost_types::Struct::decode(bytes.as_slice()).unwrap(),
                    prost
                );
                let mut text = Vec::new();
                Struct::decode(bytes.as_slice())
                    .unwrap()
                    .write_json(&mut text, &[("kind", "K")])
                    .unwrap();
                assert_eq!(
                    String::from_utf8(text).unwrap(),
                    String::from_utf8(sorted.clone()).unwrap()
                );
            }
        }
        // Entries of one key keep their order, so the last still wins.
        let dup = [
            entry("b", &[value_bytes(PKind::BoolValue(true))]),
            entry("a", &[value_bytes(PKind::NumberValue(1.0))]),
            entry("b", &[value_bytes(PKind::StringValue("last".into()))]),
        ]
        .concat();
        let mut text = Vec::new();
        Struct::decode(dup.as_slice())
            .unwrap()
            .write_json(&mut text, &[])
            .unwrap();
        assert_eq!(text, br#"{"a":1,"b":true,"b":"last"}"#);
        let (theirs, ours) = both(&dup);
        assert_eq!(ours, theirs);
    }

    #[test]
    fn bytes_to_escape_are_found_at_every_offset() {
        let naive = |s: &[u8], from: usize| {
            s[from..]
                .iter()
                .position(|&b| b < 0x20 || b == b'"' || b == b'\\')
                .map(|p| from + p)
        };
        let mut rng = Rng(go_order::Rng(3));
        let alphabet = b"ab\"\\\n\x00\x1f\x20\x7f\x80\xc3\xa9!~";
        for _ in 0..5000 {
            let len = rng.next(40) as usize;
            let s: Vec<u8> = (0..len)
                .map(|_| {
                    if rng.next(4) == 0 {
                        alphabet[rng.next(alphabet.len() as u64) as usize]
                    } else {
                        b'x'
                    }
                })
                .collect();
            for from in 0..=len {
                assert_eq!(escaped_from(&s, from), naive(&s, from), "{s:?} {from}");
            }
        }
    }

    #[test]
    fn keys_are_ordered_as_bytes_are() {
        let mut rng = Rng(go_order::Rng(19));
        let alphabet = b"aab\x00\x7f\x80\xff";
        let mut key = || -> Vec<u8> {
            (0..rng.next(20))
                .map(|_| alphabet[rng.next(alphabet.len() as u64) as usize])
                .collect()
        };
        for _ in 0..20_000 {
            let (a, b) = (key(), key());
            // Often one the other's prefix, or the same up to a late byte.
            let c: Vec<u8> = a.iter().chain(&b).copied().collect();
            for (x, y) in [(&a, &b), (&a, &c), (&c, &a), (&a, &a)] {
                assert_eq!(
                    key_order(x, y),
                    x.as_slice().cmp(y.as_slice()),
                    "{x:?} {y:?}"
                );
            }
        }
    }

    #[test]
    fn deep_documents_are_written_with_wide_lengths_prost_reads() {
        // Lengths over a byte at every level, past the levels where lengths are moved.
        let mut doc = json!("x".repeat(300));
        for i in 0..100 {
            doc = if i % 2 == 0 {
                json!({"next": doc, "pad": "p".repeat(i)})
            } else {
                json!([doc, i, null])
            };
        }
        let doc = json!({"top": doc});
        let written = Struct::deserialize(&doc).unwrap();
        let bytes = written.encode_to_vec();
        assert_eq!(
            prost_types::Struct::decode(bytes.as_slice()).unwrap(),
            structs::from_json(&doc)
        );
        assert_eq!(ours_json(&Struct::decode(bytes.as_slice()).unwrap()), doc);
        // Four bytes more per message past those levels: not a multiple of the size.
        let canonical = structs::from_json(&doc).encode_to_vec();
        assert!(
            bytes.len() < canonical.len() * 2,
            "{} {}",
            bytes.len(),
            canonical.len()
        );
    }

    fn value_bytes(kind: PKind) -> Vec<u8> {
        prost_types::Value { kind: Some(kind) }.encode_to_vec()
    }

    fn entry(key: &str, value_pieces: &[Vec<u8>]) -> Vec<u8> {
        let mut e = Vec::new();
        encode_key(1, WireType::LengthDelimited, &mut e);
        encode_varint(key.len() as u64, &mut e);
        e.extend_from_slice(key.as_bytes());
        for v in value_pieces {
            encode_key(2, WireType::LengthDelimited, &mut e);
            encode_varint(v.len() as u64, &mut e);
            e.extend_from_slice(v);
        }
        let mut out = Vec::new();
        encode_key(1, WireType::LengthDelimited, &mut out);
        encode_varint(e.len() as u64, &mut out);
        out.extend_from_slice(&e);
        out
    }

    #[test]
    fn a_value_given_in_pieces_reads_as_prost_merges_it() {
        let kinds = || {
            vec![
                PKind::NullValue(0),
                PKind::NumberValue(2.5),
                PKind::NumberValue(f64::NAN),
                PKind::StringValue("s".into()),
                PKind::BoolValue(true),
                PKind::StructValue(structs::from_json(&json!({"a": 1, "b": {"c": [1]}}))),
                PKind::StructValue(structs::from_json(&json!({"b": {"d": 2}, "e": null}))),
                PKind::ListValue(prost_types::ListValue {
                    values: vec![prost_types::Value {
                        kind: Some(PKind::BoolValue(false)),
                    }],
                }),
                PKind::ListValue(prost_types::ListValue::default()),
            ]
        };
        for a in kinds() {
            for b in kinds() {
                for c in [None, Some(PKind::StringValue("last".into()))] {
                    let mut pieces = vec![value_bytes(a.clone()), value_bytes(b.clone())];
                    pieces.extend(c.map(value_bytes));
                    // The same pieces as one value message and as repeated value fields.
                    let joined = [entry("k", &[pieces.concat()]), entry("k", &pieces)];
                    for bytes in joined {
                        let (theirs, ours) = both(&bytes);
                        assert_eq!(ours, theirs, "{a:?} {b:?}");
                    }
                }
            }
        }
        // A value with no member is null; members of no known number are skipped.
        let (theirs, ours) = both(&entry("k", &[vec![], vec![0x48, 0x01]]));
        assert_eq!(ours, theirs);
        assert_eq!(ours.unwrap(), json!({"k": null}));
    }

    #[test]
    fn faults_are_named_in_key_order_and_bad_bytes_fail_as_in_prost() {
        let nan = |path: &[&str]| {
            let mut v = prost_types::Value {
                kind: Some(PKind::NumberValue(f64::NAN)),
            };
            for k in path.iter().rev() {
                v = prost_types::Value {
                    kind: Some(PKind::StructValue(prost_types::Struct {
                        fields: std::collections::BTreeMap::from([((*k).to_owned(), v)]),
                    })),
                };
            }
            v
        };
        let mut s = structs::from_json(&json!({"b": [1, {"c": 2}], "a": {}}));
        s.fields.insert("z".into(), nan(&[]));
        s.fields.insert("b".into(), nan(&["y", "x"]));
        s.fields.insert("m".into(), nan(&["k"]));
        // Written in the reverse of key order: the fault named is still the first by key.
        let mut bytes = Vec::new();
        for (k, v) in s.fields.iter().rev() {
            let e = entry(k, &[v.encode_to_vec()]);
            bytes.extend_from_slice(&e);
        }
        let (theirs, ours) = both(&bytes);
        assert_eq!(ours, theirs);
        assert_eq!(
            ours.unwrap_err(),
            "b.y.x: invalid number NaN: JSON has no NaN or infinity"
        );
        let list = structs::from_json(&json!({"l": [1, 2]}));
        let mut l = list.clone();
        if let Some(PKind::ListValue(items)) = l.fields.get_mut("l").and_then(|v| v.kind.as_mut()) {
            items.values.push(nan(&["q"]));
        }
        let (theirs, ours) = both(&l.encode_to_vec());
        assert_eq!(ours, theirs);
        assert_eq!(
            ours.unwrap_err(),
            "l[2].q: invalid number NaN: JSON has no NaN or infinity"
        );

        for bad in [
            entry("k\u{e9}", &[])
                .iter()
                .map(|&b| if b == 0xc3 { 0xff } else { b })
                .collect::<Vec<u8>>(),
            entry("k", &[vec![0x1a, 0x02, 0xff, 0xfe]]),
            entry("k", &[vec![0x11, 0x01]]),
            entry("k", &[vec![0x10, 0x01]]),
            entry("k", &[vec![0x2a, 0x05, 0x0a]]),
            vec![0x0a, 0x05, 0x0a],
            vec![0x08, 0x01],
            // Bad bytes in a member a later one replaces: prost read them all the same.
            entry("k", &[vec![0x1a, 0x02, 0xff, 0xfe, 0x08, 0x00]]),
            entry(
                "k",
                &[vec![
                    0x2a, 0x05, 0x0a, 0x03, 0x0a, 0x01, 0xff, 0x1a, 0x01, b's',
                ]],
            ),
            entry("k", &[vec![0x32, 0x04, 0x0a, 0x02, 0x10, 0x01, 0x08, 0x00]]),
            // Deep in a list, in an object.
            entry(
                "k",
                &[vec![
                    0x32, 0x09, 0x0a, 0x07, 0x2a, 0x05, 0x0a, 0x03, 0x0a, 0x01, 0xff,
                ]],
            ),
        ] {
            let (theirs, ours) = both(&bad);
            assert!(theirs.is_err(), "{bad:?}");
            assert_eq!(ours, theirs, "{bad:?}");
        }
        // Groups in an unknown field: prost skips them, and so does this type.
        let mut grouped = entry("k", &[value_bytes(PKind::BoolValue(true))]);
        grouped.splice(2..2, [0x1b, 0x08, 0x01, 0x1c]);
        let len = grouped.len() - 2;
        grouped[1] = u8::try_from(len).unwrap();
        let (theirs, ours) = both(&grouped);
        assert_eq!(ours, theirs);
        assert_eq!(ours.unwrap(), json!({"k": true}));
    }

    #[test]
    fn a_member_is_replaced_and_read() {
        let ctx: Struct =
            serde_json::from_value(json!({"env": {"old": 1}, "other": [1, 2, 3]})).unwrap();
        let env: Struct = serde_json::from_value(json!({"new": {"x": true}})).unwrap();
        let ctx = ctx.with_member("env", &env);
        assert_eq!(
            ours_json(&ctx),
            json!({"env": {"new": {"x": true}}, "other": [1, 2, 3]})
        );
        let mut out = Vec::new();
        ctx.write_member_json("env", &mut out).unwrap().unwrap();
        assert_eq!(
            serde_json::from_slice::<Json>(&out).unwrap(),
            json!({"new": {"x": true}})
        );
        assert!(ctx.write_member_json("other", &mut out).is_none());
        assert!(ctx.write_member_json("none", &mut out).is_none());
        assert_eq!(ctx.list_len("other"), Some(3));
        assert_eq!(ctx.list_len("env"), None);
        // Anything but an object reads as an empty Struct.
        for v in [json!(null), json!([1, {"a": 2}]), json!("s"), json!(3)] {
            assert_eq!(
                serde_json::from_value::<Struct>(v).unwrap(),
                Struct::default()
            );
        }
        // Keys JSON must escape, and a key written with escapes.
        let s: Struct = serde_json::from_str(r#"{"a\"b\\c\u00e9": "\ud83d\ude00"}"#).unwrap();
        assert_eq!(ours_json(&s), json!({"a\"b\\cé": "😀"}));
    }

    #[test]
    fn fixed_members_replace_the_given_ones() {
        let s: Struct =
            serde_json::from_value(json!({"apiVersion": "x/v1", "kind": "K", "resources": []}))
                .unwrap();
        let mut out = Vec::new();
        s.write_json(&mut out, &[("apiVersion", "a/v1"), ("kind", "R")])
            .unwrap();
        assert_eq!(
            std::str::from_utf8(&out).unwrap(),
            r#"{"apiVersion":"a/v1","kind":"R","resources":[]}"#
        );
    }
}
