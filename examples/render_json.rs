//! Prints native `render_json` of each request file named on the command line, one line each
//! (the reference the wasm faces are compared with byte for byte).

// A host-side tool, not engine code: reading files is its job.
#![allow(clippy::disallowed_methods)]

use std::io::Write as _;

fn main() -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    let mut engine = xprender::Engine::new();
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path)?;
        writeln!(out, "{}", engine.render_json(&text))?;
    }
    Ok(())
}
