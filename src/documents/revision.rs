//! The CompositionRevision Crossplane v1.14 renders an XR with, given its chosen Composition.
//!
//! Crossplane composes from a revision. With `compositionUpdatePolicy: Manual` and a
//! `compositionRevisionRef`, it is the revision named there. Otherwise it is the latest revision
//! (highest `spec.revision`) of the Composition, among those matching the XR's
//! `compositionRevisionSelector` under the Automatic policy. Without a selector the latest
//! revision mirrors the Composition's current spec, so a Composition given is used as it is;
//! a Composition known only by its revisions is rendered from its latest one.

use crate::error::Result;
use crate::value::{Map, Value};

use super::classify::{Catalog, at, is_crossplane, name_of, str_at, xr_field};
use super::invalid;

const KIND: &str = "CompositionRevision";
/// The label Crossplane puts on every revision: the name of the Composition it belongs to.
const COMPOSITION_NAME_LABEL: &str = "crossplane.io/composition-name";

/// The latest revision (as a Composition) of each Composition that is given only by revisions.
pub(crate) fn orphans(cat: &Catalog<'_>) -> Vec<(usize, Value)> {
    let given: Vec<&str> = cat
        .crossplane("Composition")
        .into_iter()
        .map(|i| name_of(&cat.docs[i]))
        .collect();
    let mut latest: Vec<(String, usize)> = Vec::new();
    for i in cat.crossplane(KIND) {
        let owner = owner_name(&cat.docs[i]).to_owned();
        if given.contains(&owner.as_str()) {
            continue;
        }
        match latest.iter_mut().find(|(o, _)| *o == owner) {
            Some((_, j)) if number(&cat.docs[*j]) < number(&cat.docs[i]) => *j = i,
            Some(_) => {}
            None => latest.push((owner, i)),
        }
    }
    latest
        .into_iter()
        .map(|(_, i)| (i, as_composition(&cat.docs[i])))
        .collect()
}

/// The Composition to render with: a revision turned back into a Composition, or `composition`.
/// Returns it with its (or the revision's) name and the rule that chose it. Without `follow`
/// the XR's revision references are not followed: a Composition given is used as it is.
pub(crate) fn resolve(
    cat: &mut Catalog<'_>,
    xr: &Value,
    composition: Value,
    index: usize,
    reason: String,
    follow: bool,
) -> Result<(Value, String, String)> {
    let revisions = cat.crossplane(KIND);
    let comp_name = name_of(&composition).to_owned();
    let pinned = pinned(xr).filter(|_| follow && !revisions.is_empty());
    let chosen = if let Some(pinned) = pinned {
        let Some(i) = revisions
            .iter()
            .copied()
            .find(|&i| name_of(&cat.docs[i]) == pinned)
        else {
            return Err(invalid(format!(
                "{KIND} {} named by the XR's spec.compositionRevisionRef \
                 (compositionUpdatePolicy: Manual) is not among the documents given (found: {})",
                crate::go::quote(pinned),
                cat.list(&revisions)
            )));
        };
        Some((
            i,
            format!(
                "the XR's spec.compositionRevisionRef (compositionUpdatePolicy: Manual); {reason}"
            ),
        ))
    } else {
        selected(cat, xr, &revisions, &comp_name, index, follow)?.map(|i| {
            (
                i,
                format!(
                    "latest revision of Composition {}; {reason}",
                    crate::go::quote(&comp_name)
                ),
            )
        })
    };
    for &i in &revisions {
        if chosen.as_ref().is_none_or(|(c, _)| *c != i) {
            cat.skip(
                i,
                if follow {
                    "not the revision the XR renders with"
                } else {
                    "the chosen Composition is rendered as given"
                },
            );
        }
    }
    match chosen {
        Some((i, why)) => {
            cat.mark_composition(i);
            if is_crossplane(&cat.docs[index], "Composition") {
                cat.skip(
                    index,
                    format!(
                        "the XR renders with its {KIND} {}",
                        crate::go::quote(name_of(&cat.docs[i]))
                    ),
                );
            }
            let name = name_of(&cat.docs[i]).to_owned();
            Ok((as_composition(&cat.docs[i]), name, why))
        }
        None => {
            cat.mark_composition(index);
            let name = name_of(&cat.docs[index]).to_owned();
            Ok((composition, name, reason))
        }
    }
}

