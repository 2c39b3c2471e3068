//! The objects a review reads, from a live cluster or from a directory of exported objects,
//! behind one type.
//!
//! - [`Objects::connect`]: a live API server. Every kind is LISTed once, across all namespaces,
//!   on first use and kept; later lookups of that kind are answered from the kept list, so a
//!   review of many XRs makes one request per kind, never one per object.
//! - [`Objects::from_dir`]: a directory (or one file) of exported objects, read recursively:
//!   `kubectl get -o yaml` output (`kind: List` with `items`), any mix of kinds,
//!   multi-document YAML and JSON files (`.yaml`, `.yml`, `.json`).
//!
//! Lookups name a kind by `apiVersion` and `kind` and match on the kind's API group and kind,
//! whatever the version: the API server serves an object at every version of its kind. A kind
//! the source does not hold (a CRD not installed) lists as empty. `metadata.managedFields` is
//! taken out of every object and kept aside ([`Objects::managed_fields`]): a review compares
//! objects without it, and reads it for what Crossplane's field manager owns.
//!
//! - [`Objects::list`]: the objects of a kind, optionally in one namespace.
//! - [`Objects::get`]: one object by kind, namespace (`None` for cluster-scoped) and name.
//!   Secrets are the exception to listing a kind: on a cluster each is read by name (GET, kept),
//!   never every Secret of the cluster.
//! - [`Objects::definitions`]: the CRDs, XRDs, Compositions, CompositionRevisions,
//!   EnvironmentConfigs and Functions a render needs.
//! - [`Objects::origin`] says which source answered; [`Objects::session`] is the live
//!   connection (for dry runs), `None` for exported objects.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use anyhow::{Context as _, bail};
use serde_json::Value;

use crate::cluster::client::{ConnectOptions, Session};
use crate::cluster::str_at;

/// Where the objects come from.
pub(crate) struct Objects {
    backend: Backend,
    /// (group, kind) → every object of the kind; filled on first use for a cluster.
    kinds: HashMap<(String, String), Vec<Value>>,
    /// Read once: a review of many XRs shares them (a cluster's CRDs alone weigh megabytes).
    definitions: Option<Rc<Definitions>>,
    /// (group, kind, namespace, name) → the object's `metadata.managedFields`.
    managed: HashMap<ObjectKey, Value>,
    /// (namespace, name) → a Secret read from a cluster (`None`: it does not exist).
    secrets: HashMap<(String, String), Option<Value>>,
    /// Namespaces whose Secrets were asked for: `true` when they were listed (a Secret not
    /// among them does not exist), `false` when they could not be (each is read by name).
    secret_namespaces: HashMap<String, bool>,
}

/// A Secret as read, with its apiVersion and kind (a typed list leaves them out) and its
/// managedFields kept aside.
fn secret_object(o: &mut Value, managed: &mut HashMap<ObjectKey, Value>) -> Value {
    if let Some(m) = o.as_object_mut() {
        m.entry("apiVersion").or_insert_with(|| "v1".into());
        m.entry("kind").or_insert_with(|| "Secret".into());
    }
    keep_managed_fields(o, managed);
    o.clone()
}

type ObjectKey = (String, String, String, String);

fn object_key(obj: &Value) -> ObjectKey {
    let (group, kind) = key_of(str_at(obj, "/apiVersion"), str_at(obj, "/kind"));
    let ns = str_at(obj, "/metadata/namespace").to_string();
    (group, kind, ns, str_at(obj, "/metadata/name").to_string())
}

enum Backend {
    Cluster(Box<Session>),
    Export(PathBuf),
}

/// The definitions a render reads, each list in the source's order.
#[derive(Debug, Clone, Default)]
pub(crate) struct Definitions {
    pub(crate) crds: Vec<Value>,
    pub(crate) xrds: Vec<Value>,
    pub(crate) compositions: Vec<Value>,
    pub(crate) revisions: Vec<Value>,
    pub(crate) environment_configs: Vec<Value>,
    pub(crate) functions: Vec<Value>,
}

