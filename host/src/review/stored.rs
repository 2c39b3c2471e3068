//! What the API server would store for a desired object: its answer to a server-side dry-run
//! apply (or create, for a name still to be generated) where the credentials may, else the
//! desired object merged over the live one with its CRD's defaults applied.
//!
//! An object Crossplane has applied (its `managedFields` has Crossplane's composed-resource
//! apply entry, [`owned`](super::owned)) is dry-run as that manager, and predicted with what
//! that manager owns and the render no longer sets removed: the fields Crossplane's next apply
//! removes show as removed. Anything else is dry-run as `xprender`, so fields set by others stay.

use anyhow::anyhow;
use kube::api::{DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use super::objects::{Definitions, Objects};
use super::owned;
use super::report::Compared;
use super::tree::merge;
use crate::cluster::apply::FIELD_MANAGER;
use crate::cluster::client::{Session, to_json};
use crate::cluster::str_at;

/// The stored form of `desired`, and how it was obtained. With `dry_run` and a live source, the
/// API server answers; a request it refuses for the credentials (403), a namespace that does
/// not exist yet (404) or a kind it does not serve fall back to the prediction. A rejection of
/// the object itself (422, admission) is an error.
pub(crate) async fn stored(
    objects: &mut Objects,
    defs: &Definitions,
    live: Option<&Value>,
    desired: &Value,
    dry_run: bool,
) -> anyhow::Result<(Value, Compared)> {
    let managed = live.and_then(|l| objects.managed_fields(l)).cloned();
    let crossplane = managed.as_ref().and_then(owned::crossplane_manager);
    let manager = crossplane.unwrap_or(FIELD_MANAGER).to_string();
    if dry_run
        && let Some(session) = objects.session()
        && let Some(v) = dry_run_apply(session, desired, &manager).await?
    {
        return Ok((v, Compared::DryRun));
    }
    let mut merged = match live {
        Some(l) => merge(l, desired),
        None => desired.clone(),
    };
    if let (Some(m), Some(c)) = (&managed, crossplane) {
        owned::prune(&mut merged, desired, m, c);
    }
    Ok((predict(defs, merged), Compared::CrdDefaults))
}

/// `merged` (the desired object over the live one) defaulted by its CRD (or XRD).
fn predict(defs: &Definitions, merged: Value) -> Value {
    let (av, kind) = (str_at(&merged, "/apiVersion"), str_at(&merged, "/kind"));
    let definition = defs
        .crd_of(av, kind)
        .or_else(|| defs.xrd_of(av, kind, false))
        .or_else(|| defs.xrd_of(av, kind, true));
    if let Some(def) = definition
        && let (Ok(mut obj), Ok(def)) = (
            xprender::Value::from_json(&merged.to_string()),
            xprender::Value::from_json(&def.to_string()),
        )
    {
        xprender::apply_schema_defaults(&mut obj, &def);
        if let Ok(v) = serde_json::from_str(&obj.to_json()) {
            return v;
        }
    }
    merged
}

/// The server's answer to a dry run; `None` when it cannot answer for this object.
async fn dry_run_apply(
    session: &mut Session,
    desired: &Value,
    manager: &str,
) -> anyhow::Result<Option<Value>> {
    let (av, kind_name) = (str_at(desired, "/apiVersion"), str_at(desired, "/kind"));
    let Some(kind) = session.find_kind(av, kind_name).await? else {
        return Ok(None);
    };
    let ns = str_at(desired, "/metadata/namespace");
    if kind.namespaced && ns.is_empty() {
        return Ok(None);
    }
    let api = session.api(&kind, Some(ns).filter(|n| !n.is_empty()));
    let name = str_at(desired, "/metadata/name").to_string();
    let mut body = desired.clone();
    if let Some(m) = body.as_object_mut() {
        m.remove("status");
    }
    if let Some(m) = body.pointer_mut("/metadata").and_then(Value::as_object_mut) {
        // The server's bookkeeping: sent back, it would only make the apply conditional.
        for k in [
            "resourceVersion",
            "uid",
            "creationTimestamp",
            "generation",
            "managedFields",
        ] {
            m.remove(k);
        }
    }
    let answer = if name.is_empty() {
        let obj: DynamicObject = serde_json::from_value(body)?;
        let pp = PostParams {
            dry_run: true,
            field_manager: Some(FIELD_MANAGER.into()),
        };
        tokio::time::timeout(session.timeout, api.create(&pp, &obj)).await
    } else {
        let pp = PatchParams {
            dry_run: true,
            force: true,
            field_manager: Some(manager.into()),
            ..PatchParams::default()
        };
        tokio::time::timeout(session.timeout, api.patch(&name, &pp, &Patch::Apply(&body))).await
    };
    let label = format!("{kind_name}/{name}");
    match answer {
        Err(_) => Err(anyhow!(
            "timed out after {:?} on a dry-run apply of {label}",
            session.timeout
        )),
        Ok(Ok(obj)) => {
            let mut v = to_json(obj)?;
            if name.is_empty()
                && let Some(m) = v.pointer_mut("/metadata").and_then(Value::as_object_mut)
            {
                // The server drew a name for this dry run only.
                m.remove("name");
                m.insert(
                    "generateName".into(),
                    json!(str_at(desired, "/metadata/generateName")),
                );
            }
            Ok(Some(v))
        }
        Ok(Err(kube::Error::Api(s))) if s.code == 403 || s.code == 404 => Ok(None),
        Ok(Err(kube::Error::Api(s))) => Err(anyhow!(
            "the cluster rejected {label}: {} ({} {})",
            s.message,
            s.code,
            s.reason
        )),
        Ok(Err(e)) => Err(anyhow!("dry-run apply of {label} failed: {e}")),
    }
}
