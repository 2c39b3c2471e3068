//! function-patch-and-transform's input decoding: the members each of its Go types knows.
//!
//! The function decodes its `Resources` input into Go structs with a decoder
//! that rejects any member a struct does not declare, before any validation.
//! Members are visited as the input's JSON text orders them (keys sorted, depth
//! first), so the first unknown one found here is the one the function names.

use crate::error::{Error, ErrorKind, Result};
use crate::go::quote;
use crate::value::{Map, Value};

/// What a member holds.
#[derive(Clone, Copy)]
enum Shape {
    /// A scalar, or JSON the function keeps raw (a base template, map values).
    Any,
    /// One struct.
    One(&'static Type),
    /// A list of structs.
    List(&'static Type),
}

/// A Go struct: its name as `%T` prints it and its JSON members.
struct Type {
    go: &'static str,
    members: &'static [(&'static str, Shape)],
}

use Shape::{Any, List, One};

const RESOURCES: Type = Type {
    go: "v1beta1.Resources",
    members: &[
        ("apiVersion", Any),
        ("environment", One(&ENVIRONMENT)),
        ("kind", Any),
        ("metadata", One(&OBJECT_META)),
        ("patchSets", List(&PATCH_SET)),
        ("resources", List(&COMPOSED_TEMPLATE)),
        ("writeConnectionSecretToRef", Any),
    ],
};

const OBJECT_META: Type = Type {
    go: "v1.ObjectMeta",
    members: &[
        ("annotations", Any),
        ("creationTimestamp", Any),
        ("deletionGracePeriodSeconds", Any),
        ("deletionTimestamp", Any),
        ("finalizers", Any),
        ("generateName", Any),
        ("generation", Any),
        ("labels", Any),
        ("managedFields", Any),
        ("name", Any),
        ("namespace", Any),
        ("ownerReferences", Any),
        ("resourceVersion", Any),
        ("selfLink", Any),
        ("uid", Any),
    ],
};

const ENVIRONMENT: Type = Type {
    go: "v1beta1.Environment",
    members: &[("patches", List(&ENVIRONMENT_PATCH))],
};

const PATCH_SET: Type = Type {
    go: "v1beta1.PatchSet",
    members: &[("name", Any), ("patches", List(&PATCH_SET_PATCH))],
};

const COMPOSED_TEMPLATE: Type = Type {
    go: "v1beta1.ComposedTemplate",
    members: &[
        ("base", Any),
        ("connectionDetails", List(&CONNECTION_DETAIL)),
        ("name", Any),
        ("patches", List(&COMPOSED_PATCH)),
        ("readinessChecks", List(&READINESS_CHECK)),
    ],
};

/// The members of `Patch`, which the three patch types inline.
const PATCH: [(&str, Shape); 6] = [
    ("combine", One(&COMBINE)),
    ("fromFieldPath", Any),
    ("policy", One(&PATCH_POLICY)),
    ("toFieldPath", Any),
    ("transforms", List(&TRANSFORM)),
    ("type", Any),
];

const COMPOSED_PATCH: Type = Type {
    go: "v1beta1.ComposedPatch",
    members: &[
        PATCH[0],
        PATCH[1],
        ("patchSetName", Any),
        PATCH[2],
        PATCH[3],
        PATCH[4],
        PATCH[5],
    ],
};

const PATCH_SET_PATCH: Type = Type {
    go: "v1beta1.PatchSetPatch",
    members: &PATCH,
};

const ENVIRONMENT_PATCH: Type = Type {
    go: "v1beta1.EnvironmentPatch",
    members: &PATCH,
};

const COMBINE: Type = Type {
    go: "v1beta1.Combine",
    members: &[
        ("strategy", Any),
        ("string", One(&STRING_COMBINE)),
        ("variables", List(&COMBINE_VARIABLE)),
    ],
};

const COMBINE_VARIABLE: Type = Type {
    go: "v1beta1.CombineVariable",
    members: &[("fromFieldPath", Any)],
};

const STRING_COMBINE: Type = Type {
    go: "v1beta1.StringCombine",
    members: &[("fmt", Any)],
};

const PATCH_POLICY: Type = Type {
    go: "v1beta1.PatchPolicy",
    members: &[("fromFieldPath", Any), ("toFieldPath", Any)],
};

const TRANSFORM: Type = Type {
    go: "v1beta1.Transform",
    members: &[
        ("convert", One(&CONVERT)),
        // The map's pairs are inlined: any key is a pair.
        ("map", Any),
        ("match", One(&MATCH)),
        ("math", One(&MATH)),
        ("string", One(&STRING)),
        ("type", Any),
    ],
};

const CONVERT: Type = Type {
    go: "v1beta1.ConvertTransform",
    members: &[("format", Any), ("toType", Any)],
};

const MATCH: Type = Type {
    go: "v1beta1.MatchTransform",
    members: &[
        ("fallbackTo", Any),
        ("fallbackValue", Any),
        ("patterns", List(&MATCH_PATTERN)),
    ],
};

const MATCH_PATTERN: Type = Type {
    go: "v1beta1.MatchTransformPattern",
    members: &[
        ("literal", Any),
        ("regexp", Any),
        ("result", Any),
        ("type", Any),
    ],
};

const MATH: Type = Type {
    go: "v1beta1.MathTransform",
    members: &[
        ("clampMax", Any),
        ("clampMin", Any),
        ("multiply", Any),
        ("type", Any),
    ],
};

const STRING: Type = Type {
    go: "v1beta1.StringTransform",
    members: &[
        ("convert", Any),
        ("fmt", Any),
        ("join", One(&STRING_JOIN)),
        ("regexp", One(&STRING_REGEXP)),
        ("replace", One(&STRING_REPLACE)),
        ("trim", Any),
        ("type", Any),
    ],
};

