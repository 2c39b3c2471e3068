//! The CompositionRevision Crossplane v1.14 renders an XR with, given its chosen Composition.
//!
//! Crossplane composes from a revision, never from the Composition itself. With
//! `compositionUpdatePolicy: Manual` and a `compositionRevisionRef`, it is the revision named
//! there. Otherwise it is the latest revision (highest `spec.revision`) the Composition controls,
//! labelled `crossplane.io/composition-name: <composition>`, among those matching the XR's
//! `compositionRevisionSelector` under the Automatic policy. The latest revision of an
//! unselected Composition mirrors its current spec, so the Composition itself is used then and no
//! revision is read.

use anyhow::{anyhow, bail};
use serde_json::{Value, json};

use super::client::{Kind, Session};
use super::str_at;

const CROSSPLANE_API: &str = "apiextensions.crossplane.io/v1";
const KIND: &str = "CompositionRevision";
/// The label Crossplane puts on every revision: the name of the Composition it belongs to.
const COMPOSITION_NAME_LABEL: &str = "crossplane.io/composition-name";

/// A v1 XR's `spec.<field>`, or a v2 XR's `spec.crossplane.<field>`.
fn xr_field<'a>(xr: &'a Value, field: &str) -> Option<&'a Value> {
    xr.pointer(&format!("/spec/{field}"))
        .or_else(|| xr.pointer(&format!("/spec/crossplane/{field}")))
}

/// The revision the XR pins (`compositionRevisionRef` with the Manual policy), if any.
pub(crate) fn pinned(xr: &Value) -> Option<&str> {
    let manual = xr_field(xr, "compositionUpdatePolicy").and_then(Value::as_str) == Some("Manual");
    xr_field(xr, "compositionRevisionRef/name")
        .and_then(Value::as_str)
        .filter(|n| manual && !n.is_empty())
}

/// The Composition to render `xr` with, for the cluster's `composition` chosen by `why`:
/// a revision turned back into a Composition, or `composition` itself.
pub(crate) async fn resolve(
    session: &mut Session,
    xr: &Value,
    composition: Value,
    why: String,
    warnings: &mut Vec<String>,
) -> anyhow::Result<(Value, String)> {
    let comp_name = str_at(&composition, "/metadata/name").to_string();
    if let Some(name) = pinned(xr) {
        let field = "the XR's spec.compositionRevisionRef (compositionUpdatePolicy: Manual)";
        let kind = revision_kind(session, &format!("{field} names {KIND} {name:?}")).await?;
        let rev = session
            .get(&kind, None, name)
            .await?
            .ok_or_else(|| anyhow!("{KIND} {name:?} named by {field} not found"))?;
        let owner = owner_name(&rev);
        if owner != comp_name {
            // Crossplane renders it all the same; the mismatch is most likely a mistake.
            warnings.push(format!(
                "{KIND} {name:?} (pinned by the XR) belongs to Composition {owner:?}, not to {why}"
            ));
        }
        let source = format!(
            "{KIND} {name:?} (revision {} of Composition {owner:?}; {field})",
            revision_number(&rev)
        );
        return Ok((as_composition(&rev, name)?, source));
    }
    let policy = xr_field(xr, "compositionUpdatePolicy").and_then(Value::as_str);
    let labels = xr_field(xr, "compositionRevisionSelector/matchLabels").and_then(Value::as_object);
    // Crossplane's XR CRDs default the policy to Automatic.
    let Some(labels) = labels.filter(|_| policy.is_none_or(|p| p == "Automatic")) else {
        return Ok((composition, why));
    };
    let mut selector: Vec<String> = labels
        .iter()
        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
        .collect();
    let shown = selector.join(",");
    selector.push(format!("{COMPOSITION_NAME_LABEL}={comp_name}"));
    let field = format!("the XR's spec.compositionRevisionSelector ({shown})");
    let kind = revision_kind(session, &format!("{field} selects a {KIND}")).await?;
    let uid = str_at(&composition, "/metadata/uid");
    let latest = session
        .list(&kind, Some(&selector.join(",")))
        .await?
        .into_iter()
        .filter(|r| controller(r, "uid") == Some(uid))
        .filter(|r| revision_number(r) > 0)
        .max_by_key(revision_number)
        .ok_or_else(|| anyhow!("no {KIND} of Composition {comp_name:?} ({why}) matches {field}"))?;
    let name = str_at(&latest, "/metadata/name").to_string();
    let source = format!(
        "{KIND} {name:?} (latest revision, {}, of Composition {comp_name:?} matching {field}; {why})",
        revision_number(&latest)
    );
    Ok((as_composition(&latest, &name)?, source))
}

