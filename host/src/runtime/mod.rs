//! The engine sandbox: wasmtime runs the core module (the C ABI of `src/abi.rs`) per render.
//!
//! Compile once (or load from the on-disk cache), pre-link once, then give every render a
//! fresh `Store` with a memory cap and a wall-clock deadline.

mod cache;
mod config;
mod guest;
pub(crate) mod json;
mod limits;
mod pool;
mod precheck;

use std::fmt;
use std::path::Path;

use anyhow::Context as _;
use wasmtime::{Engine, InstancePre, Linker, Module, Store};

pub(crate) use cache::{Source, default_dir as default_cache_dir, hex};
pub(crate) use config::config as engine_config;
pub(crate) use limits::Limits;
pub(crate) use pool::Pool;
pub(crate) use precheck::{DEFAULT_MAX_REQUEST_SIZE, list_over_limit, precheck};

/// The core module built from this commit, or the committed prebuilt one (see `build.rs`).
pub(crate) static BUNDLED_ENGINE: &[u8] = include_bytes!(env!("XPRENDER_CORE_WASM"));

/// `BUNDLED_ENGINE` compiled by build.rs for this binary's wasmtime configuration; empty when
/// it could not be (then the module is compiled at run time).
pub(crate) static BUNDLED_ENGINE_PRECOMPILED: &[u8] = include_bytes!(env!("XPRENDER_CORE_CWASM"));

/// How `BUNDLED_ENGINE` was made: `true` (built, then `wasm-opt -O3`), `false` (built, not
/// optimized) or `prebuilt` (host/assets/xprender-core.wasm).
pub(crate) const BUNDLED_ENGINE_OPTIMIZED: &str = env!("XPRENDER_CORE_OPTIMIZED");

/// The ABI version this host speaks (`xprender_abi_version`).
pub(crate) const ABI_VERSION: i32 = 1;

/// Why a guest run failed.
#[derive(Debug)]
pub(crate) enum GuestError {
    /// The guest needed more linear memory than the cap.
    OutOfMemory { limit: usize },
    /// The guest ran past the deadline.
    TimedOut { timeout: std::time::Duration },
    /// The guest trapped on its own: a bug in the engine, never an input problem.
    Trap(String),
    /// The module does not speak the ABI (missing exports, bad pointers, wrong version).
    Abi(String),
}

impl fmt::Display for GuestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GuestError::OutOfMemory { limit } => write!(
                f,
                "the engine ran out of memory: it needed more than {} (raise it with --max-memory)",
                human_bytes(*limit)
            ),
            GuestError::TimedOut { timeout } => write!(
                f,
                "the render timed out after {} (raise it with --timeout)",
                human_duration(*timeout)
            ),
            GuestError::Trap(trap) => write!(
                f,
                "the engine crashed ({trap}); this is a bug in xprender's engine, not in your \
                 input: please report it with the input that triggers it"
            ),
            GuestError::Abi(msg) => write!(
                f,
                "the engine module does not speak the xprender ABI: {msg}"
            ),
        }
    }
}

impl std::error::Error for GuestError {}

/// A compiled engine, ready to instantiate per render.
pub(crate) struct Runtime {
    engine: Engine,
    pre: InstancePre<limits::MemoryCap>,
    source: Source,
}

impl Runtime {
    /// Compiles (or loads from the cache in `cache_dir`) the engine module `wasm`, for at
    /// most `instances` instances alive at a time (one per render under way, plus a pool's
    /// idle ones).
    ///
    /// # Errors
    /// The module is not valid wasm, imports anything, or cannot be compiled.
    pub(crate) fn new(
        wasm: &[u8],
        cache_dir: Option<&Path>,
        instances: u32,
    ) -> anyhow::Result<Runtime> {
        let engine = Engine::new(&config::config(instances)).map_err(wasmtime_error)?;
        let (module, source) = cache::load(&engine, wasm, cache_dir)?;
        check_imports(&module)?;
        let linker = Linker::new(&engine);
        let pre = linker
            .instantiate_pre(&module)
            .map_err(wasmtime_error)
            .context("cannot link the engine module")?;
        Ok(Runtime {
            engine,
            pre,
            source,
        })
    }

