//! Writing reviews: crossplane-diff's text (`+++` added, `---` removed, `~~~` modified, each
//! ending with a `---` line, then `Summary: ...`), or one JSON/YAML document.

use std::io::Write;

use serde_json::{Map, Value, json};
use similar::{ChangeTag, TextDiff};

use super::report::{ChangeType, ResourceChange, Summary, XrReview};

/// How to write text.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TextStyle {
    pub(crate) color: bool,
    /// Only a few lines of context around each change.
    pub(crate) compact: bool,
}

const CONTEXT: usize = 3;

/// The reviews as text on `out`; warnings and errors go to `err`.
pub(crate) fn text(
    out: &mut dyn Write,
    err: &mut dyn Write,
    reviews: &[XrReview],
    style: TextStyle,
) -> std::io::Result<()> {
    let sections = reviews.len() > 1;
    for r in reviews {
        for w in &r.warnings {
            writeln!(err, "WARNING: {}", w.line())?;
        }
        if sections {
            writeln!(out, "=== {} ===", r.xr.label())?;
        }
        for c in &r.changes {
            write_change(out, c, style)?;
        }
        let s = r.summary();
        if s.total() > 0 {
            writeln!(out, "\nSummary: {}", s.text())?;
        } else if r.errors.is_empty() {
            writeln!(out, "No changes.")?;
        }
        for e in &r.errors {
            writeln!(err, "ERROR: {}: {e}", r.xr.label())?;
        }
        if sections {
            writeln!(out)?;
        }
    }
    if sections {
        let total = reviews
            .iter()
            .fold(Summary::default(), |a, r| a.add(r.summary()));
        let count = |s: &str| reviews.iter().filter(|r| r.status() == s).count();
        writeln!(
            out,
            "Total: {} across {} XRs ({} changed, {} unchanged, {} failed)",
            total.text(),
            reviews.len(),
            count("changed"),
            count("unchanged"),
            count("error")
        )?;
    }
    Ok(())
}

fn write_change(out: &mut dyn Write, c: &ResourceChange, style: TextStyle) -> std::io::Result<()> {
    let (mark, red, green, reset) = if style.color {
        ("\x1b[1m", "\x1b[31m", "\x1b[32m", "\x1b[0m")
    } else {
        ("", "", "", "")
    };
    let head = match c.change {
        ChangeType::Added => "+++",
        ChangeType::Removed => "---",
        ChangeType::Modified => "~~~",
    };
    writeln!(out, "{mark}{head} {}{reset}", c.id.label())?;
    let yaml = |v: &Option<Value>| v.as_ref().map(crate::io::to_yaml).unwrap_or_default();
    let (before, after) = (yaml(&c.before), yaml(&c.after));
    match c.change {
        ChangeType::Added => {
            for l in after.lines() {
                writeln!(out, "{green}+ {l}{reset}")?;
            }
        }
        ChangeType::Removed => {
            for l in before.lines() {
                writeln!(out, "{red}- {l}{reset}")?;
            }
        }
        ChangeType::Modified => {
            let diff = TextDiff::from_lines(&before, &after);
            let radius = if style.compact {
                CONTEXT
            } else {
                usize::MAX / 4
            };
            for (i, group) in diff.grouped_ops(radius).iter().enumerate() {
                if i > 0 {
                    writeln!(out, "  ...")?;
                }
                for op in group {
                    for ch in diff.iter_changes(op) {
                        let line = ch.value().trim_end_matches('\n');
                        match ch.tag() {
                            ChangeTag::Delete => writeln!(out, "{red}- {line}{reset}")?,
                            ChangeTag::Insert => writeln!(out, "{green}+ {line}{reset}")?,
                            ChangeTag::Equal => writeln!(out, "  {line}")?,
                        }
                    }
                }
            }
        }
    }
    writeln!(out, "---")
}

/// The reviews as one document: the overall `summary`, every change flat (`changes`), per XR
/// (`xrs`), and every `warnings` and `errors` entry.
pub(crate) fn document(reviews: &[XrReview]) -> Value {
    let total = reviews
        .iter()
        .fold(Summary::default(), |a, r| a.add(r.summary()));
    let xrs: Vec<Value> = reviews.iter().map(xr_json).collect();
    let changes: Vec<Value> = reviews
        .iter()
        .flat_map(|r| r.changes.iter().map(change_json))
        .collect();
    let warnings: Vec<Value> = reviews
        .iter()
        .flat_map(|r| &r.warnings)
        .map(|w| json!({"message": w.message, "context": w.context}))
        .collect();
    let errors: Vec<Value> = reviews
        .iter()
        .flat_map(|r| {
            r.errors
                .iter()
                .map(|e| json!({"resourceID": r.xr.label(), "message": e}))
        })
        .collect();
    json!({"summary": total.to_json(), "changes": changes, "xrs": xrs,
           "warnings": warnings, "errors": errors})
}

