//! Registry faults: `xprender xpkg pull` against a tiny registry on loopback that misbehaves
//! on purpose (wrong digests, truncated blobs, a gzip bomb, tars that climb out, an index
//! served for another digest, 10 GB claimed sizes, oversized manifests, an answer that
//! stalls, a bearer-token flow that needs the Docker config's credentials). Each pull is
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
    /// How the length is announced: the body's own, another (a lie), or none (chunked).
    length: Length,
}

#[derive(Clone, Copy)]
enum Length {
    True,
    Claimed(u64),
    Chunked,
}

fn answer(content_type: &'static str, body: Vec<u8>) -> Answer {
    Answer {
        content_type,
        body,
        cut_at: None,
        stall: None,
        length: Length::True,
    }
}

/// A registry that wants the bearer-token flow: `/v2/` and every route answer 401 with a
/// challenge unless they carry the token, and the token endpoint (`/token`) hands it out only
/// for these Basic credentials.
struct TokenAuth {
    user: &'static str,
    password: &'static str,
}

const TOKEN: &str = "opaque-pull-token";

/// The requests a server saw, as `METHOD path Authorization`.
type Seen = Arc<std::sync::Mutex<Vec<String>>>;

/// Serves `routes` (path to answer) on 127.0.0.1; 404 for anything else.
fn serve(routes: HashMap<String, Answer>) -> String {
    serve_with(routes, None, Seen::default())
}

fn serve_with(routes: HashMap<String, Answer>, auth: Option<TokenAuth>, seen: Seen) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = format!("127.0.0.1:{}", listener.local_addr().unwrap().port());
    let server = Arc::new((routes, auth, addr.clone(), seen));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let server = Arc::clone(&server);
            std::thread::spawn(move || {
                let (routes, auth, addr, seen) = &*server;
                handle(stream, routes, auth.as_ref(), addr, seen);
            });
        }
    });
    addr
}

/// The `Authorization` header of a request head, if any.
fn authorization(head: &str) -> &str {
    head.lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("authorization")
                .then_some(value.trim())
        })
        .unwrap_or("")
}

