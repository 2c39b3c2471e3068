//! `xprender xpkg` against a real OCI registry (the CNCF distribution registry on loopback).
//!
//! Run by scripts/suites/60-registry.sh, which installs `docker-registry` and `htpasswd`:
//! `cargo test -p xprender-host --test xpkg_registry -- --ignored`.

use std::collections::BTreeMap;
use std::io::{Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use serde_json::{Value, json};
use sha2::Digest as _;

/// The registry and tools these tests share with the other live-server tests.
mod live {
    pub(crate) mod registry;
    pub(crate) mod tools;
}

use live::tools::{free_port, which, xprender_bin};

fn data(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/xpkg")
        .join(p)
}

/// A registry process on 127.0.0.1 with its own storage, stopped on drop.
struct Registry {
    child: Child,
    dir: tempfile::TempDir,
    port: u16,
}

impl Registry {
    fn start() -> Self {
        Self::start_with(None)
    }

    fn start_with(auth: Option<(&str, &str)>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let htpasswd = auth.map(|(user, pass)| {
            let out = Command::new(which("htpasswd"))
                .args(["-Bbn", user, pass])
                .output()
                .unwrap();
            assert!(out.status.success(), "htpasswd failed");
            let file = dir.path().join("htpasswd");
            std::fs::write(&file, out.stdout).unwrap();
            file
        });
        let child = live::registry::command(dir.path(), port, true, htpasswd.as_deref())
            .spawn()
            .expect("cannot start docker-registry");
        let reg = Self { child, dir, port };
        assert!(
            live::registry::wait_up(port),
            "registry did not start; log:\n{}",
            reg.log()
        );
        reg
    }

    fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("registry.log")).unwrap_or_default()
    }

    /// Blob downloads the registry has served so far (its access log).
    fn blob_gets(&self) -> usize {
        self.log()
            .lines()
            .filter(|l| l.contains("\"GET /v2/") && l.contains("/blobs/sha256:"))
            .count()
    }

    fn blob_data(&self, digest: &str) -> PathBuf {
        let hex = digest.strip_prefix("sha256:").unwrap();
        self.dir.path().join(format!(
            "storage/docker/registry/v2/blobs/sha256/{}/{hex}/data",
            &hex[..2]
        ))
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs the CLI with an isolated cache and Docker config.
struct Cli {
    home: tempfile::TempDir,
}

impl Cli {
    fn new() -> Self {
        Self {
            home: tempfile::tempdir().unwrap(),
        }
    }

    fn cache(&self) -> PathBuf {
        self.home.path().join("cache")
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(xprender_bin())
            .args(args)
            .env("HOME", self.home.path())
            .env("DOCKER_CONFIG", self.home.path().join("docker"))
            .env("XPRENDER_CACHE_DIR", self.cache())
            .env_remove("XDG_CACHE_HOME")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "xprender {args:?} failed: {stderr}");
        String::from_utf8(out.stdout).unwrap()
    }

    fn fails(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(!out.status.success(), "xprender {args:?} should fail");
        String::from_utf8_lossy(&out.stderr).into_owned()
    }

    fn inspect(&self, target: &str) -> Value {
        serde_json::from_str(&self.ok(&["xpkg", "inspect", target, "-o", "json"])).unwrap()
    }

    /// Files in the blob cache (including any partial downloads).
    fn cached(&self) -> Vec<String> {
        let dir = self.cache().join("blobs/sha256");
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .map(|rd| {
                rd.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    }
}

fn sha(b: &[u8]) -> String {
    format!("sha256:{:x}", sha2::Sha256::digest(b))
}

/// Hand-made OCI images, written as image layout tarballs that `xpkg push` uploads.
#[derive(Default)]
struct Image {
    blobs: Vec<(String, Vec<u8>)>,
}

enum Entry<'a> {
    File(&'a str, &'a [u8]),
    Dir(&'a str),
}

impl Image {
    fn blob(&mut self, media_type: &str, bytes: Vec<u8>) -> Value {
        let d = sha(&bytes);
        let desc = json!({"mediaType": media_type, "digest": d, "size": bytes.len()});
        self.blobs.push((d, bytes));
        desc
    }

    fn layer(&mut self, entries: &[Entry<'_>], annotation: Option<&str>) -> Value {
        let mut tar = tar::Builder::new(Vec::new());
        for e in entries {
            let mut h = tar::Header::new_gnu();
            h.set_mtime(0);
            match e {
                Entry::File(p, data) => {
                    h.set_size(data.len() as u64);
                    h.set_mode(0o644);
                    h.set_entry_type(tar::EntryType::Regular);
                    tar.append_data(&mut h, p, *data).unwrap();
                }
                Entry::Dir(p) => {
                    h.set_size(0);
                    h.set_mode(0o755);
                    h.set_entry_type(tar::EntryType::Directory);
                    tar.append_data(&mut h, p, &[][..]).unwrap();
                }
            }
        }
        let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        z.write_all(&tar.into_inner().unwrap()).unwrap();
        let mut d = self.blob(
            "application/vnd.oci.image.layer.v1.tar+gzip",
            z.finish().unwrap(),
        );
        if let Some(a) = annotation {
            d["annotations"] = json!({"io.crossplane.xpkg": a});
        }
        d
    }

    fn manifest(&mut self, layers: Vec<Value>) -> Value {
        let config = self.blob(
            "application/vnd.oci.image.config.v1+json",
            br#"{"architecture":"amd64","os":"linux","rootfs":{"type":"layers","diff_ids":[]}}"#
                .to_vec(),
        );
        let m = json!({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json", "config": config, "layers": layers});
        self.blob(
            "application/vnd.oci.image.manifest.v1+json",
            serde_json::to_vec(&m).unwrap(),
        )
    }

    fn index(&mut self, manifests: Vec<(Value, &str)>) -> Value {
        let list: Vec<Value> = manifests
            .into_iter()
            .map(|(mut d, platform)| {
                let (os, arch) = platform.split_once('/').unwrap();
                d["platform"] = json!({"os": os, "architecture": arch});
                d
            })
            .collect();
        let i = json!({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json", "manifests": list});
        self.blob(
            "application/vnd.oci.image.index.v1+json",
            serde_json::to_vec(&i).unwrap(),
        )
    }

    /// Writes the layout with `root` as its only entry.
    fn write(&self, root: &Value, path: &Path) {
        let index = json!({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json", "manifests": [root]});
        let mut tar = tar::Builder::new(Vec::new());
        let mut add = |name: &str, data: &[u8]| {
            let mut h = tar::Header::new_ustar();
            h.set_size(data.len() as u64);
            h.set_mode(0o644);
            h.set_mtime(0);
            tar.append_data(&mut h, name, data).unwrap();
        };
        add("oci-layout", br#"{"imageLayoutVersion":"1.0.0"}"#);
        add("index.json", &serde_json::to_vec(&index).unwrap());
        for (d, b) in &self.blobs {
            add(
                &format!("blobs/sha256/{}", d.strip_prefix("sha256:").unwrap()),
                b,
            );
        }
        std::fs::write(path, tar.into_inner().unwrap()).unwrap();
    }

    /// A package image whose single base layer holds this package.yaml.
    fn package(yaml: &str) -> (Self, Value) {
        let mut img = Self::default();
        let l = img.layer(
            &[Entry::File("package.yaml", yaml.as_bytes())],
            Some("base"),
        );
        let m = img.manifest(vec![l]);
        (img, m)
    }
}

/// Pushes a hand-made image under `repo:tag`, returning the reference.
fn push_image(cli: &Cli, reg: &Registry, img: &Image, root: &Value, repo: &str) -> String {
    let file = cli
        .home
        .path()
        .join(format!("{}.tar", repo.replace(['/', ':'], "_")));
    img.write(root, &file);
    let reference = format!("{}/{repo}", reg.host());
    cli.ok(&["xpkg", "push", file.to_str().unwrap(), &reference]);
    reference
}

const CFG_META: &str =
    "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: cfg\n";
const PRV_META: &str =
    "apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: prv\n";
const COMP: &str = "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: c\nspec:\n  compositeTypeRef: {apiVersion: example.org/v1, kind: XR}\n";

fn expected(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(data(name)).unwrap()).unwrap()
}

#[test]
#[ignore = "needs docker-registry; scripts/suites/60-registry.sh runs them"]
fn build_push_pull_inspect_round_trip_and_cache_hit() {
    let reg = Registry::start();
    let cli = Cli::new();
    let file = cli.home.path().join("platform-db.xpkg");
    cli.ok(&[
        "xpkg",
        "build",
        data("configuration").to_str().unwrap(),
        "-o",
        file.to_str().unwrap(),
    ]);
    let from_file = cli.inspect(file.to_str().unwrap());
    assert_eq!(from_file["package"], {
        let mut e = expected("configuration/inspect.json");
        e.as_object_mut().unwrap().remove("version");
        e
    });

    let reference = format!("{}/org/platform-db:v1.2.3", reg.host());
    let pushed = cli.ok(&["xpkg", "push", file.to_str().unwrap(), &reference]);
    let digest = pushed.split_whitespace().nth(1).unwrap().to_owned();
    assert_eq!(digest, from_file["digest"]);

    let out = cli.home.path().join("out");
    let before = reg.blob_gets();
    let pulled = cli.ok(&["xpkg", "pull", &reference, "-o", out.to_str().unwrap()]);
    assert_eq!(pulled.trim(), format!("{reference} {digest}"));
    assert_eq!(
        reg.blob_gets() - before,
        1,
        "only the base layer is fetched"
    );
    let yaml = std::fs::read_to_string(out.join("package.yaml")).unwrap();
    for f in ["crossplane.yaml", "xrd.yaml", "compositions.yaml"] {
        let part = std::fs::read_to_string(data("configuration").join(f)).unwrap();
        assert!(yaml.contains(&part), "package.yaml lacks {f}");
    }
    assert!(
        !yaml.contains("not: yaml of the package"),
        "hidden files are not packaged"
    );

    // A second pull and an inspect are served from the cache: no blob request at all.
    let before = reg.blob_gets();
    cli.ok(&["xpkg", "pull", &reference]);
    let inspected = cli.inspect(&reference);
    assert_eq!(
        reg.blob_gets(),
        before,
        "second pull made blob requests:\n{}",
        reg.log()
    );
    assert_eq!(inspected["package"], expected("configuration/inspect.json"));
    assert_eq!(inspected["digest"], digest.as_str());

    // By digest, even the manifest comes from the cache.
    let by_digest = format!("{}/org/platform-db@{digest}", reg.host());
    assert_eq!(cli.inspect(&by_digest)["package"]["name"], "platform-db");

    // YAML output carries the same document.
    let yaml = cli.ok(&["xpkg", "inspect", &reference]);
    assert!(
        yaml.contains("meta.crossplane.io/maintainer: Platform Team <platform@example.org>"),
        "{yaml}"
    );
}

#[test]
#[ignore = "needs docker-registry; scripts/suites/60-registry.sh runs them"]
fn provider_package_lists_crds_and_webhooks() {
    let reg = Registry::start();
    let cli = Cli::new();
    let file = cli.home.path().join("provider.xpkg");
    cli.ok(&[
        "xpkg",
        "build",
        data("provider").to_str().unwrap(),
        "-o",
        file.to_str().unwrap(),
    ]);
    let reference = format!("{}/org/provider-example:v0.1.0", reg.host());
    cli.ok(&["xpkg", "push", file.to_str().unwrap(), &reference]);
    assert_eq!(
        cli.inspect(&reference)["package"],
        expected("provider/inspect.json")
    );
}

#[test]
#[ignore = "needs docker-registry; scripts/suites/60-registry.sh runs them"]
fn image_indexes_select_a_manifest() {
    let reg = Registry::start();
    let cli = Cli::new();
    let pkg = |name: &str| {
        format!("{CFG_META}---\n{COMP}").replace("name: cfg", &format!("name: {name}"))
    };
    let mut img = Image::default();
    let arm = img.layer(
        &[Entry::File("package.yaml", pkg("arm").as_bytes())],
        Some("base"),
    );
    let arm = img.manifest(vec![arm]);
    let amd = img.layer(
        &[Entry::File("package.yaml", pkg("amd").as_bytes())],
        Some("base"),
    );
    let amd = img.manifest(vec![amd]);

    let both = img.index(vec![
        (arm.clone(), "linux/arm64"),
        (amd.clone(), "linux/amd64"),
    ]);
    let r = push_image(&cli, &reg, &img, &both, "org/multi:v1");
    assert_eq!(cli.inspect(&r)["package"]["name"], "amd");

    let only = img.index(vec![(arm.clone(), "linux/arm64")]);
    let r = push_image(&cli, &reg, &img, &only, "org/single:v1");
    assert_eq!(cli.inspect(&r)["package"]["name"], "arm");

    let none = img.index(vec![(arm, "linux/arm64"), (amd, "windows/amd64")]);
    let r = push_image(&cli, &reg, &img, &none, "org/noamd:v1");
    let e = cli.fails(&["xpkg", "pull", &r]);
    assert!(
        e.contains("the image index lists 2 manifests and none is for linux/amd64"),
        "{e}"
    );

    let empty = img.index(vec![]);
    let r = push_image(&cli, &reg, &img, &empty, "org/empty:v1");
    let e = cli.fails(&["xpkg", "pull", &r]);
    assert!(e.contains("the image index lists no manifests"), "{e}");
}

#[test]
#[ignore = "needs docker-registry; scripts/suites/60-registry.sh runs them"]
fn layers_flatten_with_whiteouts_and_opaque_dirs_or_base_alone() {
    let reg = Registry::start();
    let cli = Cli::new();
    let good = format!("{CFG_META}---\n{COMP}");
    let mut img = Image::default();
    let l1 = img.layer(
        &[
            Entry::File("package.yaml", b"kind: [broken"),
            Entry::Dir(".registry"),
            Entry::File(".registry/app.yaml", b"title: stale"),
            Entry::File("etc/os-release", b"x"),
        ],
        None,
    );
    // Deletes the broken package.yaml and hides the stale .registry/ tree.
    let l2 = img.layer(
        &[
            Entry::File(".wh.package.yaml", b""),
            Entry::File(".registry/.wh..wh..opq", b""),
        ],
        None,
    );
    let l3 = img.layer(&[Entry::File("./package.yaml", good.as_bytes())], None);
    let m = img.manifest(vec![l1.clone(), l2.clone(), l3]);
    let r = push_image(&cli, &reg, &img, &m, "org/layers:v1");
    let before = reg.blob_gets();
    assert_eq!(cli.inspect(&r)["package"]["compositions"][0]["name"], "c");
    assert_eq!(
        reg.blob_gets() - before,
        3,
        "every layer is read when none is the base"
    );

    // Whiting out package.yaml in the last layer leaves no package.
    let plain = img.layer(&[Entry::File("package.yaml", good.as_bytes())], None);
    let m = img.manifest(vec![plain, l2.clone()]);
    let r = push_image(&cli, &reg, &img, &m, "org/gone:v1");
    let e = cli.fails(&["xpkg", "pull", &r]);
    assert!(
        e.contains("package.yaml not found at the root of the package"),
        "{e}"
    );

    // A base layer is read alone: the broken first layer is never fetched.
    let based = format!("# the base layer\n{good}");
    let base = img.layer(
        &[Entry::File("package.yaml", based.as_bytes())],
        Some("base"),
    );
    let other = img.layer(
        &[Entry::File("extra.txt", b"for another tool")],
        Some("upbound"),
    );
    let m = img.manifest(vec![l1, base, other]);
    let r = push_image(&cli, &reg, &img, &m, "org/based:v1");
    let before = reg.blob_gets();
    assert_eq!(cli.inspect(&r)["package"]["name"], "cfg");
    assert_eq!(reg.blob_gets() - before, 1);

    // Two base layers are an error.
    let b2 = img.layer(
        &[Entry::File("package.yaml", good.as_bytes())],
        Some("base"),
    );
    let b3 = img.layer(
        &[Entry::File("package.yaml", CFG_META.as_bytes())],
        Some("base"),
    );
    let m = img.manifest(vec![b2, b3]);
    let r = push_image(&cli, &reg, &img, &m, "org/twobase:v1");
    let e = cli.fails(&["xpkg", "pull", &r]);
    assert!(
        e.contains("layers 0, 1 are all annotated io.crossplane.xpkg: base"),
        "{e}"
    );
}

#[test]
#[ignore = "needs docker-registry; scripts/suites/60-registry.sh runs them"]
fn invalid_packages_are_rejected_naming_document_and_kind() {
    let reg = Registry::start();
    let cli = Cli::new();
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: xs.example.org\n";
    let dep = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n";
    let cases: Vec<(String, &str)> = vec![
        (
            format!("{CFG_META}---\n{PRV_META}"),
            "package.yaml document 2 (Provider, apiVersion meta.pkg.crossplane.io/v1): a package has exactly one meta object, and document 1 is already a Configuration",
        ),
        (
            format!("{PRV_META}---\n{COMP}"),
            "package.yaml document 2 (Composition, apiVersion apiextensions.crossplane.io/v1): a Provider package may only contain CustomResourceDefinition, ValidatingWebhookConfiguration, MutatingWebhookConfiguration objects besides its meta object",
        ),
        (
            format!("{CFG_META}---\n{COMP}---\n{crd}"),
            "package.yaml document 3 (CustomResourceDefinition, apiVersion apiextensions.k8s.io/v1): a Configuration package may only contain CompositeResourceDefinition, Composition objects besides its meta object",
        ),
        (
            format!("{CFG_META}---\n{dep}"),
            "package.yaml document 2 (Deployment, apiVersion apps/v1): a Configuration package",
        ),
        (COMP.to_owned(), "package.yaml has no meta object"),
        (
            format!("{CFG_META}---\nkind: Composition\nmetadata: {{name: [x\n"),
            "package.yaml is not a valid YAML stream: line 7, column",
        ),
    ];
    for (i, (yaml, want)) in cases.iter().enumerate() {
        let (img, m) = Image::package(yaml);
        let r = push_image(&cli, &reg, &img, &m, &format!("org/invalid{i}:v1"));
        let e = cli.fails(&["xpkg", "pull", &r]);
        assert!(e.contains(want), "case {i}: {e}\nshould contain: {want}");
    }

    // No package.yaml at all, and package.yaml twice in the base layer.
    let mut img = Image::default();
    let l = img.layer(
        &[Entry::File("crossplane.yaml", CFG_META.as_bytes())],
        Some("base"),
    );
    let m = img.manifest(vec![l]);
    let r = push_image(&cli, &reg, &img, &m, "org/missing:v1");
    assert!(
        cli.fails(&["xpkg", "pull", &r])
            .contains("package.yaml not found at the root of the package")
    );
    let l = img.layer(
        &[
            Entry::File("package.yaml", CFG_META.as_bytes()),
            Entry::File("package.yaml", CFG_META.as_bytes()),
        ],
        Some("base"),
    );
    let m = img.manifest(vec![l]);
    let r = push_image(&cli, &reg, &img, &m, "org/twice:v1");
    assert!(
        cli.fails(&["xpkg", "pull", &r])
            .contains("package.yaml appears twice in the layer")
    );

    // `xpkg build` refuses an invalid package too.
    let dir = cli.home.path().join("bad");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.yaml"), format!("{CFG_META}---\n{dep}")).unwrap();
    let e = cli.fails(&[
        "xpkg",
        "build",
        dir.to_str().unwrap(),
        "-o",
        cli.home.path().join("bad.xpkg").to_str().unwrap(),
    ]);
    assert!(
        e.contains("document 2 (Deployment, apiVersion apps/v1)"),
        "{e}"
    );
}

#[test]
#[ignore = "needs docker-registry; scripts/suites/60-registry.sh runs them"]
fn corrupted_blob_is_an_error_and_leaves_nothing_in_the_cache() {
    let reg = Registry::start();
    let pusher = Cli::new();
    let (img, m) = Image::package(&format!("{CFG_META}---\n{COMP}"));
    let r = push_image(&pusher, &reg, &img, &m, "org/corrupt:v1");
    let layer_digest = img.blobs[0].0.clone();
    let path = reg.blob_data(&layer_digest);
    let mut bytes = std::fs::read(&path).unwrap();
    let n = bytes.len();
    bytes[n / 2] ^= 0xff;
    std::fs::write(&path, &bytes).unwrap();

    let cli = Cli::new();
    let e = cli.fails(&["xpkg", "pull", &r]);
    assert!(e.contains(&format!("fetching layer {layer_digest}")), "{e}");
    assert!(e.to_lowercase().contains("digest"), "{e}");
    let cached = cli.cached();
    let hex = layer_digest.strip_prefix("sha256:").unwrap();
    assert!(
        cached.iter().all(|f| !f.contains(hex)),
        "bad blob left in the cache: {cached:?}"
    );

    // A cached blob that rots on disk is detected on read and removed.
    let cli = Cli::new();
    let r2 = push_image(
        &cli,
        &reg,
        &Image::package(CFG_META).0,
        &Image::package(CFG_META).1,
        "org/rot:v1",
    );
    cli.ok(&["xpkg", "pull", &r2]);
    let (img2, _) = Image::package(CFG_META);
    let rot = cli
        .cache()
        .join("blobs/sha256")
        .join(img2.blobs[0].0.strip_prefix("sha256:").unwrap());
    std::fs::write(&rot, b"rotten").unwrap();
    let e = cli.fails(&["xpkg", "pull", &r2]);
    assert!(e.contains("is corrupt"), "{e}");
    assert!(!rot.exists());
    cli.ok(&["xpkg", "pull", &r2]);
}

#[test]
#[ignore = "needs docker-registry; scripts/suites/60-registry.sh runs them"]
fn basic_auth_from_the_docker_config() {
    let reg = Registry::start_with(Some(("alice", "s3cret")));
    let cli = Cli::new();
    let file = cli.home.path().join("p.xpkg");
    cli.ok(&[
        "xpkg",
        "build",
        data("configuration").to_str().unwrap(),
        "-o",
        file.to_str().unwrap(),
    ]);
    let reference = format!("{}/org/private:v1", reg.host());
    let e = cli.fails(&["xpkg", "push", file.to_str().unwrap(), &reference]);
    assert!(
        e.to_lowercase().contains("unauthorized") || e.contains("401"),
        "{e}"
    );

    let docker = cli.home.path().join("docker");
    std::fs::create_dir_all(&docker).unwrap();
    let auth = base64_encode(b"alice:s3cret");
    std::fs::write(
        docker.join("config.json"),
        json!({"auths": {reg.host(): {"auth": auth}}}).to_string(),
    )
    .unwrap();
    cli.ok(&["xpkg", "push", file.to_str().unwrap(), &reference]);
    assert_eq!(cli.inspect(&reference)["package"]["name"], "platform-db");

    // Wrong credentials are refused.
    std::fs::write(
        docker.join("config.json"),
        json!({"auths": {reg.host(): {"auth": base64_encode(b"alice:wrong")}}}).to_string(),
    )
    .unwrap();
    let other = Cli {
        home: tempfile::tempdir().unwrap(),
    };
    std::fs::create_dir_all(other.home.path().join("docker")).unwrap();
    std::fs::copy(
        docker.join("config.json"),
        other.home.path().join("docker/config.json"),
    )
    .unwrap();
    other.fails(&["xpkg", "pull", &reference]);
}

fn base64_encode(b: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for c in b.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= c.len() {
                s.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

#[test]
#[ignore = "needs docker-registry; scripts/suites/60-registry.sh runs them"]
fn legacy_registry_package_is_translated() {
    let reg = Registry::start();
    let cli = Cli::new();
    let root = data("legacy");
    let mut files = Vec::new();
    collect(&root, &root, &mut files);
    let mut img = Image::default();
    let entries: Vec<Entry<'_>> = files
        .iter()
        .map(|(p, b)| Entry::File(p.as_str(), b.as_slice()))
        .collect();
    let l = img.layer(&entries, None);
    let m = img.manifest(vec![l]);
    let r = push_image(&cli, &reg, &img, &m, "org/sample-stack:v0.0.1");
    let got = cli.inspect(&r)["legacy"]
        .to_string()
        .replace(&reg.host(), "REGISTRY");
    assert_eq!(
        serde_json::from_str::<Value>(&got).unwrap(),
        expected("legacy/inspect.json")
    );

    // pull -o extracts the .registry/ tree as it is.
    let out = cli.home.path().join("out");
    cli.ok(&["xpkg", "pull", &r, "-o", out.to_str().unwrap()]);
    for (p, b) in &files {
        assert_eq!(&std::fs::read(out.join(p)).unwrap(), b, "{p}");
    }

    // The tag must match app.yaml's version.
    let r = push_image(&cli, &reg, &img, &m, "org/sample-stack:v9");
    let e = cli.fails(&["xpkg", "inspect", &r]);
    assert!(
        e.contains("app.yaml version \"v0.0.1\" does not match the image tag \"v9\""),
        "{e}"
    );
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(root, &p, out);
        } else if p.file_name().is_some_and(|n| n != "inspect.json") {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            out.push((rel, std::fs::read(&p).unwrap()));
        }
    }
}

/// A loopback front for the registry that demands a bearer token, as public registries do:
/// `401` with a `Bearer` challenge without one, a token endpoint that hands one out
/// anonymously, and authorized GET/HEAD requests forwarded to the registry.
struct TokenFront {
    port: u16,
    tokens_issued: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl TokenFront {
    fn start(backend: u16) -> Self {
        use std::io::{BufRead as _, BufReader};
        use std::sync::atomic::Ordering;
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let tokens_issued = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let issued = tokens_issued.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(mut conn) = conn else { continue };
                let issued = issued.clone();
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(conn.try_clone().unwrap());
                    let mut head = Vec::new();
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                            break;
                        }
                        head.push(line);
                    }
                    let Some(request_line) = head.first() else {
                        return;
                    };
                    let path = request_line
                        .split_whitespace()
                        .nth(1)
                        .unwrap_or("")
                        .to_owned();
                    let authorized = head.iter().any(|h| {
                        h.to_ascii_lowercase()
                            .starts_with("authorization: bearer anon-token")
                    });
                    let reply = |conn: &mut TcpStream, status: &str, extra: &str, body: &str| {
                        let _ = write!(
                            conn,
                            "HTTP/1.1 {status}\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                            body.len()
                        );
                    };
                    if path.starts_with("/token?") {
                        if !path.contains("scope=repository%3Aorg%2Fpublic%3Apull")
                            && !path.contains("scope=repository:org/public:pull")
                        {
                            return reply(&mut conn, "400 Bad Request", "", "bad scope");
                        }
                        issued.fetch_add(1, Ordering::SeqCst);
                        return reply(
                            &mut conn,
                            "200 OK",
                            "Content-Type: application/json\r\n",
                            r#"{"token":"anon-token"}"#,
                        );
                    }
                    if !authorized {
                        let challenge = format!(
                            "Www-Authenticate: Bearer realm=\"http://127.0.0.1:{port}/token\",service=\"test\"\r\n"
                        );
                        return reply(&mut conn, "401 Unauthorized", &challenge, "{}");
                    }
                    let Ok(mut upstream) = TcpStream::connect(("127.0.0.1", backend)) else {
                        return;
                    };
                    let _ = write!(upstream, "{}", request_line);
                    for h in head.iter().skip(1) {
                        let lower = h.to_ascii_lowercase();
                        if !lower.starts_with("connection:") && !lower.starts_with("authorization:")
                        {
                            let _ = write!(upstream, "{h}");
                        }
                    }
                    let _ = write!(upstream, "Connection: close\r\n\r\n");
                    let _ = std::io::copy(&mut upstream, &mut conn);
                });
            }
        });
        Self {
            port,
            tokens_issued,
        }
    }
}

#[test]
#[ignore = "needs docker-registry; scripts/suites/60-registry.sh runs them"]
fn anonymous_bearer_token_flow() {
    let reg = Registry::start();
    let cli = Cli::new();
    let (img, m) = Image::package(&format!("{CFG_META}---\n{COMP}"));
    push_image(&cli, &reg, &img, &m, "org/public:v1");
    let front = TokenFront::start(reg.port);
    let reference = format!("127.0.0.1:{}/org/public:v1", front.port);
    let before = reg.blob_gets();
    assert_eq!(cli.inspect(&reference)["package"]["name"], "cfg");
    assert!(
        front
            .tokens_issued
            .load(std::sync::atomic::Ordering::SeqCst)
            >= 1
    );
    assert_eq!(reg.blob_gets() - before, 1);
}

#[test]
#[ignore = "needs docker-registry; scripts/suites/60-registry.sh runs them"]
fn size_caps_are_flags() {
    let reg = Registry::start();
    let cli = Cli::new();
    let (img, m) = Image::package(&format!("{CFG_META}---\n{COMP}"));
    let r = push_image(&cli, &reg, &img, &m, "org/caps:v1");
    let e = cli.fails(&["xpkg", "pull", &r, "--max-layer-size", "10"]);
    assert!(
        e.contains("over the limit of 10 bytes (--max-layer-size)"),
        "{e}"
    );
    let e = cli.fails(&["xpkg", "pull", &r, "--max-unpacked-size", "100"]);
    assert!(
        e.contains("decompressed content exceeds the limit of 100 bytes"),
        "{e}"
    );
    cli.ok(&["xpkg", "pull", &r]);
}

#[test]
#[ignore = "needs docker-registry; scripts/suites/60-registry.sh runs them"]
fn render_from_a_pulled_package() {
    let reg = Registry::start();
    let cli = Cli::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let example = root.join("examples/platform-db");
    let pkg = cli.home.path().join("pkg");
    std::fs::create_dir_all(&pkg).unwrap();
    for f in ["xrd.yaml", "composition.yaml"] {
        std::fs::copy(example.join(f), pkg.join(f)).unwrap();
    }
    std::fs::write(
        pkg.join("crossplane.yaml"),
        CFG_META.replace("name: cfg", "name: platform-db"),
    )
    .unwrap();
    let file = cli.home.path().join("platform-db.xpkg");
    cli.ok(&[
        "xpkg",
        "build",
        pkg.to_str().unwrap(),
        "-o",
        file.to_str().unwrap(),
    ]);
    let reference = format!("{}/org/platform-db:v1", reg.host());
    cli.ok(&["xpkg", "push", file.to_str().unwrap(), &reference]);

    let [xr, comp, xrd, observed, env] = [
        "xr.yaml",
        "composition.yaml",
        "xrd.yaml",
        "observed.yaml",
        "environment.yaml",
    ]
    .map(|f| example.join(f).to_str().unwrap().to_owned());
    let want = cli.ok(&[
        "render",
        &xr,
        &comp,
        "--xrd",
        &xrd,
        "--observed-resources",
        &observed,
        "--environment",
        &env,
    ]);
    let from_package = [
        "render",
        &xr,
        "--package",
        &reference,
        "--observed-resources",
        &observed,
        "--environment",
        &env,
    ];
    assert_eq!(cli.ok(&from_package), want);
    assert!(want.contains("kind: XPostgreSQLInstance"), "{want}");

    // The XRD in the package supplies the default Composition; --composition-name overrides it.
    let file = cli.home.path().join("cfg.xpkg");
    cli.ok(&[
        "xpkg",
        "build",
        data("configuration").to_str().unwrap(),
        "-o",
        file.to_str().unwrap(),
    ]);
    let reference = format!("{}/org/cfg:v1", reg.host());
    cli.ok(&["xpkg", "push", file.to_str().unwrap(), &reference]);
    let xr = data("xr-postgres.yaml");
    let small = cli.ok(&["render", xr.to_str().unwrap(), "--package", &reference]);
    assert!(
        small.contains("instanceClass: db.t3.micro") && small.contains("allocatedStorage: 20"),
        "{small}"
    );
    let large = cli.ok(&[
        "render",
        xr.to_str().unwrap(),
        "--package",
        &reference,
        "--composition-name",
        "postgres-large",
    ]);
    assert!(large.contains("instanceClass: db.m5.large"), "{large}");
    let e = cli.fails(&[
        "render",
        xr.to_str().unwrap(),
        "--package",
        &reference,
        "--composition-name",
        "nope",
    ]);
    assert!(
        e.contains("no Composition named \"nope\" (found: \"postgres-small\", \"postgres-large\")"),
        "{e}"
    );
}

// Dependency resolution against registry tag listings: packages built and pushed by the tests.

/// A CRD of `kind` in `group`, version v1.
fn crd_doc(group: &str, kind: &str) -> String {
    let plural = format!("{}s", kind.to_lowercase());
    format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: {plural}.{group}\nspec:\n  group: {group}\n  scope: Cluster\n  names: {{kind: {kind}, plural: {plural}}}\n  versions:\n    - name: v1\n      served: true\n      storage: true\n      schema: {{openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}}}\n"
    )
}

/// A meta object with `dependsOn` entries (field, package, version).
fn meta_doc(kind: &str, name: &str, deps: &[(&str, &str, &str)]) -> String {
    let mut s =
        format!("apiVersion: meta.pkg.crossplane.io/v1\nkind: {kind}\nmetadata:\n  name: {name}\n");
    if !deps.is_empty() {
        s.push_str("spec:\n  dependsOn:\n");
        for (field, package, version) in deps {
            s.push_str(&format!(
                "    - {field}: {package}\n      version: '{version}'\n"
            ));
        }
    }
    s
}

/// Marks a meta object with its tag, so that every version is a distinct image.
fn tagged(meta: String, tag: &str) -> String {
    meta.replacen(
        "metadata:\n",
        &format!("metadata:\n  annotations: {{example.org/tag: '{tag}'}}\n"),
        1,
    )
}

/// Builds a package from these documents with `xpkg build`, returning the file.
fn build_docs(cli: &Cli, id: &str, docs: &[String]) -> PathBuf {
    let dir = cli
        .home
        .path()
        .join("src")
        .join(id.replace(['/', ':'], "_"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("package.yaml"), docs.join("---\n")).unwrap();
    let file = cli
        .home
        .path()
        .join(format!("{}.xpkg", id.replace(['/', ':'], "_")));
    cli.ok(&[
        "xpkg",
        "build",
        dir.to_str().unwrap(),
        "-o",
        file.to_str().unwrap(),
    ]);
    file
}

/// Builds and pushes `repo:tag`, returning its digest.
fn publish(cli: &Cli, reg: &Registry, repo_tag: &str, docs: &[String]) -> String {
    let file = build_docs(cli, repo_tag, docs);
    let out = cli.ok(&[
        "xpkg",
        "push",
        file.to_str().unwrap(),
        &format!("{}/{repo_tag}", reg.host()),
    ]);
    out.split_whitespace().nth(1).unwrap().to_owned()
}

const NET_TAGS: &[&str] = &[
    "v2.0.5",
    "v2.1.0",
    "v2.1.7",
    "v2.2.0",
    "v3.0.0-rc.1",
    "v3.0.0",
];

/// Provider org/net at every tag of NET_TAGS; returns tag → digest.
fn publish_net(cli: &Cli, reg: &Registry) -> BTreeMap<String, String> {
    NET_TAGS
        .iter()
        .map(|t| {
            let d = publish(
                cli,
                reg,
                &format!("org/net:{t}"),
                &[
                    tagged(meta_doc("Provider", "net", &[]), t),
                    crd_doc("net.example.org", "Network"),
                ],
            );
            ((*t).to_owned(), d)
        })
        .collect()
}

fn deps_json(cli: &Cli, target: &str, extra: &[&str]) -> Value {
    let mut args = vec!["xpkg", "deps", target, "-o", "json"];
    args.extend_from_slice(extra);
    serde_json::from_str(&cli.ok(&args)).unwrap()
}

#[test]
#[ignore = "needs docker-registry; scripts/suites/60-registry.sh runs them"]
fn deps_pick_the_highest_tag_for_each_constraint_form() {
    let reg = Registry::start();
    let cli = Cli::new();
    publish_net(&cli, &reg);
    let net = format!("{}/org/net", reg.host());
    let cases = [
        ("v2.1.0", "v2.1.0"),
        ("=2.1.0", "v2.1.0"),
        (">=v2.1.0", "v3.0.0"),
        (">2.1.0 <2.2.0", "v2.1.7"),
        (">= 2.0.0, < 2.1.0", "v2.0.5"),
        ("<=2.1", "v2.1.7"),
        ("~2.1", "v2.1.7"),
        ("~>2.0.1", "v2.0.5"),
        ("^2.0.5", "v2.2.0"),
        ("2.0.5 - 2.1.0", "v2.1.0"),
        ("2.1.x", "v2.1.7"),
        ("!=2.2.0, <3", "v2.1.7"),
        ("<2.1 || ^3", "v3.0.0"),
        ("<2.1 || >=4", "v2.0.5"),
        (">=3.0.0-rc.0 <3.0.0", "v3.0.0-rc.1"),
        ("*", "v3.0.0"),
    ];
    for (i, (constraint, want)) in cases.iter().enumerate() {
        let file = build_docs(
            &cli,
            &format!("pick-{i}"),
            &[meta_doc(
                "Configuration",
                "pick",
                &[("provider", &net, constraint)],
            )],
        );
        let doc = deps_json(&cli, file.to_str().unwrap(), &[]);
        assert_eq!(
            doc["packages"][0]["package"],
            net.as_str(),
            "{constraint}: {doc}"
        );
        assert_eq!(
            doc["packages"][0]["version"], *want,
            "constraint {constraint:?}"
        );
        assert_eq!(doc["order"], json!([net, "pick"]), "{constraint}");
    }
}

#[test]
#[ignore = "needs docker-registry; scripts/suites/60-registry.sh runs them"]
fn deps_resolve_recursively_with_stable_json_and_a_tree() {
    let reg = Registry::start();
    let cli = Cli::new();
    let h = reg.host();
    let net_digests = publish_net(&cli, &reg);
    let (net, db, app) = (
        format!("{h}/org/net"),
        format!("{h}/org/db"),
        format!("{h}/org/app"),
    );
    let mut db_digests = BTreeMap::new();
    for t in ["v1.0.0", "v1.4.2", "v2.0.0"] {
        let d = publish(
            &cli,
            &reg,
            &format!("org/db:{t}"),
            &[tagged(
                meta_doc("Configuration", "db", &[("provider", &net, "~2.1")]),
                t,
            )],
        );
        db_digests.insert(t, d);
    }
    let app_digest = publish(
        &cli,
        &reg,
        "org/app:v1.0.0",
        &[meta_doc(
            "Configuration",
            "app",
            &[
                ("configuration", &db, "^1"),
                ("provider", &net, ">=v2.0.0 <3"),
            ],
        )],
    );
    let out = cli.ok(&["xpkg", "deps", &format!("{app}:v1.0.0"), "-o", "json"]);
    let want = json!({
        "root": app,
        "packages": [
            {"package": net, "version": "v2.1.7", "digest": net_digests["v2.1.7"], "kind": "Provider", "name": "net", "dependsOn": []},
            {"package": db, "version": "v1.4.2", "digest": db_digests["v1.4.2"], "kind": "Configuration", "name": "db",
             "dependsOn": [{"package": net, "kind": "Provider", "constraint": "~2.1", "version": "v2.1.7"}]},
            {"package": app, "version": "v1.0.0", "digest": app_digest, "kind": "Configuration", "name": "app",
             "dependsOn": [{"package": db, "kind": "Configuration", "constraint": "^1", "version": "v1.4.2"},
                           {"package": net, "kind": "Provider", "constraint": ">=v2.0.0 <3", "version": "v2.1.7"}]},
        ],
        "order": [net, db, app],
    });
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap(), want);
    // Stable: the same bytes again, and for the untagged reference (its highest tag).
    assert_eq!(
        cli.ok(&["xpkg", "deps", &format!("{app}:v1.0.0"), "-o", "json"]),
        out
    );
    assert_eq!(cli.ok(&["xpkg", "deps", &app, "-o", "json"]), out);
    // By digest, the root is named by its digest.
    let by_digest = deps_json(&cli, &format!("{app}@{app_digest}"), &[]);
    assert_eq!(by_digest["packages"][2]["version"], app_digest.as_str());
    assert_eq!(by_digest["order"], want["order"]);

    let tree = cli.ok(&["xpkg", "deps", &format!("{app}:v1.0.0")]);
    assert_eq!(
        tree,
        format!(
            "{app}:v1.0.0 (Configuration) {app_digest}\n\
             ├── {db}:v1.4.2 (Configuration) for ^1 {}\n\
             │   └── {net}:v2.1.7 (Provider) for ~2.1 {}\n\
             └── {net}:v2.1.7 (Provider) for >=v2.0.0 <3 {}\n",
            db_digests["v1.4.2"], net_digests["v2.1.7"], net_digests["v2.1.7"]
        )
    );

    // A dependency pinned by digest is that image, whatever the tags say.
    let file = build_docs(
        &cli,
        "pinned",
        &[meta_doc(
            "Configuration",
            "pinned",
            &[("provider", &net, &net_digests["v2.0.5"])],
        )],
    );
    let doc = deps_json(&cli, file.to_str().unwrap(), &[]);
    assert_eq!(
        doc["packages"][0]["version"],
        net_digests["v2.0.5"].as_str()
    );
    assert_eq!(doc["packages"][0]["digest"], net_digests["v2.0.5"].as_str());
}

#[test]
#[ignore = "needs docker-registry; scripts/suites/60-registry.sh runs them"]
fn deps_failures_name_who_asked() {
    let reg = Registry::start();
    let cli = Cli::new();
    let h = reg.host();
    let net_digests = publish_net(&cli, &reg);
    let net = format!("{h}/org/net");
    let web = format!("{h}/org/web");
    publish(
        &cli,
        &reg,
        "org/web:v1.0.0",
        &[meta_doc(
            "Configuration",
            "web",
            &[("provider", &net, ">=3.0.0")],
        )],
    );

    let fails = |name: &str, deps: &[(&str, &str, &str)]| {
        let file = build_docs(&cli, name, &[meta_doc("Configuration", name, deps)]);
        cli.fails(&["xpkg", "deps", file.to_str().unwrap()])
    };
    // Two dependents whose constraints no tag satisfies together.
    let e = fails(
        "conflict",
        &[("provider", &net, "~2.1"), ("configuration", &web, "*")],
    );
    assert!(
        e.contains(&format!(
            "conflicting requirements on {net}: conflict@sha256:"
        )),
        "{e}"
    );
    assert!(e.contains(" requires ~2.1 and "), "{e}");
    assert!(
        e.contains(&format!(
            "{web}:v1.0.0 requires >=3.0.0; no version satisfies both"
        )),
        "{e}"
    );
    // A constraint no tag satisfies.
    let e = fails("missing-tag", &[("provider", &net, ">=9")]);
    assert!(
        e.contains(&format!(
            "no version of {net} satisfies >=9 (required by missing-tag@sha256:"
        )),
        "{e}"
    );
    assert!(
        e.contains("tags: v2.0.5, v2.1.0, v2.1.7, v2.2.0, v3.0.0-rc.1, v3.0.0"),
        "{e}"
    );
    // A package that does not exist.
    let e = fails(
        "missing-package",
        &[("provider", &format!("{h}/org/nope"), "*")],
    );
    assert!(
        e.contains(&format!(
            "package {h}/org/nope (required by missing-package@sha256:"
        )),
        "{e}"
    );
    // A digest that does not exist.
    let unknown = format!("sha256:{}", "0".repeat(64));
    let e = fails("missing-digest", &[("provider", &net, &unknown)]);
    assert!(
        e.contains(&format!(
            "{net}@{unknown} (required by missing-digest@sha256:"
        )),
        "{e}"
    );
    // A tag and a digest that disagree.
    let e = cli.fails(&[
        "xpkg",
        "deps",
        &format!("{net}:v2.1.0@{}", net_digests["v2.2.0"]),
    ]);
    assert!(
        e.contains(&format!(
            "digest mismatch: {net}:v2.1.0 is {}, not the pinned {}",
            net_digests["v2.1.0"], net_digests["v2.2.0"]
        )),
        "{e}"
    );
    // A cycle, named in order.
    let (a, b) = (format!("{h}/org/cyc-a"), format!("{h}/org/cyc-b"));
    publish(
        &cli,
        &reg,
        "org/cyc-a:v1.0.0",
        &[meta_doc(
            "Configuration",
            "cyc-a",
            &[("configuration", &b, "^1")],
        )],
    );
    publish(
        &cli,
        &reg,
        "org/cyc-b:v1.0.0",
        &[meta_doc(
            "Configuration",
            "cyc-b",
            &[("configuration", &a, "^1")],
        )],
    );
    let e = cli.fails(&["xpkg", "deps", &format!("{a}:v1.0.0")]);
    assert!(
        e.contains(&format!(
            "dependency cycle: {a}:v1.0.0 -> {b}:v1.0.0 -> {a}:v1.0.0"
        )),
        "{e}"
    );
}

/// A legacy `.registry/` image owning one CRD and needing others by CRD name.
fn publish_legacy(cli: &Cli, reg: &Registry, repo_tag: &str, crd: Option<&str>, needs: &[&str]) {
    let mut app = "apiVersion: 0.2.0\ntitle: Legacy\npackageType: Provider\n".to_owned();
    if !needs.is_empty() {
        app.push_str("dependsOn:\n");
        for n in needs {
            app.push_str(&format!("  - crd: '{n}'\n"));
        }
    }
    let crd_text = crd.unwrap_or("");
    let mut files = vec![
        Entry::Dir(".registry"),
        Entry::File(".registry/app.yaml", app.as_bytes()),
        Entry::File(".registry/resources/things/group.yaml", b"title: Things\n"),
    ];
    if crd.is_some() {
        files.push(Entry::File(
            ".registry/resources/things/thing.crd.yaml",
            crd_text.as_bytes(),
        ));
    }
    let mut img = Image::default();
    let l = img.layer(&files, None);
    let m = img.manifest(vec![l]);
    push_image(cli, reg, &img, &m, repo_tag);
}

#[test]
#[ignore = "needs docker-registry; scripts/suites/60-registry.sh runs them"]
fn legacy_crd_dependencies_resolve_through_an_index() {
    let reg = Registry::start();
    let cli = Cli::new();
    let h = reg.host();
    publish_net(&cli, &reg);
    let bucket = crd_doc("storage.example.org", "Bucket");
    publish_legacy(&cli, &reg, "org/storage:v1.0.0", Some(&bucket), &[]);
    publish_legacy(
        &cli,
        &reg,
        "org/storage:v1.1.0",
        Some(&bucket),
        &["networks.net.example.org/v1"],
    );
    publish_legacy(
        &cli,
        &reg,
        "org/webapp:v0.1.0",
        Some(&crd_doc("web.example.org", "WebApp")),
        &["*.storage.example.org/v1"],
    );

    let index = cli.home.path().join("index.json");
    cli.ok(&[
        "xpkg",
        "index",
        &format!("{h}/org/storage"),
        &format!("{h}/org/net:v2.1.7"),
        "-f",
        index.to_str().unwrap(),
    ]);
    let idx: Value = serde_json::from_str(&std::fs::read_to_string(&index).unwrap()).unwrap();
    assert_eq!(idx["apiVersion"], "xprender.io/v1alpha1");
    let rows: Vec<(String, String, String)> = idx["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["package"].as_str().unwrap().replace(&h, "R"),
                p["version"].as_str().unwrap().to_owned(),
                format!("{}", p["crds"]),
            )
        })
        .collect();
    let net_crd =
        r#"[{"group":"net.example.org","kind":"Network","plural":"networks","versions":["v1"]}]"#;
    let bucket_crd =
        r#"[{"group":"storage.example.org","kind":"Bucket","plural":"buckets","versions":["v1"]}]"#;
    assert_eq!(
        rows,
        [
            (
                "R/org/net".to_owned(),
                "v2.1.7".to_owned(),
                net_crd.to_owned()
            ),
            (
                "R/org/storage".to_owned(),
                "v1.0.0".to_owned(),
                bucket_crd.to_owned()
            ),
            (
                "R/org/storage".to_owned(),
                "v1.1.0".to_owned(),
                bucket_crd.to_owned()
            ),
        ]
    );

    // webapp needs any storage.example.org/v1 kind: storage v1.1.0, which needs a Network.
    let idx_arg = ["--index", index.to_str().unwrap()];
    let doc = deps_json(&cli, &format!("{h}/org/webapp:v0.1.0"), &idx_arg);
    assert_eq!(
        doc["order"],
        json!([
            format!("{h}/org/net"),
            format!("{h}/org/storage"),
            format!("{h}/org/webapp")
        ])
    );
    assert_eq!(doc["packages"][1]["version"], "v1.1.0");
    assert_eq!(doc["packages"][1]["kind"], "Legacy");
    assert_eq!(
        doc["packages"][2]["dependsOn"],
        json!([{"crd": "*.storage.example.org/v1", "package": format!("{h}/org/storage"), "version": "v1.1.0"}])
    );
    // A CRD in place of a package.
    let doc: Value = serde_json::from_str(&cli.ok(&[
        "xpkg",
        "deps",
        "--crd",
        "Bucket.storage.example.org/v1",
        "--index",
        index.to_str().unwrap(),
        "-o",
        "json",
    ]))
    .unwrap();
    assert_eq!(doc["root"], format!("{h}/org/storage"));
    assert_eq!(
        doc["order"],
        json!([format!("{h}/org/net"), format!("{h}/org/storage")])
    );
    // Without an index, a CRD dependency cannot be resolved; an unknown CRD names who asked.
    let e = cli.fails(&["xpkg", "deps", &format!("{h}/org/webapp:v0.1.0")]);
    assert!(e.contains(&format!("{h}/org/webapp:v0.1.0 requires CRD *.storage.example.org/v1: resolving CRD dependencies needs an index")), "{e}");
    let e = cli.fails(&[
        "xpkg",
        "deps",
        "--crd",
        "tables.db.example.org/v1",
        "--index",
        index.to_str().unwrap(),
    ]);
    assert!(e.contains("no package in the index provides CRD tables.db.example.org/v1 (required by the command line)"), "{e}");
}

