//! Structural OpenAPI v3 schemas as the API server applies them to a custom resource:
//! unknown fields pruned, defaults applied, then every value validated.

use std::collections::BTreeSet;

use serde_json::{Map, Value};
use xprender::model::regexp::Regexp;

use crate::cel;
use crate::format;
use crate::problem::{Path, Problem, Seg, Target};
use crate::suggest;

/// How deep validation follows a schema; deeper schemas are refused when loaded.
pub const MAX_DEPTH: usize = 128;

/// What to do with fields the schema does not declare.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Unknown fields are errors (the API server's strict field validation) rather than
    /// warnings about fields it would prune.
    pub strict: bool,
}

/// Prunes unknown fields and applies defaults to `value` in place, then validates it.
pub fn validate(value: &mut Value, schema: &Value, opts: Options) -> Vec<Problem> {
    let mut problems = Vec::new();
    normalize(value, schema, &Path::root(), true, opts, &mut problems, 0);
    // As the API server: CEL rules run only on an object whose values have the right types.
    let mut structural = Vec::new();
    check(
        value,
        schema,
        &Path::root(),
        true,
        &mut structural,
        0,
        false,
    );
    if has_rules(schema)
        && structural
            .iter()
            .any(|p| p.message.contains(" must be of type "))
    {
        problems.extend(structural);
        problems.push(Problem::error(
            &Path::root(),
            "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
        ));
    } else {
        check(value, schema, &Path::root(), true, &mut problems, 0, true);
    }
    problems
}

/// Whether a schema has CEL rules anywhere.
fn has_rules(schema: &Value) -> bool {
    let mut stack = vec![schema];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(o) => {
                if o.contains_key("x-kubernetes-validations") {
                    return true;
                }
                stack.extend(o.values());
            }
            Value::Array(a) => stack.extend(a),
            _ => {}
        }
    }
    false
}

fn flag(schema: &Value, key: &str) -> bool {
    schema.get(key).and_then(Value::as_bool) == Some(true)
}

fn props(schema: &Value) -> Option<&Map<String, Value>> {
    schema.get("properties").and_then(Value::as_object)
}

/// The members every object keeps: the root's and an embedded resource's type and metadata.
fn implicit(key: &str) -> bool {
    matches!(key, "apiVersion" | "kind" | "metadata")
}

