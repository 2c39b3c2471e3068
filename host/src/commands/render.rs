//! `xprender render`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;

#[derive(Debug, clap::Args)]
pub(crate) struct RenderArgs {
    /// The composite resource (YAML or JSON).
    pub(crate) xr: Option<PathBuf>,
    /// The Composition: a file (multi-document allowed) or a directory.
    pub(crate) composition: Option<PathBuf>,
}

pub(crate) fn run(_args: &RenderArgs) -> anyhow::Result<ExitCode> {
    bail!("render is not available yet")
}
