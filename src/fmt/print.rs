//! Operand printing of Go's `fmt/print.go`: `printArg`, `printValue` and the `%!verb(...)` errors.
//!
//! The printer keeps Go's `p.arg` / `p.value` state because the bad-verb text
//! of an element depends on which of the two was set last.

use super::flags::{Base, Flags};
use crate::value::Value;

/// A concrete operand: a value, or a map key (a Go `string` reached by reflection).
#[derive(Clone, Copy)]
pub(super) enum Operand<'a> {
    Value(&'a Value),
    Key(&'a str),
}

/// Go's `p.value`: invalid, a concrete value, or an `interface {}` slot holding a value.
#[derive(Clone, Copy)]
enum Reflected<'a> {
    Invalid,
    Concrete(Operand<'a>),
    Slot(&'a Value),
}

/// Go's `pp`: the output buffer and the state of the directive being printed.
pub(super) struct Printer<'a> {
    pub(super) buf: String,
    pub(super) f: Flags,
    /// `p.arg`; `None` is Go's nil.
    arg: Option<Operand<'a>>,
    value: Reflected<'a>,
    erroring: bool,
    pub(super) reordered: bool,
    pub(super) good_arg_num: bool,
    /// Set once the output would exceed the limit; the result is then an error.
    pub(super) too_large: bool,
    /// Reusable buffers for float formatting.
    pub(super) num: String,
    pub(super) scratch: crate::go::strconv::float::Scratch,
}

impl<'a> Printer<'a> {
    pub(super) fn new(capacity: usize) -> Self {
        Printer {
            buf: String::with_capacity(capacity),
            f: Flags::default(),
            arg: None,
            value: Reflected::Invalid,
            erroring: false,
            reordered: false,
            good_arg_num: true,
            too_large: false,
            num: String::new(),
            scratch: crate::go::strconv::float::Scratch::default(),
        }
    }

    /// `printArg`: one operand of the argument list.
    pub(super) fn print_arg(&mut self, arg: &'a Value, verb: char) {
        self.value = Reflected::Invalid;
        if arg.is_null() {
            self.arg = None;
            match verb {
                'T' | 'v' => self.pad("<nil>"),
                _ => self.bad_verb(verb),
            }
            return;
        }
        self.arg = Some(Operand::Value(arg));
        match verb {
            'T' => return self.fmt_s(arg.go_type()),
            // Go prints the address of a map or slice; there is none here, so
            // they print as a nil pointer would.
            'p' if matches!(arg, Value::Object(_) | Value::Array(_)) => {
                return self.fmt_0x64(0, !self.f.sharp);
            }
            'p' => return self.bad_verb(verb),
            _ => {}
        }
        match arg {
            Value::Object(_) | Value::Array(_) => {
                if !self.handle_methods(verb) {
                    self.print_value(Operand::Value(arg), verb, 0);
                }
            }
            _ => self.print_scalar(Operand::Value(arg), verb),
        }
    }

    /// `handleMethods`: our operands have no methods; only `%w` (never valid in Sprintf) matters.
    fn handle_methods(&mut self, verb: char) -> bool {
        if self.erroring || verb != 'w' {
            return false;
        }
        self.bad_verb(verb);
        true
    }

    /// `printValue` for a concrete operand.
    fn print_value(&mut self, v: Operand<'a>, verb: char, depth: usize) {
        if self.too_large {
            return;
        }
        if depth > 0 {
            self.arg = Some(v);
            if self.handle_methods(verb) {
                return;
            }
        }
        self.arg = None;
        self.value = Reflected::Concrete(v);
        match v {
            Operand::Value(Value::Object(m)) => {
                if self.f.sharp_v {
                    self.buf.push_str("map[string]interface {}{");
                } else {
                    self.buf.push_str("map[");
                }
                for (i, (k, item)) in m.iter().enumerate() {
                    if i > 0 {
                        self.buf.push_str(if self.f.sharp_v { ", " } else { " " });
                    }
                    self.print_value(Operand::Key(k), verb, depth + 1);
                    self.buf.push(':');
                    self.print_slot(item, verb, depth + 1);
                }
                self.buf.push(if self.f.sharp_v { '}' } else { ']' });
            }
            Operand::Value(Value::Array(a)) => {
                if self.f.sharp_v {
                    self.buf.push_str("[]interface {}{");
                } else {
                    self.buf.push('[');
                }
                for (i, item) in a.iter().enumerate() {
                    if i > 0 {
                        self.buf.push_str(if self.f.sharp_v { ", " } else { " " });
                    }
                    self.print_slot(item, verb, depth + 1);
                }
                self.buf.push(if self.f.sharp_v { '}' } else { ']' });
            }
            _ => self.print_scalar(v, verb),
        }
        self.check_size();
    }

    /// `printValue` for an `interface {}` element of a map or slice.
    fn print_slot(&mut self, item: &'a Value, verb: char, depth: usize) {
        self.arg = if item.is_null() {
            None
        } else {
            Some(Operand::Value(item))
        };
        if self.handle_methods(verb) {
            return;
        }
        self.arg = None;
        self.value = Reflected::Slot(item);
        if item.is_null() {
            // Unpadded, whatever the verb.
            self.buf.push_str(if self.f.sharp_v {
                "interface {}(nil)"
            } else {
                "<nil>"
            });
        } else {
            self.print_value(Operand::Value(item), verb, depth + 1);
        }
    }

    /// The type switch of `printArg` / kinds of `printValue` for scalars.
    fn print_scalar(&mut self, v: Operand<'a>, verb: char) {
        match v {
            Operand::Key(s) => self.fmt_string(s, verb),
            Operand::Value(Value::String(s)) => self.fmt_string(s, verb),
            Operand::Value(Value::Bool(b)) => match verb {
                't' | 'v' => self.fmt_boolean(*b),
                _ => self.bad_verb(verb),
            },
            #[allow(clippy::cast_sign_loss)] // Go's uint64(int64)
            Operand::Value(Value::Int(i)) => self.fmt_int64(*i as u64, verb),
            Operand::Value(Value::Float(x)) => self.fmt_float64(*x, verb),
            // Only containers and nil are left; they never reach here but print as operands.
            Operand::Value(v) => self.print_arg(v, verb),
        }
    }

    /// print.go `fmtString`.
    fn fmt_string(&mut self, s: &str, verb: char) {
        match verb {
            'v' if self.f.sharp_v => self.fmt_q(s),
            'v' | 's' => self.fmt_s(s),
            'x' => self.fmt_sx(s, false),
            'X' => self.fmt_sx(s, true),
            'q' => self.fmt_q(s),
            _ => self.bad_verb(verb),
        }
    }

    /// print.go `fmtInteger` for int64.
    fn fmt_int64(&mut self, u: u64, verb: char) {
        match verb {
            'v' | 'd' => self.fmt_integer(u, Base::Dec, true, verb, false),
            'b' => self.fmt_integer(u, Base::Bin, true, verb, false),
            'o' | 'O' => self.fmt_integer(u, Base::Oct, true, verb, false),
            'x' => self.fmt_integer(u, Base::Hex, true, verb, false),
            'X' => self.fmt_integer(u, Base::Hex, true, verb, true),
            'c' => self.fmt_c(u),
            'q' => self.fmt_qc(u),
            'U' => self.fmt_unicode(u),
            _ => self.bad_verb(verb),
        }
    }

    /// print.go `fmtFloat` for float64.
    fn fmt_float64(&mut self, v: f64, verb: char) {
        match verb {
            'v' => self.fmt_float(v, b'g', -1),
            'b' | 'g' | 'G' | 'x' | 'X' => self.fmt_float(v, verb as u8, -1),
            'f' | 'e' | 'E' => self.fmt_float(v, verb as u8, 6),
            'F' => self.fmt_float(v, b'f', 6),
            _ => self.bad_verb(verb),
        }
    }

    /// `badVerb`: `%!verb(type=value)`, the value printed with `%v` and the directive's flags.
    pub(super) fn bad_verb(&mut self, verb: char) {
        self.erroring = true;
        self.buf.push_str("%!");
        self.buf.push(verb);
        self.buf.push('(');
        match (self.arg, self.value) {
            (Some(arg), _) => {
                self.buf.push_str(type_of(arg));
                self.buf.push('=');
                match arg {
                    Operand::Value(v) => self.print_arg(v, 'v'),
                    Operand::Key(_) => {
                        self.value = Reflected::Invalid;
                        self.print_scalar(arg, 'v');
                    }
                }
            }
            (None, Reflected::Concrete(v)) => {
                self.buf.push_str(type_of(v));
                self.buf.push('=');
                self.print_value(v, 'v', 0);
            }
            (None, Reflected::Slot(v)) => {
                self.buf.push_str("interface {}=");
                if v.is_null() {
                    self.buf.push_str(if self.f.sharp_v {
                        "interface {}(nil)"
                    } else {
                        "<nil>"
                    });
                } else {
                    self.print_value(Operand::Value(v), 'v', 1);
                }
            }
            (None, Reflected::Invalid) => self.buf.push_str("<nil>"),
        }
        self.buf.push(')');
        self.erroring = false;
    }

    /// `%!verb(BADINDEX)`.
    pub(super) fn bad_arg_num(&mut self, verb: char) {
        self.buf.push_str("%!");
        self.buf.push(verb);
        self.buf.push_str("(BADINDEX)");
    }

    /// `%!verb(MISSING)`.
    pub(super) fn missing_arg(&mut self, verb: char) {
        self.buf.push_str("%!");
        self.buf.push(verb);
        self.buf.push_str("(MISSING)");
    }

    /// Stops growing once the output is over the limit (content, not only padding, can repeat).
    pub(super) fn check_size(&mut self) {
        if self.buf.len() > super::MAX_OUTPUT {
            self.too_large = true;
        }
    }
}

fn type_of(v: Operand<'_>) -> &'static str {
    match v {
        Operand::Value(v) => v.go_type(),
        Operand::Key(_) => "string",
    }
}
