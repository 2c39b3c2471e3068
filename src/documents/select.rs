//! Choosing the Composition for the XR, as Crossplane v1.14 does.
//!
//! Order: the XRD's `enforcedCompositionRef` (applied over anything the XR says), the XR's
//! `compositionRef`, its `compositionSelector.matchLabels`, the XRD's `defaultCompositionRef`,
//! else the only Composition whose `compositeTypeRef` is the XR's type. v2 XRs keep these fields
//! under `spec.crossplane`. `options.compositionName` wins over all of these (it is the user's
//! explicit choice); with `options.localCompositions` the only Composition given for the XR's
//! type wins too. Several Compositions matching the selector are an error: Crossplane picks one
//! at random (then records it in `compositionRef`), which a render cannot reproduce. Then the
//! revision: see [`super::revision`].

use std::borrow::Cow;

use crate::error::Result;
use crate::value::Value;

use super::classify::xr_field;
use super::classify::{Catalog, at, display, indexes, is_crossplane, name_of, str_at};
use super::{Choices, invalid, revision};

/// The Composition (or revision, as a Composition) a render uses.
pub(crate) struct Chosen {
    pub(crate) composition: Value,
    /// The Composition's name, or the revision's.
    pub(crate) name: String,
    /// Which rule chose it.
    pub(crate) reason: String,
}

/// A Composition given, or the latest revision of one that is not given.
struct Candidate<'a> {
    index: usize,
    /// Borrowed from the request: only the chosen one is copied.
    value: Cow<'a, Value>,
}

pub(crate) fn choose(
    cat: &mut Catalog<'_>,
    xr: &Value,
    xrd: Option<usize>,
    choices: &Choices,
) -> Result<Chosen> {
    let mut all = candidates(cat);
    let xr_type = xr_type(xr);
    let (pos, reason) = if let Some(name) = choices.composition_name.as_deref() {
        // The user's explicit choice wins over every rule, the XRD's enforced ref included.
        let Some(pos) = all.iter().position(|c| name_of(&c.value) == name) else {
            let found: Vec<String> = all
                .iter()
                .map(|c| crate::go::quote(name_of(&c.value)))
                .collect();
            return Err(invalid(format!(
                "options.compositionName: no Composition named {} (found: {})",
                crate::go::quote(name),
                found.join(", ")
            ))
            .with_field_path("options.compositionName"));
        };
        by_name(cat, &all, xr_type, name, "options.compositionName")?;
        (pos, "options.compositionName".to_owned())
    } else {
        let xrd = xrd.map(|i| cat.docs[i].clone());
        let enforced = xrd_ref(xrd.as_deref(), "enforcedCompositionRef");
        let default_ref = xrd_ref(xrd.as_deref(), "defaultCompositionRef");
        let for_type = indexes(all.len(), &mut |i| composite_type(&all[i].value) == xr_type);
        match for_type.as_slice() {
            // Local candidates for a live XR: the references name the cluster's Compositions.
            [one] if choices.local_compositions => (*one, only_one(xr_type)),
            [] if choices.local_compositions => return Err(none_for_type(&all, xr_type)),
            _ => pick(cat, &all, xr, enforced, default_ref)?,
        }
    };
    let picked = all.swap_remove(pos);
    let why = if choices.composition_name.is_some() {
        "not the Composition options.compositionName names"
    } else {
        "not the chosen Composition"
    };
    for c in &all {
        cat.skip(c.index, why);
    }
    // An explicit name or a local Composition is rendered as given: the XR's revision
    // references belong to the cluster's Composition.
    let follow = choices.composition_name.is_none() && !choices.local_compositions;
    let (composition, name, reason) = revision::resolve(
        cat,
        xr,
        picked.value.into_owned(),
        picked.index,
        reason,
        follow,
    )?;
    Ok(Chosen {
        composition,
        name,
        reason,
    })
}

/// An error unless a Composition or CompositionRevision is among the documents.
pub(crate) fn require_any(cat: &Catalog<'_>) -> Result<()> {
    if cat.crossplane("Composition").is_empty() && cat.crossplane("CompositionRevision").is_empty()
    {
        return Err(invalid(format!(
            "no Composition (kind: Composition) among {} document(s)",
            cat.docs.len()
        )));
    }
    Ok(())
}

