//! The one place cluster commands run the engine: the bundled core module in the wasmtime
//! sandbox, request JSON in, Output JSON (or the engine's error document) out.
//!
//! The engine is compiled (or loaded from the cache) once per process and its instance kept:
//! a review of a thousand XRs renders a thousand times on one live instance (the engine is
//! pure, so it answers the same after any number of renders), not on a thousand new ones.

use std::sync::OnceLock;

use anyhow::{Context as _, anyhow};
use serde_json::Value;

use crate::runtime::{self, Limits, Pool, Runtime};

/// The process's engine; `Err` keeps why it could not be made.
static ENGINE: OnceLock<Result<Pool, String>> = OnceLock::new();

fn engine() -> anyhow::Result<&'static Pool> {
    let made = ENGINE.get_or_init(|| {
        let cache = runtime::default_cache_dir();
        // One instance renders, a second may be instantiated after a failed render.
        Runtime::new(runtime::BUNDLED_ENGINE, cache.as_deref(), 2)
            .map(|rt| Pool::new(rt, Limits::default(), 1))
            .map_err(|e| format!("{e:#}"))
    });
    made.as_ref().map_err(|e| anyhow!("{e}"))
}

/// Renders an engine request. The Output, or the engine's error document, is returned as JSON;
/// a sandbox failure (memory, time, trap) or a malformed answer is an error here.
pub(crate) fn render(request: &Value) -> anyhow::Result<Value> {
    let out = engine()?.render(request.to_string().as_bytes())?;
    runtime::parse_response(&out).context("the engine returned malformed JSON")
}
