//! What every live-server test needs: the binary under test, free loopback ports, installed tools.

use std::net::TcpListener;
use std::path::PathBuf;

/// The binary under test; `XPRENDER_BIN` overrides it (a copy, when a shared target directory
/// may be rebuilt by other checkouts during the run).
pub(crate) fn xprender_bin() -> PathBuf {
    std::env::var_os("XPRENDER_BIN").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_xprender")),
        PathBuf::from,
    )
}

/// A port nothing listens on right now (the listener is closed again on return).
pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port")
}

/// `bin` on PATH; the suite script that runs the test (60-registry.sh, 70-cluster.sh) installs it.
pub(crate) fn which(bin: &str) -> PathBuf {
    std::env::var_os("PATH")
        .and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(bin))
                .find(|p| p.is_file())
        })
        .unwrap_or_else(|| {
            panic!(
                "{bin} is not installed; the scripts/suites/ script that runs this test installs it"
            )
        })
}
