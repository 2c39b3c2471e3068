//! `render(request)`: composes the desired state from an XR, a Composition and observed state.
//!
//! Placeholder: the full implementation replaces this module.

use crate::error::{Error, ErrorKind, Result};
use crate::value::Value;

/// A render request: the render contract's JSON document, decoded.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    doc: Value,
}

impl Request {
    /// Decodes a request document.
    ///
    /// # Errors
    /// `ErrorKind::InvalidRequest` when the text is not JSON or not of the contract's shape.
    pub fn from_json(text: &str) -> Result<Request> {
        let doc = Value::from_json(text).map_err(|e| {
            Error::new(
                ErrorKind::InvalidRequest,
                format!("cannot parse request: {e}"),
            )
        })?;
        if doc.as_object().is_none() {
            return Err(Error::new(
                ErrorKind::InvalidRequest,
                "request must be a JSON object",
            ));
        }
        Ok(Request { doc })
    }
}

/// The desired state a render produced.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    composite: Value,
}

impl Output {
    /// The Output document as JSON.
    #[must_use]
    pub fn to_json(&self) -> String {
        self.composite.to_json()
    }
}

/// Renders a request.
///
/// # Errors
/// A render that cannot proceed (Crossplane's fatal cases).
pub fn render(request: &Request) -> Result<Output> {
    let _ = &request.doc;
    Err(Error::new(
        ErrorKind::Render,
        "render is not implemented yet",
    ))
}
