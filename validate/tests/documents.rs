//! The playground's request: every document at once, the XRDs among them giving the schemas;
//! misspellings come with their fix as data.

use serde_json::{Value, json};
use xprender_validate::{Severity, Suggestion, Target, problems_json, validate_documents};

fn xrd() -> Value {
    json!({
        "apiVersion": "apiextensions.crossplane.io/v1",
        "kind": "CompositeResourceDefinition",
        "metadata": {"name": "xnetworks.example.org"},
        "spec": {
            "group": "example.org",
            "names": {"kind": "XNetwork", "plural": "xnetworks"},
            "versions": [{"name": "v1", "served": true, "referenceable": true, "schema": {"openAPIV3Schema": {
                "type": "object",
                "properties": {"spec": {"type": "object", "properties": {"id": {"type": "string"}}}}
            }}}]
        }
    })
}

/// A Pipeline Composition whose PatchSet reads `from` and whose two templates use it, the
/// first with a patch of type `patch_type`.
fn composition(from: &str, patch_type: &str) -> Value {
    let template = |name: &str, t: &str| {
        json!({"name": name, "base": {"apiVersion": "ec2.example.org/v1", "kind": "VPC"},
               "patches": [{"type": t, "patchSetName": "ids"}]})
    };
    json!({
        "apiVersion": "apiextensions.crossplane.io/v1",
        "kind": "Composition",
        "metadata": {"name": "networks"},
        "spec": {
            "compositeTypeRef": {"apiVersion": "example.org/v1", "kind": "XNetwork"},
            "mode": "Pipeline",
            "pipeline": [{"step": "pt", "functionRef": {"name": "function-patch-and-transform"}, "input": {
                "apiVersion": "pt.fn.crossplane.io/v1beta1",
                "kind": "Resources",
                "patchSets": [{"name": "ids", "patches": [{
                    "type": "FromCompositeFieldPath", "fromFieldPath": from,
                    "toFieldPath": "metadata.labels[id]"
                }]}],
                "resources": [template("a", patch_type), template("b", "PatchSet")]
            }}]
        }
    })
}

fn xr(spec: Value) -> Value {
    json!({"apiVersion": "example.org/v1", "kind": "XNetwork", "metadata": {"name": "n"}, "spec": spec})
}

#[test]
fn a_valid_set_has_no_problems_and_templates_without_schemas_are_not_reported() {
    let docs = [
        xr(json!({"id": "x"})),
        xrd(),
        composition("spec.id", "PatchSet"),
    ];
    assert_eq!(validate_documents(&docs), vec![]);
}

#[test]
fn misspellings_carry_their_fix_and_a_patch_set_is_reported_once() {
    let docs = [
        xr(json!({"idd": "x"})),
        xrd(),
        composition("spec.idd", "PatchSt"),
        json!({"apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Unknown"}),
    ];
    let found = validate_documents(&docs);
    let seen: Vec<(usize, String, Severity, Option<Suggestion>)> = found
        .iter()
        .map(|(i, p)| (*i, p.path.to_string(), p.severity, p.suggestion.clone()))
        .collect();
    let fix = |target, wrong: &str, right: &str| {
        Some(Suggestion {
            target,
            wrong: wrong.into(),
            right: right.into(),
        })
    };
    let input = "spec.pipeline[0].input";
    assert_eq!(
        seen,
        vec![
            (
                0,
                "spec.idd".into(),
                Severity::Warning,
                fix(Target::Key, "idd", "id")
            ),
            (
                2,
                format!("{input}.resources[0].patches[0].type"),
                Severity::Error,
                fix(Target::Value, "PatchSt", "PatchSet")
            ),
            (
                2,
                format!("{input}.patchSets[0].patches[0].fromFieldPath"),
                Severity::Warning,
                fix(Target::Value, "idd", "id")
            ),
        ]
    );
    assert!(
        found[1].1.message.ends_with("; did you mean PatchSet?"),
        "{}",
        found[1].1.message
    );

    let json = problems_json(&found);
    assert_eq!(
        json[1],
        json!({
            "document": 2,
            "severity": "error",
            "path": ["spec", "pipeline", 0, "input", "resources", 0, "patches", 0, "type"],
            "field": format!("{input}.resources[0].patches[0].type"),
            "message": found[1].1.message,
            "suggestion": {"target": "value", "wrong": "PatchSt", "right": "PatchSet"}
        })
    );
}
