//! Durations as Go's `time.ParseDuration` reads them (`crossplane render --timeout`, and the
//! `duration` format of Kubernetes schemas): `300ms`, `1.5h`, `2h45m`, `1µs`, a bare `0`, an
//! optional sign; units `ns`, `us` (`µs`, `μs`), `ms`, `s`, `m`, `h`. Errors are Go's texts.

const NANOS_PER: [(&str, u64); 8] = [
    ("ns", 1),
    ("us", 1_000),
    ("\u{b5}s", 1_000),
    ("\u{3bc}s", 1_000),
    ("ms", 1_000_000),
    ("s", 1_000_000_000),
    ("m", 60_000_000_000),
    ("h", 3_600_000_000_000),
];

/// The largest magnitude a Go duration (an int64 of nanoseconds) holds, negated.
const LIMIT: u64 = 1 << 63;

/// Parses `s` as Go does, to signed nanoseconds.
///
/// # Errors
/// Go's message: `time: invalid duration "…"`, `time: missing unit in duration "…"` or
/// `time: unknown unit "…" in duration "…"`.
pub(crate) fn parse_nanos(s: &str) -> Result<i64, String> {
    let invalid = || format!("time: invalid duration {}", quote(s));
    let (negative, mut rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if rest == "0" {
        return Ok(0);
    }
    if rest.is_empty() {
        return Err(invalid());
    }
    let mut total: u64 = 0;
    while !rest.is_empty() {
        if !rest.starts_with(|c: char| c == '.' || c.is_ascii_digit()) {
            return Err(invalid());
        }
        let int_len = rest.bytes().take_while(u8::is_ascii_digit).count();
        let whole = leading_int(&rest[..int_len]).ok_or_else(invalid)?;
        rest = &rest[int_len..];
        let (mut frac, mut scale, mut frac_len) = (0u64, 1f64, 0);
        if let Some(after) = rest.strip_prefix('.') {
            frac_len = after.bytes().take_while(u8::is_ascii_digit).count();
            (frac, scale) = leading_fraction(&after[..frac_len]);
            rest = &after[frac_len..];
        }
        if int_len == 0 && frac_len == 0 {
            return Err(invalid());
        }
        let unit_len = rest
            .find(|c: char| c == '.' || c.is_ascii_digit())
            .unwrap_or(rest.len());
        if unit_len == 0 {
            return Err(format!("time: missing unit in duration {}", quote(s)));
        }
        let unit = &rest[..unit_len];
        rest = &rest[unit_len..];
        let Some(&(_, nanos)) = NANOS_PER.iter().find(|(u, _)| *u == unit) else {
            return Err(format!(
                "time: unknown unit {} in duration {}",
                quote(unit),
                quote(s)
            ));
        };
        if whole > LIMIT / nanos {
            return Err(invalid());
        }
        let mut v = whole * nanos;
        if frac > 0 {
            // Go adds the fraction through a float64, exact to the nanosecond for an hour.
            #[allow(
                clippy::cast_precision_loss,
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss
            )]
            let part = (frac as f64 * (nanos as f64 / scale)) as u64;
            v = v
                .checked_add(part)
                .filter(|v| *v <= LIMIT)
                .ok_or_else(invalid)?;
        }
        total = total
            .checked_add(v)
            .filter(|t| *t <= LIMIT)
            .ok_or_else(invalid)?;
    }
    if negative {
        // -(1<<63) is the smallest int64.
        return Ok(0i64.wrapping_sub_unsigned(total));
    }
    i64::try_from(total).map_err(|_| invalid())
}

/// Digits as a `u64` no larger than 2^63, as Go's `leadingInt`.
fn leading_int(digits: &str) -> Option<u64> {
    digits.bytes().try_fold(0u64, |x, c| {
        if x > LIMIT / 10 {
            return None;
        }
        Some(x * 10 + u64::from(c - b'0')).filter(|x| *x <= LIMIT)
    })
}

/// Fraction digits and their scale, dropping the digits past int64 precision as Go does.
fn leading_fraction(digits: &str) -> (u64, f64) {
    let (mut x, mut scale) = (0u64, 1f64);
    for c in digits.bytes() {
        if x > (LIMIT - 1) / 10 {
            break;
        }
        let y = x * 10 + u64::from(c - b'0');
        if y > LIMIT {
            break;
        }
        x = y;
        scale *= 10.0;
    }
    (x, scale)
}

/// Go's `time.quote`: double quotes, `\"` and `\\` escaped, every byte of a non-ASCII or
/// control character as `\xNN`.
fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        if c.is_ascii() && c >= ' ' {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("\\x{b:02x}"));
            }
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_forms_read_as_go_reads_them() {
        for (s, nanos) in [
            ("0", 0),
            ("-0", 0),
            ("+0", 0),
            ("0s", 0),
            ("300ms", 300_000_000),
            ("1m30s", 90_000_000_000),
            ("1.5h", 5_400_000_000_000),
            ("2h45m", 9_900_000_000_000),
            ("1µs", 1_000),
            ("1μs", 1_000),
            ("1us", 1_000),
            ("1ns", 1),
            (".5s", 500_000_000),
            ("1.s", 1_000_000_000),
            ("-1.5m", -90_000_000_000),
            ("+2s", 2_000_000_000),
            ("1h1m1s1ms1us1ns", 3_661_001_001_001),
            ("0.333333333333333333333s", 333_333_333),
            ("9223372036854775807ns", i64::MAX),
            ("-9223372036854775808ns", i64::MIN),
            ("2562047h47m16.854775807s", i64::MAX),
        ] {
            assert_eq!(parse_nanos(s), Ok(nanos), "{s}");
        }
    }

    #[test]
    fn invalid_forms_fail_with_go_messages() {
        for (s, msg) in [
            ("", r#"time: invalid duration """#),
            ("-", r#"time: invalid duration "-""#),
            ("s", r#"time: invalid duration "s""#),
            (".s", r#"time: invalid duration ".s""#),
            ("-.s", r#"time: invalid duration "-.s""#),
            ("1", r#"time: missing unit in duration "1""#),
            ("1.5", r#"time: missing unit in duration "1.5""#),
            ("1s2", r#"time: missing unit in duration "1s2""#),
            ("1d", r#"time: unknown unit "d" in duration "1d""#),
            ("1 s", r#"time: unknown unit " s" in duration "1 s""#),
            ("1S", r#"time: unknown unit "S" in duration "1S""#),
            (
                "1µx",
                r#"time: unknown unit "\xc2\xb5x" in duration "1\xc2\xb5x""#,
            ),
            ("soon", r#"time: invalid duration "soon""#),
            ("1h-1m", r#"time: unknown unit "h-" in duration "1h-1m""#),
            (
                "9223372036854775808ns",
                r#"time: invalid duration "9223372036854775808ns""#,
            ),
            ("2562048h", r#"time: invalid duration "2562048h""#),
            (
                "99999999999999999999s",
                r#"time: invalid duration "99999999999999999999s""#,
            ),
        ] {
            assert_eq!(parse_nanos(s), Err(msg.to_string()), "{s:?}");
        }
    }
}
