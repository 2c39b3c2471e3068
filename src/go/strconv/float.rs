//! Go's `strconv.AppendFloat` for float64: formats `e E f g G b x X`.
//!
//! Digits come from a source chosen by the build, both exact as Go's are: shortest
//! round-trip digits (the closest, ties to even), or correctly rounded (ties to even
//! on the exact binary value) to a fixed number of digits. Natively they come from
//! Rust's float formatting (Grisu with Dragon fallback: fast); in the browser build
//! (feature `web`) from Go's multiprecision decimal, about 20 KB (gzip) smaller
//! and many times slower on long or extreme values.

use std::fmt::Write as _;

/// The digit source of this build.
#[cfg(not(feature = "web"))]
const DIGITS: Source = std_digits::digits;
#[cfg(feature = "web")]
const DIGITS: Source = go_digits::digits;

/// Produces the digits `Want`ed of a non-negative finite float.
type Source = for<'s> fn(f64, Want, &'s mut Scratch) -> Digits<'s>;

/// Which digits of a float a format needs.
#[derive(Clone, Copy)]
enum Want {
    /// The shortest that round-trip.
    Shortest,
    /// This many (at least 1) significant digits.
    Significant(i64),
    /// This many digits after the point.
    Fixed(i64),
}

/// Reusable buffers for digit generation.
#[derive(Default)]
pub(crate) struct Scratch {
    #[cfg(any(test, not(feature = "web")))]
    text: String,
    #[cfg(any(test, not(feature = "web")))]
    alt: String,
    digits: Vec<u8>,
}

/// Decimal digits of |f| with trailing zeros removed: value = 0.d₁d₂… × 10^dp
/// (Go's `decimalSlice`); zero has no digits and `dp == 0`.
struct Digits<'s> {
    d: &'s [u8],
    dp: i64,
}

impl Digits<'_> {
    fn nd(&self) -> i64 {
        i64::try_from(self.d.len()).unwrap_or(i64::MAX)
    }
}

/// Digits from Rust's float formatting (`{:e}`, `{:.N$e}`, `{:.N$}`).
#[cfg(any(test, not(feature = "web")))]
mod std_digits {
    use std::fmt::Write as _;

    use super::{Digits, Scratch, Want};

    /// More digits than any float64 has after the point (1074) or in total (767).
    const EXACT_DIGITS: usize = 1100;

    pub(super) fn digits(abs: f64, want: Want, scratch: &mut Scratch) -> Digits<'_> {
        scratch.text.clear();
        match want {
            Want::Shortest => shortest(abs, scratch),
            Want::Significant(n) => {
                // A float64 has at most 767 significant digits; more are zeros, which
                // are trimmed anyway (and Rust refuses precisions above u16::MAX).
                let n = usize::try_from(n).unwrap_or(1).clamp(1, EXACT_DIGITS);
                let _ = write!(scratch.text, "{abs:.prec$e}", prec = n - 1);
            }
            Want::Fixed(prec) => {
                // Past 1074 fractional digits every float64 has only zeros.
                let prec = usize::try_from(prec).unwrap_or(0).min(EXACT_DIGITS);
                let _ = write!(scratch.text, "{abs:.prec$}");
                return from_fixed_text(scratch);
            }
        }
        from_exp_text(scratch)
    }

    /// Shortest digits that round-trip; among those, the closest to the exact
    /// value, ties to even (Go's Ryū). Rust breaks such ties upwards, so an odd
    /// last digit is checked against the correctly rounded digits of the same length.
    fn shortest(abs: f64, scratch: &mut Scratch) {
        let _ = write!(scratch.text, "{abs:e}");
        let mant = scratch.text.split('e').next().unwrap_or_default();
        let odd = mant
            .bytes()
            .last()
            .is_some_and(|b| b.is_ascii_digit() && b % 2 == 1);
        let n = mant.bytes().filter(u8::is_ascii_digit).count();
        // A tie half a unit away is within the round-trip interval (2^-53
        // relative) only from 16 digits on, or for subnormals.
        if odd && (n >= 16 || abs < f64::MIN_POSITIVE) {
            scratch.alt.clear();
            let _ = write!(scratch.alt, "{abs:.p$e}", p = n.saturating_sub(1));
            if scratch.alt != scratch.text && scratch.alt.parse::<f64>() == Ok(abs) {
                std::mem::swap(&mut scratch.alt, &mut scratch.text);
            }
        }
    }

    /// Reads Rust's `{:e}` text (`d.ddde±x`) of a non-negative finite float.
    fn from_exp_text(scratch: &mut Scratch) -> Digits<'_> {
        let (mant, exp) = scratch.text.split_once('e').unwrap_or((&scratch.text, "0"));
        let d = &mut scratch.digits;
        d.clear();
        d.extend(mant.bytes().filter(u8::is_ascii_digit));
        while d.last() == Some(&b'0') {
            d.pop();
        }
        let dp = if d.is_empty() {
            0
        } else {
            exp.parse::<i64>().unwrap_or(0) + 1
        };
        Digits { d, dp }
    }

    /// Reads Rust's `{:.N}` text (`ddd.ddd`) of a non-negative finite float.
    fn from_fixed_text(scratch: &mut Scratch) -> Digits<'_> {
        let int_len = scratch.text.find('.').unwrap_or(scratch.text.len());
        let d = &mut scratch.digits;
        d.clear();
        d.extend(scratch.text.bytes().filter(u8::is_ascii_digit));
        while d.last() == Some(&b'0') {
            d.pop();
        }
        let zeros = d.iter().take_while(|&&b| b == b'0').count();
        d.drain(..zeros);
        let dp = if d.is_empty() {
            0
        } else {
            i64::try_from(int_len).unwrap_or(0) - i64::try_from(zeros).unwrap_or(0)
        };
        Digits { d, dp }
    }
}

