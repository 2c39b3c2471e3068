//! Reading, writing and deleting by segments: crossplane-runtime's `Paved`.

use super::Segment;
use super::parse::segments_string;
use crate::error::{Error, ErrorKind, Result};
use crate::semantics::Semantics;
use crate::value::{Map, Value};

/// Highest index a write may name (`DefaultMaxFieldPathIndex`).
pub(crate) const MAX_INDEX: u32 = 1024;

pub(super) static NULL: Value = Value::Null;

fn err(kind: ErrorKind, prefix: &[Segment], what: &str) -> Error {
    let mut msg = segments_string(prefix);
    msg.push_str(what);
    Error::new(kind, msg)
}

/// `getValue`: walks `segments` from `obj`. No segments yields `null`.
pub(super) fn get<'a>(obj: &'a Value, segments: &[Segment], sem: Semantics) -> Result<&'a Value> {
    walk(obj, segments, sem).map_err(|(kind, n, what)| err(kind, &segments[..n], what))
}

/// The value `get` finds, or `None` where it fails; for callers that drop
/// the error, which is then never written.
pub(super) fn find<'a>(obj: &'a Value, segments: &[Segment], sem: Semantics) -> Option<&'a Value> {
    walk(obj, segments, sem).ok()
}

/// As `get`, but a missing value is a `NotFound` error without a message:
/// for callers that skip a miss without reading why.
pub(super) fn get_quiet<'a>(
    obj: &'a Value,
    segments: &[Segment],
    sem: Semantics,
) -> Result<&'a Value> {
    walk(obj, segments, sem).map_err(|(kind, n, what)| match kind {
        ErrorKind::NotFound => Error::new(kind, String::new()),
        _ => err(kind, &segments[..n], what),
    })
}

/// `get`'s walk; a failure is the error's kind, how many segments its path
/// names and what went wrong, from which `err` writes the error.
fn walk<'a>(
    obj: &'a Value,
    segments: &[Segment],
    sem: Semantics,
) -> std::result::Result<&'a Value, (ErrorKind, usize, &'static str)> {
    let mut it = obj;
    for (i, s) in segments.iter().enumerate() {
        it = match s {
            Segment::Index(idx) => {
                let Value::Array(a) = it else {
                    return Err((ErrorKind::Render, i, ": not an array"));
                };
                let Some(v) = a.get(*idx as usize) else {
                    return Err((ErrorKind::NotFound, i + 1, ": no such element"));
                };
                v
            }
            Segment::Field(name) => match it {
                Value::Object(m) => match m.get(name) {
                    Some(v) => v,
                    None => return Err((ErrorKind::NotFound, i + 1, ": no such field")),
                },
                // crossplane-runtime v1.16 made a null parent "not found".
                Value::Null if sem.null_intermediate_not_found() => {
                    return Err((ErrorKind::NotFound, i, ": expected map, got nil"));
                }
                _ => return Err((ErrorKind::Render, i, ": not an object")),
            },
        };
    }
    Ok(if segments.is_empty() { &NULL } else { it })
}

/// `getValue` for writing in place; same errors as [`get`].
pub(super) fn get_mut<'a>(
    obj: &'a mut Value,
    segments: &[Segment],
    sem: Semantics,
) -> Result<&'a mut Value> {
    // Errors are produced by the shared reader, so texts cannot drift.
    get(obj, segments, sem)?;
    let mut it = obj;
    for s in segments {
        let next = match (s, it) {
            (Segment::Index(idx), Value::Array(a)) => a.get_mut(*idx as usize),
            (Segment::Field(name), Value::Object(m)) => m.get_mut(name),
            _ => None,
        };
        let Some(next) = next else {
            return Err(Error::new(
                ErrorKind::Render,
                "field path changed while reading",
            ));
        };
        it = next;
    }
    Ok(it)
}

pub(super) fn get_string<'a>(obj: &'a Value, path: &str, sem: Semantics) -> Result<&'a str> {
    match super::get_value(obj, path, sem)? {
        Value::String(s) => Ok(s),
        _ => Err(Error::new(
            ErrorKind::Render,
            format!("{path}: not a string"),
        )),
    }
}

pub(super) fn get_bool(obj: &Value, path: &str, sem: Semantics) -> Result<bool> {
    match super::get_value(obj, path, sem)? {
        Value::Bool(b) => Ok(*b),
        _ => Err(Error::new(ErrorKind::Render, format!("{path}: not a bool"))),
    }
}

pub(super) fn get_integer(obj: &Value, path: &str, sem: Semantics) -> Result<i64> {
    match super::get_value(obj, path, sem)? {
        Value::Int(i) => Ok(*i),
        _ => Err(Error::new(
            ErrorKind::Render,
            format!("{path}: not a (int64) number"),
        )),
    }
}

/// The JSON round trip of every write (`toValidJSON`), done in place: fails
/// on NaN or infinities, turns whole floats into integers.
pub(super) fn to_valid_json(v: &mut Value) -> Result<()> {
    v.check_finite()
        .map_err(|e| e.wrap("cannot marshal value to JSON"))?;
    normalize_in_place(v);
    Ok(())
}

fn normalize_in_place(v: &mut Value) {
    match v {
        Value::Float(f) => {
            if let Ok(n) = Value::Float(*f).normalize() {
                *v = n;
            }
        }
        Value::Array(a) => a.iter_mut().for_each(normalize_in_place),
        Value::Object(m) => m.values_mut().for_each(normalize_in_place),
        _ => {}
    }
}

