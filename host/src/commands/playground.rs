//! `xprender playground`: serves the built playground (www/dist) on 127.0.0.1.

use std::process::ExitCode;

use anyhow::bail;

#[derive(Debug, clap::Args)]
pub(crate) struct PlaygroundArgs {
    /// The port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 0)]
    pub(crate) port: u16,
}

pub(crate) fn run(_args: &PlaygroundArgs) -> anyhow::Result<ExitCode> {
    bail!("playground is not available yet")
}
