//! The YAML stream `crossplane render` prints: the XR (partial unless --include-full-xr), each
//! composed resource in Composition order with its composition-resource-name annotation (nested
//! XRs in tree order), then the Result and Context documents.

use serde_json::Value;

use super::RenderArgs;
use super::walk::{self, Orders};
use crate::commands::crossplane_render;
use crate::io::{self, YamlNode};
use crate::runtime::json::{Json, sorted_members};

/// The annotation `crossplane render` adds to a composed resource that lacks it.
const RESOURCE_NAME: &str = "crossplane.io/composition-resource-name";

/// The YAML stream: the XR, then each composed resource, every document after `---`; a nested
/// XR is printed in its place as its own render leaves it, followed by its own resources.
pub(crate) fn yaml_stream(
    output: Json<'_>,
    xr: &[u8],
    orders: &Orders<'_>,
    include_full_xr: bool,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    for node in walk::nodes(output, orders) {
        let Some(object) = node.object else {
            continue;
        };
        out.write_all(b"---\n")?;
        let yaml = match node.path.last() {
            None if include_full_xr => YamlNode::Json(object),
            None => partial_xr(object, Json::parse(xr).ok()),
            Some(name) => with_annotation(object, name),
        };
        io::write_yaml(out, yaml)?;
    }
    Ok(())
}

/// What `crossplane render` prints of the XR without --include-full-xr: its identity, its
/// status, and the spec fields the render changed.
fn partial_xr<'a>(desired: Json<'a>, input: Option<Json<'_>>) -> YamlNode<'a> {
    let mut out = Vec::new();
    for key in ["apiVersion", "kind"] {
        if let Some(v) = desired.get(key) {
            out.push((key.into(), YamlNode::Json(v)));
        }
    }
    let mut meta = Vec::new();
    for key in ["name", "namespace"] {
        if let Some(v) = desired.lookup(&["metadata", key]) {
            meta.push((key.into(), YamlNode::Json(v)));
        }
    }
    out.push(("metadata".into(), YamlNode::Map(meta)));
    if let Some(spec) = desired.get("spec").filter(|s| s.is_object()) {
        let before = input
            .and_then(|i| i.get("spec"))
            .map(sorted_members)
            .unwrap_or_default();
        let changed: Vec<_> = sorted_members(spec)
            .into_iter()
            .filter(|(k, v)| {
                before
                    .binary_search_by(|(b, _)| b.cmp(k))
                    .map_or(true, |i| !before[i].1.same(*v))
            })
            .map(|(k, v)| (k, YamlNode::Json(v)))
            .collect();
        if !changed.is_empty() {
            out.push(("spec".into(), YamlNode::Map(changed)));
        }
    }
    if let Some(status) = desired.get("status") {
        out.push(("status".into(), YamlNode::Json(status)));
    }
    YamlNode::Map(out)
}

/// The resource with the composition-resource-name annotation `crossplane render` adds when
/// it is missing.
fn with_annotation<'a>(resource: Json<'a>, name: &str) -> YamlNode<'a> {
    /// `members` with `key` set to what `f` makes of its current value (`None` leaves it).
    fn edit<'a>(
        mut members: Vec<(std::borrow::Cow<'a, str>, YamlNode<'a>)>,
        key: &'a str,
        f: impl FnOnce(Option<Json<'a>>) -> Option<YamlNode<'a>>,
    ) -> YamlNode<'a> {
        match members.binary_search_by(|(k, _)| k.as_ref().cmp(key)) {
            Ok(i) => {
                if let YamlNode::Json(current) = members[i].1
                    && let Some(new) = f(Some(current))
                {
                    members[i].1 = new;
                }
            }
            Err(i) => {
                if let Some(new) = f(None) {
                    members.insert(i, (key.into(), new));
                }
            }
        }
        YamlNode::Map(members)
    }
    if !resource.is_object() {
        return YamlNode::Json(resource);
    }
    let annotate = |annotations: Option<Json<'a>>| match annotations {
        None => Some(YamlNode::Map(vec![(
            RESOURCE_NAME.into(),
            YamlNode::Str(name.into()),
        )])),
        Some(a) if a.is_object() => Some(edit(YamlNode::members(a), RESOURCE_NAME, |v| {
            v.is_none().then(|| YamlNode::Str(name.into()))
        })),
        Some(_) => None,
    };
    edit(YamlNode::members(resource), "metadata", |meta| match meta {
        None => Some(YamlNode::Map(vec![("annotations".into(), annotate(None)?)])),
        Some(m) if m.is_object() => Some(edit(YamlNode::members(m), "annotations", annotate)),
        Some(_) => None,
    })
}

/// `crossplane render`'s Result and Context documents (-r, -c), after the composed resources.
pub(crate) fn write_extra_documents(
    doc: Json<'_>,
    args: &RenderArgs,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    if !args.crossplane.include_function_results && !args.crossplane.include_context {
        return Ok(());
    }
    // Only the members these documents read are turned into values.
    let mut members = serde_json::Map::new();
    for key in ["results", "context"] {
        if let Some(v) = doc.get(key) {
            members.insert(key.to_owned(), v.to_value());
        }
    }
    let output = Value::Object(members);
    for d in crossplane_render::extra_documents(&output, &args.crossplane) {
        out.write_all(format!("---\n{}", io::to_yaml(&d)).as_bytes())?;
    }
    Ok(())
}
