//! Go's `fmt.Sprintf`, byte for byte, for the operand types compositions produce.
//!
//! Operands are Go's `nil`, `bool`, `string`, `int64`, `float64`,
//! `map[string]interface {}` and `[]interface {}`. The module mirrors Go's own
//! split: `directive` is `doPrintf`, `print` is `printArg`/`printValue`,
//! `format` is `fmt/format.go`; the parts of `strconv` they use live in
//! [`crate::go::strconv`]. Behaviour is checked against Go itself by `tests/go_fmt.rs`.
//!
//! Known differences from Go: `%p` of a map or slice prints `0x0` (there is no
//! address to show); output beyond [`MAX_OUTPUT`] is an error; `IsPrint` follows
//! the Unicode version of the Go that generated the table (see `go::strconv::printable`).

mod directive;
mod flags;
mod format;
mod print;

use crate::error::{Error, ErrorKind, Result};
use crate::go::strconv::quote;
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
