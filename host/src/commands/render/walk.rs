//! The objects of an Output in print order: the XR, then each composed resource in its level's
//! order; a nested XR (a resource with `nested`) in its place, followed by its own resources.
//! The YAML stream, `--output tree` and the results on stderr all read the tree this way.

use std::borrow::Cow;

use serde_json::Value;

use crate::commands::crossplane_render;
use crate::runtime::json::{Json, sorted_members};

/// The composed-resource order of each level: the top level's, and for a nested level that of
/// the Composition (or revision) its Output names, among those given: documents read from
/// files or a cluster, or the documents of a raw request, read in place.
pub(crate) struct Orders<'c> {
    top: Vec<String>,
    compositions: &'c [Value],
    in_request: Vec<Json<'c>>,
}

impl<'c> Orders<'c> {
    pub(crate) fn new(top: Vec<String>, compositions: &'c [Value]) -> Self {
        Orders {
            top,
            compositions,
            in_request: Vec::new(),
        }
    }

    /// The orders of a raw request: its Compositions and revisions among its `documents`.
    pub(crate) fn of_request(top: Vec<String>, request: Option<Json<'c>>) -> Self {
        let in_request = request
            .and_then(|r| r.get("documents"))
            .into_iter()
            .flat_map(Json::items)
            .filter(|d| {
                d.get("kind")
                    .and_then(Json::as_str)
                    .is_some_and(|k| matches!(&*k, "Composition" | "CompositionRevision"))
            })
            .collect();
        Orders {
            top,
            compositions: &[],
            in_request,
        }
    }

    /// The order of the Composition (or revision) of this name, when it was given.
    pub(crate) fn named(&self, name: &str) -> Option<Vec<String>> {
        let given = self
            .compositions
            .iter()
            .find(|c| c.pointer("/metadata/name").and_then(Value::as_str) == Some(name));
        if let Some(c) = given {
            return Some(output_order(c));
        }
        let c = self.in_request.iter().find(|c| {
            c.lookup(&["metadata", "name"])
                .and_then(Json::as_str)
                .as_deref()
                == Some(name)
        })?;
        // A Pipeline's resources print by name, as `crossplane render` prints them.
        let pipeline = c
            .lookup(&["spec", "mode"])
            .and_then(Json::as_str)
            .as_deref()
            == Some("Pipeline");
        Some(if pipeline {
            Vec::new()
        } else {
            resource_order(*c)
        })
    }

    /// The order of the level whose Output is `level`; an unknown Composition orders by name.
    fn of(&self, level: Json<'_>, top: bool) -> Cow<'_, [String]> {
        if top {
            return Cow::Borrowed(&self.top);
        }
        level
            .lookup(&["inputs", "composition"])
            .and_then(Json::as_str)
            .and_then(|name| self.named(&name))
            .map_or(Cow::Owned(Vec::new()), Cow::Owned)
    }
}

/// One object of the tree.
pub(crate) struct Node<'a> {
    /// The template names from the top XR down to this object (empty: the top XR).
    pub(crate) path: Vec<Cow<'a, str>>,
    /// For each level of `path`, whether the object there is the last of its siblings.
    pub(crate) last: Vec<bool>,
    /// The object: an XR as its own render leaves it, a composed resource as its XR desires it.
    pub(crate) object: Option<Json<'a>>,
    /// The Output of the render this object is the XR of (the top's, or a nested one).
    pub(crate) level: Option<Json<'a>>,
    /// The XR's own readiness, or the composed resource's as its XR judged it.
    pub(crate) ready: bool,
    /// False when the render reported a problem with the object: a Fatal result of its own
    /// render (an XR), or a Warning or Fatal result naming its template (a composed resource).
    pub(crate) synced: bool,
}

impl Node<'_> {
    /// The template names joined with `/` (`network/vpc`), empty for the top XR.
    pub(crate) fn at(&self) -> String {
        self.path.join("/")
    }

    /// `Kind/name`, or `Kind/prefix*` for a name still to be generated.
    pub(crate) fn display_name(&self) -> String {
        let text = |path: &[&str]| {
            self.object
                .and_then(|o| o.lookup(path))
                .and_then(Json::as_str)
                .unwrap_or_default()
        };
        let kind = text(&["kind"]);
        match text(&["metadata", "name"]) {
            name if !name.is_empty() => format!("{kind}/{name}"),
            _ => format!("{kind}/{}*", text(&["metadata", "generateName"])),
        }
    }
}

