//! Go RE2 syntax on regex-lite: Go's parser rules and error texts, translated
//! to an equivalent regex-lite pattern.
//!
//! Go's `regexp` is what Crossplane compiles; regex-lite's syntax differs
//! (Perl classes, `\Q…\E`, octal escapes, nested classes, flags, limits), so
//! the pattern is parsed here as Go's `regexp/syntax` parses it, rejected
//! with Go's message where Go rejects it, and re-emitted in a form whose
//! meaning regex-lite cannot misread: literals as `\x{..}`, classes as
//! explicit ranges, `\d \s \w` as Go's ASCII sets.
//!
//! regex-lite has no Unicode tables and folds ASCII only, so Unicode classes
//! (`\pL`, `\p{Greek}`, `\P{^Lu}`) are expanded here into ranges from Go's own
//! tables, and `(?i)` is applied here, with Go's simple case folding orbits
//! (`unicode.SimpleFold`), before regex-lite sees the pattern (`unicode.rs`).

use std::cell::RefCell;
use std::sync::Arc;

use super::unicode::{self, Ranges};
use crate::semantics::Semantics;

/// Go's limit on `{n,m}` counts, and on their nested product.
const MAX_REPEAT: u64 = 1000;
/// Group nesting accepted. Go allows 1000 (`maxHeight`); regex-lite's
/// recursive parser needs more stack than a wasm module has for that, so the
/// engine stops earlier, with Go's message for too deep a nesting.
const MAX_DEPTH: usize = 200;

/// Classes written out beyond this size could not compile anyway: regex-lite
/// refuses programs over 10 MB, and a range costs it 8 bytes for at most 20 bytes
/// of text. Stopping here keeps a pattern of many `\pL` from filling memory.
const MAX_CLASS_BYTES: usize = 24 << 20;

/// Compiled patterns, kept by the instance across renders. Compositions repeat
/// the same few patterns across resources, and a live instance renders the same
/// Compositions again and again; compiling each pattern once keeps the cost of a
/// match transform near that of the match itself. The memo is invisible in the
/// output (compiling is a pure function of the pattern) and its size is bounded.
pub(crate) type Compiled = Result<Arc<regex_lite::Regex>, SyntaxError>;

// A list searched in order: a Composition has a few patterns, and a map keyed by
// (pattern, semantics) would bring its own copy of the B-tree's code into the module.
thread_local! {
    static CACHE: RefCell<Vec<(String, bool, Groups, Compiled)>> = const { RefCell::new(Vec::new()) };
}

/// Patterns memoised before the memo starts over.
const CACHE_LIMIT: usize = 256;
/// Longer patterns are compiled for each use rather than kept.
const MAX_KEPT_PATTERN: usize = 4096;

/// Compiles `pattern` as Go's `regexp.Compile` would accept it.
///
/// # Errors
/// Go's error text, `error parsing regexp: <reason>: `<fragment>``.
pub(crate) fn compile(pattern: &str, sem: Semantics) -> Compiled {
    compile_as(pattern, sem, Groups::Capture)
}

/// Compiles `pattern` for a yes-or-no match (`MatchString`): its groups do
/// not capture. regex-lite's matcher carries every group's position through
/// every step; without them a match of a pattern with groups takes about a
/// third less time. Accepts and rejects exactly as [`compile`] does.
///
/// # Errors
/// As [`compile`].
pub(crate) fn compile_test(pattern: &str, sem: Semantics) -> Compiled {
    compile_as(pattern, sem, Groups::Ignore)
}

/// Whether a translated pattern's groups capture.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Groups {
    Capture,
    Ignore,
}

impl Groups {
    /// How a group that Go would number opens.
    fn open(self) -> &'static str {
        match self {
            Groups::Capture => "(",
            Groups::Ignore => "(?:",
        }
    }
}

fn compile_as(pattern: &str, sem: Semantics, groups: Groups) -> Compiled {
    let function = sem == Semantics::Function;
    let hit = CACHE.with(|c| {
        c.borrow()
            .iter()
            .find(|(p, f, g, _)| *f == function && *g == groups && p == pattern)
            .map(|(_, _, _, compiled)| compiled.clone())
    });
    if let Some(hit) = hit {
        return hit;
    }
    let compiled = compile_uncached(pattern, sem, groups).map(Arc::new);
    if pattern.len() > MAX_KEPT_PATTERN {
        return compiled;
    }
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= CACHE_LIMIT {
            c.clear();
        }
        c.push((pattern.to_owned(), function, groups, compiled.clone()));
    });
    compiled
}

