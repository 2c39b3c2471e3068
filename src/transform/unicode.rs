//! Go's Unicode classes (`\pL`, `\p{Greek}`) and `(?i)` case folding for regexps, from
//! Go's own tables (`unicode_tables.rs`), as `regexp/syntax` applies them.

use super::unicode_tables as t;
use crate::semantics::Semantics;

/// Inclusive code point ranges.
pub(super) type Ranges = Vec<(u32, u32)>;

const MAX_RUNE: u32 = 0x10_FFFF;

/// `unicodeTable` and the table handling of `parseUnicodeClass`: the code points `\p{name}`
/// stands for (before its own `\P`/`^` negation), and whether they are to be negated;
/// `None` for a name Go does not know. Under `(?i)` a table Go folds (`FoldCategory`,
/// `FoldScript`, `Any`, `ASCII`) has its case orbits added before any negation.
///
/// `Function` looks names up as Go 1.25 and later do (case, `_`, `-` and spaces ignored;
/// the aliases `Letter`, `Uppercase_Letter`…; `Assigned`, `ASCII`, `Cn` and `LC`).
/// `Native` looks them up as the Go 1.21 that built Crossplane v1.14: exactly as
/// `unicode.Categories` and `unicode.Scripts` spell them, or `Any`, where `C` has no `Cn`.
pub(super) fn class(name: &str, sem: Semantics, fold: bool) -> Option<(Ranges, bool)> {
    let (ranges, folds, negated) = match sem {
        Semantics::Function => lookup(name)?,
        Semantics::Native => lookup_exact(name)?,
    };
    let ranges = if fold && folds {
        fold_ranges(&ranges)
    } else {
        ranges
    };
    Some((ranges, negated))
}

/// Go 1.25+ `unicodeTable`: (ranges, folds, negated).
fn lookup(name: &str) -> Option<(Ranges, bool, bool)> {
    let name = canonical_name(name);
    match name.as_str() {
        "Any" => return Some((vec![(0, MAX_RUNE)], true, false)),
        // Everything but Cn: the fold table is Cn itself, which adds nothing.
        "Assigned" => return Some((category("Cn", true)?, false, true)),
        // Go's own ASCII fold table is ASCII's orbits: with ſ and the Kelvin sign.
        "Ascii" => return Some((vec![(0, 0x7F)], true, false)),
        "Lc" => return Some((category("LC", true)?, false, false)),
        _ => {}
    }
    let resolve = |n: &str| {
        if let Some(r) = category(n, true) {
            return Some((r, t::FOLD_CATEGORIES.contains(&n), false));
        }
        script(n).map(|r| (r, t::FOLD_SCRIPTS.contains(&n), false))
    };
    resolve(&name)
        .or_else(|| resolve(alias(&name)?))
        .or_else(|| resolve(script_by_canonical_name(&name)?))
}

/// The category an alias stands for (`unicode.CategoryAliases`).
fn alias(canonical: &str) -> Option<&'static str> {
    let i = t::ALIASES
        .binary_search_by(|(k, _)| k.cmp(&canonical))
        .ok()?;
    Some(t::ALIASES[i].1)
}

/// The script whose name canonicalises to `canonical` (`Old_Italic` for `Olditalic`).
fn script_by_canonical_name(canonical: &str) -> Option<&'static str> {
    t::SCRIPTS
        .iter()
        .map(|&(n, _)| n)
        .find(|n| canonical_name(n) == canonical)
}

/// Go 1.21 `unicodeTable`: exact names, and none of the categories Go 1.25 added.
fn lookup_exact(name: &str) -> Option<(Ranges, bool, bool)> {
    if name == "Any" {
        return Some((vec![(0, MAX_RUNE)], true, false));
    }
    if name != "Cn"
        && name != "LC"
        && let Some(r) = category(name, false)
    {
        return Some((r, t::FOLD_CATEGORIES.contains(&name), false));
    }
    script(name).map(|r| (r, t::FOLD_SCRIPTS.contains(&name), false))
}

/// `regexp/syntax`'s `canonicalName`: `_`, `-` and spaces dropped, the first letter
/// upper case and the rest lower case (ASCII only).
fn canonical_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars().filter(|c| !matches!(c, '_' | '-' | ' ')) {
        out.push(if out.is_empty() {
            c.to_ascii_uppercase()
        } else {
            c.to_ascii_lowercase()
        });
    }
    out
}

