//! The CNCF distribution registry (Debian's `docker-registry`) on loopback, for the package tests.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use super::tools::which;

/// The command that starts a registry on 127.0.0.1:`port`; it stores under `dir/storage` and logs to
/// `dir/registry.log`: errors only, or `access_log` at info level (tests count blob downloads
/// in it). `htpasswd` turns on basic auth with that file.
pub(crate) fn command(dir: &Path, port: u16, access_log: bool, htpasswd: Option<&Path>) -> Command {
    let log = if access_log {
        "{level: info, accesslog: {disabled: false}}"
    } else {
        "{level: error, accesslog: {disabled: true}}"
    };
    let auth = htpasswd.map_or_else(String::new, |file| {
        format!(
            "auth: {{htpasswd: {{realm: test, path: {}}}}}\n",
            file.display()
        )
    });
    let config = dir.join("registry.yml");
    std::fs::write(
        &config,
        format!(
            "version: 0.1\nlog: {log}\nstorage: {{filesystem: {{rootdirectory: {}}}, delete: {{enabled: true}}}}\nhttp: {{addr: 127.0.0.1:{port}}}\nhealth: {{storagedriver: {{enabled: false}}}}\n{auth}",
            dir.join("storage").display()
        ),
    )
    .unwrap();
    let log = std::fs::File::create(dir.join("registry.log")).unwrap();
    let mut cmd = Command::new(which("docker-registry"));
    cmd.arg("serve")
        .arg(&config)
        .stdout(log.try_clone().unwrap())
        .stderr(log);
    cmd
}

/// The status of a GET of `path`; `None` while nothing answers.
fn http_status(port: u16, path: &str) -> Option<u16> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    write!(s, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
    let mut buf = String::new();
    s.read_to_string(&mut buf).ok()?;
    buf.split_whitespace().nth(1)?.parse().ok()
}

/// Whether the registry serves its API (200, or 401 behind auth) within 20 seconds.
pub(crate) fn wait_up(port: u16) -> bool {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if matches!(http_status(port, "/v2/"), Some(200 | 401)) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}