fn compile_uncached(
    pattern: &str,
    sem: Semantics,
    groups: Groups,
) -> Result<regex_lite::Regex, SyntaxError> {
    let translated = translate_as(pattern, sem, groups)?;
    regex_lite::RegexBuilder::new(&translated)
        .nest_limit(u32::try_from(MAX_DEPTH * 4).unwrap_or(u32::MAX))
        .build()
        .map_err(|_| go_error("expression too large", pattern))
}

/// Go's `*syntax.Error`: what is wrong, and the part of the pattern it is in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    code: &'static str,
    expr: String,
}

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "error parsing regexp: {}: `{}`", self.code, self.expr)
    }
}

fn go_error(code: &'static str, expr: &str) -> SyntaxError {
    SyntaxError {
        code,
        expr: expr.to_owned(),
    }
}

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

/// Translates a Go regexp into regex-lite syntax, or fails as Go's parser does.
///
/// # Errors
/// Go's error text for the first syntax error.
pub(crate) fn translate(pattern: &str, sem: Semantics) -> Result<String, SyntaxError> {
    translate_as(pattern, sem, Groups::Capture)
}

fn translate_as(pattern: &str, sem: Semantics, groups: Groups) -> Result<String, SyntaxError> {
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

/// `parseUnicodeClass`: `\pN`, `\p{Name}`, `\PN`, `\P{Name}`, `\p{^Name}` at the start
/// of `t` → (its code points, whether they are negated, bytes read). Go reports an
/// unknown name as a bad range, with the class as written (all of `t` when no `}`
/// closes it).
fn unicode_class(
    t: &str,
    sem: Semantics,
    fold: bool,
) -> Result<(Ranges, bool, usize), SyntaxError> {
    let mut negated = t.as_bytes().get(1) == Some(&b'P');
    let (seq, name) = match t[2..].chars().next() {
        Some('{') => {
            let Some(end) = t.find('}') else {
                return Err(go_error("invalid character class range", t));
            };
            (&t[..=end], &t[3..end])
        }
        Some(c) => (&t[..2 + c.len_utf8()], &t[2..2 + c.len_utf8()]),
        None => (t, ""),
    };
    let name = match name.strip_prefix('^') {
        Some(name) => {
            negated = !negated;
            name
        }
        None => name,
    };
    let Some((ranges, table_negated)) = unicode::class(name, sem, fold) else {
        return Err(go_error("invalid character class range", seq));
    };
    Ok((ranges, negated != table_negated, seq.len()))
}

/// `parseEscape`: a single-character escape → (rune, bytes consumed).
fn parse_escape(t: &str) -> Result<(char, usize), SyntaxError> {
    let Some(c) = t[1..].chars().next() else {
        return Err(go_error("trailing backslash at end of expression", ""));
    };
    let mut j = 1 + c.len_utf8();
    let invalid = |j: usize| go_error("invalid escape sequence", &t[..j.min(t.len())]);
    let b = t.as_bytes();
    let octal = |k: usize| b.get(k).is_some_and(|d| (b'0'..=b'7').contains(d));
    match c {
        '1'..='7' if !octal(j) => Err(invalid(j)),
        '0'..='7' => {
            let mut r = u32::from(c) - u32::from('0');
            for _ in 0..2 {
                if !octal(j) {
                    break;
                }
                r = r * 8 + u32::from(b[j] - b'0');
                j += 1;
            }
            Ok((char::from_u32(r).unwrap_or('\u{FFFD}'), j))
        }
        'x' => {
            let Some(c1) = t[j..].chars().next() else {
                return Err(invalid(j));
            };
            j += c1.len_utf8();
            if c1 == '{' {
                let mut r: u32 = 0;
                let mut nhex = 0;
                loop {
                    let Some(d) = t[j..].chars().next() else {
                        return Err(invalid(j));
                    };
                    j += d.len_utf8();
                    if d == '}' {
                        break;
                    }
                    let Some(v) = d.to_digit(16) else {
                        return Err(invalid(j));
                    };
                    r = r * 16 + v;
                    if r > 0x10_FFFF {
                        return Err(invalid(j));
                    }
                    nhex += 1;
                }
                if nhex == 0 {
                    return Err(invalid(j));
                }
                return Ok((char::from_u32(r).unwrap_or('\u{FFFD}'), j));
            }
            let c2 = t[j..].chars().next();
            if let Some(c2) = c2 {
                j += c2.len_utf8();
            }
            match (c1.to_digit(16), c2.and_then(|c| c.to_digit(16))) {
                (Some(x), Some(y)) => Ok((char::from_u32(x * 16 + y).unwrap_or('\0'), j)),
                _ => Err(invalid(j)),
            }
        }
        'a' => Ok(('\u{7}', j)),
        'f' => Ok(('\u{c}', j)),
        'n' => Ok(('\n', j)),
        'r' => Ok(('\r', j)),
        't' => Ok(('\t', j)),
        'v' => Ok(('\u{b}', j)),
        c if c.is_ascii() && !c.is_ascii_alphanumeric() => Ok((c, j)),
        _ => Err(invalid(j)),
    }
}

/// Go's ASCII Perl classes: (ranges, negated).
fn perl_class(c: char) -> (Ranges, bool) {
    let ranges = match c.to_ascii_lowercase() {
        'd' => vec![(0x30, 0x39)],
        // Go's \s has no \v.
        's' => vec![(0x09, 0x0A), (0x0C, 0x0D), (0x20, 0x20)],
        _ => vec![(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)],
    };
    (ranges, c.is_ascii_uppercase())
}

/// POSIX classes `[:name:]` (ASCII), as Go defines them.
fn posix_class(name: &str) -> Option<Ranges> {
    Some(match name {
        "alnum" => vec![(0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A)],
        "alpha" => vec![(0x41, 0x5A), (0x61, 0x7A)],
        "ascii" => vec![(0x00, 0x7F)],
        "blank" => vec![(0x09, 0x09), (0x20, 0x20)],
        "cntrl" => vec![(0x00, 0x1F), (0x7F, 0x7F)],
        "digit" => vec![(0x30, 0x39)],
        "graph" => vec![(0x21, 0x7E)],
        "lower" => vec![(0x61, 0x7A)],
        "print" => vec![(0x20, 0x7E)],
        "punct" => vec![(0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)],
        "space" => vec![(0x09, 0x0D), (0x20, 0x20)],
        "upper" => vec![(0x41, 0x5A)],
        "word" => vec![(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)],
        "xdigit" => vec![(0x30, 0x39), (0x41, 0x46), (0x61, 0x66)],
        _ => return None,
    })
}

/// A Perl or POSIX class inside brackets (`appendGroup`): folded under `(?i)`, then
/// negated.
fn group(ranges: Ranges, negated: bool, fold: bool) -> Ranges {
    let ranges = if fold {
        unicode::fold_ranges(&ranges)
    } else {
        ranges
    };
    if negated {
        unicode::negate(&ranges)
    } else {
        ranges
    }
}

/// `parseClass`: `[...]` starting at byte `i` → (emitted class, next index).
fn parse_class(
    s: &str,
    i: usize,
    fold: bool,
    sem: Semantics,
) -> Result<(String, usize), SyntaxError> {
    let whole = &s[i..];
    let mut j = i + 1;
    let mut negated = false;
    if s[j..].starts_with('^') {
        negated = true;
        j += 1;
    }
    // Classes, complete as they are; and characters and ranges, folded at the end.
    let mut ranges: Ranges = Vec::new();
    let mut chars: Ranges = Vec::new();
    let mut first = true;
    loop {
        let t = &s[j..];
        if t.starts_with(']') && !first {
            j += 1;
            break;
        }
        first = false;
        if t.len() > 2
            && t.starts_with("[:")
            && let Some(k) = t[2..].find(":]")
        {
            let name = &t[..k + 4];
            let (inner, neg) = match name[2..name.len() - 2].strip_prefix('^') {
                Some(n) => (n, true),
                None => (&name[2..name.len() - 2], false),
            };
            let Some(r) = posix_class(inner) else {
                return Err(go_error("invalid character class range", name));
            };
            ranges.extend(group(r, neg, fold));
            j += name.len();
            continue;
        }
        if t.starts_with("\\p") || t.starts_with("\\P") {
            let (r, neg, len) = unicode_class(t, sem, fold)?;
            ranges.extend(if neg { unicode::negate(&r) } else { r });
            j += len;
            continue;
        }
        if let Some(c @ ('d' | 'D' | 's' | 'S' | 'w' | 'W')) =
            t.strip_prefix('\\').and_then(|r| r.chars().next())
        {
            let (r, neg) = perl_class(c);
            ranges.extend(group(r, neg, fold));
            j += 2;
            continue;
        }
        let (lo, len) = class_char(t, whole)?;
        let mut hi = lo;
        let mut k = j + len;
        let after = &s[k..];
        if after.len() >= 2 && after.starts_with('-') && !after[1..].starts_with(']') {
            let (h, len2) = class_char(&after[1..], whole)?;
            hi = h;
            k += 1 + len2;
            if hi < lo {
                return Err(go_error("invalid character class range", &s[j..k]));
            }
        }
        chars.push((u32::from(lo), u32::from(hi)));
        j = k;
    }
    ranges.extend(if fold {
        unicode::fold_ranges(&chars)
    } else {
        chars
    });
    Ok((emit_class(ranges, negated), j))
}

/// `parseClassChar`: one (possibly escaped) character inside a class.
fn class_char(t: &str, whole: &str) -> Result<(char, usize), SyntaxError> {
    match t.chars().next() {
        None => Err(go_error("missing closing ]", whole)),
        Some('\\') => parse_escape(t),
        Some(c) => Ok((c, c.len_utf8())),
    }
}

/// A class regex-lite reads unambiguously: `\x{..}` ranges, no surrogates.
/// Negation is left to regex-lite so that `(?i)` folds before negating, as in Go.
fn emit_class(ranges: Ranges, negated: bool) -> String {
    let mut out = String::from(if negated { "[^" } else { "[" });
    let mut any = false;
    for (lo, hi) in unicode::normalize(ranges) {
        for (lo, hi) in [(lo, hi.min(0xD7FF)), (lo.max(0xE000), hi)] {
            if lo == hi {
                out.push_str(&format!("\\x{{{lo:X}}}"));
            } else if lo < hi {
                out.push_str(&format!("\\x{{{lo:X}}}-\\x{{{hi:X}}}"));
            }
            any |= lo <= hi;
        }
    }
    if !any {
        // Go accepts an empty class: it never matches (or, negated, matches anything).
        return if negated {
            r"(?s:.)".to_owned()
        } else {
            r"(?:\b\B)".to_owned()
        };
    }
    out.push(']');
    out
}

/// A literal character as regex-lite cannot misread it.
fn literal(c: char) -> String {
    if c.is_ascii_alphanumeric() {
        c.to_string()
    } else if (0xD800..=0xDFFF).contains(&u32::from(c)) {
        r"(?:\b\B)".to_owned()
    } else {
        format!("\\x{{{:X}}}", u32::from(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(p: &str) -> String {
        translate(p, Semantics::Native).unwrap_err().to_string()
    }

    #[test]
    fn go_errors() {
        assert_eq!(
            err("a**"),
            "error parsing regexp: invalid nested repetition operator: `**`"
        );
        assert_eq!(
            err("*"),
            "error parsing regexp: missing argument to repetition operator: `*`"
        );
        assert_eq!(err("(a"), "error parsing regexp: missing closing ): `(a`");
        assert_eq!(err("a)"), "error parsing regexp: unexpected ): `a)`");
        assert_eq!(err("[a"), "error parsing regexp: missing closing ]: `[a`");
        assert_eq!(
            err("a{1001}"),
            "error parsing regexp: invalid repeat count: `{1001}`"
        );
        assert_eq!(
            err(r"\Z"),
            "error parsing regexp: invalid escape sequence: `\\Z`"
        );
        assert_eq!(
            err("(?x)a"),
            "error parsing regexp: invalid or unsupported Perl syntax: `(?x`"
        );
        assert_eq!(
            err("[z-a]"),
            "error parsing regexp: invalid character class range: `z-a`"
        );
        assert_eq!(
            err("(?<n>a)"),
            "error parsing regexp: invalid or unsupported Perl syntax: `(?<`"
        );
        assert_eq!(
            err("a\\"),
            "error parsing regexp: trailing backslash at end of expression: ``"
        );
    }

    #[test]
    fn go_matches() {
        let re = |p: &str| compile(p, Semantics::Function).unwrap();
        assert!(re(r"\Qa.b\E").is_match("a.b"));
        assert!(!re(r"\Qa.b\E").is_match("axb"));
        assert!(!re(r"\s").is_match("\u{b}"));
        assert!(re(r"[[:space:]]").is_match("\u{b}"));
        assert!(re(r"\101").is_match("A"));
        assert!(re(r"[a&&b]").is_match("&"));
        assert!(re(r"(?<n>x)(?P<n>y)").is_match("xy"));
        assert!(!re(r"\d").is_match("٣"));
        assert!(re(r"x{2}{").is_match("xx{"));
    }

    #[test]
    fn unicode_classes_and_folding() {
        let re = |p: &str| compile(p, Semantics::Function).unwrap();
        assert!(re(r"^\p{Greek}+$").is_match("αβγ"));
        assert!(re(r"^[^\P{Lu}]$").is_match("É"));
        assert!(re(r"^\p{^Greek}$").is_match("a"));
        assert!(!re(r"\P{Any}").is_match("a"));
        assert!(re(r"^(?i)k$").is_match("\u{212A}"));
        assert!(!re(r"(?i)[\W]").is_match("\u{212A}"));
        assert!(re(r"\pL{1000}").is_match(&"é".repeat(1000)));
        assert_eq!(
            err(r"\p{Foo}"),
            "error parsing regexp: invalid character class range: `\\p{Foo}`"
        );
        assert_eq!(
            err(r"[\p{Greek"),
            "error parsing regexp: invalid character class range: `\\p{Greek`"
        );
        // Names as Go 1.21 read them for Crossplane v1.14.
        assert!(translate(r"\p{greek}", Semantics::Native).is_err());
        assert!(translate(r"\p{Greek}", Semantics::Native).is_ok());
    }

    #[test]
    fn written_out_classes_are_bounded() {
        assert_eq!(
            err(&r"\pL".repeat(3000)),
            format!(
                "error parsing regexp: expression too large: `{}`",
                r"\pL".repeat(3000)
            )
        );
        // Empty quotes add nothing.
        assert!(translate(&format!("\\pL{}", r"\Q\E".repeat(5000)), Semantics::Native).is_ok());
    }

    /// A match-only compile has no capturing group, and accepts, rejects and
    /// matches as the capturing one does.
    #[test]
    fn match_only_patterns_agree_with_capturing_ones() {
        let patterns = [
            r"^eu-(west|central)-[0-9]+$",
            r"(a)(b(c))",
            r"(?P<x>a)|(?<y>b)",
            r"(?i)(A)b",
            r"(?i:(a))(?s)(.)",
            r"\(a\)",
            r"[(]a[)]",
            r"\Q(a)\E",
            r"(a)*b{2}(?:c)",
            r"((((a))))+$",
            r"(",
            r"(a))",
            r"(?P<>a)",
            r"(a{2}){1001}",
            r"(?<n>a)",
            "",
        ];
        let texts = [
            "eu-west-1",
            "abc",
            "a",
            "b",
            "Ab",
            "ab",
            "(a)",
            "aab",
            "bb",
            "aaaa",
            "",
        ];
        for sem in [Semantics::Native, Semantics::Function] {
            for p in patterns {
                let (full, test) = (compile(p, sem), compile_test(p, sem));
                match (&full, &test) {
                    (Ok(full), Ok(test)) => {
                        assert_eq!(test.captures_len(), 1, "{p}");
                        for t in texts {
                            assert_eq!(full.is_match(t), test.is_match(t), "{p} {t}");
                        }
                    }
                    (Err(a), Err(b)) => assert_eq!(a, b, "{p}"),
                    _ => panic!("{p}: {full:?} against {test:?}"),
                }
            }
        }
    }
}
