//! Choosing the Composition for an XR among the documents given, as Crossplane would.
//!
//! Order: the XRD's `enforcedCompositionRef` (Crossplane applies it over anything the XR
//! says), the XR's `compositionRef`, its `compositionSelector.matchLabels`, the XRD's
//! `defaultCompositionRef`, else the only Composition whose `compositeTypeRef` matches the XR.
//! v2 XRs keep these fields under `spec.crossplane`.

use serde_json::Value;

use crate::io::{Doc, InputError, input_error, lookup};

/// The chosen Composition and, when selection was not by an explicit reference, why.
pub(crate) struct Selected<'a> {
    pub(crate) composition: &'a Doc,
    pub(crate) reason: String,
}

/// Picks the Composition for `xr` among `compositions` (only `kind: Composition` documents).
pub(crate) fn composition<'a>(
    xr: &Doc,
    compositions: &'a [Doc],
    xrd: Option<&Doc>,
) -> Result<Selected<'a>, InputError> {
    if compositions.is_empty() {
        return Err(input_error!(
            "no Composition found among the documents given"
        ));
    }
    let xr_type = (xr.str_at(&["apiVersion"]).unwrap_or(""), xr.kind());
    let xrd_ref = |field: &str| {
        xrd.and_then(|d| d.str_at(&["spec", field, "name"]))
            .filter(|n| !n.is_empty())
    };
    let by_name = |name: &str, why: String| -> Result<Selected<'a>, InputError> {
        let found = compositions
            .iter()
            .find(|c| c.name() == name)
            .ok_or_else(|| {
                input_error!(
                    "{why} names Composition {name:?}, which is not among the documents given \
                 (found: {})",
                    names(compositions.iter())
                )
            })?;
        check_type(found, xr_type)?;
        Ok(Selected {
            composition: found,
            reason: why,
        })
    };

    if let Some(name) = xrd_ref("enforcedCompositionRef") {
        return by_name(name, "the XRD's spec.enforcedCompositionRef".into());
    }
    if let Some(name) = xr_field(xr, &["compositionRef", "name"]).and_then(Value::as_str) {
        return by_name(name, "the XR's compositionRef".into());
    }
    if let Some(labels) =
        xr_field(xr, &["compositionSelector", "matchLabels"]).and_then(Value::as_object)
    {
        let matching: Vec<&Doc> = compositions
            .iter()
            .filter(|c| type_matches(c, xr_type))
            .filter(|c| {
                labels.iter().all(|(k, v)| {
                    lookup(&c.value, &["metadata", "labels", k]).is_some_and(|l| l == v)
                })
            })
            .collect();
        return match matching.as_slice() {
            [one] => Ok(Selected {
                composition: one,
                reason: "the XR's compositionSelector".into(),
            }),
            [] => Err(input_error!(
                "no Composition for {} matches the XR's compositionSelector {} (found: {})",
                type_name(xr_type),
                Value::Object(labels.clone()),
                names(compositions.iter())
            )),
            many => Err(input_error!(
                "{} Compositions match the XR's compositionSelector, Crossplane would pick one \
                 at random: {}; set spec.compositionRef.name to choose",
                many.len(),
                names(many.iter().copied())
            )),
        };
    }
    if let Some(name) = xrd_ref("defaultCompositionRef") {
        return by_name(name, "the XRD's spec.defaultCompositionRef".into());
    }
    match for_type(compositions, xr_type)?.as_slice() {
        [one] => Ok(Selected {
            composition: one,
            reason: only_one(xr_type),
        }),
        many => Err(input_error!(
            "{} Compositions are for {}: {}; choose one with the XR's spec.compositionRef.name \
             or spec.compositionSelector, or pass only one",
            many.len(),
            type_name(xr_type),
            names(many.iter().copied())
        )),
    }
}

/// The `kind: Composition` documents among `docs` (from `source`); none is an error.
pub(crate) fn compositions(docs: &[Doc], source: &str) -> Result<Vec<Doc>, InputError> {
    let found: Vec<Doc> = docs
        .iter()
        .filter(|d| d.kind() == "Composition")
        .cloned()
        .collect();
    if found.is_empty() {
        return Err(input_error!(
            "{source}: no Composition (kind: Composition) among {} document(s)",
            docs.len()
        ));
    }
    Ok(found)
}

