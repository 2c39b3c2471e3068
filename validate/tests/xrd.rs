//! An XRD's generated schemas: the XR's and the claim's, with the fields Crossplane adds.

use serde_json::{Value, json};
use xprender_validate::{Options, Outcome, Schemas, validate_object};

fn xrd(api_version: &str) -> Value {
    json!({
        "apiVersion": api_version,
        "kind": "CompositeResourceDefinition",
        "metadata": {"name": "xbuckets.example.org"},
        "spec": {
            "group": "example.org",
            "names": {"kind": "XBucket", "plural": "xbuckets"},
            "claimNames": {"kind": "Bucket", "plural": "buckets"},
            "versions": [{"name": "v1", "served": true, "referenceable": true, "schema": {"openAPIV3Schema": {
                "type": "object",
                "properties": {"spec": {"type": "object", "properties": {
                    "region": {"type": "string", "default": "eu"}
                }}}
            }}}]
        }
    })
}

fn problems(schemas: &Schemas, object: Value) -> (Vec<String>, Value) {
    let report = validate_object(schemas, &object, Options { strict: true });
    assert!(
        matches!(report.outcome, Outcome::Validated { .. }),
        "{:?}",
        report.outcome
    );
    (
        report.problems.iter().map(ToString::to_string).collect(),
        report.object,
    )
}

#[test]
fn xr_schema_has_crossplane_fields() {
    let mut schemas = Schemas::new();
    assert!(
        schemas
            .add(&xrd("apiextensions.crossplane.io/v1"))
            .is_empty()
    );
    let (got, object) = problems(
        &schemas,
        json!({
            "apiVersion": "example.org/v1", "kind": "XBucket", "metadata": {"name": "b"},
            "spec": {
                "compositionRef": {"name": "c"},
                "compositionSelector": {"matchLabels": {"provider": "aws"}},
                "compositionUpdatePolicy": "Manual",
                "compositionRevisionRef": {"name": "c-abc"},
                "claimRef": {"apiVersion": "example.org/v1", "kind": "Bucket", "name": "b", "namespace": "team"},
                "resourceRefs": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "x"}],
                "writeConnectionSecretToRef": {"name": "s", "namespace": "crossplane-system"}
            },
            "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "Available", "lastTransitionTime": "2024-01-01T00:00:00Z"}]}
        }),
    );
    assert_eq!(got, Vec::<String>::new());
    assert_eq!(
        object["spec"]["region"], "eu",
        "the XRD's default is applied"
    );

    let (got, _) = problems(
        &schemas,
        json!({
            "apiVersion": "example.org/v1", "kind": "XBucket", "metadata": {"name": "b"},
            "spec": {"compositionUpdatePolicy": "Sometimes", "writeConnectionSecretToRef": {"name": "s"}}
        }),
    );
    assert_eq!(
        got,
        [
            "spec.compositionUpdatePolicy: Unsupported value: \"Sometimes\": supported values: \"Automatic\", \"Manual\"",
            "spec.writeConnectionSecretToRef.namespace: Required value",
        ]
    );
}

#[test]
fn claim_schema_has_claim_fields() {
    let mut schemas = Schemas::new();
    schemas.add(&xrd("apiextensions.crossplane.io/v1"));
    let (got, _) = problems(
        &schemas,
        json!({
            "apiVersion": "example.org/v1", "kind": "Bucket", "metadata": {"name": "b", "namespace": "team"},
            "spec": {
                "compositeDeletePolicy": "Foreground",
                "resourceRef": {"apiVersion": "example.org/v1", "kind": "XBucket", "name": "b-x7"},
                "writeConnectionSecretToRef": {"name": "s", "namespace": "other"}
            }
        }),
    );
    assert_eq!(
        got,
        ["spec.writeConnectionSecretToRef.namespace: unknown field \"namespace\"",]
    );
}

#[test]
fn v2_xrd_puts_crossplane_fields_under_spec_crossplane_and_has_no_claim() {
    let mut schemas = Schemas::new();
    schemas.add(&xrd("apiextensions.crossplane.io/v2"));
    let (got, _) = problems(
        &schemas,
        json!({
            "apiVersion": "example.org/v1", "kind": "XBucket", "metadata": {"name": "b"},
            "spec": {"crossplane": {"compositionRef": {"name": "c"}, "resourceRefs": []}, "compositionRef": {"name": "c"}}
        }),
    );
    assert_eq!(
        got,
        ["spec.compositionRef: unknown field \"compositionRef\"",]
    );
    assert!(schemas.lookup("example.org/v1", "Bucket").is_none());
}
