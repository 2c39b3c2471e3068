//! Go's `regexp/syntax` parser over a pattern, emitting regex-lite syntax: groups,
//! repetitions, flags and escapes, with Go's limits and error texts.

use super::class::{emit_class, literal, parse_class, parse_escape, perl_class, unicode_class};
use super::{Groups, MAX_CLASS_BYTES, MAX_DEPTH, MAX_REPEAT, SyntaxError, go_error};
use crate::semantics::Semantics;
use crate::transform::unicode;

/// One element of a concatenation being built.
struct Item {
    text: String,
    /// One character, class or group: a repetition needs no wrapping group.
    simple: bool,
    /// Whether a repetition operator may apply to it (flag groups may not).
    atom: bool,
    /// The largest product of `{n,m}` counts nested inside it.
    prod: u64,
}

struct Frame {
    prefix: String,
    alts: Vec<String>,
    items: Vec<Item>,
    prod: u64,
    /// Case-insensitive (`(?i)`): folding is done here, not by regex-lite,
    /// whose folding is ASCII-only.
    fold: bool,
}

impl Frame {
    fn new(prefix: String, fold: bool) -> Self {
        Self {
            prefix,
            alts: Vec::new(),
            items: Vec::new(),
            prod: 1,
            fold,
        }
    }

    fn end_alt(&mut self) {
        let mut s = String::new();
        for it in self.items.drain(..) {
            self.prod = self.prod.max(it.prod);
            s.push_str(&it.text);
        }
        self.alts.push(s);
    }

    fn finish(mut self) -> (String, u64) {
        self.end_alt();
        (
            format!("{}{})", self.prefix, self.alts.join("|")),
            self.prod,
        )
    }
}

pub(super) fn translate_as(
    pattern: &str,
    sem: Semantics,
    groups: Groups,
) -> Result<String, SyntaxError> {
    let s = pattern;
    let mut stack: Vec<Frame> = vec![Frame::new(String::new(), false)];
    let mut i = 0;
    let mut last_repeat: Option<usize> = None;
    // Bytes of classes emitted: a three-byte `\pL` becomes some ten kilobytes of ranges.
    let mut class_bytes = 0usize;
    while i < s.len() {
        let rest = &s[i..];
        let c = rest.chars().next().unwrap_or('\0');
        let mut repeat_start: Option<usize> = None;
        match c {
            '(' => {
                if rest.starts_with("(?") {
                    i = open_perl_group(s, i, &mut stack, sem, groups)?;
                } else {
                    let fold = top(&mut stack).fold;
                    stack.push(Frame::new(groups.open().to_owned(), fold));
                    i += 1;
                }
                if stack.len() > MAX_DEPTH {
                    return Err(go_error("expression nests too deeply", s));
                }
            }
            '|' => {
                top(&mut stack).end_alt();
                i += 1;
            }
            ')' => {
                if stack.len() < 2 {
                    return Err(go_error("unexpected )", s));
                }
                let frame = stack
                    .pop()
                    .unwrap_or_else(|| Frame::new(String::new(), false));
                let (text, prod) = frame.finish();
                push_atom(&mut stack, text, prod);
                i += 1;
            }
            '^' | '$' | '.' => {
                push_atom(&mut stack, c.to_string(), 1);
                i += 1;
            }
            '[' => {
                let (class, next) = parse_class(s, i, top(&mut stack).fold, sem)?;
                class_bytes += class.len();
                if class_bytes > MAX_CLASS_BYTES {
                    return Err(go_error("expression too large", s));
                }
                push_atom(&mut stack, class, 1);
                i = next;
            }
            '*' | '+' | '?' | '{' => {
                let (op, end) = if c == '{' {
                    match parse_repeat(rest) {
                        Some((min, max, len)) => {
                            let end = i + len;
                            if !(0..=1000).contains(&min) || max > 1000 || max >= 0 && min > max {
                                return Err(go_error("invalid repeat count", &s[i..end]));
                            }
                            (Rep::Count(min, max), end)
                        }
                        None => {
                            // Not a repetition: a literal brace.
                            push_literal(&mut stack, '{');
                            i += 1;
                            last_repeat = None;
                            continue;
                        }
                    }
                } else {
                    (Rep::Op(c), i + 1)
                };
                let mut end = end;
                let mut lazy = false;
                if s[end..].starts_with('?') {
                    end += 1;
                    lazy = true;
                }
                if let Some(start) = last_repeat {
                    return Err(go_error(
                        "invalid nested repetition operator",
                        &s[start..end],
                    ));
                }
                apply_repeat(&mut stack, op, lazy).map_err(|code| go_error(code, &s[i..end]))?;
                repeat_start = Some(i);
                i = end;
            }
            '\\' => {
                let before = top(&mut stack).items.len();
                i = parse_backslash(s, i, &mut stack, sem)?;
                let pushed = &top(&mut stack).items[before..];
                class_bytes += pushed.iter().map(|it| it.text.len()).sum::<usize>();
                if class_bytes > MAX_CLASS_BYTES {
                    return Err(go_error("expression too large", s));
                }
            }
            _ => {
                push_literal(&mut stack, c);
                i += c.len_utf8();
            }
        }
        last_repeat = repeat_start;
    }
    if stack.len() > 1 {
        return Err(go_error("missing closing )", s));
    }
    let frame = stack
        .pop()
        .unwrap_or_else(|| Frame::new(String::new(), false));
    let (text, _) = frame.finish();
    // Drop the closing parenthesis `finish` added for the top level.
    Ok(text[..text.len() - 1].to_owned())
}

