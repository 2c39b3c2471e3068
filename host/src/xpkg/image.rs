//! Image index platform selection and package layer selection, per the xpkg specification.

use anyhow::{Result, bail};
use serde_json::Value;

use super::cache::Digest;

pub(crate) const OCI_INDEX: &str = "application/vnd.oci.image.index.v1+json";
pub(crate) const OCI_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
pub(crate) const DOCKER_LIST: &str = "application/vnd.docker.distribution.manifest.list.v2+json";
pub(crate) const DOCKER_MANIFEST: &str = "application/vnd.docker.distribution.manifest.v2+json";
pub(crate) const OCI_CONFIG: &str = "application/vnd.oci.image.config.v1+json";
pub(crate) const OCI_LAYER_GZIP: &str = "application/vnd.oci.image.layer.v1.tar+gzip";

/// The annotation marking a package layer, and the value marking the one holding package.yaml.
pub(crate) const XPKG_ANNOTATION: &str = "io.crossplane.xpkg";
pub(crate) const XPKG_BASE: &str = "base";

pub(crate) const MANIFEST_TYPES: &[&str] = &[OCI_INDEX, OCI_MANIFEST, DOCKER_LIST, DOCKER_MANIFEST];

/// Manifests and indexes are small; anything bigger is refused before parsing.
pub(crate) const MAX_MANIFEST_BYTES: u64 = 4 << 20;

#[derive(Debug, Clone)]
pub(crate) struct Descriptor {
    pub(crate) digest: Digest,
    pub(crate) size: u64,
    pub(crate) annotation: Option<String>,
    platform: Option<(String, String)>,
}

impl Descriptor {
    fn parse(v: &Value, what: &str) -> Result<Self> {
        let Some(digest) = v.get("digest").and_then(Value::as_str) else {
            bail!("{what} has no digest");
        };
        let digest = Digest::parse(digest)?;
        let size = v.get("size").and_then(Value::as_u64).unwrap_or(0);
        let annotation = v
            .pointer("/annotations/io.crossplane.xpkg")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let platform = v.get("platform").map(|p| {
            let s = |k: &str| {
                p.get(k)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            };
            (s("os"), s("architecture"))
        });
        Ok(Self {
            digest,
            size,
            annotation,
            platform,
        })
    }
}

/// What a fetched manifest document turned out to be.
pub(crate) enum Document {
    Index(Vec<Descriptor>),
    Manifest(Vec<Descriptor>),
}

/// Classifies a manifest or index by its media type (or, when absent, by its shape).
pub(crate) fn parse_document(bytes: &[u8]) -> Result<Document> {
    let v: Value =
        serde_json::from_slice(bytes).map_err(|e| anyhow::anyhow!("malformed manifest: {e}"))?;
    let media_type = v
        .get("mediaType")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let is_index = match media_type {
        OCI_INDEX | DOCKER_LIST => true,
        OCI_MANIFEST | DOCKER_MANIFEST => false,
        "" => v.get("manifests").is_some(),
        other => bail!("unsupported manifest media type {other:?}"),
    };
    let list = |key: &str| -> Result<Vec<Descriptor>> {
        let Some(items) = v.get(key).and_then(Value::as_array) else {
            bail!("malformed manifest: no {key} array");
        };
        items
            .iter()
            .enumerate()
            .map(|(i, d)| Descriptor::parse(d, &format!("{key}[{i}]")))
            .collect()
    };
    Ok(if is_index {
        Document::Index(list("manifests")?)
    } else {
        Document::Manifest(list("layers")?)
    })
}

/// One manifest: use it; several: the linux/amd64 one; none: an error.
pub(crate) fn select_manifest(manifests: &[Descriptor]) -> Result<&Descriptor> {
    match manifests {
        [] => bail!("the image index lists no manifests"),
        [only] => Ok(only),
        many => many
            .iter()
            .find(|d| {
                d.platform
                    .as_ref()
                    .is_some_and(|(os, arch)| os == "linux" && arch == "amd64")
            })
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "the image index lists {} manifests and none is for linux/amd64",
                    many.len()
                )
            }),
    }
}

