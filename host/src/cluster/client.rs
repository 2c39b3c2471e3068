//! Connecting to the API server (kubeconfig or in-cluster, as kubectl resolves them) and turning
//! client failures into errors that say what was attempted and why it failed.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context as _, anyhow};
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::discovery::Scope;
use kube::{Client, Config};
use serde_json::Value;

/// How to reach the cluster.
#[derive(Debug, Clone)]
pub(crate) struct ConnectOptions {
    /// A kubeconfig file; otherwise `$KUBECONFIG`, `~/.kube/config`, then in-cluster config.
    pub(crate) kubeconfig: Option<PathBuf>,
    /// A kubeconfig context other than the current one.
    pub(crate) context: Option<String>,
    /// The limit for each request (and for connecting).
    pub(crate) timeout: Duration,
}

/// A resolved kind: how to address it and whether it is namespaced.
#[derive(Debug, Clone)]
pub(crate) struct Kind {
    pub(crate) resource: ApiResource,
    pub(crate) namespaced: bool,
}

impl Kind {
    /// `plural.group` (or just `plural` for the core group), as RBAC and kubectl name it.
    pub(crate) fn resource_name(&self) -> String {
        if self.resource.group.is_empty() {
            self.resource.plural.clone()
        } else {
            format!("{}.{}", self.resource.plural, self.resource.group)
        }
    }
}

/// A connected client with a cache of resolved kinds.
pub(crate) struct Session {
    pub(crate) client: Client,
    pub(crate) server: String,
    pub(crate) timeout: Duration,
    pub(crate) default_namespace: String,
    kinds: HashMap<(String, String), Kind>,
}

/// What a request was doing, for error messages.
pub(crate) struct Op<'a> {
    pub(crate) verb: &'a str,
    pub(crate) kind: &'a Kind,
    pub(crate) namespace: Option<&'a str>,
    pub(crate) name: Option<&'a str>,
}

impl std::fmt::Display for Op<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.verb, self.kind.resource_name())?;
        if let Some(name) = self.name {
            write!(f, " {name:?}")?;
        }
        if let Some(ns) = self.namespace {
            write!(f, " in namespace {ns:?}")?;
        }
        Ok(())
    }
}

