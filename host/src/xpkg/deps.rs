//! Dependency resolution: from a package, the versions of everything it needs, recursively,
//! each the highest tag that satisfies every constraint on it (a digest pins one image), and
//! the install order (dependencies first).
//!
//! Packages are named by their repository (`registry/path`, no tag). Legacy packages name the
//! CRDs they need instead of packages; an index of package contents maps those to packages.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Context as _, Result, anyhow, bail};
use serde_json::{Value, json};

use super::constraint::{Constraint, parse_tag};
use super::index::Index;

/// What one dependency entry asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Need {
    /// A package (`spec.dependsOn` of an xpkg): its repository, kind and version constraint
    /// (or `sha256:` digest).
    Package {
        package: String,
        kind: Option<String>,
        version: String,
    },
    /// A CRD (`dependsOn` of a legacy package): `kind.group/version`, group wildcards allowed.
    Crd(String),
}

/// A package image as far as resolution and installation care.
#[derive(Debug, Clone)]
pub(crate) struct Fetched {
    pub(crate) digest: String,
    /// Configuration, Provider, Function, or Legacy.
    pub(crate) kind: String,
    /// The meta object's name (the legacy record's name): what the package is installed as.
    pub(crate) name: String,
    pub(crate) needs: Vec<Need>,
    /// Objects to install (CRDs, XRDs, Compositions, webhooks; a legacy package's CRDs).
    pub(crate) objects: Vec<Value>,
    /// A legacy package's record.
    pub(crate) record: Option<Value>,
}

/// Where tags and package images come from.
pub(crate) trait Catalog {
    /// Every tag of a repository.
    fn tags(&mut self, package: &str) -> Result<Vec<String>>;
    /// A package image by tag or `sha256:` digest.
    fn fetch(&mut self, package: &str, version: &str) -> Result<Fetched>;
}

/// What resolution starts from.
#[derive(Debug, Clone)]
pub(crate) enum Root {
    /// A repository at a tag or digest (`tag_digest`: a tag that must resolve to this digest).
    Reference {
        package: String,
        version: String,
        tag_digest: Option<(String, String)>,
    },
    /// A package file: its image stands for itself.
    File { name: String, fetched: Fetched },
    /// A repository with no tag or digest: its highest version tag.
    Latest(String),
    /// A CRD to find through the index.
    Crd(String),
}

/// One resolved package.
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    pub(crate) package: String,
    pub(crate) version: String,
    pub(crate) fetched: Fetched,
    /// (what was asked, the package that satisfies it).
    pub(crate) depends_on: Vec<(Need, String)>,
}

#[derive(Debug, Clone)]
pub(crate) struct Graph {
    pub(crate) root: String,
    /// The root is a package file, not a registry reference.
    pub(crate) root_is_file: bool,
    /// Install order: dependencies first, the root last.
    pub(crate) packages: Vec<Resolved>,
}

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

pub(crate) fn is_digest(s: &str) -> bool {
    s.starts_with("sha256:")
}

