//! A transform's regexp, kept with its plan: compiled when a render first
//! reaches it, and matched without the regex engine when it is a plain
//! anchored literal or when it has just matched the same text.

use std::cell::RefCell;
use std::sync::{Arc, OnceLock};

use super::regex::{self, Compiled};
use crate::semantics::Semantics;

/// One `regexp` (match pattern) or `match` (string Regexp) of a transform.
///
/// Compiling stays where it always happened (the first time the transform
/// reaches the pattern, so a broken pattern fails only then); a kept plan
/// then reuses the compiled form on every later render.
#[derive(Clone)]
pub(super) struct Pattern {
    text: String,
    sem: Semantics,
    /// Whether its groups capture: a match pattern only asks whether it matches.
    captures: bool,
    /// The compiled form, and whether the pattern is a plain anchored literal.
    compiled: OnceLock<(Compiled, bool)>,
}

impl Pattern {
    /// A pattern whose groups a render reads (string Regexp).
    pub(super) fn new(text: &str, sem: Semantics) -> Self {
        Pattern {
            text: text.to_owned(),
            sem,
            captures: true,
            compiled: OnceLock::new(),
        }
    }

    /// A pattern a render only matches (match transform): see [`regex::compile_test`].
    pub(super) fn test(text: &str, sem: Semantics) -> Self {
        Pattern {
            captures: false,
            ..Pattern::new(text, sem)
        }
    }

    pub(super) fn as_str(&self) -> &str {
        &self.text
    }

    /// The compiled regexp as Go's `regexp.Compile` accepts it.
    ///
    /// # Errors
    /// Go's compile error, as [`regex::compile`] gives it.
    pub(super) fn matcher(&self) -> Result<Matcher<'_>, regex::SyntaxError> {
        let (compiled, literal) = self.compiled.get_or_init(|| {
            let literal = anchored_literal(&self.text).is_some();
            let compile = if self.captures {
                regex::compile
            } else {
                regex::compile_test
            };
            (compile(&self.text, self.sem), literal)
        });
        match compiled {
            Ok(re) => Ok(Matcher {
                re,
                prefix: literal.then(|| self.text.get(1..).unwrap_or_default()),
            }),
            Err(e) => Err(e.clone()),
        }
    }
}

/// A compiled pattern, ready to match.
pub(super) struct Matcher<'p> {
    re: &'p Arc<regex_lite::Regex>,
    /// The literal a plain anchored pattern (`^us-`) requires the text to start with.
    prefix: Option<&'p str>,
}

impl Matcher<'_> {
    /// Go's `MatchString`.
    pub(super) fn is_match(&self, s: &str) -> bool {
        match self.prefix {
            Some(p) => s.starts_with(p),
            None => answered(self.re, s),
        }
    }

    /// Go's `FindStringSubmatch`: `None` when nothing matches.
    pub(super) fn captures<'s>(&self, s: &'s str) -> Option<regex_lite::Captures<'s>> {
        self.re.captures(s)
    }
}

// The last text each recently matched regexp was asked about, and its answer.
// A Composition that matches the same composite field in several resources (a
// PatchSet's match transform, resources written alike) asks the same question
// once per resource; regex-lite's matcher takes thousands of instructions for
// it, this lookup tens. Compiled regexps are shared (`regex::compile`), so the
// answer carries across resources and plans. Bounded: a few regexps, short texts.
thread_local! {
    static ANSWERS: RefCell<Vec<(Arc<regex_lite::Regex>, String, bool)>> =
        const { RefCell::new(Vec::new()) };
}

/// Regexps whose last answer is kept.
const ANSWERS_KEPT: usize = 32;
/// Longer texts are matched every time.
const MAX_ANSWERED_TEXT: usize = 256;

