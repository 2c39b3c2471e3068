//! Writing to standard output when the reader may have gone away.
//!
//! `xprender ... | head` closes the pipe early. Rust ignores SIGPIPE, so a write
//! then fails with `BrokenPipe` where `println!` would panic. The command ends
//! the way Crossplane's Go CLI does on a closed stdout: quietly, with the status
//! of a process ended by SIGPIPE.

use std::fmt;
use std::io::{self, Write};

/// The exit status of a process ended by SIGPIPE (128 + 13), as a shell reports it.
pub const EXIT_BROKEN_PIPE: u8 = 141;

/// Writes `args` to standard output; ends the process on a closed pipe.
pub(crate) fn print(args: fmt::Arguments<'_>) {
    let mut out = io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.flush()) {
        exit_on(&e);
    }
}

/// Ends the process for a write error on standard output.
fn exit_on(e: &io::Error) -> ! {
    if e.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(i32::from(EXIT_BROKEN_PIPE));
    }
    eprintln!("error: cannot write to standard output: {e}");
    std::process::exit(1);
}

/// Whether `e` comes from writing to a reader that has gone away.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain()
        .filter_map(|c| c.downcast_ref::<io::Error>())
        .any(|io| io.kind() == io::ErrorKind::BrokenPipe)
}