/// The layers to read: the `base` layer alone when there is one, otherwise all of them.
pub(crate) fn select_layers(layers: &[Descriptor]) -> Result<Vec<&Descriptor>> {
    let bases: Vec<usize> = layers
        .iter()
        .enumerate()
        .filter(|(_, l)| l.annotation.as_deref() == Some(XPKG_BASE))
        .map(|(i, _)| i)
        .collect();
    match bases.as_slice() {
        [] if layers.is_empty() => bail!("the image manifest has no layers"),
        [] => Ok(layers.iter().collect()),
        [i] => Ok(vec![&layers[*i]]),
        many => bail!(
            "layers {} are all annotated {XPKG_ANNOTATION}: {XPKG_BASE}; at most one may be",
            many.iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(n: char, extra: Value) -> Value {
        let mut v = serde_json::json!({"mediaType": OCI_MANIFEST, "digest": format!("sha256:{}", n.to_string().repeat(64)), "size": 1});
        if let (Some(o), Value::Object(e)) = (v.as_object_mut(), extra) {
            o.extend(e);
        }
        v
    }

    fn index(items: Vec<Value>) -> Vec<Descriptor> {
        let doc =
            serde_json::json!({"schemaVersion": 2, "mediaType": OCI_INDEX, "manifests": items});
        match parse_document(doc.to_string().as_bytes()).unwrap() {
            Document::Index(m) => m,
            Document::Manifest(_) => panic!("not an index"),
        }
    }

    fn manifest(items: Vec<Value>) -> Vec<Descriptor> {
        let doc = serde_json::json!({"schemaVersion": 2, "layers": items});
        match parse_document(doc.to_string().as_bytes()).unwrap() {
            Document::Manifest(m) => m,
            Document::Index(_) => panic!("not a manifest"),
        }
    }

    #[test]
    fn index_selection() {
        let plat = |os: &str, arch: &str| serde_json::json!({"platform": {"os": os, "architecture": arch}});
        let one = index(vec![d('a', plat("linux", "arm64"))]);
        assert_eq!(select_manifest(&one).unwrap().digest.hex(), "a".repeat(64));
        let many = index(vec![
            d('a', plat("linux", "arm64")),
            d('b', plat("linux", "amd64")),
        ]);
        assert_eq!(select_manifest(&many).unwrap().digest.hex(), "b".repeat(64));
        let none = index(vec![
            d('a', plat("linux", "arm64")),
            d('b', plat("windows", "amd64")),
        ]);
        assert!(
            select_manifest(&none)
                .unwrap_err()
                .to_string()
                .contains("none is for linux/amd64")
        );
        assert!(
            select_manifest(&index(vec![]))
                .unwrap_err()
                .to_string()
                .contains("lists no manifests")
        );
    }

    #[test]
    fn layer_selection() {
        let ann = |v: &str| serde_json::json!({"annotations": {"io.crossplane.xpkg": v}});
        let l = manifest(vec![
            d('a', Value::Null),
            d('b', ann("base")),
            d('c', ann("upbound")),
        ]);
        let picked: Vec<_> = select_layers(&l)
            .unwrap()
            .iter()
            .map(|l| l.digest.hex()[..1].to_owned())
            .collect();
        assert_eq!(picked, ["b"]);
        let l = manifest(vec![d('a', Value::Null), d('c', ann("other"))]);
        assert_eq!(select_layers(&l).unwrap().len(), 2);
        let l = manifest(vec![d('a', ann("base")), d('b', ann("base"))]);
        assert!(
            select_layers(&l)
                .unwrap_err()
                .to_string()
                .contains("layers 0, 1")
        );
        assert!(select_layers(&manifest(vec![])).is_err());
    }

    #[test]
    fn documents_are_classified() {
        assert!(parse_document(br#"{"mediaType":"text/plain"}"#).is_err());
        assert!(parse_document(b"not json").is_err());
        assert!(parse_document(br#"{"layers":[{"digest":"md5:x"}]}"#).is_err());
        assert!(matches!(
            parse_document(br#"{"manifests":[]}"#),
            Ok(Document::Index(_))
        ));
    }
}
