//! The observed tree of one XR: the objects its resource references name, and those of the
//! nested XRs among them, down to the leaves; and the documents request that renders it.

use serde_json::{Map, Value, json};

use super::objects::{Definitions, Objects};
use super::report::{Identity, Warning};
use crate::cluster::str_at;

/// An observed composed resource (of the top XR or a nested one).
#[derive(Debug, Clone)]
pub(crate) struct Observed {
    pub(crate) object: Value,
}

/// A v1 XR's references, else a v2 XR's.
pub(crate) fn resource_refs(xr: &Value) -> Vec<Value> {
    ["/spec/resourceRefs", "/spec/crossplane/resourceRefs"]
        .iter()
        .find_map(|p| xr.pointer(p).and_then(Value::as_array))
        .cloned()
        .unwrap_or_default()
}

/// Reads the composed resources of `xr` and, for the nested XRs among them, theirs, at most
/// `depth_limit` levels deep (the top XR is level 1). A reference to an object that no longer
/// exists is a warning.
pub(crate) async fn observe(
    objects: &mut Objects,
    defs: &Definitions,
    xr: &Value,
    depth_limit: u32,
    warnings: &mut Vec<Warning>,
) -> anyhow::Result<Vec<Observed>> {
    let mut out: Vec<Observed> = Vec::new();
    let mut level = vec![xr.clone()];
    for _ in 0..depth_limit {
        let mut next = Vec::new();
        for parent in &level {
            let owner = Identity::of(parent);
            let parent_ns = str_at(parent, "/metadata/namespace");
            for r in resource_refs(parent) {
                let (av, kind, name) = (
                    str_at(&r, "/apiVersion"),
                    str_at(&r, "/kind"),
                    str_at(&r, "/name"),
                );
                if av.is_empty() || kind.is_empty() || name.is_empty() {
                    continue;
                }
                // v2 references leave out the namespace of a resource in the XR's namespace.
                let ns = Some(str_at(&r, "/namespace"))
                    .filter(|n| !n.is_empty())
                    .unwrap_or(parent_ns);
                let mut found = objects.get(av, kind, Some(ns), name).await?;
                if found.is_none() && !ns.is_empty() {
                    found = objects.get(av, kind, None, name).await?;
                }
                let Some(obj) = found else {
                    let what = format!("{kind}/{name}");
                    warnings.push(Warning::new(
                        "Composed resource referenced by the XR no longer exists; a render that still produces it shows it as added",
                        &[("xr", &owner.label()), ("resource", &what)],
                    ));
                    continue;
                };
                let id = Identity::of(&obj);
                if out
                    .iter()
                    .any(|o| Identity::of(&o.object).key() == id.key())
                {
                    continue;
                }
                if defs.xrd_of(av, kind, false).is_some() {
                    next.push(obj.clone());
                }
                out.push(Observed { object: obj });
            }
        }
        if next.is_empty() {
            break;
        }
        level = next;
    }
    Ok(out)
}

/// The connection Secrets the observed resources write (`spec.writeConnectionSecretToRef`; a
/// reference without a namespace is in the resource's), which Crossplane reads for their
/// connection details: each read by name; one that does not exist is left out.
pub(crate) async fn connection_secrets(
    objects: &mut Objects,
    observed: &[Observed],
) -> anyhow::Result<Vec<Value>> {
    let mut out: Vec<Value> = Vec::new();
    for o in observed {
        let Some(r) = o.object.pointer("/spec/writeConnectionSecretToRef") else {
            continue;
        };
        let name = str_at(r, "/name");
        let ns = Some(str_at(r, "/namespace"))
            .filter(|n| !n.is_empty())
            .unwrap_or(str_at(&o.object, "/metadata/namespace"));
        if name.is_empty() {
            continue;
        }
        if let Some(s) = objects.get("v1", "Secret", Some(ns), name).await?
            && !out.contains(&s)
        {
            out.push(s);
        }
    }
    Ok(out)
}

/// What to render: the XR (or a claim without a live XR), the definitions, a Composition in
/// place of the cluster's choice, the observed tree and its connection Secrets.
pub(crate) struct RenderInputs<'a> {
    pub(crate) top: &'a Value,
    /// The top object's `KIND/NAME` for `options.xr`; none for a claim rendered as its XR.
    pub(crate) xr_option: Option<String>,
    pub(crate) defs: &'a Definitions,
    pub(crate) composition: Option<&'a Value>,
    pub(crate) observed: &'a [Observed],
    pub(crate) secrets: &'a [Value],
    pub(crate) depth_limit: u32,
}

