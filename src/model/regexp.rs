//! Regular expressions read as Go's `regexp` reads them (RE2 syntax, Go's errors), the way the
//! engine reads a transform's pattern: translated to regex-lite's syntax, then compiled.

use std::sync::Arc;

use crate::semantics::Semantics;
use crate::transform::regex;

/// A compiled Go regexp.
#[derive(Clone, Debug)]
pub struct Regexp(Arc<regex_lite::Regex>);

impl Regexp {
    /// Compiles `pattern` as Go's `regexp.Compile` does, with the Unicode tables of the Go
    /// release function semantics follows.
    ///
    /// # Errors
    /// Go's text: ``error parsing regexp: <reason>: `<fragment>` ``.
    pub fn new(pattern: &str) -> Result<Regexp, String> {
        regex::compile_alone(pattern, Semantics::Function, regex::Groups::Capture)
            .map(Arc::new)
            .map(Regexp)
            .map_err(|e| e.to_string())
    }

    /// Go's `MatchString`.
    #[must_use]
    pub fn is_match(&self, s: &str) -> bool {
        self.0.is_match(s)
    }
}

/// The regex-lite pattern the engine compiles for the Go pattern `pattern`.
///
/// # Errors
/// As [`Regexp::new`].
pub fn translate(pattern: &str) -> Result<String, String> {
    regex::translate(pattern, Semantics::Function).map_err(|e| e.to_string())
}
