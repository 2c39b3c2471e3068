//! The Function package run as Crossplane runs it: the package built around the static binary,
//! its runtime image unpacked into an empty directory and its entrypoint started with that
//! directory as the root file system, as user 65532, with only what Crossplane's default runtime
//! gives a function pod (`TLS_SERVER_CERTS_DIR=/tls/server`). Called over mutual TLS as
//! Crossplane's function runner calls it.
//!
//! Needs root (for `chroot`) and the static binary: `scripts/suites/40-host.sh` runs it with
//! `XPRENDER_STATIC_BIN=$(scripts/build-static.sh) cargo test --test function_image -- --ignored`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;
#[path = "common/function.rs"]
mod function;

use std::io::Read as _;
use std::net::TcpListener;
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use function::{Server, V1Client, V1beta1Client, check_small, pki, small_request, tls_channel};
use serde_json::Value as Json;

/// The user Crossplane's default runtime runs a function as (the image's `User`).
const USER: &str = "65532:65532";

/// The static binary under test; the test fails (never skips) without it.
fn static_binary() -> PathBuf {
    let bin = std::env::var_os("XPRENDER_STATIC_BIN").expect(
        "XPRENDER_STATIC_BIN names no binary: run XPRENDER_STATIC_BIN=$(scripts/build-static.sh) \
         cargo test -p xprender-host --test function_image -- --ignored",
    );
    PathBuf::from(bin)
}

/// The image's config and its layers, in order, from an OCI image layout tarball.
fn image(xpkg: &Path) -> (Json, Vec<Vec<u8>>) {
    let mut blobs = std::collections::HashMap::new();
    let mut archive = tar::Archive::new(std::fs::File::open(xpkg).unwrap());
    for entry in archive.entries().unwrap() {
        let mut entry = entry.unwrap();
        let name = entry.path().unwrap().to_string_lossy().into_owned();
        let mut content = Vec::new();
        entry.read_to_end(&mut content).unwrap();
        let key = name
            .strip_prefix("blobs/sha256/")
            .map_or(name.clone(), |h| format!("sha256:{h}"));
        blobs.insert(key, content);
    }
    let json = |key: &str| -> Json { serde_json::from_slice(&blobs[key]).unwrap() };
    let index = json("index.json");
    let manifest = json(index["manifests"][0]["digest"].as_str().unwrap());
    let config = json(manifest["config"]["digest"].as_str().unwrap());
    let layers = manifest["layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let mut tar = Vec::new();
            flate2::read::GzDecoder::new(&blobs[l["digest"].as_str().unwrap()][..])
                .read_to_end(&mut tar)
                .unwrap();
            tar
        })
        .collect();
    (config, layers)
}

/// Every file under `dir`, relative to it, sorted.
fn files(dir: &Path, under: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(files(&p, under));
        } else {
            out.push(p.strip_prefix(under).unwrap().display().to_string());
        }
    }
    out.sort();
    out
}