/// The Composition called `name` (`--composition-name`), or an error listing the names there are.
pub(crate) fn named<'a>(
    compositions: &'a [Doc],
    name: &str,
    source: &str,
) -> Result<&'a Doc, InputError> {
    compositions
        .iter()
        .find(|c| c.name() == name)
        .ok_or_else(|| {
            let available: Vec<String> = compositions
                .iter()
                .map(|c| format!("{:?}", c.name()))
                .collect();
            input_error!(
                "{source}: no Composition named {name:?} (found: {})",
                available.join(", ")
            )
        })
}

/// The Composition for a live XR among local documents (a file or a package): the one named
/// `name`, else the only one for the XR's type, else the one Crossplane's selection picks among
/// those for its type. Unlike [`composition`], a live XR's `compositionRef` (which Crossplane
/// always sets) does not have to name a local Composition when only one suits the XR: trying a
/// new Composition against live state is the point.
pub(crate) fn for_live_xr(
    xr: &Doc,
    compositions: &[Doc],
    xrd: Option<&Doc>,
    name: Option<&str>,
    source: &str,
) -> Result<(Doc, String), InputError> {
    let xr_type = (xr.str_at(&["apiVersion"]).unwrap_or(""), xr.kind());
    if let Some(name) = name {
        let found = named(compositions, name, source)?;
        check_type(found, xr_type)?;
        return Ok((found.clone(), "--composition-name".into()));
    }
    let matching: Vec<Doc> = for_type(compositions, xr_type)
        .map_err(|e| input_error!("{source}: {e}"))?
        .into_iter()
        .cloned()
        .collect();
    match matching.as_slice() {
        [one] => Ok((one.clone(), only_one(xr_type))),
        many => composition(xr, many, xrd)
            .map(|s| (s.composition.clone(), s.reason))
            .map_err(|e| input_error!("{source}: {e}; pick one with --composition-name")),
    }
}

/// The Compositions for the XR's type; none is an error listing the types there are.
fn for_type<'a>(
    compositions: &'a [Doc],
    xr_type: (&str, &str),
) -> Result<Vec<&'a Doc>, InputError> {
    let matching: Vec<&Doc> = compositions
        .iter()
        .filter(|c| type_matches(c, xr_type))
        .collect();
    if matching.is_empty() {
        return Err(input_error!(
            "no Composition has compositeTypeRef {} (found: {})",
            type_name(xr_type),
            compositions
                .iter()
                .map(|c| format!("{} for {}", c.name(), type_name(composite_type(c))))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(matching)
}

fn only_one(xr_type: (&str, &str)) -> String {
    format!("the only Composition for {}", type_name(xr_type))
}

/// An XRD among `docs` that defines the XR's kind.
pub(crate) fn find_xrd(xr: &Doc, docs: &[Doc]) -> Option<Doc> {
    let group = xr.str_at(&["apiVersion"])?.split('/').next()?;
    docs.iter()
        .find(|d| {
            d.kind() == "CompositeResourceDefinition"
                && d.str_at(&["spec", "group"]) == Some(group)
                && d.str_at(&["spec", "names", "kind"]) == Some(xr.kind())
        })
        .cloned()
}

/// The Composition selection fields of a v1 XR (`spec.X`) or a v2 XR (`spec.crossplane.X`).
fn xr_field<'a>(xr: &'a Doc, path: &[&str]) -> Option<&'a Value> {
    let spec = lookup(&xr.value, &["spec"])?;
    lookup(spec, path).or_else(|| lookup(spec, &[&["crossplane"], path].concat()))
}

fn composite_type(c: &Doc) -> (&str, &str) {
    (
        c.str_at(&["spec", "compositeTypeRef", "apiVersion"])
            .unwrap_or(""),
        c.str_at(&["spec", "compositeTypeRef", "kind"])
            .unwrap_or(""),
    )
}

fn type_matches(c: &Doc, xr_type: (&str, &str)) -> bool {
    composite_type(c) == xr_type
}

fn check_type(c: &Doc, xr_type: (&str, &str)) -> Result<(), InputError> {
    if type_matches(c, xr_type) {
        return Ok(());
    }
    Err(input_error!(
        "Composition {:?} is for {}, not for the XR's {}",
        c.name(),
        type_name(composite_type(c)),
        type_name(xr_type)
    ))
}

fn type_name((api_version, kind): (&str, &str)) -> String {
    format!("{kind}.{api_version}")
}

fn names<'a>(docs: impl Iterator<Item = &'a Doc>) -> String {
    let names: Vec<String> = docs
        .map(|d| format!("{:?} ({})", d.name(), d.origin()))
        .collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}
