//! OCI image layout tarballs: the `.xpkg` file format that `build` writes and `push` and
//! `inspect` read.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::Path;

use anyhow::{Context as _, Result, anyhow, bail};
use serde_json::json;

use super::cache::Digest;
use super::image::{self, Descriptor};
use super::tarfs::clean_path;

/// The blobs and `index.json` of an image layout, all in memory.
#[derive(Debug)]
pub(crate) struct Layout {
    pub(crate) index: Vec<u8>,
    blobs: HashMap<String, Vec<u8>>,
}

impl Layout {
    /// Reads a layout tarball (plain or gzip), at most `max` bytes of it.
    pub(crate) fn read(path: &Path, max: u64) -> Result<Self> {
        let file =
            std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
        let mut bytes = Vec::new();
        file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > max {
            bail!("{} exceeds the size limit of {max} bytes", path.display());
        }
        let tar: Box<dyn Read> = if bytes.starts_with(&[0x1f, 0x8b]) {
            Box::new(flate2::read::GzDecoder::new(&bytes[..]))
        } else {
            Box::new(&bytes[..])
        };
        let mut index = None;
        let mut blobs = HashMap::new();
        let mut archive = tar::Archive::new(tar.take(max));
        for entry in archive
            .entries()
            .with_context(|| format!("reading {}", path.display()))?
        {
            let mut entry = entry?;
            let raw = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
            let Some(name) = clean_path(&raw)? else {
                continue;
            };
            if entry.header().entry_type() != tar::EntryType::Regular {
                continue;
            }
            let mut content = Vec::new();
            entry.read_to_end(&mut content)?;
            if name == "index.json" {
                index = Some(content);
            } else if let Some(hex) = name.strip_prefix("blobs/sha256/") {
                blobs.insert(format!("sha256:{hex}"), content);
            }
        }
        let index = index.ok_or_else(|| {
            anyhow!(
                "{} is not an OCI image layout: no index.json",
                path.display()
            )
        })?;
        Ok(Self { index, blobs })
    }

    /// A blob by digest, verified.
    pub(crate) fn blob(&self, digest: &Digest) -> Result<&[u8]> {
        let b = self
            .blobs
            .get(digest.as_str())
            .ok_or_else(|| anyhow!("blob {digest} is missing from the image layout"))?;
        let actual = Digest::of(b);
        if actual != *digest {
            bail!("blob {digest} in the image layout is corrupt (content hashes to {actual})");
        }
        Ok(b)
    }

    /// The layout's root: its only manifest, or index.json itself when it lists several.
    pub(crate) fn root(&self) -> Result<(Vec<u8>, Option<Descriptor>)> {
        match image::parse_document(&self.index)? {
            image::Document::Index(list) if list.len() == 1 => {
                let d = list
                    .into_iter()
                    .next()
                    .ok_or_else(|| anyhow!("empty index"))?;
                Ok((self.blob(&d.digest)?.to_vec(), Some(d)))
            }
            _ => Ok((self.index.clone(), None)),
        }
    }
}

fn tar_file(builder: &mut tar::Builder<impl Write>, name: &str, data: &[u8]) -> Result<()> {
    tar_entry(builder, name, data, 0o644)
}

fn tar_entry(
    builder: &mut tar::Builder<impl Write>,
    name: &str,
    data: &[u8],
    mode: u32,
) -> Result<()> {
    let mut h = tar::Header::new_ustar();
    h.set_size(data.len() as u64);
    h.set_mode(mode);
    h.set_mtime(0);
    h.set_entry_type(tar::EntryType::Regular);
    builder.append_data(&mut h, name, data)?;
    Ok(())
}

fn gzip(data: &[u8]) -> Result<Vec<u8>> {
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(data)?;
    Ok(z.finish()?)
}

/// Where a Function package's runtime layer puts the binary, and what its image runs.
pub(crate) const RUNTIME_BINARY: &str = "usr/local/bin/xprender";
pub(crate) const RUNTIME_ENTRYPOINT: [&str; 3] = ["/usr/local/bin/xprender", "function", "serve"];
/// The port Crossplane's function runtime connects to.
pub(crate) const RUNTIME_PORT: &str = "9443/tcp";

/// Writes a package image: one gzip layer holding `package.yaml`, annotated
/// `io.crossplane.xpkg: base`, as an OCI image layout tarball. Deterministic for a given input.
pub(crate) fn build_package(package_yaml: &[u8]) -> Result<Vec<u8>> {
    build_image(package_yaml, None)
}

