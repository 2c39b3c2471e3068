//! The scalar rules of go-yaml v2's emitter, which sigs.k8s.io/yaml (and so `crossplane
//! render` and kubectl) writes with: which style a string gets, how each style is spelled and
//! folded at 80 columns, how floats print, and the order map keys are written in.
//!
//! serde-saphyr lays out the documents; these rules give the scalars go-yaml's bytes where the
//! library's own choices differ (it neither folds long scalars nor formats floats as Go does).

use std::cmp::Ordering;

/// go-yaml's preferred line width: plain and quoted scalars break at a space past it.
const BEST_WIDTH: usize = 80;

/// How go-yaml writes a string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    /// A `|` block; only for values, never keys.
    Literal,
}

/// Whether go-yaml writes `s` as a simple `key: value` key rather than after `? `.
pub(super) fn is_simple_key(s: &str) -> bool {
    s.len() <= 128 && !s.chars().any(is_break)
}

/// The style go-yaml picks for `s`, as a simple mapping key or as a value in block context.
pub(super) fn style(s: &str, key: bool) -> Style {
    let wanted = if s.contains('\n') {
        Style::Literal
    } else if resolves_to_string(s) && !is_base60_float(s) {
        Style::Plain
    } else {
        Style::DoubleQuoted
    };
    let a = Analysis::of(s);
    match wanted {
        Style::Plain if !a.block_plain || (s.is_empty() && key) => {
            if a.single_quoted {
                Style::SingleQuoted
            } else {
                Style::DoubleQuoted
            }
        }
        Style::Literal if !a.block || key => Style::DoubleQuoted,
        other => other,
    }
}

/// What go-yaml's scalar analysis allows for a string (block context).
struct Analysis {
    block_plain: bool,
    single_quoted: bool,
    block: bool,
}

