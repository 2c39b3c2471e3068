//! `xprender module`: writes the embedded core module, for hosts that embed the engine
//! without building Rust (the C ABI in docs/abi.md).

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use sha2::{Digest, Sha256};

use crate::io::input_error;
use crate::runtime;

#[derive(Debug, clap::Args)]
pub(crate) struct ModuleArgs {
    /// Where to write the module (`-` for stdout).
    #[arg(long, short = 'o', value_name = "FILE|-")]
    pub(crate) output: PathBuf,
}

pub(crate) fn run(args: &ModuleArgs) -> anyhow::Result<ExitCode> {
    let wasm = runtime::BUNDLED_ENGINE;
    if args.output.as_os_str() == "-" {
        let mut out = std::io::stdout().lock();
        out.write_all(wasm)?;
        out.flush()?;
    } else {
        std::fs::write(&args.output, wasm)
            .map_err(|e| input_error!("cannot write {}: {e}", args.output.display()))?;
        eprintln!(
            "wrote {} ({} bytes, sha256 {})",
            args.output.display(),
            wasm.len(),
            runtime::hex(&Sha256::digest(wasm))
        );
    }
    Ok(ExitCode::from(super::EXIT_OK))
}
