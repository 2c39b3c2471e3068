//! The order members are written in: their keys' bytes.

/// Keys in byte order, compared inline: most are a few bytes long, and differ in the first
/// eight.
#[inline(always)]
pub(super) fn key_order(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
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
