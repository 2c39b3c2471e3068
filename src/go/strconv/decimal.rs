//! Go's multiprecision decimal (`strconv/decimal.go`): decimal text to the nearest
//! float64 (`atof64`) and a float64's exact, correctly rounded or shortest digits
//! (`bigFtoa`).
//!
//! Parsing multiplies or divides exact small cases by an exact power of ten
//! (`atof64exact`); the rest go through the decimal (`decimal.floatBits`). Go's and
//! std's faster paths (Eisel-Lemire, Ryū, Grisu) are left out on purpose: their
//! tables and code are about 30 KB of the module (the 128-bit powers of five alone
//! are 10 KB that gzip cannot shrink), and the results are the same digits.

/// Digits kept; past these only whether a nonzero digit was dropped matters (a
/// float64's exact decimal expansion has at most 767 significant digits).
const MAX_DIGITS: usize = 800;

/// Largest shift per step: digit (9) << 60 plus carry stays within a u64.
const MAX_SHIFT: u32 = 60;

/// Parses `[+-]?digits[.digits][(e|E)[+-]?digits]` (at least one digit in the
/// mantissa); `None` for any other text. Overflow gives ±infinity.
pub(crate) fn parse(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let (neg, mut i) = match b.first() {
        Some(b'-') => (true, 1),
        Some(b'+') => (false, 1),
        _ => (false, 0),
    };
    let start = i;
    // The value is 0.d₁d₂… × 10^dp over its significant digits d (no leading zeros);
    // `mant` holds the first 19 of them, for the exact path.
    let (mut mant, mut nd_mant, mut nd, mut dp, mut trunc) = (0u64, 0i32, 0usize, 0i32, false);
    let (mut saw_digits, mut saw_dot) = (false, false);
    while let Some(&c) = b.get(i) {
        match c {
            b'.' if !saw_dot => saw_dot = true,
            b'0'..=b'9' => {
                saw_digits = true;
                if c == b'0' && nd == 0 {
                    // Leading zeros only move the point.
                    dp -= 1;
                } else {
                    nd += 1;
                    if nd_mant < 19 {
                        mant = mant * 10 + u64::from(c - b'0');
                        nd_mant += 1;
                    } else if c != b'0' {
                        trunc = true;
                    }
                }
                if !saw_dot {
                    dp += 1;
                }
            }
            _ => break,
        }
        i += 1;
    }
    if !saw_digits {
        return None;
    }
    let digits = &b[start..i];
    if let Some(b'e' | b'E') = b.get(i) {
        i += 1;
        let esign = match b.get(i) {
            Some(b'-') => {
                i += 1;
                -1
            }
            Some(b'+') => {
                i += 1;
                1
            }
            _ => 1,
        };
        if !b.get(i).is_some_and(u8::is_ascii_digit) {
            return None;
        }
        let mut e: i32 = 0;
        while let Some(&c) = b.get(i).filter(|c| c.is_ascii_digit()) {
            if e < 10_000 {
                e = e * 10 + i32::from(c - b'0');
            }
            i += 1;
        }
        dp += e * esign;
    }
    if i != b.len() {
        return None;
    }
    if nd == 0 {
        return Some(if neg { -0.0 } else { 0.0 });
    }
    if !trunc && let Some(f) = exact(mant, dp - nd_mant) {
        return Some(if neg { -f } else { f });
    }
    Some(Decimal::new(neg, digits, dp).float())
}

/// Powers of ten a float64 holds exactly.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// `mant × 10^exp` when both operands are exact floats (one rounding): Go's `atof64exact`.
#[allow(clippy::cast_precision_loss, clippy::cast_sign_loss)]
fn exact(mant: u64, exp: i32) -> Option<f64> {
    if mant >> 52 != 0 {
        return None;
    }
    let mut f = mant as f64;
    match exp {
        0 => Some(f),
        1..=37 => {
            let mut exp = exp as usize;
            if exp > 22 {
                f *= POW10[exp - 22];
                exp = 22;
            }
            (f <= 1e15).then(|| f * POW10[exp])
        }
        -22..=-1 => Some(f / POW10[(-exp) as usize]),
        _ => None,
    }
}