/// The kinds of [`Definitions`], with the versions to discover them at on a cluster (first
/// served wins).
const CRD: (&[&str], &str) = (&["apiextensions.k8s.io/v1"], "CustomResourceDefinition");
const XRD: (&[&str], &str) = (
    &[
        "apiextensions.crossplane.io/v1",
        "apiextensions.crossplane.io/v2",
    ],
    "CompositeResourceDefinition",
);
const COMPOSITION: (&[&str], &str) = (&["apiextensions.crossplane.io/v1"], "Composition");
const REVISION: (&[&str], &str) = (&["apiextensions.crossplane.io/v1"], "CompositionRevision");
const ENVIRONMENT: (&[&str], &str) = (
    &[
        "apiextensions.crossplane.io/v1beta1",
        "apiextensions.crossplane.io/v1alpha1",
    ],
    "EnvironmentConfig",
);
const FUNCTION: (&[&str], &str) = (
    &["pkg.crossplane.io/v1", "pkg.crossplane.io/v1beta1"],
    "Function",
);

impl Objects {
    /// A live API server, reached as kubectl would (see [`ConnectOptions`]).
    pub(crate) async fn connect(opts: &ConnectOptions) -> anyhow::Result<Objects> {
        let session = Session::connect(opts).await?;
        Ok(Objects {
            backend: Backend::Cluster(Box::new(session)),
            kinds: HashMap::new(),
            definitions: None,
            managed: HashMap::new(),
            secrets: HashMap::new(),
            secret_namespaces: HashMap::new(),
        })
    }

    /// Exported objects: a file, or every YAML and JSON file under a directory.
    pub(crate) fn from_dir(path: &Path) -> anyhow::Result<Objects> {
        let mut files = Vec::new();
        collect_files(path, &mut files)?;
        files.sort();
        let mut kinds: HashMap<(String, String), Vec<Value>> = HashMap::new();
        let mut managed = HashMap::new();
        for f in &files {
            for doc in crate::io::read_docs(f)? {
                for mut obj in flatten(doc.value) {
                    keep_managed_fields(&mut obj, &mut managed);
                    let key = key_of(str_at(&obj, "/apiVersion"), str_at(&obj, "/kind"));
                    if key.1.is_empty() {
                        bail!("{}: document {} has no kind", f.display(), doc.index.max(1));
                    }
                    kinds.entry(key).or_default().push(obj);
                }
            }
        }
        Ok(Objects {
            backend: Backend::Export(path.to_path_buf()),
            kinds,
            definitions: None,
            managed,
            secrets: HashMap::new(),
            secret_namespaces: HashMap::new(),
        })
    }

    /// "the API server at URL" or "the objects exported in DIR", for messages and reports.
    pub(crate) fn origin(&self) -> String {
        match &self.backend {
            Backend::Cluster(s) => format!("the API server at {}", s.server),
            Backend::Export(p) => format!("the objects exported in {}", p.display()),
        }
    }

    /// The live connection, for requests beyond reading (dry runs); `None` for exported objects.
    pub(crate) fn session(&mut self) -> Option<&mut Session> {
        match &mut self.backend {
            Backend::Cluster(s) => Some(s),
            Backend::Export(_) => None,
        }
    }

