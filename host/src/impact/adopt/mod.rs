//! Who adopts a Composition: for each composite resource of the Composition's type, whether
//! Crossplane would compose it with the Composition once the Composition is applied, and why not
//! otherwise.
//!
//! Crossplane's composite reconciler chooses the Composition in this order: the XRD's
//! `enforcedCompositionRef` (it overwrites the XR's reference), the XR's `compositionRef`, then,
//! with no reference, the XR's `compositionSelector.matchLabels` (a random one among the
//! Compositions of its type matching them), else the XRD's `defaultCompositionRef`, else a random
//! one among all Compositions of its type. Then the revision: with
//! `compositionUpdatePolicy: Manual` and a `compositionRevisionRef` the XR keeps that revision;
//! otherwise it takes the latest revision of its Composition, among those matching its
//! `compositionRevisionSelector.matchLabels` when the policy is Automatic. A revision carries its
//! Composition's labels plus `crossplane.io/composition-name`, so whether the revision an applied
//! Composition creates matches is read from the Composition's own labels. A composite being
//! deleted composes nothing. v2 XRs keep these fields under `spec.crossplane`.

use serde_json::{Map, Value};

use super::scope::Composite;
use crate::cluster::str_at;

/// The label Crossplane puts on every CompositionRevision: the name of its Composition.
const COMPOSITION_NAME_LABEL: &str = "crossplane.io/composition-name";

/// What is known besides the composites: the Composition as it will be, the cluster's
/// Compositions (any type; the one of the same name is replaced by the new one) and the XRD.
pub(crate) struct Context<'a> {
    pub(crate) composition: &'a Value,
    pub(crate) compositions: &'a [Value],
    pub(crate) xrd: Option<&'a Value>,
    /// Evaluate composites pinned to a revision by the Manual policy as if they adopted it.
    pub(crate) include_manual: bool,
}

/// Why a composite renders with the Composition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Adoption {
    /// The XRD's `enforcedCompositionRef` names it.
    Enforced,
    /// The composite's `compositionRef` names it.
    CompositionRef,
    /// It is the only Composition of the type matching the composite's `compositionSelector`.
    Selector,
    /// The XRD's `defaultCompositionRef` names it.
    Default,
    /// It is the only Composition of the composite's type.
    OnlyOne,
}

/// Why a composite does not render with the Composition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LeftOut {
    /// `metadata.deletionTimestamp` is set: Crossplane deletes what it composed instead.
    Deleting { since: String },
    /// The XRD enforces another Composition.
    Enforced { name: String },
    /// Its `compositionRef` (or the XRD's default) names another Composition.
    OtherComposition { name: String },
    /// No reference, and its `compositionSelector` does not match the Composition's labels.
    SelectorMismatch { selector: Value },
    /// No reference, and several Compositions qualify: Crossplane picks one at random.
    Ambiguous { candidates: Vec<String> },
    /// Manual update policy with a `compositionRevisionRef`: it keeps that revision.
    ManualPolicy { revision: String },
    /// Automatic policy with a `compositionRevisionSelector` the new revision does not match.
    RevisionSelectorMismatch { selector: Value },
    /// A claim not yet bound to a composite resource.
    Unbound,
}

impl LeftOut {
    /// The reason's name in reports; crossplane-diff's where it has one.
    pub(crate) fn reason(&self) -> &'static str {
        match self {
            LeftOut::Deleting { .. } => "deleting",
            LeftOut::Enforced { .. } => "enforced_composition",
            LeftOut::OtherComposition { .. } => "other_composition",
            LeftOut::SelectorMismatch { .. } => "composition_selector_mismatch",
            LeftOut::Ambiguous { .. } => "ambiguous_selection",
            LeftOut::ManualPolicy { .. } => "manual_policy",
            LeftOut::RevisionSelectorMismatch { .. } => "revision_selector_mismatch",
            LeftOut::Unbound => "claim_unbound",
        }
    }

    /// One line for people.
    pub(crate) fn detail(&self) -> String {
        match self {
            LeftOut::Deleting { since } => format!("being deleted since {since}"),
            LeftOut::Enforced { name } => format!("the XRD enforces Composition {name:?}"),
            LeftOut::OtherComposition { name } => format!("uses Composition {name:?}"),
            LeftOut::SelectorMismatch { selector } => {
                format!(
                    "its compositionSelector {selector} does not match the Composition's labels"
                )
            }
            LeftOut::Ambiguous { candidates } => format!(
                "no compositionRef, and Crossplane picks one of {} at random",
                candidates.join(", ")
            ),
            LeftOut::ManualPolicy { revision } => format!(
                "compositionUpdatePolicy Manual, pinned to revision {revision:?} (--include-manual evaluates it)"
            ),
            LeftOut::RevisionSelectorMismatch { selector } => format!(
                "its compositionRevisionSelector {selector} does not match the Composition's labels"
            ),
            LeftOut::Unbound => "the claim has no composite resource yet".into(),
        }
    }
}

