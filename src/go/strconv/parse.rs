//! Go's `strconv.ParseInt`, `ParseBool` and `ParseFloat` (64-bit), with Go's error texts.

use std::fmt;

/// Go's `*strconv.NumError`: which function refused which text, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NumError {
    func: &'static str,
    num: String,
    range: bool,
}

impl fmt::Display for NumError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let why = if self.range {
            "value out of range"
        } else {
            "invalid syntax"
        };
        write!(
            f,
            "strconv.{}: parsing {}: {why}",
            self.func,
            super::quote(&self.num)
        )
    }
}

fn syntax(func: &'static str, s: &str) -> NumError {
    NumError {
        func,
        num: s.to_owned(),
        range: false,
    }
}

fn range(func: &'static str, s: &str) -> NumError {
    NumError {
        func,
        num: s.to_owned(),
        range: true,
    }
}

/// `strconv.ParseInt(s, 10, 64)`.
pub(crate) fn parse_int(s: &str) -> Result<i64, NumError> {
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'+') => (false, &s[1..]),
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() {
        return Err(syntax("ParseInt", s));
    }
    let mut n: u64 = 0;
    for c in digits.bytes() {
        if !c.is_ascii_digit() {
            return Err(syntax("ParseInt", s));
        }
        // ParseUint stops at the first overflow, before looking further.
        n = match n
            .checked_mul(10)
            .and_then(|n| n.checked_add(u64::from(c - b'0')))
        {
            Some(n) => n,
            None => return Err(range("ParseInt", s)),
        };
    }
    let cutoff = 1u64 << 63;
    if !neg && n >= cutoff || neg && n > cutoff {
        return Err(range("ParseInt", s));
    }
    #[allow(clippy::cast_possible_wrap)]
    let v = n as i64;
    Ok(if neg { v.wrapping_neg() } else { v })
}

/// `strconv.ParseBool`.
pub(crate) fn parse_bool(s: &str) -> Result<bool, NumError> {
    match s {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Ok(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Ok(false),
        _ => Err(syntax("ParseBool", s)),
    }
}

/// `strconv.ParseFloat(s, 64)`: decimal and hexadecimal forms, underscores
/// between digits, `inf`/`infinity`/`nan`; overflow is a range error.
pub(crate) fn parse_float(s: &str) -> Result<f64, NumError> {
    if let Some(f) = special(s) {
        return Ok(f);
    }
    let Some(r) = read_float(s) else {
        return Err(syntax("ParseFloat", s));
    };
    let f = if r.hex {
        hex_value(&r)
    } else {
        let cleaned: String = s.chars().filter(|&c| c != '_').collect();
        super::parse_f64(&cleaned).ok_or_else(|| syntax("ParseFloat", s))?
    };
    if f.is_infinite() {
        return Err(range("ParseFloat", s));
    }
    Ok(f)
}

/// `inf`, `infinity` (any case, optional sign) and `nan` (no sign), the
/// whole string.
fn special(s: &str) -> Option<f64> {
    let lower = s.to_ascii_lowercase();
    match lower.as_str() {
        "inf" | "+inf" | "infinity" | "+infinity" => Some(f64::INFINITY),
        "-inf" | "-infinity" => Some(f64::NEG_INFINITY),
        "nan" => Some(f64::NAN),
        _ => None,
    }
}

struct Read {
    mantissa: u64,
    exp: i64,
    neg: bool,
    trunc: bool,
    hex: bool,
}

/// `readFloat`, requiring the whole string to be consumed.
fn read_float(s: &str) -> Option<Read> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut underscores = false;
    let mut neg = false;
    match b.first()? {
        b'+' => i += 1,
        b'-' => {
            neg = true;
            i += 1;
        }
        _ => {}
    }
    let mut base: u64 = 10;
    let mut max_mant_digits = 19;
    let mut exp_char = b'e';
    let mut hex = false;
    if i + 2 < b.len() && b[i] == b'0' && b[i + 1].eq_ignore_ascii_case(&b'x') {
        base = 16;
        max_mant_digits = 16;
        i += 2;
        exp_char = b'p';
        hex = true;
    }
    let (mut sawdot, mut sawdigits) = (false, false);
    let (mut nd, mut nd_mant, mut dp): (i64, i64, i64) = (0, 0, 0);
    let mut mantissa: u64 = 0;
    let mut trunc = false;
    while i < b.len() {
        let c = b[i];
        let lc = c.to_ascii_lowercase();
        if c == b'_' {
            underscores = true;
        } else if c == b'.' {
            if sawdot {
                break;
            }
            sawdot = true;
            dp = nd;
        } else if c.is_ascii_digit() {
            sawdigits = true;
            if c == b'0' && nd == 0 {
                dp -= 1;
            } else {
                nd += 1;
                if nd_mant < max_mant_digits {
                    mantissa = mantissa * base + u64::from(c - b'0');
                    nd_mant += 1;
                } else if c != b'0' {
                    trunc = true;
                }
            }
        } else if base == 16 && (b'a'..=b'f').contains(&lc) {
            sawdigits = true;
            nd += 1;
            if nd_mant < max_mant_digits {
                mantissa = mantissa * 16 + u64::from(lc - b'a' + 10);
                nd_mant += 1;
            } else {
                trunc = true;
            }
        } else {
            break;
        }
        i += 1;
    }
    if !sawdigits {
        return None;
    }
    if !sawdot {
        dp = nd;
    }
    if base == 16 {
        dp *= 4;
        nd_mant *= 4;
    }
    if i < b.len() && b[i].to_ascii_lowercase() == exp_char {
        i += 1;
        if i >= b.len() {
            return None;
        }
        let mut esign = 1;
        if b[i] == b'+' {
            i += 1;
        } else if b[i] == b'-' {
            i += 1;
            esign = -1;
        }
        if i >= b.len() || !b[i].is_ascii_digit() {
            return None;
        }
        let mut e: i64 = 0;
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
            if b[i] == b'_' {
                underscores = true;
            } else if e < 10000 {
                e = e * 10 + i64::from(b[i] - b'0');
            }
            i += 1;
        }
        dp += e * esign;
    } else if base == 16 {
        return None;
    }
    let exp = if mantissa != 0 { dp - nd_mant } else { 0 };
    if underscores && !underscore_ok(&s[..i]) {
        return None;
    }
    if i != b.len() {
        return None;
    }
    Some(Read {
        mantissa,
        exp,
        neg,
        trunc,
        hex,
    })
}

