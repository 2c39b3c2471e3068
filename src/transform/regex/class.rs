//! Character classes: bracketed, Perl, POSIX and Unicode classes as Go reads them, and
//! the escapes and literals they are written with.

use super::{SyntaxError, go_error};
use crate::semantics::Semantics;
use crate::transform::unicode::{self, Ranges};

/// `parseUnicodeClass`: `\pN`, `\p{Name}`, `\PN`, `\P{Name}`, `\p{^Name}` at the start
/// of `t` → (its code points, whether they are negated, bytes read). Go reports an
/// unknown name as a bad range, with the class as written (all of `t` when no `}`
/// closes it).
pub(super) fn unicode_class(
    t: &str,
    sem: Semantics,
    fold: bool,
) -> Result<(Ranges, bool, usize), SyntaxError> {
    let mut negated = t.as_bytes().get(1) == Some(&b'P');
    let (seq, name) = match t[2..].chars().next() {
        Some('{') => {
            let Some(end) = t.find('}') else {
                return Err(go_error("invalid character class range", t));
            };
            (&t[..=end], &t[3..end])
        }
        Some(c) => (&t[..2 + c.len_utf8()], &t[2..2 + c.len_utf8()]),
        None => (t, ""),
    };
    let name = match name.strip_prefix('^') {
        Some(name) => {
            negated = !negated;
            name
        }
        None => name,
    };
    let Some((ranges, table_negated)) = unicode::class(name, sem, fold) else {
        return Err(go_error("invalid character class range", seq));
    };
    Ok((ranges, negated != table_negated, seq.len()))
}

/// `parseEscape`: a single-character escape → (rune, bytes consumed).
pub(super) fn parse_escape(t: &str) -> Result<(char, usize), SyntaxError> {
    let Some(c) = t[1..].chars().next() else {
        return Err(go_error("trailing backslash at end of expression", ""));
    };
    let mut j = 1 + c.len_utf8();
    let invalid = |j: usize| go_error("invalid escape sequence", &t[..j.min(t.len())]);
    let b = t.as_bytes();
    let octal = |k: usize| b.get(k).is_some_and(|d| (b'0'..=b'7').contains(d));
    match c {
        '1'..='7' if !octal(j) => Err(invalid(j)),
        '0'..='7' => {
            let mut r = u32::from(c) - u32::from('0');
            for _ in 0..2 {
                if !octal(j) {
                    break;
                }
                r = r * 8 + u32::from(b[j] - b'0');
                j += 1;
            }
            Ok((char::from_u32(r).unwrap_or('\u{FFFD}'), j))
        }
        'x' => {
            let Some(c1) = t[j..].chars().next() else {
                return Err(invalid(j));
            };
            j += c1.len_utf8();
            if c1 == '{' {
                let mut r: u32 = 0;
                let mut nhex = 0;
                loop {
                    let Some(d) = t[j..].chars().next() else {
                        return Err(invalid(j));
                    };
                    j += d.len_utf8();
                    if d == '}' {
                        break;
                    }
                    let Some(v) = d.to_digit(16) else {
                        return Err(invalid(j));
                    };
                    r = r * 16 + v;
                    if r > 0x10_FFFF {
                        return Err(invalid(j));
                    }
                    nhex += 1;
                }
                if nhex == 0 {
                    return Err(invalid(j));
                }
                return Ok((char::from_u32(r).unwrap_or('\u{FFFD}'), j));
            }
            let c2 = t[j..].chars().next();
            if let Some(c2) = c2 {
                j += c2.len_utf8();
            }
            match (c1.to_digit(16), c2.and_then(|c| c.to_digit(16))) {
                (Some(x), Some(y)) => Ok((char::from_u32(x * 16 + y).unwrap_or('\0'), j)),
                _ => Err(invalid(j)),
            }
        }
        'a' => Ok(('\u{7}', j)),
        'f' => Ok(('\u{c}', j)),
        'n' => Ok(('\n', j)),
        'r' => Ok(('\r', j)),
        't' => Ok(('\t', j)),
        'v' => Ok(('\u{b}', j)),
        c if c.is_ascii() && !c.is_ascii_alphanumeric() => Ok((c, j)),
        _ => Err(invalid(j)),
    }
}

/// Go's ASCII Perl classes: (ranges, negated).
pub(super) fn perl_class(c: char) -> (Ranges, bool) {
    let ranges = match c.to_ascii_lowercase() {
        'd' => vec![(0x30, 0x39)],
        // Go's \s has no \v.
        's' => vec![(0x09, 0x0A), (0x0C, 0x0D), (0x20, 0x20)],
        _ => vec![(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)],
    };
    (ranges, c.is_ascii_uppercase())
}