impl Registry {
    /// The body of a GET (HTTP/1.0, no redirects).
    fn get(&self, path: &str, accept: &str) -> Vec<u8> {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        write!(
            s,
            "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\nAccept: {accept}\r\n\r\n"
        )
        .unwrap();
        let mut buf = Vec::new();
        s.read_to_end(&mut buf).unwrap();
        let at = buf.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        assert!(
            buf.starts_with(b"HTTP/1.0 200") || buf.starts_with(b"HTTP/1.1 200"),
            "GET {path}"
        );
        buf.split_off(at + 4)
    }
}

/// A static ELF64 executable's headers: enough for the package build's static-linking check.
fn static_elf() -> Vec<u8> {
    let mut b = vec![0u8; 64];
    b[..4].copy_from_slice(b"\x7fELF");
    b[4] = 2;
    b[5] = 1;
    b[0x20..0x28].copy_from_slice(&64u64.to_le_bytes());
    b[0x36..0x38].copy_from_slice(&56u16.to_le_bytes());
    b[0x38..0x3a].copy_from_slice(&1u16.to_le_bytes());
    let mut ph = vec![0u8; 56];
    ph[0] = 1; // PT_LOAD
    b.extend(ph);
    b.extend(b"xprender runtime stand-in");
    b
}

#[test]
#[ignore = "needs docker-registry; scripts/suites/60-registry.sh runs them"]
fn function_package_carries_the_runtime_image() {
    let reg = Registry::start();
    let cli = Cli::new();
    let dir = cli.home.path().join("fn");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("crossplane.yaml"),
        "apiVersion: meta.pkg.crossplane.io/v1beta1\nkind: Function\nmetadata:\n  name: function-xprender\n",
    )
    .unwrap();
    let binary = static_elf();
    let bin_path = cli.home.path().join("xprender-static");
    std::fs::write(&bin_path, &binary).unwrap();
    let file = cli.home.path().join("function.xpkg");
    let (dir_s, file_s, bin_s) = (
        dir.to_str().unwrap(),
        file.to_str().unwrap(),
        bin_path.to_str().unwrap(),
    );
    // A dynamically linked runtime is refused: the image has no libraries.
    let err = cli.fails(&[
        "xpkg",
        "build",
        dir_s,
        "-o",
        file_s,
        "--function",
        "--runtime-binary",
        "/bin/sh",
    ]);
    assert!(err.contains("it is dynamically linked"), "{err}");
    // So is --function for a package that is not a Function.
    let err = cli.fails(&[
        "xpkg",
        "build",
        data("configuration").to_str().unwrap(),
        "-o",
        file_s,
        "--function",
        "--runtime-binary",
        bin_s,
    ]);
    assert!(
        err.contains("--function builds a Function package, but"),
        "{err}"
    );

    cli.ok(&[
        "xpkg",
        "build",
        dir_s,
        "-o",
        file_s,
        "--function",
        "--runtime-binary",
        bin_s,
    ]);
    let inspected = cli.inspect(file_s);
    assert_eq!(inspected["package"]["kind"], "Function", "{inspected:#}");
    assert_eq!(inspected["package"]["name"], "function-xprender");

    let reference = format!("{}/org/function-xprender:v0.1.0", reg.host());
    let pushed = cli.ok(&["xpkg", "push", file_s, &reference]);
    let digest = pushed.split_whitespace().nth(1).unwrap().to_owned();
    assert_eq!(cli.inspect(&reference)["package"]["kind"], "Function");

    let manifest: Value = serde_json::from_slice(&reg.get(
        &format!("/v2/org/function-xprender/manifests/{digest}"),
        "application/vnd.oci.image.manifest.v1+json",
    ))
    .unwrap();
    let layers = manifest["layers"].as_array().unwrap();
    assert_eq!(layers.len(), 2, "{manifest:#}");
    assert!(
        layers[0].get("annotations").is_none(),
        "the runtime layer is not the package"
    );
    assert_eq!(layers[1]["annotations"]["io.crossplane.xpkg"], "base");
    let config: Value = serde_json::from_slice(&reg.get(
        &format!(
            "/v2/org/function-xprender/blobs/{}",
            manifest["config"]["digest"].as_str().unwrap()
        ),
        "*/*",
    ))
    .unwrap();
    assert_eq!(
        config["config"]["Entrypoint"],
        serde_json::json!(["/usr/local/bin/xprender", "function", "serve"])
    );
    assert_eq!(
        config["config"]["ExposedPorts"],
        serde_json::json!({"9443/tcp": {}})
    );
    assert_eq!(config["rootfs"]["diff_ids"].as_array().unwrap().len(), 2);
    let layer = reg.get(
        &format!(
            "/v2/org/function-xprender/blobs/{}",
            layers[0]["digest"].as_str().unwrap()
        ),
        "*/*",
    );
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(&layer[..]));
    let mut entries = tar.entries().unwrap();
    let mut entry = entries.next().unwrap().unwrap();
    assert_eq!(
        entry.path().unwrap().to_str(),
        Some("usr/local/bin/xprender")
    );
    assert_eq!(entry.header().mode().unwrap(), 0o755);
    let mut content = Vec::new();
    entry.read_to_end(&mut content).unwrap();
    assert_eq!(content, binary);
}