/// `validateSegments`: no index above [`MAX_INDEX`] may be written.
pub(super) fn check_indexes(segments: &[Segment]) -> Result<()> {
    for s in segments {
        if let Segment::Index(i) = s
            && *i > MAX_INDEX
        {
            return Err(Error::new(
                ErrorKind::Render,
                format!("index {i} is greater than max allowed index {MAX_INDEX}"),
            ));
        }
    }
    Ok(())
}

/// `setValue`: normalise, check indexes, then walk creating what is missing.
pub(super) fn set(
    obj: &mut Value,
    segments: &[Segment],
    mut value: Value,
    _sem: Semantics,
) -> Result<()> {
    // Strings, integers, booleans and null are valid JSON as they are.
    if matches!(value, Value::Float(_) | Value::Array(_) | Value::Object(_)) {
        to_valid_json(&mut value)?;
    }
    check_indexes(segments)?;
    write(obj, segments, value)
}

/// The walk of `setValue`, on a value that is already valid JSON.
pub(super) fn write(obj: &mut Value, segments: &[Segment], value: Value) -> Result<()> {
    let Some((last, init)) = segments.split_last() else {
        return Ok(());
    };
    let mut cur = obj;
    for (i, s) in init.iter().enumerate() {
        let next = &segments[i + 1];
        cur = match s {
            Segment::Field(name) => {
                let Value::Object(m) = cur else {
                    return Err(err(ErrorKind::Render, &segments[..i], " is not an object"));
                };
                let Some(child) = prepare_field(m, name, next) else {
                    return Err(Error::new(ErrorKind::Render, "cannot prepare field"));
                };
                child
            }
            Segment::Index(idx) => {
                let Value::Array(a) = cur else {
                    return Err(err(ErrorKind::Render, &segments[..i], " is not an array"));
                };
                prepare_element(a, *idx as usize, next)
            }
        };
    }
    let i = init.len();
    match last {
        Segment::Field(name) => {
            let Value::Object(m) = cur else {
                return Err(err(ErrorKind::Render, &segments[..i], " is not an object"));
            };
            m.set(name, value);
        }
        Segment::Index(idx) => {
            let Value::Array(a) = cur else {
                return Err(err(ErrorKind::Render, &segments[..i], " is not an array"));
            };
            *slot(a, *idx as usize) = value;
        }
    }
    Ok(())
}

/// The container `next` needs: `{}` for a field, a `null`-filled array long
/// enough for an index.
fn container_for(next: &Segment) -> Value {
    match next {
        Segment::Field(_) => Value::Object(Map::new()),
        Segment::Index(n) => Value::Array(vec![Value::Null; *n as usize + 1]),
    }
}

/// Pads an array child so that index `next` exists.
fn pad_for(child: &mut Value, next: &Segment) {
    if let (Segment::Index(n), Value::Array(a)) = (next, child) {
        let want = *n as usize + 1;
        if a.len() < want {
            a.resize(want, Value::Null);
        }
    }
}

/// `prepareField`: an absent member becomes a container; a present array is
/// padded; anything else present (including `null`) is left alone.
fn prepare_field<'a>(m: &'a mut Map, name: &str, next: &Segment) -> Option<&'a mut Value> {
    let child = m.get_or_insert_with(name, || container_for(next));
    pad_for(child, next);
    Some(child)
}

/// `prepareElement`: a `null` element becomes a container; an array is padded.
fn prepare_element<'a>(a: &'a mut Vec<Value>, idx: usize, next: &Segment) -> &'a mut Value {
    let child = slot(a, idx);
    if child.is_null() {
        *child = container_for(next);
    } else {
        pad_for(child, next);
    }
    child
}

/// Element `idx`, padding with `null` if needed (only an array at the root can
/// be short: every other array was padded when its parent was prepared).
fn slot(a: &mut Vec<Value>, idx: usize) -> &mut Value {
    if a.len() <= idx {
        a.resize(idx + 1, Value::Null);
    }
    &mut a[idx]
}

/// `DeleteField` by segments.
pub(super) fn delete(obj: &mut Value, segments: &[Segment]) -> Result<()> {
    let Some((last, init)) = segments.split_last() else {
        return Ok(());
    };
    let wrap = |e: &'static str| {
        Error::new(ErrorKind::Render, e)
            .wrap(format!("cannot delete {}", segments_string(segments)))
    };
    let mut cur = obj;
    for (i, s) in init.iter().enumerate() {
        let child = match s {
            Segment::Index(idx) => {
                let Value::Array(a) = cur else {
                    return Err(err(ErrorKind::Render, &segments[..i], " is not an array"));
                };
                a.get_mut(*idx as usize)
            }
            Segment::Field(name) => {
                let Value::Object(m) = cur else {
                    return Err(err(ErrorKind::Render, &segments[..i], " is not an object"));
                };
                m.get_mut(name)
            }
        };
        // A missing parent means there is nothing to delete.
        let Some(child) = child else { return Ok(()) };
        cur = child;
    }
    match (last, cur) {
        (Segment::Index(idx), Value::Array(a)) => {
            let idx = *idx as usize;
            if idx < a.len() {
                a.remove(idx);
            }
            Ok(())
        }
        (Segment::Index(_), _) => Err(wrap("not an array")),
        (Segment::Field(name), Value::Object(m)) => {
            m.remove(name);
            Ok(())
        }
        (Segment::Field(_), _) => Err(wrap("not an object")),
    }
}
