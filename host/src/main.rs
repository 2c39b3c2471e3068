//! The `xprender` command: renders Crossplane Compositions with the engine in a wasmtime sandbox.

/// Diagnostics for developers on stderr, when `XPRENDER_LOG=debug`.
macro_rules! debug {
    ($($arg:tt)*) => {
        if std::env::var_os("XPRENDER_LOG").is_some_and(|v| v == "debug") {
            eprintln!("debug: {}", format!($($arg)*));
        }
    };
}
pub(crate) use debug;

mod cli;
mod cluster;
mod commands;
mod function;
mod go_duration;
mod io;
mod positions;
mod runtime;
mod trace;
mod xpkg;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match commands::run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(commands::exit_code(&e))
        }
    }
}
