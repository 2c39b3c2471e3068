//! The impact summary: how many composites were analysed, how many change and how, which failed,
//! which were left out and why; as text after the reviews, or as the `impact` member of the
//! JSON/YAML document (crossplane-diff's statuses: `changed`, `unchanged`, `error`, `filtered`
//! with a `filterReason`).

use std::collections::BTreeMap;
use std::io::Write;

use serde_json::{Value, json};

use super::adopt::LeftOut;
use super::scope::ObjectRef;
use super::{Analysed, Impact, Skipped};
use crate::review::report::Summary;

/// The counts of an analysis.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    pub(crate) analysed: usize,
    pub(crate) changed: usize,
    pub(crate) unchanged: usize,
    pub(crate) failed: usize,
    pub(crate) resources: Summary,
    /// Reason → composites left out for it.
    pub(crate) left_out: BTreeMap<&'static str, usize>,
}

impl Counts {
    pub(crate) fn of(impact: &Impact) -> Counts {
        let mut c = Counts {
            analysed: impact.analysed.len(),
            ..Counts::default()
        };
        for a in &impact.analysed {
            match a.review.status() {
                "error" => c.failed += 1,
                "changed" => c.changed += 1,
                _ => c.unchanged += 1,
            }
            c.resources = c.resources.add(a.review.summary());
        }
        for s in &impact.left_out {
            *c.left_out.entry(s.why.reason()).or_default() += 1;
        }
        c
    }
}

/// The summary as text, written after the reviews.
pub(crate) fn text(out: &mut dyn Write, impact: &Impact) -> std::io::Result<()> {
    let c = Counts::of(impact);
    writeln!(
        out,
        "Impact of Composition {:?} on the composite resources in {}:",
        impact.composition, impact.origin
    )?;
    writeln!(
        out,
        "  {} analysed: {} change ({}), {} unchanged, {} failed",
        c.analysed,
        c.changed,
        c.resources.text(),
        c.unchanged,
        c.failed
    )?;
    for a in impact
        .analysed
        .iter()
        .filter(|a| !a.review.errors.is_empty())
    {
        let first = a.review.errors[0].lines().next().unwrap_or_default();
        writeln!(out, "  failed: {}: {first}", label(&a.xr, a.claim.as_ref()))?;
    }
    for a in impact.analysed.iter().filter(|a| a.manual) {
        writeln!(
            out,
            "  included by --include-manual (Crossplane keeps its pinned revision): {}",
            label(&a.xr, a.claim.as_ref())
        )?;
    }
    if impact.left_out.is_empty() {
        return Ok(());
    }
    writeln!(out, "  {} left out:", impact.left_out.len())?;
    // Composites of other Compositions are many and alike: counted per Composition.
    let mut others: BTreeMap<&str, usize> = BTreeMap::new();
    for s in &impact.left_out {
        match &s.why {
            LeftOut::OtherComposition { name } => *others.entry(name).or_default() += 1,
            why => writeln!(out, "    {}: {}", skipped_label(s), why.detail())?,
        }
    }
    for (name, n) in others {
        writeln!(out, "    {n} use Composition {name:?}")?;
    }
    Ok(())
}

/// The summary as the document's `impact` member.
pub(crate) fn document(impact: &Impact) -> Value {
    let c = Counts::of(impact);
    let composites: Vec<Value> = impact
        .analysed
        .iter()
        .map(analysed_json)
        .chain(impact.left_out.iter().map(skipped_json))
        .collect();
    json!({
        "composition": impact.composition,
        "analysed": c.analysed,
        "changed": c.changed,
        "unchanged": c.unchanged,
        "failed": c.failed,
        "resources": c.resources.to_json(),
        "leftOut": impact.left_out.len(),
        "leftOutByReason": c.left_out,
        "composites": composites,
    })
}

fn analysed_json(a: &Analysed) -> Value {
    let mut v = json!({
        "xr": ref_json(&a.xr),
        "status": a.review.status(),
        "adoption": a.why.reason(),
        "summary": a.review.summary().to_json(),
    });
    if let Some(c) = &a.claim {
        v["claim"] = ref_json(c);
    }
    if a.manual {
        v["includedByIncludeManual"] = true.into();
    }
    v
}

fn skipped_json(s: &Skipped) -> Value {
    let mut v = json!({
        "status": "filtered",
        "filterReason": s.why.reason(),
        "detail": s.why.detail(),
    });
    if let Some(x) = &s.xr {
        v["xr"] = ref_json(x);
    }
    if let Some(c) = &s.claim {
        v["claim"] = ref_json(c);
    }
    v
}

fn ref_json(r: &ObjectRef) -> Value {
    let mut v = json!({"apiVersion": r.api_version, "kind": r.kind, "name": r.name});
    if let Some(ns) = &r.namespace {
        v["namespace"] = ns.as_str().into();
    }
    v
}

fn label(xr: &ObjectRef, claim: Option<&ObjectRef>) -> String {
    match claim {
        Some(c) => format!("{xr} (claim {c})"),
        None => xr.to_string(),
    }
}

fn skipped_label(s: &Skipped) -> String {
    match (&s.xr, &s.claim) {
        (Some(x), c) => label(x, c.as_ref()),
        (None, Some(c)) => c.to_string(),
        (None, None) => String::new(),
    }
}
