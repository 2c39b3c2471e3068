//! Installing resolved packages into a cluster.
//!
//! Direct mode does the package manager's job itself: every package of the graph in install
//! order, its objects server-side applied (CRDs first, waited for until Established, then XRDs,
//! Compositions and the rest), each labelled with the package that owns it, and what was
//! installed recorded in a `pkg.crossplane.io/v1beta1` Lock-shaped record. Objects that already
//! hold what the package ships are not written, so a re-install writes nothing.
//!
//! Default mode writes the `pkg.crossplane.io/v1` package objects a cluster running Crossplane
//! acts on.

use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, anyhow, bail};
use kube::api::{DeleteParams, Patch, PatchParams};
use serde_json::{Map, Value, json};

use super::deps::{Graph, Need, Resolved, is_digest};
use crate::cluster::apply::FIELD_MANAGER;
use crate::cluster::client::{Kind, Op, Session};

/// The label naming the package that owns an object.
pub(crate) const PACKAGE_LABEL: &str = "pkg.crossplane.io/package";
pub(crate) const LOCK_API_VERSION: &str = "pkg.crossplane.io/v1beta1";
pub(crate) const LOCK_KIND: &str = "Lock";
/// The record direct installs keep (Crossplane's own Lock is named `lock`).
pub(crate) const LOCK_NAME: &str = "xprender";
const CRD_API_VERSION: &str = "apiextensions.k8s.io/v1";

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Action {
    Create,
    Update,
    Unchanged,
    Delete,
}

impl Action {
    fn done(self, dry_run: bool) -> &'static str {
        match (self, dry_run) {
            (Action::Create, false) => "created",
            (Action::Create, true) => "would create",
            (Action::Update, false) => "updated",
            (Action::Update, true) => "would update",
            (Action::Delete, false) => "deleted",
            (Action::Delete, true) => "would delete",
            (Action::Unchanged, _) => "unchanged",
        }
    }
}

/// One object of a package and what happens to it.
#[derive(Debug, Clone)]
pub(crate) struct Step {
    pub(crate) action: Action,
    pub(crate) object: Value,
    kind: Kind,
}

impl Step {
    fn id(&self) -> (String, String, String) {
        ids(&self.object)
    }
}

