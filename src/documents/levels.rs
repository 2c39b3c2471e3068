//! Which level of an XR tree each observed document belongs to.
//!
//! A host may hand over the observed objects of a whole tree at once: the XR's composed
//! resources, among them nested XRs, and theirs. Crossplane knows an XR's composed resources by
//! its `spec.resourceRefs` (`spec.crossplane.resourceRefs` in v2) and by their controller
//! reference; a document either names is that XR's. Nested XRs are the observed objects (those
//! annotated `crossplane.io/composition-resource-name`) of a type a Composition, revision or XRD
//! given composes. Everything else belongs to the top level.

use crate::value::{Map, Value};

use super::classify::{
    annotation, at, composite_types, group, is_crossplane_api, kind, name_of, str_at,
};

/// For every document, the nested XR (by index) it belongs to; `None`: the top level (the XR,
/// its composed resources, and every object no nested XR claims).
pub(crate) fn owners(docs: &[Value]) -> Vec<Option<usize>> {
    let types = composite_types(docs);
    let nested: Vec<usize> = (0..docs.len())
        .filter(|&i| {
            let d = &docs[i];
            !is_crossplane_api(d)
                && !annotation(d).is_empty()
                && types.iter().any(|(g, k)| *g == group(d) && *k == kind(d))
        })
        .collect();
    (0..docs.len())
        .map(|i| {
            let d = &docs[i];
            if is_shared(d) {
                return None;
            }
            let others = nested.iter().copied().filter(|&x| x != i);
            others
                .clone()
                .find(|&x| lists(&docs[x], d))
                .or_else(|| others.clone().find(|&x| controls(&docs[x], d)))
        })
        .collect()
}

/// Whether `xr`'s resource references name `d`.
fn lists(xr: &Value, d: &Value) -> bool {
    let refs = at(xr, &["spec", "resourceRefs"])
        .or_else(|| at(xr, &["spec", "crossplane", "resourceRefs"]))
        .and_then(Value::as_array);
    refs.into_iter().flatten().any(|r| {
        str_at(r, &["apiVersion"]) == str_at(d, &["apiVersion"])
            && str_at(r, &["kind"]) == Some(kind(d))
            && str_at(r, &["name"]) == Some(name_of(d))
    })
}

/// Whether `d`'s controller reference is `xr` (by uid when both have one).
fn controls(xr: &Value, d: &Value) -> bool {
    let refs = at(d, &["metadata", "ownerReferences"]).and_then(Value::as_array);
    refs.into_iter().flatten().any(|r| {
        let uid = (str_at(r, &["uid"]), str_at(xr, &["metadata", "uid"]));
        r.get("controller") == Some(&Value::Bool(true))
            && str_at(r, &["kind"]) == Some(kind(xr))
            && str_at(r, &["name"]) == Some(name_of(xr))
            && str_at(r, &["apiVersion"]) == str_at(xr, &["apiVersion"])
            && match uid {
                (Some(a), Some(b)) if !a.is_empty() && !b.is_empty() => a == b,
                _ => true,
            }
    })
}

/// Whether every level sees the document: Crossplane's own objects (Compositions, XRDs,
/// EnvironmentConfigs, ...) and Secrets.
pub(crate) fn is_shared(d: &Value) -> bool {
    is_crossplane_api(d) || kind(d) == "Secret" && group(d).is_empty()
}

/// The `inputs.unused` entry of document `i`, which belongs to nested XR `owner`, that was not
/// rendered.
pub(crate) fn unused_entry(docs: &[Value], i: usize, owner: usize) -> Value {
    let mut m = Map::new();
    m.insert(
        "document".into(),
        Value::Int(i64::try_from(i).unwrap_or(i64::MAX)),
    );
    m.insert("kind".into(), kind(&docs[i]).into());
    m.insert("name".into(), name_of(&docs[i]).into());
    m.insert(
        "why".into(),
        format!(
            "belongs to {}/{} (by its resource references or controller reference), which was \
             not rendered",
            kind(&docs[owner]),
            name_of(&docs[owner])
        )
        .into(),
    );
    Value::Object(m)
}

pub(crate) use super::classify::{group as group_of, kind as kind_of};

/// The object's name, else `generateName` followed by `*` (the API server completes it).
pub(crate) fn name_or_generated(d: &Value) -> String {
    match name_of(d) {
        "" => format!(
            "{}*",
            str_at(d, &["metadata", "generateName"]).unwrap_or("")
        ),
        n => n.to_owned(),
    }
}