impl Session {
    pub(crate) async fn connect(opts: &ConnectOptions) -> anyhow::Result<Session> {
        // Two rustls providers are linked (ring here, aws-lc-rs for registries): pick one. An
        // error only means a provider is already installed.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut config = match (&opts.kubeconfig, &opts.context) {
            (Some(path), context) => {
                let kc = Kubeconfig::read_from(path)
                    .with_context(|| format!("cannot read kubeconfig {}", path.display()))?;
                let o = KubeConfigOptions {
                    context: context.clone(),
                    ..KubeConfigOptions::default()
                };
                Config::from_custom_kubeconfig(kc, &o)
                    .await
                    .with_context(|| format!("cannot use kubeconfig {}", path.display()))?
            }
            (None, Some(context)) => {
                let o = KubeConfigOptions {
                    context: Some(context.clone()),
                    ..KubeConfigOptions::default()
                };
                Config::from_kubeconfig(&o)
                    .await
                    .context("cannot load kubeconfig")?
            }
            (None, None) => Config::infer()
                .await
                .context("cannot find a kubeconfig or in-cluster configuration")?,
        };
        config.connect_timeout = Some(opts.timeout);
        config.read_timeout = Some(opts.timeout);
        config.write_timeout = Some(opts.timeout);
        let server = config.cluster_url.to_string();
        let default_namespace = config.default_namespace.clone();
        let client = Client::try_from(config).context("cannot build the Kubernetes client")?;
        Ok(Session {
            client,
            server,
            timeout: opts.timeout,
            default_namespace,
            kinds: HashMap::new(),
        })
    }

    /// Runs one request under the session's timeout, explaining failures.
    pub(crate) async fn call<T>(
        &self,
        op: &Op<'_>,
        fut: impl Future<Output = Result<T, kube::Error>>,
    ) -> anyhow::Result<T> {
        match tokio::time::timeout(self.timeout, fut).await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(explain(e, op, &self.server, self.timeout)),
            Err(_) => Err(timed_out(op, &self.server, self.timeout)),
        }
    }

    /// Like [`Session::call`], but a 404 is `Ok(None)`.
    pub(crate) async fn call_opt<T>(
        &self,
        op: &Op<'_>,
        fut: impl Future<Output = Result<T, kube::Error>>,
    ) -> anyhow::Result<Option<T>> {
        match tokio::time::timeout(self.timeout, fut).await {
            Ok(Ok(v)) => Ok(Some(v)),
            Ok(Err(kube::Error::Api(s))) if s.code == 404 => Ok(None),
            Ok(Err(e)) => Err(explain(e, op, &self.server, self.timeout)),
            Err(_) => Err(timed_out(op, &self.server, self.timeout)),
        }
    }

    /// Resolves `apiVersion` + `kind` through discovery of that one group version.
    pub(crate) async fn kind(&mut self, api_version: &str, kind: &str) -> anyhow::Result<Kind> {
        self.find_kind(api_version, kind)
            .await?
            .ok_or_else(|| missing_kind(kind, api_version))
    }

    /// Like [`Session::kind`], but a kind the server does not serve is `Ok(None)`.
    pub(crate) async fn find_kind(
        &mut self,
        api_version: &str,
        kind: &str,
    ) -> anyhow::Result<Option<Kind>> {
        let key = (api_version.to_string(), kind.to_string());
        if let Some(k) = self.kinds.get(&key) {
            return Ok(Some(k.clone()));
        }
        let (group, version) = match api_version.split_once('/') {
            Some((g, v)) => (g, v),
            None => ("", api_version),
        };
        let gvk = GroupVersionKind::gvk(group, version, kind);
        let found = tokio::time::timeout(
            self.timeout,
            kube::discovery::pinned_kind(&self.client, &gvk),
        )
        .await;
        let (resource, caps) = match found {
            Err(_) => {
                return Err(anyhow!(
                    "timed out after {:?} discovering {kind} in {api_version} at {}",
                    self.timeout,
                    self.server
                ));
            }
            Ok(Ok(found)) => found,
            Ok(Err(kube::Error::Discovery(_))) => return Ok(None),
            Ok(Err(kube::Error::Api(s))) if s.code == 404 => return Ok(None),
            Ok(Err(e)) => {
                let what = format!("discover {kind} in {api_version}");
                return Err(explain_raw(e, &what, &self.server, self.timeout));
            }
        };
        let k = Kind {
            resource,
            namespaced: caps.scope == Scope::Namespaced,
        };
        self.kinds.insert(key, k.clone());
        Ok(Some(k))
    }

    /// Resolves what a user typed (`Kind`, `plural`, `singular` or a short name, optionally
    /// `.group`, any case) against the preferred version of every group the server serves.
    /// Groups whose discovery fails (a broken aggregated API) are skipped, as kubectl does.
    pub(crate) async fn kind_by_name(&mut self, text: &str) -> anyhow::Result<Kind> {
        let what = "discover API groups";
        let groups = self.call_raw(what, self.client.list_api_groups()).await?;
        let mut versions = vec![(String::new(), "v1".to_string())];
        for g in groups.groups {
            let gv = g
                .preferred_version
                .or_else(|| g.versions.first().cloned())
                .map(|v| v.group_version);
            if let Some(gv) = gv {
                versions.push((g.name, gv));
            }
        }
        let wanted = text.to_ascii_lowercase();
        let mut matches: Vec<Kind> = Vec::new();
        let mut failed: Vec<String> = Vec::new();
        for (group, gv) in versions {
            let listed = if group.is_empty() {
                self.call_raw(what, self.client.list_core_api_resources("v1"))
                    .await
            } else {
                self.call_raw(what, self.client.list_api_group_resources(&gv))
                    .await
            };
            let Ok(list) = listed else {
                failed.push(gv);
                continue;
            };
            let version = gv.rsplit('/').next().unwrap_or(&gv).to_string();
            for r in list.resources.iter().filter(|r| !r.name.contains('/')) {
                let mut names = vec![
                    r.kind.to_ascii_lowercase(),
                    r.name.clone(),
                    r.singular_name.clone(),
                ];
                names.extend(r.short_names.clone().unwrap_or_default());
                let hit = names.iter().filter(|n| !n.is_empty()).any(|n| {
                    let n = n.to_ascii_lowercase();
                    wanted == n || (!group.is_empty() && wanted == format!("{n}.{group}"))
                });
                if hit {
                    let gvk = GroupVersionKind::gvk(&group, &version, &r.kind);
                    let resource = ApiResource::from_gvk_with_plural(&gvk, &r.name);
                    matches.push(Kind {
                        resource,
                        namespaced: r.namespaced,
                    });
                }
            }
        }
        match matches.len() {
            0 if failed.is_empty() => Err(anyhow!(
                "the API server at {} serves no kind {text:?} (is its CustomResourceDefinition installed?)",
                self.server
            )),
            0 => Err(anyhow!(
                "the API server at {} serves no kind {text:?} (is its CustomResourceDefinition installed?); discovery failed for {}",
                self.server,
                failed.join(", ")
            )),
            1 => Ok(matches.remove(0)),
            _ => {
                let names: Vec<String> = matches
                    .iter()
                    .map(|k| format!("{}.{}", k.resource.kind, k.resource.group))
                    .collect();
                Err(anyhow!(
                    "kind {text:?} is ambiguous: {}; qualify it with its group",
                    names.join(", ")
                ))
            }
        }
    }

    /// A request that is not about one kind (discovery).
    async fn call_raw<T>(
        &self,
        what: &str,
        fut: impl Future<Output = Result<T, kube::Error>>,
    ) -> anyhow::Result<T> {
        match tokio::time::timeout(self.timeout, fut).await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(explain_raw(e, what, &self.server, self.timeout)),
            Err(_) => Err(anyhow!(
                "timed out after {:?} trying to {what} at {}",
                self.timeout,
                self.server
            )),
        }
    }

    pub(crate) fn api(&self, kind: &Kind, namespace: Option<&str>) -> Api<DynamicObject> {
        match (kind.namespaced, namespace) {
            (true, Some(ns)) => Api::namespaced_with(self.client.clone(), ns, &kind.resource),
            (true, None) => Api::default_namespaced_with(self.client.clone(), &kind.resource),
            (false, _) => Api::all_with(self.client.clone(), &kind.resource),
        }
    }

    /// GET one object as JSON; `None` when it does not exist.
    pub(crate) async fn get(
        &self,
        kind: &Kind,
        namespace: Option<&str>,
        name: &str,
    ) -> anyhow::Result<Option<Value>> {
        let ns = namespace_for(kind, namespace, &self.default_namespace);
        let api = self.api(kind, ns.as_deref());
        let op = Op {
            verb: "get",
            kind,
            namespace: ns.as_deref(),
            name: Some(name),
        };
        let obj = self.call_opt(&op, api.get(name)).await?;
        obj.map(to_json).transpose()
    }

    /// LIST objects (all namespaces for namespaced kinds) matching a label selector.
    pub(crate) async fn list(
        &self,
        kind: &Kind,
        label_selector: Option<&str>,
    ) -> anyhow::Result<Vec<Value>> {
        let api: Api<DynamicObject> = Api::all_with(self.client.clone(), &kind.resource);
        let mut lp = kube::api::ListParams::default();
        if let Some(sel) = label_selector {
            lp = lp.labels(sel);
        }
        let op = Op {
            verb: "list",
            kind,
            namespace: None,
            name: None,
        };
        let list = self.call(&op, api.list(&lp)).await?;
        list.items.into_iter().map(to_json).collect()
    }
}