/// Writes a Function package whose image also runs the function: a first layer holding the
/// statically linked `runtime` binary, started as `xprender function serve` on port 9443 by an
/// unprivileged user, then the `package.yaml` layer.
pub(crate) fn build_function_package(package_yaml: &[u8], runtime: &[u8]) -> Result<Vec<u8>> {
    build_image(package_yaml, Some(runtime))
}

fn build_image(package_yaml: &[u8], runtime: Option<&[u8]>) -> Result<Vec<u8>> {
    let mut layers = Vec::new();
    if let Some(binary) = runtime {
        let mut t = tar::Builder::new(Vec::new());
        tar_entry(&mut t, RUNTIME_BINARY, binary, 0o755)?;
        layers.push((t.into_inner()?, None));
    }
    let mut t = tar::Builder::new(Vec::new());
    tar_file(&mut t, "package.yaml", package_yaml)?;
    layers.push((t.into_inner()?, Some(image::XPKG_BASE)));

    let mut diff_ids = Vec::new();
    let mut descriptors = Vec::new();
    let mut labels = serde_json::Map::new();
    let mut blobs = Vec::new();
    for (tar, annotation) in layers {
        diff_ids.push(Digest::of(&tar).as_str().to_owned());
        let layer = gzip(&tar)?;
        let digest = Digest::of(&layer);
        let mut d = json!({"mediaType": image::OCI_LAYER_GZIP, "digest": digest.as_str(), "size": layer.len()});
        if let Some(a) = annotation {
            d["annotations"] = json!({image::XPKG_ANNOTATION: a});
            labels.insert(format!("{}:{}", image::XPKG_ANNOTATION, digest), a.into());
        }
        descriptors.push(d);
        blobs.push((digest, layer));
    }
    let mut image_config = json!({"Labels": labels});
    if runtime.is_some() {
        image_config["Entrypoint"] = json!(RUNTIME_ENTRYPOINT);
        image_config["ExposedPorts"] = json!({RUNTIME_PORT: {}});
        image_config["User"] = json!("65532:65532");
    }
    let config = serde_json::to_vec(&json!({
        "architecture": "amd64",
        "os": "linux",
        "config": image_config,
        "rootfs": {"type": "layers", "diff_ids": diff_ids},
    }))?;
    let config_digest = Digest::of(&config);
    let manifest = serde_json::to_vec(&json!({
        "schemaVersion": 2,
        "mediaType": image::OCI_MANIFEST,
        "config": {"mediaType": image::OCI_CONFIG, "digest": config_digest.as_str(), "size": config.len()},
        "layers": descriptors,
    }))?;
    let manifest_digest = Digest::of(&manifest);
    let index = serde_json::to_vec(&json!({
        "schemaVersion": 2,
        "mediaType": image::OCI_INDEX,
        "manifests": [{"mediaType": image::OCI_MANIFEST, "digest": manifest_digest.as_str(), "size": manifest.len()}],
    }))?;
    let mut out = tar::Builder::new(Vec::new());
    tar_file(&mut out, "oci-layout", br#"{"imageLayoutVersion":"1.0.0"}"#)?;
    tar_file(&mut out, "index.json", &index)?;
    blobs.push((config_digest, config));
    blobs.push((manifest_digest, manifest));
    for (d, b) in &blobs {
        tar_file(&mut out, &format!("blobs/sha256/{}", d.hex()), b)?;
    }
    Ok(out.into_inner()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_layouts_read_back_and_are_deterministic() {
        let a = build_package(b"x: 1\n").unwrap();
        assert_eq!(a, build_package(b"x: 1\n").unwrap());
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("p.xpkg");
        std::fs::write(&p, &a).unwrap();
        let l = Layout::read(&p, 1 << 20).unwrap();
        let (manifest, d) = l.root().unwrap();
        assert!(d.is_some());
        let image::Document::Manifest(layers) = image::parse_document(&manifest).unwrap() else {
            panic!("index")
        };
        assert_eq!(layers[0].annotation.as_deref(), Some("base"));
        assert!(l.blob(&layers[0].digest).is_ok());
        assert!(
            Layout::read(&p, 100)
                .unwrap_err()
                .to_string()
                .contains("size limit")
        );
    }
}
