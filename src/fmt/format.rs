//! Padding and the per-type formatters of Go's `fmt/format.go`.

use std::fmt::Write as _;

use super::flags::Base;
use super::print::Printer;
use crate::go::strconv::{float, quote};

const LDIGITS: &[u8; 16] = b"0123456789abcdef";
const UDIGITS: &[u8; 16] = b"0123456789ABCDEF";

impl Printer<'_> {
    /// Whether `n` more bytes fit in the output budget; marks the output as too large otherwise.
    pub(super) fn room_for(&mut self, n: i64) -> bool {
        let len = i64::try_from(self.buf.len()).unwrap_or(i64::MAX);
        if self.too_large || len.saturating_add(n) > super::MAX_OUTPUT_I64 {
            self.too_large = true;
            return false;
        }
        true
    }

    /// `writePadding`: `n` spaces, or zeros when zero-padding to the left.
    pub(super) fn write_padding(&mut self, n: i64) {
        if n <= 0 || !self.room_for(n) {
            return;
        }
        let pad = if self.f.zero && !self.f.minus {
            '0'
        } else {
            ' '
        };
        for _ in 0..n {
            self.buf.push(pad);
        }
    }

    /// `pad`: `s` padded to the width, on the left unless `-`.
    pub(super) fn pad(&mut self, s: &str) {
        if !self.f.wid_present || self.f.wid == 0 {
            self.buf.push_str(s);
            return;
        }
        let width = self.f.wid - count(s);
        if self.f.minus {
            self.buf.push_str(s);
            self.write_padding(width);
        } else {
            self.write_padding(width);
            self.buf.push_str(s);
        }
    }

    /// `pad` of `sign` followed by `body`, without building the joined string.
    fn pad_signed(&mut self, sign: Option<char>, body: &str) {
        let Some(sign) = sign else {
            return self.pad(body);
        };
        if !self.f.wid_present || self.f.wid == 0 {
            self.buf.push(sign);
            self.buf.push_str(body);
            return;
        }
        let width = self.f.wid - 1 - count(body);
        if self.f.minus {
            self.buf.push(sign);
            self.buf.push_str(body);
            self.write_padding(width);
        } else {
            self.write_padding(width);
            self.buf.push(sign);
            self.buf.push_str(body);
        }
    }

    /// `pad` with the zero flag off (numbers pad with zeros themselves).
    fn pad_spaces(&mut self, s: &str) {
        let zero = self.f.zero;
        self.f.zero = false;
        self.pad(s);
        self.f.zero = zero;
    }

    /// `fmtBoolean`.
    pub(super) fn fmt_boolean(&mut self, v: bool) {
        self.pad(if v { "true" } else { "false" });
    }

    /// `truncateString`: at most `prec` runes.
    fn truncate<'s>(&self, s: &'s str) -> &'s str {
        if self.f.prec_present {
            let n = usize::try_from(self.f.prec).unwrap_or(0);
            if let Some((i, _)) = s.char_indices().nth(n) {
                return &s[..i];
            }
        }
        s
    }

    /// `fmtS`.
    pub(super) fn fmt_s(&mut self, s: &str) {
        let s = self.truncate(s);
        self.pad(s);
    }

    /// `fmtSbx` for strings: two hex digits per byte.
    pub(super) fn fmt_sx(&mut self, s: &str, upper: bool) {
        let digits = if upper { UDIGITS } else { LDIGITS };
        // The string's bytes, raw ones as themselves.
        let bytes = crate::go::bytestr::to_bytes(s);
        let mut length = bytes.len();
        if self.f.prec_present {
            length = length.min(usize::try_from(self.f.prec).unwrap_or(0));
        }
        let n = i64::try_from(length).unwrap_or(i64::MAX);
        let mut width = 2 * n;
        if width > 0 {
            if self.f.space {
                if self.f.sharp {
                    width *= 2;
                }
                width += n - 1;
            } else if self.f.sharp {
                width += 2;
            }
        } else {
            if self.f.wid_present {
                self.write_padding(self.f.wid);
            }
            return;
        }
        if self.f.wid_present && self.f.wid > width && !self.f.minus {
            self.write_padding(self.f.wid - width);
        }
        let x = char::from(digits[15] + (b'x' - b'f'));
        if self.f.sharp {
            self.buf.push('0');
            self.buf.push(x);
        }
        for (i, &c) in bytes.iter().take(length).enumerate() {
            if self.f.space && i > 0 {
                self.buf.push(' ');
                if self.f.sharp {
                    self.buf.push('0');
                    self.buf.push(x);
                }
            }
            self.buf.push(char::from(digits[usize::from(c >> 4)]));
            self.buf.push(char::from(digits[usize::from(c & 0xF)]));
        }
        if self.f.wid_present && self.f.wid > width && self.f.minus {
            self.write_padding(self.f.wid - width);
        }
    }

    /// `fmtQ`: a Go string literal, back-quoted with `#` when possible, ASCII-only with `+`.
    pub(super) fn fmt_q(&mut self, s: &str) {
        let s = self.truncate(s);
        let mut q = String::with_capacity(s.len() + 2);
        if self.f.sharp && quote::can_backquote(s) {
            q.push('`');
            q.push_str(s);
            q.push('`');
        } else {
            quote::append_quote(&mut q, s, self.f.plus);
        }
        self.pad(&q);
    }

    /// `fmtC`: the character with code point `c` (U+FFFD when invalid).
    pub(super) fn fmt_c(&mut self, c: u64) {
        let r = u32::try_from(c)
            .ok()
            .and_then(char::from_u32)
            .unwrap_or('\u{fffd}');
        let mut b = [0; 4];
        self.pad(r.encode_utf8(&mut b));
    }

    /// `fmtQc`: a Go rune literal.
    pub(super) fn fmt_qc(&mut self, c: u64) {
        let r = u32::try_from(c).unwrap_or(0xFFFD);
        let mut q = String::with_capacity(8);
        quote::append_quote_rune(&mut q, r, self.f.plus);
        self.pad(&q);
    }

    /// `fmtUnicode`: `U+0041`, with `#` also `'A'` when printable.
    pub(super) fn fmt_unicode(&mut self, u: u64) {
        let mut prec = 4;
        if self.f.prec_present && self.f.prec > 4 {
            prec = self.f.prec;
            if !self.room_for(prec) {
                return;
            }
        }
        let mut hex = String::with_capacity(16);
        let _ = write!(hex, "{u:X}");
        let mut s = String::with_capacity(hex.len() + 10);
        s.push_str("U+");
        for _ in count(&hex)..prec {
            s.push('0');
        }
        s.push_str(&hex);
        if self.f.sharp
            && let Some(c) = u32::try_from(u).ok().and_then(char::from_u32)
            && crate::go::strconv::printable::is_print(u32::from(c))
        {
            s.push_str(" '");
            s.push(c);
            s.push('\'');
        }
        self.pad_spaces(&s);
    }

    /// `fmtInteger`: `u` in `base` (signed when `signed`), honouring precision, sign flags and `#`.
    pub(super) fn fmt_integer(
        &mut self,
        u: u64,
        base: Base,
        signed: bool,
        verb: char,
        upper: bool,
    ) {
        let digits = if upper { UDIGITS } else { LDIGITS };
        #[allow(clippy::cast_possible_wrap)] // Go's int64(u)
        let negative = signed && (u as i64) < 0;
        let mut u = if negative { u.wrapping_neg() } else { u };

        let mut prec: i64 = 0;
        if self.f.prec_present {
            prec = self.f.prec;
            if prec == 0 && u == 0 {
                let zero = self.f.zero;
                self.f.zero = false;
                self.write_padding(self.f.wid);
                self.f.zero = zero;
                return;
            }
        } else if self.f.zero && !self.f.minus && self.f.wid_present {
            prec = self.f.wid;
            if negative || self.f.plus || self.f.space {
                prec -= 1;
            }
        }
        if !self.room_for(prec) {
            return;
        }

        // Room for 64 binary digits, a sign and a prefix; bigger only for large precisions.
        let mut stack = [0u8; 72];
        let mut heap = Vec::new();
        let need = usize::try_from(prec).unwrap_or(0).saturating_add(8);
        let buf: &mut [u8] = if need <= stack.len() {
            &mut stack
        } else {
            heap.resize(need, 0);
            &mut heap
        };
        // Right to left, as Go does.
        let mut i = buf.len();
        let b = base as u64;
        loop {
            i -= 1;
            buf[i] = digits[usize::try_from(u % b).unwrap_or(0)];
            u /= b;
            if u == 0 {
                break;
            }
        }
        let start = i64::try_from(buf.len()).unwrap_or(i64::MAX);
        while i > 0 && prec > start - i64::try_from(i).unwrap_or(0) {
            i -= 1;
            buf[i] = b'0';
        }
        let leading_zero = buf[i] == b'0';
        let mut prefix = |bytes: &[u8]| {
            for &c in bytes.iter().rev() {
                i -= 1;
                buf[i] = c;
            }
        };
        if self.f.sharp {
            match base {
                Base::Bin => prefix(b"0b"),
                Base::Oct if !leading_zero => prefix(b"0"),
                Base::Hex => prefix(if upper { b"0X" } else { b"0x" }),
                _ => {}
            }
        }
        if verb == 'O' {
            prefix(b"0o");
        }
        if negative {
            prefix(b"-");
        } else if self.f.plus {
            prefix(b"+");
        } else if self.f.space {
            prefix(b" ");
        }
        let text = std::str::from_utf8(&buf[i..]).unwrap_or_default();
        let zero = self.f.zero;
        self.f.zero = false;
        self.pad(text);
        self.f.zero = zero;
    }

    /// `fmt0x64`: hexadecimal with or without a leading `0x`.
    pub(super) fn fmt_0x64(&mut self, v: u64, leading_0x: bool) {
        let sharp = self.f.sharp;
        self.f.sharp = leading_0x;
        self.fmt_integer(v, Base::Hex, false, 'v', false);
        self.f.sharp = sharp;
    }

    /// `fmt.fmtFloat`: strconv's text with Go's sign, `#` and zero-padding rules.
    pub(super) fn fmt_float(&mut self, v: f64, verb: u8, prec: i64) {
        let prec = if self.f.prec_present {
            self.f.prec
        } else {
            prec
        };
        // Every digit of a huge precision is output (or `#` pads to it).
        if !self.room_for(prec) {
            return;
        }
        let mut num = std::mem::take(&mut self.num);
        num.clear();
        float::append_float(&mut num, v, verb, prec, &mut self.scratch);
        let (mut sign, mut body) = match num.as_bytes().first() {
            Some(&c @ (b'-' | b'+')) => (c, &num[1..]),
            _ => (b'+', num.as_str()),
        };
        if self.f.space && sign == b'+' && !self.f.plus {
            sign = b' ';
        }
        // Infinities and NaN are not numbers to pad with zeros.
        if body.starts_with('I') || body.starts_with('N') {
            let keep_sign = !(body.starts_with('N') && !self.f.space && !self.f.plus);
            let zero = self.f.zero;
            self.f.zero = false;
            self.pad_signed(keep_sign.then_some(char::from(sign)), body);
            self.f.zero = zero;
            self.num = num;
            return;
        }
        let sharp_body;
        if self.f.sharp && verb != b'b' {
            sharp_body = sharp_digits(body, verb, prec);
            body = &sharp_body;
        }
        if self.f.plus || sign != b'+' {
            let len = i64::try_from(body.len() + 1).unwrap_or(i64::MAX);
            if self.f.zero && !self.f.minus && self.f.wid_present && self.f.wid > len {
                // Zeros go between the sign and the digits.
                self.buf.push(char::from(sign));
                self.write_padding(self.f.wid - len);
                self.buf.push_str(body);
            } else {
                self.pad_signed(Some(char::from(sign)), body);
            }
        } else {
            self.pad(body);
        }
        self.num = num;
    }
}

