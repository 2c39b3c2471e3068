//! `xprender diff` and `xprender apply` against a live cluster.

use std::process::ExitCode;

use anyhow::bail;

#[derive(Debug, clap::Args)]
pub(crate) struct DiffArgs {
    /// The composite resource or claim, as KIND/NAME.
    #[arg(long)]
    pub(crate) cluster: String,
}

#[derive(Debug, clap::Args)]
pub(crate) struct ApplyArgs {
    /// The composite resource or claim, as KIND/NAME.
    #[arg(long)]
    pub(crate) cluster: String,
}

pub(crate) fn diff(_args: &DiffArgs) -> anyhow::Result<ExitCode> {
    bail!("diff is not available yet")
}

pub(crate) fn apply(_args: &ApplyArgs) -> anyhow::Result<ExitCode> {
    bail!("apply is not available yet")
}
