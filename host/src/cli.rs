//! Command-line definitions (clap) only; behaviour lives in `commands/`.

use clap::{Parser, Subcommand};

/// Render Crossplane Compositions offline, sandboxed, exactly as Crossplane would.
#[derive(Debug, Parser)]
#[command(
    name = "xprender",
    version,
    about,
    propagate_version = true,
    after_help = "Start with: xprender render xr.yaml composition.yaml --observed-resources observed.yaml"
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Render a composite resource with a Composition.
    Render(Box<crate::commands::render::RenderArgs>),
    /// Validate objects against CRD and XRD schemas, and Compositions deeply.
    Validate(Box<crate::commands::validate::ValidateArgs>),
    /// Work with Crossplane packages (xpkg) in OCI registries.
    #[command(subcommand)]
    Xpkg(crate::commands::xpkg::XpkgCommand),
    /// Run the engine as a Crossplane composition function (gRPC).
    #[command(subcommand)]
    Function(crate::commands::function::FunctionCommand),
    /// Show what rendering would change in a live cluster.
    Diff(crate::commands::cluster::DiffArgs),
    /// Server-side apply the rendered state to a live cluster (dry-run unless --yes).
    Apply(crate::commands::cluster::ApplyArgs),
    /// Serve the composition playground on 127.0.0.1.
    Playground(crate::commands::playground::PlaygroundArgs),
    /// Print shell completions.
    Completions(crate::commands::completions::CompletionsArgs),
    /// Print the engine, host, ABI and wasmtime versions.
    Version(crate::commands::version::VersionArgs),
    /// Run composition tests: render inputs and expected outputs as data.
    Test(crate::commands::test::TestArgs),
    /// Write the embedded engine core module (wasm) to a file.
    Module(crate::commands::module::ModuleArgs),
}
