//! Registry faults: `xprender xpkg pull` against a tiny registry on loopback that misbehaves
//! on purpose (wrong digests, truncated blobs, a gzip bomb, tars that climb out, an index
//! served for another digest, a 10 GB claimed size, an answer that stalls). Each pull is
//! refused with a clear error, and the blob cache never holds a blob whose content does not
//! match its name.

mod common;

use std::collections::HashMap;
use std::io::{Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::Arc;

use serde_json::json;
use sha2::{Digest as _, Sha256};

use common::{run, temp_dir, xprender};

fn sha(b: &[u8]) -> String {
    format!("sha256:{:x}", Sha256::digest(b))
}

/// One answer of the fake registry.
#[derive(Clone)]
struct Answer {
    content_type: &'static str,
    body: Vec<u8>,
    /// Send only this many bytes of the body (after announcing all of it), then close.
    cut_at: Option<usize>,
    /// Stall this long after the headers, before the body.
    stall: Option<std::time::Duration>,
}

fn answer(content_type: &'static str, body: Vec<u8>) -> Answer {
    Answer {
        content_type,
        body,
        cut_at: None,
        stall: None,
    }
}

/// Serves `routes` (path to answer) on 127.0.0.1; 404 for anything else.
fn serve(routes: HashMap<String, Answer>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let routes = Arc::new(routes);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let routes = Arc::clone(&routes);
            std::thread::spawn(move || handle(stream, &routes));
        }
    });
    format!("127.0.0.1:{}", addr.port())
}

fn handle(mut stream: TcpStream, routes: &HashMap<String, Answer>) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte).unwrap_or(0) == 0 {
            return;
        }
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head);
    let mut parts = head.split_whitespace();
    let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let path = path.split('?').next().unwrap_or("");
    let found = if path == "/v2/" {
        Some(answer("application/json", b"{}".to_vec()))
    } else {
        routes.get(path).cloned()
    };
    let Some(a) = found else {
        let _ = stream
            .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        return;
    };
    let mut out = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n",
        a.content_type,
        a.body.len()
    );
    if path.contains("/manifests/") {
        out.push_str(&format!("Docker-Content-Digest: {}\r\n", sha(&a.body)));
    }
    out.push_str("\r\n");
    let _ = stream.write_all(out.as_bytes());
    if let Some(stall) = a.stall {
        std::thread::sleep(stall);
    }
    if method != "HEAD" {
        let n = a.cut_at.unwrap_or(a.body.len());
        let _ = stream.write_all(&a.body[..n]);
    }
}

/// A tar entry written by hand, so that names a well-behaved writer refuses (`../x`) and
/// links of any kind can be made.
fn tar_entry(out: &mut Vec<u8>, name: &str, kind: u8, link: &str, data: &[u8]) {
    let mut h = [0u8; 512];
    h[..name.len()].copy_from_slice(name.as_bytes());
    h[100..107].copy_from_slice(b"0000644");
    h[108..115].copy_from_slice(b"0000000");
    h[116..123].copy_from_slice(b"0000000");
    h[124..135].copy_from_slice(format!("{:011o}", data.len()).as_bytes());
    h[136..147].copy_from_slice(b"00000000000");
    h[156] = kind;
    h[157..157 + link.len()].copy_from_slice(link.as_bytes());
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    h[148..156].copy_from_slice(b"        ");
    let sum: u32 = h.iter().map(|b| u32::from(*b)).sum();
    h[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
    out.extend_from_slice(&h);
    out.extend_from_slice(data);
    out.resize(out.len().div_ceil(512) * 512, 0);
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

const PACKAGE_YAML: &str =
    "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: faults\n";

fn layer_of(entries: &[(&str, u8, &str, &[u8])]) -> Vec<u8> {
    let mut tar = Vec::new();
    for (name, kind, link, data) in entries {
        tar_entry(&mut tar, name, *kind, link, data);
    }
    tar.extend_from_slice(&[0u8; 1024]);
    gzip(&tar)
}

fn manifest(layers: &[(String, u64)]) -> Vec<u8> {
    let config = b"{}";
    serde_json::to_vec(&json!({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json",
            "digest": sha(config), "size": config.len()},
        "layers": layers.iter().map(|(d, size)| json!({
            "mediaType": "application/vnd.oci.image.layer.v1.tar+gzip",
            "digest": d, "size": size})).collect::<Vec<_>>(),
    }))
    .unwrap()
}

const MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
const INDEX: &str = "application/vnd.oci.image.index.v1+json";
const BLOB: &str = "application/octet-stream";

/// Every cached blob still hashes to its name, and no partial download is left behind.
fn assert_cache_clean(cache: &Path) {
    let dir = cache.join("blobs/sha256");
    for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        assert!(!name.starts_with(".tmp-"), "partial download left: {name}");
        let bytes = std::fs::read(e.path()).unwrap();
        assert_eq!(
            sha(&bytes),
            format!("sha256:{name}"),
            "cache holds a bad blob"
        );
    }
}

