//! Schemas of Crossplane's own documents that the validator knows without being given a
//! CRD: the Composition (apiextensions.crossplane.io/v1) and function-patch-and-transform's
//! input (pt.fn.crossplane.io/v1beta1 Resources). Unknown fields in them are reported with
//! a suggestion, since Crossplane would drop them silently.

use serde_json::{Value, json};

fn s() -> Value {
    json!({"type": "string"})
}

fn en(values: &[&str]) -> Value {
    json!({"type": "string", "enum": values})
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

fn transform() -> Value {
    req(
        obj(json!({
            "type": en(&["map", "match", "math", "string", "convert"]),
            "map": {"type": "object", "additionalProperties": any()},
            "match": obj(json!({
                "patterns": list(req(obj(json!({
                    "type": en(&["literal", "regexp"]),
                    "literal": s(),
                    "regexp": s(),
                    "result": any()
                })), &["result"])),
                "fallbackValue": any(),
                "fallbackTo": en(&["Value", "Input"])
            })),
            "math": obj(json!({
                "type": en(&["Multiply", "ClampMin", "ClampMax"]),
                "multiply": {"type": "integer"},
                "clampMin": {"type": "integer"},
                "clampMax": {"type": "integer"}
            })),
            "string": obj(json!({
                "type": en(&["Format", "Convert", "TrimPrefix", "TrimSuffix", "Regexp", "Join", "Replace"]),
                "fmt": s(),
                "convert": en(&["ToUpper", "ToLower", "ToBase64", "FromBase64", "ToJson", "ToSha1", "ToSha256", "ToSha512", "ToAdler32"]),
                "trim": s(),
                "regexp": req(obj(json!({"match": s(), "group": {"type": "integer"}})), &["match"]),
                "join": req(obj(json!({"separator": s()})), &["separator"]),
                "replace": obj(json!({"search": s(), "replace": s()}))
            })),
            "convert": req(obj(json!({
                "toType": en(&["string", "int", "int64", "bool", "float64", "object", "array"]),
                "format": en(&["none", "quantity", "json"])
            })), &["toType"])
        })),
        &["type"],
    )
}

fn patch() -> Value {
    obj(json!({
        "type": en(&[
            "FromCompositeFieldPath", "FromEnvironmentFieldPath", "PatchSet",
            "ToCompositeFieldPath", "ToEnvironmentFieldPath", "CombineFromEnvironment",
            "CombineFromComposite", "CombineToComposite", "CombineToEnvironment"
        ]),
        "fromFieldPath": s(),
        "toFieldPath": s(),
        "patchSetName": s(),
        "combine": req(obj(json!({
            "variables": list(req(obj(json!({"fromFieldPath": s()})), &["fromFieldPath"])),
            "strategy": en(&["string"]),
            "string": req(obj(json!({"fmt": s()})), &["fmt"])
        })), &["variables", "strategy"]),
        "transforms": list(transform()),
        "policy": obj(json!({
            "fromFieldPath": en(&["Optional", "Required"]),
            "toFieldPath": en(&["Replace", "MergeObjects", "MergeObject", "ForceMergeObjects", "ForceMergeObject", "AppendArray", "MergeObjectsAppendArrays", "ForceMergeObjectsAppendArrays"]),
            "mergeOptions": obj(json!({"keepMapValues": {"type": "boolean"}, "appendSlice": {"type": "boolean"}}))
        }))
    }))
}

fn resource() -> Value {
    req(
        obj(json!({
            "name": s(),
            "base": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true},
            "patches": list(patch()),
            "connectionDetails": list(obj(json!({
                "name": s(),
                "type": en(&["FromConnectionSecretKey", "FromFieldPath", "FromValue"]),
                "fromConnectionSecretKey": s(),
                "fromFieldPath": s(),
                "value": s()
            }))),
            "readinessChecks": list(obj(json!({
                "type": en(&["MatchString", "MatchInteger", "MatchTrue", "MatchFalse", "MatchCondition", "None", "NonEmpty"]),
                "fieldPath": s(),
                "matchString": s(),
                "matchInteger": {"type": "integer"},
                "matchCondition": obj(json!({"type": s(), "status": s()}))
            })))
        })),
        &["base"],
    )
}

fn patch_sets() -> Value {
    list(req(
        obj(json!({"name": s(), "patches": list(patch())})),
        &["name", "patches"],
    ))
}

/// function-patch-and-transform's input, `pt.fn.crossplane.io/v1beta1` `Resources`.
pub(crate) fn resources_input() -> Value {
    obj(json!({
        "apiVersion": s(),
        "kind": s(),
        "metadata": any(),
        "environment": obj(json!({"patches": list(patch())})),
        "patchSets": patch_sets(),
        "resources": list(resource())
    }))
}

/// A Composition, in Pipeline mode or with the legacy `spec.resources`.
pub(crate) fn composition() -> Value {
    let mut legacy_resource = resource();
    legacy_resource["properties"]["connectionDetails"]["items"]["properties"]["name"] = s();
    obj(json!({
        "spec": req(obj(json!({
            "compositeTypeRef": req(obj(json!({"apiVersion": s(), "kind": s()})), &["apiVersion", "kind"]),
            "mode": en(&["Resources", "Pipeline"]),
            "pipeline": list(req(obj(json!({
                "step": s(),
                "functionRef": req(obj(json!({"name": s()})), &["name"]),
                "input": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true},
                "credentials": list(any())
            })), &["step", "functionRef"])),
            "resources": list(legacy_resource),
            "patchSets": patch_sets(),
            "environment": obj(json!({
                "environmentConfigs": list(any()),
                "patches": list(patch()),
                "policy": any(),
                "defaultData": any()
            })),
            "functions": list(any()),
            "writeConnectionSecretsToNamespace": s(),
            "publishConnectionDetailsWithStoreConfigRef": obj(json!({"name": s()}))
        })), &["compositeTypeRef"])
    }))
}
