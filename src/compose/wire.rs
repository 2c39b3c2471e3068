//! What crossing the gRPC boundary does to the values function-patch-and-transform reads.
//!
//! Crossplane sends every object (the XR, observed and desired resources, the
//! context holding the environment, the function's input) as a protobuf
//! `Struct`, whose numbers are all float64. The function then reads its input
//! from the JSON text of that Struct, so a whole number in the input comes back
//! as the integer its shortest float digits spell.

use crate::value::Value;

/// A Composition (or a step's input) as the function decodes it: every number
/// through float64 and back through its JSON text (`9007199254740993` becomes
/// `9007199254740992`, `1.0` becomes `1`).
///
/// Negative zero stays float64 -0: its text `-0` is decoded where it is used,
/// as int64 0 by an integer field or a base template (which decodes as a
/// Kubernetes object), as float64 -0 by a map value or a match result
/// (`encoding/json` into `any`).
pub(super) fn input(composition: &Value) -> Value {
    let mut v = structured(composition);
    through_text(&mut v);
    v
}

/// [`Value::normalize_in_place`], but for negative zero. JSON numbers are
/// finite, so nothing fails.
fn through_text(v: &mut Value) {
    match v {
        Value::Float(f) if *f == 0.0 && f.is_sign_negative() => {}
        Value::Array(a) => a.iter_mut().for_each(through_text),
        Value::Object(m) => m.values_mut().for_each(through_text),
        other => other.normalize_in_place(),
    }
}

/// An object as a `Struct` carries it: every number a float64.
pub(super) fn structured(v: &Value) -> Value {
    let mut v = v.clone();
    v.floats_everywhere();
    v
}
