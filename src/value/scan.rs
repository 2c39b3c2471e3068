//! Finding the next byte of a set in JSON text: the reader, the writer and the
//! locator all spend their time skipping runs of bytes that need no attention.

const ONES: u64 = 0x0101_0101_0101_0101;
const TOPS: u64 = 0x8080_8080_8080_8080;

/// A lookup table of bytes: those in `bytes`, and every control byte (below
/// 0x20) when `controls` is set.
pub(crate) const fn byte_set(controls: bool, bytes: &[u8]) -> [bool; 256] {
    let mut set = [false; 256];
    let mut c = 0;
    while controls && c < 0x20 {
        set[c] = true;
        c += 1;
    }
    let mut i = 0;
    while i < bytes.len() {
        set[bytes[i] as usize] = true;
        i += 1;
    }
    set
}

/// The index of the first byte at or after `from` in `set`; `None` when there
/// is none or `from` is past the end.
///
/// Eight bytes at a time while a whole word is left (wasm has no vector scan
/// here): `word` flags the bytes of `set` in a little-endian word by their top
/// bit, built from [`eq`] and [`control`], which are exact from the lowest
/// flagged byte up. Then one table lookup per byte.
#[inline(always)]
pub(crate) fn find(
    b: &[u8],
    from: usize,
    set: &[bool; 256],
    word: impl Fn(u64) -> u64,
) -> Option<usize> {
    let mut i = from;
    // Exact chunks: no bounds check per word (a `get` of each word costs one).
    let mut words = b.get(from..)?.chunks_exact(8);
    for w in words.by_ref() {
        let w = u64::from_le_bytes(w.try_into().unwrap_or_default());
        let flags = word(w) & TOPS;
        if flags != 0 {
            return Some(i + (flags.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    let rest = words.remainder();
    rest.iter().position(|&c| set[c as usize]).map(|n| i + n)
}

/// The bytes of `w` equal to `c`, flagged by their top bit (exact from the
/// lowest flagged byte up: a borrow only reaches bytes above a true match).
#[inline(always)]
pub(crate) fn eq(w: u64, c: u8) -> u64 {
    let x = w ^ (ONES * u64::from(c));
    x.wrapping_sub(ONES) & !x
}

/// The control bytes (below 0x20) of `w`, flagged as [`eq`] flags.
#[inline(always)]
pub(crate) fn control(w: u64) -> u64 {
    w.wrapping_sub(ONES * 0x20) & !w
}

#[cfg(test)]
mod tests {
    use super::{byte_set, control, eq, find};

    #[test]
    fn finds_the_first_byte_of_the_set_from_any_start() {
        const SET: [bool; 256] = byte_set(true, b"\"\\");
        let word = |w| control(w) | eq(w, b'"') | eq(w, b'\\');
        let texts: [&[u8]; 6] = [
            b"abcdefghijklmnopqrstuvwxyz0123456789",
            b"\"a\\b\"cdefgh\"\"ijk\nlm\\",
            b"\x7f\x1f\x20\x21\x22\x23\x5b\x5c\x5d\xe2\x80\xa8",
            b"!#!#!#!#!#!#!#!#",
            b"\"\"\"\"\"\"\"\"\"",
            b"",
        ];
        for text in texts {
            for len in 0..=text.len() {
                let b = &text[..len];
                for from in 0..=len + 1 {
                    let want = b
                        .get(from..)
                        .and_then(|r| r.iter().position(|&c| SET[c as usize]))
                        .map(|n| from + n);
                    assert_eq!(find(b, from, &SET, word), want, "{b:?} from {from}");
                }
            }
        }
        // The writer's scan, over every byte value at every place in a short text.
        for len in 1..=12 {
            for at in 0..len {
                for c in 0..=255u8 {
                    let mut b = vec![b'a'; len];
                    b[at] = c;
                    let want = b.iter().position(|&c| {
                        matches!(
                            c,
                            0..=0x1f | b'"' | b'\\' | b'<' | b'>' | b'&' | 0xe2 | 0xf4
                        )
                    });
                    assert_eq!(super::super::json::may_escape(&b, 0), want, "{b:?}");
                }
            }
        }
    }
}
