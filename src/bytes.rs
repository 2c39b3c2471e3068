//! Byte comparison a word at a time, the last partial word by overlapping
//! reads instead of a loop: the wasm builds' `memcmp` (`src/alloc.rs`), the
//! key comparisons of object lookups, inline, and the comparison of a kept
//! Composition's whole text with the request's.
//!
//! Under wasmtime's epoch interruption every loop turn and every call pays a
//! check of the deadline; a map lookup compares keys of a few bytes, so a
//! byte loop for the tail cost more than the words before it.

/// The eight bytes at `at`, little-endian: equal words are told apart without
/// the byte swap (no wasm instruction) that ordering them needs.
#[inline(always)]
fn word(s: &[u8], at: usize) -> u64 {
    s.get(at..at + 8)
        .and_then(|w| w.try_into().ok())
        .map_or(0, u64::from_le_bytes)
}

/// As [`word`], four bytes.
#[inline(always)]
fn half(s: &[u8], at: usize) -> u32 {
    s.get(at..at + 4)
        .and_then(|w| w.try_into().ok())
        .map_or(0, u32::from_le_bytes)
}

/// The order of two different little-endian words by their first differing
/// byte, the lowest: found from the lowest set bit of their difference (wasm
/// has no byte swap to compare them as big-endian words).
#[inline(always)]
fn order(x: u64, y: u64) -> i32 {
    let shift = (x ^ y).trailing_zeros() & !7;
    i32::from((x >> shift) as u8) - i32::from((y >> shift) as u8)
}

/// `memcmp` of `a` and `b`, which have the same length: the sign of the first
/// differing byte's difference, or 0.
///
/// A word that overlaps one already found equal is compared whole: its first
/// difference lies after the overlap, so the order is still that of the
/// first differing byte.
#[inline(always)]
pub(crate) fn compare(a: &[u8], b: &[u8]) -> i32 {
    let n = a.len().min(b.len());
    if n >= 8 {
        let mut i = 0;
        while i + 8 <= n {
            let (x, y) = (word(a, i), word(b, i));
            if x != y {
                return order(x, y);
            }
            i += 8;
        }
        if i == n {
            return 0;
        }
        let (x, y) = (word(a, n - 8), word(b, n - 8));
        return if x == y { 0 } else { order(x, y) };
    }
    if n >= 4 {
        // The two halves as one word, the first in the low bytes.
        let join = |s| u64::from(half(s, 0)) | u64::from(half(s, n - 4)) << 32;
        let (x, y) = (join(a), join(b));
        return if x == y { 0 } else { order(x, y) };
    }
    // Up to three single bytes, unrolled.
    for i in 0..3 {
        match (a.get(i), b.get(i)) {
            (Some(x), Some(y)) if x != y => return i32::from(*x) - i32::from(*y),
            (Some(_), Some(_)) => {}
            _ => return 0,
        }
    }
    0
}

/// The order of two byte strings, as `Ord` gives it for slices, compared
/// inline: a call to `memcmp` per key of a map search costs the call, and under
/// wasmtime's epoch interruption a deadline check at its entry, more than
/// comparing the few bytes of a key.
#[inline(always)]
pub(crate) fn order_of(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    // The browser build is generated for size: there, one call each.
    if cfg!(feature = "web") {
        return a.cmp(b);
    }
    compare(a, b).cmp(&0).then(a.len().cmp(&b.len()))
}

/// Whether two byte strings are equal, compared inline (see [`order_of`]).
#[inline(always)]
pub(crate) fn same(a: &[u8], b: &[u8]) -> bool {
    if cfg!(feature = "web") {
        return a == b;
    }
    a.len() == b.len() && compare(a, b) == 0
}

/// Whether `text` starts with `prefix`, compared 64 bytes per loop turn: a
/// kept Composition's text (tens of kilobytes) is compared whole with the
/// request on every render of it, and eight words folded into one test pay the
/// loop's branch, and the deadline check on each turn, once per 64 bytes.
pub(crate) fn starts_with(text: &[u8], prefix: &[u8]) -> bool {
    // The browser build is generated for size: there, one call.
    if cfg!(feature = "web") {
        return text.starts_with(prefix);
    }
    let Some(head) = text.get(..prefix.len()) else {
        return false;
    };
    let (a, b) = (head.chunks_exact(64), prefix.chunks_exact(64));
    let (ra, rb) = (a.remainder(), b.remainder());
    let differs = |x: &[u8], y: &[u8], at: usize| word(x, at) ^ word(y, at);
    a.zip(b).all(|(x, y)| {
        (differs(x, y, 0)
            | differs(x, y, 8)
            | differs(x, y, 16)
            | differs(x, y, 24)
            | differs(x, y, 32)
            | differs(x, y, 40)
            | differs(x, y, 48)
            | differs(x, y, 56))
            == 0
    }) && ra == rb
}

#[cfg(test)]
mod tests {
    use super::{compare, order_of, same, starts_with};

    #[test]
    fn starts_with_agrees_with_the_slice_method() {
        let text: Vec<u8> = (0..200u8).collect();
        for len in 0..=text.len() {
            for at in 0..len.max(1) {
                let mut prefix = text[..len].to_vec();
                assert!(starts_with(&text, &prefix));
                if let Some(b) = prefix.get_mut(at) {
                    *b ^= 1;
                    assert!(!starts_with(&text, &prefix), "{len} {at}");
                }
            }
        }
        assert!(!starts_with(&text[..5], &text[..6]));
    }

    /// The sign `memcmp` gives, from the slice order.
    fn expected(a: &[u8], b: &[u8]) -> i32 {
        match a.cmp(b) {
            std::cmp::Ordering::Less => -1,
            std::cmp::Ordering::Equal => 0,
            std::cmp::Ordering::Greater => 1,
        }
    }

    #[test]
    fn agrees_with_the_slice_order_at_every_length_and_position() {
        let base: Vec<u8> = (0..40u8).map(|i| i.wrapping_mul(37) | 1).collect();
        for n in 0..=base.len() {
            let a = &base[..n];
            assert_eq!(compare(a, a), 0, "equal, {n} bytes");
            for at in 0..n {
                for delta in [1u8, 0x7f, 0x80, 0xfe] {
                    let mut b = a.to_vec();
                    b[at] = b[at].wrapping_add(delta);
                    // Also a difference after the first one, which must not decide.
                    if at + 1 < n {
                        b[n - 1] ^= 0xff;
                    }
                    assert_eq!(
                        compare(a, &b).signum(),
                        expected(a, &b),
                        "{n} bytes, first difference at {at}, delta {delta}"
                    );
                    assert_eq!(compare(&b, a).signum(), expected(&b, a));
                }
            }
        }
    }

    #[test]
    fn orders_and_equates_as_slices_do() {
        let words: [&[u8]; 12] = [
            b"",
            b"a",
            b"ab",
            b"abc",
            b"abcdefgh",
            b"abcdefghi",
            b"abcdefgh\x00",
            b"b",
            b"spec",
            b"spec.forProvider",
            b"\xff",
            b"abcdefghijklmnopqrstuvwxyz0123456789",
        ];
        for a in words {
            for b in words {
                assert_eq!(order_of(a, b), a.cmp(b), "{a:?} against {b:?}");
                assert_eq!(same(a, b), a == b, "{a:?} against {b:?}");
            }
        }
    }
}