    /// The objects of a kind (every namespace when `namespace` is `None`).
    #[allow(
        dead_code,
        reason = "part of the object source's API; reviews look objects up one by one"
    )]
    pub(crate) async fn list(
        &mut self,
        api_version: &str,
        kind: &str,
        namespace: Option<&str>,
    ) -> anyhow::Result<Vec<Value>> {
        let all = self.all(&[api_version], kind).await?;
        Ok(all
            .iter()
            .filter(|o| namespace.is_none_or(|ns| str_at(o, "/metadata/namespace") == ns))
            .cloned()
            .collect())
    }

    /// One object; `namespace` is `None` (or empty) for a cluster-scoped one.
    pub(crate) async fn get(
        &mut self,
        api_version: &str,
        kind: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> anyhow::Result<Option<Value>> {
        let ns = namespace.unwrap_or("");
        if key_of(api_version, kind) == key_of("v1", "Secret")
            && let Backend::Cluster(_) = self.backend
        {
            return self.secret(ns, name).await;
        }
        let all = self.all(&[api_version], kind).await?;
        Ok(all
            .iter()
            .find(|o| str_at(o, "/metadata/name") == name && str_at(o, "/metadata/namespace") == ns)
            .cloned())
    }

    /// A Secret of a cluster: the Secrets of its namespace are listed once (a review of many XRs
    /// reads their connection Secrets, usually all in one namespace); where the credentials may
    /// not list Secrets, each is read by name, once.
    async fn secret(&mut self, ns: &str, name: &str) -> anyhow::Result<Option<Value>> {
        let key = (ns.to_string(), name.to_string());
        if let Some(found) = self.secrets.get(&key) {
            return Ok(found.clone());
        }
        let Backend::Cluster(session) = &mut self.backend else {
            return Ok(None);
        };
        let kind = session.kind("v1", "Secret").await?;
        let namespace = Some(ns).filter(|n| !n.is_empty());
        match self.secret_namespaces.get(ns) {
            Some(true) => return Ok(None),
            Some(false) => {}
            None => {
                let api = session.api(&kind, namespace);
                let lp = kube::api::ListParams::default();
                match tokio::time::timeout(session.timeout, api.list(&lp)).await {
                    Ok(Ok(list)) => {
                        for obj in list.items {
                            let mut v = crate::cluster::client::to_json(obj)?;
                            let key = (ns.to_string(), str_at(&v, "/metadata/name").to_string());
                            let secret = secret_object(&mut v, &mut self.managed);
                            self.secrets.insert(key, Some(secret));
                        }
                        self.secret_namespaces.insert(ns.to_string(), true);
                        return Ok(self.secrets.get(&key).cloned().flatten());
                    }
                    // Not allowed to list: read each by name.
                    Ok(Err(kube::Error::Api(s))) if s.code == 403 => {
                        self.secret_namespaces.insert(ns.to_string(), false);
                    }
                    Ok(Err(e)) => bail!("cannot list the Secrets of namespace {ns:?}: {e}"),
                    Err(_) => bail!(
                        "timed out after {:?} listing the Secrets of namespace {ns:?}",
                        session.timeout
                    ),
                }
            }
        }
        let mut found = session.get(&kind, namespace, name).await?;
        if let Some(o) = &mut found {
            *o = secret_object(o, &mut self.managed);
        }
        self.secrets.insert(key, found.clone());
        Ok(found)
    }

    /// The `metadata.managedFields` of an object this source returned.
    pub(crate) fn managed_fields(&self, obj: &Value) -> Option<&Value> {
        self.managed.get(&object_key(obj))
    }

    /// The definitions a render needs.
    pub(crate) async fn definitions(&mut self) -> anyhow::Result<Rc<Definitions>> {
        if let Some(d) = &self.definitions {
            return Ok(Rc::clone(d));
        }
        let d = Rc::new(Definitions {
            crds: self.all(CRD.0, CRD.1).await?.to_vec(),
            xrds: self.all(XRD.0, XRD.1).await?.to_vec(),
            compositions: self.all(COMPOSITION.0, COMPOSITION.1).await?.to_vec(),
            revisions: self.all(REVISION.0, REVISION.1).await?.to_vec(),
            environment_configs: self.all(ENVIRONMENT.0, ENVIRONMENT.1).await?.to_vec(),
            functions: self.all(FUNCTION.0, FUNCTION.1).await?.to_vec(),
        });
        self.definitions = Some(Rc::clone(&d));
        Ok(d)
    }

    /// Every object of a kind, LISTed (at the first of `api_versions` the server serves) once.
    async fn all(&mut self, api_versions: &[&str], kind: &str) -> anyhow::Result<&[Value]> {
        let key = key_of(api_versions.first().copied().unwrap_or(""), kind);
        if !self.kinds.contains_key(&key) {
            let mut listed = Vec::new();
            if let Backend::Cluster(session) = &mut self.backend {
                for av in api_versions {
                    if let Some(k) = session.find_kind(av, kind).await? {
                        listed = session.list(&k, None).await?;
                        // A list of a built-in kind leaves out its items' apiVersion and kind.
                        for o in listed.iter_mut().filter_map(Value::as_object_mut) {
                            o.entry("apiVersion")
                                .or_insert_with(|| k.resource.api_version.clone().into());
                            o.entry("kind")
                                .or_insert_with(|| k.resource.kind.clone().into());
                        }
                        break;
                    }
                }
            }
            for o in &mut listed {
                keep_managed_fields(o, &mut self.managed);
            }
            self.kinds.insert(key.clone(), listed);
        }
        Ok(self.kinds.get(&key).map_or(&[], Vec::as_slice))
    }
}

