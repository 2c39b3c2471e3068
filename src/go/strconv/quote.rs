//! Go's `strconv` quoting: `Quote`, `QuoteToASCII`, `QuoteRune(ToASCII)` and `CanBackquote`.

use super::printable::is_print;

const LOWER_HEX: &[u8; 16] = b"0123456789abcdef";

/// `strconv.AppendQuote` (`ascii == false`) or `strconv.AppendQuoteToASCII`.
pub(crate) fn append_quote(out: &mut String, s: &str, ascii: bool) {
    out.reserve(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        // A byte that is not valid UTF-8 is written `\xNN`, as Go writes it.
        if let Some(b) = crate::go::bytestr::raw_byte(c) {
            out.push_str("\\x");
            out.push(char::from(LOWER_HEX[usize::from(b >> 4)]));
            out.push(char::from(LOWER_HEX[usize::from(b & 0xF)]));
            continue;
        }
        append_escaped(out, c as u32, '"', ascii);
    }
    out.push('"');
}

/// `strconv.AppendQuoteRune` / `AppendQuoteRuneToASCII`; invalid runes become U+FFFD.
pub(crate) fn append_quote_rune(out: &mut String, r: u32, ascii: bool) {
    let r = if char::from_u32(r).is_some() {
        r
    } else {
        0xFFFD
    };
    out.push('\'');
    append_escaped(out, r, '\'', ascii);
    out.push('\'');
}

/// `strconv.CanBackquote`: a single-line string without control characters, backquotes or BOMs.
pub(crate) fn can_backquote(s: &str) -> bool {
    s.chars().all(|c| match c {
        c if crate::go::bytestr::raw_byte(c).is_some() => false,
        '\u{feff}' | '`' | '\u{7f}' => false,
        '\t' => true,
        c => c >= ' ',
    })
}

/// `strconv.appendEscapedRune` for a valid rune `r`.
fn append_escaped(out: &mut String, r: u32, quote: char, ascii: bool) {
    let c = char::from_u32(r).unwrap_or('\u{fffd}');
    if c == quote || c == '\\' {
        out.push('\\');
        out.push(c);
        return;
    }
    let printable = if ascii {
        r < 0x80 && is_print(r)
    } else {
        is_print(r)
    };
    if printable {
        out.push(c);
        return;
    }
    let simple = match c {
        '\u{7}' => "\\a",
        '\u{8}' => "\\b",
        '\u{c}' => "\\f",
        '\n' => "\\n",
        '\r' => "\\r",
        '\t' => "\\t",
        '\u{b}' => "\\v",
        _ => "",
    };
    if !simple.is_empty() {
        out.push_str(simple);
        return;
    }
    let (prefix, digits) = if r < 0x20 || r == 0x7f {
        ("\\x", 2)
    } else if r < 0x10000 {
        ("\\u", 4)
    } else {
        ("\\U", 8)
    };
    out.push_str(prefix);
    for i in (0..digits).rev() {
        out.push(char::from(LOWER_HEX[((r >> (4 * i)) & 0xF) as usize]));
    }
}