/// The latest revision of `comp_name` matching the XR's revision selector; `None` when the
/// Composition itself is to be used (no selector and the Composition is given).
fn selected(
    cat: &Catalog<'_>,
    xr: &Value,
    revisions: &[usize],
    comp_name: &str,
    index: usize,
    follow: bool,
) -> Result<Option<usize>> {
    let given = is_crossplane(&cat.docs[index], "Composition");
    let policy = xr_field(xr, &["compositionUpdatePolicy"]).and_then(Value::as_str);
    // Crossplane's XR CRDs default the policy to Automatic.
    let labels = xr_field(xr, &["compositionRevisionSelector", "matchLabels"])
        .and_then(Value::as_object)
        .filter(|_| follow && policy.is_none_or(|p| p == "Automatic"));
    if given && labels.is_none() {
        return Ok(None);
    }
    let uid = str_at(&cat.docs[index], &["metadata", "uid"]).filter(|_| given);
    let own = revisions
        .iter()
        .copied()
        .filter(|&i| owner_name(&cat.docs[i]) == comp_name)
        .filter(|&i| controlled_by(&cat.docs[i], uid));
    let matching = own.filter(|&i| labels.is_none_or(|l| matches(&cat.docs[i], l)));
    let latest = matching.max_by_key(|&i| number(&cat.docs[i]));
    match (latest, labels) {
        (Some(i), _) => Ok(Some(i)),
        (None, Some(l)) => Err(invalid(format!(
            "no {KIND} of Composition {} matches the XR's spec.compositionRevisionSelector {}",
            crate::go::quote(comp_name),
            Value::Object(l.clone()).to_json()
        ))),
        (None, None) => Ok(None),
    }
}

fn matches(rev: &Value, labels: &Map) -> bool {
    labels
        .iter()
        .all(|(k, v)| at(rev, &["metadata", "labels", k]) == Some(v))
}

/// The revision the XR pins (`compositionRevisionRef` with the Manual policy), if any.
fn pinned(xr: &Value) -> Option<&str> {
    let manual =
        xr_field(xr, &["compositionUpdatePolicy"]).and_then(Value::as_str) == Some("Manual");
    xr_field(xr, &["compositionRevisionRef", "name"])
        .and_then(Value::as_str)
        .filter(|n| manual && !n.is_empty())
}

fn number(rev: &Value) -> i64 {
    match at(rev, &["spec", "revision"]) {
        Some(Value::Int(n)) => *n,
        _ => 0,
    }
}

/// Whether a revision is controlled by the Composition of `uid`: a revision another
/// Composition of the same name controls (an earlier one, deleted and created again) is not its.
/// Without uids on both sides, the name decides.
fn controlled_by(rev: &Value, uid: Option<&str>) -> bool {
    let controller = controller(rev)
        .and_then(|o| o.get("uid"))
        .and_then(Value::as_str);
    match (uid, controller) {
        (Some(u), Some(c)) => u == c,
        _ => true,
    }
}

/// The revision's controller reference.
fn controller(rev: &Value) -> Option<&Value> {
    at(rev, &["metadata", "ownerReferences"])?
        .as_array()?
        .iter()
        .find(|o| o.get("controller") == Some(&Value::Bool(true)))
}

/// The Composition a revision belongs to: its label, else its controller's name.
fn owner_name(rev: &Value) -> &str {
    if let Some(l) = str_at(rev, &["metadata", "labels", COMPOSITION_NAME_LABEL]) {
        return l;
    }
    controller(rev)
        .and_then(|o| o.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// A revision as the Composition it snapshots: its spec without `revision`, named after the
/// Composition it belongs to.
fn as_composition(rev: &Value) -> Value {
    let mut spec = rev
        .get("spec")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_else(Map::new);
    spec.remove("revision");
    let owner = owner_name(rev);
    let name = if owner.is_empty() {
        name_of(rev)
    } else {
        owner
    };
    let mut meta = Map::new();
    meta.insert("name".into(), name.into());
    let mut out = Map::new();
    out.insert("apiVersion".into(), "apiextensions.crossplane.io/v1".into());
    out.insert("kind".into(), "Composition".into());
    out.insert("metadata".into(), Value::Object(meta));
    out.insert("spec".into(), Value::Object(spec));
    Value::Object(out)
}