fn normalize(
    value: &mut Value,
    schema: &Value,
    path: &Path,
    root: bool,
    opts: Options,
    problems: &mut Vec<Problem>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(obj) => {
            let preserve = flag(schema, "x-kubernetes-preserve-unknown-fields");
            let embedded = root || flag(schema, "x-kubernetes-embedded-resource");
            let properties = props(schema);
            let additional = schema.get("additionalProperties");
            let keys: Vec<String> = obj.keys().cloned().collect();
            for key in keys {
                // ObjectMeta is the API server's own: a schema may not reshape it.
                if embedded
                    && (key == "metadata"
                        || implicit(&key) && properties.is_none_or(|p| !p.contains_key(&key)))
                {
                    continue;
                }
                if let Some(sub) = properties.and_then(|p| p.get(&key)) {
                    if let Some(v) = obj.get_mut(&key) {
                        normalize(v, sub, &path.field(&key), false, opts, problems, depth + 1);
                    }
                } else if let Some(sub) = additional.filter(|a| a.is_object()) {
                    if let Some(v) = obj.get_mut(&key) {
                        let p = path.child(Seg::Key(key.clone()));
                        normalize(v, sub, &p, false, opts, problems, depth + 1);
                    }
                } else if !preserve && additional != Some(&Value::Bool(true)) {
                    obj.remove(&key);
                    let p = path.field(&key);
                    let near = properties
                        .and_then(|ps| suggest::closest(&key, ps.keys().map(String::as_str)));
                    let hint = near
                        .map(|s| format!("; did you mean {s}?"))
                        .unwrap_or_default();
                    let problem = if opts.strict {
                        Problem::error(&p, format!("unknown field \"{key}\"{hint}"))
                    } else {
                        Problem::warning(&p, format!("unknown field \"{key}\" (pruned){hint}"))
                    };
                    problems.push(match near {
                        Some(s) => problem.suggesting(Target::Key, &key, s),
                        None => problem,
                    });
                }
            }
            for (key, sub) in properties.into_iter().flatten() {
                let Some(default) = sub.get("default") else {
                    continue;
                };
                let missing = match obj.get(key) {
                    None => true,
                    Some(Value::Null) => !flag(sub, "nullable"),
                    Some(_) => false,
                };
                if missing {
                    let mut d = default.clone();
                    normalize(
                        &mut d,
                        sub,
                        &path.field(key),
                        false,
                        opts,
                        problems,
                        depth + 1,
                    );
                    obj.insert(key.clone(), d);
                }
            }
        }
        Value::Array(items) => {
            if let Some(sub) = schema.get("items") {
                for (i, v) in items.iter_mut().enumerate() {
                    normalize(v, sub, &path.index(i), false, opts, problems, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// The JSON type name of a value, as the API server's messages name it.
pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A value as `field.Invalid` shows it: scalars as JSON, collections by their type.
fn shown(v: &Value) -> String {
    match v {
        Value::Array(_) | Value::Object(_) => format!("\"{}\"", type_name(v)),
        v => v.to_string(),
    }
}

fn type_ok(want: &str, v: &Value) -> bool {
    match want {
        "number" => v.is_number(),
        t => t == type_name(v),
    }
}

fn check(
    value: &Value,
    schema: &Value,
    path: &Path,
    root: bool,
    problems: &mut Vec<Problem>,
    depth: usize,
    cel: bool,
) {
    if depth > MAX_DEPTH {
        problems.push(Problem::error(
            path,
            format!("nested deeper than {MAX_DEPTH} levels"),
        ));
        return;
    }
    let at = if root {
        "body".to_owned()
    } else {
        path.to_string()
    };
    let invalid =
        |msg: String| Problem::error(path, format!("Invalid value: {}: {msg}", shown(value)));
    if value.is_null() {
        if flag(schema, "nullable")
            || schema.get("type").is_none() && !flag(schema, "x-kubernetes-int-or-string")
        {
            return;
        }
        let t = if flag(schema, "x-kubernetes-int-or-string") {
            "integer,string"
        } else {
            schema
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("object")
        };
        problems.push(Problem::error(
            path,
            format!("Invalid value: \"null\": {at} in body must be of type {t}: \"null\""),
        ));
        return;
    }
    if flag(schema, "x-kubernetes-int-or-string") {
        if !value.is_string() && !matches!(type_name(value), "integer") {
            let t = type_name(value);
            problems.push(Problem::error(
                path,
                format!(
                    "Invalid value: \"{t}\": {at} in body must be of type integer,string: \"{t}\""
                ),
            ));
            return;
        }
    } else if let Some(want) = schema.get("type").and_then(Value::as_str)
        && !type_ok(want, value)
    {
        let t = type_name(value);
        problems.push(Problem::error(
            path,
            format!("Invalid value: \"{t}\": {at} in body must be of type {want}: \"{t}\""),
        ));
        return;
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
        && !allowed.contains(value)
    {
        let list: Vec<String> = allowed.iter().map(Value::to_string).collect();
        // A misspelt string among string values: say which one was meant.
        let near = value.as_str().and_then(|v| {
            Some(v).zip(suggest::closest(
                v,
                allowed.iter().filter_map(Value::as_str),
            ))
        });
        let hint = near
            .map(|(_, s)| format!("; did you mean {s}?"))
            .unwrap_or_default();
        let problem = Problem::error(
            path,
            format!(
                "Unsupported value: {}: supported values: {}{hint}",
                value,
                list.join(", ")
            ),
        );
        problems.push(match near {
            Some((v, s)) => problem.suggesting(Target::Value, v, s),
            None => problem,
        });
    }
    match value {
        Value::String(s) => check_string(s, schema, &at, problems, &invalid),
        Value::Number(_) => check_number(value, schema, &at, problems, &invalid),
        Value::Array(items) => {
            check_array(items, schema, path, &at, problems, (depth, cel), &invalid)
        }
        Value::Object(obj) => check_object(obj, schema, path, root, &at, problems, (depth, cel)),
        _ => {}
    }
    check_combinators(value, schema, path, problems, (depth, cel), &invalid);
    if !cel {
        return;
    }
    if let Some(rules) = schema
        .get("x-kubernetes-validations")
        .and_then(Value::as_array)
    {
        for rule in rules {
            cel::check_rule(rule, value, path, problems);
        }
    }
}

fn check_string(
    s: &str,
    schema: &Value,
    at: &str,
    problems: &mut Vec<Problem>,
    invalid: &dyn Fn(String) -> Problem,
) {
    let chars = s.chars().count() as u64;
    if let Some(max) = schema.get("maxLength").and_then(Value::as_u64)
        && chars > max
    {
        problems.push(Problem {
            message: format!("Too long: may not be more than {max} bytes"),
            ..invalid(String::new())
        });
    }
    if let Some(min) = schema.get("minLength").and_then(Value::as_u64)
        && chars < min
    {
        problems.push(invalid(format!(
            "{at} in body should be at least {min} chars long"
        )));
    }
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
        // Patterns were compiled when the schema was loaded; a bad one never gets here.
        if let Ok(re) = compile_pattern(pattern)
            && !re.is_match(s)
        {
            problems.push(invalid(format!("{at} in body should match '{pattern}'")));
        }
    }
    if let Some(f) = schema.get("format").and_then(Value::as_str)
        && format::check(f, s) == Some(false)
    {
        problems.push(invalid(format!(
            "{at} in body must be of type {f}: \"{s}\""
        )));
    }
}

/// Compiles a `pattern` as Go's regexp does, the way the engine reads a transform's pattern
/// (within the engine's limits, so a hostile pattern cannot exhaust memory).
pub(crate) fn compile_pattern(pattern: &str) -> Result<Regexp, String> {
    Regexp::new(pattern)
}

fn check_number(
    value: &Value,
    schema: &Value,
    at: &str,
    problems: &mut Vec<Problem>,
    invalid: &dyn Fn(String) -> Problem,
) {
    let x = value.as_f64().unwrap_or_default();
    let excl = |k: &str| flag(schema, k);
    if let Some(min) = schema.get("minimum").and_then(Value::as_f64) {
        if excl("exclusiveMinimum") && x <= min {
            problems.push(invalid(format!(
                "{at} in body should be greater than {}",
                num(min)
            )));
        } else if x < min {
            problems.push(invalid(format!(
                "{at} in body should be greater than or equal to {}",
                num(min)
            )));
        }
    }
    if let Some(max) = schema.get("maximum").and_then(Value::as_f64) {
        if excl("exclusiveMaximum") && x >= max {
            problems.push(invalid(format!(
                "{at} in body should be less than {}",
                num(max)
            )));
        } else if x > max {
            problems.push(invalid(format!(
                "{at} in body should be less than or equal to {}",
                num(max)
            )));
        }
    }
    if let Some(m) = schema.get("multipleOf").and_then(Value::as_f64)
        && m > 0.0
        && (x / m).fract() != 0.0
    {
        problems.push(invalid(format!(
            "{at} in body should be a multiple of {}",
            num(m)
        )));
    }
    if schema.get("format").and_then(Value::as_str) == Some("int32")
        && value.as_i64().is_some_and(|i| i32::try_from(i).is_err())
    {
        problems.push(invalid(format!(
            "{at} in body must be of type int32: \"{value}\""
        )));
    }
}

fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        x.to_string()
    }
}

fn check_array(
    items: &[Value],
    schema: &Value,
    path: &Path,
    at: &str,
    problems: &mut Vec<Problem>,
    (depth, cel): (usize, bool),
    invalid: &dyn Fn(String) -> Problem,
) {
    let n = items.len() as u64;
    if let Some(max) = schema.get("maxItems").and_then(Value::as_u64)
        && n > max
    {
        problems.push(Problem::error(
            path,
            format!("Too many: {n}: must have at most {max} items"),
        ));
    }
    if let Some(min) = schema.get("minItems").and_then(Value::as_u64)
        && n < min
    {
        problems.push(invalid(format!(
            "{at} in body should have at least {min} items"
        )));
    }
    let list_type = schema.get("x-kubernetes-list-type").and_then(Value::as_str);
    if list_type == Some("set") || flag(schema, "uniqueItems") {
        for (i, v) in items.iter().enumerate() {
            if items[..i].contains(v) {
                problems.push(Problem::error(
                    &path.index(i),
                    format!("Duplicate value: {}", shown(v)),
                ));
            }
        }
    }
    if list_type == Some("map") {
        let keys: Vec<&str> = schema
            .get("x-kubernetes-list-map-keys")
            .and_then(Value::as_array)
            .map(|k| k.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut seen = BTreeSet::new();
        for (i, v) in items.iter().enumerate() {
            let key: Vec<(&str, Option<&Value>)> = keys.iter().map(|k| (*k, v.get(k))).collect();
            for (k, val) in &key {
                if val.is_none() {
                    problems.push(Problem::error(&path.index(i).field(k), "Required value"));
                }
            }
            let shown_key = key
                .iter()
                .map(|(k, v)| format!("\"{k}\":{}", v.map_or("null".into(), Value::to_string)))
                .collect::<Vec<_>>()
                .join(",");
            if !seen.insert(shown_key.clone()) {
                problems.push(Problem::error(
                    &path.index(i),
                    format!("Duplicate value: {{{shown_key}}}"),
                ));
            }
        }
    }
    if let Some(sub) = schema.get("items") {
        for (i, v) in items.iter().enumerate() {
            check(v, sub, &path.index(i), false, problems, depth + 1, cel);
        }
    }
}

fn check_object(
    obj: &Map<String, Value>,
    schema: &Value,
    path: &Path,
    root: bool,
    at: &str,
    problems: &mut Vec<Problem>,
    (depth, cel): (usize, bool),
) {
    let embedded = flag(schema, "x-kubernetes-embedded-resource");
    if embedded {
        for k in ["apiVersion", "kind"] {
            match obj.get(k) {
                Some(Value::String(s)) if !s.is_empty() => {}
                _ => problems.push(Problem::error(&path.field(k), "Required value")),
            }
        }
    }
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for r in required.iter().filter_map(Value::as_str) {
            if !obj.contains_key(r) {
                problems.push(Problem::error(&path.field(r), "Required value"));
            }
        }
    }
    let n = obj.len() as u64;
    if let Some(max) = schema.get("maxProperties").and_then(Value::as_u64)
        && n > max
    {
        problems.push(Problem::error(
            path,
            format!("Too many: {n}: must have at most {max} items"),
        ));
    }
    if let Some(min) = schema.get("minProperties").and_then(Value::as_u64)
        && n < min
    {
        problems.push(Problem::error(
            path,
            format!(
                "Invalid value: \"object\": {at} in body should have at least {min} properties"
            ),
        ));
    }
    let properties = props(schema);
    let additional = schema.get("additionalProperties").filter(|a| a.is_object());
    for (k, v) in obj {
        if (root || embedded)
            && (k == "metadata" || implicit(k) && properties.is_none_or(|p| !p.contains_key(k)))
        {
            continue;
        }
        if let Some(sub) = properties.and_then(|p| p.get(k)) {
            check(v, sub, &path.field(k), false, problems, depth + 1, cel);
        } else if let Some(sub) = additional {
            check(
                v,
                sub,
                &path.child(Seg::Key(k.clone())),
                false,
                problems,
                depth + 1,
                cel,
            );
        }
    }
}

/// `allOf`, `anyOf`, `oneOf` and `not`: value validations only, as in a structural schema.
fn check_combinators(
    value: &Value,
    schema: &Value,
    path: &Path,
    problems: &mut Vec<Problem>,
    (depth, cel): (usize, bool),
    invalid: &dyn Fn(String) -> Problem,
) {
    let passes = |s: &Value| {
        let mut p = Vec::new();
        check(value, s, path, false, &mut p, depth + 1, cel);
        p
    };
    let at = path.to_string();
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        for s in all {
            problems.extend(passes(s));
        }
    }
    if let Some(any) = schema.get("anyOf").and_then(Value::as_array)
        && !any.is_empty()
        && any.iter().all(|s| !passes(s).is_empty())
    {
        problems.push(invalid(format!(
            "{at} in body must validate at least one schema (anyOf)"
        )));
    }
    if let Some(one) = schema.get("oneOf").and_then(Value::as_array) {
        let ok = one.iter().filter(|s| passes(s).is_empty()).count();
        if !one.is_empty() && ok != 1 {
            problems.push(invalid(format!(
                "{at} in body must validate one and only one schema (oneOf)"
            )));
        }
    }
    if let Some(not) = schema.get("not")
        && passes(not).is_empty()
    {
        problems.push(invalid(format!(
            "{at} in body must not validate the schema (not)"
        )));
    }
}

/// Problems in a schema itself, found before any object is validated against it: nesting
/// beyond [`MAX_DEPTH`], patterns that are not regular expressions, CEL rules that do not
/// compile or cost too much. Paths are relative to the schema.
pub fn schema_problems(schema: &Value) -> Vec<Problem> {
    let mut problems = Vec::new();
    // Iterative, so a hostile 10,000-level schema cannot overflow the stack.
    let mut stack = vec![(schema, Path::root(), 0usize)];
    while let Some((s, path, depth)) = stack.pop() {
        if depth > MAX_DEPTH {
            problems.push(Problem::error(
                &path,
                format!("schema nested deeper than {MAX_DEPTH} levels"),
            ));
            break;
        }
        let Some(obj) = s.as_object() else {
            continue;
        };
        if let Some(p) = obj.get("pattern").and_then(Value::as_str)
            && let Err(e) = compile_pattern(p)
        {
            problems.push(Problem::error(
                &path.field("pattern"),
                format!("invalid regular expression '{p}': {e}"),
            ));
        }
        if let Some(rules) = obj
            .get("x-kubernetes-validations")
            .and_then(Value::as_array)
        {
            for (i, r) in rules.iter().enumerate() {
                let rp = path
                    .field("x-kubernetes-validations")
                    .index(i)
                    .field("rule");
                if let Err(e) =
                    cel::compile_rule(r.get("rule").and_then(Value::as_str).unwrap_or(""))
                {
                    problems.push(Problem::error(&rp, e));
                }
            }
        }
        for key in ["properties", "patternProperties", "definitions"] {
            if let Some(m) = obj.get(key).and_then(Value::as_object) {
                for (k, v) in m.iter().rev() {
                    stack.push((v, path.field(key).field(k), depth + 1));
                }
            }
        }
        for key in ["items", "additionalProperties", "not"] {
            if let Some(v) = obj.get(key).filter(|v| v.is_object()) {
                stack.push((v, path.field(key), depth + 1));
            }
        }
        for key in ["allOf", "anyOf", "oneOf"] {
            if let Some(a) = obj.get(key).and_then(Value::as_array) {
                for (i, v) in a.iter().enumerate().rev() {
                    stack.push((v, path.field(key).index(i), depth + 1));
                }
            }
        }
    }
    problems
}