fn xr_json(r: &XrReview) -> Value {
    let mut compared: Vec<&str> = r
        .changes
        .iter()
        .filter_map(|c| c.compared.map(|h| h.as_str()))
        .collect();
    compared.sort_unstable();
    compared.dedup();
    json!({
        "xr": r.xr.to_json(),
        "origin": r.origin,
        "status": r.status(),
        "summary": r.summary().to_json(),
        "unchanged": r.unchanged,
        "comparedWith": compared,
        "changes": r.changes.iter().map(change_json).collect::<Vec<_>>(),
        "warnings": r.warnings.iter().map(|w| json!({"message": w.message, "context": w.context})).collect::<Vec<_>>(),
        "errors": r.errors,
    })
}

fn change_json(c: &ResourceChange) -> Value {
    let mut m = match c.id.to_json() {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    m.insert("type".into(), json!(c.change.as_str()));
    if !c.resource.is_empty() {
        m.insert("resource".into(), json!(c.resource));
    }
    if let Some(h) = c.compared {
        m.insert("comparedWith".into(), json!(h.as_str()));
    }
    let diff = match c.change {
        ChangeType::Added => json!({"spec": c.after}),
        ChangeType::Removed => json!({"spec": c.before}),
        ChangeType::Modified => json!({"old": c.before, "new": c.after}),
    };
    m.insert("diff".into(), diff);
    let fields = field_changes(c.before.as_ref(), c.after.as_ref());
    m.insert("fields".into(), Value::Array(fields));
    Value::Object(m)
}

/// The leaf fields that differ, `{path, old, new}` (lists compared whole; a missing side is
/// absent).
pub(crate) fn field_changes(before: Option<&Value>, after: Option<&Value>) -> Vec<Value> {
    let mut out = Vec::new();
    walk(&mut String::new(), before, after, &mut out);
    out
}

fn walk(path: &mut String, before: Option<&Value>, after: Option<&Value>, out: &mut Vec<Value>) {
    if let (Some(Value::Object(b)), Some(Value::Object(a))) = (before, after) {
        let mut keys: Vec<&String> = b.keys().chain(a.keys()).collect();
        keys.sort();
        keys.dedup();
        for k in keys {
            let len = path.len();
            push_key(path, k);
            walk(path, b.get(k), a.get(k), out);
            path.truncate(len);
        }
        return;
    }
    let objects_only_one_side = matches!(
        (before, after),
        (Some(Value::Object(_)), None) | (None, Some(Value::Object(_)))
    );
    if objects_only_one_side && !path.is_empty() {
        // Report the leaves of a whole object added or removed.
        let (b, a) = (
            before.and_then(Value::as_object),
            after.and_then(Value::as_object),
        );
        for (k, v) in b.or(a).into_iter().flatten() {
            let len = path.len();
            push_key(path, k);
            let (nb, na) = if b.is_some() {
                (Some(v), None)
            } else {
                (None, Some(v))
            };
            walk(path, nb, na, out);
            path.truncate(len);
        }
        return;
    }
    if before != after {
        let mut m = Map::new();
        m.insert("path".into(), json!(path));
        if let Some(b) = before {
            m.insert("old".into(), b.clone());
        }
        if let Some(a) = after {
            m.insert("new".into(), a.clone());
        }
        out.push(Value::Object(m));
    }
}

/// `a.b`, or `a[b.c/d]` for keys that are not plain words.
fn push_key(path: &mut String, k: &str) {
    let plain = !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if plain {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(k);
    } else {
        path.push('[');
        path.push_str(k);
        path.push(']');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::report::{Compared, Identity, Warning};

    fn review() -> XrReview {
        let id = |kind: &str, name: &str| Identity {
            api_version: "example.org/v1".into(),
            kind: kind.into(),
            namespace: String::new(),
            name: name.into(),
        };
        XrReview {
            xr: id("XNet", "acme"),
            origin: "xr.yaml".into(),
            changes: vec![
                ResourceChange {
                    change: ChangeType::Modified,
                    id: id("VPC", "acme-vpc"),
                    resource: "network/vpc".into(),
                    before: Some(
                        json!({"kind": "VPC", "spec": {"cidr": "10.0.0.0/16", "region": "eu"}}),
                    ),
                    after: Some(
                        json!({"kind": "VPC", "spec": {"cidr": "10.1.0.0/16", "region": "eu"}}),
                    ),
                    compared: Some(Compared::CrdDefaults),
                },
                ResourceChange {
                    change: ChangeType::Added,
                    id: id("Subnet", "acme-sn-(generated)"),
                    resource: "subnet".into(),
                    before: None,
                    after: Some(
                        json!({"kind": "Subnet", "metadata": {"generateName": "acme-sn-"}}),
                    ),
                    compared: Some(Compared::DryRun),
                },
                ResourceChange {
                    change: ChangeType::Removed,
                    id: id("Gateway", "acme-gw"),
                    resource: String::new(),
                    before: Some(json!({"kind": "Gateway"})),
                    after: None,
                    compared: None,
                },
            ],
            unchanged: 2,
            warnings: vec![Warning::new("careful", &[("resource", "VPC/acme-vpc")])],
            errors: vec![],
        }
    }

    #[test]
    fn text_uses_crossplane_diff_markers_and_summary() {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        text(&mut out, &mut err, &[review()], TextStyle::default()).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert_eq!(
            out,
            "~~~ VPC/acme-vpc\n  kind: VPC\n  spec:\n-   cidr: 10.0.0.0/16\n+   cidr: 10.1.0.0/16\n    region: eu\n---\n\
             +++ Subnet/acme-sn-(generated)\n+ kind: Subnet\n+ metadata:\n+   generateName: acme-sn-\n---\n\
             --- Gateway/acme-gw\n- kind: Gateway\n---\n\nSummary: 1 added, 1 modified, 1 removed\n"
        );
        assert_eq!(
            String::from_utf8(err).unwrap(),
            "WARNING: careful (resource=VPC/acme-vpc)\n"
        );
    }

    #[test]
    fn several_xrs_get_sections_and_a_total() {
        let mut failed = review();
        failed.xr.name = "other".into();
        failed.changes.clear();
        failed.warnings.clear();
        failed.errors = vec!["render failed: boom".into()];
        let (mut out, mut err) = (Vec::new(), Vec::new());
        text(
            &mut out,
            &mut err,
            &[review(), failed],
            TextStyle::default(),
        )
        .unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(
            out.starts_with("=== XNet/acme ===\n~~~ VPC/acme-vpc\n"),
            "{out}"
        );
        assert!(out.contains("=== XNet/other ===\n\n"), "{out}");
        assert!(out.ends_with(
            "Total: 1 added, 1 modified, 1 removed across 2 XRs (1 changed, 0 unchanged, 1 failed)\n"
        ));
        assert!(
            String::from_utf8(err)
                .unwrap()
                .contains("ERROR: XNet/other: render failed: boom\n")
        );
    }

    #[test]
    fn the_document_has_crossplane_diffs_fields() {
        let doc = document(&[review()]);
        assert_eq!(
            doc["summary"],
            json!({"added": 1, "modified": 1, "removed": 1})
        );
        assert_eq!(doc["errors"], json!([]));
        assert_eq!(doc["warnings"][0]["context"]["resource"], "VPC/acme-vpc");
        let xr = &doc["xrs"][0];
        assert_eq!(xr["status"], "changed");
        assert_eq!(xr["comparedWith"], json!(["crd-defaults", "dry-run"]));
        let modified = &xr["changes"][0];
        assert_eq!(modified["type"], "modified");
        assert_eq!(modified["resource"], "network/vpc");
        assert_eq!(
            modified["fields"],
            json!([{"path": "spec.cidr", "old": "10.0.0.0/16", "new": "10.1.0.0/16"}])
        );
        assert_eq!(modified["diff"]["old"]["spec"]["cidr"], "10.0.0.0/16");
        assert_eq!(xr["changes"][1]["diff"]["spec"]["kind"], "Subnet");
        assert_eq!(xr["changes"][2]["type"], "removed");
        assert_eq!(doc["changes"].as_array().unwrap().len(), 3);
    }

    #[test]
    fn compact_text_keeps_three_lines_of_context() {
        let mut r = review();
        let many: Map<String, Value> = (0..20).map(|i| (format!("k{i:02}"), json!(i))).collect();
        let mut after = many.clone();
        after.insert("k10".into(), json!("x"));
        r.changes = vec![ResourceChange {
            before: Some(Value::Object(many)),
            after: Some(Value::Object(after)),
            ..r.changes[0].clone()
        }];
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let style = TextStyle {
            color: false,
            compact: true,
        };
        text(&mut out, &mut err, &[r], style).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert_eq!(
            out,
            "~~~ VPC/acme-vpc\n  k07: 7\n  k08: 8\n  k09: 9\n- k10: 10\n+ k10: x\n  k11: 11\n  k12: 12\n  k13: 13\n---\n\nSummary: 1 modified\n"
        );
    }
}
