//! Go's `time.Parse(time.RFC3339, ...)` as Kubernetes decodes a `metav1.Time`.

/// An RFC 3339 time as Kubernetes writes a `metav1.Time`: UTC, whole seconds
/// (`2024-01-01T00:00:00Z`). `None` when `t` is not RFC 3339.
pub(crate) fn utc(t: &str) -> Option<String> {
    let (yr, mo, d, rem) = parse(t)?;
    Some(format!(
        "{yr:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    ))
}

/// Whether `t` is RFC 3339 (what [`utc`] accepts), without writing it out:
/// readiness checks ask this of every condition's time on every render.
pub(crate) fn is_valid(t: &str) -> bool {
    plainly_valid(t) || parse(t).is_some()
}

/// Whether `t` is `YYYY-MM-DDTHH:MM:SSZ` with a day below 29 and no leap
/// second: the form Kubernetes writes, valid RFC 3339 in every month and
/// year, told without parsing its numbers (a condition's time is checked on
/// every render). `false` says nothing: other times are parsed.
fn plainly_valid(t: &str) -> bool {
    let &[
        y0,
        y1,
        y2,
        y3,
        b'-',
        m0,
        m1,
        b'-',
        d0,
        d1,
        b'T',
        h0,
        h1,
        b':',
        i0,
        i1,
        b':',
        s0,
        s1,
        b'Z',
    ] = t.as_bytes()
    else {
        return false;
    };
    let digits = [y0, y1, y2, y3, m0, m1, d0, d1, h0, h1, i0, i1, s0, s1];
    if !digits.iter().all(u8::is_ascii_digit) {
        return false;
    }
    let two = |a: u8, b: u8| (a - b'0') * 10 + (b - b'0');
    (1..=12).contains(&two(m0, m1))
        && (1..=28).contains(&two(d0, d1))
        && two(h0, h1) <= 23
        && two(i0, i1) <= 59
        && two(s0, s1) <= 59
}

/// The UTC year, month, day and second of the day of an RFC 3339 time.
fn parse(t: &str) -> Option<(i64, i64, i64, i64)> {
    let (secs, _) = instant(t)?;
    // Back to a civil date in UTC.
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let yr = yoe + era * 400 + i64::from(mo <= 2);
    if !(0..=9999).contains(&yr) {
        return None;
    }
    Some((yr, mo, d, rem))
}

/// The instant an RFC 3339 time names: seconds since the Unix epoch and the
/// nanoseconds Go keeps (the first nine fraction digits), for comparing times
/// as `time.Time.After` and `Equal` do.
pub(crate) fn instant(t: &str) -> Option<(i64, u32)> {
    let b = t.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let s = t.get(r)?;
        if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    };
    let sep = |i: usize, c: u8| b.get(i) == Some(&c);
    if !(sep(4, b'-')
        && sep(7, b'-')
        && matches!(b.get(10), Some(b'T' | b't'))
        && sep(13, b':')
        && sep(16, b':'))
    {
        return None;
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut i = 19;
    let mut nanos = 0u32;
    if sep(i, b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return None;
        }
        // Go reads nine digits at most and drops the rest.
        for k in 0..9 {
            let digit = if start + k < i {
                b[start + k] - b'0'
            } else {
                0
            };
            nanos = nanos * 10 + u32::from(digit);
        }
    }
    let offset = match b.get(i) {
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(c @ (b'+' | b'-')) if i + 6 == b.len() && sep(i + 3, b':') => {
            let (oh, om) = (num(i + 1..i + 3)?, num(i + 4..i + 6)?);
            if oh > 23 || om > 59 {
                return None;
            }
            let m = oh * 60 + om;
            if *c == b'+' { m } else { -m }
        }
        _ => return None,
    };
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    if day < 1 || day > days_in_month || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    // Seconds since the epoch, via days from the civil date (proleptic Gregorian).
    let (y, m) = if month <= 2 {
        (year - 1, month + 9)
    } else {
        (year, month - 3)
    };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * m + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + hour * 3600 + minute * 60 + second.min(59) - offset * 60;
    Some((secs, nanos))
}

#[cfg(test)]
mod tests {
    use super::{plainly_valid, utc};

    /// What the shortcut accepts, the parser accepts.
    #[test]
    fn plainly_valid_times_are_valid() {
        for t in [
            "2024-01-01T00:00:00Z",
            "0000-02-28T23:59:59Z",
            "9999-12-28T12:30:45Z",
            "2024-13-01T00:00:00Z",
            "2024-00-01T00:00:00Z",
            "2024-02-29T00:00:00Z",
            "2024-01-00T00:00:00Z",
            "2024-01-01T24:00:00Z",
            "2024-01-01T00:60:00Z",
            "2024-01-01T00:00:60Z",
            "2024-01-01t00:00:00Z",
            "2024-01-01T00:00:00z",
            "2024-01-01T00:00:00+00:00",
            "2024-0a-01T00:00:00Z",
            "",
        ] {
            if plainly_valid(t) {
                assert!(super::parse(t).is_some(), "{t}");
            }
        }
        assert!(plainly_valid("2024-01-01T00:00:00Z"));
        assert!(!plainly_valid("2024-02-29T00:00:00Z"));
    }

    #[test]
    fn instants_keep_nine_fraction_digits_and_the_offset() {
        use super::instant;
        assert_eq!(instant("1970-01-01T00:00:00Z"), Some((0, 0)));
        assert_eq!(
            instant("1970-01-01T01:00:00.5+01:00"),
            Some((0, 500_000_000))
        );
        assert_eq!(
            instant("1970-01-01T00:00:01.1234567891Z"),
            Some((1, 123_456_789))
        );
        assert_eq!(instant("1970-01-01T00:00:00"), None);
    }

    #[test]
    fn now_is_normalised_to_utc_seconds() {
        for (input, want) in [
            ("2024-01-01T00:00:00Z", Some("2024-01-01T00:00:00Z")),
            ("2024-01-01T00:00:00.123456Z", Some("2024-01-01T00:00:00Z")),
            ("2024-01-01T01:30:00+02:00", Some("2023-12-31T23:30:00Z")),
            ("2024-02-28T23:00:00-01:00", Some("2024-02-29T00:00:00Z")),
            ("2023-02-29T00:00:00Z", None),
            ("2024-01-01 00:00:00Z", None),
            ("2024-01-01T00:00:00", None),
            ("yesterday", None),
            ("2024-13-01T00:00:00Z", None),
        ] {
            assert_eq!(utc(input).as_deref(), want, "{input}");
            assert_eq!(super::is_valid(input), want.is_some(), "{input}");
        }
    }
}