/// The objects of `output` in print order.
pub(crate) fn nodes<'a>(output: Json<'a>, orders: &Orders<'_>) -> Vec<Node<'a>> {
    let mut out = vec![Node {
        path: Vec::new(),
        last: Vec::new(),
        object: output.get("composite"),
        level: Some(output),
        ready: is_true(output.get("ready")),
        synced: !has_result(output, None, &["Fatal"]),
    }];
    descend(output, orders, &mut out, &[], &[]);
    out
}

fn descend<'a>(
    level: Json<'a>,
    orders: &Orders<'_>,
    out: &mut Vec<Node<'a>>,
    path: &[Cow<'a, str>],
    last: &[bool],
) {
    let Some(resources) = level.get("resources").filter(|r| r.is_object()) else {
        return;
    };
    let order = orders.of(level, path.is_empty());
    let entries: Vec<_> = ordered(resources, &order)
        .into_iter()
        .filter(|(_, entry)| entry.get("resource").is_some())
        .collect();
    let count = entries.len();
    for (i, (name, entry)) in entries.into_iter().enumerate() {
        let mut path = path.to_vec();
        path.push(name.clone());
        let mut last = last.to_vec();
        last.push(i + 1 == count);
        let named = !has_result(level, Some(&name), &["Warning", "Fatal"]);
        match entry.get("nested").filter(|n| n.is_object()) {
            Some(nested) => {
                out.push(Node {
                    path: path.clone(),
                    last: last.clone(),
                    object: nested.get("composite"),
                    level: Some(nested),
                    ready: is_true(nested.get("ready")),
                    synced: named && !has_result(nested, None, &["Fatal"]),
                });
                descend(nested, orders, out, &path, &last);
            }
            None => out.push(Node {
                path,
                last,
                object: entry.get("resource"),
                level: None,
                ready: is_true(entry.get("ready")),
                synced: named,
            }),
        }
    }
}

/// A level's resources: those `order` names in that order, then the others by name.
fn ordered<'a>(resources: Json<'a>, order: &[String]) -> Vec<(Cow<'a, str>, Json<'a>)> {
    let mut members = sorted_members(resources);
    let mut out = Vec::with_capacity(members.len());
    for name in order {
        if let Ok(i) = members.binary_search_by(|(k, _)| k.as_ref().cmp(name)) {
            out.push(members.remove(i));
        }
    }
    out.extend(members);
    out
}

fn is_true(v: Option<Json<'_>>) -> bool {
    v.is_some_and(|v| v.text() == b"true")
}

/// Whether the level's results hold one of `severities` (naming `resource`, when given).
fn has_result(level: Json<'_>, resource: Option<&str>, severities: &[&str]) -> bool {
    level
        .get("results")
        .into_iter()
        .flat_map(Json::items)
        .any(|r| {
            let text = |k: &str| r.get(k).and_then(Json::as_str);
            text("severity").is_some_and(|s| severities.contains(&&*s))
                && resource.is_none_or(|name| text("resource").as_deref() == Some(name))
        })
}

/// The order composed resources are printed in for `composition`: as it lists them, except for
/// a Pipeline (by name, as `crossplane render` prints them).
pub(crate) fn output_order(composition: &Value) -> Vec<String> {
    let mut order = serde_json::to_string(composition)
        .map(|text| order_of_text(&text))
        .unwrap_or_default();
    crossplane_render::pipeline_order(composition, &mut order);
    order
}

/// Resource names in the order the Composition lists them (classic or P&T pipeline steps).
pub(crate) fn resource_order(composition: Json<'_>) -> Vec<String> {
    std::str::from_utf8(composition.text())
        .map(order_of_text)
        .unwrap_or_default()
}

/// The engine's composed-resource order of a Composition's JSON text.
fn order_of_text(text: &str) -> Vec<String> {
    xprender::Value::from_json(text)
        .map(|c| xprender::model::composed_order(&c))
        .unwrap_or_default()
}