/// The `#` flag on floats: always a decimal point, and for `%g`/`%v`/`%x`
/// trailing zeros up to the precision (6 by default).
fn sharp_digits(body: &str, verb: u8, prec: i64) -> String {
    let mut digits: i64 = match verb {
        b'v' | b'g' | b'G' | b'x' => {
            if prec == -1 {
                6
            } else {
                prec
            }
        }
        _ => 0,
    };
    let mut num = body.as_bytes();
    let mut tail: &[u8] = &[];
    let mut has_point = false;
    let mut saw_nonzero = false;
    let mut i = 0;
    while i < num.len() {
        let c = num[i];
        match c {
            b'.' => has_point = true,
            b'p' | b'P' => {
                tail = &num[i..];
                num = &num[..i];
                break;
            }
            b'e' | b'E' if verb != b'x' && verb != b'X' => {
                tail = &num[i..];
                num = &num[..i];
                break;
            }
            _ => {
                if c != b'0' {
                    saw_nonzero = true;
                }
                if saw_nonzero {
                    digits -= 1;
                }
            }
        }
        i += 1;
    }
    let mut out = String::with_capacity(num.len() + tail.len() + 8);
    out.push_str(std::str::from_utf8(num).unwrap_or_default());
    if !has_point {
        if num == b"0" {
            digits -= 1;
        }
        out.push('.');
    }
    while digits > 0 {
        out.push('0');
        digits -= 1;
    }
    out.push_str(std::str::from_utf8(tail).unwrap_or_default());
    out
}

/// Go's `utf8.RuneCountInString` (our strings are valid UTF-8).
fn count(s: &str) -> i64 {
    i64::try_from(s.chars().count()).unwrap_or(i64::MAX)
}
