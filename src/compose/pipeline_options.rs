//! The request members that only pipelines read: the options (among them the
//! FUNCTIONS map), the initial Function context and the extra (required)
//! resources that selection steps choose from.

use crate::error::{Error, ErrorKind, Result};
use crate::go::quote;
use crate::value::{Map, Value};

use super::shape::{At, Dec};

/// Options that only pipelines read (`options.functions`, `skipUnsupported`,
/// `resultSteps`, `includeContext`).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct PipelineOptions {
    /// Function name → package (the FUNCTIONS file): the request's object of strings, or
    /// null; empty or null: infer from the steps. A B-tree of strings would be one more
    /// copy of the B-tree's code in the modules.
    pub(crate) functions: Value,
    /// A step whose function cannot run is a warning instead of an error.
    pub(crate) skip_unsupported: bool,
    /// Each result names the pipeline step that produced it.
    pub(crate) result_steps: bool,
    /// The Output carries the Function context the pipeline ended with.
    pub(crate) include_context: bool,
    /// `options.crossplane: "v2"`: the Output is what Crossplane v2's `crossplane render`
    /// prints for a pipeline (`docs/render.md`, "Crossplane v2's render").
    pub(crate) crossplane_v2: bool,
    /// With `crossplane`: `v2`, the XR is printed with the input's spec and metadata (`-x`).
    pub(crate) include_full_xr: bool,
    /// The Output carries the desired state after each step and the step's results (`steps`).
    pub(crate) steps: bool,
}

pub(crate) fn decode_options(d: Dec, m: &Map, at: &At<'_>) -> Result<PipelineOptions> {
    let mut functions = Value::Null;
    if let Some(f) = d.opt_obj(m, "functions", at)? {
        let fat = At::Key(at, "functions");
        for (name, package) in f {
            d.string(package, &At::Key(&fat, name))?;
        }
        functions = m.get("functions").cloned().unwrap_or_default();
    }
    Ok(PipelineOptions {
        functions,
        skip_unsupported: d.opt_bool(m, "skipUnsupported", at)?.unwrap_or(false),
        result_steps: d.opt_bool(m, "resultSteps", at)?.unwrap_or(false),
        include_context: d.opt_bool(m, "includeContext", at)?.unwrap_or(false),
        include_full_xr: d.opt_bool(m, "includeFullXr", at)?.unwrap_or(false),
        steps: d.opt_bool(m, "steps", at)?.unwrap_or(false),
        crossplane_v2: match d.opt_str(m, "crossplane", at)? {
            None | Some("v1") => false,
            Some("v2") => true,
            Some(other) => {
                return Err(Error::new(
                    ErrorKind::InvalidRequest,
                    format!(
                        "options.crossplane: unsupported value {} (want \"v1\" or \"v2\")",
                        quote(other)
                    ),
                )
                .with_field_path("options.crossplane"));
            }
        },
    })
}

/// `context` (the initial Function context: key → any JSON) and
/// `extraResources` (objects), taken out of the request root.
pub(crate) fn decode_inputs(d: Dec, root: &mut Map) -> Result<(Map, Vec<Value>)> {
    let context = match root.remove("context").filter(|v| !v.is_null()) {
        None => Map::new(),
        Some(v) => {
            d.object(&v, &"context")?;
            match v {
                Value::Object(m) => m,
                _ => Map::new(),
            }
        }
    };
    let mut extra = Vec::new();
    match root.remove("extraResources") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for (i, r) in items.into_iter().enumerate() {
                d.object(&r, &format!("extraResources[{i}]"))?;
                extra.push(r);
            }
        }
        Some(v) => {
            return Err(Error::new(
                ErrorKind::InvalidRequest,
                format!("extraResources: expected array, got {}", v.go_type()),
            )
            .with_field_path("extraResources"));
        }
    }
    Ok((context, extra))
}
