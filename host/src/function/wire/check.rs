//! What prost accepts, or stricter, for a oneof member a later one replaces: the walk that
//! writes an entry checks everything else it reads.

use super::fields::{Field, fields};

pub(super) fn check_entry(bytes: &[u8]) -> bool {
    fields(bytes).all(|f| match f {
        Ok((1, Field::Bytes(key))) => utf8(key),
        Ok((2, Field::Bytes(value))) => check_value(value),
        Ok((1 | 2, _)) | Err(()) => false,
        Ok(_) => true,
    })
}

pub(super) fn check_value(bytes: &[u8]) -> bool {
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
pub(super) fn utf8(s: &[u8]) -> bool {
    s.is_ascii() || std::str::from_utf8(s).is_ok()
}

/// A Struct's entries or a ListValue's values: every field 1 a message `check` takes.
pub(super) fn check_repeated(bytes: &[u8], check: fn(&[u8]) -> bool) -> bool {
    fields(bytes).all(|f| match f {
        Ok((1, Field::Bytes(m))) => check(m),
        Ok((1, _)) | Err(()) => false,
        Ok(_) => true,
    })
}
