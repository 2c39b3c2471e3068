//! The `map` transform: look a string up in a table of JSON values.

use super::{fail, go_any};
use crate::error::Result;
use crate::semantics::Semantics;
use crate::value::{Map, Value};

/// The table as written.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Config(Map);

impl Config {
    pub(super) fn decode(pairs: &Map) -> Config {
        Config(pairs.clone())
    }
}

/// `ResolveMap`: the input must be a string key of the table; the result is
/// the table's value as `encoding/json` decodes it (numbers become floats).
///
/// FN holds each value as raw JSON that a `null` leaves empty, and decoding
/// nothing fails; natively the value is `null`.
pub(super) fn resolve(cfg: &Config, input: &Value, sem: Semantics) -> Result<Value> {
    let Value::String(key) = input else {
        return Err(fail(format!(
            "type {} is not supported for map transform",
            input.go_type()
        )));
    };
    match cfg.0.get(key.as_str()) {
        Some(Value::Null) if sem == Semantics::Function => Err(fail(format!(
            "value for key {key} is not valid JSON: unexpected end of JSON input"
        ))),
        Some(v) => Ok(go_any(Some(v)).unwrap_or(Value::Null)),
        None => Err(fail(format!("key {key} is not found in map"))),
    }
}
