//! The `xprender` command: renders Crossplane Compositions with the engine in a wasmtime sandbox.

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
mod io;
mod positions;
mod runtime;
mod stdout;
mod timeout;
mod trace;
mod xpkg;

use std::process::ExitCode;

use clap::Parser;

/// The name this program was run by (`xprender`, or `crossplane` through a link of that name).
fn program_name() -> String {
    std::env::args_os()
        .next()
        .and_then(|a| {
            std::path::Path::new(&a)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "xprender".to_owned())
}

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    // Reading, checking and writing documents recurse once per level of nesting, and
    // documents nest as deep as the engine's 1,000 levels (its output deeper still): the
    // command runs on a thread with the stack for that.
    match io::with_deep_stack(|| commands::run(cli)) {
        Ok(code) => code,
        Err(e) if stdout::is_broken_pipe(&e) => ExitCode::from(stdout::EXIT_BROKEN_PIPE),
        Err(e) if e.is::<commands::CrossplaneFailed>() => {
            // As kong prints a command's error: the program's name first.
            eprintln!("{}: error: {e}", program_name());
            ExitCode::from(commands::EXIT_RENDER)
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(commands::exit_code(&e))
        }
    }
}
