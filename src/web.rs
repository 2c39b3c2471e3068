//! The wasm-bindgen face for JavaScript.
//!
//! Placeholder: the full face replaces this module.

use wasm_bindgen::prelude::*;

/// The engine's version.
#[wasm_bindgen]
#[must_use]
pub fn version() -> String {
    crate::VERSION.to_owned()
}

/// Renders a request given as the contract's JSON text; returns the response JSON.
#[wasm_bindgen(js_name = renderJson)]
#[must_use]
pub fn render_json(request: &str) -> String {
    crate::render_json(request)
}
