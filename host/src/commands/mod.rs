//! One module per subcommand.

pub(crate) mod cluster;
pub(crate) mod completions;
pub(crate) mod playground;
pub(crate) mod render;
pub(crate) mod xpkg;

use std::process::ExitCode;

use crate::cli::{Cli, Command};

/// Rendered (or nothing to do).
pub(crate) const EXIT_OK: u8 = 0;
/// The render failed.
pub(crate) const EXIT_RENDER: u8 = 1;
/// Usage or input error.
#[allow(dead_code)] // wired up by the render command
pub(crate) const EXIT_USAGE: u8 = 2;

pub(crate) fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Render(args) => render::run(&args),
        Command::Xpkg(cmd) => xpkg::run(cmd),
        Command::Diff(args) => cluster::diff(&args),
        Command::Apply(args) => cluster::apply(&args),
        Command::Playground(args) => playground::run(&args),
        Command::Completions(args) => completions::run(&args),
        Command::Version => {
            println!("xprender {}", env!("CARGO_PKG_VERSION"));
            Ok(ExitCode::from(EXIT_OK))
        }
    }
}
