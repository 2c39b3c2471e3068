//! `xprender playground`: a static server on 127.0.0.1 that never leaves its directory, and
//! serves the playground built into the binary from anywhere.

mod common;

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Stdio};

use common::{run, temp_dir, write, xprender};

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Sends a raw request; returns (status line, headers, body).
fn request(addr: &str, raw: &str) -> (String, String, Vec<u8>) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.write_all(raw.as_bytes()).unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    let split = response.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8(response[..split].to_vec()).unwrap();
    let (status, headers) = head.split_once("\r\n").unwrap_or((&head, ""));
    (
        status.to_owned(),
        headers.to_owned(),
        response[split + 4..].to_vec(),
    )
}

/// Starts `xprender playground --port 0 EXTRA...` in `cwd`; returns the server and its address.
fn start(extra: &[&std::ffi::OsStr], cwd: &Path) -> (Server, String) {
    let mut child = xprender()
        .args(["playground", "--port", "0"])
        .args(extra)
        .current_dir(cwd)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let server = Server(child);
    let url = line.trim().strip_prefix("xprender playground: ").unwrap();
    let addr = url.strip_prefix("http://").unwrap().trim_end_matches('/');
    assert!(addr.starts_with("127.0.0.1:"), "{line}");
    (server, addr.to_owned())
}

fn get(addr: &str, path: &str) -> (String, String, Vec<u8>) {
    request(
        addr,
        &format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n"),
    )
}

#[test]
fn serves_the_built_site_safely() {
    let dir = temp_dir("playground");
    let site = dir.join("dist");
    std::fs::create_dir_all(site.join("assets")).unwrap();
    write(
        &site,
        "index.html",
        "<!doctype html><title>xprender</title>",
    );
    write(&site, "assets/app.js", "console.log(1)");
    std::fs::write(site.join("assets/engine.wasm"), b"\0asm\x01\0\0\0").unwrap();
    write(&site, "assets/style.css", "body{}");
    write(&dir, "secret.txt", "outside the site");
    std::os::unix::fs::symlink(dir.join("secret.txt"), site.join("escape.txt")).unwrap();

    let (_server, addr) = start(&["--dir".as_ref(), site.as_os_str()], &dir);
    let addr = addr.as_str();

    let (status, headers, body) = get(addr, "/");
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert!(
        headers.contains("Content-Type: text/html; charset=utf-8"),
        "{headers}"
    );
    assert_eq!(body, b"<!doctype html><title>xprender</title>");
    for (path, content_type) in [
        ("/assets/engine.wasm", "application/wasm"),
        ("/assets/app.js?v=1", "text/javascript; charset=utf-8"),
        ("/assets/style.css", "text/css; charset=utf-8"),
        ("/assets/", "text/plain; charset=utf-8"),
    ] {
        let (status, headers, _) = get(addr, path);
        if path == "/assets/" {
            assert_eq!(
                status, "HTTP/1.1 404 Not Found",
                "a directory without index.html"
            );
        } else {
            assert_eq!(status, "HTTP/1.1 200 OK", "{path}");
        }
        assert!(
            headers.contains(&format!("Content-Type: {content_type}")),
            "{path}: {headers}"
        );
    }
    for path in [
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/assets/../../secret.txt",
        "/escape.txt",
        "/missing",
        "/%zz",
        "//etc/passwd",
    ] {
        let (status, _, body) = get(addr, path);
        assert_eq!(status, "HTTP/1.1 404 Not Found", "{path}");
        assert_eq!(body, b"not found\n");
    }
    let (status, _, _) = request(addr, "POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
    assert_eq!(status, "HTTP/1.1 405 Method Not Allowed");
    let (status, headers, body) = request(addr, "HEAD /assets/engine.wasm HTTP/1.1\r\n\r\n");
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert!(headers.contains("Content-Length: 8"), "{headers}");
    assert!(body.is_empty());
}

/// Without `--dir`, in a directory with no www/ at all: every file of the built playground
/// (host/assets/playground, as `scripts/build-embedded.sh` writes it) comes out of the binary,
/// byte for byte, with its content type.
#[test]
fn serves_the_embedded_playground_anywhere() {
    let dir = temp_dir("playground-embedded");
    let (_server, addr) = start(&[], &dir);
    let site = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/playground");
    let mut files = vec![site.join("index.html")];
    for entry in std::fs::read_dir(site.join("assets")).unwrap() {
        files.push(entry.unwrap().path());
    }
    let mut kinds = std::collections::BTreeSet::new();
    for file in &files {
        let path = file.strip_prefix(&site).unwrap().to_str().unwrap();
        let extension = file.extension().unwrap().to_str().unwrap();
        let content_type = match extension {
            "html" => "text/html; charset=utf-8",
            "js" => "text/javascript; charset=utf-8",
            "css" => "text/css; charset=utf-8",
            "wasm" => "application/wasm",
            other => panic!("unexpected file type in the built playground: {path} ({other})"),
        };
        let (status, headers, body) = get(&addr, &format!("/{path}"));
        assert_eq!(status, "HTTP/1.1 200 OK", "{path}");
        assert!(
            headers.contains(&format!("Content-Type: {content_type}")),
            "{path}: {headers}"
        );
        assert!(body == std::fs::read(file).unwrap(), "{path}: other bytes");
        kinds.insert(extension);
    }
    assert_eq!(
        kinds.into_iter().collect::<Vec<_>>(),
        ["css", "html", "js", "wasm"]
    );
    let (_, _, index) = get(&addr, "/");
    assert!(index == std::fs::read(site.join("index.html")).unwrap());
    for path in ["/../Cargo.toml", "/%2e%2e/build.rs", "/missing", "/assets/"] {
        let (status, _, _) = get(&addr, path);
        assert_eq!(status, "HTTP/1.1 404 Not Found", "{path}");
    }
}

#[test]
fn missing_site_is_a_usage_error() {
    let dir = temp_dir("playground-missing");
    let (code, _, err) = run(xprender()
        .args(["playground", "--dir"])
        .arg(dir.join("nope")));
    assert_eq!(code, 2);
    assert!(
        err.contains("does not exist: build the playground first"),
        "{err}"
    );
    let (code, _, err) = run(xprender().args(["playground", "--dir"]).arg(&dir));
    assert_eq!(code, 2);
    assert!(err.contains("has no index.html"), "{err}");
}

#[test]
fn idle_connections_are_capped() {
    let dir = temp_dir("playground-cap");
    let site = dir.join("dist");
    std::fs::create_dir_all(&site).unwrap();
    write(
        &site,
        "index.html",
        "<!doctype html><title>xprender</title>",
    );
    let (_server, addr) = start(&["--dir".as_ref(), site.as_os_str()], &dir);

    // 64 connections that never send a request hold every slot...
    let idle: Vec<TcpStream> = (0..64)
        .map(|_| TcpStream::connect(&addr).unwrap())
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(300));
    // ...so the next one is refused at once rather than given a thread (the answer comes
    // before any request is sent).
    let mut refused = TcpStream::connect(&addr).unwrap();
    let mut response = String::new();
    refused.read_to_string(&mut response).unwrap();
    assert!(
        response.starts_with("HTTP/1.1 503 Service Unavailable\r\n"),
        "{response}"
    );
    assert!(
        response.ends_with("\r\n\r\ntoo many connections\n"),
        "{response}"
    );
    // Once they go, the site is served again.
    drop(idle);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let (status, _, _) = get(&addr, "/");
        if status == "HTTP/1.1 200 OK" {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "still {status}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}
