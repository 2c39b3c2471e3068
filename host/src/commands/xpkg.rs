//! `xprender xpkg`: pull, inspect, build and push Crossplane packages.

use std::process::ExitCode;

use anyhow::bail;

#[derive(Debug, clap::Subcommand)]
pub(crate) enum XpkgCommand {
    /// Pull a package into the local cache (and optionally a directory).
    Pull {
        /// The package reference, e.g. registry.example.org/org/pkg:v1.0.0.
        reference: String,
    },
}

pub(crate) fn run(_cmd: XpkgCommand) -> anyhow::Result<ExitCode> {
    bail!("xpkg is not available yet")
}