/// `crossplane render`'s checks of the one Composition it is given, in its order and words,
/// before anything else is read: its `compositeTypeRef` against the XR's type, then the labels
/// the XR's `compositionSelector` asks for (in key order: Go walks the map in random order).
/// Several Compositions (or revisions) are chosen among by the rules of [`choose`] instead.
pub(crate) fn crossplane_checks(cat: &Catalog<'_>, xr: &Value) -> Result<()> {
    let compositions = cat.crossplane("Composition");
    let ([only], true) = (
        compositions.as_slice(),
        cat.crossplane("CompositionRevision").is_empty(),
    ) else {
        return Ok(());
    };
    let comp = &cat.docs[*only];
    let (api_version, kind) = xr_type(xr);
    let (want_api_version, want_kind) = composite_type(comp);
    if want_kind != kind {
        return Err(render_error(format!(
            "composition's compositeTypeRef.kind ({want_kind}) does not match XR's kind ({kind})"
        )));
    }
    if want_api_version != api_version {
        return Err(render_error(format!(
            "composition's compositeTypeRef.apiVersion ({want_api_version}) does not match XR's apiVersion ({api_version})"
        )));
    }
    let selector = xr_field(xr, &["compositionSelector", "matchLabels"]).and_then(Value::as_object);
    let labels = at(comp, &["metadata", "labels"]);
    for (key, want) in selector.into_iter().flatten() {
        let name = crate::go::quote(name_of(comp));
        let got = labels.and_then(|l| l.get(key));
        let Some(got) = got else {
            return Err(render_error(format!(
                "composition {name} is missing required label {}",
                crate::go::quote(key)
            )));
        };
        let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
        if got != want {
            return Err(render_error(format!(
                "composition {name} has incorrect value for label {}: want {}, got {}",
                crate::go::quote(key),
                crate::go::quote(&text(want)),
                crate::go::quote(&text(got))
            )));
        }
    }
    Ok(())
}

/// An error Crossplane reports before it renders anything (exit 1 in `crossplane render`).
fn render_error(message: String) -> crate::error::Error {
    crate::error::Error::new(crate::error::ErrorKind::Render, message)
}

/// The Compositions given; for a Composition known only by its revisions, its latest revision.
fn candidates<'a>(cat: &mut Catalog<'a>) -> Vec<Candidate<'a>> {
    let mut out: Vec<Candidate> = cat
        .crossplane("Composition")
        .into_iter()
        .map(|i| Candidate {
            index: i,
            value: cat.docs[i].clone(),
        })
        .collect();
    for (i, value) in revision::orphans(cat) {
        if !out.iter().any(|c| name_of(&c.value) == name_of(&value)) {
            out.push(Candidate {
                index: i,
                value: Cow::Owned(value),
            });
        }
    }
    out
}

fn xrd_ref<'a>(xrd: Option<&'a Value>, field: &str) -> Option<&'a str> {
    xrd.and_then(|d| str_at(d, &["spec", field, "name"]))
        .filter(|n| !n.is_empty())
}