async fn revision_kind(session: &mut Session, why: &str) -> anyhow::Result<Kind> {
    session
        .kind(CROSSPLANE_API, KIND)
        .await
        .map_err(|e| anyhow!("{why}, but {e:#}"))
}

fn revision_number(rev: &Value) -> i64 {
    rev.pointer("/spec/revision")
        .and_then(Value::as_i64)
        .unwrap_or(0)
}

/// A field of the revision's controller (the Composition that owns it).
fn controller<'a>(rev: &'a Value, field: &str) -> Option<&'a str> {
    rev.pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)?
        .iter()
        .find(|o| o.get("controller").and_then(Value::as_bool) == Some(true))
        .and_then(|o| o.get(field))
        .and_then(Value::as_str)
}

/// The Composition a revision belongs to: its label, else its controller's name.
fn owner_name(rev: &Value) -> String {
    let label = rev
        .pointer("/metadata/labels")
        .and_then(|l| l.get(COMPOSITION_NAME_LABEL))
        .and_then(Value::as_str);
    label
        .or_else(|| controller(rev, "name"))
        .unwrap_or_default()
        .to_string()
}

/// A revision as the Composition it snapshots: its spec without `revision`, named after the
/// Composition it belongs to.
fn as_composition(rev: &Value, name: &str) -> anyhow::Result<Value> {
    let Some(spec) = rev.get("spec").and_then(Value::as_object) else {
        bail!("{KIND} {name:?} has no spec");
    };
    let mut spec = spec.clone();
    spec.remove("revision");
    let owner = owner_name(rev);
    Ok(json!({
        "apiVersion": CROSSPLANE_API,
        "kind": "Composition",
        "metadata": {"name": if owner.is_empty() { name } else { owner.as_str() }},
        "spec": spec,
    }))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{as_composition, pinned};

    #[test]
    fn only_the_manual_policy_pins_the_referenced_revision() {
        let xr = |spec: serde_json::Value| json!({"spec": spec});
        let cases = [
            (
                json!({"compositionRevisionRef": {"name": "r1"}, "compositionUpdatePolicy": "Manual"}),
                Some("r1"),
            ),
            (
                json!({"crossplane": {"compositionRevisionRef": {"name": "r1"}, "compositionUpdatePolicy": "Manual"}}),
                Some("r1"),
            ),
            (
                json!({"compositionRevisionRef": {"name": "r1"}, "compositionUpdatePolicy": "Automatic"}),
                None,
            ),
            (json!({"compositionRevisionRef": {"name": "r1"}}), None),
            (json!({"compositionUpdatePolicy": "Manual"}), None),
            (
                json!({"compositionRevisionRef": {"name": ""}, "compositionUpdatePolicy": "Manual"}),
                None,
            ),
        ];
        for (spec, want) in cases {
            assert_eq!(pinned(&xr(spec.clone())), want, "{spec}");
        }
    }

    #[test]
    fn a_revision_becomes_the_composition_it_snapshots() {
        let rev = json!({"metadata": {"name": "c-abc", "labels": {"crossplane.io/composition-name": "c"}},
            "spec": {"revision": 2, "compositeTypeRef": {"apiVersion": "a/v1", "kind": "X"}, "resources": []}});
        assert_eq!(
            as_composition(&rev, "c-abc").unwrap(),
            json!({"apiVersion": "apiextensions.crossplane.io/v1", "kind": "Composition",
                "metadata": {"name": "c"},
                "spec": {"compositeTypeRef": {"apiVersion": "a/v1", "kind": "X"}, "resources": []}})
        );
        let e = as_composition(&json!({"metadata": {"name": "c-abc"}}), "c-abc").unwrap_err();
        assert_eq!(e.to_string(), "CompositionRevision \"c-abc\" has no spec");
    }
}