/// The documents request for the whole tree.
pub(crate) fn request(r: &RenderInputs<'_>) -> Value {
    let mut docs = vec![r.top.clone()];
    let override_name = r.composition.map(|c| str_at(c, "/metadata/name"));
    docs.extend(r.defs.xrds.iter().cloned());
    if let Some(c) = r.composition {
        docs.push(c.clone());
    }
    docs.extend(
        r.defs
            .compositions
            .iter()
            .filter(|c| Some(str_at(c, "/metadata/name")) != override_name)
            .cloned(),
    );
    docs.extend(r.defs.revisions.iter().cloned());
    docs.extend(r.defs.environment_configs.iter().cloned());
    docs.extend(r.defs.functions.iter().cloned());
    docs.extend(r.observed.iter().map(|o| o.object.clone()));
    docs.extend(
        r.secrets
            .iter()
            .filter(|s| !r.observed.iter().any(|o| o.object == **s))
            .cloned(),
    );
    let mut options = Map::new();
    if let Some(x) = &r.xr_option {
        options.insert("xr".into(), json!(x));
    }
    options.insert("environmentConfigs".into(), json!("selected"));
    options.insert("depthLimit".into(), json!(r.depth_limit));
    if is_v2(r.top, r.defs) {
        options.insert("crossplane".into(), json!("v2"));
        // The whole XR, not the part `crossplane render` prints: the review compares its spec.
        options.insert("includeFullXr".into(), json!(true));
    }
    if let Some(name) = override_name {
        options.insert("compositionName".into(), json!(name));
    }
    json!({"documents": docs, "options": options})
}

/// Whether the top object is a Crossplane v2 XR: it has `spec.crossplane`, or its XRD is a v2
/// one whose scope is not `LegacyCluster`. Crossplane v2 writes composed resources' metadata
/// by its own rules (claim labels only with a claim).
fn is_v2(top: &Value, defs: &Definitions) -> bool {
    if top.pointer("/spec/crossplane").is_some() {
        return true;
    }
    let (av, kind) = (str_at(top, "/apiVersion"), str_at(top, "/kind"));
    defs.xrd_of(av, kind, false).is_some_and(|x| {
        str_at(x, "/apiVersion") == "apiextensions.crossplane.io/v2"
            && str_at(x, "/spec/scope") != "LegacyCluster"
    })
}

/// Merges `over` onto `base` as an apply leaves it: objects key by key, anything else replaced.
pub(crate) fn merge(base: &Value, over: &Value) -> Value {
    match (base, over) {
        (Value::Object(b), Value::Object(o)) => {
            let mut m = b.clone();
            for (k, v) in o {
                let merged = match m.get(k) {
                    Some(bv) => merge(bv, v),
                    None => v.clone(),
                };
                m.insert(k.clone(), merged);
            }
            Value::Object(m)
        }
        _ => over.clone(),
    }
}

/// A claim's live XR with the claim's spec synced in, as Crossplane's claim controller syncs it:
/// all of the claim's spec but what belongs to the claim.
pub(crate) fn sync_claim(xr: &Value, claim: &Value) -> Value {
    let mut spec = claim.get("spec").cloned().unwrap_or_else(|| json!({}));
    if let Some(m) = spec.as_object_mut() {
        m.remove("resourceRef");
        m.remove("writeConnectionSecretToRef");
        let manual = str_at(claim, "/spec/compositionUpdatePolicy") == "Manual";
        if !manual {
            m.remove("compositionRevisionRef");
        }
    }
    merge(xr, &json!({"spec": spec}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_keeps_what_the_applied_object_leaves_out() {
        let base = json!({"metadata": {"name": "a", "uid": "u"}, "spec": {"a": 1, "l": [1, 2], "m": {"x": 1}}});
        let over = json!({"spec": {"a": 2, "l": [3], "m": {"y": 2}}});
        assert_eq!(
            merge(&base, &over),
            json!({"metadata": {"name": "a", "uid": "u"}, "spec": {"a": 2, "l": [3], "m": {"x": 1, "y": 2}}})
        );
    }

    #[test]
    fn a_claims_spec_reaches_its_xr_without_the_claims_own_fields() {
        let xr = json!({"metadata": {"name": "db-x"}, "spec": {"size": "s", "resourceRefs": [{"name": "r"}],
            "compositionRevisionRef": {"name": "rev-1"}}});
        let claim = json!({"spec": {"size": "l", "resourceRef": {"name": "db-x"},
            "writeConnectionSecretToRef": {"name": "s"}, "compositionRevisionRef": {"name": "rev-2"}}});
        assert_eq!(
            sync_claim(&xr, &claim),
            json!({"metadata": {"name": "db-x"}, "spec": {"size": "l", "resourceRefs": [{"name": "r"}],
                "compositionRevisionRef": {"name": "rev-1"}}})
        );
    }
}