/// The namespace a request for `kind` goes to: none for cluster-scoped kinds.
pub(crate) fn namespace_for(kind: &Kind, namespace: Option<&str>, default: &str) -> Option<String> {
    if !kind.namespaced {
        return None;
    }
    Some(
        namespace
            .filter(|n| !n.is_empty())
            .unwrap_or(default)
            .to_string(),
    )
}

pub(crate) fn to_json(obj: DynamicObject) -> anyhow::Result<Value> {
    serde_json::to_value(obj).context("cannot encode an object from the API server as JSON")
}

fn missing_kind(kind: &str, api_version: &str) -> anyhow::Error {
    anyhow!(
        "the API server does not serve kind {kind} in {api_version} (is its CustomResourceDefinition installed?)"
    )
}

fn timed_out(op: &Op<'_>, server: &str, timeout: Duration) -> anyhow::Error {
    anyhow!("timed out after {timeout:?} trying to {op} at {server}")
}

/// Turns a client error into a message naming the request, and for RBAC denials the verb and
/// resource that were refused.
pub(crate) fn explain(
    e: kube::Error,
    op: &Op<'_>,
    server: &str,
    timeout: Duration,
) -> anyhow::Error {
    if let kube::Error::Api(s) = &e {
        match s.code {
            403 => {
                return anyhow!(
                    "forbidden: the API server's RBAC does not allow verb {:?} on resource {:?}{}{}: {}",
                    op.verb,
                    op.kind.resource_name(),
                    op.name
                        .map(|n| format!(" (name {n:?})"))
                        .unwrap_or_default(),
                    op.namespace
                        .map(|n| format!(" in namespace {n:?}"))
                        .unwrap_or_else(|| " (cluster scope)".into()),
                    s.message
                );
            }
            404 => return anyhow!("cannot {op}: not found: {}", s.message),
            _ => {}
        }
    }
    explain_raw(e, &op.to_string(), server, timeout)
}