/// Go's `strconv.decimal`: digits d[..nd] (0-9, no leading or trailing zeros)
/// with the point before digit `dp`; `trunc` when nonzero digits were dropped.
pub(super) struct Decimal {
    d: [u8; MAX_DIGITS],
    nd: usize,
    pub(super) dp: i32,
    neg: bool,
    trunc: bool,
}

impl Decimal {
    /// The significant digits among `digits` (ASCII digits and a point).
    fn new(neg: bool, digits: &[u8], dp: i32) -> Decimal {
        let mut d = Decimal {
            d: [0; MAX_DIGITS],
            nd: 0,
            dp,
            neg,
            trunc: false,
        };
        for &c in digits.iter().filter(|c| c.is_ascii_digit()) {
            if c == b'0' && d.nd == 0 {
                continue;
            }
            if d.nd < MAX_DIGITS {
                d.d[d.nd] = c - b'0';
                d.nd += 1;
            } else if c != b'0' {
                d.trunc = true;
            }
        }
        d
    }

    /// Go's `decimal.floatBits` for float64 (the digits are not all zero).
    fn float(mut self) -> f64 {
        const MANT_BITS: u32 = 52;
        const BIAS: i32 = -1023;
        // Binary exponents that scale by at least 10^dp (Go's `powtab`).
        const POWTAB: [u32; 9] = [1, 3, 6, 9, 13, 16, 19, 23, 26];
        let sign = u64::from(self.neg) << 63;
        let inf = f64::from_bits(sign | 0x7FF0_0000_0000_0000);
        if self.dp > 310 {
            return inf;
        }
        if self.dp < -330 {
            return f64::from_bits(sign);
        }
        let step = |dp: i32| {
            usize::try_from(dp)
                .ok()
                .and_then(|i| POWTAB.get(i).copied())
                .unwrap_or(27)
        };
        // Scale into [0.5, 1).
        let mut exp: i32 = 0;
        while self.dp > 0 {
            let n = step(self.dp);
            self.shift_right(n);
            exp += n as i32;
        }
        while self.dp < 0 || self.dp == 0 && self.d[0] < 5 {
            let n = step(-self.dp);
            self.shift_left(n);
            exp -= n as i32;
        }
        // The float's range is [1, 2).
        exp -= 1;
        // Below the smallest exponent: denormal, fewer mantissa bits.
        if exp < BIAS + 1 {
            let n = (BIAS + 1 - exp).unsigned_abs();
            self.shift_right(n);
            exp = BIAS + 1;
        }
        if exp - BIAS >= 0x7FF {
            return inf;
        }
        self.shift_left(1 + MANT_BITS);
        let mut mant = self.rounded_integer();
        // Rounding carried into a new bit.
        if mant == 2 << MANT_BITS {
            mant >>= 1;
            exp += 1;
            if exp - BIAS >= 0x7FF {
                return inf;
            }
        }
        if mant & (1 << MANT_BITS) == 0 {
            exp = BIAS;
        }
        let biased = u64::from((exp - BIAS).unsigned_abs() & 0x7FF);
        f64::from_bits(sign | biased << MANT_BITS | mant & ((1 << MANT_BITS) - 1))
    }

