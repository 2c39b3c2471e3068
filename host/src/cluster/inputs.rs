//! Reading what the control plane holds for one XR (or claim): the XR, its Composition (selected
//! as Crossplane selects it), its XRD, the observed composed resources and their connection
//! Secrets; then the engine request built from them.

use std::collections::BTreeMap;

use anyhow::{Context as _, anyhow, bail};
use serde_json::{Map, Value, json};

use super::client::{Kind, Session};
use super::{COMPOSITE_LABEL, RESOURCE_NAME_ANNOTATION, Target, str_at};
use crate::io::Doc;
use crate::select;

const CROSSPLANE_API: &str = "apiextensions.crossplane.io/v1";

/// An observed composed resource with its connection details.
#[derive(Debug, Clone)]
pub(crate) struct Observed {
    /// The template (resource) name it belongs to.
    pub(crate) name: String,
    pub(crate) resource: Value,
    /// Secret data: key → base64 value.
    pub(crate) connection_details: Map<String, Value>,
}

/// Everything read from the cluster for one render.
#[derive(Debug, Clone)]
#[allow(dead_code)] // claim, composition and keys serve `render --cluster` and reports
pub(crate) struct ClusterInputs {
    /// The live composite resource.
    pub(crate) xr: Value,
    /// The claim, when the target was one.
    pub(crate) claim: Option<Value>,
    pub(crate) composition: Value,
    /// Where the Composition came from (for messages).
    pub(crate) composition_source: String,
    pub(crate) observed: Vec<Observed>,
    pub(crate) connection_secret_keys: Option<Vec<String>>,
    /// The merged data of the EnvironmentConfigs the Composition selects.
    pub(crate) environment: Option<Value>,
    /// Things a user should know (e.g. several Compositions matched a selector).
    pub(crate) warnings: Vec<String>,
    /// The engine request: `{"xr", "composition", "observed", "options"}`.
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

pub(crate) async fn fetch(
    session: &mut Session,
    target: &Target,
    opts: &FetchOptions,
) -> anyhow::Result<ClusterInputs> {
    let mut warnings = Vec::new();
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

    // A claim points at its XR through spec.resourceRef.
    let (mut xr, claim, xr_kind) = if kind.namespaced {
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
        (xr, Some(obj), xr_kind)
    } else {
        (obj, None, kind)
    };
    strip_server_fields(&mut xr);
    let xr_name = str_at(&xr, "/metadata/name").to_string();
    let xr_api_version = str_at(&xr, "/apiVersion").to_string();
    let xr_kind_name = str_at(&xr, "/kind").to_string();

    let xrd = find_xrd(session, &xr_kind).await?;
    let connection_secret_keys = xrd.as_ref().and_then(|x| {
        x.pointer("/spec/connectionSecretKeys")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|k| k.as_str().map(String::from))
                    .collect::<Vec<_>>()
            })
    });

    let (composition, composition_source) = match (&opts.candidates, &opts.composition_name) {
        (Some(local), name) => local_composition(local, &xr, xrd.as_ref(), name.as_deref())?,
        (None, Some(name)) => named_composition(session, name).await?,
        (None, None) => {
            let (c, why) = select_composition(session, &xr, xrd.as_ref(), &mut warnings).await?;
            super::revision::resolve(session, &xr, c, why, &mut warnings).await?
        }
    };
    if let Some(pinned) = super::revision::pinned(&xr)
        .filter(|_| opts.candidates.is_some() || opts.composition_name.is_some())
    {
        warnings.push(format!(
            "the XR pins CompositionRevision {pinned:?} (compositionUpdatePolicy: Manual); rendering with {composition_source} instead"
        ));
    }
    check_composite_type(&composition, &xr_api_version, &xr_kind_name)?;

    let observed = fetch_observed(session, &xr, &xr_name, &composition, &mut warnings).await?;
    let environment = super::environment::fetch(session, &composition, &xr).await?;

    let mut resources = Map::new();
    for o in &observed {
        resources.insert(
            o.name.clone(),
            json!({"resource": o.resource, "connectionDetails": o.connection_details}),
        );
    }
    let mut options = Map::new();
    if let Some(keys) = &connection_secret_keys {
        options.insert("connectionSecretKeys".into(), json!(keys));
    }
    let mut observed_doc = json!({"composite": xr, "resources": resources});
    if let Some(env) = &environment {
        observed_doc["environment"] = env.clone();
    }
    let request = json!({
        "xr": xr,
        "composition": composition,
        "observed": observed_doc,
        "options": options,
    });
    Ok(ClusterInputs {
        xr,
        claim,
        composition,
        composition_source,
        observed,
        connection_secret_keys,
        environment,
        warnings,
        request,
    })
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