impl Definitions {
    /// The XRD whose group and `names.kind` (or, with `claim`, `claimNames.kind`) are these.
    pub(crate) fn xrd_of(&self, api_version: &str, kind: &str, claim: bool) -> Option<&Value> {
        let group = key_of(api_version, kind).0;
        let names = if claim {
            "/spec/claimNames/kind"
        } else {
            "/spec/names/kind"
        };
        self.xrds
            .iter()
            .find(|x| str_at(x, "/spec/group") == group && str_at(x, names) == kind)
    }

    /// The CRD that defines a kind.
    pub(crate) fn crd_of(&self, api_version: &str, kind: &str) -> Option<&Value> {
        let group = key_of(api_version, kind).0;
        self.crds
            .iter()
            .find(|c| str_at(c, "/spec/group") == group && str_at(c, "/spec/names/kind") == kind)
    }
}

/// (group, kind) of an apiVersion and kind (the core group is "").
fn key_of(api_version: &str, kind: &str) -> (String, String) {
    let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
    (group.to_string(), kind.to_string())
}

/// A `List` (or `<Kind>List`) with `items` is its items; anything else is itself.
fn flatten(mut doc: Value) -> Vec<Value> {
    let is_list =
        str_at(&doc, "/kind").ends_with("List") && doc.get("items").is_some_and(Value::is_array);
    if is_list {
        match doc.get_mut("items").map(Value::take) {
            Some(Value::Array(items)) => items.into_iter().flat_map(flatten).collect(),
            _ => Vec::new(),
        }
    } else {
        vec![doc]
    }
}

/// Takes `metadata.managedFields` out of `obj` into `managed`.
fn keep_managed_fields(obj: &mut Value, managed: &mut HashMap<ObjectKey, Value>) {
    let taken = obj
        .pointer_mut("/metadata")
        .and_then(Value::as_object_mut)
        .and_then(|m| m.remove("managedFields"));
    if let Some(fields) = taken {
        managed.insert(object_key(obj), fields);
    }
}