fn top(stack: &mut [Frame]) -> &mut Frame {
    let n = stack.len();
    &mut stack[n - 1]
}

/// A literal character, as a class of its case variants under `(?i)`.
fn push_literal(stack: &mut [Frame], c: char) {
    let text = if top(stack).fold {
        let orbit = unicode::orbit(c);
        if orbit.len() > 1 {
            emit_class(
                orbit
                    .iter()
                    .map(|&c| (u32::from(c), u32::from(c)))
                    .collect(),
                false,
            )
        } else {
            literal(c)
        }
    } else {
        literal(c)
    };
    push_atom(stack, text, 1);
}

fn push_atom(stack: &mut [Frame], text: String, prod: u64) {
    let b = text.as_bytes();
    // A group, a class or one (escaped) character can take an operator as is;
    // assertions and repeated items are wrapped first.
    let simple = text.len() == 1 && text != "^" && text != "$"
        || text.starts_with("\\x{") && text.ends_with('}') && text.matches('{').count() == 1
        || b.first() == Some(&b'[') && b.last() == Some(&b']')
        || b.first() == Some(&b'(') && b.last() == Some(&b')') && !text.starts_with("(?:\\b\\B");
    top(stack).items.push(Item {
        text,
        simple,
        atom: true,
        prod,
    });
}

#[derive(Clone, Copy)]
enum Rep {
    Op(char),
    Count(i64, i64),
}

/// Applies a repetition to the last atom of the current concatenation.
fn apply_repeat(stack: &mut [Frame], op: Rep, lazy: bool) -> Result<(), &'static str> {
    let frame = top(stack);
    let Some(pos) = frame.items.iter().rposition(|it| it.atom) else {
        return Err("missing argument to repetition operator");
    };
    let item = &mut frame.items[pos];
    let (suffix, prod) = match op {
        Rep::Op(c) => (c.to_string(), item.prod),
        Rep::Count(min, max) => {
            let text = match max {
                -1 => format!("{{{min},}}"),
                m if m == min => format!("{{{min}}}"),
                m => format!("{{{min},{m}}}"),
            };
            // Go's repeatIsValid: the product of nested counts is at most 1000.
            let factor = if max == 0 {
                0
            } else {
                u64::try_from(if max < 0 { min } else { max })
                    .unwrap_or(0)
                    .max(1)
            };
            let prod = factor.saturating_mul(item.prod);
            if (min >= 2 || max >= 2) && prod > MAX_REPEAT {
                return Err("invalid repeat count");
            }
            (text, prod)
        }
    };
    let lazy = if lazy { "?" } else { "" };
    item.text = if item.simple {
        format!("{}{suffix}{lazy}", item.text)
    } else {
        format!("(?:{}){suffix}{lazy}", item.text)
    };
    item.simple = false;
    item.prod = prod;
    Ok(())
}

/// `parseRepeat`: `{n}`, `{n,}`, `{n,m}` → (min, max or -1, length).
fn parse_repeat(s: &str) -> Option<(i64, i64, usize)> {
    let b = s.as_bytes();
    let mut i = 1;
    let min = parse_int(b, &mut i)?;
    let max = match b.get(i)? {
        b',' => {
            i += 1;
            if *b.get(i)? == b'}' {
                -1
            } else {
                let m = parse_int(b, &mut i)?;
                if m < 0 {
                    // Too large a maximum makes the count invalid.
                    return if b.get(i) == Some(&b'}') {
                        Some((-1, -1, i + 1))
                    } else {
                        None
                    };
                }
                m
            }
        }
        _ => min,
    };
    if b.get(i) != Some(&b'}') {
        return None;
    }
    Some((min, max, i + 1))
}

/// `parser.parseInt`: no leading zeros; -1 for absurdly large values.
fn parse_int(b: &[u8], i: &mut usize) -> Option<i64> {
    let start = *i;
    if !b.get(start)?.is_ascii_digit() {
        return None;
    }
    if b[start] == b'0' && b.get(start + 1).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    while b.get(*i).is_some_and(u8::is_ascii_digit) {
        *i += 1;
    }
    let mut n: i64 = 0;
    for &d in &b[start..*i] {
        if n >= 100_000_000 {
            return Some(-1);
        }
        n = n * 10 + i64::from(d - b'0');
    }
    Some(n)
}

