//! What the API server would store for a desired object: its answer to a server-side dry-run
//! apply (or create, for a name still to be generated) where the credentials may, else the
//! desired object merged over the live one with its CRD's defaults applied. A dry run the
//! server refuses for the credentials (403), a namespace that does not exist yet (404) or a kind
//! it does not serve fall back to the prediction; a rejection of the object itself (422,
//! admission) is an error.
//!
//! An object Crossplane has applied (its `managedFields` has Crossplane's composed-resource
//! apply entry, [`owned`](super::owned)) is dry-run as that manager, and predicted with what
//! that manager owns and the render no longer sets removed: the fields Crossplane's next apply
//! removes show as removed. Anything else is dry-run as `xprender`, so fields set by others stay.

use std::time::Duration;

use anyhow::anyhow;
use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use super::objects::{Definitions, Objects};
use super::owned;
use super::tree::merge;
use crate::cluster::apply::FIELD_MANAGER;
use crate::cluster::client::{Session, to_json};
use crate::cluster::str_at;

/// How the stored form of `desired` is learnt: the dry run to send (`None` offline, without
/// `dry_run`, or when the server cannot take one) and the prediction, for when there is no dry
/// run or the server cannot answer it.
pub(crate) async fn plan(
    objects: &mut Objects,
    defs: &Definitions,
    live: Option<&Value>,
    desired: &Value,
    dry_run: bool,
) -> anyhow::Result<(Option<DryRun>, Value)> {
    let managed = live.and_then(|l| objects.managed_fields(l)).cloned();
    let crossplane = managed.as_ref().and_then(owned::crossplane_manager);
    let manager = crossplane.unwrap_or(FIELD_MANAGER).to_string();
    let mut merged = match live {
        Some(l) => merge(l, desired),
        None => desired.clone(),
    };
    if let (Some(m), Some(c)) = (&managed, crossplane) {
        owned::prune(&mut merged, desired, m, c);
    }
    let predicted = predict(defs, merged);
    let run = match objects.session() {
        Some(session) if dry_run => DryRun::prepare(session, desired, manager).await?,
        _ => None,
    };
    Ok((run, predicted))
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

/// A server-side dry run to send: prepared in turn (it resolves kinds through the session), sent
/// together with others, since each costs a round trip to the API server and a review of many
/// XRs asks for thousands.
pub(crate) struct DryRun {
    api: Api<DynamicObject>,
    body: Value,
    name: String,
    kind: String,
    generate_name: String,
    /// The field manager to apply as.
    manager: String,
    timeout: Duration,
}

impl DryRun {
    /// The dry run for `desired`; `None` when the server cannot take one for it (a kind it does
    /// not serve, a namespaced object without a namespace).
    pub(crate) async fn prepare(
        session: &mut Session,
        desired: &Value,
        manager: String,
    ) -> anyhow::Result<Option<DryRun>> {
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
        Ok(Some(DryRun {
            api,
            body,
            name,
            kind: kind_name.to_string(),
            generate_name: str_at(desired, "/metadata/generateName").to_string(),
            manager,
            timeout: session.timeout,
        }))
    }

    /// The server's answer; `None` when it cannot answer for this object (403, 404).
    pub(crate) async fn run(self) -> anyhow::Result<Option<Value>> {
        let DryRun {
            api,
            body,
            name,
            kind: kind_name,
            generate_name,
            manager,
            timeout,
        } = self;
        let answer = if name.is_empty() {
            let obj: DynamicObject = serde_json::from_value(body)?;
            let pp = PostParams {
                dry_run: true,
                field_manager: Some(FIELD_MANAGER.into()),
            };
            tokio::time::timeout(timeout, api.create(&pp, &obj)).await
        } else {
            let pp = PatchParams {
                dry_run: true,
                force: true,
                field_manager: Some(manager),
                ..PatchParams::default()
            };
            tokio::time::timeout(timeout, api.patch(&name, &pp, &Patch::Apply(&body))).await
        };
        let label = format!("{kind_name}/{name}");
        match answer {
            Err(_) => Err(anyhow!(
                "timed out after {:?} on a dry-run apply of {label}",
                timeout
            )),
            Ok(Ok(obj)) => {
                let mut v = to_json(obj)?;
                if name.is_empty()
                    && let Some(m) = v.pointer_mut("/metadata").and_then(Value::as_object_mut)
                {
                    // The server drew a name for this dry run only.
                    m.remove("name");
                    m.insert("generateName".into(), json!(generate_name));
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
}