impl Adoption {
    /// The rule's name in reports.
    pub(crate) fn reason(&self) -> &'static str {
        match self {
            Adoption::Enforced => "enforced_composition",
            Adoption::CompositionRef => "composition_ref",
            Adoption::Selector => "composition_selector",
            Adoption::Default => "default_composition",
            Adoption::OnlyOne => "only_composition",
        }
    }
}

/// The verdict for one composite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// It renders with the Composition; `manual` when only --include-manual put it here.
    Adopts {
        why: Adoption,
        manual: bool,
    },
    LeftOut(LeftOut),
}

/// The verdict for a composite: its XR's; a claim being deleted takes its XR with it, and a
/// claim without an XR has nothing to compose with yet.
pub(crate) fn composite_verdict(cx: &Context<'_>, c: &Composite) -> Verdict {
    if let Some(since) = c.claim.as_ref().and_then(deleting) {
        return Verdict::LeftOut(LeftOut::Deleting { since });
    }
    match &c.xr {
        Some(xr) => verdict(cx, xr),
        None => Verdict::LeftOut(LeftOut::Unbound),
    }
}

fn deleting(obj: &Value) -> Option<String> {
    obj.pointer("/metadata/deletionTimestamp")
        .and_then(Value::as_str)
        .map(Into::into)
}

/// Whether `xr` (of the Composition's type) renders with the Composition once it is applied.
pub(crate) fn verdict(cx: &Context<'_>, xr: &Value) -> Verdict {
    if let Some(since) = deleting(xr) {
        return Verdict::LeftOut(LeftOut::Deleting { since });
    }
    let why = match chosen(cx, xr) {
        Ok(why) => why,
        Err(left_out) => return Verdict::LeftOut(left_out),
    };
    match revision(cx, xr) {
        Ok(manual) => Verdict::Adopts { why, manual },
        Err(left_out) => Verdict::LeftOut(left_out),
    }
}

/// The Composition chain: `Ok` when it ends at the Composition.
fn chosen(cx: &Context<'_>, xr: &Value) -> Result<Adoption, LeftOut> {
    let name = name_of(cx.composition);
    let named = |other: &str, why: Adoption, left_out: fn(String) -> LeftOut| {
        if other == name {
            Ok(why)
        } else {
            Err(left_out(other.into()))
        }
    };
    if let Some(enforced) = xrd_ref(cx.xrd, "enforcedCompositionRef") {
        return named(enforced, Adoption::Enforced, |name| LeftOut::Enforced {
            name,
        });
    }
    if let Some(r) = field(xr, &["compositionRef", "name"]).and_then(Value::as_str)
        && !r.is_empty()
    {
        return named(r, Adoption::CompositionRef, |name| {
            LeftOut::OtherComposition { name }
        });
    }
    let selector = field(xr, &["compositionSelector"]);
    if selector.is_none()
        && let Some(default) = xrd_ref(cx.xrd, "defaultCompositionRef")
    {
        return named(default, Adoption::Default, |name| {
            LeftOut::OtherComposition { name }
        });
    }
    // A selector without matchLabels selects every Composition of the type, as no selector does.
    let labels = selector
        .and_then(|s| s.get("matchLabels"))
        .and_then(Value::as_object);
    let candidates = candidates(cx, labels);
    match candidates.as_slice() {
        [only] if only.as_str() == name => Ok(if selector.is_some() {
            Adoption::Selector
        } else {
            Adoption::OnlyOne
        }),
        many if many.iter().any(|c| c.as_str() == name) => Err(LeftOut::Ambiguous {
            candidates: candidates.clone(),
        }),
        _ if selector.is_some() => Err(LeftOut::SelectorMismatch {
            selector: selector.cloned().unwrap_or(Value::Null),
        }),
        [only] => Err(LeftOut::OtherComposition { name: only.clone() }),
        _ => Err(LeftOut::Ambiguous { candidates }),
    }
}

