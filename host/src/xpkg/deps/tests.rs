//! Resolution end to end, over packages in memory.

use std::collections::BTreeMap;

use anyhow::{Result, anyhow};
use serde_json::{Value, json};

use super::index::{Entry, Index};
use super::model::label;
use super::{Catalog, Fetched, Graph, Need, Root, resolve};

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
