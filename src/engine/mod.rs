//! The engine value: what a caller keeps between renders.
//!
//! Rendering is a pure function of the request; an [`Engine`] only remembers
//! work it can skip next time (Compositions read and decoded, regexps
//! compiled), so a render gives the same Output through any engine, fresh or
//! long-lived. It does no I/O and starts no threads; the caller decides how
//! long it lives and who shares it.

mod compositions;
mod read;

use crate::compose::{Output, Request};
use crate::error::Result;
use crate::transform::Regexps;

use compositions::Compositions;

/// A composition engine that keeps the Compositions it has read, decoded for
/// each semantics, and the regexps it has compiled, each bounded (the least
/// recently used Compositions forgotten first), so rendering the same
/// Composition again reads only the rest of the request.
///
/// ```
/// let mut engine = xprender::Engine::new();
/// let request = r#"{"xr": {"apiVersion": "example.org/v1", "kind": "XBucket",
///     "metadata": {"name": "b"}},
///   "composition": {"apiVersion": "apiextensions.crossplane.io/v1", "kind": "Composition",
///     "metadata": {"name": "c"}, "spec": {"resources": []}}}"#;
/// let first = engine.render_json(request);
/// assert_eq!(engine.render_json(request), first);
/// ```
#[derive(Default)]
pub struct Engine {
    compositions: Compositions,
    regexps: Regexps,
}

impl Engine {
    /// An engine that keeps nothing yet.
    #[must_use]
    pub const fn new() -> Engine {
        Engine {
            compositions: Compositions::new(),
            regexps: Regexps::new(),
        }
    }

    /// Renders a request (see [`crate::render`]).
    ///
    /// # Errors
    /// As [`crate::render`].
    pub fn render(&mut self, request: &Request) -> Result<Output> {
        crate::tree::render_with(request, &self.regexps)
    }

    /// Renders a request given as the contract's JSON text; returns the Output
    /// document, or an error document `{"error": {"kind", "message", "context"}}`.
    ///
    /// Never panics on any input: every failure is an error document.
    #[must_use]
    pub fn render_json(&mut self, request: &str) -> String {
        let request = read::read_request(&mut self.compositions, request);
        self.respond(request)
    }

    /// Reads a request, reusing the engine's reading of its Composition.
    #[cfg(feature = "web")]
    pub(crate) fn read_request(&mut self, text: &str) -> Result<Request> {
        read::read_request(&mut self.compositions, text)
    }

    /// [`Engine::render_json`] of a request handed over as bytes, as the core
    /// module's ABI receives it. Bytes that are not UTF-8 give an
    /// `InvalidRequest` error naming the offset of the first invalid byte; a
    /// kept Composition's bytes are not checked again (`read::read_request_bytes`).
    pub(crate) fn render_bytes(&mut self, request: &[u8]) -> String {
        match read::read_request_bytes(&mut self.compositions, request) {
            Ok(read) => self.respond(read),
            Err(e) => crate::error_document(&crate::Error::new(
                crate::ErrorKind::InvalidRequest,
                format!(
                    "request is not UTF-8: invalid byte at offset {}",
                    e.valid_up_to()
                ),
            )),
        }
    }

    /// The response to a request as read: its Output or its error document.
    pub(crate) fn respond(&mut self, request: Result<Request>) -> String {
        match request.and_then(|r| self.render(&r)) {
            Ok(output) => output.to_json(),
            Err(e) => crate::error_document(&e),
        }
    }

    /// How many Compositions are kept, and their bytes of text.
    pub(crate) fn kept_compositions(&self) -> (usize, usize) {
        self.compositions.footprint()
    }

    /// How many decodings the kept Compositions hold (one per semantics rendered with).
    pub(crate) fn kept_decodings(&self) -> usize {
        self.compositions.decodings()
    }
}
