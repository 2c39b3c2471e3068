//! Patch paths checked against the schemas of the XR and the composed resources, and the
//! type each patch writes after its transforms.

use serde_json::Value;
use xprender::model::patch_sets::{self, Source};

use crate::definitions::{Definition, Schemas};
use crate::fieldpath::{self, Reach};
use crate::problem::{Path, Problem, Target};
use crate::suggest;

/// Which side of a patch a path is on.
#[derive(Clone, Copy)]
enum Side {
    Composite,
    Composed,
    Environment,
}

/// Checks the resources, patch sets and environment patches of a P&T input (or of a
/// legacy Composition's spec) found at `at`.
pub(super) fn check_input(
    schemas: &Schemas,
    xr: Option<&Definition>,
    input: &Value,
    at: &Path,
    problems: &mut Vec<Problem>,
) {
    let sets = input
        .get("patchSets")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let resources = input
        .get("resources")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    // The engine's reading of the input, for its PatchSet expansion.
    let model = xprender::Value::from_json(&input.to_string()).unwrap_or_default();
    for (i, res) in resources.iter().enumerate() {
        let res_at = at.field("resources").index(i);
        let base = res.get("base").unwrap_or(&Value::Null);
        let api = base.get("apiVersion").and_then(Value::as_str).unwrap_or("");
        let kind = base.get("kind").and_then(Value::as_str).unwrap_or("");
        let composed = schemas.lookup(api, kind).filter(|d| d.unusable.is_none());
        if !super::check_base(schemas, base, &res_at.field("base"), problems) && !kind.is_empty() {
            problems.push(Problem::warning(
                &res_at.field("base"),
                format!("no schema for {api} {kind}: its patches are not checked against it"),
            ));
        }
        let patches = res
            .get("patches")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        for source in expand(&model, i) {
            match source {
                Source::Template(j) => {
                    let p_at = res_at.field("patches").index(j);
                    check_patch(&patches[j], &p_at, xr, composed, problems);
                }
                Source::Set { set, patch } => {
                    let sp_at = at
                        .field("patchSets")
                        .index(set)
                        .field("patches")
                        .index(patch);
                    check_patch(&sets[set]["patches"][patch], &sp_at, xr, composed, problems);
                }
                Source::Unresolved(j) => {
                    let name = patches[j]
                        .get("patchSetName")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    problems.push(Problem::error(
                        &res_at.field("patches").index(j).field("patchSetName"),
                        format!("no patch set named {name:?}"),
                    ));
                }
            }
        }
    }
}

/// Where each patch template `i` of `input` applies is written, PatchSets expanded as the
/// engine expands them.
fn expand(input: &xprender::Value, i: usize) -> Vec<Source> {
    fn list<'v>(v: Option<&'v xprender::Value>, key: &str) -> &'v [xprender::Value] {
        v.and_then(|v| v.get(key))
            .and_then(xprender::Value::as_array)
            .unwrap_or_default()
    }
    let template = list(Some(input), "resources").get(i);
    patch_sets::expand(list(template, "patches"), list(Some(input), "patchSets"))
}

fn check_patch(
    patch: &Value,
    at: &Path,
    xr: Option<&Definition>,
    composed: Option<&Definition>,
    problems: &mut Vec<Problem>,
) {
    let ty = patch
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("FromCompositeFieldPath");
    let (from_side, to_side) = match ty {
        "FromCompositeFieldPath" | "CombineFromComposite" => (Side::Composite, Side::Composed),
        "ToCompositeFieldPath" | "CombineToComposite" => (Side::Composed, Side::Composite),
        "FromEnvironmentFieldPath" | "CombineFromEnvironment" => {
            (Side::Environment, Side::Composed)
        }
        "ToEnvironmentFieldPath" | "CombineToEnvironment" => (Side::Composed, Side::Environment),
        _ => return,
    };
    let schema_of = |side: Side| match side {
        Side::Composite => xr,
        Side::Composed => composed,
        Side::Environment => None,
    };
    let combine = ty.starts_with("Combine");
    let mut source_type = None;
    if combine {
        let vars = patch
            .pointer("/combine/variables")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        for (i, v) in vars.iter().enumerate() {
            if let Some(p) = v.get("fromFieldPath").and_then(Value::as_str) {
                let v_at = at
                    .field("combine")
                    .field("variables")
                    .index(i)
                    .field("fromFieldPath");
                let _ = check_path(p, &v_at, schema_of(from_side), problems);
            }
        }
        source_type = Some(Ty::Is("string"));
    } else if let Some(p) = patch.get("fromFieldPath").and_then(Value::as_str) {
        source_type = check_path(
            p,
            &at.field("fromFieldPath"),
            schema_of(from_side),
            problems,
        )
        .map(|s| fieldpath::type_of(s).map_or(Ty::Any, Ty::Is));
    }
    let to = patch
        .get("toFieldPath")
        .and_then(Value::as_str)
        .or_else(|| {
            (!combine)
                .then(|| patch.get("fromFieldPath").and_then(Value::as_str))
                .flatten()
        });
    let Some(to) = to else {
        return;
    };
    let to_at = at.field("toFieldPath");
    let Some(target) = check_path(to, &to_at, schema_of(to_side), problems) else {
        return;
    };
    let transforms = patch
        .get("transforms")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let written = transforms
        .iter()
        .fold(source_type.unwrap_or(Ty::Any), after);
    let (Ty::Is(got), Some(want)) = (written, fieldpath::type_of(target)) else {
        return;
    };
    let fits = got == want
        || (got == "integer" && want == "number")
        || (want == "int-or-string" && matches!(got, "integer" | "string"))
        || (got == "int-or-string" && matches!(want, "integer" | "string"));
    if !fits {
        let hint = match want {
            "integer" => "; a convert transform with toType: int would make it one",
            "string" => "; a convert transform with toType: string would make it one",
            "number" => "; a convert transform with toType: float would make it one",
            "boolean" => "; a convert transform with toType: bool would make it one",
            _ => "",
        };
        let def = schema_of(to_side)
            .map(Definition::type_name)
            .unwrap_or_default();
        problems.push(Problem::warning(
            &to_at,
            format!(
                "{to}: this patch writes {} but {def} expects {} here{hint}",
                article(got),
                article(want)
            ),
        ));
    }
}

