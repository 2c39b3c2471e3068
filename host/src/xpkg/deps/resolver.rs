//! Choosing versions: every package at the highest tag that satisfies every constraint its
//! dependents place on it, a digest pinning one image, CRD needs through the index.

use std::collections::BTreeMap;

use anyhow::{Context as _, Result, bail};

use super::catalog::Catalog;
use super::index::Index;
use super::model::{Fetched, Graph, Need, Resolved, Root, is_digest, label};
use super::order::install_order;
use crate::xpkg::constraint::{Constraint, parse_tag};

/// A constraint on a package, with who asked.
#[derive(Debug, Clone)]
struct Ask {
    from: String,
    what: Asked,
}

#[derive(Debug, Clone)]
enum Asked {
    Semver(Constraint),
    Digest(String),
    /// Through the index: the versions that own a CRD.
    Owns {
        crd: String,
        versions: Vec<String>,
    },
}

impl std::fmt::Display for Asked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Asked::Semver(c) => write!(f, "{c}"),
            Asked::Digest(d) => f.write_str(d),
            Asked::Owns { crd, versions } => {
                write!(f, "a version owning {crd} ({})", versions.join(", "))
            }
        }
    }
}

impl Asked {
    fn admits(&self, tag: &str) -> bool {
        match self {
            Asked::Semver(c) => parse_tag(tag).is_some_and(|v| c.matches(&v)),
            Asked::Digest(_) => false,
            Asked::Owns { versions, .. } => versions.iter().any(|v| v == tag),
        }
    }
}

struct Resolver<'a> {
    catalog: &'a mut dyn Catalog,
    index: Option<&'a Index>,
    /// CRDs already present (installs skip what the cluster has).
    present: &'a dyn Fn(&str) -> bool,
    tags: BTreeMap<String, Vec<String>>,
    fetched: BTreeMap<(String, String), Fetched>,
}

impl Resolver<'_> {
    fn tags(&mut self, package: &str, asked_by: &str) -> Result<Vec<String>> {
        if let Some(t) = self.tags.get(package) {
            return Ok(t.clone());
        }
        let t = self
            .catalog
            .tags(package)
            .with_context(|| format!("package {package} (required by {asked_by})"))?;
        self.tags.insert(package.to_owned(), t.clone());
        Ok(t)
    }

    fn fetch(&mut self, package: &str, version: &str, asked_by: &str) -> Result<Fetched> {
        let key = (package.to_owned(), version.to_owned());
        if let Some(f) = self.fetched.get(&key) {
            return Ok(f.clone());
        }
        let f = self
            .catalog
            .fetch(package, version)
            .with_context(|| format!("{} (required by {asked_by})", label(package, version)))?;
        self.fetched.insert(key, f.clone());
        Ok(f)
    }

    /// The version satisfying every ask: the digest all digest asks agree on, else the highest
    /// tag admitted by all of them.
    fn choose(&mut self, package: &str, asks: &[Ask]) -> Result<String> {
        let first = &asks[0].from;
        let digests: Vec<&Ask> = asks
            .iter()
            .filter(|a| matches!(a.what, Asked::Digest(_)))
            .collect();
        if let Some(d) = digests.first() {
            if let Some(other) = asks
                .iter()
                .find(|a| a.what.to_string() != d.what.to_string())
            {
                bail!(
                    "conflicting requirements on {package}: {} requires {} and {} requires {}",
                    d.from,
                    d.what,
                    other.from,
                    other.what
                );
            }
            return Ok(d.what.to_string());
        }
        let tags = self.tags(package, first)?;
        let mut versions: Vec<(semver::Version, &String)> = tags
            .iter()
            .filter_map(|t| parse_tag(t).map(|v| (v, t)))
            .collect();
        versions.sort();
        if let Some((_, t)) = versions
            .iter()
            .rev()
            .find(|(_, t)| asks.iter().all(|a| a.what.admits(t)))
        {
            return Ok((*t).clone());
        }
        let listed = if versions.is_empty() {
            "it has no version tags".to_owned()
        } else {
            let names: Vec<&str> = versions.iter().map(|(_, t)| t.as_str()).collect();
            format!("tags: {}", names.join(", "))
        };
        for a in asks {
            if !versions.iter().any(|(_, t)| a.what.admits(t)) {
                bail!(
                    "no version of {package} satisfies {} (required by {}); {listed}",
                    a.what,
                    a.from
                );
            }
        }
        for (i, a) in asks.iter().enumerate() {
            for b in &asks[i + 1..] {
                if !versions
                    .iter()
                    .any(|(_, t)| a.what.admits(t) && b.what.admits(t))
                {
                    bail!(
                        "conflicting requirements on {package}: {} requires {} and {} requires {}; no version satisfies both ({listed})",
                        a.from,
                        a.what,
                        b.from,
                        b.what
                    );
                }
            }
        }
        let all: Vec<String> = asks
            .iter()
            .map(|a| format!("{} requires {}", a.from, a.what))
            .collect();
        bail!(
            "conflicting requirements on {package}: {}; no version satisfies all of them ({listed})",
            all.join(", ")
        )
    }

    /// The root's package, version and image. A CRD root stands for the package owning it; a
    /// repository without tag or digest for its highest version tag.
    fn start(&mut self, root: Root) -> Result<(String, String, Fetched)> {
        const CLI: &str = "the command line";
        let (package, version, tag_digest) = match root {
            Root::File { name, fetched } => return Ok((name, fetched.digest.clone(), fetched)),
            Root::Reference {
                package,
                version,
                tag_digest,
            } => (package, version, tag_digest),
            Root::Latest(package) => {
                let ask = Ask {
                    from: CLI.into(),
                    what: Asked::Semver(Constraint::parse("*")?),
                };
                let version = self.choose(&package, &[ask])?;
                (package, version, None)
            }
            Root::Crd(crd) => {
                let asks = self.asks_of(&Need::Crd(crd.clone()), CLI)?;
                let [(package, ask)] = asks.as_slice() else {
                    let names: Vec<&str> = asks.iter().map(|(p, _)| p.as_str()).collect();
                    bail!(
                        "CRD {crd} is provided by several packages ({}): install one of them by reference",
                        names.join(", ")
                    );
                };
                let version = self.choose(package, std::slice::from_ref(ask))?;
                (package.clone(), version, None)
            }
        };
        let f = self.fetch(&package, &version, CLI)?;
        if let Some((tag, digest)) = tag_digest {
            let tagged = self.fetch(&package, &tag, CLI)?;
            if tagged.digest != f.digest {
                bail!(
                    "digest mismatch: {package}:{tag} is {}, not the pinned {digest}",
                    tagged.digest
                );
            }
        }
        Ok((package, version, f))
    }

    /// The packages a need stands for, with what they ask of each.
    fn asks_of(&self, need: &Need, from: &str) -> Result<Vec<(String, Ask)>> {
        match need {
            Need::Package {
                package, version, ..
            } => {
                let what = if is_digest(version) {
                    Asked::Digest(version.clone())
                } else {
                    Asked::Semver(
                        Constraint::parse(version)
                            .with_context(|| format!("{from}: dependency on {package}"))?,
                    )
                };
                Ok(vec![(
                    package.clone(),
                    Ask {
                        from: from.to_owned(),
                        what,
                    },
                )])
            }
            Need::Crd(crd) => {
                if (self.present)(crd) {
                    return Ok(vec![]);
                }
                let Some(index) = self.index else {
                    bail!(
                        "{from} requires CRD {crd}: resolving CRD dependencies needs an index of package contents (--index FILE, written by `xprender xpkg index`)"
                    );
                };
                let owners = index.owners(crd)?;
                if owners.is_empty() {
                    bail!("no package in the index provides CRD {crd} (required by {from})");
                }
                Ok(owners
                    .into_iter()
                    .map(|(package, versions)| {
                        (
                            package,
                            Ask {
                                from: from.to_owned(),
                                what: Asked::Owns {
                                    crd: crd.clone(),
                                    versions,
                                },
                            },
                        )
                    })
                    .collect())
            }
        }
    }
}