#[test]
#[ignore = "needs docker-registry; scripts/suites/60-registry.sh runs them"]
fn validate_with_a_provider_package_from_the_registry() {
    let reg = Registry::start();
    let cli = Cli::new();
    let validate = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/validate");
    let file = cli.home.path().join("provider.xpkg");
    cli.ok(&[
        "xpkg",
        "build",
        validate.join("provider").to_str().unwrap(),
        "-o",
        file.to_str().unwrap(),
    ]);
    let reference = format!("{}/org/provider-aws-rds-example:v1.2.0", reg.host());
    cli.ok(&["xpkg", "push", file.to_str().unwrap(), &reference]);
    let good = validate.join("good/instance.yaml");
    let out = cli.ok(&[
        "validate",
        "--package",
        &reference,
        "--resources",
        good.to_str().unwrap(),
    ]);
    assert_eq!(
        out,
        "2 objects checked: 2 valid, 0 invalid, 0 without a schema; 0 errors, 0 warnings\n"
    );
    let bad = validate.join("bad/instance.yaml");
    let out = cli.run(&[
        "validate",
        "--package",
        &reference,
        "--resources",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let bad_name = bad.display().to_string();
    for want in [
        "Instance/orders-db-bad: spec.forProvider.engine: Unsupported value: \"oracle\"",
        "SubnetGroup/orders-db-subnets: spec.forProvider.ingress[1]: Duplicate value",
        "Instance/orders-db-rules: spec: Invalid value: \"object\": maxAllocatedStorage must be at least allocatedStorage",
    ] {
        assert!(
            stdout.contains(&format!("{bad_name}:")) && stdout.contains(want),
            "{want}\n{stdout}"
        );
    }
    // The package's CRDs give the same report as the package's source directory.
    let json = |ext: &[&str]| -> Value {
        let mut args = vec!["validate"];
        args.extend(ext);
        args.extend(["--resources", bad.to_str().unwrap(), "--output", "json"]);
        serde_json::from_slice(&cli.run(&args).stdout).unwrap()
    };
    let from_registry = json(&["--package", &reference]);
    let from_dir = json(&[validate.join("provider").to_str().unwrap()]);
    assert_eq!(from_registry, from_dir);
    assert_eq!(from_registry["summary"]["errors"], 14, "{from_registry}");
}
