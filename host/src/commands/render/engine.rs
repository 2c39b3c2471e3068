//! Running the engine: the bundled core module (or --engine FILE) in the wasmtime sandbox.

use std::path::Path;

use super::RenderArgs;
use crate::commands::RenderFailed;
use crate::io::input_error;
use crate::runtime::{self, Limits, Runtime};

/// The engine's answer to `request`, run in the wasmtime sandbox.
pub(crate) fn render_sandboxed(
    args: &RenderArgs,
    limits: Limits,
    request: &[u8],
) -> anyhow::Result<Vec<u8>> {
    let started = std::time::Instant::now();
    let runtime = load_runtime(args.engine.as_deref())?;
    crate::debug!(
        "engine module {:?} in {:?}",
        runtime.source(),
        started.elapsed()
    );
    let started = std::time::Instant::now();
    let response = runtime
        .render(request, limits)
        .map_err(|e| RenderFailed(e.to_string()))?;
    crate::debug!(
        "render of {} request bytes in {:?}",
        request.len(),
        started.elapsed()
    );
    Ok(response)
}

fn load_runtime(engine: Option<&Path>) -> anyhow::Result<Runtime> {
    let cache = runtime::default_cache_dir();
    match engine {
        None => Runtime::new(runtime::BUNDLED_ENGINE, cache.as_deref(), 1),
        Some(path) => {
            let wasm = std::fs::read(path).map_err(|e| {
                input_error!("cannot read the engine module {}: {e}", path.display())
            })?;
            Runtime::new(&wasm, cache.as_deref(), 1)
                .map_err(|e| input_error!("{}: {e:#}", path.display()).into())
        }
    }
}
