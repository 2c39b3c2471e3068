//! What applying a render would do to each object: create, update (which fields) or nothing.

use anyhow::{anyhow, bail};
use serde_json::{Value, json};

use super::diff::{FieldChange, Ignore, changed_fields};
use super::inputs::ClusterInputs;
use super::str_at;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    Create,
    Update,
    Unchanged,
}

impl Action {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Action::Create => "create",
            Action::Update => "update",
            Action::Unchanged => "unchanged",
        }
    }
}

/// One object's planned change.
#[derive(Debug, Clone)]
pub(crate) struct ResourcePlan {
    /// The template name, or `composite` for the XR.
    pub(crate) resource: String,
    pub(crate) composite: bool,
    pub(crate) api_version: String,
    pub(crate) kind: String,
    /// Empty for a new object whose name the server generates.
    pub(crate) name: String,
    pub(crate) generate_name: String,
    pub(crate) namespace: String,
    pub(crate) action: Action,
    pub(crate) changes: Vec<FieldChange>,
    /// The object to apply (the XR: its whole desired state; the diff decides what is sent).
    pub(crate) desired: Value,
}

impl ResourcePlan {
    /// `Kind name` (or `Kind (generated from prefix-)`).
    pub(crate) fn object_label(&self) -> String {
        let name = if self.name.is_empty() {
            format!("(name generated from {:?})", self.generate_name)
        } else {
            self.name.clone()
        };
        if self.namespace.is_empty() {
            format!("{} {name}", self.kind)
        } else {
            format!("{} {}/{name}", self.kind, self.namespace)
        }
    }
}

/// Turns the engine's Output into per-object plans against the live objects. Resources in
/// Output order are sorted by name; the XR comes first.
pub(crate) fn plan(inputs: &ClusterInputs, output: &Value) -> anyhow::Result<Vec<ResourcePlan>> {
    if let Some(e) = output.get("error") {
        let msg = e
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("unknown error");
        bail!("render failed: {msg}");
    }
    let mut plans = Vec::new();
    if let Some(desired_xr) = output.get("composite").filter(|c| c.is_object()) {
        let ignore = Ignore {
            status: false,
            xr_status_bookkeeping: true,
            generate_name: false,
        };
        let changes = changed_fields(Some(&inputs.xr), desired_xr, ignore);
        plans.push(ResourcePlan {
            resource: "composite".into(),
            composite: true,
            api_version: str_at(&inputs.xr, "/apiVersion").into(),
            kind: str_at(&inputs.xr, "/kind").into(),
            name: str_at(&inputs.xr, "/metadata/name").into(),
            generate_name: String::new(),
            namespace: str_at(&inputs.xr, "/metadata/namespace").into(),
            action: if changes.is_empty() {
                Action::Unchanged
            } else {
                Action::Update
            },
            changes,
            desired: desired_xr.clone(),
        });
    }
    let empty = serde_json::Map::new();
    let resources = output
        .get("resources")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    for (name, entry) in resources {
        let desired = entry
            .get("resource")
            .filter(|r| r.is_object())
            .ok_or_else(|| anyhow!("render output resource {name:?} has no object"))?;
        let live = inputs.observed(output, name);
        let mut desired = desired.clone();
        // The engine keeps the observed name; an object matched by name also gets its namespace.
        if let Some(l) = live {
            for field in ["name", "namespace"] {
                let v = str_at(l, &format!("/metadata/{field}"));
                if !v.is_empty()
                    && str_at(&desired, &format!("/metadata/{field}")).is_empty()
                    && let Some(m) = desired.get_mut("metadata").and_then(Value::as_object_mut)
                {
                    m.insert(field.into(), json!(v));
                }
            }
        }
        if let Some(s) = desired.as_object_mut() {
            s.remove("status");
        }
        let ignore = Ignore {
            status: true,
            xr_status_bookkeeping: false,
            generate_name: live.is_some(),
        };
        let changes = changed_fields(live, &desired, ignore);
        let action = match (live, changes.is_empty()) {
            (None, _) => Action::Create,
            (Some(_), true) => Action::Unchanged,
            (Some(_), false) => Action::Update,
        };
        plans.push(ResourcePlan {
            resource: name.clone(),
            composite: false,
            api_version: str_at(&desired, "/apiVersion").into(),
            kind: str_at(&desired, "/kind").into(),
            name: str_at(&desired, "/metadata/name").into(),
            generate_name: str_at(&desired, "/metadata/generateName").into(),
            namespace: str_at(&desired, "/metadata/namespace").into(),
            action,
            changes,
            desired,
        });
    }
    Ok(plans)
}