impl Analysis {
    fn of(s: &str) -> Analysis {
        if s.is_empty() {
            return Analysis {
                block_plain: true,
                single_quoted: true,
                block: false,
            };
        }
        let mut indicators = s.starts_with("---") || s.starts_with("...");
        let (mut special, mut line_breaks) = (false, false);
        let (mut space_break, mut break_space) = (false, false);
        let (mut prev_space, mut prev_break) = (false, false);
        let mut preceded_by_blank = true;
        let chars: Vec<char> = s.chars().collect();
        for (i, &c) in chars.iter().enumerate() {
            let followed_by_blank = chars
                .get(i + 1)
                .is_none_or(|&n| n == ' ' || n == '\t' || is_break(n));
            indicators |= match (i, c) {
                (
                    0,
                    '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"'
                    | '%' | '@' | '`',
                ) => true,
                (0, '?' | ':' | '-') | (1.., ':') => followed_by_blank,
                (1.., '#') => preceded_by_blank,
                _ => false,
            };
            special |= !is_printable(c);
            if c == ' ' {
                break_space |= prev_break;
                (prev_space, prev_break) = (true, false);
            } else if is_break(c) {
                line_breaks = true;
                space_break |= prev_space;
                (prev_space, prev_break) = (false, true);
            } else {
                (prev_space, prev_break) = (false, false);
            }
            preceded_by_blank = c == ' ' || c == '\t' || is_break(c) || c == '\0';
        }
        let first = chars[0];
        let last = chars[chars.len() - 1];
        let edge_blank = first == ' ' || is_break(first) || last == ' ' || is_break(last);
        Analysis {
            block_plain: !(edge_blank
                || break_space
                || space_break
                || special
                || line_breaks
                || indicators),
            single_quoted: !(break_space || space_break || special),
            block: !(last == ' ' || space_break || special),
        }
    }
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// go-yaml's printable set; it leaves out every character beyond the Basic Multilingual Plane.
fn is_printable(c: char) -> bool {
    matches!(c, '\n' | ' '..='~' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}')
        && c != '\u{FEFF}'
}

/// Whether go-yaml reads `s`, unquoted, back as this string (not a null, bool, number,
/// timestamp).
fn resolves_to_string(s: &str) -> bool {
    if matches!(
        s,
        "" | "~"
            | "null"
            | "Null"
            | "NULL"
            | "y"
            | "Y"
            | "yes"
            | "Yes"
            | "YES"
            | "n"
            | "N"
            | "no"
            | "No"
            | "NO"
            | "true"
            | "True"
            | "TRUE"
            | "false"
            | "False"
            | "FALSE"
            | "on"
            | "On"
            | "ON"
            | "off"
            | "Off"
            | "OFF"
            | ".nan"
            | ".NaN"
            | ".NAN"
            | ".inf"
            | ".Inf"
            | ".INF"
            | "+.inf"
            | "+.Inf"
            | "+.INF"
            | "-.inf"
            | "-.Inf"
            | "-.INF"
    ) {
        return false;
    }
    match s.as_bytes()[0] {
        b'.' => !go_parses_float(s),
        b'0'..=b'9' | b'+' | b'-' => {
            if is_timestamp(s) {
                return false;
            }
            let plain = s.replace('_', "");
            !(go_parses_int(&plain) || (is_yaml_float(&plain) && go_parses_float(&plain)))
        }
        _ => true,
    }
}

/// `strconv.ParseInt(s, 0, 64)` or `ParseUint` succeeds (sign, 0x/0o/0b prefixes, leading-0
/// octal); the value range is not checked, as out-of-range integers still read as floats.
fn go_parses_int(s: &str) -> bool {
    let unsigned = s.strip_prefix(['+', '-']).unwrap_or(s);
    let (digits, radix) = match unsigned.as_bytes() {
        [b'0', b'x' | b'X', ..] => (&unsigned[2..], 16),
        [b'0', b'o' | b'O', ..] => (&unsigned[2..], 8),
        [b'0', b'b' | b'B', ..] => (&unsigned[2..], 2),
        [b'0', _, ..] => (&unsigned[1..], 8),
        _ => (unsigned, 10),
    };
    let fits = if radix == 10 {
        // Out of int64 and uint64 range: not an int, then read as a float by the caller.
        s.parse::<i64>().is_ok() || s.strip_prefix('+').unwrap_or(s).parse::<u64>().is_ok()
    } else {
        u64::from_str_radix(digits, radix).is_ok()
    };
    !digits.is_empty() && digits.chars().all(|c| c.is_digit(radix)) && fits
}

/// `strconv.ParseFloat(s, 64)` succeeds without a range error (decimal forms and Go's
/// inf/nan spellings; hexadecimal floats are left out: go-yaml never reaches them here).
fn go_parses_float(s: &str) -> bool {
    let unsigned = s.strip_prefix(['+', '-']).unwrap_or(s).to_ascii_lowercase();
    if matches!(unsigned.as_str(), "inf" | "infinity" | "nan") {
        return true;
    }
    is_yaml_float(s) && s.parse::<f64>().is_ok_and(f64::is_finite)
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`
fn is_yaml_float(s: &str) -> bool {
    let s = s.strip_prefix(['+', '-']).unwrap_or(s);
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", frac)) => digits(frac),
        Some((whole, frac)) => digits(whole) && (frac.is_empty() || digits(frac)),
        None => digits(mantissa),
    };
    mantissa_ok && exponent.is_none_or(|e| digits(e.strip_prefix(['+', '-']).unwrap_or(e)))
}

/// `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`: go-yaml quotes these for YAML 1.1
/// readers.
fn is_base60_float(s: &str) -> bool {
    let s = s.strip_prefix(['+', '-']).unwrap_or(s);
    let (whole, frac) = match s.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (s, None),
    };
    let mut parts = whole.split(':');
    let head = parts.next().unwrap_or("");
    let head_ok = head.as_bytes().first().is_some_and(u8::is_ascii_digit)
        && head.bytes().all(|b| b.is_ascii_digit() || b == b'_');
    let mut sexagesimal = 0;
    for p in parts {
        let ok = match p.as_bytes() {
            [d] => d.is_ascii_digit(),
            [t, d] => (b'0'..=b'5').contains(t) && d.is_ascii_digit(),
            _ => false,
        };
        if !ok {
            return false;
        }
        sexagesimal += 1;
    }
    head_ok
        && sexagesimal > 0
        && frac.is_none_or(|f| f.bytes().all(|b| b.is_ascii_digit() || b == b'_'))
}

/// Whether go-yaml's `time.Parse` of the layouts it tries accepts `s`: `2006-1-2`,
/// `2006-1-2T15:4:5.999999999Z07:00` (`t` too) or `2006-1-2 15:4:5.999999999`.
fn is_timestamp(s: &str) -> bool {
    fn number(s: &str, min: usize, max: usize) -> Option<(u32, &str)> {
        let n = s.bytes().take_while(u8::is_ascii_digit).count();
        if !(min..=max).contains(&n) {
            return None;
        }
        Some((s[..n].parse().ok()?, &s[n..]))
    }
    let date = || -> Option<(u32, u32, u32, &str)> {
        let (y, r) = number(s, 4, 4)?;
        let (m, r) = number(r.strip_prefix('-')?, 1, 2)?;
        let (d, r) = number(r.strip_prefix('-')?, 1, 2)?;
        Some((y, m, d, r))
    };
    let Some((year, month, day, rest)) = date() else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    if day == 0 || day > days {
        return false;
    }
    if rest.is_empty() {
        return true;
    }
    let (zoned, rest) = match rest.as_bytes()[0] {
        b'T' | b't' => (true, &rest[1..]),
        b' ' => (false, &rest[1..]),
        _ => return false,
    };
    let time = || -> Option<&str> {
        let (h, r) = number(rest, 1, 2)?;
        let (m, r) = number(r.strip_prefix(':')?, 1, 2)?;
        let (sec, r) = number(r.strip_prefix(':')?, 1, 2)?;
        if h > 23 || m > 59 || sec > 59 {
            return None;
        }
        match r.strip_prefix(['.', ',']) {
            Some(f) if f.starts_with(|c: char| c.is_ascii_digit()) => {
                Some(f.trim_start_matches(|c: char| c.is_ascii_digit()))
            }
            _ => Some(r),
        }
    };
    let Some(zone) = time() else { return false };
    if !zoned {
        return zone.is_empty();
    }
    if zone == "Z" {
        return true;
    }
    let Some(offset) = zone.strip_prefix(['+', '-']) else {
        return false;
    };
    let b = offset.as_bytes();
    b.len() == 5 && b[2] == b':' && [0, 1, 3, 4].iter().all(|&i| b[i].is_ascii_digit())
}

/// Writes `s` in `style` (not `Literal`) the way go-yaml does, starting at `column`; a plain
/// or quoted value breaks at a space past column 80 onto a line indented by `indent`. Keys
/// never break. Returns the column after the text.
pub(super) fn write_scalar(
    out: &mut String,
    s: &str,
    style: Style,
    mut column: usize,
    indent: usize,
    key: bool,
) -> usize {
    let chars: Vec<char> = s.chars().collect();
    let may_fold = !key;
    let put = |out: &mut String, column: &mut usize, c: char| {
        out.push(c);
        *column += 1;
    };
    let fold = |out: &mut String, column: &mut usize| {
        out.push('\n');
        out.extend(std::iter::repeat_n(' ', indent));
        *column = indent;
    };
    let mut spaces = false;
    let mut breaks = false;
    match style {
        Style::Plain | Style::SingleQuoted | Style::Literal => {
            let quoted = style == Style::SingleQuoted;
            if quoted {
                put(out, &mut column, '\'');
            }
            for (i, &c) in chars.iter().enumerate() {
                if c == ' ' {
                    // A quoted scalar keeps its first and last character on their lines.
                    let inner = !quoted || (i > 0 && i + 1 < chars.len());
                    let next_space = chars.get(i + 1) == Some(&' ');
                    if may_fold && !spaces && column > BEST_WIDTH && inner && !next_space {
                        fold(out, &mut column);
                    } else {
                        put(out, &mut column, c);
                    }
                    spaces = true;
                } else if is_break(c) {
                    // Only a single-quoted scalar holds breaks other than `\n`: written as
                    // they are, the next character indented.
                    out.push(c);
                    column = 0;
                    breaks = true;
                } else {
                    if breaks {
                        out.extend(std::iter::repeat_n(' ', indent.saturating_sub(column)));
                        column = column.max(indent);
                        breaks = false;
                    }
                    if quoted && c == '\'' {
                        put(out, &mut column, '\'');
                    }
                    put(out, &mut column, c);
                    spaces = false;
                }
            }
            if quoted {
                put(out, &mut column, '\'');
            }
        }
        Style::DoubleQuoted => {
            put(out, &mut column, '"');
            // A leading byte-order mark makes go-yaml escape every character.
            let escape_all = s.starts_with('\u{FEFF}');
            for (i, &c) in chars.iter().enumerate() {
                if escape_all || !is_printable(c) || is_break(c) || c == '"' || c == '\\' {
                    for e in escape(c).chars() {
                        put(out, &mut column, e);
                    }
                    spaces = false;
                } else if c == ' ' {
                    let inner = i > 0 && i + 1 < chars.len();
                    if may_fold && !spaces && column > BEST_WIDTH && inner {
                        fold(out, &mut column);
                        if chars.get(i + 1) == Some(&' ') {
                            put(out, &mut column, '\\');
                        }
                    } else {
                        put(out, &mut column, c);
                    }
                    spaces = true;
                } else {
                    put(out, &mut column, c);
                    spaces = false;
                }
            }
            put(out, &mut column, '"');
        }
    }
    column
}

/// go-yaml's escape for a character in a double-quoted scalar.
fn escape(c: char) -> String {
    let named = match c {
        '\0' => '0',
        '\u{7}' => 'a',
        '\u{8}' => 'b',
        '\t' => 't',
        '\n' => 'n',
        '\u{b}' => 'v',
        '\u{c}' => 'f',
        '\r' => 'r',
        '\u{1b}' => 'e',
        '"' => '"',
        '\\' => '\\',
        '\u{85}' => 'N',
        '\u{a0}' => '_',
        '\u{2028}' => 'L',
        '\u{2029}' => 'P',
        _ => {
            let v = u32::from(c);
            return if v <= 0xFF {
                format!("\\x{v:02X}")
            } else if v <= 0xFFFF {
                format!("\\u{v:04X}")
            } else {
                format!("\\U{v:08X}")
            };
        }
    };
    format!("\\{named}")
}

/// How go-yaml writes a JSON number read from `text`: integers that fit int64 or uint64 as
/// they are (`-0` as `0`), anything else as a float in Go's shortest `%g` form.
pub(super) fn number_text(text: &str) -> String {
    if let Ok(i) = text.parse::<i64>() {
        return i.to_string();
    }
    if let Ok(u) = text.parse::<u64>() {
        return u.to_string();
    }
    match text.parse::<f64>() {
        Ok(f) if f.is_finite() => format_float(f),
        // ParseFloat's range error leaves the text a string, which go-yaml writes plain.
        _ => text.to_string(),
    }
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)`, with go-yaml's `.inf`/`.nan` spellings.
pub(super) fn format_float(f: f64) -> String {
    if f.is_nan() {
        return ".nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { ".inf" } else { "-.inf" }.into();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // Rust's `{:e}` gives the shortest round-trip digits, like Go's shortest mode.
    let e = format!("{:e}", f.abs());
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if f < 0.0 { "-" } else { "" };
    if !(-4..6).contains(&exp) {
        let (head, tail) = digits.split_at(1);
        let frac = if tail.is_empty() {
            String::new()
        } else {
            format!(".{tail}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{head}{frac}e{esign}{:02}", exp.abs());
    }
    let s = if exp < 0 {
        format!(
            "0.{}{digits}",
            "0".repeat(usize::try_from(-exp - 1).unwrap_or(0))
        )
    } else {
        let point = usize::try_from(exp + 1).unwrap_or(0);
        if digits.len() <= point {
            format!("{digits}{}", "0".repeat(point - digits.len()))
        } else {
            format!("{}.{}", &digits[..point], &digits[point..])
        }
    };
    format!("{sign}{s}")
}

/// go-yaml's order of string keys: digit runs compare as numbers, and a non-letter sorts
/// before a letter.
pub(super) fn key_order(a: &str, b: &str) -> Ordering {
    let (ar, br): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    for i in 0..ar.len().min(br.len()) {
        if ar[i] == br[i] {
            continue;
        }
        let (al, bl) = (ar[i].is_alphabetic(), br[i].is_alphabetic());
        if al && bl {
            return ar[i].cmp(&br[i]);
        }
        if al || bl {
            return if bl {
                Ordering::Less
            } else {
                Ordering::Greater
            };
        }
        // A run of digits compares by value; a zero after other digits keeps them significant.
        let mut an: i64 = 0;
        let mut bn: i64 = 0;
        if (ar[i] == '0' || br[i] == '0')
            && ar[..i]
                .iter()
                .rev()
                .take_while(|c| c.is_ascii_digit())
                .any(|&c| c != '0')
        {
            (an, bn) = (1, 1);
        }
        let run = |r: &[char], mut n: i64| {
            let mut j = i;
            while j < r.len() && r[j].is_ascii_digit() {
                n = n
                    .wrapping_mul(10)
                    .wrapping_add(i64::from(u32::from(r[j]) - 48));
                j += 1;
            }
            (n, j)
        };
        let ((an, ai), (bn, bi)) = (run(&ar, an), run(&br, bn));
        if an != bn {
            return an.cmp(&bn);
        }
        if ai != bi {
            return ai.cmp(&bi);
        }
        return ar[i].cmp(&br[i]);
    }
    ar.len().cmp(&br.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_and_numbers_are_quoted_as_go_yaml_quotes_them() {
        for (s, want) in [
            ("2024-01-01T00:00:00Z", Style::DoubleQuoted),
            ("2024-1-2", Style::DoubleQuoted),
            ("2024-01-01t10:00:00.5+02:00", Style::DoubleQuoted),
            ("2024-01-01 10:00:00", Style::DoubleQuoted),
            ("2024-01-01T10:00:00", Style::Plain),
            ("2024-02-30", Style::Plain),
            ("2024-01-01x", Style::Plain),
            ("20240101", Style::DoubleQuoted),
            ("1:30", Style::DoubleQuoted),
            ("08", Style::DoubleQuoted),
            ("1e400", Style::Plain),
            ("<<", Style::Plain),
            ("nan", Style::Plain),
            ("x: y", Style::SingleQuoted),
            ("a\tb", Style::DoubleQuoted),
            ("a\nb", Style::Literal),
            ("a \nb", Style::DoubleQuoted),
        ] {
            assert_eq!(style(s, false), want, "{s:?}");
        }
    }

    #[test]
    fn floats_print_as_go_prints_them() {
        for (f, want) in [
            (1.0, "1"),
            (1.5, "1.5"),
            (100_000.0, "100000"),
            (1e6, "1e+06"),
            (1_234_567.0, "1.234567e+06"),
            (0.0001, "0.0001"),
            (0.000_01, "1e-05"),
            (-2.5, "-2.5"),
            (f64::INFINITY, ".inf"),
        ] {
            assert_eq!(format_float(f), want, "{f}");
        }
        assert_eq!(number_text("-0"), "0");
        assert_eq!(number_text("18446744073709551615"), "18446744073709551615");
        assert_eq!(
            number_text("18446744073709551616"),
            "1.8446744073709552e+19"
        );
    }

    #[test]
    fn keys_sort_in_go_yaml_order() {
        let mut keys = vec!["a10", "a9", "AB", "A_", "b", "_x", "a01", "a1"];
        keys.sort_by(|a, b| key_order(a, b));
        assert_eq!(keys, ["_x", "A_", "AB", "a1", "a01", "a9", "a10", "b"]);
    }
}
