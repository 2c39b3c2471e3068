//! Protobuf's merge rules over a Struct's bytes: a message given in pieces, a oneof's last
//! member, a map entry's last key.

use super::check::{check_entry, check_repeated, check_value, utf8};
use super::fields::{Field, Fields, fields};

/// A message given in one or more pieces: a message field given again is both, concatenated.
#[derive(Default)]
pub(super) struct Pieces<'a> {
    pub(super) first: Option<&'a [u8]>,
    pub(super) more: Vec<&'a [u8]>,
}

impl<'a> Pieces<'a> {
    pub(super) fn one(piece: &'a [u8]) -> Self {
        Pieces {
            first: Some(piece),
            more: Vec::new(),
        }
    }

    pub(super) fn push(&mut self, piece: &'a [u8]) {
        match self.first {
            None => self.first = Some(piece),
            Some(_) => self.more.push(piece),
        }
    }

    /// The fields of all pieces, in order (a piece's reading ends at bytes that are not a
    /// field, which the check on decoding has let through only where prost skips them).
    pub(super) fn fields(&self) -> PieceFields<'a, '_> {
        PieceFields {
            current: fields(self.first.unwrap_or_default()),
            more: self.more.iter(),
            bad: false,
        }
    }
}

/// [`Pieces::fields`]: a loop rather than a chain of adapters, which the writer's every value
/// and entry goes through.
pub(super) struct PieceFields<'a, 'p> {
    current: Fields<'a>,
    more: std::slice::Iter<'p, &'a [u8]>,
    /// Whether a piece's reading ended at bytes that are not a field.
    pub(super) bad: bool,
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
pub(super) enum Kind<'a> {
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
pub(super) fn kind<'a>(pieces: &Pieces<'a>, invalid: &mut bool) -> Kind<'a> {
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
pub(super) fn entry_parts<'a>(entry: &'a [u8], invalid: &mut bool) -> (&'a [u8], Pieces<'a>) {
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
