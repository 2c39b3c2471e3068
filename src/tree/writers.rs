//! Which patches write a field: for the error of a composition that does not settle.

use crate::compose::Output;
use crate::value::Value;

use super::changes::output_at;

/// The patches that write `path` of the object at `place` (`""`: the top XR), as
/// `Composition "NAME" spec.resources[0].patches[1] (ToCompositeFieldPath)`.
pub(crate) fn of(docs: &[Value], out: &Output, place: &str, path: &str) -> Vec<String> {
    let names: Vec<String> = if place.is_empty() {
        Vec::new()
    } else {
        place.split('/').map(str::to_owned).collect()
    };
    let mut found = Vec::new();
    // The object is the XR of its own level (the top, or a nested XR)...
    if let Some(own) = output_at(out, &names) {
        scan(docs, own, None, path, &mut found);
    }
    // ...and a composed resource of its parent's.
    if let Some((template, parent)) = names.split_last()
        && let Some(parent) = output_at(out, parent)
    {
        scan(docs, parent, Some(template), path, &mut found);
    }
    found
}

/// The patches of `level`'s Composition that write `path` of the template (`None`: the XR).
fn scan(
    docs: &[Value],
    level: &Output,
    template: Option<&String>,
    path: &str,
    found: &mut Vec<String>,
) {
    let Some(name) = level
        .inputs
        .as_ref()
        .and_then(|i| i.get("composition"))
        .and_then(Value::as_str)
    else {
        return;
    };
    let Some(comp) = docs.iter().find(|d| {
        matches!(
            d.get("kind").and_then(Value::as_str),
            Some("Composition" | "CompositionRevision")
        ) && d
            .get("metadata")
            .and_then(|m| m.get("name"))
            .and_then(Value::as_str)
            == Some(name)
    }) else {
        return;
    };
    let spec = comp.get("spec");
    let mut lists: Vec<(String, &Value)> = Vec::new();
    if let Some(rs) = spec.and_then(|s| s.get("resources")) {
        lists.push(("spec.resources".into(), rs));
    }
    let steps = spec
        .and_then(|s| s.get("pipeline"))
        .and_then(Value::as_array);
    for (s, step) in steps.unwrap_or_default().iter().enumerate() {
        if let Some(rs) = step.get("input").and_then(|i| i.get("resources")) {
            lists.push((format!("spec.pipeline[{s}].input.resources"), rs));
        }
    }
    let quoted = crate::go::quote(name);
    for (at, list) in lists {
        for (i, t) in list.as_array().unwrap_or_default().iter().enumerate() {
            let tname = t
                .get("name")
                .and_then(Value::as_str)
                .map_or_else(|| format!("resource {}", i + 1), str::to_owned);
            if template.is_some_and(|want| *want != tname) {
                continue;
            }
            let patches = t
                .get("patches")
                .and_then(Value::as_array)
                .unwrap_or_default();
            for (j, p) in patches.iter().enumerate() {
                if writes(p, template.is_none(), path) {
                    let kind = patch_type(p);
                    found.push(format!(
                        "Composition {quoted} {at}[{i}].patches[{j}] ({kind})"
                    ));
                }
            }
        }
    }
    if template.is_none() {
        let env = spec
            .and_then(|s| s.get("environment"))
            .and_then(|e| e.get("patches"))
            .and_then(Value::as_array);
        for (j, p) in env.unwrap_or_default().iter().enumerate() {
            if writes(p, true, path) {
                let kind = patch_type(p);
                found.push(format!(
                    "Composition {quoted} spec.environment.patches[{j}] ({kind})"
                ));
            }
        }
    }
}

fn patch_type(p: &Value) -> &str {
    p.get("type")
        .and_then(Value::as_str)
        .unwrap_or("FromCompositeFieldPath")
}

/// Whether the patch writes `path` of the XR (`to_xr`) or of its composed resource.
fn writes(p: &Value, to_xr: bool, path: &str) -> bool {
    let kind = patch_type(p);
    let writes_xr = matches!(kind, "ToCompositeFieldPath" | "CombineToComposite");
    if writes_xr != to_xr || kind == "PatchSet" {
        return false;
    }
    let text = |k: &str| p.get(k).and_then(Value::as_str);
    let Some(to) = text("toFieldPath").or_else(|| text("fromFieldPath")) else {
        return false;
    };
    related(path, to)
}

/// Whether one path lies within the other.
fn related(a: &str, b: &str) -> bool {
    let within = |long: &str, short: &str| {
        long == short
            || long
                .strip_prefix(short)
                .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
    };
    within(a, b) || within(b, a)
}

/// `OBJECT PATH (written by ...)` for a field that flips.
pub(crate) fn describe_flip(flip: &Value, docs: &[Value], out: &Output) -> String {
    let text = |k: &str| flip.get(k).and_then(Value::as_str).unwrap_or("");
    let place = text("resource");
    let path = text("path");
    let mut s = format!("{} {}", text("object"), path);
    let writers = of(docs, out, place, path);
    if !writers.is_empty() {
        s.push_str(" (written by ");
        s.push_str(&writers.join(", "));
        s.push(')');
    }
    s
}
