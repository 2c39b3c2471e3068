//! The `xprender` command: renders Crossplane Compositions with the engine in a wasmtime sandbox.

use std::process::ExitCode;

use clap::Parser as _;
use xprender_host::{CrossplaneFailed, EXIT_BROKEN_PIPE, EXIT_RENDER, exit_code, is_broken_pipe};

/// The name this program was run by (`xprender`, or `crossplane` through a link of that name).
fn program_name() -> String {
    std::env::args_os()
        .next()
        .and_then(|a| {
            std::path::Path::new(&a)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "xprender".to_owned())
}

fn main() -> ExitCode {
    let cli = xprender_host::Cli::parse();
    match xprender_host::run(cli) {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => ExitCode::from(EXIT_BROKEN_PIPE),
        Err(e) if e.is::<CrossplaneFailed>() => {
            // As kong prints a command's error: the program's name first.
            eprintln!("{}: error: {e}", program_name());
            ExitCode::from(EXIT_RENDER)
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(exit_code(&e))
        }
    }
}
