//! Reading what the control plane holds for one XR (or claim): the XR, its XRD, the
//! Compositions and CompositionRevisions for its type, the EnvironmentConfigs, its composed
//! resources and their connection Secrets. They go to the engine as one documents request; the
//! engine chooses the Composition, the revision and the environment and pairs the observed
//! resources, by the rules every host shares.

use anyhow::{Context as _, anyhow, bail};
use serde_json::{Map, Value, json};

use super::client::{Kind, Session};
use super::{COMPOSITE_LABEL, Target, str_at};
use crate::io::{Doc, InputError, input_error, with_origins};

const CROSSPLANE_API: &str = "apiextensions.crossplane.io/v1";
const ENVIRONMENT_API: &str = "apiextensions.crossplane.io/v1alpha1";
/// The request option the CLI's `--composition-name` sets, named as the CLI names it.
const NAME_OPTION: &str = "options.compositionName";

/// Everything read from the cluster for one render.
#[derive(Debug, Clone)]
pub(crate) struct ClusterInputs {
    /// The live composite resource.
    pub(crate) xr: Value,
    /// Where each document of the request came from, by position.
    pub(crate) origins: Vec<String>,
    /// The Compositions and revisions among the documents (for the output order).
    pub(crate) compositions: Vec<Value>,
    /// The composed resources among the documents.
    pub(crate) composed: std::ops::Range<usize>,
    /// Where local Compositions came from, when they replace the cluster's.
    pub(crate) local_source: Option<String>,
    /// The documents request.
    pub(crate) request: Value,
}

/// Options of a fetch besides the connection.
#[derive(Debug, Clone, Default)]
pub(crate) struct FetchOptions {
    /// Local documents to take the Composition from instead of the cluster.
    pub(crate) candidates: Option<Candidates>,
    /// The Composition of this name: among the candidates, else the cluster's.
    pub(crate) composition_name: Option<String>,
}

/// Documents holding Compositions (a file, a directory or a package) and where they are from.
#[derive(Debug, Clone)]
pub(crate) struct Candidates {
    pub(crate) docs: Vec<Doc>,
    pub(crate) source: String,
}

/// The request's documents, each with where it came from.
#[derive(Default)]
struct Documents {
    values: Vec<Value>,
    origins: Vec<String>,
}

impl Documents {
    fn push(&mut self, value: Value, origin: impl Into<String>) {
        self.values.push(value);
        self.origins.push(origin.into());
    }

    fn push_live(&mut self, mut value: Value) {
        strip_server_fields(&mut value);
        let origin = format!(
            "the cluster's {}/{}",
            str_at(&value, "/kind"),
            str_at(&value, "/metadata/name")
        );
        self.push(value, origin);
    }

    fn contains(&self, obj: &Value) -> bool {
        self.values.iter().any(|v| identity(v) == identity(obj))
    }
}

