//! Crossplane packages (xpkg): fetching, verifying, reading, building and pushing them.

mod cache;
pub(crate) mod catalog;
pub(crate) mod constraint;
pub(crate) mod deps;
pub(crate) mod elf;
mod image;
pub(crate) mod install;
pub(crate) mod layout;
pub(crate) mod legacy;
mod manifest_fetch;
pub(crate) mod package;
mod registry;
mod tarfs;

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, anyhow, bail};
use serde_json::Value;

pub(crate) use cache::Cache;
use cache::Digest;
use image::Descriptor;
pub(crate) use layout::Layout;
pub(crate) use registry::Registry;
use tarfs::Filesystem;
pub(crate) use tarfs::Limits;

/// How packages are fetched: registry transport, cache location and size caps.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub(crate) insecure: bool,
    pub(crate) cache_dir: PathBuf,
    pub(crate) limits: Limits,
    /// Longest wait for a registry to accept a connection, and between two reads of an answer.
    pub(crate) timeout: std::time::Duration,
}

/// `--registry-timeout` by default: a registry that stalls this long is given up on.
pub(crate) const DEFAULT_REGISTRY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

impl Default for Options {
    fn default() -> Self {
        Self {
            insecure: false,
            cache_dir: Cache::default_dir(),
            limits: Limits::default(),
            timeout: DEFAULT_REGISTRY_TIMEOUT,
        }
    }
}

/// Where manifests and layers come from: a registry (through the cache) or a layout file.
pub(crate) trait Source {
    /// The document the reference names, and its digest when known.
    fn root(&mut self) -> Result<(Vec<u8>, Option<Digest>)>;
    fn manifest(&mut self, d: &Descriptor) -> Result<Vec<u8>>;
    fn layer(&mut self, d: &Descriptor) -> Result<Vec<u8>>;
}

impl Source for Layout {
    fn root(&mut self) -> Result<(Vec<u8>, Option<Digest>)> {
        let (bytes, d) = Layout::root(self)?;
        Ok((bytes, d.map(|d| d.digest)))
    }

    fn manifest(&mut self, d: &Descriptor) -> Result<Vec<u8>> {
        Ok(self.blob(&d.digest)?.to_vec())
    }

    fn layer(&mut self, d: &Descriptor) -> Result<Vec<u8>> {
        Ok(self.blob(&d.digest)?.to_vec())
    }
}

/// What a package image holds.
pub(crate) enum Content {
    Xpkg(package::Package),
    Legacy(legacy::Legacy),
}

pub(crate) struct Loaded {
    pub(crate) digest: Option<String>,
    pub(crate) fs: Filesystem,
    pub(crate) content: Content,
}

/// Index → manifest → layers → flattened filesystem → package content.
pub(crate) fn load(
    src: &mut dyn Source,
    limits: &Limits,
    tag: Option<&str>,
    image: Option<&str>,
) -> Result<Loaded> {
    let (mut doc, mut digest) = src.root()?;
    let mut depth = 0;
    let layers = loop {
        match image::parse_document(&doc)? {
            image::Document::Index(list) => {
                depth += 1;
                if depth > 2 {
                    bail!("image indexes nest too deeply");
                }
                let d = image::select_manifest(&list)?.clone();
                doc = src.manifest(&d)?;
                digest = Some(d.digest);
            }
            image::Document::Manifest(layers) => break layers,
        }
    };
    let mut fs = Filesystem::new();
    for d in image::select_layers(&layers)? {
        if d.size > limits.max_layer_bytes {
            bail!(
                "layer {} is {} bytes, over the limit of {} bytes (--max-layer-size)",
                d.digest,
                d.size,
                limits.max_layer_bytes
            );
        }
        let blob = src.layer(d)?;
        fs.apply_layer(&blob, d.digest.as_str(), limits)?;
    }
    let content = if let Some(yaml) = fs.read("package.yaml") {
        Content::Xpkg(package::parse(yaml)?)
    } else if legacy::is_legacy(&fs) {
        Content::Legacy(legacy::translate(&fs, tag, image)?)
    } else if fs.exists("package.yaml") {
        bail!("package.yaml at the root of the package is not a regular file");
    } else {
        bail!("package.yaml not found at the root of the package");
    };
    Ok(Loaded {
        digest: digest.map(|d| d.as_str().to_owned()),
        fs,
        content,
    })
}

/// Pulls a package from its registry (blobs cached and verified) and reads it.
pub(crate) fn pull(reference: &str, opts: &Options) -> Result<(Registry, Loaded)> {
    let mut reg = Registry::new(reference, opts)?;
    let tag = reg.reference.tag().map(str::to_owned);
    let whole = reg.reference.whole();
    let loaded = load(&mut reg, &opts.limits, tag.as_deref(), Some(&whole))
        .with_context(|| format!("package {reference}"))?;
    Ok((reg, loaded))
}

