//! What a review leaves out of a comparison: what the server manages, status, and the paths
//! `--ignore-paths` names in crossplane-diff's syntax (`metadata.annotations`,
//! `metadata.labels[app.kubernetes.io/name]`, `spec.items[0]`, `*` for any member).

use anyhow::anyhow;
use serde_json::Value;
use xprender::model::Segment;

use crate::cluster::diff::SERVER_METADATA;

/// Always hidden, as crossplane-diff hides it: a serialization of the object itself.
const LAST_APPLIED: &str = "metadata.annotations[kubectl.kubernetes.io/last-applied-configuration]";

/// The paths to leave out, parsed.
#[derive(Debug, Clone)]
pub(crate) struct IgnorePaths(Vec<Vec<Segment>>);

impl Default for IgnorePaths {
    fn default() -> Self {
        IgnorePaths::parse(&[]).unwrap_or(IgnorePaths(Vec::new()))
    }
}

impl IgnorePaths {
    /// The given paths (each may hold several, comma-separated) and the default one.
    pub(crate) fn parse(paths: &[String]) -> anyhow::Result<IgnorePaths> {
        let mut out = Vec::new();
        let given = paths.iter().flat_map(|p| p.split(',')).map(str::trim);
        for p in std::iter::once(LAST_APPLIED).chain(given) {
            if p.is_empty() {
                continue;
            }
            let segs = xprender::model::parse_field_path(p)
                .map_err(|e| anyhow!("--ignore-paths {p:?}: {e}"))?;
            out.push(segs);
        }
        Ok(IgnorePaths(out))
    }

    /// The object as a review compares it: without status, server metadata and ignored paths.
    pub(crate) fn normalize(&self, obj: &Value) -> Value {
        let mut v = obj.clone();
        if let Some(m) = v.as_object_mut() {
            m.remove("status");
        }
        if let Some(m) = v.pointer_mut("/metadata").and_then(Value::as_object_mut) {
            for k in SERVER_METADATA {
                m.remove(*k);
            }
        }
        for p in &self.0 {
            remove(&mut v, p);
        }
        // An object whose only annotation was ignored compares as one without annotations.
        if let Some(m) = v.pointer_mut("/metadata").and_then(Value::as_object_mut)
            && m.get("annotations")
                .and_then(Value::as_object)
                .is_some_and(|a| a.is_empty())
        {
            m.remove("annotations");
        }
        hide_secret_values(&mut v);
        v
    }
}

/// A Secret's values, each replaced by a digest: a change still shows, the value never does.
fn hide_secret_values(v: &mut Value) {
    use sha2::Digest as _;
    let secret = v.get("apiVersion").and_then(Value::as_str) == Some("v1")
        && v.get("kind").and_then(Value::as_str) == Some("Secret");
    if !secret {
        return;
    }
    for field in ["data", "stringData"] {
        if let Some(m) = v.get_mut(field).and_then(Value::as_object_mut) {
            for val in m.values_mut() {
                let digest = sha2::Sha256::digest(val.to_string().as_bytes());
                let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
                *val = Value::String(format!("(hidden, sha256 {hex}…)"));
            }
        }
    }
}

/// Removes what `path` names (every match of a wildcard).
fn remove(v: &mut Value, path: &[Segment]) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    let last = rest.is_empty();
    match (first, v) {
        (s, Value::Object(m)) if s.is_wildcard() => {
            if last {
                m.clear();
            } else {
                m.values_mut().for_each(|c| remove(c, rest));
            }
        }
        (s, Value::Array(a)) if s.is_wildcard() => {
            if last {
                a.clear();
            } else {
                a.iter_mut().for_each(|c| remove(c, rest));
            }
        }
        (Segment::Field(k), Value::Object(m)) => {
            if last {
                m.remove(k);
            } else if let Some(c) = m.get_mut(k) {
                remove(c, rest);
            }
        }
        (Segment::Index(i), Value::Array(a)) => {
            let i = *i as usize;
            if last {
                if i < a.len() {
                    a.remove(i);
                }
            } else if let Some(c) = a.get_mut(i) {
                remove(c, rest);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn crossplane_diff_paths_leave_out_what_they_name() {
        let ignore = IgnorePaths::parse(&[
            "metadata.annotations[argocd.argoproj.io/tracking-id]".into(),
            "metadata.labels[team], spec.list[1]".into(),
            "spec.each[*].x".into(),
        ])
        .unwrap();
        let obj = json!({"metadata": {"name": "a", "uid": "u", "resourceVersion": "3",
            "annotations": {"argocd.argoproj.io/tracking-id": "t",
                            "kubectl.kubernetes.io/last-applied-configuration": "{}", "keep": "k"},
            "labels": {"team": "a", "app": "b"}},
            "spec": {"list": [1, 2, 3], "each": [{"x": 1, "y": 2}, {"x": 3}]},
            "status": {"phase": "Ready"}});
        assert_eq!(
            ignore.normalize(&obj),
            json!({"metadata": {"name": "a", "annotations": {"keep": "k"}, "labels": {"app": "b"}},
                   "spec": {"list": [1, 3], "each": [{"y": 2}, {}]}})
        );
    }

    #[test]
    fn the_default_hides_only_the_last_applied_annotation() {
        let obj = json!({"metadata": {"annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"}}});
        assert_eq!(
            IgnorePaths::default().normalize(&obj),
            json!({"metadata": {}})
        );
    }

    #[test]
    fn a_malformed_path_is_named() {
        let e = IgnorePaths::parse(&["metadata.labels[unclosed".into()]).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("--ignore-paths \"metadata.labels[unclosed\": "),
            "{e}"
        );
    }
}
