//! function-patch-and-transform's input (`pt.fn.crossplane.io/v1beta1` `Resources`): each of
//! its Go types, the members it declares and their types, as the function decodes them; the
//! values its named string types take, and the members its CRD requires.

/// The input's `apiVersion`; with `kind: Resources` it marks a function-patch-and-transform step.
pub const API_VERSION: &str = "pt.fn.crossplane.io/v1beta1";

/// A member's Go type, as the decoder sees it.
#[derive(Clone, Copy, Debug)]
pub enum Go {
    /// Any JSON: kept raw (`extv1.JSON`, `runtime.RawExtension`), or a type not modelled here.
    Raw,
    /// `runtime.RawExtension` holding a Kubernetes object (a template's base): raw JSON too.
    Object,
    /// A string, or a named string type (`v1beta1.PatchType`), or a pointer to one.
    Str(&'static str),
    /// A signed 64-bit integer (`int64`, or `int`), or a pointer to one.
    Int(&'static str),
    /// A struct, or a pointer to one.
    One(&'static Type),
    /// A slice of structs.
    List(&'static Type),
    /// `[]string`.
    Strings,
    /// `map[string]string`.
    StringMap,
    /// `*MapTransform`, whose `UnmarshalJSON` hands the pairs to `encoding/json`.
    Pairs,
}

/// A Go struct: its name as `%T` prints it and its JSON members.
#[derive(Debug)]
pub struct Type {
    pub go: &'static str,
    pub members: &'static [(&'static str, Go)],
}

use Go::{Int, List, Object, One, Pairs, Raw, Str, StringMap, Strings};

/// `string` (or `*string`), the most common member type.
pub const STRING: Go = Str("string");

pub const RESOURCES: Type = Type {
    go: "v1beta1.Resources",
    members: &[
        ("apiVersion", STRING),
        ("environment", One(&ENVIRONMENT)),
        ("kind", STRING),
        ("metadata", One(&OBJECT_META)),
        ("patchSets", List(&PATCH_SET)),
        ("resources", List(&COMPOSED_TEMPLATE)),
        ("writeConnectionSecretToRef", Raw),
    ],
};

pub const OBJECT_META: Type = Type {
    go: "v1.ObjectMeta",
    members: &[
        ("annotations", StringMap),
        ("creationTimestamp", Raw),
        ("deletionGracePeriodSeconds", Int("int64")),
        ("deletionTimestamp", Raw),
        ("finalizers", Strings),
        ("generateName", STRING),
        ("generation", Int("int64")),
        ("labels", StringMap),
        ("managedFields", Raw),
        ("name", STRING),
        ("namespace", STRING),
        ("ownerReferences", Raw),
        ("resourceVersion", STRING),
        ("selfLink", STRING),
        ("uid", Str("types.UID")),
    ],
};

pub const ENVIRONMENT: Type = Type {
    go: "v1beta1.Environment",
    members: &[("patches", List(&ENVIRONMENT_PATCH))],
};

pub const PATCH_SET: Type = Type {
    go: "v1beta1.PatchSet",
    members: &[("name", STRING), ("patches", List(&PATCH_SET_PATCH))],
};

pub const COMPOSED_TEMPLATE: Type = Type {
    go: "v1beta1.ComposedTemplate",
    members: &[
        ("base", Object),
        ("connectionDetails", List(&CONNECTION_DETAIL)),
        ("name", STRING),
        ("patches", List(&COMPOSED_PATCH)),
        ("readinessChecks", List(&READINESS_CHECK)),
    ],
};

/// The members of `Patch`, which the three patch types inline.
const PATCH: [(&str, Go); 6] = [
    ("combine", One(&COMBINE)),
    ("fromFieldPath", STRING),
    ("policy", One(&PATCH_POLICY)),
    ("toFieldPath", STRING),
    ("transforms", List(&TRANSFORM)),
    ("type", Str("v1beta1.PatchType")),
];

pub const COMPOSED_PATCH: Type = Type {
    go: "v1beta1.ComposedPatch",
    members: &[
        PATCH[0],
        PATCH[1],
        ("patchSetName", STRING),
        PATCH[2],
        PATCH[3],
        PATCH[4],
        PATCH[5],
    ],
};

pub const PATCH_SET_PATCH: Type = Type {
    go: "v1beta1.PatchSetPatch",
    members: &PATCH,
};

pub const ENVIRONMENT_PATCH: Type = Type {
    go: "v1beta1.EnvironmentPatch",
    members: &PATCH,
};

pub const COMBINE: Type = Type {
    go: "v1beta1.Combine",
    members: &[
        ("strategy", Str("v1beta1.CombineStrategy")),
        ("string", One(&STRING_COMBINE)),
        ("variables", List(&COMBINE_VARIABLE)),
    ],
};

pub const COMBINE_VARIABLE: Type = Type {
    go: "v1beta1.CombineVariable",
    members: &[("fromFieldPath", STRING)],
};

pub const STRING_COMBINE: Type = Type {
    go: "v1beta1.StringCombine",
    members: &[("fmt", STRING)],
};

pub const PATCH_POLICY: Type = Type {
    go: "v1beta1.PatchPolicy",
    members: &[
        ("fromFieldPath", Str("v1beta1.FromFieldPathPolicy")),
        ("toFieldPath", Str("v1beta1.ToFieldPathPolicy")),
    ],
};

pub const TRANSFORM: Type = Type {
    go: "v1beta1.Transform",
    members: &[
        ("convert", One(&CONVERT)),
        // The map's pairs are inlined: any key is a pair.
        ("map", Pairs),
        ("match", One(&MATCH)),
        ("math", One(&MATH)),
        ("string", One(&STRING_TRANSFORM)),
        ("type", Str("v1beta1.TransformType")),
    ],
};

pub const CONVERT: Type = Type {
    go: "v1beta1.ConvertTransform",
    members: &[
        ("format", Str("v1beta1.ConvertTransformFormat")),
        ("toType", Str("v1beta1.TransformIOType")),
    ],
};

pub const MATCH: Type = Type {
    go: "v1beta1.MatchTransform",
    members: &[
        ("fallbackTo", Str("v1beta1.MatchFallbackTo")),
        ("fallbackValue", Raw),
        ("patterns", List(&MATCH_PATTERN)),
    ],
};

pub const MATCH_PATTERN: Type = Type {
    go: "v1beta1.MatchTransformPattern",
    members: &[
        ("literal", STRING),
        ("regexp", STRING),
        ("result", Raw),
        ("type", Str("v1beta1.MatchTransformPatternType")),
    ],
};

pub const MATH: Type = Type {
    go: "v1beta1.MathTransform",
    members: &[
        ("clampMax", Int("int64")),
        ("clampMin", Int("int64")),
        ("multiply", Int("int64")),
        ("type", Str("v1beta1.MathTransformType")),
    ],
};

pub const STRING_TRANSFORM: Type = Type {
    go: "v1beta1.StringTransform",
    members: &[
        ("convert", Str("v1beta1.StringConversionType")),
        ("fmt", STRING),
        ("join", One(&STRING_JOIN)),
        ("regexp", One(&STRING_REGEXP)),
        ("replace", One(&STRING_REPLACE)),
        ("trim", STRING),
        ("type", Str("v1beta1.StringTransformType")),
    ],
};

pub const STRING_JOIN: Type = Type {
    go: "v1beta1.StringTransformJoin",
    members: &[("separator", STRING)],
};

pub const STRING_REGEXP: Type = Type {
    go: "v1beta1.StringTransformRegexp",
    members: &[("group", Int("int")), ("match", STRING)],
};

pub const STRING_REPLACE: Type = Type {
    go: "v1beta1.StringTransformReplace",
    members: &[("replace", STRING), ("search", STRING)],
};

pub const CONNECTION_DETAIL: Type = Type {
    go: "v1beta1.ConnectionDetail",
    members: &[
        ("fromConnectionSecretKey", STRING),
        ("fromFieldPath", STRING),
        ("name", STRING),
        ("type", Str("v1beta1.ConnectionDetailType")),
        ("value", STRING),
    ],
};

pub const READINESS_CHECK: Type = Type {
    go: "v1beta1.ReadinessCheck",
    members: &[
        ("fieldPath", STRING),
        ("matchCondition", One(&MATCH_CONDITION)),
        ("matchInteger", Int("int64")),
        ("matchString", STRING),
        ("type", Str("v1beta1.ReadinessCheckType")),
    ],
};

pub const MATCH_CONDITION: Type = Type {
    go: "v1beta1.MatchConditionReadinessCheck",
    members: &[
        ("status", Str("v1.ConditionStatus")),
        ("type", Str("v1.ConditionType")),
    ],
};

/// The values the engine accepts for a named string type (`v1beta1.PatchType`); empty when
/// any string goes.
#[must_use]
pub fn values(go: &str) -> &'static [&'static str] {
    match go {
        "v1beta1.PatchType" => &[
            "FromCompositeFieldPath",
            "FromEnvironmentFieldPath",
            "PatchSet",
            "ToCompositeFieldPath",
            "ToEnvironmentFieldPath",
            "CombineFromEnvironment",
            "CombineFromComposite",
            "CombineToComposite",
            "CombineToEnvironment",
        ],
        "v1beta1.TransformType" => &["map", "match", "math", "string", "convert"],
        "v1beta1.MatchTransformPatternType" => &["literal", "regexp"],
        "v1beta1.MatchFallbackTo" => &["Value", "Input"],
        "v1beta1.MathTransformType" => &["Multiply", "ClampMin", "ClampMax"],
        "v1beta1.StringTransformType" => &[
            "Format",
            "Convert",
            "TrimPrefix",
            "TrimSuffix",
            "Regexp",
            "Join",
            "Replace",
        ],
        "v1beta1.StringConversionType" => &[
            "ToUpper",
            "ToLower",
            "ToBase64",
            "FromBase64",
            "ToJson",
            "ToSha1",
            "ToSha256",
            "ToSha512",
            "ToAdler32",
        ],
        "v1beta1.TransformIOType" => &[
            "string", "int", "int64", "bool", "float64", "object", "array",
        ],
        "v1beta1.ConvertTransformFormat" => &["none", "quantity", "json"],
        "v1beta1.CombineStrategy" => &["string"],
        "v1beta1.FromFieldPathPolicy" => &["Optional", "Required"],
        "v1beta1.ToFieldPathPolicy" => &[
            "Replace",
            "MergeObjects",
            "MergeObjectsAppendArrays",
            "ForceMergeObjects",
            "ForceMergeObjectsAppendArrays",
            "MergeObject",
            "AppendArray",
        ],
        "v1beta1.ConnectionDetailType" => {
            &["FromConnectionSecretKey", "FromFieldPath", "FromValue"]
        }
        "v1beta1.ReadinessCheckType" => &[
            "MatchString",
            "MatchInteger",
            "MatchTrue",
            "MatchFalse",
            "MatchCondition",
            "None",
            "NonEmpty",
        ],
        _ => &[],
    }
}

/// The members a struct's CRD requires.
#[must_use]
pub fn required(t: &Type) -> &'static [&'static str] {
    match t.go {
        "v1beta1.Transform" => &["type"],
        "v1beta1.MatchTransformPattern" => &["result"],
        "v1beta1.StringTransformRegexp" => &["match"],
        "v1beta1.StringTransformJoin" => &["separator"],
        "v1beta1.ConvertTransform" => &["toType"],
        "v1beta1.Combine" => &["variables", "strategy"],
        "v1beta1.CombineVariable" => &["fromFieldPath"],
        "v1beta1.StringCombine" => &["fmt"],
        "v1beta1.ComposedTemplate" => &["base"],
        "v1beta1.PatchSet" => &["name", "patches"],
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every struct reachable from the input, once.
    fn all() -> Vec<&'static Type> {
        let mut out: Vec<&'static Type> = vec![&RESOURCES];
        let mut i = 0;
        while i < out.len() {
            for (_, go) in out[i].members {
                if let Go::One(t) | Go::List(t) = go
                    && !out.iter().any(|o| o.go == t.go)
                {
                    out.push(t);
                }
            }
            i += 1;
        }
        out
    }

    #[test]
    fn named_types_have_values_and_required_members_exist() {
        for t in all() {
            for (name, go) in t.members {
                if let Go::Str(n) = go
                    && n.starts_with("v1beta1.")
                {
                    assert!(!values(n).is_empty(), "{} {name}: {n}", t.go);
                }
            }
            for r in required(t) {
                assert!(t.members.iter().any(|(n, _)| n == r), "{} {r}", t.go);
            }
        }
    }
}