/// Digits from Go's multiprecision decimal (`bigFtoa`).
#[cfg(any(test, feature = "web"))]
mod go_digits {
    use super::super::decimal::Decimal;
    use super::{Digits, Scratch, Want, mant_exp};

    pub(super) fn digits(abs: f64, want: Want, scratch: &mut Scratch) -> Digits<'_> {
        let (mant, exp) = mant_exp(abs);
        let mut dec = Decimal::of(mant, i32::try_from(exp - 52).unwrap_or(0));
        match want {
            Want::Shortest => dec.round_shortest(mant, i32::try_from(exp).unwrap_or(0)),
            Want::Significant(n) => dec.round(n),
            Want::Fixed(prec) => dec.round(i64::from(dec.dp).saturating_add(prec)),
        }
        dec.ascii(&mut scratch.digits);
        let d = &scratch.digits;
        Digits {
            d,
            dp: if d.is_empty() { 0 } else { i64::from(dec.dp) },
        }
    }
}

/// Appends `strconv.FormatFloat(f, fmt, prec, 64)` to `out` (`prec < 0` = shortest).
pub(crate) fn append_float(out: &mut String, f: f64, fmt: u8, prec: i64, scratch: &mut Scratch) {
    append_with(out, f, fmt, prec, scratch, DIGITS);
}