/// The Composition for a live XR among local documents, chosen as for files (a package's own
/// XRD, when it has one for the XR, stands in for the cluster's).
fn local_composition(
    local: &Candidates,
    xr: &Value,
    xrd: Option<&Value>,
    name: Option<&str>,
) -> anyhow::Result<(Value, String)> {
    let live = |value: &Value, what: &str| Doc {
        value: value.clone(),
        path: format!("the cluster's {what}").into(),
        index: 1,
    };
    let xr = live(xr, "composite resource");
    let xrd = select::find_xrd(&xr, &local.docs).or_else(|| xrd.map(|x| live(x, "XRD")));
    let compositions = select::compositions(&local.docs, &local.source)?;
    let (chosen, why) = select::for_live_xr(&xr, &compositions, xrd.as_ref(), name, &local.source)?;
    let source = format!(
        "Composition {:?} from {} ({why})",
        chosen.name(),
        local.source
    );
    Ok((chosen.value, source))
}

/// The cluster's Composition called `name` (`--composition-name`).
async fn named_composition(session: &mut Session, name: &str) -> anyhow::Result<(Value, String)> {
    let comp_kind = session.kind(CROSSPLANE_API, "Composition").await?;
    let c = session
        .get(&comp_kind, None, name)
        .await?
        .ok_or_else(|| anyhow!("Composition {name:?} named by --composition-name not found"))?;
    Ok((c, format!("Composition {name:?} (--composition-name)")))
}

/// Crossplane's order: the XRD's enforced ref wins; then the XR's compositionRef; then its
/// compositionSelector; then the XRD's default ref.
async fn select_composition(
    session: &mut Session,
    xr: &Value,
    xrd: Option<&Value>,
    warnings: &mut Vec<String>,
) -> anyhow::Result<(Value, String)> {
    let comp_kind = session.kind(CROSSPLANE_API, "Composition").await?;
    let enforced = xrd
        .map(|x| str_at(x, "/spec/enforcedCompositionRef/name"))
        .filter(|n| !n.is_empty());
    let referenced = Some(str_at(xr, "/spec/compositionRef/name")).filter(|n| !n.is_empty());
    let chosen = match (enforced, referenced) {
        (Some(n), _) => Some(("the XRD's spec.enforcedCompositionRef", n.to_string())),
        (None, Some(n)) => Some(("the XR's spec.compositionRef", n.to_string())),
        (None, None) => None,
    };
    if let Some((why, name)) = chosen {
        let c = session
            .get(&comp_kind, None, &name)
            .await?
            .ok_or_else(|| anyhow!("Composition {name:?} named by {why} not found"))?;
        return Ok((c, format!("Composition {name:?} ({why})")));
    }
    if let Some(labels) = xr
        .pointer("/spec/compositionSelector/matchLabels")
        .and_then(Value::as_object)
    {
        let selector = labels
            .iter()
            .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
            .collect::<Vec<_>>()
            .join(",");
        let xr_api_version = str_at(xr, "/apiVersion");
        let xr_kind = str_at(xr, "/kind");
        let mut candidates: Vec<Value> = session
            .list(&comp_kind, Some(&selector))
            .await?
            .into_iter()
            .filter(|c| {
                str_at(c, "/spec/compositeTypeRef/apiVersion") == xr_api_version
                    && str_at(c, "/spec/compositeTypeRef/kind") == xr_kind
            })
            .collect();
        candidates.sort_by(|a, b| str_at(a, "/metadata/name").cmp(str_at(b, "/metadata/name")));
        if candidates.is_empty() {
            bail!(
                "no Composition for {xr_kind} matches the XR's spec.compositionSelector ({selector})"
            );
        }
        let c = candidates.remove(0);
        let name = str_at(&c, "/metadata/name").to_string();
        if !candidates.is_empty() {
            warnings.push(format!(
                "{} Compositions match the selector {selector}; Crossplane picks one at random, xprender uses the first by name ({name:?})",
                candidates.len() + 1
            ));
        }
        return Ok((
            c,
            format!("Composition {name:?} (spec.compositionSelector {selector})"),
        ));
    }
    if let Some(n) = xrd
        .map(|x| str_at(x, "/spec/defaultCompositionRef/name"))
        .filter(|n| !n.is_empty())
    {
        let c = session.get(&comp_kind, None, n).await?.ok_or_else(|| {
            anyhow!("Composition {n:?} named by the XRD's spec.defaultCompositionRef not found")
        })?;
        return Ok((
            c,
            format!("Composition {n:?} (the XRD's spec.defaultCompositionRef)"),
        ));
    }
    bail!(
        "the composite resource {:?} selects no Composition (no compositionRef, compositionSelector, or XRD default); pass --composition FILE, --package REF or --composition-name NAME",
        str_at(xr, "/metadata/name")
    )
}