/// A `unicode.Categories` table by its exact name. `with_cn`: whether `C` holds the
/// unassigned code points (Go 1.25 and later).
fn category(name: &str, with_cn: bool) -> Option<Ranges> {
    if let Some(r) = stored(t::CATEGORIES, t::CATEGORIES_START, name) {
        return Some(r);
    }
    t::DERIVED.binary_search(&name).ok()?;
    let union_of = |pick: &dyn Fn(&str) -> bool| {
        let mut r = Ranges::new();
        for (i, (n, _)) in t::CATEGORIES.iter().enumerate() {
            if pick(n) {
                r.extend(decode_at(t::CATEGORIES, t::CATEGORIES_START, i));
            }
        }
        normalize(r)
    };
    Some(match name {
        "Cn" => negate(&union_of(&|_| true)),
        "LC" => union_of(&|n| matches!(n, "Lu" | "Ll" | "Lt")),
        _ => {
            let mut r = union_of(&|n| n.starts_with(name));
            if name == "C" && with_cn {
                r.extend(negate(&union_of(&|_| true)));
                r = normalize(r);
            }
            r
        }
    })
}

/// A `unicode.Scripts` table by its exact name.
fn script(name: &str) -> Option<Ranges> {
    stored(t::SCRIPTS, t::SCRIPTS_START, name)
}

fn stored(list: &[(&str, u32)], start: u32, name: &str) -> Option<Ranges> {
    let i = list.binary_search_by(|(n, _)| n.cmp(&name)).ok()?;
    Some(decode_at(list, start, i))
}

/// The ranges of the `i`th table of `list`, decoded from `RANGES`' varints.
fn decode_at(list: &[(&str, u32)], start: u32, i: usize) -> Ranges {
    let from = if i == 0 { start } else { list[i - 1].1 };
    let mut bytes = t::RANGES[from as usize..list[i].1 as usize].iter();
    let mut varint = || {
        let mut v = 0u32;
        for shift in (0..).step_by(7) {
            let &b = bytes.next()?;
            v |= u32::from(b & 0x7F) << shift;
            if b < 0x80 {
                break;
            }
        }
        Some(v)
    };
    let mut out = Ranges::new();
    let mut next = 0;
    while let (Some(gap), Some(len)) = (varint(), varint()) {
        let lo = next + gap;
        out.push((lo, lo + len));
        next = lo + len + 1;
    }
    out
}

/// Sorted, with overlapping and adjacent ranges merged.
pub(super) fn normalize(mut ranges: Ranges) -> Ranges {
    crate::sort::sort_by(&mut ranges, Ord::cmp);
    let mut out: Ranges = Vec::with_capacity(ranges.len());
    for (lo, hi) in ranges {
        match out.last_mut() {
            Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
            _ => out.push((lo, hi)),
        }
    }
    out
}

/// The code points outside `ranges`, up to U+10FFFF.
pub(super) fn negate(ranges: &[(u32, u32)]) -> Ranges {
    let mut out = Vec::new();
    let mut next = 0u32;
    for &(lo, hi) in &normalize(ranges.to_vec()) {
        if lo > next {
            out.push((next, lo - 1));
        }
        next = next.max(hi.saturating_add(1));
    }
    if next <= MAX_RUNE {
        out.push((next, MAX_RUNE));
    }
    out
}

/// `unicode.SimpleFold`: the next code point of `c`'s case orbit.
fn simple_fold(c: u32) -> u32 {
    let i = t::FOLD.partition_point(|&(key, _)| key >> 11 <= c);
    let Some(&(key, delta)) = i.checked_sub(1).map(|i| &t::FOLD[i]) else {
        return c;
    };
    let (lo, count) = (key >> 11, key & 0x7FF);
    match delta {
        _ if c > lo + count => c,
        0 if (c - lo).is_multiple_of(2) => c + 1,
        0 => c - 1,
        d => c.wrapping_add_signed(d),
    }
}

/// Every character that `(?i)` matches for `c`: its `unicode.SimpleFold` orbit, `c` first.
pub(super) fn orbit(c: char) -> Vec<char> {
    let start = u32::from(c);
    let mut out = vec![c];
    let mut f = simple_fold(start);
    while f != start {
        out.extend(char::from_u32(f));
        f = simple_fold(f);
    }
    out
}

