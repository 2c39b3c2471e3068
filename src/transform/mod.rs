//! Transforms: the pipeline, its error envelope and the decoding of each transform's config.

pub(crate) mod case;
mod convert;
pub(crate) mod gojson;
mod map;
mod matches;
mod math;
pub(crate) mod quantity;
pub(crate) mod regex;
pub(crate) mod string;
mod validate;

pub(crate) use validate::{validate, validate_native};

use crate::error::{Error, ErrorKind, Result};
use crate::semantics::Semantics;
use crate::value::{Map, Value};

/// One transform's output, for the explain trace.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Step {
    /// The transform's `type`.
    pub(crate) kind: String,
    /// What it returned.
    pub(crate) output: Value,
}

/// The largest string a transform may build (Join, Replace, Format...):
/// beyond it the render fails instead of exhausting memory.
pub(crate) const MAX_OUTPUT_BYTES: usize = 64 << 20;

/// Runs `transforms` (the patch's `transforms` list, as written) in order on `input`.
///
/// Errors read `transform at index N returned error: ...` as Crossplane's do.
pub(crate) fn run(
    transforms: &[Value],
    input: Value,
    sem: Semantics,
    mut steps: Option<&mut Vec<Step>>,
) -> Result<Value> {
    let mut value = input;
    for (i, t) in transforms.iter().enumerate() {
        let kind = t.get("type").and_then(Value::as_str).unwrap_or("");
        value = resolve(t, value, sem).map_err(|e| {
            e.wrap(format!("transform at index {i} returned error"))
                .with_transform(i, kind)
        })?;
        if let Some(steps) = steps.as_deref_mut() {
            steps.push(Step {
                kind: kind.to_owned(),
                output: value.clone(),
            });
        }
    }
    Ok(value)
}

/// One transform (`Resolve` upstream): dispatch on `type`, then wrap the
/// failure as `<type> transform could not resolve`.
fn resolve(t: &Value, input: Value, sem: Semantics) -> Result<Value> {
    // Go decodes a null list entry as the zero Transform (no type).
    let empty = Map::new();
    let obj = if t.is_null() {
        Some(&empty)
    } else {
        t.as_object()
    };
    let Some(obj) = obj else {
        return Err(invalid(format!(
            "json: cannot unmarshal {} into Go value of type v1.Transform",
            json_kind(t)
        )));
    };
    let kind = opt_str(obj, "type", "Transform")?.unwrap_or("");
    let known = matches!(kind, "map" | "match" | "math" | "string" | "convert");
    if !known {
        return Err(Error::new(
            ErrorKind::Render,
            format!("transform type {kind} is not supported"),
        ));
    }
    let cfg = match obj.get(kind) {
        Some(Value::Object(m)) => m,
        None | Some(Value::Null) => {
            return Err(Error::new(
                ErrorKind::Render,
                format!("given transform type {kind} requires configuration"),
            ));
        }
        Some(other) => {
            return Err(invalid(format!(
                "json: cannot unmarshal {} into Go struct field Transform.{kind} of type object",
                json_kind(other)
            )));
        }
    };
    let out = match kind {
        "map" => map::resolve(cfg, input, sem),
        "match" => matches::resolve(cfg, input, sem),
        "math" => math::resolve(cfg, input, sem),
        "string" => string::resolve(cfg, input, sem),
        _ => convert::resolve(cfg, input),
    };
    out.map_err(|e| e.wrap(format!("{kind} transform could not resolve")))
}

/// A render failure with Crossplane's message.
pub(super) fn fail(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Render, message)
}

/// A config that cannot be decoded into Crossplane's Go types.
pub(super) fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidComposition, message)
}

/// The JSON kind name Go's decoder uses in type errors.
pub(super) fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Int(_) | Value::Float(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// An optional string member (absent or `null` is `None`).
pub(super) fn opt_str<'a>(obj: &'a Map, field: &str, owner: &str) -> Result<Option<&'a str>> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(invalid(format!(
            "json: cannot unmarshal {} into Go struct field {owner}.{field} of type string",
            json_kind(other)
        ))),
    }
}

/// An optional integer member, as Go decodes an `*int64` (or `*int`).
pub(super) fn opt_int(obj: &Map, field: &str, owner: &str) -> Result<Option<i64>> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Int(i)) => Ok(Some(*i)),
        // Function inputs travel as protobuf Structs, where every number is a
        // float64; whole values still decode into Go integers.
        #[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
        Some(Value::Float(f)) if f.fract() == 0.0 && f.abs() < 9.2e18 => Ok(Some(*f as i64)),
        Some(Value::Float(f)) => Err(invalid(format!(
            "json: cannot unmarshal number {} into Go struct field {owner}.{field} of type int64",
            crate::value::go_json_float(*f)
        ))),
        Some(other) => Err(invalid(format!(
            "json: cannot unmarshal {} into Go struct field {owner}.{field} of type int64",
            json_kind(other)
        ))),
    }
}

/// A raw JSON member (`extv1.JSON`) decoded as Go's `encoding/json` decodes
/// into `any`: every number becomes a float64. Absent or `null` is `None`.
pub(super) fn go_any(v: Option<&Value>) -> Option<Value> {
    match v {
        None | Some(Value::Null) => None,
        Some(v) => {
            let mut v = v.clone();
            v.floats_everywhere();
            Some(v)
        }
    }
}

/// Go's `fmt.Sprintf("%v", v)`.
pub(super) fn sprint_v(v: &Value) -> String {
    crate::fmt::sprint_v(v)
}