fn check_composite_type(composition: &Value, api_version: &str, kind: &str) -> anyhow::Result<()> {
    let (ca, ck) = (
        str_at(composition, "/spec/compositeTypeRef/apiVersion"),
        str_at(composition, "/spec/compositeTypeRef/kind"),
    );
    if (ca, ck) != (api_version, kind) {
        bail!(
            "Composition {:?} composes {ck} in {ca}, not the composite resource's {kind} in {api_version}",
            str_at(composition, "/metadata/name")
        );
    }
    Ok(())
}

/// The template names and bases of a classic or pipeline (patch-and-transform) Composition.
fn templates(composition: &Value) -> Vec<(Option<String>, Value)> {
    let one = |t: &Value| {
        (
            t.get("name").and_then(Value::as_str).map(String::from),
            t.get("base").cloned().unwrap_or(Value::Null),
        )
    };
    if let Some(rs) = composition
        .pointer("/spec/resources")
        .and_then(Value::as_array)
    {
        return rs.iter().map(one).collect();
    }
    let mut out = Vec::new();
    for step in composition
        .pointer("/spec/pipeline")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        for t in step
            .pointer("/input/resources")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            out.push(one(t));
        }
    }
    out
}

/// Observed composed resources: those in `spec.resourceRefs` and those labelled
/// `crossplane.io/composite=<xr>` of the kinds the Composition composes; keyed by the
/// composition-resource-name annotation (anonymous templates by position: `resource <i+1>`).
async fn fetch_observed(
    session: &mut Session,
    xr: &Value,
    xr_name: &str,
    composition: &Value,
    warnings: &mut Vec<String>,
) -> anyhow::Result<Vec<Observed>> {
    let templates = templates(composition);
    let anonymous = templates.iter().any(|(n, _)| n.is_none());
    // (apiVersion, kind, namespace, name) → (position in resourceRefs, object)
    let mut found: BTreeMap<Identity, (Option<usize>, Value)> = BTreeMap::new();
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
        if let Some(mut obj) = session.get(&kind, ns, name).await? {
            strip_server_fields(&mut obj);
            found.insert(identity(&obj), (Some(i), obj));
        }
    }
    if !xr_name.is_empty() {
        let mut kinds: Vec<(String, String)> = templates
            .iter()
            .map(|(_, b)| {
                (
                    str_at(b, "/apiVersion").to_string(),
                    str_at(b, "/kind").to_string(),
                )
            })
            .filter(|(a, k)| !a.is_empty() && !k.is_empty())
            .collect();
        kinds.sort();
        kinds.dedup();
        let selector = format!("{COMPOSITE_LABEL}={xr_name}");
        for (av, k) in kinds {
            let kind = session.kind(&av, &k).await?;
            for mut obj in session.list(&kind, Some(&selector)).await? {
                strip_server_fields(&mut obj);
                found.entry(identity(&obj)).or_insert((None, obj));
            }
        }
    }

    let mut observed: Vec<Observed> = Vec::new();
    for (_, (position, obj)) in found {
        let annotated = obj
            .pointer("/metadata/annotations")
            .and_then(|a| a.get(RESOURCE_NAME_ANNOTATION))
            .and_then(Value::as_str)
            .map(String::from);
        let name = match (annotated, position) {
            (Some(n), _) => n,
            // The engine names anonymous templates `resource <i+1>`, matched by position.
            (None, Some(i)) if anonymous => format!("resource {}", i + 1),
            (None, _) => {
                warnings.push(format!(
                    "ignoring {} {:?}: it has no {RESOURCE_NAME_ANNOTATION} annotation",
                    str_at(&obj, "/kind"),
                    str_at(&obj, "/metadata/name")
                ));
                continue;
            }
        };
        if observed.iter().any(|o| o.name == name) {
            warnings.push(format!(
                "several composed resources claim the name {name:?}; using the first"
            ));
            continue;
        }
        let connection_details = connection_details(session, &obj).await?;
        observed.push(Observed {
            name,
            resource: obj,
            connection_details,
        });
    }
    Ok(observed)
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

/// The data of a composed resource's connection Secret (`spec.writeConnectionSecretToRef`).
async fn connection_details(
    session: &mut Session,
    obj: &Value,
) -> anyhow::Result<Map<String, Value>> {
    let Some(r) = obj.pointer("/spec/writeConnectionSecretToRef") else {
        return Ok(Map::new());
    };
    let name = str_at(r, "/name");
    if name.is_empty() {
        return Ok(Map::new());
    }
    let ns = Some(str_at(r, "/namespace")).filter(|n| !n.is_empty());
    let secret_kind = session.kind("v1", "Secret").await?;
    let secret = session.get(&secret_kind, ns, name).await.with_context(|| {
        format!(
            "connection Secret of {} {:?}",
            str_at(obj, "/kind"),
            str_at(obj, "/metadata/name")
        )
    })?;
    Ok(secret
        .and_then(|s| s.get("data").and_then(Value::as_object).cloned())
        .unwrap_or_default())
}
