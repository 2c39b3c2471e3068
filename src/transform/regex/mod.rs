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

mod class;
mod parse;

use std::cell::RefCell;
use std::sync::{Arc, Mutex, PoisonError};

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

/// A pattern compiled, or Go's error for it.
pub(crate) type Compiled = Result<Arc<Regexp>, SyntaxError>;

/// A compiled regexp, shared by every pattern written alike, with the last
/// text it was asked about and its answer.
///
/// A Composition that matches the same composite field in several resources (a
/// PatchSet's match transform, resources written alike) asks the same question
/// once per resource; regex-lite's matcher takes thousands of instructions for
/// it, this lookup tens. Short texts only, one per regexp.
pub(crate) struct Regexp {
    re: regex_lite::Regex,
    last: Mutex<Option<(String, bool)>>,
}

impl std::fmt::Debug for Regexp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Regexp").field(&self.re).finish()
    }
}

/// Longer texts are matched every time.
const MAX_ANSWERED_TEXT: usize = 256;

impl Regexp {
    fn new(re: regex_lite::Regex) -> Regexp {
        Regexp {
            re,
            last: Mutex::new(None),
        }
    }

    /// Go's `MatchString`, answered from the last question when it was the same.
    /// The browser build, generated for size, asks the regexp every time.
    pub(crate) fn is_match(&self, s: &str) -> bool {
        if cfg!(feature = "web") || s.len() > MAX_ANSWERED_TEXT {
            return self.re.is_match(s);
        }
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((text, answer)) = &*last
            && text == s
        {
            return *answer;
        }
        let answer = self.re.is_match(s);
        match &mut *last {
            Some((text, last)) => {
                text.clear();
                text.push_str(s);
                *last = answer;
            }
            None => *last = Some((s.to_owned(), answer)),
        }
        answer
    }

    /// Go's `FindStringSubmatch`: `None` when nothing matches.
    pub(crate) fn captures<'s>(&self, s: &'s str) -> Option<regex_lite::Captures<'s>> {
        self.re.captures(s)
    }
}

/// Compiled patterns, kept by an engine across renders. Compositions repeat
/// the same few patterns across resources, and a live engine renders the same
/// Compositions again and again; compiling each pattern once keeps the cost of a
/// match transform near that of the match itself. The memo is invisible in the
/// output (compiling is a pure function of the pattern) and its size is bounded.
///
/// A list searched in order: a Composition has a few patterns, and a map keyed by
/// (pattern, semantics) would bring its own copy of the B-tree's code into the module.
#[derive(Default)]
pub(crate) struct Regexps(RefCell<Vec<(String, bool, Groups, Compiled)>>);

/// Patterns memoised before the memo starts over.
const CACHE_LIMIT: usize = 256;
/// Longer patterns are compiled for each use rather than kept.
const MAX_KEPT_PATTERN: usize = 4096;

impl Regexps {
    pub(crate) const fn new() -> Regexps {
        Regexps(RefCell::new(Vec::new()))
    }

    /// Compiles `pattern` as Go's `regexp.Compile` would accept it.
    ///
    /// # Errors
    /// Go's error text, `error parsing regexp: <reason>: `<fragment>``.
    pub(crate) fn compile(&self, pattern: &str, sem: Semantics) -> Compiled {
        self.compile_as(pattern, sem, Groups::Capture)
    }

    /// Compiles `pattern` for a yes-or-no match (`MatchString`): its groups do
    /// not capture. regex-lite's matcher carries every group's position through
    /// every step; without them a match of a pattern with groups takes about a
    /// third less time. Accepts and rejects exactly as [`Regexps::compile`] does.
    ///
    /// # Errors
    /// As [`Regexps::compile`].
    pub(crate) fn compile_test(&self, pattern: &str, sem: Semantics) -> Compiled {
        self.compile_as(pattern, sem, Groups::Ignore)
    }

    fn compile_as(&self, pattern: &str, sem: Semantics, groups: Groups) -> Compiled {
        let function = sem == Semantics::Function;
        let hit = self
            .0
            .borrow()
            .iter()
            .find(|(p, f, g, _)| *f == function && *g == groups && p == pattern)
            .map(|(_, _, _, compiled)| compiled.clone());
        if let Some(hit) = hit {
            return hit;
        }
        let compiled = compile_alone(pattern, sem, groups).map(|re| Arc::new(Regexp::new(re)));
        if pattern.len() > MAX_KEPT_PATTERN {
            return compiled;
        }
        let mut c = self.0.borrow_mut();
        if c.len() >= CACHE_LIMIT {
            c.clear();
        }
        c.push((pattern.to_owned(), function, groups, compiled.clone()));
        compiled
    }
}

/// Whether a translated pattern's groups capture.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Groups {
    Capture,
    Ignore,
}

impl Groups {
    /// How a group that Go would number opens.
    pub(super) fn open(self) -> &'static str {
        match self {
            Groups::Capture => "(",
            Groups::Ignore => "(?:",
        }
    }
}

/// Compiles `pattern` without a memo.
///
/// # Errors
/// As [`Regexps::compile`].
pub(crate) fn compile_alone(
    pattern: &str,
    sem: Semantics,
    groups: Groups,
) -> Result<regex_lite::Regex, SyntaxError> {
    let translated = parse::translate_as(pattern, sem, groups)?;
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

pub(super) fn go_error(code: &'static str, expr: &str) -> SyntaxError {
    SyntaxError {
        code,
        expr: expr.to_owned(),
    }
}

/// Translates a Go regexp into regex-lite syntax, or fails as Go's parser does.
///
/// # Errors
/// Go's error text for the first syntax error.
pub(crate) fn translate(pattern: &str, sem: Semantics) -> Result<String, SyntaxError> {
    parse::translate_as(pattern, sem, Groups::Capture)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compile(p: &str, sem: Semantics) -> Compiled {
        Regexps::default().compile(p, sem)
    }

    fn compile_test(p: &str, sem: Semantics) -> Compiled {
        Regexps::default().compile_test(p, sem)
    }

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
                        assert_eq!(test.re.captures_len(), 1, "{p}");
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