    /// The exact value of `mant × 2^exp2` (Go's `Assign` and `Shift`).
    pub(super) fn of(mant: u64, exp2: i32) -> Decimal {
        let mut d = Decimal {
            d: [0; MAX_DIGITS],
            nd: 0,
            dp: 0,
            neg: false,
            trunc: false,
        };
        let mut v = mant;
        let mut rev = [0u8; 20];
        let mut n = 0;
        while v > 0 {
            rev[n] = (v % 10) as u8;
            v /= 10;
            n += 1;
        }
        for (i, &digit) in rev[..n].iter().rev().enumerate() {
            d.d[i] = digit;
        }
        d.nd = n;
        d.dp = n as i32;
        d.trim();
        if exp2 > 0 {
            d.shift_left(exp2.unsigned_abs());
        } else {
            d.shift_right(exp2.unsigned_abs());
        }
        d
    }

    /// The digits, as ASCII.
    pub(super) fn ascii(&self, out: &mut Vec<u8>) {
        out.clear();
        out.extend(self.d[..self.nd].iter().map(|d| b'0' + d));
    }

    /// Rounds to `nd` digits, half to even (Go's `Round`).
    pub(super) fn round(&mut self, nd: i64) {
        let Ok(nd) = usize::try_from(nd) else {
            return;
        };
        if self.round_up(nd) {
            self.round_up_at(nd);
        } else {
            self.round_down_at(nd);
        }
    }

    /// Go's `RoundDown`.
    fn round_down_at(&mut self, nd: usize) {
        if nd >= self.nd {
            return;
        }
        self.nd = nd;
        self.trim();
    }

    /// Go's `RoundUp`.
    fn round_up_at(&mut self, nd: usize) {
        if nd >= self.nd {
            return;
        }
        for i in (0..nd).rev() {
            if self.d[i] < 9 {
                self.d[i] += 1;
                self.nd = i + 1;
                return;
            }
        }
        // All nines: a single 1 one place up.
        self.d[0] = 1;
        self.nd = 1;
        self.dp += 1;
    }

    /// The shortest digits that still read back as the float `mant × 2^(exp - 52)`
    /// (Go's `roundShortest`); `self` is its exact value.
    pub(super) fn round_shortest(&mut self, mant: u64, exp: i32) {
        const MANT_BITS: i32 = 52;
        const MIN_EXP: i32 = -1022;
        if mant == 0 {
            self.nd = 0;
            return;
        }
        // Already shortest: an integer whose trailing zeros the float's precision covers.
        if exp > MIN_EXP
            && 332 * (i64::from(self.dp) - self.nd as i64) >= 100 * i64::from(exp - MANT_BITS)
        {
            return;
        }
        // Halfway to the next float up, and to the next one down.
        let upper = Decimal::of(mant * 2 + 1, exp - MANT_BITS - 1);
        let (mantlo, explo) = if mant > 1 << MANT_BITS || exp == MIN_EXP {
            (mant - 1, exp)
        } else {
            (mant * 2 - 1, exp - 1)
        };
        let lower = Decimal::of(mantlo * 2 + 1, explo - MANT_BITS - 1);
        // The bounds themselves read back as this float only when its mantissa is
        // even (IEEE ties to even).
        let inclusive = mant.is_multiple_of(2);
        // 0: the digits of self and upper agree so far; 1: they differed by one,
        // then only 9s in self and 0s in upper; 2: rounding up stays below upper.
        let mut upperdelta = 0u8;
        let digit = |d: &Decimal, i: i64| {
            usize::try_from(i)
                .ok()
                .filter(|&i| i < d.nd)
                .map_or(0, |i| d.d[i])
        };
        let mut ui: i64 = 0;
        loop {
            let mi = ui - i64::from(upper.dp) + i64::from(self.dp);
            if mi >= self.nd as i64 {
                break;
            }
            let li = ui - i64::from(upper.dp) + i64::from(lower.dp);
            let (l, m, u) = (digit(&lower, li), digit(self, mi), digit(&upper, ui));
            // Truncating is fine when lower differs here, or when lower is
            // inclusive and ends here.
            let okdown = l != m || inclusive && li + 1 == lower.nd as i64;
            if upperdelta == 0 && m + 1 < u {
                upperdelta = 2;
            } else if upperdelta == 0 && m != u {
                upperdelta = 1;
            } else if upperdelta == 1 && (m != 9 || u != 0) {
                upperdelta = 2;
            }
            // Rounding up is fine when upper differs and is inclusive or beyond
            // the rounded-up digits.
            let okup = upperdelta > 0 && (inclusive || upperdelta > 1 || ui + 1 < upper.nd as i64);
            let at = usize::try_from(mi + 1).unwrap_or(0);
            match (okdown, okup) {
                (true, true) => return self.round(mi + 1),
                (true, false) => return self.round_down_at(at),
                (false, true) => return self.round_up_at(at),
                (false, false) => {}
            }
            ui += 1;
        }
    }