/// The YAML and JSON files at `path`, recursively.
fn collect_files(path: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let meta =
        std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
    if !meta.is_dir() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    let entries = std::fs::read_dir(path)
        .with_context(|| format!("cannot read directory {}", path.display()))?;
    for entry in entries {
        let p = entry
            .with_context(|| format!("cannot read directory {}", path.display()))?
            .path();
        if p.is_dir() {
            collect_files(&p, out)?;
        } else if p
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| matches!(e, "yaml" | "yml" | "json"))
        {
            out.push(p);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn block_on<F: Future>(f: F) -> F::Output {
        crate::cluster::block_on(f).unwrap()
    }

    fn export() -> (tempfile::TempDir, Objects) {
        let dir = tempfile::tempdir().unwrap();
        let list = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: example.org/v1\n  kind: XNet\n  metadata:\n    name: n1\n    managedFields: [{manager: m}]\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n    namespace: team-a\n";
        std::fs::write(dir.path().join("list.yaml"), list).unwrap();
        std::fs::create_dir(dir.path().join("nested")).unwrap();
        let docs = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: team-b\n---\napiVersion: apiextensions.crossplane.io/v1\nkind: CompositeResourceDefinition\nmetadata:\n  name: xnets.example.org\nspec:\n  group: example.org\n  names: {kind: XNet}\n  claimNames: {kind: Net}\n";
        std::fs::write(dir.path().join("nested/more.yml"), docs).unwrap();
        let json = r#"{"apiVersion": "example.org/v1", "kind": "XNetList", "items": [{"apiVersion": "example.org/v1beta1", "kind": "XNet", "metadata": {"name": "n2"}}]}"#;
        std::fs::write(dir.path().join("nested/xnets.json"), json).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "not read").unwrap();
        let objects = Objects::from_dir(dir.path()).unwrap();
        (dir, objects)
    }

    #[test]
    fn exported_lists_documents_and_json_are_read_recursively() {
        let (_dir, mut objects) = export();
        let names = |v: Vec<Value>| -> Vec<String> {
            v.iter()
                .map(|o| str_at(o, "/metadata/name").to_string())
                .collect()
        };
        let xnets = block_on(objects.list("example.org/v1", "XNet", None)).unwrap();
        assert_eq!(names(xnets.clone()), ["n1", "n2"]);
        assert_eq!(
            xnets[0]["metadata"],
            json!({"name": "n1"}),
            "managedFields kept aside"
        );
        assert_eq!(
            objects.managed_fields(&xnets[0]),
            Some(&json!([{"manager": "m"}]))
        );
        assert_eq!(objects.managed_fields(&xnets[1]), None);
        let team_b = block_on(objects.list("v1", "ConfigMap", Some("team-b"))).unwrap();
        assert_eq!(team_b[0]["metadata"]["namespace"], "team-b");
        assert_eq!(
            block_on(objects.list("v1", "ConfigMap", None))
                .unwrap()
                .len(),
            2
        );
        assert!(
            block_on(objects.list("v1", "Secret", None))
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn get_matches_group_kind_namespace_and_name() {
        let (_dir, mut objects) = export();
        let got = block_on(objects.get("example.org/v1alpha1", "XNet", None, "n2")).unwrap();
        assert_eq!(got.unwrap()["apiVersion"], "example.org/v1beta1");
        let cm = block_on(objects.get("v1", "ConfigMap", Some("team-a"), "c")).unwrap();
        assert_eq!(cm.unwrap()["metadata"]["namespace"], "team-a");
        assert!(
            block_on(objects.get("v1", "ConfigMap", Some("team-c"), "c"))
                .unwrap()
                .is_none()
        );
        assert!(
            block_on(objects.get("other.org/v1", "XNet", None, "n1"))
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn definitions_find_xrds_by_kind_and_claim_kind() {
        let (_dir, mut objects) = export();
        let defs = block_on(objects.definitions()).unwrap();
        assert_eq!(defs.xrds.len(), 1);
        assert!(defs.xrd_of("example.org/v1", "XNet", false).is_some());
        assert!(defs.xrd_of("example.org/v1", "Net", true).is_some());
        assert!(defs.xrd_of("example.org/v1", "Net", false).is_none());
        assert!(defs.compositions.is_empty());
        assert!(objects.session().is_none());
        assert!(objects.origin().starts_with("the objects exported in "));
    }

    #[test]
    fn a_document_without_kind_is_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.yaml"), "metadata: {name: x}\n").unwrap();
        let e = Objects::from_dir(dir.path()).err().unwrap();
        assert!(
            e.to_string().contains("a.yaml: document 1 has no kind"),
            "{e}"
        );
    }
}