pub(crate) async fn fetch(
    session: &mut Session,
    target: &Target,
    opts: &FetchOptions,
) -> anyhow::Result<ClusterInputs> {
    let kind = session.kind_by_name(&target.kind).await?;
    let ns = target.namespace.as_deref();
    let obj = session.get(&kind, ns, &target.name).await?.ok_or_else(|| {
        anyhow!(
            "{} {:?} not found{}",
            kind.resource.kind,
            target.name,
            in_ns(&kind, ns, session)
        )
    })?;
    let mut docs = Documents::default();

    // A claim points at its XR through spec.resourceRef.
    let (mut xr, xr_kind) = if kind.namespaced {
        let r = obj.pointer("/spec/resourceRef").ok_or_else(|| {
            anyhow!(
                "{} {:?} is namespaced but has no spec.resourceRef: not a claim bound to a composite resource",
                kind.resource.kind,
                target.name
            )
        })?;
        let (api_version, xr_kind_name, name) = (
            str_at(r, "/apiVersion"),
            str_at(r, "/kind"),
            str_at(r, "/name"),
        );
        if api_version.is_empty() || xr_kind_name.is_empty() || name.is_empty() {
            bail!(
                "claim {:?} has an incomplete spec.resourceRef: {r}",
                target.name
            );
        }
        let xr_kind = session.kind(api_version, xr_kind_name).await?;
        let xr = session.get(&xr_kind, None, name).await?.ok_or_else(|| {
            anyhow!("the claim's composite resource {xr_kind_name} {name:?} not found")
        })?;
        docs.push_live(obj);
        (xr, xr_kind)
    } else {
        (obj, kind)
    };
    strip_server_fields(&mut xr);
    docs.push_live(xr.clone());
    let xr_type = (
        str_at(&xr, "/apiVersion").to_string(),
        str_at(&xr, "/kind").to_string(),
    );

    // Local documents come first: the engine takes the first XRD for the XR's type.
    if let Some(local) = &opts.candidates {
        for d in &local.docs {
            docs.push(d.value.clone(), d.origin());
        }
    }
    if let Some(xrd) = find_xrd(session, &xr_kind).await? {
        docs.push_live(xrd);
    }
    if opts.candidates.is_none() {
        let comp_kind = session.kind(CROSSPLANE_API, "Composition").await?;
        for c in session.list(&comp_kind, None).await? {
            docs.push_live(c);
        }
        // A cluster without the revision CRD has no revisions to follow.
        if let Ok(rev_kind) = session.kind(CROSSPLANE_API, "CompositionRevision").await {
            for r in session.list(&rev_kind, None).await? {
                if composes(&r, &xr_type) {
                    docs.push_live(r);
                }
            }
        }
    }
    let compositions: Vec<Value> = docs
        .values
        .iter()
        .filter(|d| {
            matches!(str_at(d, "/kind"), "Composition" | "CompositionRevision")
                && str_at(d, "/apiVersion").starts_with("apiextensions.crossplane.io/")
        })
        .cloned()
        .collect();
    if let Ok(env_kind) = session.kind(ENVIRONMENT_API, "EnvironmentConfig").await {
        for e in session.list(&env_kind, None).await? {
            docs.push_live(e);
        }
    }
    let composed_kinds = composed_kinds(&compositions, &xr_type);
    let composed = fetch_composed(session, &xr, &composed_kinds, &mut docs).await?;

    let mut options = Map::new();
    options.insert(
        "xr".into(),
        format!("{}/{}", xr_type.1, str_at(&xr, "/metadata/name")).into(),
    );
    options.insert("environmentConfigs".into(), "selected".into());
    if opts.candidates.is_some() {
        options.insert("localCompositions".into(), true.into());
    }
    if let Some(name) = &opts.composition_name {
        options.insert("compositionName".into(), name.as_str().into());
    }
    let request = json!({"documents": docs.values, "options": options});
    Ok(ClusterInputs {
        xr,
        origins: docs.origins,
        compositions,
        composed,
        local_source: opts.candidates.as_ref().map(|c| c.source.clone()),
        request,
    })
}

impl ClusterInputs {
    /// The engine's error about the documents, with each document named by its origin.
    pub(crate) fn input_error(&self, output: &Value) -> Option<InputError> {
        let e = output.get("error")?;
        if e.get("kind").and_then(Value::as_str) != Some("InvalidRequest") {
            return None;
        }
        let message = e.get("message").and_then(Value::as_str).unwrap_or_default();
        let message =
            with_origins(message, &self.origins).replace(NAME_OPTION, "--composition-name");
        let named = self.request.pointer("/options/compositionName").is_some();
        Some(match &self.local_source {
            Some(source) if !named => {
                input_error!("{source}: {message}; pick one with --composition-name")
            }
            Some(source) => input_error!("{source}: {message}"),
            None => input_error!("{message}"),
        })
    }

