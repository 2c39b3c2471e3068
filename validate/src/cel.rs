//! `x-kubernetes-validations`: CEL rules evaluated with `self` bound to the value, as the
//! API server does, within limits on a rule's size, nesting and cost.
//!
//! The environment has CEL's standard library with the `strings`, `lists` and `math`
//! extensions. Kubernetes' own libraries (`quantity`, `url`, `ip`/`cidr`, `semver`,
//! `format.*`, the Kubernetes `lists` and `regex` functions such as `isSorted` and `find`,
//! `authz`) are not available: a rule using them fails to evaluate and is reported. Transition
//! rules (those reading `oldSelf`) need the previous object and are skipped.

use std::sync::Arc;

use cel::common::ast::{EntryExpr, Expr, IdedExpr};
use cel::{Context, Env, Program};
use serde_json::Value;

use crate::problem::{Path, Problem, Seg};

/// Longest rule accepted, in bytes.
pub const MAX_RULE_LEN: usize = 16 * 1024;
/// Deepest nesting of brackets and prefix operators accepted in a rule.
pub const MAX_RULE_NESTING: usize = 32;
/// Most operators (selections, arithmetic, comparisons, logic) accepted in a rule: the
/// parser and the evaluator recurse once per operator of a chain such as `a + b + c`.
pub const MAX_RULE_OPERATORS: usize = 256;
/// Largest estimated cost of one evaluation (the API server's per-call limit).
pub const COST_BUDGET: u64 = 1_000_000;

fn env() -> Env {
    let mut env = Env::stdlib();
    // The extensions register distinct names on a fresh environment: they cannot clash.
    let _ = env.add_extension(cel::extensions::strings);
    let _ = env.add_extension(cel::extensions::lists);
    let _ = env.add_extension(cel::extensions::math);
    env
}

/// Compiles a rule after checking its size and nesting, so the parser never sees input
/// deep enough to exhaust its stack.
pub(crate) fn compile_rule(rule: &str) -> Result<Program, String> {
    if rule.trim().is_empty() {
        return Err("rule is empty".into());
    }
    if rule.len() > MAX_RULE_LEN {
        return Err(format!(
            "rule is {} bytes long, over the limit of {MAX_RULE_LEN}",
            rule.len()
        ));
    }
    let nesting = nesting(rule);
    if nesting > MAX_RULE_NESTING {
        return Err(format!(
            "rule nests {nesting} levels deep, over the limit of {MAX_RULE_NESTING}"
        ));
    }
    let operators = operators(rule);
    if operators > MAX_RULE_OPERATORS {
        return Err(format!(
            "rule has {operators} operators, over the limit of {MAX_RULE_OPERATORS}"
        ));
    }
    env()
        .compile(rule)
        .map_err(|e| format!("compilation failed: {}", first_line(&e.to_string())))
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or_default().trim().to_owned()
}

/// The rule's characters outside string literals, the quotes themselves left out.
fn code_chars(rule: &str) -> impl Iterator<Item = char> + '_ {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    rule.chars().filter(move |&c| {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            return false;
        }
        if c == '"' || c == '\'' {
            quote = Some(c);
            return false;
        }
        true
    })
}

/// Operators outside string literals (`&&` counts once per character: a bound, not a count).
fn operators(rule: &str) -> usize {
    code_chars(rule)
        .filter(|c| ".+-*/%<>=!&|?".contains(*c))
        .count()
}

/// Bracket depth plus runs of prefix operators, outside string literals.
fn nesting(rule: &str) -> usize {
    let (mut depth, mut max, mut run) = (0usize, 0usize, 0usize);
    for c in code_chars(rule) {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            '!' | '-' => run += 1,
            c if c.is_whitespace() => {}
            _ => run = 0,
        }
        max = max.max(depth + run);
    }
    max
}

/// Evaluates one `x-kubernetes-validations` entry against `value` at `path`.
pub(crate) fn check_rule(rule: &Value, value: &Value, path: &Path, problems: &mut Vec<Problem>) {
    let Some(source) = rule.get("rule").and_then(Value::as_str) else {
        return;
    };
    let Ok(program) = compile_rule(source) else {
        // Reported once against the schema when it was loaded.
        return;
    };
    if mentions(program.expression(), "oldSelf") {
        return;
    }
    let at = match rule.get("fieldPath").and_then(Value::as_str) {
        Some(fp) => field_path(path, fp),
        None => path.clone(),
    };
    let shown = match value {
        Value::Object(_) => "\"object\"".to_owned(),
        Value::Array(_) => "\"array\"".to_owned(),
        v => v.to_string(),
    };
    let outcome = evaluate(&program, value);
    let message = match outcome {
        Ok(true) => return,
        Ok(false) => rule_message(rule, value).unwrap_or_else(|| format!("failed rule: {source}")),
        Err(e) => format!("rule {source:?}: {e}"),
    };
    let text = match rule.get("reason").and_then(Value::as_str) {
        Some("FieldValueRequired") => format!("Required value: {message}"),
        Some("FieldValueForbidden") => format!("Forbidden: {message}"),
        Some("FieldValueDuplicate") => format!("Duplicate value: {message}"),
        _ => format!("Invalid value: {shown}: {message}"),
    };
    problems.push(Problem::error(&at, text));
}

