//! The `convert` transform: the (from, to, format) conversion matrix.

use super::math::go_f64_to_i64;
use super::{again, fail, gojson, opt_str, quantity};
use crate::error::Result;
use crate::go::strconv;
use crate::value::{Map, Value};

/// The target type (`int` read as `int64`) and format, or the error
/// validating them.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Config(Result<(&'static str, &'static str)>);

impl Config {
    /// `ResolveConvert`'s checks of the config, which come before the input's.
    pub(super) fn decode(cfg: &Map) -> Config {
        Config(decode(cfg))
    }
}

fn decode(cfg: &Map) -> Result<(&'static str, &'static str)> {
    let to = opt_str(cfg, "toType", "ConvertTransform")?.unwrap_or("");
    let format = opt_str(cfg, "format", "ConvertTransform")?.unwrap_or("none");
    check(to, Some(format))?;
    let to = match to {
        "string" => "string",
        "int" | "int64" => "int64",
        "bool" => "bool",
        "float64" => "float64",
        "object" => "object",
        _ => "array",
    };
    let format = match format {
        "quantity" => "quantity",
        "json" => "json",
        _ => "none",
    };
    Ok((to, format))
}

/// `ResolveConvert`.
pub(super) fn resolve(cfg: &Config, input: &Value) -> Result<Value> {
    let &(to, format) = cfg.0.as_ref().map_err(again)?;
    let from = match input {
        Value::String(_) => "string",
        Value::Int(_) => "int64",
        Value::Bool(_) => "bool",
        Value::Float(_) => "float64",
        other => return Err(fail(format!("invalid input type {}", other.go_type()))),
    };
    // Same type: returned as is, whatever the format says.
    if from == to {
        return Ok(input.clone());
    }
    let unsupported = || {
        fail(format!(
            "conversion from {from} to {to} is not supported with format {format}"
        ))
    };
    Ok(match (input, to, format) {
        (Value::String(s), "int64", "none") => {
            Value::Int(strconv::parse_int(s).map_err(|e| fail(e.to_string()))?)
        }
        (Value::String(s), "bool", "none") => {
            Value::Bool(strconv::parse_bool(s).map_err(|e| fail(e.to_string()))?)
        }
        (Value::String(s), "float64", "none") => {
            Value::Float(strconv::parse_float(s).map_err(|e| fail(e.to_string()))?)
        }
        (Value::String(s), "float64", "quantity") => {
            Value::Float(quantity::parse_approximate_f64(s).map_err(|e| fail(e.to_string()))?)
        }
        (Value::String(s), "object", "json") => gojson::unmarshal(s, gojson::Target::Object)?,
        (Value::String(s), "array", "json") => gojson::unmarshal(s, gojson::Target::Array)?,
        (Value::Int(i), "string", "none") => Value::String(i.to_string()),
        (Value::Int(i), "bool", "none") => Value::Bool(*i == 1),
        #[allow(clippy::cast_precision_loss)] // Go's float64(int64)
        (Value::Int(i), "float64", "none") => Value::Float(*i as f64),
        (Value::Bool(b), "string", "none") => Value::String(b.to_string()),
        (Value::Bool(b), "int64", "none") => Value::Int(i64::from(*b)),
        (Value::Bool(b), "float64", "none") => Value::Float(if *b { 1.0 } else { 0.0 }),
        (Value::Float(f), "string", "none") => Value::String(crate::value::go_format_float_f(*f)),
        (Value::Float(f), "int64", "none") => Value::Int(go_f64_to_i64(*f)),
        #[allow(clippy::float_cmp)]
        (Value::Float(f), "bool", "none") => Value::Bool(*f == 1.0),
        _ => return Err(unsupported()),
    })
}

/// `ConvertTransform.Validate`: the format (when given) and the target type.
pub(super) fn check(to: &str, format: Option<&str>) -> Result<()> {
    if let Some(f) = format
        && !matches!(f, "none" | "quantity" | "json")
    {
        return Err(fail(format!(
            "format: Invalid value: {}: invalid format",
            crate::go::quote(f)
        )));
    }
    if !matches!(
        to,
        "string" | "int" | "int64" | "bool" | "float64" | "object" | "array"
    ) {
        return Err(fail(format!(
            "toType: Invalid value: {}: invalid type",
            crate::go::quote(to)
        )));
    }
    Ok(())
}
