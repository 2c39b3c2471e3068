//! What a reading reads: text checked as UTF-8, or bytes checked as they are read.

/// What a reading reads: text already checked as UTF-8, or bytes not known to
/// be UTF-8 ([`Bytes`]). A reading of each is compiled on its own, so that a
/// reading of text carries nothing of the checks.
pub(crate) trait Source<'t>: Copy {
    fn bytes(&self) -> &'t [u8];

    /// The text of `start..end`, which the grammar found between ASCII bytes;
    /// `None` when it is not UTF-8.
    fn slice(&self, start: usize, end: usize) -> Option<&'t str>;

    /// The checked text from `at` to the end, if there is one.
    fn text_from(&self, at: usize) -> Option<&'t str>;

    /// Notes that `known` vouched for the bytes up to `at`; `false` when the
    /// bytes from `at` on are not UTF-8.
    fn vouched_to(&mut self, at: usize) -> bool;
}

/// Text known to be UTF-8.
#[derive(Clone, Copy)]
pub(crate) struct Checked<'t>(pub(crate) &'t str);

impl<'t> Source<'t> for Checked<'t> {
    fn bytes(&self) -> &'t [u8] {
        self.0.as_bytes()
    }

    #[inline(always)]
    fn slice(&self, start: usize, end: usize) -> Option<&'t str> {
        self.0.get(start..end)
    }

    fn text_from(&self, at: usize) -> Option<&'t str> {
        self.0.get(at..)
    }

    fn vouched_to(&mut self, _: usize) -> bool {
        true
    }
}

/// Bytes not known to be UTF-8. Each string before the span `known` vouches
/// for is checked as it is read, and everything after it in one pass; a string
/// that is not UTF-8 is a `Syntax` fault. Every other byte the grammar accepts
/// is ASCII, so the bytes are UTF-8 when they read.
#[derive(Clone, Copy)]
pub(crate) struct Bytes<'t> {
    b: &'t [u8],
    /// The bytes after the vouched span as text, and where they start.
    after: Option<(usize, &'t str)>,
}

impl<'t> Bytes<'t> {
    pub(crate) fn new(b: &'t [u8]) -> Self {
        Bytes { b, after: None }
    }
}

impl<'t> Source<'t> for Bytes<'t> {
    fn bytes(&self) -> &'t [u8] {
        self.b
    }

    #[inline(always)]
    fn slice(&self, start: usize, end: usize) -> Option<&'t str> {
        match self.after {
            Some((at, t)) if start >= at => t.get(start - at..end - at),
            _ => std::str::from_utf8(self.b.get(start..end)?).ok(),
        }
    }

    fn text_from(&self, _: usize) -> Option<&'t str> {
        None
    }

    fn vouched_to(&mut self, at: usize) -> bool {
        match self.b.get(at..).map(std::str::from_utf8) {
            Some(Ok(t)) => {
                self.after = Some((at, t));
                true
            }
            _ => false,
        }
    }
}