fn rule_message(rule: &Value, value: &Value) -> Option<String> {
    if let Some(expr) = rule.get("messageExpression").and_then(Value::as_str)
        && let Ok(p) = compile_rule(expr)
        && let Ok(cel::Value::String(s)) = run(&p, value)
        && !s.trim().is_empty()
    {
        return Some(s.to_string());
    }
    rule.get("message")
        .and_then(Value::as_str)
        .filter(|m| !m.is_empty())
        .map(str::to_owned)
}

/// `.spec.x` or `spec.x` relative to the schema the rule sits on.
fn field_path(base: &Path, fp: &str) -> Path {
    let mut p = base.clone();
    for part in fp
        .trim_start_matches('.')
        .split('.')
        .filter(|s| !s.is_empty())
    {
        p.0.push(Seg::Field(part.to_owned()));
    }
    p
}

/// Evaluates a compiled rule with `self` bound to `value`: true, false, or why it could not.
pub(crate) fn evaluate(program: &Program, value: &Value) -> Result<bool, String> {
    match run(program, value)? {
        cel::Value::Bool(b) => Ok(b),
        other => Err(format!(
            "rule evaluated to {:?}, not a boolean",
            other.type_of()
        )),
    }
}

fn run(program: &Program, value: &Value) -> Result<cel::Value, String> {
    let n = largest_collection(value).max(1);
    let cost = cost(program.expression(), n as u64);
    if cost > COST_BUDGET {
        return Err(format!(
            "estimated rule cost exceeds budget ({cost} > {COST_BUDGET}) for data of {n} elements"
        ));
    }
    let mut ctx = Context::with_env(Arc::new(env()));
    ctx.add_variable_from_value("self", to_cel(value));
    program.execute(&ctx).map_err(|e| e.to_string())
}

/// A JSON value as the API server hands it to CEL: every integer that fits is an `int`
/// (serde would make non-negative ones `uint`, and `uint + int` has no overload).
fn to_cel(v: &Value) -> cel::Value {
    match v {
        Value::Null => cel::Value::Null,
        Value::Bool(b) => cel::Value::Bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => cel::Value::Int(i),
            (None, Some(u)) => cel::Value::UInt(u),
            _ => cel::Value::Float(n.as_f64().unwrap_or_default()),
        },
        Value::String(s) => cel::Value::String(Arc::new(s.clone())),
        Value::Array(a) => cel::Value::List(Arc::new(a.iter().map(to_cel).collect())),
        Value::Object(o) => {
            let map: std::collections::HashMap<String, cel::Value> =
                o.iter().map(|(k, v)| (k.clone(), to_cel(v))).collect();
            map.into()
        }
    }
}

/// The size of the largest list, map or string in the data: every comprehension is
/// assumed to range over that many elements.
fn largest_collection(v: &Value) -> usize {
    let mut max = 0;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(a) => {
                max = max.max(a.len());
                stack.extend(a);
            }
            Value::Object(o) => {
                max = max.max(o.len());
                stack.extend(o.values());
            }
            Value::String(s) => max = max.max(s.len()),
            _ => {}
        }
    }
    max
}

fn children(e: &IdedExpr) -> Vec<&IdedExpr> {
    match &e.expr {
        Expr::Call(c) => c.target.iter().map(|t| &**t).chain(&c.args).collect(),
        Expr::Comprehension(c) => vec![
            &c.iter_range,
            &c.accu_init,
            &c.loop_cond,
            &c.loop_step,
            &c.result,
        ],
        Expr::List(l) => l.elements.iter().collect(),
        Expr::Map(m) => entries(&m.entries),
        Expr::Struct(s) => entries(&s.entries),
        Expr::Select(s) => vec![&s.operand],
        _ => vec![],
    }
}

fn entries(e: &[cel::common::ast::IdedEntryExpr]) -> Vec<&IdedExpr> {
    e.iter()
        .flat_map(|e| match &e.expr {
            EntryExpr::MapEntry(m) => vec![&m.key, &m.value],
            EntryExpr::StructField(f) => vec![&f.value],
        })
        .collect()
}

fn mentions(e: &IdedExpr, ident: &str) -> bool {
    matches!(&e.expr, Expr::Ident(i) if i == ident)
        || children(e).into_iter().any(|c| mentions(c, ident))
}

/// An upper bound of the evaluation's steps: a comprehension costs its body times the
/// number of elements it can range over.
fn cost(e: &IdedExpr, n: u64) -> u64 {
    match &e.expr {
        Expr::Comprehension(c) => {
            let body = cost(&c.loop_cond, n).saturating_add(cost(&c.loop_step, n));
            cost(&c.iter_range, n)
                .saturating_add(cost(&c.accu_init, n))
                .saturating_add(n.saturating_mul(body))
                .saturating_add(cost(&c.result, n))
        }
        _ => children(e)
            .into_iter()
            .fold(1u64, |acc, c| acc.saturating_add(cost(c, n))),
    }
}
