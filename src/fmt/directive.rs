//! Go's `doPrintf`: directives, flags, widths, precisions, argument indexes and EXTRA.

use super::flags::Flags;
use super::print::Printer;
use crate::value::Value;

/// Go's `tooLarge`: widths, precisions and indexes beyond a million are refused.
fn too_large(x: i64) -> bool {
    !(-1_000_000..=1_000_000).contains(&x)
}

/// Go's `parsenum`: `(number, found, next index)`; an overflowing number jumps to `end`.
fn parsenum(s: &[u8], start: usize, end: usize) -> (i64, bool, usize) {
    if start >= end {
        return (0, false, end);
    }
    let mut num: i64 = 0;
    let mut found = false;
    let mut i = start;
    while i < end && s.get(i).is_some_and(u8::is_ascii_digit) {
        if too_large(num) {
            return (0, false, end);
        }
        num = num * 10 + i64::from(s[i] - b'0');
        found = true;
        i += 1;
    }
    (num, found, i)
}

/// Go's `parseArgNumber` on `s` starting at `[`: `(index - 1, bytes consumed, ok)`.
fn parse_arg_number(s: &[u8]) -> (i64, usize, bool) {
    if s.len() < 3 {
        return (0, 1, false);
    }
    for i in 1..s.len() {
        if s[i] == b']' {
            let (n, ok, newi) = parsenum(s, 1, i);
            if !ok || newi != i {
                return (0, i + 1, false);
            }
            return (n - 1, i + 1, true);
        }
    }
    (0, 1, false)
}

/// Go's `intFromArg`: a `*` width or precision; only integers qualify.
fn int_from_arg(a: &[Value], arg_num: usize) -> (i64, bool, usize) {
    match a.get(arg_num) {
        Some(v) => {
            let (n, ok) = match v {
                Value::Int(n) if !too_large(*n) => (*n, true),
                _ => (0, false),
            };
            (n, ok, arg_num + 1)
        }
        None => (0, false, arg_num),
    }
}

impl<'a> Printer<'a> {
    /// Go's `argNumber`: an explicit `[n]` index at `i`, if any.
    fn arg_number(
        &mut self,
        arg_num: usize,
        s: &[u8],
        i: usize,
        num_args: usize,
    ) -> (usize, usize, bool) {
        if s.get(i) != Some(&b'[') {
            return (arg_num, i, false);
        }
        self.reordered = true;
        let (index, wid, ok) = parse_arg_number(s.get(i..).unwrap_or_default());
        if ok
            && let Ok(index) = usize::try_from(index)
            && index < num_args
        {
            return (index, i + wid, true);
        }
        self.good_arg_num = false;
        (arg_num, i + wid, ok)
    }

    /// `doPrintf`.
    pub(super) fn do_printf(&mut self, format: &str, a: &'a [Value]) {
        let s = format.as_bytes();
        let end = s.len();
        let mut arg_num = 0;
        let mut i = 0;
        self.reordered = false;
        while i < end {
            if self.too_large {
                return;
            }
            self.good_arg_num = true;
            let lasti = i;
            while i < end && s[i] != b'%' {
                i += 1;
            }
            if i > lasti {
                self.buf.push_str(format.get(lasti..i).unwrap_or_default());
            }
            if i >= end {
                break;
            }
            i += 1;

            self.f = Flags::default();
            while i < end {
                match s[i] {
                    b'#' => self.f.sharp = true,
                    b'0' => self.f.zero = true,
                    b'+' => self.f.plus = true,
                    b'-' => self.f.minus = true,
                    b' ' => self.f.space = true,
                    _ => break,
                }
                i += 1;
            }

            (arg_num, i) = self.width_and_precision(s, i, arg_num, a);

            let Some(verb) = format.get(i..).and_then(|rest| rest.chars().next()) else {
                self.buf.push_str("%!(NOVERB)");
                break;
            };
            i += verb.len_utf8();

            match verb {
                '%' => self.buf.push('%'),
                _ if !self.good_arg_num => self.bad_arg_num(verb),
                _ => match a.get(arg_num) {
                    None => self.missing_arg(verb),
                    Some(arg) => {
                        if verb == 'v' || verb == 'w' {
                            // Under %v, `#` means Go syntax and `+` field names (no structs here).
                            self.f.sharp_v = self.f.sharp;
                            self.f.sharp = false;
                            self.f.plus = false;
                        }
                        self.print_arg(arg, verb);
                        arg_num += 1;
                    }
                },
            }
            self.check_size();
        }

        if !self.reordered && arg_num < a.len() {
            self.extra(a.get(arg_num..).unwrap_or_default());
        }
    }

    /// The argument indexes, width and precision of a directive from `i` (after its
    /// flags), the last two into `self.f`: `(argument, index of the verb)`.
    #[inline]
    fn width_and_precision(
        &mut self,
        s: &[u8],
        mut i: usize,
        mut arg_num: usize,
        a: &[Value],
    ) -> (usize, usize) {
        let end = s.len();
        let mut after_index;
        (arg_num, i, after_index) = self.arg_number(arg_num, s, i, a.len());

        if i < end && s[i] == b'*' {
            i += 1;
            let (n, ok, next) = int_from_arg(a, arg_num);
            (self.f.wid, self.f.wid_present, arg_num) = (n, ok, next);
            if !ok {
                self.buf.push_str("%!(BADWIDTH)");
            }
            if self.f.wid < 0 {
                self.f.wid = -self.f.wid;
                self.f.minus = true;
                self.f.zero = false;
            }
            after_index = false;
        } else {
            (self.f.wid, self.f.wid_present, i) = parsenum(s, i, end);
            if after_index && self.f.wid_present {
                self.good_arg_num = false;
            }
        }

        if i + 1 < end && s[i] == b'.' {
            i += 1;
            if after_index {
                self.good_arg_num = false;
            }
            (arg_num, i, after_index) = self.arg_number(arg_num, s, i, a.len());
            if i < end && s[i] == b'*' {
                i += 1;
                let (n, ok, next) = int_from_arg(a, arg_num);
                (self.f.prec, self.f.prec_present, arg_num) = (n, ok, next);
                if self.f.prec < 0 {
                    self.f.prec = 0;
                    self.f.prec_present = false;
                }
                if !self.f.prec_present {
                    self.buf.push_str("%!(BADPREC)");
                }
                after_index = false;
            } else {
                (self.f.prec, self.f.prec_present, i) = parsenum(s, i, end);
                if !self.f.prec_present {
                    self.f.prec = 0;
                    self.f.prec_present = true;
                }
            }
        }

        if !after_index {
            (arg_num, i, _) = self.arg_number(arg_num, s, i, a.len());
        }
        (arg_num, i)
    }

    /// Go's `%!(EXTRA type=value, ...)` for the arguments no directive used.
    #[cold]
    fn extra(&mut self, unused: &'a [Value]) {
        self.f = Flags::default();
        self.buf.push_str("%!(EXTRA ");
        for (k, arg) in unused.iter().enumerate() {
            if k > 0 {
                self.buf.push_str(", ");
            }
            if arg.is_null() {
                self.buf.push_str("<nil>");
            } else {
                self.buf.push_str(arg.go_type());
                self.buf.push('=');
                self.print_arg(arg, 'v');
            }
        }
        self.buf.push(')');
        self.check_size();
    }
}