/// The position among `all` of the Composition Crossplane's rules choose, and the rule.
fn pick(
    cat: &mut Catalog<'_>,
    all: &[Candidate],
    xr: &Value,
    enforced: Option<&str>,
    default_ref: Option<&str>,
) -> Result<(usize, String)> {
    let xr_type = xr_type(xr);
    if let Some(name) = enforced {
        return by_name(
            cat,
            all,
            xr_type,
            name,
            "the XRD's spec.enforcedCompositionRef",
        );
    }
    if let Some(name) = xr_field(xr, &["compositionRef", "name"]).and_then(Value::as_str) {
        return by_name(cat, all, xr_type, name, "the XR's compositionRef");
    }
    if let Some(labels) =
        xr_field(xr, &["compositionSelector", "matchLabels"]).and_then(Value::as_object)
    {
        let matching = indexes(all.len(), &mut |i| {
            composite_type(&all[i].value) == xr_type
                && labels
                    .iter()
                    .all(|(k, v)| at(&all[i].value, &["metadata", "labels", k]) == Some(v))
        });
        return match matching.as_slice() {
            [one] => Ok((*one, "the XR's compositionSelector".into())),
            [] => Err(invalid(format!(
                "no Composition for {} matches the XR's compositionSelector {} (found: {})",
                type_name(xr_type),
                Value::Object(labels.clone()).to_json(),
                names(cat, all, &(0..all.len()).collect::<Vec<_>>())
            ))),
            many => Err(invalid(format!(
                "{} Compositions match the XR's compositionSelector, Crossplane would pick one \
                 at random: {}; set spec.compositionRef.name to choose",
                many.len(),
                names(cat, all, many)
            ))),
        };
    }
    if let Some(name) = default_ref {
        return by_name(
            cat,
            all,
            xr_type,
            name,
            "the XRD's spec.defaultCompositionRef",
        );
    }
    let matching: Vec<usize> = (0..all.len())
        .filter(|&i| composite_type(&all[i].value) == xr_type)
        .collect();
    match matching.as_slice() {
        [one] => Ok((*one, only_one(xr_type))),
        [] => Err(none_for_type(all, xr_type)),
        many => Err(invalid(format!(
            "{} Compositions are for {}: {}; choose one with the XR's spec.compositionRef.name \
             or spec.compositionSelector, or pass only one",
            many.len(),
            type_name(xr_type),
            names(cat, all, many)
        ))),
    }
}

fn none_for_type(all: &[Candidate], xr_type: (&str, &str)) -> crate::error::Error {
    invalid(format!(
        "no Composition has compositeTypeRef {} (found: {})",
        type_name(xr_type),
        all.iter()
            .map(|c| format!(
                "{} for {}",
                name_of(&c.value),
                type_name(composite_type(&c.value))
            ))
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

fn by_name(
    cat: &Catalog<'_>,
    all: &[Candidate],
    xr_type: (&str, &str),
    name: &str,
    why: &str,
) -> Result<(usize, String)> {
    let Some(pos) = all.iter().position(|c| name_of(&c.value) == name) else {
        return Err(invalid(format!(
            "{why} names Composition {}, which is not among the documents given (found: {})",
            crate::go::quote(name),
            names(cat, all, &(0..all.len()).collect::<Vec<_>>())
        )));
    };
    let found = &all[pos].value;
    if composite_type(found) != xr_type {
        return Err(invalid(format!(
            "Composition {} is for {}, not for the XR's {}",
            crate::go::quote(name),
            type_name(composite_type(found)),
            type_name(xr_type)
        )));
    }
    Ok((pos, why.to_owned()))
}

fn xr_type(xr: &Value) -> (&str, &str) {
    (
        str_at(xr, &["apiVersion"]).unwrap_or(""),
        str_at(xr, &["kind"]).unwrap_or(""),
    )
}

fn composite_type(c: &Value) -> (&str, &str) {
    (
        str_at(c, &["spec", "compositeTypeRef", "apiVersion"]).unwrap_or(""),
        str_at(c, &["spec", "compositeTypeRef", "kind"]).unwrap_or(""),
    )
}

fn only_one(xr_type: (&str, &str)) -> String {
    format!("the only Composition for {}", type_name(xr_type))
}

fn type_name((api_version, kind): (&str, &str)) -> String {
    format!("{kind}.{api_version}")
}

/// `"name" (documents[i])`, comma-separated.
fn names(cat: &Catalog<'_>, all: &[Candidate], which: &[usize]) -> String {
    if which.is_empty() {
        return "none".into();
    }
    which
        .iter()
        .map(|&p| {
            let c = &all[p];
            let what = if is_crossplane(&cat.docs[c.index], "Composition") {
                String::new()
            } else {
                format!("{}, ", display(&cat.docs[c.index]))
            };
            format!(
                "{} ({what}documents[{}])",
                crate::go::quote(name_of(&c.value)),
                c.index
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}
