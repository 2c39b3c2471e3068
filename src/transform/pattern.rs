//! A transform's regexp, kept with its plan: compiled when a render first
//! reaches it, and matched without the regex engine when it is a plain
//! anchored literal.

use std::sync::OnceLock;

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
    re: &'p regex_lite::Regex,
    /// The literal a plain anchored pattern (`^us-`) requires the text to start with.
    prefix: Option<&'p str>,
}

impl Matcher<'_> {
    /// Go's `MatchString`.
    pub(super) fn is_match(&self, s: &str) -> bool {
        match self.prefix {
            Some(p) => s.starts_with(p),
            None => self.re.is_match(s),
        }
    }

    /// Go's `FindStringSubmatch`: `None` when nothing matches.
    pub(super) fn captures<'s>(&self, s: &'s str) -> Option<regex_lite::Captures<'s>> {
        self.re.captures(s)
    }
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