pub(crate) fn explain_raw(
    e: kube::Error,
    what: &str,
    server: &str,
    timeout: Duration,
) -> anyhow::Error {
    match &e {
        kube::Error::Api(s) if s.code == 401 => {
            anyhow!(
                "unauthorized: the API server at {server} rejected the credentials while trying to {what}: {}",
                s.message
            )
        }
        kube::Error::Api(s) => anyhow!(
            "cannot {what}: the API server said ({} {}): {}",
            s.code,
            s.reason,
            s.message
        ),
        _ => match io_kind(&e) {
            Some(std::io::ErrorKind::TimedOut) => {
                anyhow!("timed out after {timeout:?} trying to {what} at {server}")
            }
            Some(kind) => anyhow!(
                "cannot reach the API server at {server} to {what}: {kind}: {}",
                chain(&e)
            ),
            None => anyhow!("cannot {what} at {server}: {}", chain(&e)),
        },
    }
}

/// The first I/O error kind in the source chain: refused, reset, timed out...
fn io_kind(e: &(dyn std::error::Error + 'static)) -> Option<std::io::ErrorKind> {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if let Some(io) = err.downcast_ref::<std::io::Error>() {
            return Some(io.kind());
        }
        cur = err.source();
    }
    None
}

fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts = vec![e.to_string()];
    let mut cur = e.source();
    while let Some(err) = cur {
        let s = err.to_string();
        if !parts.iter().any(|p| p.contains(&s)) {
            parts.push(s);
        }
        cur = err.source();
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube::core::Status;

    fn kind(namespaced: bool) -> Kind {
        let gvk = GroupVersionKind::gvk("example.org", "v1alpha1", "XBucket");
        Kind {
            resource: ApiResource::from_gvk_with_plural(&gvk, "xbuckets"),
            namespaced,
        }
    }

    fn api_error(code: u16, reason: &str, message: &str) -> kube::Error {
        kube::Error::Api(Status::failure(message, reason).with_code(code).boxed())
    }

    #[test]
    fn rbac_denials_name_verb_resource_and_scope() {
        let k = kind(false);
        let op = Op {
            verb: "get",
            kind: &k,
            namespace: None,
            name: Some("b"),
        };
        let e = explain(
            api_error(403, "Forbidden", "denied"),
            &op,
            "https://s",
            Duration::from_secs(1),
        );
        assert_eq!(
            e.to_string(),
            "forbidden: the API server's RBAC does not allow verb \"get\" on resource \"xbuckets.example.org\" (name \"b\") (cluster scope): denied"
        );
        let k = kind(true);
        let op = Op {
            verb: "list",
            kind: &k,
            namespace: Some("team-a"),
            name: None,
        };
        let e = explain(
            api_error(403, "Forbidden", "denied"),
            &op,
            "https://s",
            Duration::from_secs(1),
        );
        assert!(
            e.to_string().contains(
                "verb \"list\" on resource \"xbuckets.example.org\" in namespace \"team-a\""
            ),
            "{e}"
        );
    }

    #[test]
    fn other_api_errors_keep_the_servers_words() {
        let k = kind(false);
        let op = Op {
            verb: "patch",
            kind: &k,
            namespace: None,
            name: Some("b"),
        };
        let e = explain(
            api_error(401, "Unauthorized", "Unauthorized"),
            &op,
            "https://s",
            Duration::from_secs(1),
        );
        assert!(
            e.to_string()
                .starts_with("unauthorized: the API server at https://s rejected the credentials"),
            "{e}"
        );
        let e = explain(
            api_error(422, "Invalid", "spec.x: Invalid value"),
            &op,
            "https://s",
            Duration::from_secs(1),
        );
        assert_eq!(
            e.to_string(),
            "cannot patch xbuckets.example.org \"b\": the API server said (422 Invalid): spec.x: Invalid value"
        );
    }

    #[test]
    fn cluster_scoped_kinds_have_no_namespace() {
        assert_eq!(namespace_for(&kind(false), Some("x"), "default"), None);
        assert_eq!(
            namespace_for(&kind(true), None, "default").as_deref(),
            Some("default")
        );
        assert_eq!(
            namespace_for(&kind(true), Some(""), "default").as_deref(),
            Some("default")
        );
        assert_eq!(
            namespace_for(&kind(true), Some("a"), "default").as_deref(),
            Some("a")
        );
    }
}
