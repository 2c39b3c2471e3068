//! The `match` transform: the result of the first matching literal or regexp pattern.

use super::{fail, go_any, invalid, opt_str, regex};
use crate::error::Result;
use crate::semantics::Semantics;
use crate::value::{Map, Value};

/// `ResolveMatch`: patterns in order; an evaluation error aborts at once.
pub(super) fn resolve(cfg: &Map, input: Value, sem: Semantics) -> Result<Value> {
    let patterns = match cfg.get("patterns") {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(a)) => a.as_slice(),
        Some(other) => {
            return Err(invalid(format!(
                "json: cannot unmarshal {} into Go struct field MatchTransform.patterns of type []v1.MatchTransformPattern",
                super::json_kind(other)
            )));
        }
    };
    let empty = Map::new();
    for (i, entry) in patterns.iter().enumerate() {
        // A null entry decodes as the zero pattern.
        let p = if entry.is_null() {
            Some(&empty)
        } else {
            entry.as_object()
        };
        let Some(p) = p else {
            return Err(invalid(format!(
                "json: cannot unmarshal {} into Go value of type v1.MatchTransformPattern",
                super::json_kind(entry)
            )));
        };
        let matched = matches(p, &input, sem)
            .map_err(|e| e.wrap(format!("cannot match pattern at index {i}")))?;
        if matched {
            return Ok(go_any(p.get("result")).unwrap_or(Value::Null));
        }
    }
    if opt_str(cfg, "fallbackTo", "MatchTransform")? == Some("Input") {
        if go_any(cfg.get("fallbackValue")).is_some() {
            return Err(fail(
                "cannot set both a fallback value and the fallback to input flag",
            ));
        }
        return Ok(input);
    }
    Ok(go_any(cfg.get("fallbackValue")).unwrap_or(Value::Null))
}

/// `Matches`: whether one pattern matches the input.
fn matches(p: &Map, input: &Value, sem: Semantics) -> Result<bool> {
    let kind = match opt_str(p, "type", "MatchTransformPattern")? {
        // The CRD defaults an absent type to literal; function inputs are
        // never defaulted.
        None if sem == Semantics::Native => "literal",
        None => "",
        Some(k) => k,
    };
    match kind {
        "literal" => {
            let Some(literal) = opt_str(p, "literal", "MatchTransformPattern")? else {
                return Err(fail("literal is required by type literal"));
            };
            match input {
                Value::String(s) => Ok(s == literal),
                other => Err(fail(format!(
                    "unsupported input type '{}'",
                    other.go_type()
                ))),
            }
        }
        "regexp" => {
            let Some(pattern) = opt_str(p, "regexp", "MatchTransformPattern")? else {
                return Err(fail("regexp is required by type regexp"));
            };
            let re = regex::compile(pattern, sem)
                .map_err(|e| fail(e.to_string()).wrap("cannot compile regexp"))?;
            match input {
                Value::Null => Err(fail("unsupported input type 'null'")),
                Value::String(s) => Ok(re.is_match(s)),
                other => Err(fail(format!(
                    "unsupported input type '{}'",
                    other.go_type()
                ))),
            }
        }
        other => Err(fail(format!("unsupported pattern type '{other}'"))),
    }
}
