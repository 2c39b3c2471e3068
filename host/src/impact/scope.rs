//! Which composites an impact analysis looks at: the XRs of the Composition's type, each with the
//! claim bound to it, narrowed by `--namespace` or `--resource` as crossplane-diff's `comp`
//! narrows them.
//!
//! A composite's namespace is its own (a v2 namespaced XR) or its claim's. `--resource` takes
//! `[namespace/]name`: a claim or namespaced XR by namespace and name, a cluster-scoped XR by its
//! bare name; each one given must name a composite.

use std::fmt;

use anyhow::bail;
use serde_json::Value;

use crate::cluster::str_at;

/// An object as reports name it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct ObjectRef {
    pub(crate) api_version: String,
    pub(crate) kind: String,
    pub(crate) namespace: Option<String>,
    pub(crate) name: String,
}

impl ObjectRef {
    pub(crate) fn of(obj: &Value) -> ObjectRef {
        ObjectRef {
            api_version: str_at(obj, "/apiVersion").into(),
            kind: str_at(obj, "/kind").into(),
            namespace: Some(str_at(obj, "/metadata/namespace"))
                .filter(|n| !n.is_empty())
                .map(Into::into),
            name: str_at(obj, "/metadata/name").into(),
        }
    }
}

impl fmt::Display for ObjectRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.namespace {
            Some(ns) => write!(f, "{} {ns}/{}", self.kind, self.name),
            None => write!(f, "{} {}", self.kind, self.name),
        }
    }
}

/// One composite: an XR with the claim bound to it, or a claim not yet bound to one.
#[derive(Debug, Clone)]
pub(crate) struct Composite {
    pub(crate) xr: Option<Value>,
    pub(crate) claim: Option<Value>,
}

impl Composite {
    /// The namespace `--namespace` compares: the XR's, else its claim's.
    fn namespace(&self) -> Option<&str> {
        fn ns(v: Option<&Value>) -> Option<&str> {
            v.map(|o| str_at(o, "/metadata/namespace"))
                .filter(|n| !n.is_empty())
        }
        ns(self.xr.as_ref()).or_else(|| ns(self.claim.as_ref()))
    }

    fn named(&self, want: &ResourceRef) -> bool {
        let is = |v: &Option<Value>| {
            v.as_ref().is_some_and(|o| {
                str_at(o, "/metadata/name") == want.name
                    && str_at(o, "/metadata/namespace") == want.namespace.as_deref().unwrap_or("")
            })
        };
        is(&self.xr) || is(&self.claim)
    }
}

/// The XRs, each with the claim whose `spec.resourceRef` names it, then the claims bound to
/// none of them. `claims` are of the XRD's claim kind.
pub(crate) fn composites(xrs: Vec<Value>, claims: Vec<Value>) -> Vec<Composite> {
    let mut out: Vec<Composite> = xrs
        .into_iter()
        .map(|xr| Composite {
            xr: Some(xr),
            claim: None,
        })
        .collect();
    for claim in claims {
        let bound = str_at(&claim, "/spec/resourceRef/name");
        let xr = out.iter_mut().find(|c| {
            c.xr.as_ref().is_some_and(|x| {
                !bound.is_empty()
                    && str_at(x, "/metadata/name") == bound
                    && str_at(x, "/kind") == str_at(&claim, "/spec/resourceRef/kind")
            })
        });
        match xr {
            Some(c) if c.claim.is_none() => c.claim = Some(claim),
            _ => out.push(Composite {
                xr: None,
                claim: Some(claim),
            }),
        }
    }
    out
}

/// `[namespace/]name` of `--resource`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ResourceRef {
    pub(crate) namespace: Option<String>,
    pub(crate) name: String,
}

impl ResourceRef {
    pub(crate) fn parse(text: &str) -> anyhow::Result<ResourceRef> {
        let (namespace, name) = match text.split_once('/') {
            Some((ns, name)) => (Some(ns), name),
            None => (None, text),
        };
        if name.is_empty() || name.contains('/') || namespace.is_some_and(str::is_empty) {
            bail!("--resource takes [NAMESPACE/]NAME, got {text:?}");
        }
        Ok(ResourceRef {
            namespace: namespace.map(Into::into),
            name: name.into(),
        })
    }
}

