//! Go's `fmt.Sprintf`, byte for byte, for the operand types compositions produce.
//!
//! Operands are Go's `nil`, `bool`, `string`, `int64`, `float64`,
//! `map[string]interface {}` and `[]interface {}`. The module mirrors Go's own
//! split: `directive` is `doPrintf`, `print` is `printArg`/`printValue`,
//! `format` is `fmt/format.go`, `float` and `quote` are the parts of `strconv`
//! they use. Behaviour is checked against Go itself by `tests/go_fmt.rs`.
//!
//! Known differences from Go: `%p` of a map or slice prints `0x0` (there is no
//! address to show); output beyond [`MAX_OUTPUT`] is an error; `IsPrint` follows
//! the Unicode version of the Go that generated the table (see `printable`).

mod directive;
mod float;
mod format;
mod print;
mod printable;
mod quote;

use crate::error::{Error, ErrorKind, Result};
use crate::value::Value;
use print::Printer;

/// The most output one `Sprintf` may produce. Larger than any Kubernetes
/// object can be, so only absurd widths, precisions or repetitions reach it.
pub(crate) const MAX_OUTPUT: usize = 1 << 21;
const MAX_OUTPUT_I64: i64 = 1 << 21;

/// `fmt.Sprintf(format, args...)`.
///
/// # Errors
/// `ErrorKind::Limit` when the output would exceed [`MAX_OUTPUT`] bytes.
pub(crate) fn sprintf(format: &str, args: &[Value]) -> Result<String> {
    let mut p = Printer::new(format.len() + 16);
    p.do_printf(format, args);
    if p.too_large {
        let mut shown: String = format.chars().take(64).collect();
        if shown.len() < format.len() {
            shown.push_str("...");
        }
        let mut quoted = String::new();
        quote::append_quote(&mut quoted, &shown, false);
        return Err(Error::new(
            ErrorKind::Limit,
            format!("format {quoted}: output exceeds the limit of {MAX_OUTPUT} bytes"),
        ));
    }
    Ok(p.buf)
}

/// `fmt.Sprintf("%v", v)`.
pub(crate) fn sprint_v(v: &Value) -> String {
    let mut p = Printer::new(16);
    p.print_arg(v, 'v');
    p.buf
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