/// `(?` groups: flags, non-capturing groups and named captures.
fn open_perl_group(
    s: &str,
    i: usize,
    stack: &mut Vec<Frame>,
    sem: Semantics,
    groups: Groups,
) -> Result<usize, SyntaxError> {
    let t = &s[i..];
    let b = t.as_bytes();
    // Named captures: (?P<name>re) always, (?<name>re) from Go 1.22 on.
    let python = b.len() > 4 && b[2] == b'P' && b[3] == b'<';
    let angle = sem == Semantics::Function && b.len() > 3 && b[2] == b'<';
    if python || angle {
        let begin = if python { 4 } else { 3 };
        let Some(end) = t.find('>') else {
            return Err(go_error("invalid named capture", t));
        };
        let name = &t[begin..end];
        if name.is_empty() || !name.bytes().all(|c| c == b'_' || c.is_ascii_alphanumeric()) {
            return Err(go_error("invalid named capture", &t[..=end]));
        }
        // Names are dropped: only group numbers matter to Crossplane, and Go
        // allows duplicate names where regex-lite does not.
        let fold = top(stack).fold;
        stack.push(Frame::new(groups.open().to_owned(), fold));
        return Ok(i + end + 1);
    }
    let mut on = String::new();
    let mut off = String::new();
    let mut fold = top(stack).fold;
    let mut negated = false;
    let mut saw_flag = false;
    let mut j = 2;
    loop {
        let Some(c) = t[j..].chars().next() else {
            return Err(go_error("invalid or unsupported Perl syntax", t));
        };
        j += c.len_utf8();
        match c {
            'i' | 'm' | 's' | 'U' => {
                if c == 'i' {
                    fold = !negated;
                } else if negated {
                    off.push(c);
                } else {
                    on.push(c);
                }
                saw_flag = true;
            }
            '-' if !negated => {
                negated = true;
                saw_flag = false;
            }
            ':' | ')' if !negated || saw_flag => {
                // `i` is applied by the translation itself, never by regex-lite.
                let flags = match (on.is_empty(), off.is_empty()) {
                    (true, true) => String::new(),
                    (false, true) => format!("(?{on}"),
                    (_, false) => format!("(?{on}-{off}"),
                };
                if c == ':' {
                    let prefix = if flags.is_empty() {
                        "(?:".to_owned()
                    } else {
                        flags + ":"
                    };
                    stack.push(Frame::new(prefix, fold));
                } else {
                    let frame = top(stack);
                    frame.fold = fold;
                    if !flags.is_empty() {
                        frame.items.push(Item {
                            text: flags + ")",
                            simple: false,
                            atom: false,
                            prod: 1,
                        });
                    }
                }
                return Ok(i + j);
            }
            _ => return Err(go_error("invalid or unsupported Perl syntax", &t[..j])),
        }
    }
}

/// A backslash outside a class: assertions, `\Q…\E`, classes, escapes.
fn parse_backslash(
    s: &str,
    i: usize,
    stack: &mut [Frame],
    sem: Semantics,
) -> Result<usize, SyntaxError> {
    let t = &s[i..];
    let next = t[1..].chars().next();
    match next {
        Some('A') => push_atom(stack, r"\A".to_owned(), 1),
        Some('z') => push_atom(stack, r"\z".to_owned(), 1),
        Some('b') => push_atom(stack, r"\b".to_owned(), 1),
        Some('B') => push_atom(stack, r"\B".to_owned(), 1),
        Some('C') => return Err(go_error("invalid escape sequence", &t[..2])),
        Some('Q') => {
            let body = &t[2..];
            let (lit, consumed) = match body.find(r"\E") {
                Some(k) => (&body[..k], 2 + k + 2),
                None => (body, t.len()),
            };
            for c in lit.chars() {
                push_literal(stack, c);
            }
            return Ok(i + consumed);
        }
        Some('p' | 'P') => {
            let (ranges, negated, len) = unicode_class(t, sem, top(stack).fold)?;
            push_atom(stack, emit_class(ranges, negated), 1);
            return Ok(i + len);
        }
        Some(c @ ('d' | 'D' | 's' | 'S' | 'w' | 'W')) => {
            let (ranges, negated) = perl_class(c);
            let ranges = if top(stack).fold {
                unicode::fold_ranges(&ranges)
            } else {
                ranges
            };
            push_atom(stack, emit_class(ranges, negated), 1);
        }
        _ => {
            let (c, len) = parse_escape(t)?;
            push_literal(stack, c);
            return Ok(i + len);
        }
    }
    Ok(i + 2)
}
