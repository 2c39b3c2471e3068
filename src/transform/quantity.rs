//! Kubernetes `resource.ParseQuantity` and `Quantity.AsApproximateFloat64`.
//!
//! The value is kept, as apimachinery keeps it, as an integer and a decimal
//! scale (`int64Amount` on the fast path, `inf.Dec` otherwise); the float is
//! then `float64(unscaled) * math.Pow10(exponent)`, which fixes its last bits.

const ERR_FORMAT: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const ERR_SUFFIX: &str = "unable to parse quantity's suffix";
const ERR_NUMERIC: &str = "unable to parse numeric part of quantity";

/// Digits held by an int64 (`maxInt64Factors`).
const MAX_INT64_FACTORS: i64 = 18;
/// The smallest scale kept: nano.
const NANO: i64 = -9;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    DecimalExponent,
    DecimalSI,
    BinarySI,
}

/// `ParseQuantity(s).AsApproximateFloat64()`.
pub(crate) fn parse_approximate_f64(s: &str) -> Result<f64, &'static str> {
    if s.is_empty() {
        return Err(ERR_FORMAT);
    }
    if s == "0" {
        return Ok(0.0);
    }
    let p = parse_quantity_string(s)?;
    let (base, exponent, format) = interpret(p.suffix).ok_or(ERR_SUFFIX)?;

    let mut scale: i64 = 0;
    let mut mantissa: i64 = 1;
    let precision = match format {
        Format::DecimalExponent | Format::DecimalSI => {
            scale = exponent;
            MAX_INT64_FACTORS - (p.num.len() + p.denom.len()) as i64
        }
        Format::BinarySI => {
            if exponent >= 0 && p.denom.is_empty() {
                mantissa <<= exponent;
                15 - p.num.len() as i64 - exponent * 3 / 10 - 1
            } else {
                -1
            }
        }
    };
    if precision >= 0 {
        scale -= p.denom.len() as i64;
        if scale >= NANO {
            // Joined by hand: `format!` costs a formatter pass per call.
            let mut shifted = String::with_capacity(p.num.len() + p.denom.len());
            shifted.push_str(p.num);
            shifted.push_str(p.denom);
            let value: i64 = shifted.parse().map_err(|_| ERR_NUMERIC)?;
            if let Some(result) = value.checked_mul(mantissa) {
                let result = if p.positive { result } else { -result };
                return Ok(approximate(result as f64, scale));
            }
        }
    }

    // The arbitrary-precision path (`inf.Dec`).
    let (neg, mut digits, mut scale) = dec_set_string(p.value).ok_or(ERR_NUMERIC)?;
    if base == 10 {
        scale -= exponent;
    } else {
        mul_small(&mut digits, 1u64 << exponent);
    }
    // Round non-zero values up (in magnitude) to a whole nano.
    if !digits.is_empty() {
        if scale > -NANO {
            round_up_drop(&mut digits, scale + NANO);
            scale = -NANO;
        } else if scale < -NANO {
            let grow = -NANO - scale;
            // Beyond float64's range either way: don't build the digits.
            if digits.len() as i64 + grow > 340 {
                return Ok(if neg {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                });
            }
            digits.extend(std::iter::repeat_n(0, grow as usize));
            scale = -NANO;
        }
    }
    if format == Format::BinarySI {
        // Capped at 2^63-1.
        let max: Vec<u8> = "9223372036854775807".bytes().map(|b| b - b'0').collect();
        let mut max_scaled = max.clone();
        if scale > 0 {
            max_scaled.extend(std::iter::repeat_n(0, scale as usize));
        }
        if scale >= 0 && cmp_digits(&digits, &max_scaled) == std::cmp::Ordering::Greater {
            digits = max;
            scale = 0;
        }
    }
    let text: String = digits.iter().map(|d| char::from(b'0' + d)).collect();
    let mut base_f: f64 = if text.is_empty() {
        0.0
    } else {
        crate::go::strconv::parse_f64(&text).unwrap_or(f64::INFINITY)
    };
    // A `big.Int` zero has no sign: `-0.0Ki` is +0.
    if neg && !text.is_empty() {
        base_f = -base_f;
    }
    Ok(approximate(base_f, -scale))
}

/// `base * math.Pow10(exponent)`, skipping the multiplication for 0.
fn approximate(base: f64, exponent: i64) -> f64 {
    if exponent == 0 {
        base
    } else {
        base * pow10(exponent)
    }
}

/// Go's `math.Pow10`, including how it rounds.
#[allow(clippy::cast_sign_loss, clippy::cast_possible_truncation)]
fn pow10(n: i64) -> f64 {
    const TAB: [f64; 32] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31,
    ];
    const POS32: [f64; 10] = [
        1e0, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288,
    ];
    const NEG32: [f64; 11] = [
        1e-0, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256, 1e-288, 1e-320,
    ];
    if (0..=308).contains(&n) {
        let n = n as usize;
        POS32[n / 32] * TAB[n % 32]
    } else if (-323..=0).contains(&n) {
        let n = (-n) as usize;
        NEG32[n / 32] / TAB[n % 32]
    } else if n > 0 {
        f64::INFINITY
    } else {
        0.0
    }
}

struct Parts<'a> {
    positive: bool,
    value: &'a str,
    num: &'a str,
    denom: &'a str,
    suffix: &'a str,
}