/// [`append_float`] with its digits from `digits`.
#[inline]
fn append_with(
    out: &mut String,
    f: f64,
    fmt: u8,
    prec: i64,
    scratch: &mut Scratch,
    digits: Source,
) {
    if f.is_nan() {
        out.push_str("NaN");
        return;
    }
    if f.is_infinite() {
        out.push_str(if f > 0.0 { "+Inf" } else { "-Inf" });
        return;
    }
    let neg = f.is_sign_negative();
    let abs = f.abs();
    match fmt {
        b'b' => return fmt_b(out, f),
        b'x' | b'X' => return fmt_x(out, f, prec, fmt),
        _ => {}
    }
    if neg {
        out.push('-');
    }
    let shortest = prec < 0;
    if fmt == b'f' && !shortest {
        let digs = digits(abs, Want::Fixed(prec), scratch);
        fmt_f(out, &digs, prec);
        return;
    }
    let (digs, prec) = if shortest {
        let digs = digits(abs, Want::Shortest, scratch);
        let prec = match fmt {
            b'e' | b'E' => (digs.nd() - 1).max(0),
            b'f' => (digs.nd() - digs.dp).max(0),
            _ => digs.nd(),
        };
        (digs, prec)
    } else {
        let (n, prec) = match fmt {
            b'e' | b'E' => (prec + 1, prec),
            _ => (prec.max(1), prec.max(1)),
        };
        (digits(abs, Want::Significant(n), scratch), prec)
    };
    match fmt {
        b'e' | b'E' => fmt_e(out, &digs, prec, fmt),
        b'f' => fmt_f(out, &digs, prec),
        _ => {
            let mut eprec = prec;
            if eprec > digs.nd() && digs.nd() >= digs.dp {
                eprec = digs.nd();
            }
            // Shortest %g switches to an exponent from 1e+06 on, not 1e+21.
            if shortest {
                eprec = 6;
            }
            let exp = digs.dp - 1;
            let e = if fmt == b'G' { b'E' } else { b'e' };
            if exp < -4 || exp >= eprec {
                fmt_e(out, &digs, prec.min(digs.nd()) - 1, e);
            } else {
                let prec = if prec > digs.dp { digs.nd() } else { prec };
                fmt_f(out, &digs, (prec - digs.dp).max(0));
            }
        }
    }
}

/// `%e`: d.ddddde±dd
fn fmt_e(out: &mut String, digs: &Digits, prec: i64, fmt: u8) {
    out.push(char::from(digs.d.first().copied().unwrap_or(b'0')));
    if prec > 0 {
        out.push('.');
        let prec = usize::try_from(prec).unwrap_or(0);
        let have = digs.d.len().min(prec + 1);
        for &b in digs.d.get(1..have).unwrap_or(&[]) {
            out.push(char::from(b));
        }
        for _ in have.max(1)..=prec {
            out.push('0');
        }
    }
    out.push(char::from(fmt));
    let exp = if digs.d.is_empty() { 0 } else { digs.dp - 1 };
    push_exponent(out, exp);
}

/// `%f`: ddddddd.ddddd
fn fmt_f(out: &mut String, digs: &Digits, prec: i64) {
    if digs.dp > 0 {
        for j in 0..digs.dp {
            let b = usize::try_from(j)
                .ok()
                .and_then(|j| digs.d.get(j))
                .copied()
                .unwrap_or(b'0');
            out.push(char::from(b));
        }
    } else {
        out.push('0');
    }
    if prec > 0 {
        out.push('.');
        for i in 1..=prec {
            let j = digs.dp + i - 1;
            let b = usize::try_from(j)
                .ok()
                .and_then(|j| digs.d.get(j))
                .copied()
                .unwrap_or(b'0');
            out.push(char::from(b));
        }
    }
}

/// Mantissa and binary exponent as strconv sees them (bias applied, implicit bit added).
fn mant_exp(f: f64) -> (u64, i64) {
    let bits = f.to_bits();
    let mut exp = i64::try_from((bits >> 52) & 0x7FF).unwrap_or(0);
    let mut mant = bits & ((1 << 52) - 1);
    if exp == 0 {
        exp += 1;
    } else {
        mant |= 1 << 52;
    }
    (mant, exp - 1023)
}

/// `%b`: mantissa "p" binary exponent, e.g. `5910974510923776p-47`.
fn fmt_b(out: &mut String, f: f64) {
    let (mant, exp) = mant_exp(f);
    let exp = exp - 52;
    if f.is_sign_negative() {
        out.push('-');
    }
    let _ = write!(out, "{mant}p");
    if exp >= 0 {
        out.push('+');
    }
    let _ = write!(out, "{exp}");
}

