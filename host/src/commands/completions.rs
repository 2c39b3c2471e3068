//! `xprender completions`: shell completion scripts.

use std::process::ExitCode;

use clap::CommandFactory;

#[derive(Debug, clap::Args)]
pub(crate) struct CompletionsArgs {
    /// The shell.
    pub(crate) shell: clap_complete::Shell,
}

pub(crate) fn run(args: &CompletionsArgs) -> anyhow::Result<ExitCode> {
    let mut cmd = crate::cli::Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "xprender", &mut script);
    crate::out!("{}", String::from_utf8_lossy(&script));
    Ok(ExitCode::from(super::EXIT_OK))
}