impl fmt::Display for ResourceRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.namespace {
            Some(ns) => write!(f, "{ns}/{}", self.name),
            None => f.write_str(&self.name),
        }
    }
}

/// What to narrow the composites to.
#[derive(Debug, Clone, Default)]
pub(crate) enum Scope {
    #[default]
    All,
    Namespace(String),
    Resources(Vec<ResourceRef>),
}

impl Scope {
    /// The composites in scope.
    ///
    /// # Errors
    /// A `--resource` that names no composite.
    pub(crate) fn narrow(&self, all: Vec<Composite>) -> anyhow::Result<Vec<Composite>> {
        match self {
            Scope::All => Ok(all),
            Scope::Namespace(ns) => Ok(all
                .into_iter()
                .filter(|c| c.namespace() == Some(ns.as_str()))
                .collect()),
            Scope::Resources(refs) => {
                if let Some(missing) = refs.iter().find(|r| !all.iter().any(|c| c.named(r))) {
                    bail!(
                        "--resource {missing}: no composite resource or claim of that {}",
                        if missing.namespace.is_some() {
                            "namespace and name"
                        } else {
                            "name (a bare name is a cluster-scoped XR)"
                        }
                    );
                }
                Ok(all
                    .into_iter()
                    .filter(|c| refs.iter().any(|r| c.named(r)))
                    .collect())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn xr(name: &str, ns: Option<&str>) -> Value {
        let mut v = json!({"apiVersion": "example.org/v1", "kind": "XDatabase", "metadata": {"name": name}});
        if let Some(ns) = ns {
            v["metadata"]["namespace"] = ns.into();
        }
        v
    }

    fn claim(name: &str, ns: &str, xr: Option<&str>) -> Value {
        let mut v = json!({"apiVersion": "example.org/v1", "kind": "Database", "metadata": {"name": name, "namespace": ns}, "spec": {}});
        if let Some(x) = xr {
            v["spec"]["resourceRef"] =
                json!({"apiVersion": "example.org/v1", "kind": "XDatabase", "name": x});
        }
        v
    }

    fn names(cs: &[Composite]) -> Vec<String> {
        cs.iter()
            .map(|c| {
                let xr = c.xr.as_ref().map_or("-", |x| str_at(x, "/metadata/name"));
                let claim = c
                    .claim
                    .as_ref()
                    .map_or("-".to_string(), |x| ObjectRef::of(x).to_string());
                format!("{xr}+{claim}")
            })
            .collect()
    }

    fn sample() -> Vec<Composite> {
        composites(
            vec![
                xr("db-1", None),
                xr("db-2", None),
                xr("ns-db", Some("team-a")),
            ],
            vec![
                claim("c1", "team-a", Some("db-1")),
                claim("pending", "team-b", None),
            ],
        )
    }

    #[test]
    fn claims_pair_with_the_xrs_they_are_bound_to() {
        assert_eq!(
            names(&sample()),
            [
                "db-1+Database team-a/c1",
                "db-2+-",
                "ns-db+-",
                "-+Database team-b/pending"
            ]
        );
    }

    #[test]
    fn a_namespace_keeps_namespaced_xrs_and_claimed_ones() {
        let s = Scope::Namespace("team-a".into());
        assert_eq!(
            names(&s.narrow(sample()).unwrap()),
            ["db-1+Database team-a/c1", "ns-db+-"]
        );
    }

    #[test]
    fn resources_name_claims_namespaced_xrs_and_bare_cluster_xrs() {
        let refs = ["team-a/c1", "db-2", "team-a/ns-db"]
            .iter()
            .map(|r| ResourceRef::parse(r).unwrap())
            .collect();
        let got = Scope::Resources(refs).narrow(sample()).unwrap();
        assert_eq!(
            names(&got),
            ["db-1+Database team-a/c1", "db-2+-", "ns-db+-"]
        );
    }

    #[test]
    fn a_resource_that_names_nothing_is_an_error() {
        let s = Scope::Resources(vec![ResourceRef::parse("team-a/db-1").unwrap()]);
        assert_eq!(
            s.narrow(sample()).unwrap_err().to_string(),
            "--resource team-a/db-1: no composite resource or claim of that namespace and name"
        );
        for bad in ["", "/x", "a/", "a/b/c"] {
            assert!(ResourceRef::parse(bad).is_err(), "{bad}");
        }
    }
}