/// `(package, installed as)`: how errors and trees name a package.
fn label(package: &str, version: &str) -> String {
    if is_digest(version) {
        format!("{package}@{version}")
    } else {
        format!("{package}:{version}")
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

/// Dependencies first (depth first, in declaration order); a cycle is an error naming it.
fn install_order(root: &str, nodes: &BTreeMap<String, Resolved>) -> Result<Vec<String>> {
    fn visit(
        p: &str,
        nodes: &BTreeMap<String, Resolved>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
        out: &mut Vec<String>,
    ) -> Result<()> {
        if done.contains(p) {
            return Ok(());
        }
        let name = |p: &str| {
            nodes
                .get(p)
                .map_or_else(|| p.to_owned(), |n| label(&n.package, &n.version))
        };
        if let Some(i) = stack.iter().position(|s| s == p) {
            let mut cycle: Vec<String> = stack[i..].iter().map(|s| name(s)).collect();
            cycle.push(name(p));
            bail!("dependency cycle: {}", cycle.join(" -> "));
        }
        stack.push(p.to_owned());
        if let Some(n) = nodes.get(p) {
            for (_, dep) in &n.depends_on {
                visit(dep, nodes, stack, done, out)?;
            }
        }
        stack.pop();
        done.insert(p.to_owned());
        out.push(p.to_owned());
        Ok(())
    }
    let mut out = Vec::new();
    visit(root, nodes, &mut Vec::new(), &mut BTreeSet::new(), &mut out)?;
    Ok(out)
}

impl Need {
    fn to_json(&self) -> Value {
        match self {
            Need::Package {
                package,
                kind,
                version,
            } => {
                let mut v = json!({"package": package, "constraint": version});
                if let Some(k) = kind {
                    v["kind"] = json!(k);
                }
                v
            }
            Need::Crd(crd) => json!({"crd": crd}),
        }
    }
}

impl Graph {
    pub(crate) fn get(&self, package: &str) -> Option<&Resolved> {
        self.packages.iter().find(|p| p.package == package)
    }

    /// The machine form: `{root, packages: [{package, version, digest, kind, dependsOn}], order}`.
    pub(crate) fn to_json(&self) -> Value {
        let packages: Vec<Value> = self
            .packages
            .iter()
            .map(|p| {
                let deps: Vec<Value> = p
                    .depends_on
                    .iter()
                    .map(|(need, dep)| {
                        let mut v = need.to_json();
                        v["package"] = json!(dep);
                        if let Some(d) = self.get(dep) {
                            v["version"] = json!(d.version);
                        }
                        v
                    })
                    .collect();
                json!({
                    "package": p.package,
                    "version": p.version,
                    "digest": p.fetched.digest,
                    "kind": p.fetched.kind,
                    "name": p.fetched.name,
                    "dependsOn": deps,
                })
            })
            .collect();
        let order: Vec<&str> = self.packages.iter().map(|p| p.package.as_str()).collect();
        json!({"root": self.root, "packages": packages, "order": order})
    }

    /// The tree form: the root, then each dependency indented under what needs it.
    pub(crate) fn to_tree(&self) -> String {
        fn line(g: &Graph, p: &Resolved, why: Option<&Need>) -> String {
            let mut s = format!("{} ({})", label(&p.package, &p.version), p.fetched.kind);
            match why {
                Some(Need::Package { version, .. }) if !is_digest(version) => {
                    s.push_str(&format!(" for {version}"));
                }
                Some(Need::Crd(crd)) => s.push_str(&format!(" for CRD {crd}")),
                _ => {}
            }
            if !is_digest(&p.version) && !p.fetched.digest.is_empty() {
                s.push_str(&format!(" {}", p.fetched.digest));
            }
            let _ = g;
            s
        }
        fn walk(g: &Graph, p: &Resolved, prefix: &str, out: &mut String) {
            let n = p.depends_on.len();
            for (i, (need, dep)) in p.depends_on.iter().enumerate() {
                let last = i + 1 == n;
                let Some(d) = g.get(dep) else { continue };
                out.push_str(&format!(
                    "{prefix}{}{}\n",
                    if last { "└── " } else { "├── " },
                    line(g, d, Some(need))
                ));
                let next = format!("{prefix}{}", if last { "    " } else { "│   " });
                walk(g, d, &next, out);
            }
        }
        let mut out = String::new();
        if let Some(root) = self.get(&self.root) {
            out.push_str(&line(self, root, None));
            out.push('\n');
            walk(self, root, "", &mut out);
        }
        out
    }
}

/// Reads `spec.dependsOn` of a meta object (or a legacy app.yaml's `dependsOn`).
pub(crate) fn needs_of(depends_on: Option<&Value>, what: &str) -> Result<Vec<Need>> {
    let Some(list) = depends_on else {
        return Ok(vec![]);
    };
    let Some(items) = list.as_array() else {
        bail!("{what}: dependsOn must be a list");
    };
    let mut out = Vec::new();
    for (i, d) in items.iter().enumerate() {
        let s = |k: &str| d.get(k).and_then(Value::as_str).filter(|s| !s.is_empty());
        if let Some(crd) = s("crd") {
            out.push(Need::Crd(crd.to_owned()));
            continue;
        }
        let (package, kind) = match (
            s("configuration"),
            s("provider"),
            s("function"),
            s("package"),
        ) {
            (Some(p), None, None, None) => (p, Some("Configuration")),
            (None, Some(p), None, None) => (p, Some("Provider")),
            (None, None, Some(p), None) => (p, Some("Function")),
            (None, None, None, Some(p)) => (p, s("kind")),
            _ => bail!(
                "{what}: dependsOn[{i}] must name exactly one of configuration, provider, function or package"
            ),
        };
        let version = s("version").unwrap_or("*");
        // A package reference may carry its digest itself.
        let (package, version) = match package.split_once('@') {
            Some((p, d)) => (p, d),
            None => (package, version),
        };
        if package
            .rsplit('/')
            .next()
            .is_some_and(|last| last.contains(':'))
        {
            return Err(anyhow!(
                "{what}: dependsOn[{i}] names {package:?} with a tag; give the repository and put the version in `version`"
            ));
        }
        out.push(Need::Package {
            package: package.to_owned(),
            kind: kind.map(str::to_owned),
            version: version.to_owned(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xpkg::index::Entry;

    /// One image: digest, needs, objects.
    type Image = (String, Vec<Need>, Vec<Value>);

    /// Packages in memory: repository → tag → image.
    #[derive(Default)]
    struct Mem(BTreeMap<String, BTreeMap<String, Image>>);

    fn dep(p: &str, v: &str) -> Need {
        Need::Package {
            package: p.into(),
            kind: Some("Provider".into()),
            version: v.into(),
        }
    }

    impl Mem {
        fn add(&mut self, p: &str, tag: &str, needs: Vec<Need>) -> &mut Self {
            self.add_objects(p, tag, needs, vec![])
        }

        fn add_objects(
            &mut self,
            p: &str,
            tag: &str,
            needs: Vec<Need>,
            objects: Vec<Value>,
        ) -> &mut Self {
            let digest = format!("sha256:{}{}", p.len(), tag.replace('.', ""));
            self.0
                .entry(p.into())
                .or_default()
                .insert(tag.into(), (digest, needs, objects));
            self
        }
    }

    impl Catalog for Mem {
        fn tags(&mut self, package: &str) -> Result<Vec<String>> {
            self.0
                .get(package)
                .map(|t| t.keys().cloned().collect())
                .ok_or_else(|| anyhow!("repository not found"))
        }

        fn fetch(&mut self, package: &str, version: &str) -> Result<Fetched> {
            let tags = self
                .0
                .get(package)
                .ok_or_else(|| anyhow!("repository not found"))?;
            let (digest, needs, objects) = tags
                .get(version)
                .or_else(|| tags.values().find(|(d, _, _)| d == version))
                .ok_or_else(|| anyhow!("manifest unknown"))?;
            Ok(Fetched {
                digest: digest.clone(),
                kind: "Configuration".into(),
                name: package.rsplit('/').next().unwrap().into(),
                needs: needs.clone(),
                objects: objects.clone(),
                record: None,
            })
        }
    }

    fn root(p: &str, v: &str) -> Root {
        Root::Reference {
            package: p.into(),
            version: v.into(),
            tag_digest: None,
        }
    }

    fn run(mem: &mut Mem, r: Root) -> Result<Graph> {
        resolve(mem, None, &|_| false, r)
    }

    fn versions(g: &Graph) -> Vec<String> {
        g.packages
            .iter()
            .map(|p| label(&p.package, &p.version))
            .collect()
    }

    #[test]
    fn highest_version_satisfying_every_constraint_in_install_order() {
        let mut m = Mem::default();
        m.add(
            "r/app",
            "v1.0.0",
            vec![dep("r/db", "^1.1"), dep("r/net", ">=v2.0.0")],
        );
        for t in ["v1.0.0", "v1.1.0", "v1.4.2", "v2.0.0"] {
            m.add("r/db", t, vec![dep("r/net", "~2.1")]);
        }
        for t in ["v2.0.5", "v2.1.0", "v2.1.7", "v2.2.0", "latest"] {
            m.add("r/net", t, vec![]);
        }
        let g = run(&mut m, root("r/app", "v1.0.0")).unwrap();
        assert_eq!(
            versions(&g),
            ["r/net:v2.1.7", "r/db:v1.4.2", "r/app:v1.0.0"]
        );
        let j = g.to_json();
        assert_eq!(j["order"], json!(["r/net", "r/db", "r/app"]));
        assert_eq!(
            j["packages"][2]["dependsOn"],
            json!([{"package": "r/db", "kind": "Provider", "constraint": "^1.1", "version": "v1.4.2"},
                {"package": "r/net", "kind": "Provider", "constraint": ">=v2.0.0", "version": "v2.1.7"}])
        );
        assert_eq!(
            g.to_tree(),
            "r/app:v1.0.0 (Configuration) sha256:5v100\n\
             ├── r/db:v1.4.2 (Configuration) for ^1.1 sha256:4v142\n\
             │   └── r/net:v2.1.7 (Configuration) for ~2.1 sha256:5v217\n\
             └── r/net:v2.1.7 (Configuration) for >=v2.0.0 sha256:5v217\n"
        );
        // The highest tag of the root when none is given.
        let g = run(&mut m, Root::Latest("r/db".into())).unwrap();
        assert_eq!(versions(&g), ["r/net:v2.1.7", "r/db:v2.0.0"]);
    }

    #[test]
    fn a_newer_dependency_drops_the_constraints_of_the_older_one() {
        // db v2 needs net <2; db v1 (first seen under ">=1") would need net 3. The settled
        // graph must not carry db v1's constraint.
        let mut m = Mem::default();
        m.add(
            "r/app",
            "v1",
            vec![dep("r/db", ">=1.0.0"), dep("r/cache", "*")],
        );
        m.add("r/cache", "v1.0.0", vec![dep("r/db", ">=2.0.0")]);
        m.add("r/db", "v1.0.0", vec![dep("r/net", "^3")]);
        m.add("r/db", "v2.0.0", vec![dep("r/net", "<2")]);
        m.add("r/net", "v1.5.0", vec![]);
        m.add("r/net", "v3.0.0", vec![]);
        let g = run(&mut m, root("r/app", "v1")).unwrap();
        assert_eq!(
            versions(&g),
            ["r/net:v1.5.0", "r/db:v2.0.0", "r/cache:v1.0.0", "r/app:v1"]
        );
    }

    #[test]
    fn conflicts_name_both_dependents_and_constraints() {
        let mut m = Mem::default();
        m.add("r/app", "v1", vec![dep("r/db", "^1"), dep("r/web", "*")]);
        m.add("r/web", "v1.0.0", vec![dep("r/db", ">=2.0.0")]);
        m.add("r/db", "v1.2.0", vec![]);
        m.add("r/db", "v2.0.0", vec![]);
        let e = run(&mut m, root("r/app", "v1")).unwrap_err().to_string();
        assert_eq!(
            e,
            "conflicting requirements on r/db: r/app:v1 requires ^1 and r/web:v1.0.0 requires >=2.0.0; no version satisfies both (tags: v1.2.0, v2.0.0)"
        );
    }

    #[test]
    fn cycles_name_the_cycle() {
        let mut m = Mem::default();
        m.add("r/a", "v1.0.0", vec![dep("r/b", "*")]);
        m.add("r/b", "v1.0.0", vec![dep("r/c", "*")]);
        m.add("r/c", "v1.0.0", vec![dep("r/b", "1.0.0")]);
        let e = run(&mut m, root("r/a", "v1.0.0")).unwrap_err().to_string();
        assert_eq!(
            e,
            "dependency cycle: r/b:v1.0.0 -> r/c:v1.0.0 -> r/b:v1.0.0"
        );
        m.add("r/c", "v1.0.0", vec![dep("r/a", "*")]);
        let e = run(&mut m, root("r/a", "v1.0.0")).unwrap_err().to_string();
        assert_eq!(
            e,
            "dependency cycle: r/a:v1.0.0 -> r/b:v1.0.0 -> r/c:v1.0.0 -> r/a:v1.0.0"
        );
    }

    #[test]
    fn missing_packages_and_tags_name_who_asked() {
        let mut m = Mem::default();
        m.add("r/app", "v1", vec![dep("r/db", ">=3.0.0")]);
        m.add("r/db", "v1.0.0", vec![]);
        let e = run(&mut m, root("r/app", "v1")).unwrap_err().to_string();
        assert_eq!(
            e,
            "no version of r/db satisfies >=3.0.0 (required by r/app:v1); tags: v1.0.0"
        );
        m.add("r/app", "v1", vec![dep("r/gone", "*")]);
        let e = format!("{:#}", run(&mut m, root("r/app", "v1")).unwrap_err());
        assert_eq!(
            e,
            "package r/gone (required by r/app:v1): repository not found"
        );
        let e = format!("{:#}", run(&mut m, root("r/app", "v9")).unwrap_err());
        assert_eq!(
            e,
            "r/app:v9 (required by the command line): manifest unknown"
        );
    }

    #[test]
    fn digests_pin_an_image() {
        let mut m = Mem::default();
        m.add("r/db", "v1.0.0", vec![]);
        m.add("r/db", "v2.0.0", vec![]);
        m.add("r/app", "v1", vec![dep("r/db", "sha256:4v100")]);
        let g = run(&mut m, root("r/app", "v1")).unwrap();
        assert_eq!(versions(&g), ["r/db@sha256:4v100", "r/app:v1"]);
        m.add("r/app", "v2", vec![dep("r/db", "sha256:4v999")]);
        let e = format!("{:#}", run(&mut m, root("r/app", "v2")).unwrap_err());
        assert_eq!(
            e,
            "r/db@sha256:4v999 (required by r/app:v2): manifest unknown"
        );
        // A tag and a digest together must agree.
        let pinned = Root::Reference {
            package: "r/db".into(),
            version: "sha256:4v100".into(),
            tag_digest: Some(("v2.0.0".into(), "sha256:4v100".into())),
        };
        let e = run(&mut m, pinned).unwrap_err().to_string();
        assert_eq!(
            e,
            "digest mismatch: r/db:v2.0.0 is sha256:4v200, not the pinned sha256:4v100"
        );
        // A digest and a different requirement on the same package conflict.
        m.add(
            "r/app",
            "v3",
            vec![dep("r/db", "sha256:4v100"), dep("r/web", "*")],
        );
        m.add("r/web", "v1.0.0", vec![dep("r/db", "^2")]);
        let e = run(&mut m, root("r/app", "v3")).unwrap_err().to_string();
        assert_eq!(
            e,
            "conflicting requirements on r/db: r/app:v3 requires sha256:4v100 and r/web:v1.0.0 requires ^2"
        );
    }

    #[test]
    fn crd_dependencies_through_the_index() {
        let crd = |group: &str, kind: &str| {
            json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "metadata": {"name": format!("{}s.{group}", kind.to_lowercase())},
                "spec": {"group": group, "names": {"kind": kind, "plural": format!("{}s", kind.to_lowercase())},
                    "versions": [{"name": "v1"}]}})
        };
        let mut m = Mem::default();
        m.add_objects(
            "r/storage",
            "v1.0.0",
            vec![],
            vec![crd("storage.example.org", "Bucket")],
        );
        m.add_objects(
            "r/storage",
            "v1.1.0",
            vec![],
            vec![crd("storage.example.org", "Bucket")],
        );
        m.add_objects(
            "r/queue",
            "v0.1.0",
            vec![],
            vec![crd("queue.example.org", "Queue")],
        );
        m.add(
            "r/app",
            "v1",
            vec![
                Need::Crd("buckets.storage.example.org/v1".into()),
                Need::Crd("*.queue.example.org/v1".into()),
            ],
        );
        let mut entries = Vec::new();
        for (p, v) in [
            ("r/storage", "v1.0.0"),
            ("r/storage", "v1.1.0"),
            ("r/queue", "v0.1.0"),
        ] {
            entries.push(Entry::of(p, v, &m.fetch(p, v).unwrap()));
        }
        let index = Index::new(entries);
        let g = resolve(&mut m, Some(&index), &|_| false, root("r/app", "v1")).unwrap();
        assert_eq!(
            versions(&g),
            ["r/storage:v1.1.0", "r/queue:v0.1.0", "r/app:v1"]
        );
        // What the cluster has needs no package.
        let g = resolve(
            &mut m,
            Some(&index),
            &|c| c.contains("queue"),
            root("r/app", "v1"),
        )
        .unwrap();
        assert_eq!(versions(&g), ["r/storage:v1.1.0", "r/app:v1"]);
        // A CRD as the root.
        let g = resolve(
            &mut m,
            Some(&index),
            &|_| false,
            Root::Crd("Bucket.storage.example.org/v1".into()),
        )
        .unwrap();
        assert_eq!(versions(&g), ["r/storage:v1.1.0"]);
        let e = run(&mut m, root("r/app", "v1")).unwrap_err().to_string();
        assert!(e.starts_with("r/app:v1 requires CRD buckets.storage.example.org/v1: resolving CRD dependencies needs an index"), "{e}");
        m.add(
            "r/app",
            "v2",
            vec![Need::Crd("tables.db.example.org/v1".into())],
        );
        let e = resolve(&mut m, Some(&index), &|_| false, root("r/app", "v2"))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "no package in the index provides CRD tables.db.example.org/v1 (required by r/app:v2)"
        );
    }

    #[test]
    fn depends_on_entries() {
        let v: Value = serde_json::from_str(
            r#"[
            {"provider": "r/p", "version": ">=v1"},
            {"configuration": "r/c"},
            {"function": "r/f@sha256:abc"},
            {"package": "r/x", "kind": "Provider", "version": "1.0.0"},
            {"crd": "*.example.org/v1"}]"#,
        )
        .unwrap();
        let needs = needs_of(Some(&v), "meta").unwrap();
        assert_eq!(needs[0], dep("r/p", ">=v1"));
        assert_eq!(
            needs[1],
            Need::Package {
                package: "r/c".into(),
                kind: Some("Configuration".into()),
                version: "*".into()
            }
        );
        assert_eq!(
            needs[2],
            Need::Package {
                package: "r/f".into(),
                kind: Some("Function".into()),
                version: "sha256:abc".into()
            }
        );
        assert_eq!(needs[3], dep("r/x", "1.0.0"));
        assert_eq!(needs[4], Need::Crd("*.example.org/v1".into()));
        let bad: Value = serde_json::from_str(r#"[{"provider": "a", "function": "b"}]"#).unwrap();
        assert!(
            needs_of(Some(&bad), "meta")
                .unwrap_err()
                .to_string()
                .contains("dependsOn[0] must name exactly one")
        );
        let tagged: Value = serde_json::from_str(r#"[{"provider": "r.io/a:v1"}]"#).unwrap();
        assert!(
            needs_of(Some(&tagged), "meta")
                .unwrap_err()
                .to_string()
                .contains("with a tag")
        );
    }
}
