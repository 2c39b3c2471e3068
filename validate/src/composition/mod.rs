//! Deep checks of a Composition: its own fields and function-patch-and-transform inputs
//! against their schemas (unknown fields with suggestions), then every patch's field paths
//! against the schemas of the resources they read and write, and the type a patch writes
//! after its transforms.

pub(crate) mod builtin;
mod patches;

use serde_json::Value;

use crate::definitions::{Schemas, split_api_version};
use crate::problem::{Path, Problem, Severity};
use crate::schema::{self, Options};

/// Whether a document is a Crossplane Composition.
pub fn is_composition(doc: &Value) -> bool {
    let api = doc.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    split_api_version(api).0 == "apiextensions.crossplane.io"
        && doc.get("kind").and_then(Value::as_str) == Some("Composition")
}

fn is_pt_input(input: &Value) -> bool {
    let api = input
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    split_api_version(api).0 == "pt.fn.crossplane.io"
        && input.get("kind").and_then(Value::as_str) == Some("Resources")
}

/// Every problem in a Composition. Unknown fields are errors: Crossplane would drop them
/// and the patch would silently do something else.
pub fn check(schemas: &Schemas, comp: &Value) -> Vec<Problem> {
    let strict = Options { strict: true };
    let mut copy = comp.clone();
    let mut problems = schema::validate(&mut copy, &builtin::composition(), strict);
    let spec = comp.get("spec").cloned().unwrap_or(Value::Null);
    let xr = spec
        .pointer("/compositeTypeRef/apiVersion")
        .and_then(Value::as_str)
        .zip(
            spec.pointer("/compositeTypeRef/kind")
                .and_then(Value::as_str),
        )
        .and_then(|(a, k)| schemas.lookup(a, k));
    let spec_at = Path::root().field("spec");
    if let Some(steps) = spec.get("pipeline").and_then(Value::as_array) {
        for (i, step) in steps.iter().enumerate() {
            let Some(input) = step.get("input").filter(|i| is_pt_input(i)) else {
                continue;
            };
            let at = spec_at.field("pipeline").index(i).field("input");
            let mut copy = input.clone();
            for p in schema::validate(&mut copy, &builtin::resources_input(), strict) {
                problems.push(Problem {
                    path: Path(at.0.iter().cloned().chain(p.path.0).collect()),
                    ..p
                });
            }
            patches::check_input(schemas, xr, input, &at, &mut problems);
        }
    }
    if spec.get("resources").is_some() {
        patches::check_input(schemas, xr, &spec, &spec_at, &mut problems);
    }
    problems
}

/// Validates a composed resource's base against its CRD: what is wrong there is a warning
/// (patches may still fix it), and required fields are left for patches to fill.
pub(crate) fn check_base(
    schemas: &Schemas,
    base: &Value,
    at: &Path,
    problems: &mut Vec<Problem>,
) -> bool {
    let api = base.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = base.get("kind").and_then(Value::as_str).unwrap_or("");
    let Some(def) = schemas.lookup(api, kind) else {
        return false;
    };
    if def.unusable.is_some() {
        return false;
    }
    let mut copy = base.clone();
    for p in schema::validate(&mut copy, &def.schema, Options::default()) {
        if p.message.starts_with("Required value") {
            continue;
        }
        problems.push(Problem {
            severity: Severity::Warning,
            path: Path(at.0.iter().cloned().chain(p.path.0).collect()),
            ..p
        });
    }
    true
}