    /// Multiplies by 2^k.
    fn shift_left(&mut self, mut k: u32) {
        while k > 0 {
            let s = k.min(MAX_SHIFT);
            self.left(s);
            k -= s;
        }
    }

    /// Divides by 2^k.
    fn shift_right(&mut self, mut k: u32) {
        while k > 0 && self.nd > 0 {
            let s = k.min(MAX_SHIFT);
            self.right(s);
            k -= s;
        }
    }

    /// Go's `leftShift`, with the new digits counted in a scratch buffer instead of
    /// its table of powers of five.
    fn left(&mut self, k: u32) {
        // The digits of the product, least significant first.
        let mut rev: Vec<u8> = Vec::with_capacity(self.nd + 20);
        let mut n: u64 = 0;
        for &c in self.d[..self.nd].iter().rev() {
            n += u64::from(c) << k;
            rev.push((n % 10) as u8);
            n /= 10;
        }
        while n > 0 {
            rev.push((n % 10) as u8);
            n /= 10;
        }
        let delta = rev.len() - self.nd;
        for (w, &digit) in rev.iter().rev().enumerate() {
            if w < MAX_DIGITS {
                self.d[w] = digit;
            } else if digit != 0 {
                self.trunc = true;
            }
        }
        self.nd = rev.len().min(MAX_DIGITS);
        self.dp += delta as i32;
        self.trim();
    }

    /// Go's `rightShift`.
    fn right(&mut self, k: u32) {
        let (mut r, mut w) = (0, 0);
        let mut n: u64 = 0;
        // Enough leading digits to cover the first shift.
        while n >> k == 0 {
            if r >= self.nd {
                if n == 0 {
                    self.nd = 0;
                    return;
                }
                while n >> k == 0 {
                    n *= 10;
                    r += 1;
                }
                break;
            }
            n = n * 10 + u64::from(self.d[r]);
            r += 1;
        }
        self.dp -= r as i32 - 1;
        let mask = (1u64 << k) - 1;
        while r < self.nd {
            let c = self.d[r];
            self.d[w] = (n >> k) as u8;
            w += 1;
            n = (n & mask) * 10 + u64::from(c);
            r += 1;
        }
        while n > 0 {
            let digit = (n >> k) as u8;
            n &= mask;
            if w < MAX_DIGITS {
                self.d[w] = digit;
                w += 1;
            } else if digit > 0 {
                self.trunc = true;
            }
            n *= 10;
        }
        self.nd = w;
        self.trim();
    }

    /// Drops trailing zeros.
    fn trim(&mut self) {
        while self.nd > 0 && self.d[self.nd - 1] == 0 {
            self.nd -= 1;
        }
        if self.nd == 0 {
            self.dp = 0;
        }
    }

    /// The integer part, rounded half to even (Go's `RoundedInteger`).
    fn rounded_integer(&self) -> u64 {
        if self.dp > 20 {
            return u64::MAX;
        }
        // Below one half (the point is before the first digit's place).
        let Ok(dp) = usize::try_from(self.dp) else {
            return 0;
        };
        let mut n: u64 = 0;
        for i in 0..dp {
            n = n * 10 + u64::from(if i < self.nd { self.d[i] } else { 0 });
        }
        if self.round_up(dp) {
            n += 1;
        }
        n
    }

