//! Go's `strconv.AppendFloat` for float64: formats `e E f g G b x X`.
//!
//! Digits come from Go's multiprecision decimal (`bigFtoa`), which is exact:
//! shortest round-trip digits (the closest, ties to even), or correctly rounded
//! (ties to even on the exact binary value) to a fixed number of digits.

use std::fmt::Write as _;

use super::decimal::Decimal;

/// Reusable buffers for digit generation.
#[derive(Default)]
pub(crate) struct Scratch {
    digits: Vec<u8>,
}

/// Decimal digits of |f| with trailing zeros removed: value = 0.d₁d₂… × 10^dp
/// (Go's `decimalSlice`); zero has no digits and `dp == 0`.
struct Digits<'s> {
    d: &'s [u8],
    dp: i64,
}

impl<'s> Digits<'s> {
    fn from_decimal(dec: &Decimal, scratch: &'s mut Scratch) -> Digits<'s> {
        dec.ascii(&mut scratch.digits);
        let d = &scratch.digits;
        Digits {
            d,
            dp: if d.is_empty() { 0 } else { i64::from(dec.dp) },
        }
    }

    /// Shortest digits that round-trip; among those, the closest to the exact
    /// value, ties to even.
    fn shortest(abs: f64, scratch: &'s mut Scratch) -> Digits<'s> {
        let (mant, exp) = mant_exp(abs);
        let mut dec = exact(abs);
        dec.round_shortest(mant, i32::try_from(exp).unwrap_or(0));
        Digits::from_decimal(&dec, scratch)
    }

    /// `n` significant digits, correctly rounded.
    fn significant(abs: f64, n: i64, scratch: &'s mut Scratch) -> Digits<'s> {
        let mut dec = exact(abs);
        dec.round(n);
        Digits::from_decimal(&dec, scratch)
    }

    /// `prec` digits after the point, correctly rounded.
    fn fixed(abs: f64, prec: i64, scratch: &'s mut Scratch) -> Digits<'s> {
        let mut dec = exact(abs);
        dec.round(i64::from(dec.dp).saturating_add(prec));
        Digits::from_decimal(&dec, scratch)
    }

    fn nd(&self) -> i64 {
        i64::try_from(self.d.len()).unwrap_or(i64::MAX)
    }
}

/// Appends `strconv.FormatFloat(f, fmt, prec, 64)` to `out` (`prec < 0` = shortest).
pub(crate) fn append_float(out: &mut String, f: f64, fmt: u8, prec: i64, scratch: &mut Scratch) {
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
        let digs = Digits::fixed(abs, prec, scratch);
        fmt_f(out, &digs, prec);
        return;
    }
    let (digs, prec) = if shortest {
        let digs = Digits::shortest(abs, scratch);
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
        (Digits::significant(abs, n, scratch), prec)
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

/// The exact decimal value of a finite float64.
fn exact(abs: f64) -> Decimal {
    let (mant, exp) = mant_exp(abs);
    Decimal::of(mant, i32::try_from(exp - 52).unwrap_or(0))
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
    use super::{Scratch, append_float};

    /// Formats `f` both ways and compares.
    fn check(f: f64, fmt: u8, prec: i64) {
        let (mut got, mut want) = (String::new(), String::new());
        append_float(&mut got, f, fmt, prec, &mut Scratch::default());
        super::super::float_std::append_float(
            &mut want,
            f,
            fmt,
            prec,
            &mut super::super::float_std::Scratch::default(),
        );
        assert_eq!(got, want, "{:?} {} {prec}", f, char::from(fmt));
    }

    #[test]
    fn digits_as_std_formatting() {
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
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