const STRING_JOIN: Type = Type {
    go: "v1beta1.StringTransformJoin",
    members: &[("separator", Any)],
};

const STRING_REGEXP: Type = Type {
    go: "v1beta1.StringTransformRegexp",
    members: &[("group", Any), ("match", Any)],
};

const STRING_REPLACE: Type = Type {
    go: "v1beta1.StringTransformReplace",
    members: &[("replace", Any), ("search", Any)],
};

const CONNECTION_DETAIL: Type = Type {
    go: "v1beta1.ConnectionDetail",
    members: &[
        ("fromConnectionSecretKey", Any),
        ("fromFieldPath", Any),
        ("name", Any),
        ("type", Any),
        ("value", Any),
    ],
};

const READINESS_CHECK: Type = Type {
    go: "v1beta1.ReadinessCheck",
    members: &[
        ("fieldPath", Any),
        ("matchCondition", One(&MATCH_CONDITION)),
        ("matchInteger", Any),
        ("matchString", Any),
        ("type", Any),
    ],
};

const MATCH_CONDITION: Type = Type {
    go: "v1beta1.MatchConditionReadinessCheck",
    members: &[("status", Any), ("type", Any)],
};

/// A pipeline step's whole `Resources` input.
pub(super) fn check_input(input: &Map, at: &str) -> Result<()> {
    check_struct(&RESOURCES, input, At::Root(at))
}

/// A classic Composition's spec read as a function input: only the members
/// that become the input (`environment.patches`, `patchSets`, `resources`).
pub(super) fn check_classic(spec: &Map, at: &str) -> Result<()> {
    for (k, v) in spec {
        let shape = match k.as_str() {
            "patchSets" => List(&PATCH_SET),
            "resources" => List(&COMPOSED_TEMPLATE),
            "environment" => match v.get("patches") {
                Some(p) => {
                    let env = At::Key(&At::Root(at), "environment");
                    check(List(&ENVIRONMENT_PATCH), p, At::Key(&env, "patches"))?;
                    continue;
                }
                None => continue,
            },
            _ => continue,
        };
        check(shape, v, At::Key(&At::Root(at), k))?;
    }
    Ok(())
}

/// Where a member is: written out only for the error that names it, so that
/// checking an input that is fine formats nothing.
#[derive(Clone, Copy)]
enum At<'a> {
    Root(&'a str),
    Key(&'a At<'a>, &'a str),
    Index(&'a At<'a>, usize),
}

impl std::fmt::Display for At<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            At::Root(at) => f.write_str(at),
            At::Key(parent, k) => write!(f, "{parent}.{k}"),
            At::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

fn check(shape: Shape, v: &Value, at: At<'_>) -> Result<()> {
    match (shape, v) {
        (One(t), Value::Object(m)) => check_struct(t, m, at),
        (List(t), Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                if let Value::Object(m) = item {
                    check_struct(t, m, At::Index(&at, i))?;
                }
            }
            Ok(())
        }
        // Other shapes fail (or not) in the typed decoding that follows.
        _ => Ok(()),
    }
}

fn check_struct(t: &Type, m: &Map, at: At<'_>) -> Result<()> {
    for (k, v) in m {
        let Some(&(_, shape)) = t.members.iter().find(|(name, _)| name == k) else {
            return Err(unknown(t, k, at));
        };
        check(shape, v, At::Key(&at, k))?;
    }
    Ok(())
}

/// The Fatal text: the SDK's and the decoder's wrapping around the unknown name.
fn unknown(t: &Type, name: &str, at: At<'_>) -> Error {
    Error::new(
        ErrorKind::InvalidComposition,
        format!(
            "cannot get Function input: cannot get function input *v1beta1.Resources from *v1.RunFunctionRequest: \
             cannot unmarshal JSON from *structpb.Struct into *v1beta1.Resources: \
             json: cannot unmarshal Go value of type {}: unknown name {}",
            t.go,
            quote(name)
        ),
    )
    .with_field_path(format!("{at}.{name}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(s: &str) -> Map {
        match Value::from_json(s).expect("valid JSON") {
            Value::Object(m) => m,
            _ => panic!("not an object"),
        }
    }

    #[test]
    fn the_first_unknown_member_in_key_order_is_named() {
        let input = map(
            r#"{"resources":[{"name":"a","patches":[{"fromFieldPath":"x","policy":{"mergeOptions":{}}}]}],
                "patchSets":[{"name":"s","patches":[{"type":"PatchSet","patchSetName":"t"}]}]}"#,
        );
        let e = check_input(&input, "input").expect_err("unknown member");
        assert!(
            e.message().ends_with(
                "json: cannot unmarshal Go value of type v1beta1.PatchSetPatch: unknown name \"patchSetName\""
            ),
            "{}",
            e.message()
        );
        assert_eq!(
            e.context().field_path.as_deref(),
            Some("input.patchSets[0].patches[0].patchSetName")
        );
    }

    #[test]
    fn known_members_and_raw_json_pass() {
        let input = map(
            r#"{"apiVersion":"pt.fn.crossplane.io/v1beta1","kind":"Resources","metadata":{"name":"x"},
                "resources":[{"name":"a","base":{"anything":{"goes":1}},"patches":[
                  {"type":"PatchSet","patchSetName":"s"},
                  {"transforms":[{"type":"map","map":{"any":"key"}},
                                 {"type":"match","match":{"patterns":[{"type":"literal","literal":"a","result":{"x":1}}]}}]}]}]}"#,
        );
        check_input(&input, "input").expect("all members known");
    }
}
