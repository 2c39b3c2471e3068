//! Go's `strings.ToUpper`/`ToLower`: per-rune simple case mapping (`unicode.ToUpper`).

/// `strings.ToUpper`.
pub(crate) fn to_upper(s: &str) -> String {
    s.chars().map(upper_char).collect()
}

/// `strings.ToLower`.
pub(crate) fn to_lower(s: &str) -> String {
    s.chars().map(lower_char).collect()
}

/// `unicode.ToUpper`: Rust's full mapping where it is one rune (then it is
/// the simple mapping); otherwise the simple mapping of UnicodeData.txt.
pub(crate) fn upper_char(c: char) -> char {
    let mut it = c.to_uppercase();
    if let (Some(u), None) = (it.next(), it.next()) {
        return u;
    }
    let cp = u32::from(c);
    let simple = match cp {
        // Greek with ypogegrammeni: the simple uppercase is the titlecase form.
        0x1F80..=0x1F87 | 0x1F90..=0x1F97 | 0x1FA0..=0x1FA7 => cp + 8,
        0x1FB3 => 0x1FBC,
        0x1FC3 => 0x1FCC,
        0x1FF3 => 0x1FFC,
        // ß, ŉ, ǰ, ΐ, ΰ, և, ẖ…ẚ, ligatures and the rest: no simple mapping.
        _ => cp,
    };
    char::from_u32(simple).unwrap_or(c)
}

/// `unicode.ToLower`.
pub(crate) fn lower_char(c: char) -> char {
    let mut it = c.to_lowercase();
    if let (Some(l), None) = (it.next(), it.next()) {
        return l;
    }
    // Only U+0130 (İ) lowercases to more than one rune; its simple mapping is `i`.
    if c == '\u{130}' { 'i' } else { c }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_mappings() {
        assert_eq!(to_upper("straße ǅ ᾳ ﬀ"), "STRAßE Ǆ ᾼ ﬀ");
        assert_eq!(to_lower("İSTANBUL ΣΑΣ ǅ K"), "istanbul σασ ǆ k");
    }
}
