//! Field-level differences between live objects and the desired ones a render produced.
//!
//! Server-side apply only sets the fields it is given, so a change is a desired field whose live
//! value differs or is missing; fields only the live object has (defaults, other managers' fields)
//! are not changes. Lists are compared whole: the server replaces them whole.

use serde_json::{Map, Value};

/// One changed field.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FieldChange {
    /// The path as object keys (lists are compared whole).
    pub(crate) path: Vec<Seg>,
    /// The live value; `None` when the field is missing.
    pub(crate) live: Option<Value>,
    pub(crate) desired: Value,
}

/// A path segment: lists are compared whole, so only object keys occur.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Seg {
    Key(String),
}

/// Fields the server manages; never a change.
pub(crate) const SERVER_METADATA: &[&str] = &[
    "managedFields",
    "resourceVersion",
    "uid",
    "creationTimestamp",
    "generation",
    "selfLink",
];

/// What to leave out of a comparison.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ignore {
    /// The whole `status` (composed resources: their status is the provider's).
    pub(crate) status: bool,
    /// `status.conditions` and `status.connectionDetails` (the XR: written by Crossplane itself).
    pub(crate) xr_status_bookkeeping: bool,
    /// `metadata.generateName`: meaningless once the object exists.
    pub(crate) generate_name: bool,
}

impl Ignore {
    fn skips(&self, path: &[Seg]) -> bool {
        let key = |i: usize| match path.get(i) {
            Some(Seg::Key(k)) => Some(k.as_str()),
            _ => None,
        };
        match (key(0), key(1), path.len()) {
            (Some("metadata"), Some(k), 2) => {
                SERVER_METADATA.contains(&k) || (self.generate_name && k == "generateName")
            }
            (Some("status"), _, 1) => self.status,
            (Some("status"), Some("conditions" | "connectionDetails"), 2) => {
                self.xr_status_bookkeeping
            }
            _ => false,
        }
    }
}

/// The desired fields that the live object lacks or holds with another value.
pub(crate) fn changed_fields(
    live: Option<&Value>,
    desired: &Value,
    ignore: Ignore,
) -> Vec<FieldChange> {
    let mut out = Vec::new();
    walk(&mut Vec::new(), live, desired, ignore, &mut out);
    out
}

fn walk(
    path: &mut Vec<Seg>,
    live: Option<&Value>,
    desired: &Value,
    ignore: Ignore,
    out: &mut Vec<FieldChange>,
) {
    if ignore.skips(path) {
        return;
    }
    match desired {
        Value::Object(d) if !d.is_empty() || path.is_empty() => {
            let l = live.and_then(Value::as_object);
            for (k, v) in d {
                path.push(Seg::Key(k.clone()));
                walk(path, l.and_then(|m| m.get(k)), v, ignore, out);
                path.pop();
            }
        }
        _ => {
            if !live.is_some_and(|l| covers(l, desired)) {
                out.push(FieldChange {
                    path: path.clone(),
                    live: live.cloned(),
                    desired: desired.clone(),
                });
            }
        }
    }
}

/// Whether applying `desired` over `live` leaves `live` as it is: objects by subset, lists element
/// by element with equal length, scalars by value (numbers by numeric value).
fn covers(live: &Value, desired: &Value) -> bool {
    match (live, desired) {
        (Value::Object(l), Value::Object(d)) => d
            .iter()
            .all(|(k, v)| l.get(k).is_some_and(|lv| covers(lv, v))),
        (Value::Array(l), Value::Array(d)) => {
            l.len() == d.len() && l.iter().zip(d).all(|(a, b)| covers(a, b))
        }
        (Value::Number(a), Value::Number(b)) => a == b || a.as_f64() == b.as_f64(),
        _ => live == desired,
    }
}

/// `spec.forProvider.region`, `metadata.labels[crossplane.io/composite]`.
pub(crate) fn path_string(path: &[Seg]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Seg::Key(k)
                if !k.is_empty()
                    && k.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') =>
            {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Seg::Key(k) => {
                s.push('[');
                s.push_str(k);
                s.push(']');
            }
        }
    }
    s
}

/// Builds an object holding only the given fields (for applying an XR's changed fields alone).
pub(crate) fn partial_object(changes: &[FieldChange]) -> Value {
    let mut root = Value::Object(Map::new());
    for c in changes {
        let mut cur = &mut root;
        for (i, seg) in c.path.iter().enumerate() {
            let last = i + 1 == c.path.len();
            let Seg::Key(k) = seg;
            let Value::Object(m) = cur else { break };
            if last {
                m.insert(k.clone(), c.desired.clone());
                break;
            }
            cur = m
                .entry(k.clone())
                .or_insert_with(|| Value::Object(Map::new()));
        }
    }
    root
}

