//! Transforms: the pipeline, its error envelope and the decoding of each transform's config.

pub(crate) mod case;
mod convert;
pub(crate) mod gojson;
mod map;
mod matches;
mod math;
mod pattern;
pub(crate) mod quantity;
pub(crate) mod regex;
pub(crate) mod string;
mod unicode;
mod unicode_tables;
mod validate;

pub(crate) use regex::Regexps;
pub(crate) use validate::{validate_function, validate_native};

use std::borrow::Cow;

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

/// One transform decoded from its config, once per plan, and run on every
/// render of it. Whatever `Resolve` would reject is kept as an error, raised
/// when (and only when) a render runs the transform, as it always was.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Transform {
    /// The `type` as written (`""` when it is not a string), for the error
    /// envelope and the trace; a type decoded is not copied.
    kind: Cow<'static, str>,
    /// The decoded config, or the error `Resolve` returns before a
    /// sub-transform runs.
    op: Result<Op>,
    /// The semantics whose up-front validation the transform as written
    /// passes (`validate::passes`), found while decoding it: `None` when it
    /// fails or was not decoded that far (validation then reads it again, for
    /// its error).
    sound: Option<Semantics>,
}

/// The transform types there are.
const KINDS: [&str; 5] = ["map", "match", "math", "string", "convert"];

#[derive(Clone, Debug, PartialEq)]
enum Op {
    Map(map::Config),
    Match(matches::Config),
    Math(math::Config),
    String(string::Config),
    Convert(convert::Config),
}

impl Transform {
    /// Decodes one entry of a patch's `transforms` list for `sem`.
    /// Also says whether it lacks a type the Composition CRD would default
    /// (`lacks_default`), natively.
    fn decode(t: &Value, sem: Semantics, regexps: &Regexps) -> (Transform, bool) {
        match decode(t, sem, regexps) {
            Ok((kind, op, sound, lacks)) => (
                Transform {
                    kind: Cow::Borrowed(kind),
                    op: Ok(op),
                    sound: sound.then_some(sem),
                },
                lacks,
            ),
            Err(e) => {
                let kind = t.get("type").and_then(Value::as_str).unwrap_or("");
                let t = Transform {
                    kind: Cow::Owned(kind.to_owned()),
                    op: Err(e),
                    sound: None,
                };
                (t, false)
            }
        }
    }

    /// The `type` as written.
    pub(crate) fn kind(&self) -> &str {
        &self.kind
    }

    /// Whether the transform passes `sem`'s up-front validation, as known
    /// from decoding it for `sem`: `false` also when that is not known.
    pub(crate) fn passes(&self, sem: Semantics) -> bool {
        self.sound == Some(sem)
    }
}

/// Decodes a patch's `transforms` list (as written) for `sem`.
pub(crate) fn decode_all(
    transforms: &[Value],
    sem: Semantics,
    regexps: &Regexps,
) -> Vec<Transform> {
    decode_list(transforms, sem, regexps).0
}

/// Decodes a patch's `transforms` list (as written) for `sem`, and says
/// whether natively one of them lacks a type the Composition CRD defaults
/// (`string.type`, `math.type`, a match pattern's `type`): found where the
/// decoder has each config block in hand.
pub(crate) fn decode_list(
    transforms: &[Value],
    sem: Semantics,
    regexps: &Regexps,
) -> (Vec<Transform>, bool) {
    let mut out = Vec::with_capacity(transforms.len());
    let mut lacks = false;
    for t in transforms {
        let (t, l) = Transform::decode(t, sem, regexps);
        out.push(t);
        lacks |= l;
    }
    (out, lacks)
}

/// Whether a config block of `kind` lacks a type the Composition CRD would
/// default (absent or null counts as lacking).
fn lacks_default(kind: &str, cfg: &Map) -> bool {
    let untyped = |b: &Map| b.get("type").is_none_or(Value::is_null);
    match kind {
        "string" | "math" => untyped(cfg),
        "match" => match cfg.get("patterns") {
            Some(Value::Array(ps)) => ps.iter().any(|p| p.as_object().is_some_and(untyped)),
            _ => false,
        },
        _ => false,
    }
}

