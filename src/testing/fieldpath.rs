//! Test entry points for `fieldpath`.
//!
//! Inputs are JSON texts; `{"$float": "NaN"}` (or `"+Inf"`, `"-Inf"`, or any
//! number) stands for a float JSON cannot spell. Failures are `(kind, message)`.

use crate::Value;
use crate::error::Error;
use crate::fieldpath::{self, FieldPath, MergeOptions, Segment};
use crate::semantics::Semantics;

/// A failure as `(kind, message)`.
pub type Failure = (String, String);

fn failure(e: &Error) -> Failure {
    (e.kind().as_str().to_owned(), e.message().to_owned())
}

fn semantics(sem: &str) -> Result<Semantics, Failure> {
    Semantics::parse(sem).ok_or_else(|| ("TestInput".to_owned(), format!("no semantics {sem:?}")))
}

/// Parses JSON as the engine does, resolving `{"$float": "..."}` markers.
///
/// # Errors
/// Invalid JSON or an unreadable marker.
pub fn value(json: &str) -> Result<Value, String> {
    let v = Value::from_json(json).map_err(|e| format!("{e:?}"))?;
    resolve_floats(v)
}

fn resolve_floats(v: Value) -> Result<Value, String> {
    Ok(match v {
        Value::Object(m) if m.len() == 1 && m.contains_key("$float") => {
            let text = m.get("$float").and_then(Value::as_str).unwrap_or_default();
            let f = match text {
                "NaN" => f64::NAN,
                "+Inf" => f64::INFINITY,
                "-Inf" => f64::NEG_INFINITY,
                other => other
                    .parse::<f64>()
                    .map_err(|e| format!("bad $float {other:?}: {e}"))?,
            };
            Value::Float(f)
        }
        Value::Object(m) => Value::Object(
            m.into_iter()
                .map(|(k, v)| resolve_floats(v).map(|v| (k, v)))
                .collect::<Result<_, _>>()?,
        ),
        Value::Array(a) => Value::Array(
            a.into_iter()
                .map(resolve_floats)
                .collect::<Result<_, _>>()?,
        ),
        other => other,
    })
}

fn input(json: &str) -> Result<Value, Failure> {
    value(json).map_err(|e| ("TestInput".to_owned(), e))
}

/// The segments of `path`: `field:<name>` or `index:<n>`.
///
/// # Errors
/// The parse error.
pub fn parse(path: &str) -> Result<Vec<String>, Failure> {
    let fp = FieldPath::parse(path).map_err(|e| failure(&e))?;
    Ok(fp
        .segments()
        .iter()
        .map(|s| match s {
            Segment::Field(f) => format!("field:{f}"),
            Segment::Index(i) => format!("index:{i}"),
        })
        .collect())
}

/// The canonical form of `path`.
///
/// # Errors
/// The parse error.
pub fn canonical(path: &str) -> Result<String, Failure> {
    FieldPath::parse(path)
        .map(|fp| fp.to_string())
        .map_err(|e| failure(&e))
}

/// `GetValue`.
///
/// # Errors
/// The read error.
pub fn get(obj: &str, path: &str, sem: &str) -> Result<Value, Failure> {
    let obj = input(obj)?;
    fieldpath::get_value(&obj, path, semantics(sem)?)
        .cloned()
        .map_err(|e| failure(&e))
}

/// A typed getter: `string`, `bool` or `integer`.
///
/// # Errors
/// The read or type error.
pub fn get_typed(obj: &str, path: &str, kind: &str, sem: &str) -> Result<Value, Failure> {
    let obj = input(obj)?;
    let sem = semantics(sem)?;
    let r = match kind {
        "string" => fieldpath::get_string(&obj, path, sem).map(Value::from),
        "bool" => fieldpath::get_bool(&obj, path, sem).map(Value::Bool),
        "integer" => fieldpath::get_integer(&obj, path, sem).map(Value::Int),
        other => return Err(("TestInput".to_owned(), format!("no getter {other}"))),
    };
    r.map_err(|e| failure(&e))
}

/// `SetValue`; returns the whole object afterwards.
///
/// # Errors
/// The write error, with the object as it was left.
pub fn set(obj: &str, path: &str, value: &str, sem: &str) -> Result<Value, (Failure, Value)> {
    merge(obj, path, value, None, sem)
}

/// `MergeValue` with `opts = (keepMapValues, appendSlice)`; returns the whole object.
///
/// # Errors
/// The merge error, with the object as it was left.
pub fn merge(
    obj: &str,
    path: &str,
    value: &str,
    opts: Option<(bool, bool)>,
    sem: &str,
) -> Result<Value, (Failure, Value)> {
    let bad = |f: Failure| (f, Value::Null);
    let mut obj = input(obj).map_err(bad)?;
    let value = input(value).map_err(bad)?;
    let opts = opts.map(|(keep_map_values, append_slice)| MergeOptions {
        keep_map_values,
        append_slice,
    });
    let sem = semantics(sem).map_err(bad)?;
    match fieldpath::merge_value(&mut obj, path, value, opts, sem) {
        Ok(()) => Ok(obj),
        Err(e) => Err((failure(&e), obj)),
    }
}

/// The merge options of a `policy.toFieldPath` as `(keepMapValues, appendSlice)`.
///
/// # Errors
/// `invalid patch policy <x>`.
pub fn policy(policy: Option<&str>) -> Result<Option<(bool, bool)>, Failure> {
    fieldpath::merge_options_for_policy(policy)
        .map(|o| o.map(|o| (o.keep_map_values, o.append_slice)))
        .map_err(|e| failure(&e))
}

/// `ExpandWildcards`.
///
/// # Errors
/// The expansion error.
pub fn expand(obj: &str, path: &str, sem: &str) -> Result<Vec<String>, Failure> {
    let obj = input(obj)?;
    fieldpath::expand_wildcards(&obj, path, semantics(sem)?).map_err(|e| failure(&e))
}

/// `DeleteField`; returns the whole object afterwards.
///
/// # Errors
/// The delete error, with the object as it was left.
pub fn delete(obj: &str, path: &str) -> Result<Value, (Failure, Value)> {
    let mut obj = input(obj).map_err(|f| (f, Value::Null))?;
    match fieldpath::delete_field(&mut obj, path) {
        Ok(()) => Ok(obj),
        Err(e) => Err((failure(&e), obj)),
    }
}

/// The engine's limits: path bytes, segments, write index, expansions.
#[must_use]
pub fn limits() -> (usize, usize, u32, usize) {
    (
        fieldpath::MAX_PATH_BYTES,
        fieldpath::MAX_SEGMENTS,
        fieldpath::MAX_INDEX,
        fieldpath::MAX_EXPANSIONS,
    )
}
