//! The `xprender` command: renders Crossplane Compositions with the engine in a wasmtime sandbox.

mod cli;
mod cluster;
mod commands;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match commands::run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(commands::EXIT_RENDER)
        }
    }
}