/// The names of the Compositions of the new one's type matching `labels`, the cluster's version
/// of the new one replaced by it, sorted.
fn candidates(cx: &Context<'_>, labels: Option<&Map<String, Value>>) -> Vec<String> {
    let name = name_of(cx.composition);
    let of_type = type_of(cx.composition);
    let mut out: Vec<String> = cx
        .compositions
        .iter()
        .filter(|c| name_of(c) != name)
        .chain(std::iter::once(cx.composition))
        .filter(|c| type_of(c) == of_type)
        .filter(|c| labels.is_none_or(|l| has_labels(own_labels(c), l)))
        .map(|c| name_of(c).to_owned())
        .collect();
    out.sort();
    out
}

/// The revision rules: `Ok(manual)` when the composite takes the revision the Composition
/// creates (`manual`: only because --include-manual asks for it).
fn revision(cx: &Context<'_>, xr: &Value) -> Result<bool, LeftOut> {
    let policy = field(xr, &["compositionUpdatePolicy"])
        .and_then(Value::as_str)
        .or_else(|| {
            cx.xrd
                .map(|d| str_at(d, "/spec/defaultCompositionUpdatePolicy"))
                .filter(|p| !p.is_empty())
        })
        .unwrap_or("Automatic");
    let pinned = field(xr, &["compositionRevisionRef", "name"])
        .and_then(Value::as_str)
        .filter(|r| !r.is_empty());
    if policy == "Manual" {
        // Without a revision yet, Crossplane pins the latest one: the new one.
        return match pinned {
            Some(revision) if !cx.include_manual => Err(LeftOut::ManualPolicy {
                revision: revision.into(),
            }),
            Some(_) => Ok(true),
            None => Ok(false),
        };
    }
    let Some(selector) = field(xr, &["compositionRevisionSelector"]) else {
        return Ok(false);
    };
    let labels = selector.get("matchLabels").and_then(Value::as_object);
    let mut revision_labels = own_labels(cx.composition).cloned().unwrap_or_default();
    revision_labels
        .entry(COMPOSITION_NAME_LABEL)
        .or_insert_with(|| name_of(cx.composition).into());
    if labels.is_none_or(|l| has_labels(Some(&revision_labels), l)) {
        Ok(false)
    } else {
        Err(LeftOut::RevisionSelectorMismatch {
            selector: selector.clone(),
        })
    }
}

/// A Crossplane field of a composite: `spec.<path>`, or v2's `spec.crossplane.<path>`.
pub(crate) fn field<'a>(xr: &'a Value, path: &[&str]) -> Option<&'a Value> {
    let spec = xr.get("spec")?;
    let at = |v: &'a Value| path.iter().try_fold(v, |v, k| v.get(*k));
    at(spec)
        .or_else(|| spec.get("crossplane").and_then(at))
        .filter(|v| !v.is_null())
}

fn xrd_ref<'a>(xrd: Option<&'a Value>, field: &str) -> Option<&'a str> {
    xrd.and_then(|d| d.get("spec")?.get(field)?.get("name")?.as_str())
        .filter(|n| !n.is_empty())
}

fn name_of(v: &Value) -> &str {
    str_at(v, "/metadata/name")
}

fn type_of(c: &Value) -> (&str, &str) {
    (
        str_at(c, "/spec/compositeTypeRef/apiVersion"),
        str_at(c, "/spec/compositeTypeRef/kind"),
    )
}

fn own_labels(v: &Value) -> Option<&Map<String, Value>> {
    v.pointer("/metadata/labels").and_then(Value::as_object)
}

fn has_labels(labels: Option<&Map<String, Value>>, want: &Map<String, Value>) -> bool {
    want.iter()
        .all(|(k, v)| labels.and_then(|l| l.get(k)) == Some(v))
}

#[cfg(test)]
mod tests;
