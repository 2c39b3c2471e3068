//! Command-line definitions (clap), and the command each subcommand runs; behaviour lives in
//! `commands/`.

use std::process::ExitCode;

use clap::{CommandFactory as _, Parser, Subcommand};

use crate::commands;

/// Render Crossplane Compositions offline, sandboxed, exactly as Crossplane would.
#[derive(Debug, Parser)]
#[command(
    name = "xprender",
    version,
    about,
    propagate_version = true,
    after_help = "Start with: xprender render xr.yaml composition.yaml --observed-resources observed.yaml"
)]
pub struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Render a composite resource with a Composition.
    Render(Box<commands::render::RenderArgs>),
    /// Validate objects against CRD and XRD schemas, and Compositions deeply.
    Validate(Box<commands::validate::ValidateArgs>),
    /// Work with Crossplane packages (xpkg) in OCI registries.
    #[command(subcommand)]
    Xpkg(commands::xpkg::XpkgCommand),
    /// Run the engine as a Crossplane composition function (gRPC).
    #[command(subcommand)]
    Function(commands::function::FunctionCommand),
    /// Show what rendering would change in a live cluster.
    Diff(commands::review::DiffArgs),
    /// Server-side apply the rendered state to a live cluster (dry-run unless --yes).
    Apply(commands::cluster::ApplyArgs),
    /// Serve the composition playground on 127.0.0.1.
    Playground(commands::playground::PlaygroundArgs),
    /// Print shell completions.
    Completions(commands::completions::CompletionsArgs),
    /// Print the engine, host, ABI and wasmtime versions.
    Version(commands::version::VersionArgs),
    /// Run composition tests: render inputs and expected outputs as data.
    Test(commands::test::TestArgs),
    /// Write the embedded engine core module (wasm) to a file.
    Module(commands::module::ModuleArgs),
}

/// Runs the subcommand `cli` names.
pub(crate) fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Render(args) => commands::render::run(&args),
        Command::Validate(args) => commands::validate::run(&args),
        Command::Xpkg(cmd) => commands::xpkg::run(cmd),
        Command::Function(cmd) => commands::function::run(cmd),
        Command::Diff(args) => commands::review::diff(&args),
        Command::Apply(args) => commands::cluster::apply(&args),
        Command::Playground(args) => commands::playground::run(&args),
        Command::Completions(args) => commands::completions::run(&args, Cli::command()),
        Command::Version(args) => commands::version::run(&args),
        Command::Module(args) => commands::module::run(&args),
        Command::Test(args) => commands::test::run(&args),
    }
}