/// Runs `transforms` in order on `input`.
///
/// Errors read `transform at index N returned error: ...` as Crossplane's do.
///
/// Transforms read their input and make a new value, so the first one reads
/// the source where it lies: a patch copies nothing it then replaces.
pub(crate) fn run(
    transforms: &[Transform],
    input: &Value,
    sem: Semantics,
    mut steps: Option<&mut Vec<Step>>,
) -> Result<Value> {
    let mut value = None;
    for (i, t) in transforms.iter().enumerate() {
        let out = resolve(t, value.as_ref().unwrap_or(input), sem).map_err(|e| {
            e.wrap(format!("transform at index {i} returned error"))
                .with_transform(i, t.kind())
        })?;
        if let Some(steps) = steps.as_deref_mut() {
            steps.push(Step {
                kind: t.kind().to_owned(),
                output: out.clone(),
            });
        }
        value = Some(out);
    }
    Ok(value.unwrap_or_else(|| input.clone()))
}

/// `Resolve`'s reading of a transform: the `type` and its config block,
/// whether the transform passes `sem`'s validation (`validate::passes`) and
/// whether it lacks a type natively defaulted (`lacks_default`).
fn decode(t: &Value, sem: Semantics, regexps: &Regexps) -> Result<(&'static str, Op, bool, bool)> {
    // Go decodes a null list entry as the zero Transform (no type).
    static EMPTY: Map = Map::new();
    let obj = match t {
        Value::Null => &EMPTY,
        Value::Object(m) => m,
        other => {
            return Err(invalid(format!(
                "json: cannot unmarshal {} into Go value of type v1.Transform",
                other.json_kind()
            )));
        }
    };
    let written = opt_str(obj, "type", "Transform")?.unwrap_or("");
    let Some(kind) = KINDS.into_iter().find(|k| *k == written) else {
        return Err(Error::new(
            ErrorKind::Render,
            format!("transform type {written} is not supported"),
        ));
    };
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
                other.json_kind()
            )));
        }
    };
    let op = match kind {
        "map" => Op::Map(map::Config::decode(cfg)),
        "match" => Op::Match(matches::Config::decode(cfg, sem, regexps)),
        "math" => Op::Math(math::Config::decode(cfg, sem)),
        "string" => Op::String(string::Config::decode(cfg, sem, regexps)),
        _ => Op::Convert(convert::Config::decode(cfg)),
    };
    let lacks = sem == Semantics::Native && lacks_default(kind, cfg);
    Ok((kind, op, validate::passes(kind, cfg, sem, regexps), lacks))
}

/// One transform (`Resolve` upstream): the decoding error, if any, or the
/// sub-transform's result, whose failure reads `<type> transform could not resolve`.
fn resolve(t: &Transform, input: &Value, sem: Semantics) -> Result<Value> {
    let op = t.op.as_ref().map_err(again)?;
    let out = match op {
        Op::Map(c) => map::resolve(c, input, sem),
        Op::Match(c) => matches::resolve(c, input),
        Op::Math(c) => math::resolve(c, input),
        Op::String(c) => string::resolve(c, input, sem),
        Op::Convert(c) => convert::resolve(c, input),
    };
    out.map_err(|e| e.wrap(format!("{} transform could not resolve", t.kind())))
}

/// A decoding error kept with the plan, raised by a render that reaches it.
#[cold]
#[inline(never)]
pub(super) fn again(e: &Error) -> Error {
    e.clone()
}

/// A render failure with Crossplane's message.
pub(super) fn fail(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Render, message)
}

/// A config that cannot be decoded into Crossplane's Go types.
pub(super) fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidComposition, message)
}

/// An optional string member (absent or `null` is `None`).
pub(super) fn opt_str<'a>(obj: &'a Map, field: &str, owner: &str) -> Result<Option<&'a str>> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(invalid(format!(
            "json: cannot unmarshal {} into Go struct field {owner}.{field} of type string",
            other.json_kind()
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
            other.json_kind()
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
