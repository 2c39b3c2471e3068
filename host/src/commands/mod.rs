//! One module per subcommand.

pub(crate) mod cluster;
pub(crate) mod completions;
pub(crate) mod composition;
pub(crate) mod crossplane_render;
pub(crate) mod function;
pub(crate) mod module;
pub(crate) mod packages;
pub(crate) mod playground;
pub(crate) mod render;
pub(crate) mod test;
pub(crate) mod validate;
pub(crate) mod version;
pub(crate) mod xpkg;

use std::fmt;
use std::process::ExitCode;

use crate::cli::{Cli, Command};

/// Rendered (or nothing to do).
pub(crate) const EXIT_OK: u8 = 0;
/// The render failed.
pub(crate) const EXIT_RENDER: u8 = 1;
/// Usage or input error.
pub(crate) const EXIT_USAGE: u8 = 2;

/// A render that ran and failed (an engine error, a Fatal result, a sandbox limit): exit 1.
#[derive(Debug)]
pub(crate) struct RenderFailed(pub(crate) String);

impl fmt::Display for RenderFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RenderFailed {}

/// A failure of a render answering as `crossplane render`, in its words: printed as
/// `<program>: error: <message>`, exit 1.
#[derive(Debug)]
pub(crate) struct CrossplaneFailed(pub(crate) String);

impl fmt::Display for CrossplaneFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CrossplaneFailed {}

pub(crate) fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Render(args) => render::run(&args),
        Command::Validate(args) => validate::run(&args),
        Command::Xpkg(cmd) => xpkg::run(cmd),
        Command::Function(cmd) => function::run(cmd),
        Command::Diff(args) => cluster::diff(&args),
        Command::Apply(args) => cluster::apply(&args),
        Command::Playground(args) => playground::run(&args),
        Command::Completions(args) => completions::run(&args),
        Command::Version(args) => version::run(&args),
        Command::Module(args) => module::run(&args),
        Command::Test(args) => test::run(&args),
    }
}

/// The exit code for an error that reached `main`: input problems are usage errors (2),
/// everything else means the render could not be done (1).
pub(crate) fn exit_code(e: &anyhow::Error) -> u8 {
    if e.downcast_ref::<crate::io::InputError>().is_some() {
        EXIT_USAGE
    } else {
        EXIT_RENDER
    }
}
