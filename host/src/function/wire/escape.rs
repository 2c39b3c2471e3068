//! Strings as JSON strings.

/// A string's bytes (checked UTF-8) as a JSON string: quotes, backslashes and control
/// characters escaped, everything else as it is.
pub(super) fn string(out: &mut Vec<u8>, s: &[u8]) {
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
pub(super) fn escaped_from(s: &[u8], from: usize) -> Option<usize> {
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
