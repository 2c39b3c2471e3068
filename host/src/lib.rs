//! The `xprender` command as a library: renders Crossplane Compositions with the engine in a
//! wasmtime sandbox. `main.rs` parses the command line, calls [`run`] and turns its error into
//! an exit status; everything else is private, apart from `unstable`, the internals the
//! host's own tests and benches use.

/// Diagnostics for developers on stderr, when `XPRENDER_LOG=debug`.
macro_rules! debug {
    ($($arg:tt)*) => {
        if std::env::var_os("XPRENDER_LOG").is_some_and(|v| v == "debug") {
            eprintln!("debug: {}", format!($($arg)*));
        }
    };
}
pub(crate) use debug;

/// `print!` that ends the process quietly when stdout's reader has gone away.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::stdout::print(format_args!($($arg)*))
    };
}
pub(crate) use out;

/// `println!` that ends the process quietly when stdout's reader has gone away.
macro_rules! outln {
    () => {
        $crate::stdout::print(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::stdout::print(format_args!("{}\n", format_args!($($arg)*)))
    };
}
pub(crate) use outln;

mod cli;
mod cluster;
mod commands;
mod function;
mod impact;
mod io;
mod positions;
mod review;
mod runtime;
mod stdout;
mod timeout;
mod trace;
mod xpkg;

use std::process::ExitCode;

pub use cli::Cli;
pub use commands::{CrossplaneFailed, EXIT_RENDER, exit_code};
pub use stdout::{EXIT_BROKEN_PIPE, is_broken_pipe};

/// Runs the command `cli` names.
///
/// # Errors
/// The command's failure; [`exit_code`] gives the status it ends the process with.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    // Reading, checking and writing documents recurse once per level of nesting, and
    // documents nest as deep as the engine's 1,000 levels (its output deeper still): the
    // command runs on a thread with the stack for that.
    io::with_deep_stack(|| cli::run(cli))
}

/// Internals the host's own tests, benches and examples use, so that they measure and check
/// what the command runs. No stability promise.
#[doc(hidden)]
pub mod unstable {
    pub use crate::function::{client, go_order, structs};

    /// The wasmtime configuration every render runs under, for at most `instances` live
    /// instances at a time.
    #[must_use]
    pub fn engine_config(instances: u32) -> wasmtime::Config {
        crate::runtime::engine_config(instances)
    }
}
