//! Schemas of Crossplane's own documents that the validator knows without being given a
//! CRD: the Composition (apiextensions.crossplane.io/v1) and function-patch-and-transform's
//! input (pt.fn.crossplane.io/v1beta1 Resources), written from the engine's model of that
//! input's Go types. Unknown fields in them are reported with a suggestion, since Crossplane
//! would drop them silently.

use serde_json::{Value, json};
use xprender::model::pt::{self, Go, Type};

fn s() -> Value {
    json!({"type": "string"})
}

fn obj(props: Value) -> Value {
    json!({"type": "object", "properties": props})
}

fn req(mut schema: Value, required: &[&str]) -> Value {
    schema["required"] = json!(required);
    schema
}

fn list(items: Value) -> Value {
    json!({"type": "array", "items": items})
}

fn any() -> Value {
    json!({"x-kubernetes-preserve-unknown-fields": true})
}

fn embedded() -> Value {
    json!({"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true})
}

/// The schema of a member of Go type `go`.
fn member(go: Go) -> Value {
    match go {
        Go::Raw => any(),
        Go::Object => embedded(),
        Go::Str(name) => match pt::values(name) {
            [] => s(),
            values => json!({"type": "string", "enum": values}),
        },
        Go::Int(_) => json!({"type": "integer"}),
        Go::One(t) => structure(t),
        Go::List(t) => list(structure(t)),
        Go::Strings => list(s()),
        Go::StringMap => json!({"type": "object", "additionalProperties": s()}),
        Go::Pairs => json!({"type": "object", "additionalProperties": any()}),
    }
}

/// The schema of a Go struct: its members, and those its CRD requires.
fn structure(t: &Type) -> Value {
    let props = t
        .members
        .iter()
        .map(|(name, go)| ((*name).to_owned(), member(*go)))
        .collect();
    match pt::required(t) {
        [] => obj(Value::Object(props)),
        required => req(obj(Value::Object(props)), required),
    }
}

/// function-patch-and-transform's input, `pt.fn.crossplane.io/v1beta1` `Resources`.
pub(crate) fn resources_input() -> Value {
    structure(&pt::RESOURCES)
}

/// A classic Composition's patch: P&T's, with the merge options of Crossplane's own policy.
fn native_patch() -> Value {
    let mut patch = structure(&pt::COMPOSED_PATCH);
    patch["properties"]["policy"]["properties"]["mergeOptions"] = obj(json!({
        "keepMapValues": {"type": "boolean"},
        "appendSlice": {"type": "boolean"}
    }));
    patch
}

/// A Composition, in Pipeline mode or with the legacy `spec.resources`.
pub(crate) fn composition() -> Value {
    let mut resource = structure(&pt::COMPOSED_TEMPLATE);
    resource["properties"]["patches"] = list(native_patch());
    let patch_sets = list(req(
        obj(json!({"name": s(), "patches": list(native_patch())})),
        &["name", "patches"],
    ));
    obj(json!({
        "spec": req(obj(json!({
            "compositeTypeRef": req(obj(json!({"apiVersion": s(), "kind": s()})), &["apiVersion", "kind"]),
            "mode": {"type": "string", "enum": ["Resources", "Pipeline"]},
            "pipeline": list(req(obj(json!({
                "step": s(),
                "functionRef": req(obj(json!({"name": s()})), &["name"]),
                "input": embedded(),
                "credentials": list(any())
            })), &["step", "functionRef"])),
            "resources": list(resource),
            "patchSets": patch_sets,
            "environment": obj(json!({
                "environmentConfigs": list(any()),
                "patches": list(native_patch()),
                "policy": any(),
                "defaultData": any()
            })),
            "functions": list(any()),
            "writeConnectionSecretsToNamespace": s(),
            "publishConnectionDetailsWithStoreConfigRef": obj(json!({"name": s()}))
        })), &["compositeTypeRef"])
    }))
}