/// `underscoreOK`: underscores only between digits (or after a base prefix).
fn underscore_ok(s: &str) -> bool {
    let mut b = s.as_bytes();
    if let Some(b'+' | b'-') = b.first() {
        b = &b[1..];
    }
    let mut saw = b'^';
    let mut i = 0;
    let mut hex = false;
    if b.len() >= 2 && b[0] == b'0' && matches!(b[1].to_ascii_lowercase(), b'b' | b'o' | b'x') {
        i = 2;
        saw = b'0';
        hex = b[1].eq_ignore_ascii_case(&b'x');
    }
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_digit() || hex && (b'a'..=b'f').contains(&c.to_ascii_lowercase()) {
            saw = b'0';
        } else if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
        } else {
            if saw == b'_' {
                return false;
            }
            saw = b'!';
        }
        i += 1;
    }
    saw != b'_'
}

/// `atofHex` for float64: round to nearest even, with the sticky bit.
fn hex_value(r: &Read) -> f64 {
    const MANTBITS: i64 = 52;
    const BIAS: i64 = -1023;
    let max_exp = (1 << 11) + BIAS - 2;
    let min_exp = BIAS + 1;
    let mut mantissa = r.mantissa;
    let mut exp = r.exp + MANTBITS;
    while mantissa != 0 && mantissa >> (MANTBITS + 2) == 0 {
        mantissa <<= 1;
        exp -= 1;
    }
    if r.trunc {
        mantissa |= 1;
    }
    while mantissa >> (1 + MANTBITS + 2) != 0 {
        mantissa = mantissa >> 1 | mantissa & 1;
        exp += 1;
    }
    while mantissa > 1 && exp < min_exp - 2 {
        mantissa = mantissa >> 1 | mantissa & 1;
        exp += 1;
    }
    let mut round = mantissa & 3;
    mantissa >>= 2;
    round |= mantissa & 1;
    exp += 2;
    if round == 3 {
        mantissa += 1;
        if mantissa == 1 << (1 + MANTBITS) {
            mantissa >>= 1;
            exp += 1;
        }
    }
    if mantissa >> MANTBITS == 0 {
        exp = BIAS;
    }
    let inf = exp > max_exp;
    let mut bits = if inf {
        #[allow(clippy::cast_sign_loss)]
        let e = ((max_exp + 1 - BIAS) & 0x7FF) as u64;
        e << MANTBITS
    } else {
        #[allow(clippy::cast_sign_loss)]
        let e = ((exp - BIAS) & 0x7FF) as u64;
        mantissa & ((1 << MANTBITS) - 1) | e << MANTBITS
    };
    if r.neg {
        bits |= 1 << 63;
    }
    f64::from_bits(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats() {
        assert_eq!(parse_float("0x1p-2"), Ok(0.25));
        assert_eq!(parse_float("1_000.5"), Ok(1000.5));
        assert_eq!(parse_float("-0x1.8p1"), Ok(-3.0));
        assert_eq!(parse_float(".5"), Ok(0.5));
        assert_eq!(parse_float("5."), Ok(5.0));
        assert!(parse_float("1e400").is_err());
        assert!(parse_float("1__0").is_err());
        assert!(parse_float("0x1").is_err());
        assert!(parse_float("+nan").is_err());
        assert_eq!(parse_float("-Infinity"), Ok(f64::NEG_INFINITY));
    }

    #[test]
    fn ints() {
        assert_eq!(parse_int("-9223372036854775808"), Ok(i64::MIN));
        assert!(parse_int("9223372036854775808").is_err());
        assert!(parse_int("1_000").is_err());
        assert_eq!(parse_int("+007"), Ok(7));
    }
}