fn ids(o: &Value) -> (String, String, String) {
    let s = |p: &str| {
        o.pointer(p)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    (s("/apiVersion"), s("/kind"), s("/metadata/name"))
}

/// One package's installation plan.
#[derive(Debug, Clone)]
pub(crate) struct PackagePlan {
    pub(crate) name: String,
    pub(crate) package: String,
    pub(crate) version: String,
    pub(crate) digest: String,
    pub(crate) kind: String,
    pub(crate) steps: Vec<Step>,
    /// The Lock entry after the install; `None` when it is unchanged.
    entry: Value,
    entry_changed: bool,
}

/// What an install did (or would do).
#[derive(Debug)]
pub(crate) struct Report {
    pub(crate) mode: &'static str,
    pub(crate) dry_run: bool,
    pub(crate) packages: Vec<PackagePlan>,
    /// Default mode: the package objects written.
    pub(crate) written: Vec<(Action, Value)>,
}

impl Report {
    pub(crate) fn to_json(&self) -> Value {
        let packages: Vec<Value> = self
            .packages
            .iter()
            .map(|p| {
                let objects: Vec<Value> = p
                    .steps
                    .iter()
                    .map(|s| {
                        let (av, k, n) = s.id();
                        json!({"action": s.action, "apiVersion": av, "kind": k, "name": n})
                    })
                    .collect();
                json!({"name": p.name, "package": p.package, "version": p.version,
                    "digest": p.digest, "kind": p.kind, "objects": objects,
                    "recordChanged": p.entry_changed})
            })
            .collect();
        let written: Vec<Value> = self
            .written
            .iter()
            .map(|(a, o)| {
                let (av, k, n) = ids(o);
                json!({"action": a, "apiVersion": av, "kind": k, "name": n, "spec": o["spec"]})
            })
            .collect();
        let mut out = json!({"mode": self.mode, "dryRun": self.dry_run});
        if self.mode == "direct" {
            out["packages"] = Value::Array(packages);
        } else {
            out["objects"] = Value::Array(written);
        }
        out
    }

    pub(crate) fn to_text(&self) -> String {
        let mut out = String::new();
        for p in &self.packages {
            let changed = p.steps.iter().any(|s| s.action != Action::Unchanged);
            out.push_str(&format!(
                "{} {} ({} {}): {}\n",
                p.kind,
                p.name,
                p.package,
                p.version,
                if changed || p.entry_changed {
                    if self.dry_run {
                        "would change"
                    } else {
                        "installed"
                    }
                } else {
                    "unchanged"
                }
            ));
            for s in p.steps.iter().filter(|s| s.action != Action::Unchanged) {
                let (_, k, n) = s.id();
                out.push_str(&format!("  {} {k} {n}\n", s.action.done(self.dry_run)));
            }
        }
        for (a, o) in &self.written {
            let (_, k, n) = ids(o);
            let pkg = o
                .pointer("/spec/package")
                .and_then(Value::as_str)
                .unwrap_or("");
            out.push_str(&format!("{} {k} {n} ({pkg})\n", a.done(self.dry_run)));
        }
        if self.dry_run {
            out.push_str(
                "Dry run: the cluster was not changed; run again with --yes to install.\n",
            );
        }
        out
    }
}

/// Install phases: CRDs, XRDs, Compositions, everything else.
fn phase(o: &Value) -> u8 {
    match o.get("kind").and_then(Value::as_str) {
        Some("CustomResourceDefinition") => 0,
        Some("CompositeResourceDefinition") => 1,
        Some("Composition") => 2,
        _ => 3,
    }
}

/// Does `live` already hold everything `desired` says? (Servers add defaults and status, so
/// the desired object need only be contained.)
fn contains(live: &Value, desired: &Value) -> bool {
    match (live, desired) {
        (Value::Object(l), Value::Object(d)) => d
            .iter()
            .all(|(k, dv)| l.get(k).is_some_and(|lv| contains(lv, dv)) || dv.is_null()),
        (Value::Array(l), Value::Array(d)) => {
            l.len() == d.len() && l.iter().zip(d).all(|(lv, dv)| contains(lv, dv))
        }
        (Value::Number(l), Value::Number(d)) => l.as_f64() == d.as_f64(),
        _ => live == desired,
    }
}

fn owner_of(live: &Value) -> Option<&str> {
    live.pointer(&format!(
        "/metadata/labels/{}",
        PACKAGE_LABEL.replace('/', "~1")
    ))
    .and_then(Value::as_str)
}

/// The object as the package owns it: labelled, without server-owned fields.
fn owned(object: &Value, name: &str) -> Value {
    let mut o = object.clone();
    if let Some(m) = o.as_object_mut() {
        m.remove("status");
        let meta = m.entry("metadata").or_insert_with(|| json!({}));
        if let Some(meta) = meta.as_object_mut() {
            for k in [
                "resourceVersion",
                "uid",
                "creationTimestamp",
                "generation",
                "managedFields",
            ] {
                meta.remove(k);
            }
            let labels = meta.entry("labels").or_insert_with(|| json!({}));
            if let Some(l) = labels.as_object_mut() {
                l.insert(PACKAGE_LABEL.into(), json!(name));
            }
        }
    }
    o
}

/// The Lock-shaped record's package entry.
fn entry_for(r: &Resolved, graph: &Graph) -> Value {
    let deps: Vec<Value> = r
        .depends_on
        .iter()
        .map(|(need, dep)| {
            let d = graph.get(dep);
            let mut v = json!({"package": dep, "type": d.map(|d| d.fetched.kind.clone())});
            match need {
                Need::Package { version, .. } => v["constraints"] = json!(version),
                Need::Crd(crd) => v["crd"] = json!(crd),
            }
            if let Some(d) = d {
                v["version"] = json!(d.version);
            }
            v
        })
        .collect();
    let objects: Vec<Value> = r
        .fetched
        .objects
        .iter()
        .map(|o| {
            let (av, k, n) = ids(o);
            json!({"apiVersion": av, "kind": k, "name": n})
        })
        .collect();
    let mut e = json!({
        "name": r.fetched.name,
        "type": r.fetched.kind,
        "source": r.package,
        "version": r.version,
        "digest": r.fetched.digest,
        "dependencies": deps,
        "objects": objects,
    });
    if let Some(record) = &r.fetched.record {
        e["record"] = record.clone();
    }
    e
}

/// The Lock kind's CRD, for clusters without Crossplane: cluster-scoped, schemaless packages.
fn lock_crd() -> Value {
    json!({
        "apiVersion": CRD_API_VERSION, "kind": "CustomResourceDefinition",
        "metadata": {"name": "locks.pkg.crossplane.io", "labels": {"app.kubernetes.io/managed-by": FIELD_MANAGER}},
        "spec": {"group": "pkg.crossplane.io", "scope": "Cluster",
            "names": {"kind": "Lock", "listKind": "LockList", "plural": "locks", "singular": "lock"},
            "versions": [{"name": "v1beta1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}
    })
}

async fn apply(session: &mut Session, kind: &Kind, object: &Value) -> Result<()> {
    let (_, _, name) = ids(object);
    let api = session.api(kind, None);
    let params = PatchParams {
        force: true,
        field_manager: Some(FIELD_MANAGER.into()),
        ..PatchParams::default()
    };
    let op = Op {
        verb: "apply",
        kind,
        namespace: None,
        name: Some(&name),
    };
    session
        .call(&op, api.patch(&name, &params, &Patch::Apply(object)))
        .await?;
    Ok(())
}

async fn delete(session: &mut Session, kind: &Kind, name: &str) -> Result<()> {
    let api = session.api(kind, None);
    let op = Op {
        verb: "delete",
        kind,
        namespace: None,
        name: Some(name),
    };
    session
        .call_opt(&op, api.delete(name, &DeleteParams::default()))
        .await?;
    Ok(())
}

async fn wait_established(session: &mut Session, kind: &Kind, name: &str) -> Result<()> {
    let deadline = Instant::now() + session.timeout.max(Duration::from_secs(30));
    loop {
        if let Some(crd) = session.get(kind, None, name).await? {
            let ok = crd
                .pointer("/status/conditions")
                .and_then(Value::as_array)
                .is_some_and(|cs| {
                    cs.iter()
                        .any(|c| c["type"] == "Established" && c["status"] == "True")
                });
            if ok {
                return Ok(());
            }
        }
        if Instant::now() > deadline {
            bail!("CustomResourceDefinition {name} did not become Established");
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The record of direct installs: its packages, or none when the Lock kind is not served.
pub(crate) async fn read_lock(session: &mut Session) -> Result<Option<Vec<Value>>> {
    let Ok(kind) = session.kind(LOCK_API_VERSION, LOCK_KIND).await else {
        return Ok(None);
    };
    Ok(Some(
        session
            .get(&kind, None, LOCK_NAME)
            .await?
            .and_then(|l| l.get("packages").and_then(Value::as_array).cloned())
            .unwrap_or_default(),
    ))
}

async fn write_lock(session: &mut Session, packages: Vec<Value>) -> Result<()> {
    let kind = match session.kind(LOCK_API_VERSION, LOCK_KIND).await {
        Ok(k) => k,
        Err(_) => {
            let crd_kind = session
                .kind(CRD_API_VERSION, "CustomResourceDefinition")
                .await?;
            apply(session, &crd_kind, &lock_crd()).await?;
            wait_established(session, &crd_kind, "locks.pkg.crossplane.io").await?;
            let deadline = Instant::now() + Duration::from_secs(30);
            loop {
                match session.kind(LOCK_API_VERSION, LOCK_KIND).await {
                    Ok(k) => break k,
                    Err(e) if Instant::now() > deadline => return Err(e),
                    Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
                }
            }
        }
    };
    let lock = json!({"apiVersion": LOCK_API_VERSION, "kind": LOCK_KIND,
        "metadata": {"name": LOCK_NAME, "labels": {"app.kubernetes.io/managed-by": FIELD_MANAGER}},
        "packages": packages});
    apply(session, &kind, &lock).await
}

fn find_entry<'a>(lock: &'a [Value], name: &str) -> Option<&'a Value> {
    lock.iter().find(|e| e["name"] == name)
}

/// Plans every package (reads only), refusing conflicts before anything is written.
async fn plan(session: &mut Session, graph: &Graph, lock: &[Value]) -> Result<Vec<PackagePlan>> {
    let mut plans = Vec::new();
    for r in &graph.packages {
        let name = &r.fetched.name;
        if name.is_empty() {
            bail!("{} has no name to install it as", r.package);
        }
        let old = find_entry(lock, name);
        if let Some(old) = old
            && old["source"] != r.package.as_str()
        {
            bail!(
                "cannot install {}: a package named {name} from {} is already installed",
                r.package,
                old["source"].as_str().unwrap_or("?")
            );
        }
        let mut objects: Vec<Value> = r.fetched.objects.iter().map(|o| owned(o, name)).collect();
        objects.sort_by_key(phase);
        let mut steps = Vec::new();
        for o in objects {
            let (av, k, n) = ids(&o);
            let kind = session
                .kind(&av, &k)
                .await
                .with_context(|| format!("{} {}: cannot install {k} {n}", r.package, r.version))?;
            let live = session.get(&kind, None, &n).await?;
            let action = match &live {
                None => Action::Create,
                Some(live) => {
                    match owner_of(live) {
                        Some(owner) if owner == name => {}
                        Some(owner) => bail!(
                            "conflict: {k} {n} of {} belongs to package {owner}",
                            r.package
                        ),
                        None => bail!(
                            "conflict: {k} {n} of {} already exists and belongs to no package",
                            r.package
                        ),
                    }
                    if contains(live, &o) {
                        Action::Unchanged
                    } else {
                        Action::Update
                    }
                }
            };
            steps.push(Step {
                action,
                object: o,
                kind,
            });
        }
        // What the installed version shipped and this one does not.
        let kept: Vec<(String, String, String)> = steps.iter().map(Step::id).collect();
        let dropped: Vec<&Value> = old
            .and_then(|o| o["objects"].as_array())
            .map(|objs| {
                objs.iter()
                    .filter(|o| {
                        let id = ids(&json!({"apiVersion": o["apiVersion"], "kind": o["kind"], "metadata": {"name": o["name"]}}));
                        !kept.contains(&id)
                    })
                    .collect()
            })
            .unwrap_or_default();
        for d in dropped {
            let av = d["apiVersion"].as_str().unwrap_or_default();
            let k = d["kind"].as_str().unwrap_or_default();
            let n = d["name"].as_str().unwrap_or_default();
            let Ok(kind) = session.kind(av, k).await else {
                continue;
            };
            let Some(live) = session.get(&kind, None, n).await? else {
                continue;
            };
            if owner_of(&live) != Some(name.as_str()) {
                continue;
            }
            steps.push(Step {
                action: Action::Delete,
                object: json!({"apiVersion": av, "kind": k, "metadata": {"name": n}}),
                kind,
            });
        }
        let entry = entry_for(r, graph);
        plans.push(PackagePlan {
            name: name.clone(),
            package: r.package.clone(),
            version: r.version.clone(),
            digest: r.fetched.digest.clone(),
            kind: r.fetched.kind.clone(),
            steps,
            entry_changed: old != Some(&entry),
            entry,
        });
    }
    Ok(plans)
}

/// Direct mode: plans, then (unless a dry run) applies in order and records the result.
pub(crate) async fn install_direct(
    session: &mut Session,
    graph: &Graph,
    dry_run: bool,
    progress: &indicatif::ProgressBar,
) -> Result<Report> {
    progress.set_message("reading the cluster");
    let lock = read_lock(session).await?.unwrap_or_default();
    let plans = plan(session, graph, &lock).await?;
    if !dry_run {
        for p in &plans {
            for s in &p.steps {
                let (_, k, n) = s.id();
                match s.action {
                    Action::Unchanged => {}
                    Action::Create | Action::Update => {
                        progress.set_message(format!("{} {}: applying {k} {n}", p.name, p.version));
                        apply(session, &s.kind, &s.object).await?;
                    }
                    Action::Delete => {
                        progress.set_message(format!("{} {}: deleting {k} {n}", p.name, p.version));
                        delete(session, &s.kind, &n).await?;
                    }
                }
                if k == "CustomResourceDefinition" && s.action != Action::Delete {
                    wait_established(session, &s.kind, &n).await?;
                }
            }
        }
        if plans.iter().any(|p| p.entry_changed) {
            let mut packages = lock.clone();
            for p in plans.iter().filter(|p| p.entry_changed) {
                match packages.iter_mut().find(|e| e["name"] == p.name.as_str()) {
                    Some(e) => *e = p.entry.clone(),
                    None => packages.push(p.entry.clone()),
                }
            }
            progress.set_message("recording the installed packages");
            write_lock(session, packages).await?;
        }
    }
    Ok(Report {
        mode: "direct",
        dry_run,
        packages: plans,
        written: vec![],
    })
}

/// Direct-mode uninstall: refused while an installed package depends on it.
pub(crate) async fn uninstall(session: &mut Session, name: &str, dry_run: bool) -> Result<Report> {
    let lock = read_lock(session).await?.unwrap_or_default();
    let Some(entry) = find_entry(&lock, name).cloned() else {
        let names: Vec<&str> = lock.iter().filter_map(|e| e["name"].as_str()).collect();
        bail!(
            "package {name} is not installed{}",
            if names.is_empty() {
                String::new()
            } else {
                format!(" (installed: {})", names.join(", "))
            }
        );
    };
    let source = entry["source"].as_str().unwrap_or_default();
    for other in &lock {
        if other["name"] == name {
            continue;
        }
        if let Some(d) = other["dependencies"]
            .as_array()
            .and_then(|ds| ds.iter().find(|d| d["package"] == source))
        {
            let why = d["constraints"]
                .as_str()
                .map(|c| format!("version {c}"))
                .or_else(|| d["crd"].as_str().map(|c| format!("CRD {c}")))
                .unwrap_or_default();
            bail!(
                "cannot uninstall {name}: package {} depends on it ({why})",
                other["name"].as_str().unwrap_or("?")
            );
        }
    }
    let mut objects: Vec<Value> = entry["objects"].as_array().cloned().unwrap_or_default();
    objects.sort_by_key(|o| std::cmp::Reverse(phase(o)));
    let mut steps = Vec::new();
    for o in objects {
        let av = o["apiVersion"].as_str().unwrap_or_default();
        let k = o["kind"].as_str().unwrap_or_default();
        let n = o["name"].as_str().unwrap_or_default();
        let Ok(kind) = session.kind(av, k).await else {
            continue;
        };
        let Some(live) = session.get(&kind, None, n).await? else {
            continue;
        };
        if owner_of(&live) != Some(name) {
            continue;
        }
        if !dry_run {
            delete(session, &kind, n).await?;
        }
        steps.push(Step {
            action: Action::Delete,
            object: json!({"apiVersion": av, "kind": k, "metadata": {"name": n}}),
            kind,
        });
    }
    if !dry_run {
        let rest: Vec<Value> = lock.into_iter().filter(|e| e["name"] != name).collect();
        write_lock(session, rest).await?;
    }
    Ok(Report {
        mode: "direct",
        dry_run,
        packages: vec![PackagePlan {
            name: name.to_owned(),
            package: source.to_owned(),
            version: entry["version"].as_str().unwrap_or_default().to_owned(),
            digest: entry["digest"].as_str().unwrap_or_default().to_owned(),
            kind: entry["type"].as_str().unwrap_or_default().to_owned(),
            steps,
            entry: Value::Null,
            entry_changed: true,
        }],
        written: vec![],
    })
}

/// Default mode: the `pkg.crossplane.io/v1` objects for the root (and with `resolve`, every
/// dependency, pinned, with Crossplane's own resolution switched off).
pub(crate) async fn install_objects(
    session: &mut Session,
    graph: &Graph,
    resolve: bool,
    dry_run: bool,
) -> Result<Report> {
    let mut written = Vec::new();
    for r in &graph.packages {
        if !resolve && r.package != graph.root {
            continue;
        }
        if graph.root_is_file && r.package == graph.root {
            bail!(
                "{} is a package file: Crossplane installs from a registry; push it and install the reference, or use --direct",
                r.package
            );
        }
        if r.fetched.kind == "Legacy" {
            bail!(
                "{} is a legacy package: Crossplane's package manager cannot install it; use --direct",
                r.package
            );
        }
        let reference = if is_digest(&r.version) {
            format!("{}@{}", r.package, r.version)
        } else {
            format!("{}:{}", r.package, r.version)
        };
        let mut spec = Map::new();
        spec.insert("package".into(), json!(reference));
        if resolve {
            spec.insert("skipDependencyResolution".into(), json!(true));
        }
        let object = json!({"apiVersion": "pkg.crossplane.io/v1", "kind": r.fetched.kind,
            "metadata": {"name": r.fetched.name}, "spec": spec});
        let kind = session
            .kind("pkg.crossplane.io/v1", &r.fetched.kind)
            .await
            .map_err(|e| anyhow!("{e}; is Crossplane installed? (--direct installs without it)"))?;
        let live = session.get(&kind, None, &r.fetched.name).await?;
        let action = match &live {
            None => Action::Create,
            Some(l) if contains(l, &object) => Action::Unchanged,
            Some(_) => Action::Update,
        };
        if action != Action::Unchanged {
            let api = session.api(&kind, None);
            let params = PatchParams {
                dry_run,
                force: true,
                field_manager: Some(FIELD_MANAGER.into()),
                ..PatchParams::default()
            };
            let op = Op {
                verb: "apply",
                kind: &kind,
                namespace: None,
                name: Some(&r.fetched.name),
            };
            session
                .call(
                    &op,
                    api.patch(&r.fetched.name, &params, &Patch::Apply(&object)),
                )
                .await?;
        }
        written.push((action, object));
    }
    Ok(Report {
        mode: "crossplane",
        dry_run,
        packages: vec![],
        written,
    })
}

/// Installed packages: the direct-install record and Crossplane's package objects.
pub(crate) async fn list(session: &mut Session) -> Result<Value> {
    let mut out = Vec::new();
    for e in read_lock(session).await?.unwrap_or_default() {
        let deps: Vec<Value> = e["dependencies"]
            .as_array()
            .map(|ds| {
                ds.iter()
                    .map(|d| json!({"package": d["package"], "version": d["version"]}))
                    .collect()
            })
            .unwrap_or_default();
        out.push(
            json!({"name": e["name"], "kind": e["type"], "package": e["source"],
            "version": e["version"], "digest": e["digest"], "mode": "direct", "dependsOn": deps}),
        );
    }
    for k in ["Configuration", "Provider", "Function"] {
        let Ok(kind) = session.kind("pkg.crossplane.io/v1", k).await else {
            continue;
        };
        for o in session.list(&kind, None).await? {
            let reference = o
                .pointer("/spec/package")
                .and_then(Value::as_str)
                .unwrap_or("");
            let (package, version) = split_reference(reference);
            out.push(json!({"name": o["metadata"]["name"], "kind": k, "package": package,
                "version": version,
                "digest": o.pointer("/status/resolvedPackage").cloned().unwrap_or(Value::Null),
                "mode": "crossplane",
                "skipDependencyResolution": o.pointer("/spec/skipDependencyResolution").cloned().unwrap_or(json!(false)),
                "dependsOn": []}));
        }
    }
    Ok(json!({"packages": out}))
}

fn split_reference(r: &str) -> (&str, &str) {
    if let Some((p, d)) = r.split_once('@') {
        return (p, d);
    }
    match r.rsplit_once(':') {
        Some((p, t)) if !t.contains('/') => (p, t),
        _ => (r, ""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live_objects_contain_what_the_package_ships() {
        let desired =
            json!({"spec": {"a": 1, "list": [{"x": 1}]}, "metadata": {"labels": {"p": "q"}}});
        let live = json!({"spec": {"a": 1.0, "b": 2, "list": [{"x": 1, "d": 0}]},
            "metadata": {"labels": {"p": "q", "other": "r"}, "uid": "u"}, "status": {}});
        assert!(contains(&live, &desired));
        let changed = json!({"spec": {"a": 2, "list": [{"x": 1}]}});
        assert!(!contains(&live, &changed));
        let longer = json!({"spec": {"list": [{"x": 1}, {"x": 2}]}});
        assert!(!contains(&live, &longer));
    }

    #[test]
    fn objects_are_labelled_and_phased() {
        let o = owned(
            &json!({"kind": "Composition", "metadata": {"name": "c", "uid": "x"}, "status": {}}),
            "platform",
        );
        assert_eq!(
            o,
            json!({"kind": "Composition", "metadata": {"name": "c", "labels": {"pkg.crossplane.io/package": "platform"}}})
        );
        let mut v = [
            json!({"kind": "Composition"}),
            json!({"kind": "MutatingWebhookConfiguration"}),
            json!({"kind": "CompositeResourceDefinition"}),
            json!({"kind": "CustomResourceDefinition"}),
        ];
        v.sort_by_key(phase);
        let kinds: Vec<&str> = v.iter().map(|o| o["kind"].as_str().unwrap()).collect();
        assert_eq!(
            kinds,
            [
                "CustomResourceDefinition",
                "CompositeResourceDefinition",
                "Composition",
                "MutatingWebhookConfiguration"
            ]
        );
        assert_eq!(split_reference("r.io/a/b:v1"), ("r.io/a/b", "v1"));
        assert_eq!(
            split_reference("127.0.0.1:5000/a@sha256:x"),
            ("127.0.0.1:5000/a", "sha256:x")
        );
    }
}