/// `%x`: -0x1.yyyyyp±dd (hexadecimal mantissa, binary exponent).
fn fmt_x(out: &mut String, f: f64, prec: i64, fmt: u8) {
    let (mut mant, mut exp) = mant_exp(f);
    if mant == 0 {
        exp = 0;
    }
    // Shift so that the leading 1 (if any) is at bit 60.
    mant <<= 60 - 52;
    while mant != 0 && mant & (1 << 60) == 0 {
        mant <<= 1;
        exp -= 1;
    }
    if (0..15).contains(&prec) {
        let shift = u32::try_from(prec * 4).unwrap_or(0);
        let extra = (mant << shift) & ((1 << 60) - 1);
        mant >>= 60 - shift;
        if extra | (mant & 1) > 1 << 59 {
            mant += 1;
        }
        mant <<= 60 - shift;
        if mant & (1 << 61) != 0 {
            mant >>= 1;
            exp += 1;
        }
    }
    let hex: &[u8; 16] = if fmt == b'X' {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    if f.is_sign_negative() {
        out.push('-');
    }
    out.push('0');
    out.push(char::from(fmt));
    out.push(if (mant >> 60) & 1 == 1 { '1' } else { '0' });
    mant <<= 4;
    let digit = |m: u64| char::from(hex[usize::try_from((m >> 60) & 15).unwrap_or(0)]);
    if prec < 0 && mant != 0 {
        out.push('.');
        while mant != 0 {
            out.push(digit(mant));
            mant <<= 4;
        }
    } else if prec > 0 {
        out.push('.');
        for _ in 0..prec {
            out.push(digit(mant));
            mant <<= 4;
        }
    }
    out.push(if fmt == b'X' { 'P' } else { 'p' });
    push_exponent(out, exp);
}

/// A signed exponent of at least two digits, as Go writes it after `e` and `p`.
fn push_exponent(out: &mut String, exp: i64) {
    out.push(if exp < 0 { '-' } else { '+' });
    let exp = exp.unsigned_abs();
    if exp < 10 {
        out.push('0');
    }
    let _ = write!(out, "{exp}");
}

#[cfg(test)]
mod tests {
    use super::{Scratch, append_with, go_digits, std_digits};

    /// Formats `f` with each digit source and compares; `%f` with a precision also
    /// with Rust's own `{:.N}`, which the native build wrote directly before.
    fn check(f: f64, fmt: u8, prec: i64) {
        let (mut got, mut want) = (String::new(), String::new());
        let mut scratch = Scratch::default();
        append_with(&mut got, f, fmt, prec, &mut scratch, go_digits::digits);
        append_with(&mut want, f, fmt, prec, &mut scratch, std_digits::digits);
        assert_eq!(got, want, "{:?} {} {prec}", f, char::from(fmt));
        if fmt == b'f' && (0..=1100).contains(&prec) {
            let p = usize::try_from(prec).unwrap();
            assert_eq!(want, format!("{f:.p$}"), "{f:?} f {prec}");
        }
    }

    #[test]
    fn digits_as_std_formatting() {
        let mut next = crate::go::strconv::xorshift(0x2545_F491_4F6C_DD1D);
        let specials = [
            0.0,
            -0.0,
            1.0,
            0.1,
            0.3,
            5e-324,
            1e23,
            1e21,
            1e22,
            123456.0,
            1e-5,
            2.5,
            0.5,
            1.5,
            9.5,
            0.05,
            0.005,
            0.0004,
            0.0006,
            0.0096,
            999.9999,
            f64::MAX,
            f64::MIN_POSITIVE,
            2f64.powi(60),
            9007199254740993.0,
            1e15,
            1e16,
        ];
        let precs = [-1, 0, 1, 2, 3, 5, 6, 10, 16, 17, 20, 30];
        for &f in &specials {
            for fmt in [b'e', b'E', b'f', b'g', b'G'] {
                for &p in &precs {
                    check(f, fmt, p);
                }
            }
            check(f, b'f', 1100);
            check(f, b'e', 800);
        }
        for i in 0..40_000 {
            let f = match i % 4 {
                // Any bit pattern.
                0 => f64::from_bits(next()),
                // Short decimals, the common case.
                1 => (next() % 100_000) as f64 / 10f64.powi((next() % 8) as i32),
                // Small magnitudes and subnormals.
                2 => f64::from_bits(next() >> 12),
                _ => f64::from_bits(next() % (1 << 62)),
            };
            if !f.is_finite() {
                continue;
            }
            let fmt = [b'e', b'f', b'g'][(next() % 3) as usize];
            let prec = (next() % 25) as i64 - 1;
            check(f, fmt, prec);
            check(f, b'g', -1);
        }
    }
}
