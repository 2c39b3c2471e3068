//! Server-side apply of planned changes with field manager `xprender`: dry-run unless asked,
//! never deletes, conflicts reported with the other manager's name.

use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use super::client::{Op, Session, namespace_for};
use super::diff::{FieldChange, Seg, partial_object};
use super::plan::{Action, ResourcePlan};

pub(crate) const FIELD_MANAGER: &str = "xprender";

#[derive(Debug, Clone, Copy)]
pub(crate) struct ApplyOptions {
    pub(crate) dry_run: bool,
    pub(crate) force_conflicts: bool,
}

/// What happened to one object.
#[derive(Debug)]
pub(crate) enum Outcome {
    Unchanged,
    /// Created or updated; the object's name (a generated one for a new object).
    Applied {
        action: Action,
        name: String,
    },
    /// Fields owned by other managers: (manager, field).
    Conflict(Vec<(String, String)>),
    Failed(anyhow::Error),
}

pub(crate) async fn apply(
    session: &mut Session,
    plans: &[ResourcePlan],
    opts: ApplyOptions,
) -> Vec<Outcome> {
    let mut out = Vec::new();
    for plan in plans {
        let outcome = if plan.action == Action::Unchanged {
            Outcome::Unchanged
        } else {
            match apply_one(session, plan, opts).await {
                Ok(o) => o,
                Err(e) => Outcome::Failed(e),
            }
        };
        out.push(outcome);
    }
    out
}

async fn apply_one(
    session: &mut Session,
    plan: &ResourcePlan,
    opts: ApplyOptions,
) -> anyhow::Result<Outcome> {
    let kind = session.kind(&plan.api_version, &plan.kind).await?;
    if kind.namespaced && plan.namespace.is_empty() && !plan.composite {
        // Crossplane would not guess a namespace either: the template or a patch must set one.
        anyhow::bail!(
            "{} is namespaced but the render gives {} no metadata.namespace",
            kind.resource_name(),
            plan.object_label()
        );
    }
    let ns = namespace_for(&kind, Some(&plan.namespace), &session.default_namespace);
    let api: Api<DynamicObject> = session.api(&kind, ns.as_deref());
    let params = PatchParams {
        dry_run: opts.dry_run,
        force: opts.force_conflicts,
        field_manager: Some(FIELD_MANAGER.into()),
        ..PatchParams::default()
    };

    if plan.name.is_empty() {
        // Server-side apply needs a name: a new object with only generateName is created.
        let mut body = plan.desired.clone();
        if let (Some(ns), Some(m)) = (&ns, body.get_mut("metadata").and_then(Value::as_object_mut))
        {
            m.insert("namespace".into(), json!(ns));
        }
        let obj: DynamicObject = serde_json::from_value(body)?;
        let pp = PostParams {
            dry_run: opts.dry_run,
            field_manager: Some(FIELD_MANAGER.into()),
        };
        let op = Op {
            verb: "create",
            kind: &kind,
            namespace: ns.as_deref(),
            name: None,
        };
        let created = session.call(&op, api.create(&pp, &obj)).await;
        return Ok(match created {
            Ok(o) => Outcome::Applied {
                action: Action::Create,
                name: o.metadata.name.unwrap_or_default(),
            },
            Err(e) => Outcome::Failed(e),
        });
    }

    let op = Op {
        verb: "patch",
        kind: &kind,
        namespace: ns.as_deref(),
        name: Some(&plan.name),
    };
    if plan.composite {
        // Only the fields the render changed: xprender must not take over the whole XR.
        let (status, main): (Vec<FieldChange>, Vec<FieldChange>) = plan
            .changes
            .iter()
            .cloned()
            .partition(|c| matches!(c.path.first(), Some(Seg::Key(k)) if k == "status"));
        for (changes, subresource) in [(main, false), (status, true)] {
            if changes.is_empty() {
                continue;
            }
            let mut body = partial_object(&changes);
            if let Some(m) = body.as_object_mut() {
                m.insert("apiVersion".into(), json!(plan.api_version));
                m.insert("kind".into(), json!(plan.kind));
                let meta = m.entry("metadata").or_insert_with(|| json!({}));
                if let Some(meta) = meta.as_object_mut() {
                    meta.insert("name".into(), json!(plan.name));
                }
            }
            let res = if subresource {
                call_apply(
                    session,
                    &op,
                    api.patch_status(&plan.name, &params, &Patch::Apply(&body)),
                )
                .await
            } else {
                call_apply(
                    session,
                    &op,
                    api.patch(&plan.name, &params, &Patch::Apply(&body)),
                )
                .await
            };
            if let Some(o) = res? {
                return Ok(o);
            }
        }
        return Ok(Outcome::Applied {
            action: Action::Update,
            name: plan.name.clone(),
        });
    }

    let mut body = plan.desired.clone();
    if let Some(m) = body.as_object_mut() {
        m.remove("status");
    }
    if let Some(o) = call_apply(
        session,
        &op,
        api.patch(&plan.name, &params, &Patch::Apply(&body)),
    )
    .await?
    {
        return Ok(o);
    }
    Ok(Outcome::Applied {
        action: plan.action,
        name: plan.name.clone(),
    })
}

/// Runs an apply; `Ok(Some(..))` is a conflict or failure outcome, `Ok(None)` success.
async fn call_apply(
    session: &Session,
    op: &Op<'_>,
    fut: impl Future<Output = Result<DynamicObject, kube::Error>>,
) -> anyhow::Result<Option<Outcome>> {
    match tokio::time::timeout(session.timeout, fut).await {
        Ok(Ok(_)) => Ok(None),
        Ok(Err(kube::Error::Api(s))) if s.code == 409 => {
            let causes = s
                .details
                .as_ref()
                .map(|d| d.causes.clone())
                .unwrap_or_default();
            let mut conflicts: Vec<(String, String)> = causes
                .iter()
                .map(|c| (manager_of(&c.message), c.field.clone()))
                .collect();
            if conflicts.is_empty() {
                conflicts.push((manager_of(&s.message), String::new()));
            }
            Ok(Some(Outcome::Conflict(conflicts)))
        }
        Ok(Err(e)) => Ok(Some(Outcome::Failed(super::client::explain(
            e,
            op,
            &session.server,
            session.timeout,
        )))),
        Err(_) => Ok(Some(Outcome::Failed(anyhow::anyhow!(
            "timed out after {:?} trying to {op} at {}",
            session.timeout,
            session.server
        )))),
    }
}

/// The manager named in a conflict message: `conflict with "kubectl" using v1: .spec.x`.
pub(crate) fn manager_of(message: &str) -> String {
    message
        .split_once("conflict with \"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(m, _)| m.to_string())
        .unwrap_or_else(|| "another field manager".into())
}

#[cfg(test)]
mod tests {
    use super::manager_of;

    #[test]
    fn conflict_messages_name_the_manager() {
        assert_eq!(
            manager_of("conflict with \"ops-team\": .spec.forProvider.region"),
            "ops-team"
        );
        assert_eq!(
            manager_of("conflict with \"kubectl\" using example.org/v1: .spec.x"),
            "kubectl"
        );
        assert_eq!(
            manager_of("Apply failed with 1 conflict"),
            "another field manager"
        );
    }
}