    /// Warnings about composed resources the engine did not use (no annotation, or a second
    /// one for the same template).
    pub(crate) fn warnings(&self, output: &Value) -> Vec<String> {
        let mut out = Vec::new();
        for u in output
            .pointer("/inputs/unused")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let i = u
                .get("document")
                .and_then(Value::as_u64)
                .unwrap_or(u64::MAX);
            if !usize::try_from(i).is_ok_and(|i| self.composed.contains(&i)) {
                continue;
            }
            out.push(format!(
                "ignoring {}/{}: {}",
                str_at(u, "/kind"),
                str_at(u, "/name"),
                str_at(u, "/why")
            ));
        }
        out
    }

    /// The Composition (or revision) the engine chose and why, for messages.
    pub(crate) fn composition_source(&self, output: &Value) -> String {
        let name = str_at(output, "/inputs/composition");
        let reason =
            str_at(output, "/inputs/compositionReason").replace(NAME_OPTION, "--composition-name");
        let kind = self
            .compositions
            .iter()
            .find(|c| str_at(c, "/metadata/name") == name)
            .map_or("Composition", |c| str_at(c, "/kind"));
        match &self.local_source {
            Some(source) => format!("{kind} {name:?} from {source} ({reason})"),
            None => format!("{kind} {name:?} ({reason})"),
        }
    }

    /// The document the engine's `inputs` names `KIND/NAME`.
    pub(crate) fn document(&self, display: &str) -> Option<&Value> {
        self.request["documents"]
            .as_array()?
            .iter()
            .find(|d| is_named(d, display))
    }

    /// The live composed resource the engine paired with `template`.
    pub(crate) fn observed(&self, output: &Value, template: &str) -> Option<&Value> {
        let display = output
            .pointer("/inputs/observed")?
            .get(template)?
            .as_str()?;
        let docs = self.request["documents"].as_array()?;
        docs.get(self.composed.clone())?
            .iter()
            .find(|d| is_named(d, display))
    }
}

/// Whether a document is the one the engine's `inputs` names `KIND/NAME`.
fn is_named(doc: &Value, display: &str) -> bool {
    display.split_once('/') == Some((str_at(doc, "/kind"), str_at(doc, "/metadata/name")))
}

/// Whether a Composition (or revision) composes the XR's type.
fn composes(c: &Value, (api_version, kind): &(String, String)) -> bool {
    str_at(c, "/spec/compositeTypeRef/apiVersion") == api_version
        && str_at(c, "/spec/compositeTypeRef/kind") == kind
}

/// The (apiVersion, kind) of every template of the Compositions for the XR's type.
fn composed_kinds(compositions: &[Value], xr_type: &(String, String)) -> Vec<(String, String)> {
    let mut kinds: Vec<(String, String)> = compositions
        .iter()
        .filter(|c| composes(c, xr_type))
        .flat_map(templates)
        .map(|b| {
            (
                str_at(&b, "/apiVersion").to_string(),
                str_at(&b, "/kind").to_string(),
            )
        })
        .filter(|(a, k)| !a.is_empty() && !k.is_empty())
        .collect();
    kinds.sort();
    kinds.dedup();
    kinds
}

fn in_ns(kind: &Kind, ns: Option<&str>, session: &Session) -> String {
    if kind.namespaced {
        format!(
            " in namespace {:?}",
            ns.unwrap_or(&session.default_namespace)
        )
    } else {
        String::new()
    }
}

/// Drops what the server manages and a render never needs.
pub(crate) fn strip_server_fields(obj: &mut Value) {
    if let Some(m) = obj.pointer_mut("/metadata").and_then(Value::as_object_mut) {
        m.remove("managedFields");
    }
}

/// The XRD defining the XR's kind, if the cluster serves XRDs and has one.
async fn find_xrd(session: &mut Session, xr_kind: &Kind) -> anyhow::Result<Option<Value>> {
    let Ok(xrd_kind) = session
        .kind(CROSSPLANE_API, "CompositeResourceDefinition")
        .await
    else {
        return Ok(None);
    };
    let group = &xr_kind.resource.group;
    let name = format!("{}.{group}", xr_kind.resource.plural);
    // XRDs are named plural.group; fall back to a scan for unusual names.
    if let Some(x) = session.get(&xrd_kind, None, &name).await? {
        return Ok(Some(x));
    }
    let all = session.list(&xrd_kind, None).await?;
    Ok(all.into_iter().find(|x| {
        str_at(x, "/spec/group") == group && str_at(x, "/spec/names/kind") == xr_kind.resource.kind
    }))
}

