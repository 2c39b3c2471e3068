//! The `match` transform: the result of the first matching literal or regexp pattern.

use super::pattern::Pattern;
use super::regex::Regexps;
use super::{again, fail, go_any, invalid, opt_str};
use crate::error::{Error, Result};
use crate::semantics::Semantics;
use crate::value::{Map, Value};

/// The patterns in order and the fallback, each decoded where `ResolveMatch`
/// reads it: an error is kept to be raised when the render reaches it.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Config {
    patterns: Result<Vec<Case>>,
    fallback: Result<Fallback>,
}

/// One pattern and the result it gives (as `encoding/json` decodes it).
#[derive(Clone, Debug, PartialEq)]
struct Case {
    test: Test,
    result: Option<Value>,
}

/// What a pattern tests, or why it cannot.
#[derive(Clone, Debug, PartialEq)]
enum Test {
    /// The entry is no object: `ResolveMatch` returns the decoding error as is.
    Undecodable(Error),
    /// `Matches` fails before looking at the input.
    Invalid(Error),
    Literal(String),
    Regexp(Pattern),
}

/// What an input no pattern matches becomes.
#[derive(Clone, Debug, PartialEq)]
enum Fallback {
    Input,
    Value(Option<Value>),
}

impl Config {
    pub(super) fn decode(cfg: &Map, sem: Semantics, regexps: &Regexps) -> Config {
        Config {
            patterns: patterns(cfg, sem, regexps),
            fallback: fallback(cfg),
        }
    }
}

fn patterns(cfg: &Map, sem: Semantics, regexps: &Regexps) -> Result<Vec<Case>> {
    let patterns = match cfg.get("patterns") {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(a)) => a.as_slice(),
        Some(other) => {
            return Err(invalid(format!(
                "json: cannot unmarshal {} into Go struct field MatchTransform.patterns of type []v1.MatchTransformPattern",
                other.json_kind()
            )));
        }
    };
    Ok(patterns
        .iter()
        .map(|entry| case(entry, sem, regexps))
        .collect())
}

fn case(entry: &Value, sem: Semantics, regexps: &Regexps) -> Case {
    // A null entry decodes as the zero pattern.
    let p = match entry {
        Value::Null => None,
        Value::Object(p) => Some(p),
        other => {
            return Case {
                test: Test::Undecodable(invalid(format!(
                    "json: cannot unmarshal {} into Go value of type v1.MatchTransformPattern",
                    other.json_kind()
                ))),
                result: None,
            };
        }
    };
    static EMPTY: Map = Map::new();
    Case {
        test: test(p.unwrap_or(&EMPTY), sem, regexps).unwrap_or_else(Test::Invalid),
        result: p.and_then(|p| go_any(p.get("result"))),
    }
}

/// `Matches`' reading of a pattern, up to where it needs the input.
fn test(p: &Map, sem: Semantics, regexps: &Regexps) -> Result<Test> {
    let kind = match opt_str(p, "type", "MatchTransformPattern")? {
        // The CRD defaults an absent type to literal; function inputs are
        // never defaulted.
        None if sem == Semantics::Native => "literal",
        None => "",
        Some(k) => k,
    };
    match kind {
        "literal" => match opt_str(p, "literal", "MatchTransformPattern")? {
            Some(literal) => Ok(Test::Literal(literal.to_owned())),
            None => Err(fail("literal is required by type literal")),
        },
        "regexp" => match opt_str(p, "regexp", "MatchTransformPattern")? {
            Some(pattern) => Ok(Test::Regexp(Pattern::test(pattern, sem, regexps))),
            None => Err(fail("regexp is required by type regexp")),
        },
        other => Err(fail(format!("unsupported pattern type '{other}'"))),
    }
}

fn fallback(cfg: &Map) -> Result<Fallback> {
    if opt_str(cfg, "fallbackTo", "MatchTransform")? == Some("Input") {
        if go_any(cfg.get("fallbackValue")).is_some() {
            return Err(fail(
                "cannot set both a fallback value and the fallback to input flag",
            ));
        }
        return Ok(Fallback::Input);
    }
    Ok(Fallback::Value(go_any(cfg.get("fallbackValue"))))
}

/// `ResolveMatch`: patterns in order; an evaluation error aborts at once.
pub(super) fn resolve(cfg: &Config, input: &Value) -> Result<Value> {
    let patterns = cfg.patterns.as_ref().map_err(again)?;
    for (i, case) in patterns.iter().enumerate() {
        if let Test::Undecodable(e) = &case.test {
            return Err(again(e));
        }
        let matched = matches(&case.test, input)
            .map_err(|e| e.wrap(format!("cannot match pattern at index {i}")))?;
        if matched {
            return Ok(case.result.clone().unwrap_or(Value::Null));
        }
    }
    match cfg.fallback.as_ref().map_err(again)? {
        Fallback::Input => Ok(input.clone()),
        Fallback::Value(v) => Ok(v.clone().unwrap_or(Value::Null)),
    }
}

/// `Matches`: whether one pattern matches the input.
fn matches(test: &Test, input: &Value) -> Result<bool> {
    match test {
        Test::Undecodable(e) | Test::Invalid(e) => Err(again(e)),
        Test::Literal(literal) => match input {
            Value::String(s) => Ok(s == literal),
            other => Err(fail(format!(
                "unsupported input type '{}'",
                other.go_type()
            ))),
        },
        Test::Regexp(pattern) => {
            let re = pattern
                .matcher()
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
    }
}