/// Reads a package from an image layout file (as written by `xpkg build`).
pub(crate) fn open_file(path: &Path, opts: &Options) -> Result<Loaded> {
    let mut layout = Layout::read(path, opts.limits.max_unpacked_bytes)?;
    load(&mut layout, &opts.limits, None, None)
        .with_context(|| format!("package {}", path.display()))
}

/// The objects of a package's package.yaml (meta, XRDs, Compositions, CRDs...), in stream
/// order; for a legacy package, its CRDs as installed. Used by `render --package`.
#[allow(dead_code)] // library entry point; the render command reads the text instead
pub(crate) fn load_package_objects(reference: &str, opts: &Options) -> Result<Vec<Value>> {
    let (_, loaded) = pull(reference, opts)?;
    Ok(match loaded.content {
        Content::Xpkg(p) => p.objects,
        Content::Legacy(l) => l.crds,
    })
}

/// The package.yaml text of a validated package pulled from a registry, for callers that
/// parse YAML their own way (the render command reads it exactly as it reads Composition files).
pub(crate) fn load_package_yaml(reference: &str, opts: &Options) -> Result<String> {
    let (_, loaded) = pull(reference, opts)?;
    package_yaml_text(loaded, reference)
}

/// [`load_package_yaml`] for a package file written by `xpkg build`.
pub(crate) fn file_package_yaml(path: &Path, opts: &Options) -> Result<String> {
    package_yaml_text(open_file(path, opts)?, &path.display().to_string())
}

fn package_yaml_text(loaded: Loaded, what: &str) -> Result<String> {
    match loaded.content {
        Content::Xpkg(_) => {
            let bytes = loaded.fs.read("package.yaml").unwrap_or_default();
            Ok(String::from_utf8_lossy(bytes).into_owned())
        }
        Content::Legacy(_) => bail!("{what} is a legacy package: it carries no package.yaml"),
    }
}

/// A package.yaml stream from every YAML file under `dir` (sorted; hidden entries skipped),
/// validated as a package.
pub(crate) fn collect_package_yaml(dir: &Path) -> Result<String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .with_context(|| format!("reading {}", dir.display()))?
            .collect::<std::io::Result<_>>()?;
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let name = e.file_name();
            if name.to_string_lossy().starts_with('.') {
                continue;
            }
            let path = e.path();
            let ft = e.file_type()?;
            if ft.is_dir() {
                walk(&path, out)?;
            } else if ft.is_file()
                && matches!(
                    path.extension().and_then(|x| x.to_str()),
                    Some("yaml" | "yml")
                )
            {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut files = Vec::new();
    walk(dir, &mut files)?;
    if files.is_empty() {
        bail!("no YAML files under {}", dir.display());
    }
    let mut stream = String::new();
    let mut objects = Vec::new();
    for f in files {
        let text =
            std::fs::read_to_string(&f).with_context(|| format!("reading {}", f.display()))?;
        objects.extend(package::parse_stream(&text, &f.display().to_string())?);
        if !stream.is_empty() {
            stream.push_str("---\n");
        }
        stream.push_str(text.trim_start_matches("---\n"));
        if !stream.ends_with('\n') {
            stream.push('\n');
        }
    }
    package::validate(objects)
        .map_err(|e| anyhow!("{e} (in the package built from {})", dir.display()))?;
    Ok(stream)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(p: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/xpkg")
            .join(p)
    }

    #[test]
    fn built_packages_load_back() {
        for (dir, version) in [("configuration", "v1.2.3"), ("provider", "v0.1.0")] {
            let stream = collect_package_yaml(&data(dir)).unwrap();
            let t = tempfile::tempdir().unwrap();
            let file = t.path().join("p.xpkg");
            std::fs::write(&file, layout::build_package(stream.as_bytes()).unwrap()).unwrap();
            let loaded = open_file(&file, &Options::default()).unwrap();
            let Content::Xpkg(p) = loaded.content else {
                panic!("{dir}: not an xpkg")
            };
            let mut want: Value = serde_json::from_str(
                &std::fs::read_to_string(data(dir).join("inspect.json")).unwrap(),
            )
            .unwrap();
            assert_eq!(
                want.as_object_mut().unwrap().remove("version"),
                Some(Value::from(version))
            );
            assert_eq!(package::summary(&p), want, "{dir}");
        }
    }

    #[test]
    fn build_refuses_what_is_not_a_package() {
        let t = tempfile::tempdir().unwrap();
        assert!(
            collect_package_yaml(t.path())
                .unwrap_err()
                .to_string()
                .contains("no YAML files")
        );
        std::fs::write(
            t.path().join("a.yaml"),
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n",
        )
        .unwrap();
        let e = collect_package_yaml(t.path()).unwrap_err().to_string();
        assert!(e.contains("package.yaml has no meta object"), "{e}");
        std::fs::write(t.path().join("b.yml"), "a: [\n").unwrap();
        let e = collect_package_yaml(t.path()).unwrap_err().to_string();
        assert!(e.contains("b.yml is not a valid YAML stream: line "), "{e}");
    }
}