    /// Whether rounding to `nd` digits rounds up (Go's `shouldRoundUp`).
    fn round_up(&self, nd: usize) -> bool {
        if nd >= self.nd {
            return false;
        }
        if self.d[nd] == 5 && nd + 1 == self.nd {
            // Exactly halfway, unless digits were dropped: to even.
            return self.trunc || nd > 0 && self.d[nd - 1] % 2 == 1;
        }
        self.d[nd] >= 5
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    fn check(s: &str) {
        let want: f64 = s.parse().unwrap();
        let got = parse(s).unwrap();
        assert_eq!(got.to_bits(), want.to_bits(), "{s}: {got:e} want {want:e}");
    }

    #[test]
    fn rounds_as_std() {
        for s in [
            "0",
            "-0",
            "0.0",
            "1",
            "-1",
            "0.1",
            "0.30000000000000004",
            "1e23",
            "8.5e-324",
            "2.4703282292062327e-324",
            "2.4703282292062328e-324",
            "4.9e-324",
            "1e-400",
            "1.7976931348623157e308",
            "1.7976931348623158e308",
            "1.7976931348623159e308",
            "9007199254740993",
            "9007199254740992.5",
            "123456789012345678901234567890",
            "2.2250738585072011e-308",
            "2.2250738585072012e-308",
            "0.000000000000000000001",
            "1e308",
            "1e309",
            "-1e309",
            "5.",
            ".5",
            "+5",
            "1E5",
            "1e+5",
            "00012.5000",
            "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791.9999999999999999999999999999999999999999999999999999999999999999999999",
        ] {
            check(s);
        }
        // Long halfway cases: the 769th digit decides.
        let mut half = String::from(
            "2.47032822920623272088284396434110686182529901307162382212792841250337753635104375932649918180817996189898282347722858865463328355177969898199387398005390939063150356595155702263922908583924491051844359318028499365361525003193704576782492193656236698636584807570015857692699037063119282795585513329278343384093519780155312465972635795746227664652728272200563740064854999770965994704540208281662262378573934507363390079677619305775067401763246736009689513405355374585166611342237666786041621596804619144672918403005300575308490487653917113865916462395249126236538818796362393732804238910186723484976682350898633885879256283027559956575244555072551893136908362547791869486679949683240497058210285131854513962138377228261454376934125320985913276672363281255",
        );
        check(&half);
        half.pop();
        half.push('0');
        check(&half);
        half.push_str("0000000000000000000000000000001");
        check(&half);
    }

    #[test]
    fn rounds_as_std_on_random_digits() {
        // A fixed xorshift sequence: digits, points and exponents across the range.
        let mut next = crate::go::strconv::xorshift(0x9E37_79B9_7F4A_7C15);
        for _ in 0..20_000 {
            let nd = 1 + next() % 40;
            let mut s = String::new();
            for _ in 0..nd {
                s.push(char::from(b'0' + (next() % 10) as u8));
            }
            let dot = (next() % (nd + 1)) as usize;
            s.insert(dot, '.');
            let e = (next() % 700) as i64 - 350;
            s.push_str(&format!("e{e}"));
            check(&s);
        }
        // Floats' own shortest and long forms, near their neighbours.
        for _ in 0..10_000 {
            let f = f64::from_bits(next() >> 1);
            if !f.is_finite() {
                continue;
            }
            check(&format!("{f:e}"));
            check(&format!("{f:.25e}"));
            check(&format!("{:e}", f64::from_bits(f.to_bits() + 1)));
        }
    }

    #[test]
    fn refuses_what_is_not_a_decimal() {
        for s in [
            "", "-", ".", "e5", "1e", "1e+", "1.2.3", "1x", " 1", "inf", "nan",
        ] {
            assert_eq!(parse(s), None, "{s:?}");
        }
    }
}
