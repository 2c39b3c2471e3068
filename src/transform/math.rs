//! The `math` transform: Multiply, ClampMin and ClampMax on int64 or float64 input.

use super::{again, fail, opt_int, opt_str};
use crate::error::Result;
use crate::semantics::Semantics;
use crate::value::{Map, Value};

/// The operation and its operand, or the error validating them.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Config(Result<(Op, i64)>);

impl Config {
    /// `ResolveMath`'s checks of the config, which come before the input's.
    pub(super) fn decode(cfg: &Map, sem: Semantics) -> Config {
        Config(decode(cfg, sem))
    }
}

fn decode(cfg: &Map, sem: Semantics) -> Result<(Op, i64)> {
    let kind = match opt_str(cfg, "type", "MathTransform")? {
        // Native code defaults the type (the v1.10 form `math: {multiply: N}`).
        None | Some("") if sem == Semantics::Native => "Multiply",
        None => "",
        Some(k) => k,
    };
    let operand = |field: &str, what: &str| -> Result<i64> {
        opt_int(cfg, field, "MathTransform")?.ok_or_else(|| {
            fail(format!(
                "{field}: Required value: must specify a value if a {what} math transform is specified"
            ))
        })
    };
    Ok(match kind {
        "Multiply" => (Op::Multiply, operand("multiply", "multiply")?),
        "ClampMin" => (Op::ClampMin, operand("clampMin", "clamp min")?),
        "ClampMax" => (Op::ClampMax, operand("clampMax", "clamp max")?),
        "" => {
            return Err(fail(
                "type: Required value: math transform type is required",
            ));
        }
        other => {
            return Err(fail(format!(
                "type: Invalid value: {}: unknown math transform type",
                crate::go::quote(other)
            )));
        }
    })
}

/// `ResolveMath`: the config is validated first, then the input type.
pub(super) fn resolve(cfg: &Config, input: &Value) -> Result<Value> {
    let &(op, m) = cfg.0.as_ref().map_err(again)?;
    if !matches!(input, Value::Int(_) | Value::Float(_)) {
        return Err(fail(format!(
            "input is required to be a number for math transformer, got {}",
            input.go_type()
        )));
    }
    Ok(match (op, input) {
        (Op::Multiply, Value::Int(i)) => Value::Int(i.wrapping_mul(m)),
        #[allow(clippy::cast_precision_loss)] // Go's float64(int64)
        (Op::Multiply, Value::Float(f)) => Value::Float(f * m as f64),
        // Clamps compare the input truncated to int64 but return it unchanged.
        (Op::ClampMin, v) if as_int64(v) < m => Value::Int(m),
        (Op::ClampMax, v) if as_int64(v) > m => Value::Int(m),
        (_, v) => v.clone(),
    })
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Multiply,
    ClampMin,
    ClampMax,
}

fn as_int64(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        Value::Float(f) => go_f64_to_i64(*f),
        _ => 0,
    }
}

/// Go's `int64(f)` on amd64: truncation toward zero; NaN and out-of-range
/// values give the "integer indefinite" `-9223372036854775808`.
#[allow(clippy::cast_possible_truncation)]
pub(super) fn go_f64_to_i64(f: f64) -> i64 {
    if f.is_nan() || !(-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f) {
        i64::MIN
    } else {
        f as i64
    }
}