    /// Where the compiled module came from.
    pub(crate) fn source(&self) -> Source {
        self.source
    }

    /// Runs one render: `request` is the contract's JSON, the result the response JSON.
    ///
    /// # Errors
    /// Out of memory, out of time, a trap, or an ABI violation; never a render error (those
    /// are error documents in the response).
    pub(crate) fn render(&self, request: &[u8], limits: Limits) -> Result<Vec<u8>, GuestError> {
        let mut store = Store::new(&self.engine, limits::MemoryCap::new(limits.max_memory));
        store.limiter(|cap| cap);
        store.set_epoch_deadline(1);
        let _deadline = limits::Deadline::arm(&self.engine, limits.timeout);
        let result = guest::render(&self.pre, &mut store, request);
        result.map_err(|e| classify(e, store.data(), limits))
    }

    /// The ABI version the module reports.
    ///
    /// # Errors
    /// As for [`Runtime::render`].
    pub(crate) fn abi_version(&self, limits: Limits) -> Result<i32, GuestError> {
        let mut store = Store::new(&self.engine, limits::MemoryCap::new(limits.max_memory));
        store.limiter(|cap| cap);
        store.set_epoch_deadline(1);
        let _deadline = limits::Deadline::arm(&self.engine, limits.timeout);
        let result = guest::abi_version(&self.pre, &mut store);
        result.map_err(|e| classify(e, store.data(), limits))
    }
}

fn check_imports(module: &Module) -> anyhow::Result<()> {
    let imports: Vec<String> = module
        .imports()
        .map(|i| format!("{}::{}", i.module(), i.name()))
        .collect();
    if !imports.is_empty() {
        anyhow::bail!(
            "the engine module imports {}; an xprender core module must import nothing \
             (is it the wasm-bindgen build?)",
            imports.join(", ")
        );
    }
    Ok(())
}

fn classify(e: guest::Failure, cap: &limits::MemoryCap, limits: Limits) -> GuestError {
    if cap.exceeded {
        return GuestError::OutOfMemory {
            limit: limits.max_memory,
        };
    }
    match e {
        guest::Failure::Abi(msg) => GuestError::Abi(msg),
        guest::Failure::Wasm(e) => match e.downcast_ref::<wasmtime::Trap>() {
            Some(wasmtime::Trap::Interrupt) => GuestError::TimedOut {
                timeout: limits.timeout,
            },
            Some(trap) => GuestError::Trap(trap.to_string()),
            None => GuestError::Trap(format!("{e:#}")),
        },
    }
}

/// wasmtime has its own error type; the host speaks anyhow.
pub(crate) fn wasmtime_error(e: wasmtime::Error) -> anyhow::Error {
    anyhow::anyhow!("{e:#}")
}

fn human_bytes(n: usize) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else if n >= 1 << 10 && n.is_multiple_of(1 << 10) {
        format!("{} KiB", n >> 10)
    } else {
        format!("{n} bytes")
    }
}

fn human_duration(d: std::time::Duration) -> String {
    if d.subsec_nanos() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

/// Parses the engine's answer. Its nesting is bounded by the engine (requests nest at most
/// 1000 levels, field paths add at most their segments), so serde_json's recursion limit
/// of 128, meant for untrusted text, would only refuse valid Outputs.
pub(crate) fn parse_response(bytes: &[u8]) -> serde_json::Result<serde_json::Value> {
    use serde::Deserialize as _;
    let mut de = serde_json::Deserializer::from_slice(bytes);
    de.disable_recursion_limit();
    let v = serde_json::Value::deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}
