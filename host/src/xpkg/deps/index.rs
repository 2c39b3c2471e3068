//! An index of package contents: which package, at which version, owns which CRDs, which XRDs
//! (and so the composite kinds they define) and which composite types its Compositions serve.
//! Legacy packages name the CRDs they need; the index says which packages provide them.

use anyhow::{Context as _, Result, bail};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::model::Fetched;

pub(crate) const API_VERSION: &str = "xprender.io/v1alpha1";
pub(crate) const KIND: &str = "PackageIndex";

/// A kind a package defines: by CRD, or by XRD (the composite kind, and its claim kind).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Defined {
    pub(crate) group: String,
    pub(crate) kind: String,
    pub(crate) plural: String,
    pub(crate) versions: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Entry {
    pub(crate) package: String,
    pub(crate) version: String,
    pub(crate) digest: String,
    pub(crate) kind: String,
    pub(crate) name: String,
    pub(crate) crds: Vec<Defined>,
    pub(crate) xrds: Vec<Defined>,
    /// `apiVersion, Kind=...` of every Composition's compositeTypeRef.
    pub(crate) composite_types: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Index {
    pub(crate) api_version: String,
    pub(crate) kind: String,
    pub(crate) packages: Vec<Entry>,
}

fn s<'a>(v: &'a Value, p: &str) -> &'a str {
    v.pointer(p).and_then(Value::as_str).unwrap_or("")
}

fn defined(group: &str, names: &Value, versions: &Value) -> Option<Defined> {
    let kind = s(names, "/kind");
    if kind.is_empty() {
        return None;
    }
    Some(Defined {
        group: group.to_owned(),
        kind: kind.to_owned(),
        plural: s(names, "/plural").to_owned(),
        versions: versions
            .as_array()
            .map(|vs| {
                vs.iter()
                    .map(|v| s(v, "/name").to_owned())
                    .filter(|n| !n.is_empty())
                    .collect()
            })
            .unwrap_or_default(),
    })
}

impl Entry {
    pub(crate) fn of(package: &str, version: &str, f: &Fetched) -> Entry {
        let mut e = Entry {
            package: package.to_owned(),
            version: version.to_owned(),
            digest: f.digest.clone(),
            kind: f.kind.clone(),
            name: f.name.clone(),
            crds: vec![],
            xrds: vec![],
            composite_types: vec![],
        };
        for o in &f.objects {
            let group = s(o, "/spec/group");
            // apiextensions.k8s.io/v1beta1 CRDs may name one `version` instead.
            let single = o
                .pointer("/spec/version")
                .map(|v| Value::Array(vec![serde_json::json!({"name": v})]));
            let versions = o
                .pointer("/spec/versions")
                .or(single.as_ref())
                .unwrap_or(&Value::Null);
            match s(o, "/kind") {
                "CustomResourceDefinition" => {
                    e.crds.extend(defined(group, &o["spec"]["names"], versions));
                }
                "CompositeResourceDefinition" => {
                    e.xrds.extend(defined(group, &o["spec"]["names"], versions));
                    if let Some(claim) = o.pointer("/spec/claimNames") {
                        e.xrds.extend(defined(group, claim, versions));
                    }
                }
                "Composition" => e.composite_types.push(format!(
                    "{}, Kind={}",
                    s(o, "/spec/compositeTypeRef/apiVersion"),
                    s(o, "/spec/compositeTypeRef/kind")
                )),
                _ => {}
            }
        }
        e
    }
}

/// `name.group/version`, name a kind or plural (any case) or `*`, version possibly `*`.
pub(crate) fn parse_crd(text: &str) -> Result<(String, String, String)> {
    let bad = || {
        anyhow::anyhow!(
            "invalid CRD name {text:?}: expected kind.group/version, e.g. buckets.storage.example.org/v1 or *.example.org/v1"
        )
    };
    let (ng, version) = text.split_once('/').ok_or_else(bad)?;
    let (name, group) = ng.split_once('.').ok_or_else(bad)?;
    if name.is_empty() || group.is_empty() || version.is_empty() || version.contains('/') {
        return Err(bad());
    }
    Ok((name.to_owned(), group.to_owned(), version.to_owned()))
}

