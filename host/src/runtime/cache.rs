//! Where a compiled engine module comes from, so a cold process skips Cranelift: the bundled
//! module's precompiled artifact (built by build.rs), else an on-disk cache of compiled modules.
//!
//! An entry is named by the module's sha256, the wasmtime version and a hash of the engine
//! configuration; its content is a sha256 of the payload followed by `Module::serialize`
//! output. A missing, stale or corrupt entry is recompiled and atomically replaced.

use std::fs;
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use sha2::{Digest, Sha256};
use wasmtime::{Engine, Module};

use super::wasmtime_error;

/// The cache directory: `$XPRENDER_CACHE_DIR`, else `$XDG_CACHE_HOME/xprender/modules`,
/// else `~/.cache/xprender/modules`. `None` when no home is known (caching is skipped).
pub(crate) fn default_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("XPRENDER_CACHE_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|d| !d.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        })?;
    Some(base.join("xprender").join("modules"))
}

/// How a module was obtained; reported by `--verbose`-style diagnostics and tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// The artifact build.rs compiled the bundled module into.
    Precompiled,
    /// Loaded from a cache entry.
    Cache,
    /// Compiled (and stored, when a cache directory is usable).
    Compiled,
}

/// Loads `wasm` compiled for `engine`: the precompiled artifact when `wasm` is the bundled
/// module and the artifact suits this CPU and configuration, else from the cache in `dir`,
/// compiling and storing it on a miss.
pub(crate) fn load(
    engine: &Engine,
    wasm: &[u8],
    dir: Option<&Path>,
) -> anyhow::Result<(Module, Source)> {
    // By content, not address: a caller may hold a copy (`xprender version` does).
    if wasm == super::BUNDLED_ENGINE
        && let Some(module) = precompiled(engine)
    {
        return Ok((module, Source::Precompiled));
    }
    let Some(dir) = dir else {
        return Ok((compile(engine, wasm)?, Source::Compiled));
    };
    let entry = dir.join(entry_name(engine, wasm));
    if let Some(module) = read_entry(engine, &entry) {
        // Pruning drops the least recently used entries: mark this one used.
        let _ = fs::File::options()
            .write(true)
            .open(&entry)
            .and_then(|f| f.set_modified(std::time::SystemTime::now()));
        return Ok((module, Source::Cache));
    }
    let module = compile(engine, wasm)?;
    // A cache that cannot be written only costs speed; the render goes on.
    match write_entry(&module, dir, &entry) {
        Ok(()) => prune(dir, &entry),
        Err(e) => eprintln!(
            "warning: cannot write the module cache {}: {e:#}",
            entry.display()
        ),
    }
    Ok((module, Source::Compiled))
}

/// The bundled module's artifact, unless it is empty (build.rs could not make it), turned off
/// (`XPRENDER_PRECOMPILED=off`, to measure or rule it out) or refused by wasmtime: another
/// wasmtime configuration, or a CPU without a feature the code uses.
fn precompiled(engine: &Engine) -> Option<Module> {
    if super::BUNDLED_ENGINE_PRECOMPILED.is_empty()
        || std::env::var_os("XPRENDER_PRECOMPILED").is_some_and(|v| v == "off")
    {
        return None;
    }
    // SAFETY: the artifact is wasmtime's own output for the bundled module, made by build.rs
    // with this binary's wasmtime and configuration and embedded in the binary, not read from
    // anywhere a user writes; wasmtime checks its version, configuration and CPU features.
    #[allow(unsafe_code)]
    let module = unsafe { Module::deserialize(engine, super::BUNDLED_ENGINE_PRECOMPILED) };
    match module {
        Ok(module) => Some(module),
        Err(e) => {
            crate::debug!("precompiled engine refused, compiling instead: {e:#}");
            None
        }
    }
}

fn compile(engine: &Engine, wasm: &[u8]) -> anyhow::Result<Module> {
    Module::new(engine, wasm)
        .map_err(wasmtime_error)
        .context("cannot compile the engine module")
}

fn entry_name(engine: &Engine, wasm: &[u8]) -> String {
    let module = hex(&Sha256::digest(wasm));
    let mut config = std::hash::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut config);
    format!(
        "{module}-wasmtime{}-{:016x}.cwasm",
        env!("XPRENDER_WASMTIME_VERSION"),
        config.finish()
    )
}

fn read_entry(engine: &Engine, entry: &Path) -> Option<Module> {
    let bytes = fs::read(entry).ok()?;
    let (sum, payload) = bytes.split_at_checked(32)?;
    if Sha256::digest(payload).as_slice() != sum {
        return None;
    }
    // SAFETY: the payload is exactly what `Module::serialize` wrote for an engine with this
    // configuration (the checksum rules out truncation and corruption); wasmtime itself
    // rejects artifacts of another version or configuration.
    #[allow(unsafe_code)]
    unsafe { Module::deserialize(engine, payload) }.ok()
}

fn write_entry(module: &Module, dir: &Path, entry: &Path) -> anyhow::Result<()> {
    let payload = module.serialize().map_err(wasmtime_error)?;
    fs::create_dir_all(dir)?;
    // Write beside the entry, then rename: readers see the old entry or the new one, whole.
    let tmp = dir.join(format!(".{}.{}.tmp", std::process::id(), unique()));
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(&Sha256::digest(&payload))?;
        f.write_all(&payload)?;
        f.sync_all()?;
        fs::rename(&tmp, entry)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    Ok(result?)
}

/// Entries kept per cache directory; every engine build (and `--engine` module) adds one.
const MAX_ENTRIES: usize = 16;

/// Removes the least recently used entries beyond `MAX_ENTRIES`, never `keep`.
fn prune(dir: &Path, keep: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<(std::time::SystemTime, PathBuf)> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "cwasm") && p != keep)
        .filter_map(|p| Some((fs::metadata(&p).ok()?.modified().ok()?, p)))
        .collect();
    if entries.len() < MAX_ENTRIES {
        return;
    }
    entries.sort();
    for (_, p) in &entries[..=entries.len() - MAX_ENTRIES] {
        let _ = fs::remove_file(p);
    }
}

fn unique() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}
