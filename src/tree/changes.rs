//! What an iteration changed: every object of the tree by its place (the template names from
//! the top XR down), compared field by field with the iteration before.

use crate::compose::Output;
use crate::value::{Map, Value};

/// An object of the tree: its place (`""` for the top XR, `network/subnet` below), the object,
/// and whether it is ready.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Object {
    place: String,
    value: Value,
    ready: bool,
}

/// Every object of the rendered tree, in tree order.
pub(crate) fn flatten(out: &Output) -> Vec<Object> {
    let mut list = vec![Object {
        place: String::new(),
        value: out.composite.clone(),
        ready: out.ready,
    }];
    walk(out, "", &mut list);
    list
}

fn walk(out: &Output, prefix: &str, list: &mut Vec<Object>) {
    for r in &out.resources {
        let place = if prefix.is_empty() {
            r.name.clone()
        } else {
            format!("{prefix}/{}", r.name)
        };
        match out.nested.iter().find(|(n, _)| *n == r.name) {
            Some((_, child)) => {
                list.push(Object {
                    place: place.clone(),
                    value: child.composite.clone(),
                    ready: child.ready,
                });
                walk(child, &place, list);
            }
            None => list.push(Object {
                place,
                value: r.resource.clone(),
                ready: r.ready,
            }),
        }
    }
}

/// The nested Output at a path of template names.
pub(crate) fn output_at<'o>(out: &'o Output, path: &[String]) -> Option<&'o Output> {
    path.iter().try_fold(out, |o, name| {
        o.nested.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    })
}

/// The changes from `before` to `after`: objects added and removed, fields changed.
pub(crate) fn between(before: &[Object], after: &[Object]) -> Vec<Value> {
    let mut out = Vec::new();
    for a in after {
        match before.iter().find(|b| b.place == a.place) {
            None => out.push(change(a, "added", None, None, None)),
            Some(b) => {
                let mut fields = Vec::new();
                diff(&b.value, &a.value, String::new(), &mut fields);
                for (path, old, new) in fields {
                    out.push(change(a, "changed", Some(path), old, new));
                }
                if a.ready != b.ready {
                    out.push(change(
                        a,
                        "changed",
                        Some("(ready)".into()),
                        Some(Value::Bool(b.ready)),
                        Some(Value::Bool(a.ready)),
                    ));
                }
            }
        }
    }
    for b in before {
        if !after.iter().any(|a| a.place == b.place) {
            out.push(change(b, "removed", None, None, None));
        }
    }
    out
}

fn change(
    o: &Object,
    what: &str,
    path: Option<String>,
    before: Option<Value>,
    after: Option<Value>,
) -> Value {
    let mut m = Map::new();
    if !o.place.is_empty() {
        m.insert("resource".into(), o.place.as_str().into());
    }
    m.insert("object".into(), object_name(&o.value).into());
    m.insert("change".into(), what.into());
    if let Some(p) = path {
        m.insert("path".into(), p.into());
    }
    if let Some(v) = before {
        m.insert("before".into(), v);
    }
    if let Some(v) = after {
        m.insert("after".into(), v);
    }
    Value::Object(m)
}

/// `KIND/NAME` (`KIND/PREFIX*` for a name still to be generated).
fn object_name(d: &Value) -> String {
    let meta = d.get("metadata");
    let text = |k: &str| {
        meta.and_then(|m| m.get(k))
            .and_then(Value::as_str)
            .unwrap_or("")
    };
    let kind = d.get("kind").and_then(Value::as_str).unwrap_or("");
    match text("name") {
        "" => format!("{kind}/{}*", text("generateName")),
        n => format!("{kind}/{n}"),
    }
}

/// The fields that differ, as field paths with their values before and after (absent: none).
fn diff(a: &Value, b: &Value, at: String, out: &mut Vec<(String, Option<Value>, Option<Value>)>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, va) in x {
                let p = join(&at, k);
                match y.get(k) {
                    Some(vb) => diff(va, vb, p, out),
                    None => out.push((p, Some(va.clone()), None)),
                }
            }
            for (k, vb) in y {
                if x.get(k).is_none() {
                    out.push((join(&at, k), None, Some(vb.clone())));
                }
            }
        }
        _ if a == b => {}
        _ => out.push((at, Some(a.clone()), Some(b.clone()))),
    }
}

/// A field path in crossplane-runtime's syntax: `a.b`, `a[key.with.dots]`.
fn join(at: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-');
    match (at.is_empty(), plain) {
        (true, true) => key.to_owned(),
        (false, true) => format!("{at}.{key}"),
        (_, false) => format!("{at}[{key}]"),
    }
}

/// The XR's Ready condition message, or its reason.
pub(crate) fn ready_message(xr: &Value) -> String {
    let conditions = xr
        .get("status")
        .and_then(|s| s.get("conditions"))
        .and_then(Value::as_array)
        .unwrap_or_default();
    let ready = conditions
        .iter()
        .find(|c| c.get("type").and_then(Value::as_str) == Some("Ready"));
    let text = |k: &str| ready.and_then(|c| c.get(k)).and_then(Value::as_str);
    match (text("message"), text("reason")) {
        (Some(m), _) if !m.is_empty() => m.to_owned(),
        (_, Some(r)) => format!("Ready condition {r}"),
        _ => "no Ready condition".into(),
    }
}
