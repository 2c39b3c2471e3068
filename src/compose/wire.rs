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
pub(super) fn input(composition: &Value) -> Value {
    // JSON numbers are finite, so the round trip cannot fail.
    structured(composition)
        .normalize()
        .unwrap_or_else(|_| composition.clone())
}

/// An object as a `Struct` carries it: every number a float64.
pub(super) fn structured(v: &Value) -> Value {
    let mut v = v.clone();
    v.floats_everywhere();
    v
}