/// Resolves the graph from `root`. Versions are re-chosen until every package's version
/// satisfies every constraint the chosen versions of its dependents place on it.
pub(crate) fn resolve(
    catalog: &mut dyn Catalog,
    index: Option<&Index>,
    present: &dyn Fn(&str) -> bool,
    root: Root,
) -> Result<Graph> {
    let mut r = Resolver {
        catalog,
        index,
        present,
        tags: BTreeMap::new(),
        fetched: BTreeMap::new(),
    };
    let root_is_file = matches!(root, Root::File { .. });
    let (root_name, root_version, root_fetched) = r.start(root)?;

    let mut chosen: BTreeMap<String, String> = BTreeMap::new();
    for _round in 0..64 {
        // Walk from the root with the current choices, collecting every ask.
        let mut asks: BTreeMap<String, Vec<Ask>> = BTreeMap::new();
        let mut nodes: BTreeMap<String, Resolved> = BTreeMap::new();
        let mut queue = vec![(root_name.clone(), root_version.clone())];
        let mut used: BTreeMap<String, String> = BTreeMap::new();
        while let Some((package, version)) = queue.pop() {
            if nodes.contains_key(&package) {
                continue;
            }
            let fetched = if package == root_name {
                root_fetched.clone()
            } else {
                let from = asks
                    .get(&package)
                    .and_then(|a| a.first())
                    .map(|a| a.from.clone())
                    .unwrap_or_default();
                r.fetch(&package, &version, &from)?
            };
            let me = label(&package, &version);
            let mut depends_on = Vec::new();
            for need in &fetched.needs {
                for (dep, ask) in r.asks_of(need, &me)? {
                    asks.entry(dep.clone()).or_default().push(ask);
                    depends_on.push((need.clone(), dep.clone()));
                    if dep == root_name || nodes.contains_key(&dep) {
                        continue;
                    }
                    let v = match chosen.get(&dep) {
                        Some(v) => v.clone(),
                        None => r.choose(&dep, &asks[&dep])?,
                    };
                    used.insert(dep.clone(), v.clone());
                    queue.push((dep, v));
                }
            }
            nodes.insert(
                package.clone(),
                Resolved {
                    package,
                    version,
                    fetched,
                    depends_on,
                },
            );
        }
        // Every package's best version under all the asks on it.
        let mut next = BTreeMap::new();
        for (package, a) in &asks {
            if *package == root_name {
                continue;
            }
            next.insert(package.clone(), r.choose(package, a)?);
        }
        let settled = next.iter().all(|(p, v)| {
            nodes
                .get(p)
                .is_some_and(|n| n.version == *v && used.get(p).is_none_or(|u| u == v))
        });
        if settled {
            let order = install_order(&root_name, &nodes)?;
            return Ok(Graph {
                root: root_name,
                root_is_file,
                packages: order.into_iter().filter_map(|p| nodes.remove(&p)).collect(),
            });
        }
        chosen = next;
    }
    bail!("dependency resolution of {root_name} did not settle after 64 rounds")
}