/// The template bases of a classic or pipeline (patch-and-transform) Composition.
fn templates(composition: &Value) -> Vec<Value> {
    let base = |t: &Value| t.get("base").cloned().unwrap_or(Value::Null);
    if let Some(rs) = composition
        .pointer("/spec/resources")
        .and_then(Value::as_array)
    {
        return rs.iter().map(base).collect();
    }
    composition
        .pointer("/spec/pipeline")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|step| step.pointer("/input/resources").and_then(Value::as_array))
        .flatten()
        .map(base)
        .collect()
}

/// The composed resources: those in `spec.resourceRefs`, in that order (Crossplane associates
/// them in it), then those labelled `crossplane.io/composite=<xr>` of the kinds the
/// Compositions for the XR's type compose; and the connection Secrets they write.
async fn fetch_composed(
    session: &mut Session,
    xr: &Value,
    kinds: &[(String, String)],
    docs: &mut Documents,
) -> anyhow::Result<std::ops::Range<usize>> {
    let start = docs.values.len();
    let refs = xr
        .pointer("/spec/resourceRefs")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for (i, r) in refs.iter().enumerate() {
        let (av, k, name) = (
            str_at(r, "/apiVersion"),
            str_at(r, "/kind"),
            str_at(r, "/name"),
        );
        if av.is_empty() || k.is_empty() || name.is_empty() {
            continue;
        }
        let kind = session
            .kind(av, k)
            .await
            .with_context(|| format!("resource {name:?} in spec.resourceRefs[{i}]"))?;
        let ns = Some(str_at(r, "/namespace")).filter(|n| !n.is_empty());
        if let Some(obj) = session.get(&kind, ns, name).await?
            && !docs.contains(&obj)
        {
            docs.push_live(obj);
        }
    }
    let xr_name = str_at(xr, "/metadata/name");
    if !xr_name.is_empty() {
        let selector = format!("{COMPOSITE_LABEL}={xr_name}");
        for (av, k) in kinds {
            let kind = session.kind(av, k).await?;
            for obj in session.list(&kind, Some(&selector)).await? {
                if !docs.contains(&obj) {
                    docs.push_live(obj);
                }
            }
        }
    }
    let composed = start..docs.values.len();
    for i in composed.clone() {
        if let Some(secret) = connection_secret(session, &docs.values[i]).await?
            && !docs.contains(&secret)
        {
            docs.push_live(secret);
        }
    }
    Ok(composed)
}

/// apiVersion, kind, namespace, name.
type Identity = (String, String, String, String);

fn identity(obj: &Value) -> Identity {
    (
        str_at(obj, "/apiVersion").to_string(),
        str_at(obj, "/kind").to_string(),
        str_at(obj, "/metadata/namespace").to_string(),
        str_at(obj, "/metadata/name").to_string(),
    )
}

/// The Secret a composed resource writes its connection details to
/// (`spec.writeConnectionSecretToRef`), when it exists.
async fn connection_secret(session: &mut Session, obj: &Value) -> anyhow::Result<Option<Value>> {
    let Some(r) = obj.pointer("/spec/writeConnectionSecretToRef") else {
        return Ok(None);
    };
    let name = str_at(r, "/name");
    if name.is_empty() {
        return Ok(None);
    }
    let ns = Some(str_at(r, "/namespace")).filter(|n| !n.is_empty());
    let secret_kind = session.kind("v1", "Secret").await?;
    session.get(&secret_kind, ns, name).await.with_context(|| {
        format!(
            "connection Secret of {} {:?}",
            str_at(obj, "/kind"),
            str_at(obj, "/metadata/name")
        )
    })
}
