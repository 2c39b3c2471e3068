//! The one place cluster commands run the engine: the bundled core module in the wasmtime
//! sandbox, request JSON in, Output JSON (or the engine's error document) out.

use anyhow::Context as _;
use serde_json::Value;

use crate::runtime::{self, Limits, Runtime};

/// Renders an engine request. The Output, or the engine's error document, is returned as JSON;
/// a sandbox failure (memory, time, trap) or a malformed answer is an error here.
pub(crate) fn render(request: &Value) -> anyhow::Result<Value> {
    let cache = runtime::default_cache_dir();
    let rt = Runtime::new(runtime::BUNDLED_ENGINE, cache.as_deref(), 1)?;
    let out = rt.render(request.to_string().as_bytes(), Limits::default())?;
    runtime::parse_response(&out).context("the engine returned malformed JSON")
}