#[test]
fn misbehaving_registry_faults_are_refused_and_never_cached() {
    let good = layer_of(&[("package.yaml", b'0', "", PACKAGE_YAML.as_bytes())]);
    let other = layer_of(&[("package.yaml", b'0', "", b"kind: Other\n")]);
    let traversal = layer_of(&[
        ("package.yaml", b'0', "", PACKAGE_YAML.as_bytes()),
        ("../escape.yaml", b'0', "", b"x: 1\n"),
    ]);
    let symlink = layer_of(&[
        ("package.yaml", b'0', "", PACKAGE_YAML.as_bytes()),
        ("link", b'2', "../../etc/passwd", b""),
    ]);
    let bomb = layer_of(&[
        ("package.yaml", b'0', "", PACKAGE_YAML.as_bytes()),
        ("zeros", b'0', "", &vec![0u8; 8 << 20]),
    ]);

    let mut routes = HashMap::new();
    let mut tag = |name: &str, body: Vec<u8>, content_type: &'static str| {
        routes.insert(
            format!("/v2/faults/manifests/{name}"),
            answer(content_type, body),
        );
    };
    // A layer whose content does not match its digest.
    tag(
        "wrong-digest",
        manifest(&[(sha(&good), good.len() as u64)]),
        MANIFEST,
    );
    // A layer cut short mid-stream.
    tag(
        "truncated",
        manifest(&[(sha(&other), other.len() as u64)]),
        MANIFEST,
    );
    tag(
        "traversal",
        manifest(&[(sha(&traversal), traversal.len() as u64)]),
        MANIFEST,
    );
    tag(
        "symlink",
        manifest(&[(sha(&symlink), symlink.len() as u64)]),
        MANIFEST,
    );
    tag(
        "bomb",
        manifest(&[(sha(&bomb), bomb.len() as u64)]),
        MANIFEST,
    );
    // A registry that stops answering mid-pull.
    let slow = layer_of(&[("package.yaml", b'0', "", b"kind: Slow\n")]);
    tag(
        "slow",
        manifest(&[(sha(&slow), slow.len() as u64)]),
        MANIFEST,
    );
    // A descriptor claiming 10 GB.
    tag("huge", manifest(&[(sha(&good), 10_000_000_000)]), MANIFEST);
    // An index whose manifest is answered with the index itself.
    let index = |target: &str| {
        serde_json::to_vec(
            &json!({"schemaVersion": 2, "mediaType": INDEX, "manifests": [
            {"mediaType": MANIFEST, "digest": target, "size": 100,
             "platform": {"architecture": "amd64", "os": "linux"}}]}),
        )
        .unwrap()
    };
    let target = sha(b"the manifest the index names");
    let self_index = index(&target);
    tag("self-index", self_index.clone(), INDEX);
    routes.insert(
        format!("/v2/faults/manifests/{target}"),
        answer(INDEX, self_index),
    );

    let blob = |routes: &mut HashMap<String, Answer>, digest: String, a: Answer| {
        routes.insert(format!("/v2/faults/blobs/{digest}"), a);
    };
    blob(&mut routes, sha(&good), answer(BLOB, other.clone()));
    blob(
        &mut routes,
        sha(&other),
        Answer {
            cut_at: Some(other.len() / 2),
            ..answer(BLOB, other.clone())
        },
    );
    blob(
        &mut routes,
        sha(&slow),
        Answer {
            stall: Some(std::time::Duration::from_secs(20)),
            ..answer(BLOB, slow)
        },
    );
    blob(&mut routes, sha(&traversal), answer(BLOB, traversal));
    blob(&mut routes, sha(&symlink), answer(BLOB, symlink));
    blob(&mut routes, sha(&bomb), answer(BLOB, bomb));
    let registry = serve(routes);

    let dir = temp_dir("oci-faults");
    let cache = dir.join("cache");
    let cases: &[(&str, &[&str], &str)] = &[
        ("wrong-digest", &[], "Invalid digest. Expected sha256:"),
        ("truncated", &[], "error decoding response body"),
        ("traversal", &[], "contains a .. component"),
        ("symlink", &[], "points outside the package"),
        ("bomb", &["--max-unpacked-size", "1048576"], "1048576"),
        ("huge", &[], "is 10000000000 bytes, over the limit"),
        ("slow", &["--registry-timeout", "1"], "fetching layer"),
        ("self-index", &[], "Invalid digest. Expected sha256:"),
    ];
    let mut failures = Vec::new();
    for (name, extra, want) in cases {
        let started = std::time::Instant::now();
        let reference = format!("{registry}/faults:{name}");
        let (code, out, err) = run(xprender()
            .env("DOCKER_CONFIG", dir.join("no-docker-config"))
            .args(["xpkg", "pull", &reference, "--cache-dir"])
            .arg(&cache)
            .args(*extra));
        eprintln!(
            "{name}: exit {code} after {:.1?}: {}",
            started.elapsed(),
            err.trim_end()
        );
        if started.elapsed() > std::time::Duration::from_secs(15) {
            failures.push(format!("{name}: took {:?}", started.elapsed()));
        }
        if code == 0 || !err.contains(want) {
            failures.push(format!(
                "{name}: exit {code}, stdout {out:?}, stderr {err:?}, want {want:?}"
            ));
        }
        assert_cache_clean(&cache);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
