//! A transform's regexp, compiled when its transform is decoded, and matched
//! without the regex engine when it is a plain anchored literal.

use std::sync::Arc;

use super::regex::{self, Compiled, Regexp, Regexps};
use crate::semantics::Semantics;

/// One `regexp` (match pattern) or `match` (string Regexp) of a transform.
///
/// Compiled with the transform it belongs to, through the engine's memo, as its
/// validation compiles it anyway; a broken pattern fails only a render that
/// reaches it, with Go's error. A kept decoding reuses the compiled form on every
/// later render.
#[derive(Clone)]
pub(super) struct Pattern {
    text: String,
    sem: Semantics,
    /// Whether its groups capture: a match pattern only asks whether it matches.
    captures: bool,
    compiled: Compiled,
    /// Whether the pattern is a plain anchored literal.
    literal: bool,
}

impl Pattern {
    /// A pattern whose groups a render reads (string Regexp).
    pub(super) fn new(text: &str, sem: Semantics, regexps: &Regexps) -> Self {
        Pattern {
            text: text.to_owned(),
            sem,
            captures: true,
            compiled: regexps.compile(text, sem),
            literal: anchored_literal(text).is_some(),
        }
    }

    /// A pattern a render only matches (match transform): see [`Regexps::compile_test`].
    pub(super) fn test(text: &str, sem: Semantics, regexps: &Regexps) -> Self {
        Pattern {
            text: text.to_owned(),
            sem,
            captures: false,
            compiled: regexps.compile_test(text, sem),
            literal: anchored_literal(text).is_some(),
        }
    }

    pub(super) fn as_str(&self) -> &str {
        &self.text
    }

    /// The compiled regexp as Go's `regexp.Compile` accepts it.
    ///
    /// # Errors
    /// Go's compile error, as [`Regexps::compile`] gives it.
    pub(super) fn matcher(&self) -> Result<Matcher<'_>, regex::SyntaxError> {
        match &self.compiled {
            Ok(re) => Ok(Matcher {
                re,
                prefix: self.literal.then(|| self.text.get(1..).unwrap_or_default()),
            }),
            Err(e) => Err(e.clone()),
        }
    }
}

/// A compiled pattern, ready to match.
pub(super) struct Matcher<'p> {
    re: &'p Arc<Regexp>,
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
    fn kept_answers_are_the_regexps_own() {
        // Regexps asked in turns about texts that repeat, change, and are too
        // long to keep.
        let regexps = Regexps::default();
        let patterns: Vec<String> = (0..37)
            .map(|i| format!("^eu-(west|central)-[0-{}]+$", i % 10))
            .chain(["a".repeat(300), "x$".into()])
            .collect();
        let long = format!("eu-west-1{}", "a".repeat(300));
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
                let kept = Pattern::test(p, Semantics::Native, &regexps);
                let m = kept.matcher().unwrap();
                let re =
                    regex::compile_alone(p, Semantics::Native, regex::Groups::Capture).unwrap();
                for t in texts.iter().cycle().skip(i + round).take(texts.len() * 2) {
                    assert_eq!(m.is_match(t), re.is_match(t), "{p} {t}");
                }
            }
        }
    }

    #[test]
    fn prefix_matches_as_the_regex_does() {
        for p in ["^us-", "^", "^a b", "^eu"] {
            let fast = Pattern::new(p, Semantics::Native, &Regexps::default());
            let m = fast.matcher().unwrap();
            assert!(m.prefix.is_some());
            let re = regex::compile_alone(p, Semantics::Native, regex::Groups::Capture).unwrap();
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