fn article(t: &str) -> String {
    match t {
        "integer" | "int-or-string" | "object" | "array" => format!("an {t}"),
        t => format!("a {t}"),
    }
}

/// Checks one path against a resource's schema; the schema at the path when known.
fn check_path<'a>(
    path: &str,
    at: &Path,
    def: Option<&'a Definition>,
    problems: &mut Vec<Problem>,
) -> Option<&'a Value> {
    let steps = match fieldpath::parse(path) {
        Ok(s) => s,
        Err(e) => {
            problems.push(Problem::error(at, format!("invalid field path: {e}")));
            return None;
        }
    };
    let def = def?;
    match fieldpath::reach(&def.schema, &steps) {
        Reach::Schema(s) => Some(s),
        Reach::Open => None,
        Reach::NoField { at: i, candidates } => {
            let fieldpath::Step::Field(name) = &steps[i] else {
                return None;
            };
            let near = suggest::closest(name, candidates.iter().map(String::as_str));
            let hint = near
                .map(|s| format!("; did you mean {s}?"))
                .unwrap_or_default();
            let problem = Problem::warning(
                at,
                format!(
                    "{}: no such field in {}{hint}",
                    fieldpath::prefix(&steps, i),
                    def.type_name()
                ),
            );
            problems.push(match near {
                Some(s) => problem.suggesting(Target::Value, name, s),
                None => problem,
            });
            None
        }
        Reach::WrongShape { at: i, found } => {
            problems.push(Problem::warning(
                at,
                format!(
                    "{}: {} is {} in {}",
                    path,
                    fieldpath::prefix(&steps, i.saturating_sub(1)),
                    article(found),
                    def.type_name()
                ),
            ));
            None
        }
    }
}

/// What a patch carries: a known JSON type or anything.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ty {
    Is(&'static str),
    Any,
}

fn json_type(v: &Value) -> &'static str {
    match crate::schema::type_name(v) {
        "null" => "null",
        t => t,
    }
}

/// The type of every value in `values` when they share one.
fn common(values: impl Iterator<Item = Option<Value>>) -> Ty {
    let mut out: Option<&'static str> = None;
    for v in values {
        let Some(v) = v else { return Ty::Any };
        let t = json_type(&v);
        match out {
            None => out = Some(t),
            Some(o) if o == t => {}
            Some(_) => return Ty::Any,
        }
    }
    out.map_or(Ty::Any, Ty::Is)
}

/// The type a transform outputs, given its input's.
fn after(input: Ty, t: &Value) -> Ty {
    match t.get("type").and_then(Value::as_str).unwrap_or("") {
        "map" => common(
            t.get("map")
                .and_then(Value::as_object)
                .into_iter()
                .flat_map(|m| m.values().map(|v| Some(v.clone()))),
        ),
        "match" => {
            let m = t.get("match");
            let results = m
                .and_then(|m| m.get("patterns"))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|p| p.get("result").cloned());
            let fallback_input =
                m.and_then(|m| m.get("fallbackTo")).and_then(Value::as_str) == Some("Input");
            let fallback = m.and_then(|m| m.get("fallbackValue")).cloned();
            match common(results.chain(fallback.filter(|f| !f.is_null()).map(Some))) {
                Ty::Is(r) if fallback_input && input != Ty::Is(r) => Ty::Any,
                r => r,
            }
        }
        "math" => input,
        "string" => Ty::Is("string"),
        "convert" => match t
            .pointer("/convert/toType")
            .and_then(Value::as_str)
            .unwrap_or("")
        {
            "string" => Ty::Is("string"),
            "int" | "int64" => Ty::Is("integer"),
            "bool" => Ty::Is("boolean"),
            "float64" => Ty::Is("number"),
            "object" => Ty::Is("object"),
            "array" => Ty::Is("array"),
            _ => Ty::Any,
        },
        _ => Ty::Any,
    }
}