/// Whether a field of this object holds secret material (a Secret's `data` / `stringData`).
pub(crate) fn is_secret_field(obj: &Value, path: &[Seg]) -> bool {
    let secret = obj.get("kind").and_then(Value::as_str) == Some("Secret")
        && obj.get("apiVersion").and_then(Value::as_str) == Some("v1");
    secret && matches!(path.first(), Some(Seg::Key(k)) if k == "data" || k == "stringData")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const COMPOSED: Ignore = Ignore {
        status: true,
        xr_status_bookkeeping: false,
        generate_name: true,
    };

    fn paths(changes: &[FieldChange]) -> Vec<String> {
        changes.iter().map(|c| path_string(&c.path)).collect()
    }

    #[test]
    fn unchanged_when_live_holds_every_desired_field() {
        let live = json!({"apiVersion": "v1", "kind": "K", "metadata": {"name": "a", "uid": "u", "resourceVersion": "7",
            "labels": {"x": "1", "extra": "2"}}, "spec": {"a": 1, "b": [1, {"c": "d", "e": 1}], "defaulted": true},
            "status": {"phase": "Ready"}});
        let desired = json!({"apiVersion": "v1", "kind": "K", "metadata": {"name": "a", "generateName": "x-",
            "labels": {"x": "1"}}, "spec": {"a": 1.0, "b": [1, {"c": "d"}]}, "status": {"phase": "Other"}});
        assert_eq!(changed_fields(Some(&live), &desired, COMPOSED), vec![]);
    }

    #[test]
    fn reports_exactly_the_changed_and_missing_fields() {
        let live = json!({"metadata": {"name": "a", "labels": {"x": "1"}}, "spec": {"a": 1, "b": [1, 2], "keep": "k"}});
        let desired = json!({"metadata": {"name": "a", "labels": {"x": "2", "crossplane.io/composite": "xr"}},
            "spec": {"a": 1, "b": [1, 2, 3], "new": {"deep": "v"}}});
        let changes = changed_fields(Some(&live), &desired, COMPOSED);
        assert_eq!(
            paths(&changes),
            vec![
                "metadata.labels[crossplane.io/composite]",
                "metadata.labels.x",
                "spec.b",
                "spec.new.deep"
            ]
        );
        assert_eq!(changes[1].live, Some(json!("1")));
        assert_eq!(changes[1].desired, json!("2"));
        assert_eq!(changes[0].live, None);
    }

    #[test]
    fn missing_live_object_makes_every_leaf_a_change() {
        let desired = json!({"kind": "K", "spec": {"a": {"b": 1}, "c": []}});
        assert_eq!(
            paths(&changed_fields(None, &desired, COMPOSED)),
            vec!["kind", "spec.a.b", "spec.c"]
        );
    }

    #[test]
    fn xr_status_counts_except_crossplane_bookkeeping() {
        let ignore = Ignore {
            status: false,
            xr_status_bookkeeping: true,
            generate_name: false,
        };
        let live = json!({"status": {"address": "a"}});
        let desired = json!({"status": {"address": "b", "conditions": [{"type": "Ready"}], "connectionDetails": {}}});
        assert_eq!(
            paths(&changed_fields(Some(&live), &desired, ignore)),
            vec!["status.address"]
        );
    }

    #[test]
    fn partial_object_holds_only_the_changes() {
        let live = json!({"spec": {"a": 1, "b": {"c": 1, "d": 2}}});
        let desired = json!({"spec": {"a": 1, "b": {"c": 5, "d": 2}, "e": [1]}});
        let changes = changed_fields(Some(&live), &desired, COMPOSED);
        assert_eq!(
            partial_object(&changes),
            json!({"spec": {"b": {"c": 5}, "e": [1]}})
        );
    }

    #[test]
    fn secret_fields_are_recognised() {
        let secret = json!({"apiVersion": "v1", "kind": "Secret"});
        assert!(is_secret_field(
            &secret,
            &[Seg::Key("data".into()), Seg::Key("k".into())]
        ));
        assert!(!is_secret_field(&secret, &[Seg::Key("metadata".into())]));
        assert!(!is_secret_field(
            &json!({"apiVersion": "v1", "kind": "ConfigMap"}),
            &[Seg::Key("data".into())]
        ));
    }
}