/// Answers a request of a token-protected registry that is not a route's: the token
/// endpoint, or a 401 challenge. `None` lets the route answer.
fn token_flow(head: &str, path: &str, auth: &TokenAuth, addr: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    let given = authorization(head);
    if path == "/token" {
        let basic = base64::engine::general_purpose::STANDARD
            .encode(format!("{}:{}", auth.user, auth.password));
        return Some(if given == format!("Basic {basic}") {
            let body = json!({"token": TOKEN}).to_string();
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
            .into_bytes()
        } else {
            let body = "{\"errors\":[{\"code\":\"UNAUTHORIZED\",\"message\":\"bad credentials\"}]}";
            format!(
                "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
            .into_bytes()
        });
    }
    if given == format!("Bearer {TOKEN}") {
        return None;
    }
    Some(
        format!(
            "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer realm=\"http://{addr}/token\",service=\"faults\",scope=\"repository:faults:pull\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
        .into_bytes(),
    )
}

fn handle(
    mut stream: TcpStream,
    routes: &HashMap<String, Answer>,
    auth: Option<&TokenAuth>,
    addr: &str,
    seen: &Seen,
) {
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
    seen.lock()
        .unwrap()
        .push(format!("{method} {path} {}", authorization(&head)));
    if let Some(a) = auth
        && let Some(reply) = token_flow(&head, path, a, addr)
    {
        let _ = stream.write_all(&reply);
        return;
    }
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
        "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nConnection: close\r\n",
        a.content_type
    );
    match a.length {
        Length::True => out.push_str(&format!("Content-Length: {}\r\n", a.body.len())),
        Length::Claimed(n) => out.push_str(&format!("Content-Length: {n}\r\n")),
        Length::Chunked => out.push_str("Transfer-Encoding: chunked\r\n"),
    }
    if path.contains("/manifests/") {
        out.push_str(&format!("Docker-Content-Digest: {}\r\n", sha(&a.body)));
    }
    out.push_str("\r\n");
    let _ = stream.write_all(out.as_bytes());
    if let Some(stall) = a.stall {
        std::thread::sleep(stall);
    }
    if method == "HEAD" {
        return;
    }
    let n = a.cut_at.unwrap_or(a.body.len());
    if let Length::Chunked = a.length {
        for chunk in a.body[..n].chunks(64 << 10) {
            let framed = [format!("{:x}\r\n", chunk.len()).as_bytes(), chunk, b"\r\n"].concat();
            if stream.write_all(&framed).is_err() {
                return;
            }
        }
        let _ = stream.write_all(b"0\r\n\r\n");
    } else {
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
    // An index naming a manifest of 10 GB: refused before the manifest is asked for.
    let huge_child = serde_json::to_vec(&json!({"schemaVersion": 2, "mediaType": INDEX,
        "manifests": [{"mediaType": MANIFEST, "digest": target, "size": 10_000_000_000u64,
            "platform": {"architecture": "amd64", "os": "linux"}}]}))
    .unwrap();
    tag("huge-child", huge_child, INDEX);
    routes.insert(
        format!("/v2/faults/manifests/{target}"),
        answer(INDEX, self_index),
    );

    // Manifests over the 4 MiB cap: announced as 10 GB (refused before the body is read),
    // streamed without a length (refused at the cap), and a length that lies short (the
    // host reads no further than it, and the cut manifest fails its digest).
    let good_manifest = manifest(&[(sha(&good), good.len() as u64)]);
    routes.insert(
        "/v2/faults/manifests/claims-10gb".into(),
        Answer {
            length: Length::Claimed(10_000_000_000),
            ..answer(MANIFEST, good_manifest.clone())
        },
    );
    routes.insert(
        "/v2/faults/manifests/endless".into(),
        Answer {
            length: Length::Chunked,
            ..answer(MANIFEST, vec![b' '; 16 << 20])
        },
    );
    routes.insert(
        "/v2/faults/manifests/short-length".into(),
        Answer {
            length: Length::Claimed(100),
            ..answer(MANIFEST, good_manifest)
        },
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
        ("self-index", &[], "does not match its digest"),
        (
            "claims-10gb",
            &[],
            "announces 10000000000 bytes, over the limit of 4194304 bytes for a manifest",
        ),
        (
            "endless",
            &[],
            "runs past 4194304 bytes, the limit for a manifest",
        ),
        ("short-length", &[], "does not match its digest"),
        (
            "huge-child",
            &[],
            "is 10000000000 bytes, over the limit of 4194304 bytes for a manifest",
        ),
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

/// The registry's token endpoint wants the credentials of the Docker config: with the right
/// ones the pull goes through on the token, with wrong ones it fails naming the registry and
/// leaves nothing in the cache.
#[test]
fn bearer_token_flow_with_docker_config_credentials() {
    use base64::Engine as _;
    let layer = layer_of(&[("package.yaml", b'0', "", PACKAGE_YAML.as_bytes())]);
    let mut routes = HashMap::new();
    routes.insert(
        "/v2/faults/manifests/v1".to_owned(),
        answer(MANIFEST, manifest(&[(sha(&layer), layer.len() as u64)])),
    );
    routes.insert(
        format!("/v2/faults/blobs/{}", sha(&layer)),
        answer(BLOB, layer.clone()),
    );
    let seen = Seen::default();
    let registry = serve_with(
        routes,
        Some(TokenAuth {
            user: "alice",
            password: "s3cret",
        }),
        Arc::clone(&seen),
    );
    let dir = temp_dir("oci-bearer");
    let pull = |password: &str, cache: &Path| {
        let docker = dir.join(format!("docker-{password}"));
        std::fs::create_dir_all(&docker).unwrap();
        let auth = base64::engine::general_purpose::STANDARD.encode(format!("alice:{password}"));
        std::fs::write(
            docker.join("config.json"),
            json!({"auths": {&registry: {"auth": auth}}}).to_string(),
        )
        .unwrap();
        run(xprender()
            .env("DOCKER_CONFIG", &docker)
            .args([
                "xpkg",
                "pull",
                &format!("{registry}/faults:v1"),
                "--cache-dir",
            ])
            .arg(cache))
    };

    let cache = dir.join("cache-good");
    let (code, out, err) = pull("s3cret", &cache);
    assert_eq!(code, 0, "stdout {out:?}, stderr {err:?}");
    assert_cache_clean(&cache);
    assert!(
        cache
            .join("blobs")
            .join(sha(&layer).replace(':', "/"))
            .is_file(),
        "the layer was not cached"
    );
    let requests = seen.lock().unwrap().clone();
    let basic = base64::engine::general_purpose::STANDARD.encode("alice:s3cret");
    assert!(
        requests.contains(&format!("GET /token Basic {basic}")),
        "{requests:#?}"
    );
    for path in [
        "/v2/faults/manifests/v1".to_owned(),
        format!("/v2/faults/blobs/{}", sha(&layer)),
    ] {
        assert!(
            requests.contains(&format!("GET {path} Bearer {TOKEN}")),
            "{path} was not fetched with the token: {requests:#?}"
        );
    }

    let cache = dir.join("cache-wrong");
    let (code, out, err) = pull("wrong", &cache);
    assert_ne!(code, 0, "stdout {out:?}");
    assert!(
        err.contains(&format!("authenticating to {registry}")) && err.contains("bad credentials"),
        "{err}"
    );
    let cached: Vec<_> = std::fs::read_dir(cache.join("blobs/sha256"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(cached.is_empty(), "the cache holds {cached:?}");
}