/// `appendFoldedRange` over each range: the ranges with the case orbits of their code
/// points added. Only code points `SimpleFold` moves can add any, so the fold runs that
/// meet a range are walked rather than the range.
pub(super) fn fold_ranges(ranges: &[(u32, u32)]) -> Ranges {
    let mut out = ranges.to_vec();
    for &(lo, hi) in ranges {
        let first = t::FOLD
            .partition_point(|&(key, _)| key >> 11 <= lo)
            .saturating_sub(1);
        for &(key, _) in &t::FOLD[first..] {
            let (run_lo, run_hi) = (key >> 11, (key >> 11) + (key & 0x7FF));
            if run_lo > hi {
                break;
            }
            for c in run_lo.max(lo)..=run_hi.min(hi) {
                let mut f = simple_fold(c);
                while f != c {
                    out.push((f, f));
                    f = simple_fold(f);
                }
            }
        }
    }
    normalize(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn orbits_are_go_simple_fold_cycles() {
        assert_eq!(orbit('k'), chars("k\u{212A}K"));
        assert_eq!(orbit('K'), chars("Kk\u{212A}"));
        assert_eq!(orbit('σ'), chars("σΣς"));
        assert_eq!(orbit('ß'), chars("ßẞ"));
        assert_eq!(orbit('ǅ'), chars("ǅǆǄ"));
        assert_eq!(orbit('İ'), chars("İ"));
        assert_eq!(orbit('1'), chars("1"));
        // Every orbit returns to where it started, and is the same set from each member.
        for c in (0..=MAX_RUNE).filter_map(char::from_u32) {
            let o = orbit(c);
            assert!(o.len() <= 4, "{c:?}");
            let mut sorted = o.clone();
            sorted.sort_unstable();
            for &m in &o {
                let mut other = orbit(m);
                other.sort_unstable();
                assert_eq!(other, sorted, "{c:?} {m:?}");
            }
        }
    }

    #[test]
    fn folded_ranges_add_orbits() {
        assert_eq!(
            fold_ranges(&[(u32::from('a'), u32::from('z'))]),
            vec![(0x41, 0x5A), (0x61, 0x7A), (0x17F, 0x17F), (0x212A, 0x212A)]
        );
        assert_eq!(fold_ranges(&[(0x30, 0x39)]), vec![(0x30, 0x39)]);
    }

    #[test]
    fn names_resolve_as_go_does() {
        let f = |n: &str| class(n, Semantics::Function, false).map(|(r, neg)| (r.len(), neg));
        let n = |n: &str| class(n, Semantics::Native, false).map(|(r, neg)| (r.len(), neg));
        assert!(f("L").is_some() && f("l").is_some() && f("Letter").is_some());
        assert_eq!(f("letter"), f("L"));
        assert_eq!(f("greek"), f("Greek"));
        assert_eq!(f("old italic"), f("Old_Italic"));
        assert_eq!(f("Assigned").map(|(_, neg)| neg), Some(true));
        assert!(f("Foo").is_none() && f("").is_none());
        assert_eq!(n("Greek"), f("Greek"));
        for name in [
            "greek",
            "Letter",
            "Cn",
            "LC",
            "ASCII",
            "Assigned",
            "Old Italic",
        ] {
            assert!(n(name).is_none(), "{name}");
        }
        // Go 1.25 put the unassigned code points in C.
        let (c_new, _) = class("C", Semantics::Function, false).unwrap();
        let (c_old, _) = class("C", Semantics::Native, false).unwrap();
        assert!(in_ranges(&c_new, 0x378) && !in_ranges(&c_old, 0x378));
        assert!(in_ranges(&c_old, 0x7F));
        // Lu, Ll and Lt make LC; Cn is everything the rest leave out.
        let (lc, _) = class("LC", Semantics::Function, false).unwrap();
        assert!(in_ranges(&lc, u32::from('ǅ')) && !in_ranges(&lc, u32::from('ª')));
        let (cn, _) = class("Cn", Semantics::Function, false).unwrap();
        assert!(in_ranges(&cn, 0x378) && !in_ranges(&cn, 0x41));
    }

    #[test]
    fn folding_follows_go_fold_tables() {
        let (lu, _) = class("Lu", Semantics::Function, true).unwrap();
        assert!(in_ranges(&lu, u32::from('a')) && in_ranges(&lu, 0x212A));
        // Nd has no fold table, nor (in Go) does LC, though U+0345 folds with ι.
        let (lc, _) = class("LC", Semantics::Function, true).unwrap();
        assert!(!in_ranges(&lc, 0x345));
        let (ascii, _) = class("ASCII", Semantics::Function, true).unwrap();
        assert_eq!(ascii, vec![(0, 0x7F), (0x17F, 0x17F), (0x212A, 0x212A)]);
    }

    fn in_ranges(r: &[(u32, u32)], c: u32) -> bool {
        r.iter().any(|&(lo, hi)| (lo..=hi).contains(&c))
    }
}
