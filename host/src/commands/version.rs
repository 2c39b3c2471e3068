//! `xprender version`: host, engine, ABI and wasmtime versions.

use std::path::PathBuf;
use std::process::ExitCode;

use sha2::{Digest, Sha256};

use crate::io::input_error;
use crate::runtime::{self, Limits, Runtime};

#[derive(Debug, clap::Args)]
pub(crate) struct VersionArgs {
    /// Report on this engine module instead of the bundled one.
    #[arg(long, value_name = "PATH.wasm")]
    pub(crate) engine: Option<PathBuf>,
}

pub(crate) fn run(args: &VersionArgs) -> anyhow::Result<ExitCode> {
    let (wasm, origin) = match &args.engine {
        Some(p) => (
            std::fs::read(p)
                .map_err(|e| input_error!("cannot read the engine module {}: {e}", p.display()))?,
            p.display().to_string(),
        ),
        None => {
            let how = match runtime::BUNDLED_ENGINE_OPTIMIZED {
                "true" => "built from the same commit; bundled, wasm-opt -O3",
                "prebuilt" => {
                    "bundled prebuilt host/assets/xprender-core.wasm: the toolchain lacked the \
                     wasm32 target"
                }
                _ => "built from the same commit; bundled, not optimized",
            };
            (runtime::BUNDLED_ENGINE.to_vec(), how.to_owned())
        }
    };
    let rt = Runtime::new(&wasm, runtime::default_cache_dir().as_deref(), 1)?;
    let abi = rt
        .abi_version(Limits::default())
        .map_err(|e| super::RenderFailed(e.to_string()))?;
    let sha = runtime::hex(&Sha256::digest(&wasm));
    let version = env!("CARGO_PKG_VERSION");
    crate::outln!("xprender {version}");
    crate::outln!("host:     {version}");
    if args.engine.is_some() {
        crate::outln!("engine:   {origin}");
    } else {
        crate::outln!("engine:   {version} ({origin})");
    }
    crate::outln!("module:   {} bytes, sha256 {sha}", wasm.len());
    crate::outln!("abi:      {abi}");
    crate::outln!("wasmtime: {}", env!("XPRENDER_WASMTIME_VERSION"));
    Ok(ExitCode::from(super::EXIT_OK))
}