/// A field of `/proc/PID/status` (`Uid:`, `Gid:`, `Groups:`), whitespace-normalized.
fn proc_status(pid: u32, field: &str) -> String {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .unwrap_or_default();
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs root and the static binary: scripts/suites/40-host.sh runs it"]
async fn the_function_image_serves_as_crossplane_runs_it() {
    // /proc/self belongs to the effective user.
    assert_eq!(
        std::fs::metadata("/proc/self").unwrap().uid(),
        0,
        "this test starts the function with chroot and must run as root"
    );
    let bin = static_binary();
    let work = tempfile::tempdir().unwrap();

    // The package, built by the binary it carries.
    let xpkg = work.path().join("function.xpkg");
    let (code, _, stderr) = common::run(
        Command::new(&bin)
            .args(["xpkg", "build"])
            .arg(common::root().join("host/package"))
            .arg("-o")
            .arg(&xpkg)
            .arg("--function")
            .arg("--runtime-binary")
            .arg(&bin),
    );
    assert_eq!(code, 0, "xpkg build: {stderr}");

    // The runtime image, every layer in order, into an empty directory.
    let (config, layers) = image(&xpkg);
    let root = work.path().join("rootfs");
    std::fs::create_dir(&root).unwrap();
    for layer in &layers {
        tar::Archive::new(&layer[..]).unpack(&root).unwrap();
    }
    assert_eq!(
        files(&root, &root),
        ["package.yaml", "usr/local/bin/xprender"],
        "the image holds the binary and the package, no shell, no libraries"
    );
    let package = std::fs::read_to_string(root.join("package.yaml")).unwrap();
    assert!(
        package.contains("name: resources.pt.fn.crossplane.io"),
        "the package carries the input CRD"
    );
    assert_eq!(config["config"]["User"], USER);
    let entrypoint: Vec<String> =
        serde_json::from_value(config["config"]["Entrypoint"].clone()).unwrap();
    assert_eq!(entrypoint[0], "/usr/local/bin/xprender");

    // What Crossplane mounts: the server's certificate, key and the CA clients are signed by.
    let pki = pki();
    let tls = root.join("tls/server");
    std::fs::create_dir_all(&tls).unwrap();
    for f in ["tls.crt", "tls.key", "ca.crt"] {
        std::fs::copy(pki.dir.path().join(f), tls.join(f)).unwrap();
    }
    // A temporary directory is private to its owner; the image's root is everyone's.
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o755)).unwrap();

    // Crossplane passes no flags: the function listens on :9443. When another process holds
    // that port on this machine, the test names a free one instead.
    let mut cmd = Command::new("/usr/sbin/chroot");
    cmd.arg(format!("--userspec={USER}"))
        .arg(&root)
        .args(&entrypoint)
        .env_clear()
        .env("TLS_SERVER_CERTS_DIR", "/tls/server");
    if TcpListener::bind("0.0.0.0:9443").is_err() {
        let free = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        eprintln!(":9443 is busy here: the function listens on {free}");
        cmd.args(["--address", &free.to_string()]);
    }
    let mut server = Server::spawn(&mut cmd);
    server.address = server.address.replace("0.0.0.0", "127.0.0.1");
    let pid = server.child.id();
    assert_eq!(proc_status(pid, "Uid:"), "65532 65532 65532 65532");
    assert_eq!(proc_status(pid, "Gid:"), "65532 65532 65532 65532");
    assert_eq!(
        std::fs::read_link(format!("/proc/{pid}/root")).unwrap(),
        root.canonicalize().unwrap()
    );

    // Health and both protocol versions, with a client certificate signed by the CA.
    let channel = tls_channel(&server, &pki, true).await.unwrap();
    function::assert_serving(channel.clone()).await;
    let mut client = V1Client::new(channel.clone());
    check_small(
        &client
            .run_function(small_request())
            .await
            .unwrap()
            .into_inner(),
    );
    check_small(
        &V1beta1Client::new(channel)
            .run_function(small_request())
            .await
            .unwrap()
            .into_inner(),
    );

    // The engine's answer for every function fixture, as function.rs compares them.
    let (mut compared, mut failures) = (0, Vec::new());
    for render in function::fixtures() {
        let Some(c) = function::compare_fixture(&mut client, &render).await else {
            continue;
        };
        compared += 1;
        if !c.same {
            failures.push(render.name);
        }
    }
    assert!(compared >= 50, "only {compared} function fixtures compared");
    assert!(failures.is_empty(), "differ: {failures:?}");

    function::assert_refuses_uncertified_clients(&server, &pki).await;

    // SIGTERM while a render is in flight: its answer arrives whole, then the process exits 0.
    let started = Instant::now();
    let in_flight = tokio::spawn(async move {
        let rsp = client.run_function(function::slow_request(300)).await;
        (rsp, Instant::now())
    });
    tokio::time::sleep(Duration::from_millis(150)).await;
    let status = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let signalled = Instant::now();
    let (rsp, answered) = in_flight.await.unwrap();
    let rsp = rsp.expect("the request in flight is answered").into_inner();
    assert!(
        answered > signalled,
        "the render ended before SIGTERM ({:?}): make slow_request slower",
        answered - started
    );
    assert!(rsp.results.is_empty(), "{:?}", rsp.results);
    let desired = rsp.desired.unwrap();
    let bucket =
        function::structs::to_json(desired.resources["bucket"].resource.as_ref().unwrap()).unwrap();
    assert_eq!(
        bucket["spec"]["x"].as_str().map(str::len),
        Some(1_900_000),
        "the answer is complete"
    );
    eprintln!(
        "the slow render took {:?}, {:?} after SIGTERM",
        answered - started,
        answered - signalled
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(code) = server.child.try_wait().unwrap() {
            assert!(code.success(), "exit status {code}");
            break;
        }
        assert!(Instant::now() < deadline, "still running 10s after SIGTERM");
        std::thread::sleep(Duration::from_millis(20));
    }
}