/// POSIX classes `[:name:]` (ASCII), as Go defines them.
fn posix_class(name: &str) -> Option<Ranges> {
    Some(match name {
        "alnum" => vec![(0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A)],
        "alpha" => vec![(0x41, 0x5A), (0x61, 0x7A)],
        "ascii" => vec![(0x00, 0x7F)],
        "blank" => vec![(0x09, 0x09), (0x20, 0x20)],
        "cntrl" => vec![(0x00, 0x1F), (0x7F, 0x7F)],
        "digit" => vec![(0x30, 0x39)],
        "graph" => vec![(0x21, 0x7E)],
        "lower" => vec![(0x61, 0x7A)],
        "print" => vec![(0x20, 0x7E)],
        "punct" => vec![(0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)],
        "space" => vec![(0x09, 0x0D), (0x20, 0x20)],
        "upper" => vec![(0x41, 0x5A)],
        "word" => vec![(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)],
        "xdigit" => vec![(0x30, 0x39), (0x41, 0x46), (0x61, 0x66)],
        _ => return None,
    })
}

/// A Perl or POSIX class inside brackets (`appendGroup`): folded under `(?i)`, then
/// negated.
fn group(ranges: Ranges, negated: bool, fold: bool) -> Ranges {
    let ranges = if fold {
        unicode::fold_ranges(&ranges)
    } else {
        ranges
    };
    if negated {
        unicode::negate(&ranges)
    } else {
        ranges
    }
}

/// `parseClass`: `[...]` starting at byte `i` → (emitted class, next index).
pub(super) fn parse_class(
    s: &str,
    i: usize,
    fold: bool,
    sem: Semantics,
) -> Result<(String, usize), SyntaxError> {
    let whole = &s[i..];
    let mut j = i + 1;
    let mut negated = false;
    if s[j..].starts_with('^') {
        negated = true;
        j += 1;
    }
    // Classes, complete as they are; and characters and ranges, folded at the end.
    let mut ranges: Ranges = Vec::new();
    let mut chars: Ranges = Vec::new();
    let mut first = true;
    loop {
        let t = &s[j..];
        if t.starts_with(']') && !first {
            j += 1;
            break;
        }
        first = false;
        if t.len() > 2
            && t.starts_with("[:")
            && let Some(k) = t[2..].find(":]")
        {
            let name = &t[..k + 4];
            let (inner, neg) = match name[2..name.len() - 2].strip_prefix('^') {
                Some(n) => (n, true),
                None => (&name[2..name.len() - 2], false),
            };
            let Some(r) = posix_class(inner) else {
                return Err(go_error("invalid character class range", name));
            };
            ranges.extend(group(r, neg, fold));
            j += name.len();
            continue;
        }
        if t.starts_with("\\p") || t.starts_with("\\P") {
            let (r, neg, len) = unicode_class(t, sem, fold)?;
            ranges.extend(if neg { unicode::negate(&r) } else { r });
            j += len;
            continue;
        }
        if let Some(c @ ('d' | 'D' | 's' | 'S' | 'w' | 'W')) =
            t.strip_prefix('\\').and_then(|r| r.chars().next())
        {
            let (r, neg) = perl_class(c);
            ranges.extend(group(r, neg, fold));
            j += 2;
            continue;
        }
        let (lo, len) = class_char(t, whole)?;
        let mut hi = lo;
        let mut k = j + len;
        let after = &s[k..];
        if after.len() >= 2 && after.starts_with('-') && !after[1..].starts_with(']') {
            let (h, len2) = class_char(&after[1..], whole)?;
            hi = h;
            k += 1 + len2;
            if hi < lo {
                return Err(go_error("invalid character class range", &s[j..k]));
            }
        }
        chars.push((u32::from(lo), u32::from(hi)));
        j = k;
    }
    ranges.extend(if fold {
        unicode::fold_ranges(&chars)
    } else {
        chars
    });
    Ok((emit_class(ranges, negated), j))
}

/// `parseClassChar`: one (possibly escaped) character inside a class.
fn class_char(t: &str, whole: &str) -> Result<(char, usize), SyntaxError> {
    match t.chars().next() {
        None => Err(go_error("missing closing ]", whole)),
        Some('\\') => parse_escape(t),
        Some(c) => Ok((c, c.len_utf8())),
    }
}

/// A class regex-lite reads unambiguously: `\x{..}` ranges, no surrogates.
/// Negation is left to regex-lite so that `(?i)` folds before negating, as in Go.
pub(super) fn emit_class(ranges: Ranges, negated: bool) -> String {
    let mut out = String::from(if negated { "[^" } else { "[" });
    let mut any = false;
    for (lo, hi) in unicode::normalize(ranges) {
        for (lo, hi) in [(lo, hi.min(0xD7FF)), (lo.max(0xE000), hi)] {
            if lo == hi {
                out.push_str(&format!("\\x{{{lo:X}}}"));
            } else if lo < hi {
                out.push_str(&format!("\\x{{{lo:X}}}-\\x{{{hi:X}}}"));
            }
            any |= lo <= hi;
        }
    }
    if !any {
        // Go accepts an empty class: it never matches (or, negated, matches anything).
        return if negated {
            r"(?s:.)".to_owned()
        } else {
            r"(?:\b\B)".to_owned()
        };
    }
    out.push(']');
    out
}

/// A literal character as regex-lite cannot misread it.
pub(super) fn literal(c: char) -> String {
    if c.is_ascii_alphanumeric() {
        c.to_string()
    } else if (0xD800..=0xDFFF).contains(&u32::from(c)) {
        r"(?:\b\B)".to_owned()
    } else {
        format!("\\x{{{:X}}}", u32::from(c))
    }
}
