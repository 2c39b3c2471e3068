//! `xprender completions`: shell completion scripts.

use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub(crate) struct CompletionsArgs {
    /// The shell.
    pub(crate) shell: clap_complete::Shell,
}

/// Prints the completion script of `cmd`, the command line's definition.
pub(crate) fn run(args: &CompletionsArgs, mut cmd: clap::Command) -> anyhow::Result<ExitCode> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "xprender", &mut script);
    crate::out!("{}", String::from_utf8_lossy(&script));
    Ok(ExitCode::from(super::EXIT_OK))
}
