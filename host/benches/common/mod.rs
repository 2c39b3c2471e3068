//! What the benches that talk to `xprender function serve` share.

use std::io::{BufRead as _, BufReader};
use std::process::{Child, Command, Stdio};

use serde_json::Value as Json;

/// Starts `BIN function serve` on a free loopback port and returns the child and the address
/// its "Listening" log line names. Its later log lines are drained so the server never blocks.
pub(crate) fn spawn_function_server(bin: &str) -> (Child, String) {
    let mut child = Command::new(bin)
        .args([
            "function",
            "serve",
            "--insecure",
            "--address",
            "127.0.0.1:0",
        ])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let address = loop {
        let line = lines.next().expect("the server listens").unwrap();
        let log: Json = serde_json::from_str(&line).unwrap_or_default();
        if log["msg"] == "Listening" {
            break log["address"].as_str().unwrap().to_owned();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    (child, address)
}
