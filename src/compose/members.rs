//! function-patch-and-transform's input decoding: each of its Go types and the members it knows.
//!
//! function-sdk-go decodes the `Resources` input into these Go structs (go-json-experiment's
//! `json.Unmarshal` with `RejectUnknownMembers`) before any validation. Members are visited as
//! the input's JSON text orders them (protojson sorts a `Struct`'s keys; depth first), and the
//! first member a struct does not declare, or whose value its Go type cannot hold, is the one the
//! function names. `null` is every Go type's zero value here.

use crate::error::{Error, ErrorKind, Result};
use crate::go::json_experiment::{int_cause, unmarshal_error};
use crate::go::quote;
use crate::model::pt::{
    COMPOSED_TEMPLATE, ENVIRONMENT_PATCH, Go, PATCH_SET, RESOURCES, STRING, Type,
};
use crate::value::{Map, Value, go_json_float};

use Go::{Int, List, Object, One, Pairs, Raw, Str, StringMap, Strings};

/// A pipeline step's whole `Resources` input.
pub(super) fn check_input(input: &Map, at: &str) -> Result<()> {
    check_struct(&RESOURCES, input, At::Root(at))
}

/// A classic Composition's spec read as a function input: only the members
/// that become the input (`environment.patches`, `patchSets`, `resources`).
pub(super) fn check_classic(spec: &Map, at: &str) -> Result<()> {
    for (k, v) in spec {
        let go = match k.as_str() {
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
        check(go, v, At::Key(&At::Root(at), k))?;
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

/// Decodes `v` into `go` as the decoder would, up to the first error.
fn check(go: Go, v: &Value, at: At<'_>) -> Result<()> {
    match (go, v) {
        (_, Value::Null)
        | (Raw | Object, _)
        | (Str(_), Value::String(_))
        | (Pairs, Value::Object(_)) => Ok(()),
        (Int(name), Value::Int(_) | Value::Float(_)) => match int_cause(&number_text(v)) {
            None => Ok(()),
            Some(cause) => Err(mistyped(v, name, Some(&cause), at)),
        },
        (One(t), Value::Object(m)) => check_struct(t, m, at),
        (List(t), Value::Array(items)) => each(One(t), items, at),
        (Strings, Value::Array(items)) => each(STRING, items, at),
        (StringMap, Value::Object(m)) => {
            for (k, v) in m {
                check(STRING, v, At::Key(&at, k))?;
            }
            Ok(())
        }
        // The method decodes with `encoding/json`, whose error the decoder wraps.
        (Pairs, _) => {
            let cause = format!(
                "json: cannot unmarshal {} into Go value of type map[string]v1.JSON",
                v.json_kind()
            );
            Err(mistyped(v, "v1beta1.MapTransform", Some(&cause), at))
        }
        (List(t), _) => Err(mistyped(v, &format!("[]{}", t.go), None, at)),
        (One(t), _) => Err(mistyped(v, t.go, None, at)),
        (Str(name) | Int(name), _) => Err(mistyped(v, name, None, at)),
        (Strings, _) => Err(mistyped(v, "[]string", None, at)),
        (StringMap, _) => Err(mistyped(v, "map[string]string", None, at)),
    }
}

fn each(go: Go, items: &[Value], at: At<'_>) -> Result<()> {
    for (i, item) in items.iter().enumerate() {
        check(go, item, At::Index(&at, i))?;
    }
    Ok(())
}

fn check_struct(t: &Type, m: &Map, at: At<'_>) -> Result<()> {
    for (k, v) in m {
        let Some(&(_, go)) = t.members.iter().find(|(name, _)| name == k) else {
            let unknown = format!("unknown name {}", quote(k));
            let detail = unmarshal_error(None, t.go, Some(&unknown));
            return Err(undecodable(&detail, format!("{at}.{k}")));
        };
        check(go, v, At::Key(&at, k))?;
    }
    Ok(())
}

/// The text of a number as it reaches the decoder: a `Struct` holds a
/// float64, which protojson writes as `encoding/json` writes floats.
fn number_text(v: &Value) -> String {
    match v {
        #[allow(clippy::cast_precision_loss)] // the Struct's float64 rounds it
        Value::Int(i) => go_json_float(*i as f64),
        Value::Float(f) => go_json_float(*f),
        _ => String::new(),
    }
}

fn mistyped(v: &Value, go: &str, cause: Option<&str>, at: At<'_>) -> Error {
    let detail = unmarshal_error(Some(v.json_kind()), go, cause);
    undecodable(&detail, at.to_string())
}

/// The Fatal text: the SDK's and the function's wrapping around the decoder's error.
fn undecodable(detail: &str, field_path: String) -> Error {
    Error::new(
        ErrorKind::InvalidComposition,
        format!(
            "cannot get Function input: cannot get function input *v1beta1.Resources from *v1.RunFunctionRequest: \
             cannot unmarshal JSON from *structpb.Struct into *v1beta1.Resources: {detail}"
        ),
    )
    .with_field_path(field_path)
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

    /// The decoder's own text and the field path of the first fault in `json`.
    fn fault(json: &str) -> (String, String) {
        let e = check_input(&map(json), "input").expect_err("a fault");
        let message = e.message();
        let detail = message
            .split_once("into *v1beta1.Resources: ")
            .map_or(message, |(_, d)| d)
            .to_owned();
        (detail, e.context().field_path.clone().unwrap_or_default())
    }

    #[test]
    fn mistyped_values_name_the_json_kind_and_the_go_type() {
        let math = |m: &str| {
            fault(&format!(
                r#"{{"resources":[{{"name":"a","patches":[{{"transforms":[{{"type":"math","math":{m}}}]}}]}}]}}"#
            ))
        };
        assert_eq!(
            math(r#"{"multiply":"sixty"}"#),
            (
                "json: cannot unmarshal JSON string into Go value of type int64".to_owned(),
                "input.resources[0].patches[0].transforms[0].math.multiply".to_owned()
            )
        );
        assert_eq!(
            math(r#"{"multiply":2.5}"#).0,
            "json: cannot unmarshal JSON number into Go value of type int64: \
             cannot parse \"2.5\" as signed integer: invalid syntax"
        );
        assert_eq!(
            math(r#"{"clampMax":1e19}"#).0,
            "json: cannot unmarshal JSON number into Go value of type int64: \
             cannot parse \"10000000000000000000\" as signed integer: value out of range"
        );
        assert_eq!(
            math("[1]").0,
            "json: cannot unmarshal JSON array into Go value of type v1beta1.MathTransform"
        );
        assert_eq!(
            fault(r#"{"resources":{"name":"a"}}"#).0,
            "json: cannot unmarshal JSON object into Go value of type []v1beta1.ComposedTemplate"
        );
        assert_eq!(
            fault(r#"{"resources":[{"patches":[{"type":true}]}]}"#).0,
            "json: cannot unmarshal JSON boolean into Go value of type v1beta1.PatchType"
        );
        assert_eq!(
            fault(r#"{"resources":[{"patches":[{"transforms":[{"map":"x"}]}]}]}"#).0,
            "json: cannot unmarshal JSON string into Go value of type v1beta1.MapTransform: \
             json: cannot unmarshal string into Go value of type map[string]v1.JSON"
        );
        assert_eq!(
            fault(r#"{"metadata":{"labels":{"a":1}}}"#),
            (
                "json: cannot unmarshal JSON number into Go value of type string".to_owned(),
                "input.metadata.labels.a".to_owned()
            )
        );
    }

    #[test]
    fn unknown_names_and_mistyped_values_are_found_in_one_walk() {
        // `patchSets` sorts before `resources`: its mistyped group is first.
        let (detail, path) = fault(
            r#"{"resources":[{"name":"a","unknown":1}],
                "patchSets":[{"name":"s","patches":[{"transforms":[{"type":"string","string":{"regexp":{"group":"1"}}}]}]}]}"#,
        );
        assert_eq!(
            detail,
            "json: cannot unmarshal JSON string into Go value of type int"
        );
        assert_eq!(
            path,
            "input.patchSets[0].patches[0].transforms[0].string.regexp.group"
        );
        // Within one object, `fromFieldPath` sorts before `unknown`.
        let (detail, _) = fault(r#"{"resources":[{"patches":[{"unknown":1,"fromFieldPath":7}]}]}"#);
        assert_eq!(
            detail,
            "json: cannot unmarshal JSON number into Go value of type string"
        );
    }

    #[test]
    fn null_and_whole_numbers_decode() {
        let input = map(
            r#"{"environment":null,"metadata":{"labels":{"a":null},"generation":3},
                "resources":[null,{"name":null,"patches":[{"transforms":[
                  {"type":"math","math":{"multiply":-2,"clampMin":9007199254740993}},
                  {"type":"map","map":null},{"type":"match","match":{"fallbackValue":[1]}}]}],
                  "readinessChecks":[{"type":"MatchInteger","matchInteger":-0.0}]}]}"#,
        );
        check_input(&input, "input").expect("decodes");
    }
}