/// `re.is_match(s)`, answered from [`ANSWERS`] when `re` was last asked about `s`.
/// The browser build, generated for size, asks the regexp every time.
fn answered(re: &Arc<regex_lite::Regex>, s: &str) -> bool {
    if cfg!(feature = "web") || s.len() > MAX_ANSWERED_TEXT {
        return re.is_match(s);
    }
    ANSWERS.with(|answers| {
        let mut answers = answers.borrow_mut();
        let at = answers.iter().position(|(r, _, _)| Arc::ptr_eq(r, re));
        if let Some(i) = at
            && answers[i].1 == s
        {
            return answers[i].2;
        }
        let answer = re.is_match(s);
        match at {
            Some(i) => {
                let (_, text, last) = &mut answers[i];
                text.clear();
                text.push_str(s);
                *last = answer;
            }
            None => {
                if answers.len() >= ANSWERS_KEPT {
                    answers.remove(0);
                }
                answers.push((Arc::clone(re), s.to_owned(), answer));
            }
        }
        answer
    })
}

/// The literal of a pattern that is `^` and then only characters RE2 reads
/// as themselves (printable ASCII other than ``\.+*?()|[]{}^$``). Without
/// flags `^` matches only at the start of the text, so such a pattern
/// matches exactly the texts that start with the literal.
fn anchored_literal(pattern: &str) -> Option<&str> {
    let lit = pattern.strip_prefix('^')?;
    lit.bytes()
        .all(|b| (b' '..=b'~').contains(&b) && !b"\\.+*?()|[]{}^$".contains(&b))
        .then_some(lit)
}

// Two plans are equal when their patterns are (the compiled form follows from them).
impl PartialEq for Pattern {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text && self.sem == other.sem && self.captures == other.captures
    }
}

impl std::fmt::Debug for Pattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Pattern").field(&self.text).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchored_literals() {
        assert_eq!(anchored_literal("^us-"), Some("us-"));
        assert_eq!(anchored_literal("^"), Some(""));
        assert_eq!(
            anchored_literal("^a b/c:d=e@f,g#h%i&j;k<l>m~n`o'p\"q!r_s"),
            Some("a b/c:d=e@f,g#h%i&j;k<l>m~n`o'p\"q!r_s")
        );
        for p in [
            "us-", "^us-$", "^us.", "^a*", "^a+", "^a?", "^(a)", "^a|b", "^[a]", "^a{2}", "^\\d",
            "^^a", "^é", "^a\tb", "(?i)^a", "^a\n",
        ] {
            assert_eq!(anchored_literal(p), None, "{p}");
        }
    }

    #[test]
    fn kept_answers_are_the_regexps_own() {
        // More regexps than answers are kept, asked in turns about texts that
        // repeat, change, and are too long to keep.
        let patterns: Vec<String> = (0..ANSWERS_KEPT + 5)
            .map(|i| format!("^eu-(west|central)-[0-{}]+$", i % 10))
            .chain(["a".repeat(300), "x$".into()])
            .collect();
        let long = format!("eu-west-1{}", "a".repeat(MAX_ANSWERED_TEXT));
        let texts = [
            "eu-west-1",
            "eu-west-1",
            "eu-central-9",
            "us-east-1",
            "",
            &long,
        ];
        for round in 0..3 {
            for (i, p) in patterns.iter().enumerate() {
                let kept = Pattern::test(p, Semantics::Native);
                let m = kept.matcher().unwrap();
                let re = regex::compile(p, Semantics::Native).unwrap();
                for t in texts.iter().cycle().skip(i + round).take(texts.len() * 2) {
                    assert_eq!(m.is_match(t), re.is_match(t), "{p} {t}");
                }
            }
        }
        assert!(ANSWERS.with(|a| a.borrow().len()) <= ANSWERS_KEPT);
    }

    #[test]
    fn prefix_matches_as_the_regex_does() {
        for p in ["^us-", "^", "^a b", "^eu"] {
            let fast = Pattern::new(p, Semantics::Native);
            let m = fast.matcher().unwrap();
            assert!(m.prefix.is_some());
            let re = regex::compile(p, Semantics::Native).unwrap();
            for s in [
                "us-east-1",
                "us",
                "",
                "eu-west-1",
                "a b c",
                "xus-",
                "Us-",
                "é",
            ] {
                assert_eq!(m.is_match(s), re.is_match(s), "{p} {s}");
            }
        }
    }
}
