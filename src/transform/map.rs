//! The `map` transform: look a string up in a table of JSON values.

use super::{fail, go_any};
use crate::error::Result;
use crate::value::{Map, Value};

/// `ResolveMap`: the input must be a string key of the table; the result is
/// the table's value as `encoding/json` decodes it (numbers become floats).
pub(super) fn resolve(pairs: &Map, input: Value) -> Result<Value> {
    let Value::String(key) = &input else {
        return Err(fail(format!(
            "type {} is not supported for map transform",
            input.go_type()
        )));
    };
    match pairs.get(key.as_str()) {
        Some(v) => Ok(go_any(Some(v)).unwrap_or(Value::Null)),
        None => Err(fail(format!("key {key} is not found in map"))),
    }
}