/// `parseQuantityString`.
fn parse_quantity_string(s: &str) -> Result<Parts<'_>, &'static str> {
    let b = s.as_bytes();
    let end = b.len();
    let mut p = Parts {
        positive: true,
        value: "",
        num: "",
        denom: "",
        suffix: "",
    };
    let mut pos = 0;
    match b.first() {
        Some(b'-') => {
            p.positive = false;
            pos += 1;
        }
        Some(b'+') => pos += 1,
        _ => {}
    }
    // Leading zeros.
    loop {
        if pos >= end {
            p.num = "0";
            p.value = "0";
            return Ok(p);
        }
        if b[pos] == b'0' {
            pos += 1;
        } else {
            break;
        }
    }
    // Numerator.
    let start = pos;
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    if pos >= end {
        p.num = &s[start..end];
        p.value = s;
        return Ok(p);
    }
    p.num = &s[start..pos];
    if p.num.is_empty() {
        p.num = "0";
    }
    // Denominator.
    if b[pos] == b'.' {
        pos += 1;
        let start = pos;
        while pos < end && b[pos].is_ascii_digit() {
            pos += 1;
        }
        if pos >= end {
            p.denom = &s[start..end];
            p.value = s;
            return Ok(p);
        }
        p.denom = &s[start..pos];
    }
    p.value = &s[..pos];
    // Suffix: letters, then an optional sign and digits.
    let suffix_start = pos;
    while pos < end && b"eEinumkKMGTP".contains(&b[pos]) {
        pos += 1;
    }
    if pos < end && (b[pos] == b'-' || b[pos] == b'+') {
        pos += 1;
    }
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    if pos < end {
        return Err(ERR_FORMAT);
    }
    p.suffix = &s[suffix_start..];
    Ok(p)
}

/// `suffixHandler.interpret`: (base, exponent, format).
fn interpret(suffix: &str) -> Option<(i64, i64, Format)> {
    let dec = match suffix {
        "n" => Some(-9),
        "u" => Some(-6),
        "m" => Some(-3),
        "" => Some(0),
        "k" => Some(3),
        "M" => Some(6),
        "G" => Some(9),
        "T" => Some(12),
        "P" => Some(15),
        "E" => Some(18),
        _ => None,
    };
    if let Some(e) = dec {
        return Some((10, e, Format::DecimalSI));
    }
    let bin = match suffix {
        "Ki" => Some(10),
        "Mi" => Some(20),
        "Gi" => Some(30),
        "Ti" => Some(40),
        "Pi" => Some(50),
        "Ei" => Some(60),
        _ => None,
    };
    if let Some(e) = bin {
        return Some((2, e, Format::BinarySI));
    }
    let rest = suffix.strip_prefix(['e', 'E'])?;
    if rest.is_empty() {
        return None;
    }
    let parsed = crate::go::strconv::parse_int(rest).ok()?;
    // Go keeps int32(parsed): the exponent wraps like Go's conversion.
    #[allow(clippy::cast_possible_truncation)]
    Some((10, i64::from(parsed as i32), Format::DecimalExponent))
}

/// `inf.Dec.SetString`: sign, digits with at most one point. Returns the
/// sign, the magnitude's digits (no leading zeros) and the scale.
fn dec_set_string(s: &str) -> Option<(bool, Vec<u8>, i64)> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut neg = false;
    if let Some(&c) = b.first()
        && (c == b'-' || c == b'+')
    {
        neg = c == b'-';
        i = 1;
    }
    let mut digits = Vec::new();
    let mut point: Option<usize> = None;
    let mut count = 0usize;
    for &c in &b[i..] {
        match c {
            b'.' if point.is_none() => point = Some(count),
            b'0'..=b'9' => {
                count += 1;
                if !(digits.is_empty() && c == b'0') {
                    digits.push(c - b'0');
                }
            }
            _ => return None,
        }
    }
    if count == 0 {
        return None;
    }
    let scale = point.map_or(0, |p| (count - p) as i64);
    Some((neg, digits, scale))
}

fn mul_small(digits: &mut Vec<u8>, m: u64) {
    let mut carry: u128 = 0;
    for d in digits.iter_mut().rev() {
        let v = u128::from(*d) * u128::from(m) + carry;
        *d = (v % 10) as u8;
        carry = v / 10;
    }
    while carry > 0 {
        digits.insert(0, (carry % 10) as u8);
        carry /= 10;
    }
    while digits.first() == Some(&0) {
        digits.remove(0);
    }
}

/// Divides by 10^k, rounding any remainder up.
fn round_up_drop(digits: &mut Vec<u8>, k: i64) {
    let k = usize::try_from(k).unwrap_or(usize::MAX);
    if k >= digits.len() {
        // Non-zero and smaller than 10^k: rounds up to one.
        *digits = vec![1];
        return;
    }
    let keep = digits.len() - k;
    let inexact = digits[keep..].iter().any(|&d| d != 0);
    digits.truncate(keep);
    if inexact {
        let mut i = digits.len();
        loop {
            if i == 0 {
                digits.insert(0, 1);
                break;
            }
            i -= 1;
            if digits[i] == 9 {
                digits[i] = 0;
            } else {
                digits[i] += 1;
                break;
            }
        }
    }
}

fn cmp_digits(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors() {
        let cases: &[(&str, f64)] = &[
            ("1Gi", 1_073_741_824.0),
            ("1.5Gi", 1_610_612_736.0),
            ("500m", 0.5),
            ("1.2e-3", 0.001_200_000_000_000_000_1),
            ("1.0000000001", 1.000_000_001),
            ("8Ei", 9.223_372_036_854_776e18),
            ("0.0000000001", 1e-9),
            ("-0.0000000001", -1e-9),
        ];
        for &(s, want) in cases {
            assert_eq!(parse_approximate_f64(s), Ok(want), "{s}");
        }
        assert_eq!(parse_approximate_f64("1e1000"), Ok(f64::INFINITY));
        assert_eq!(parse_approximate_f64("1K"), Err(ERR_SUFFIX));
        assert_eq!(parse_approximate_f64("1.2.3"), Err(ERR_FORMAT));
    }
}