impl Defined {
    pub(crate) fn matches(&self, name: &str, group: &str, version: &str) -> bool {
        self.group == group
            && (name == "*"
                || self.kind.eq_ignore_ascii_case(name)
                || self.plural.eq_ignore_ascii_case(name))
            && (version == "*" || self.versions.iter().any(|v| v == version))
    }
}

impl Index {
    pub(crate) fn new(mut packages: Vec<Entry>) -> Index {
        packages.sort_by(|a, b| {
            (
                &a.package,
                crate::xpkg::constraint::parse_tag(&a.version),
                &a.version,
            )
                .cmp(&(
                    &b.package,
                    crate::xpkg::constraint::parse_tag(&b.version),
                    &b.version,
                ))
        });
        Index {
            api_version: API_VERSION.into(),
            kind: KIND.into(),
            packages,
        }
    }

    pub(crate) fn read(path: &std::path::Path) -> Result<Index> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading the index {}", path.display()))?;
        let index: Index = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a package index", path.display()))?;
        if index.api_version != API_VERSION || index.kind != KIND {
            bail!(
                "{} is not a package index: expected apiVersion {API_VERSION} and kind {KIND}",
                path.display()
            );
        }
        Ok(index)
    }

    /// The packages owning a CRD (by CRD or XRD), each with the versions that own it.
    pub(crate) fn owners(&self, crd: &str) -> Result<Vec<(String, Vec<String>)>> {
        let (name, group, version) = parse_crd(crd)?;
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        for e in &self.packages {
            let owns = e
                .crds
                .iter()
                .chain(&e.xrds)
                .any(|d| d.matches(&name, &group, &version));
            if !owns {
                continue;
            }
            match out.iter_mut().find(|(p, _)| *p == e.package) {
                Some((_, vs)) => vs.push(e.version.clone()),
                None => out.push((e.package.clone(), vec![e.version.clone()])),
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(package: &str, version: &str, crds: &[(&str, &str, &str, &[&str])]) -> Entry {
        Entry {
            package: package.into(),
            version: version.into(),
            digest: String::new(),
            kind: "Provider".into(),
            name: package.rsplit('/').next().unwrap().into(),
            crds: crds
                .iter()
                .map(|(g, k, p, vs)| Defined {
                    group: (*g).into(),
                    kind: (*k).into(),
                    plural: (*p).into(),
                    versions: vs.iter().map(|v| (*v).into()).collect(),
                })
                .collect(),
            xrds: vec![],
            composite_types: vec![],
        }
    }

    #[test]
    fn crd_names_and_wildcards_find_their_owners() {
        let index = Index::new(vec![
            entry(
                "r/storage",
                "v1.1.0",
                &[("storage.example.org", "Bucket", "buckets", &["v1"])],
            ),
            entry(
                "r/storage",
                "v1.0.0",
                &[("storage.example.org", "Bucket", "buckets", &["v1beta1"])],
            ),
            entry(
                "r/db",
                "v0.1.0",
                &[("db.example.org", "Database", "databases", &["v1"])],
            ),
        ]);
        let owners = |q: &str| index.owners(q).unwrap();
        let storage = |vs: &[&str]| {
            vec![(
                "r/storage".to_owned(),
                vs.iter().map(|v| (*v).to_owned()).collect::<Vec<_>>(),
            )]
        };
        assert_eq!(
            owners("buckets.storage.example.org/v1"),
            storage(&["v1.1.0"])
        );
        assert_eq!(
            owners("Bucket.storage.example.org/v1beta1"),
            storage(&["v1.0.0"])
        );
        assert_eq!(owners("*.storage.example.org/v1"), storage(&["v1.1.0"]));
        assert_eq!(
            owners("bucket.storage.example.org/*"),
            storage(&["v1.0.0", "v1.1.0"])
        );
        assert!(
            owners("*.example.org/v1").is_empty(),
            "the group is matched whole"
        );
        assert!(owners("tables.db.example.org/v1").is_empty());
        assert!(index.owners("buckets/v1").is_err());
        assert!(index.owners("buckets.storage.example.org").is_err());
    }
}
