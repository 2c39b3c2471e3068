//! The one place cluster commands run the engine: request JSON in, Output JSON out.

use anyhow::Context as _;
use serde_json::Value;

/// Renders an engine request. The Output, or the engine's error document, is returned as JSON;
/// only a malformed answer is an error here.
pub(crate) fn render(request: &Value) -> anyhow::Result<Value> {
    let text = xprender::render_json(&request.to_string());
    serde_json::from_str(&text).context("the engine returned malformed JSON")
}
