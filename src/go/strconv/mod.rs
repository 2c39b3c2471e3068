//! Go's `strconv`: `FormatFloat`, `Quote`/`QuoteRune`, `IsPrint` and the
//! 64-bit `ParseInt`, `ParseBool` and `ParseFloat`, with Go's error texts.

#[cfg(any(test, feature = "web"))]
mod decimal;
pub(crate) mod float;
mod parse;
pub(crate) mod printable;
pub(crate) mod quote;

pub(crate) use parse::{parse_bool, parse_float, parse_int};

/// The float64 nearest a decimal text `[+-]?digits[.digits][(e|E)[+-]?digits]`
/// (±infinity past the range), as Go's `ParseFloat` rounds; `None` for text that
/// is not a float. Callers check the syntax first: std also takes `inf` and `nan`.
/// Natively std's parser (Eisel-Lemire: fast); in the browser build (feature `web`)
/// Go's multiprecision decimal, without std's 10 KB of powers of five but slower.
pub(crate) fn parse_f64(s: &str) -> Option<f64> {
    #[cfg(not(feature = "web"))]
    {
        s.parse().ok()
    }
    #[cfg(feature = "web")]
    {
        decimal::parse(s)
    }
}

/// Go's `strconv.Quote`, as `%q` prints strings.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    quote::append_quote(&mut out, s, false);
    out
}

/// Appends Go's `strconv.FormatFloat(f, fmt, prec, 64)` (`prec < 0`: shortest digits
/// that round-trip, ties to even) for `fmt` in `e E f g G b x X`.
pub(crate) fn append_float(out: &mut String, f: f64, fmt: u8, prec: i64) {
    float::append_float(out, f, fmt, prec, &mut float::Scratch::default());
}

/// Go's `strconv.IsPrint`.
pub(crate) fn is_print(c: char) -> bool {
    printable::is_print(u32::from(c))
}

/// A fixed xorshift sequence from `seed`, for tests that compare against std on many values.
#[cfg(test)]
pub(crate) fn xorshift(mut x: u64) -> impl FnMut() -> u64 {
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}
