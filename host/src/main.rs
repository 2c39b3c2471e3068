//! The `xprender` command.

fn main() {
    println!("xprender {}", env!("CARGO_PKG_VERSION"));
}
