//! Go strings are bytes; the engine's are UTF-8. A byte that is not part of valid UTF-8 (after a
//! base64 `Decode`, or a `Join` that cut a character) is kept as one character of its own in
//! Unicode's last private-use block, U+10FF80 to U+10FFFF for bytes 0x80 to 0xFF, so that:
//! - it counts as one rune, as Go counts an invalid byte (`%.3s`, widths, `ReplaceAll("")`);
//! - hashes, base64, `%x` and `%q` (`"\xc3"`) see the byte itself ([`to_bytes`]);
//! - JSON output writes it as Go's encoder does, `\ufffd` (`value::json`), and case mapping as
//!   `strings.Map` does, U+FFFD ([`to_valid`]).
//!
//! Such a character given in an input is read as the byte it stands for: that block holds only
//! private-use code points and two noncharacters, which no Kubernetes object is expected to carry.

use std::borrow::Cow;

/// The code point standing for byte 0x00 (bytes below 0x80 are always valid UTF-8).
const BASE: u32 = 0x10_FF00;

/// The byte a character stands for, if it is one of the raw-byte characters.
#[inline]
pub(crate) fn raw_byte(c: char) -> Option<u8> {
    let n = u32::from(c);
    if (BASE + 0x80..=BASE + 0xFF).contains(&n) {
        u8::try_from(n - BASE).ok()
    } else {
        None
    }
}

/// Whether `s` holds a raw-byte character (UTF-8 F4 8F BE/BF xx).
#[inline]
pub(crate) fn has_raw(s: &str) -> bool {
    s.as_bytes()
        .windows(3)
        .any(|w| w[0] == 0xF4 && w[1] == 0x8F && (w[2] == 0xBE || w[2] == 0xBF))
}

/// A Go string's bytes as an engine string: valid UTF-8 as it is, every other byte as its
/// raw-byte character (one per byte, as Go's decoder reads one `RuneError` per byte).
pub(crate) fn from_bytes(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => {
            let bytes = e.into_bytes();
            let mut out = String::with_capacity(bytes.len() + 8);
            let mut rest = &bytes[..];
            while !rest.is_empty() {
                match std::str::from_utf8(rest) {
                    Ok(s) => {
                        out.push_str(s);
                        break;
                    }
                    Err(e) => {
                        let (valid, tail) = rest.split_at(e.valid_up_to());
                        out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                        if let Some(&b) = tail.first() {
                            out.push(char::from_u32(BASE + u32::from(b)).unwrap_or('\u{FFFD}'));
                        }
                        rest = tail.get(1..).unwrap_or_default();
                    }
                }
            }
            out
        }
    }
}

/// The Go string's bytes: each raw-byte character as its byte.
pub(crate) fn to_bytes(s: &str) -> Cow<'_, [u8]> {
    if !has_raw(s) {
        return Cow::Borrowed(s.as_bytes());
    }
    let mut out = Vec::with_capacity(s.len());
    let mut buf = [0u8; 4];
    for c in s.chars() {
        match raw_byte(c) {
            Some(b) => out.push(b),
            None => out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes()),
        }
    }
    Cow::Owned(out)
}

/// The string as valid UTF-8 the way Go re-encodes it: each raw byte as U+FFFD.
pub(crate) fn to_valid(s: &str) -> Cow<'_, str> {
    if !has_raw(s) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        s.chars()
            .map(|c| if raw_byte(c).is_some() { '\u{FFFD}' } else { c })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_bytes_round_trip_one_character_each() {
        let bytes = vec![b'a', 0xC3, b'b', 0xE2, 0x82, 0xFF, 0xF0, 0x9F, 0x98, 0x80];
        let s = from_bytes(bytes.clone());
        assert_eq!(
            s.chars().count(),
            7,
            "a, C3, b, E2, 82, FF, then one valid emoji"
        );
        assert!(has_raw(&s));
        assert_eq!(&*to_bytes(&s), &bytes[..]);
        assert_eq!(to_valid(&s), "a\u{FFFD}b\u{FFFD}\u{FFFD}\u{FFFD}😀");
        assert_eq!(from_bytes(b"plain".to_vec()), "plain");
        assert!(!has_raw("plain é 😀 \u{10FF7F}"));
        assert_eq!(raw_byte('\u{10FFC3}'), Some(0xC3));
        assert_eq!(raw_byte('\u{10FF7F}'), None);
    }
}
