//! function-environment-configs: selects EnvironmentConfigs among the extra
//! (required) resources, by name or by labels, and merges their data into the
//! environment in the Function context.
//!
//! The function asks Crossplane for `apiextensions.crossplane.io/v1beta1`
//! EnvironmentConfigs (one requirement per entry); `crossplane render` answers
//! from the extra resources, sorted by name, matching apiVersion, kind and the
//! name or every label exactly. The function then merges: EnvironmentConfig data
//! over the incoming environment over `defaultData`.

use crate::error::{Error, ErrorKind, Result};
use crate::fieldpath;
use crate::go::quote;
use crate::patch::environment::deep_merge;
use crate::semantics::Semantics;
use crate::value::{Map, Value};

use super::State;

const SEM: Semantics = Semantics::Function;
const API_VERSION: &str = "apiextensions.crossplane.io/v1beta1";

/// One `spec.environmentConfigs` entry.
struct Source<'a> {
    kind: &'a str,
    ref_name: Option<&'a str>,
    selector: Option<&'a Map>,
    to_field_path: &'a str,
}

/// What a requirement asks for.
enum Match {
    Name(String),
    Labels(Vec<(String, String)>),
}

/// Runs the step. A function failure is a Fatal result (`Err` carries its message).
pub(crate) fn run(st: &mut State<'_>, input: Option<&Value>) -> Result<()> {
    let spec = input.and_then(|i| i.get("spec")).and_then(Value::as_object);
    let Some(configs) = spec.and_then(|s| s.get("environmentConfigs")) else {
        return Ok(());
    };
    let Some(configs) = configs.as_array() else {
        return Err(input_error(format!(
            "spec.environmentConfigs: expected array, got {}",
            configs.go_type()
        )));
    };
    let mut sources = Vec::with_capacity(configs.len());
    for (i, c) in configs.iter().enumerate() {
        sources.push(decode_source(c, i).map_err(input_error)?);
    }
    let env_in = st
        .pipeline
        .context
        .has_environment()
        .then(|| st.env.clone());
    let requirements = requirements(st, &sources, env_in.as_ref())
        .map_err(|e| e.wrap("cannot build requirements"))?;
    // No requirement: the function answers at once and Crossplane does not call it again.
    if requirements.iter().all(Option::is_none) {
        return Ok(());
    }
    let extra = extra_configs(st);
    let optional = spec
        .and_then(|s| s.get("policy"))
        .and_then(|p| p.get("resolution"))
        .and_then(Value::as_str)
        == Some("Optional");

    let groups = selected_groups(&sources, &requirements, &extra, optional)?;

    st.env = merged(&groups, env_in, spec.and_then(|s| s.get("defaultData")))?;
    st.pipeline.context.set_environment();
    Ok(())
}

/// The EnvironmentConfigs among the extra resources, numbers as floats, by name.
fn extra_configs(st: &State<'_>) -> Vec<Value> {
    let mut extra: Vec<Value> = st
        .request
        .extra_resources
        .iter()
        .filter(|r| {
            str_at(r, "apiVersion") == Some(API_VERSION)
                && str_at(r, "kind") == Some("EnvironmentConfig")
        })
        .cloned()
        .collect();
    for r in &mut extra {
        r.floats_everywhere();
    }
    crate::sort::sort_by(&mut extra, |a, b| name(a).cmp(name(b)));
    extra
}

type Groups<'s> = Vec<(&'s str, Vec<Value>)>;

/// The selected configs, grouped by `toFieldPath` in order of first appearance.
fn selected_groups<'s>(
    sources: &'s [Source<'_>],
    requirements: &[Option<Match>],
    extra: &[Value],
    optional: bool,
) -> Result<Groups<'s>> {
    let mut groups: Vec<(&str, Vec<Value>)> = Vec::new();
    for (i, (src, req)) in sources.iter().zip(requirements).enumerate() {
        let Some(req) = req else { continue };
        let found = fetch(extra, req);
        let selected = if src.kind == "Selector" {
            by_selector(src, found).map_err(|e| {
                fail(format!(
                    "cannot get selected environment configs: cannot process environment config \"environment-config-{i}\" by selector: {e}"
                ))
            })?
        } else {
            let name = src.ref_name.unwrap_or("");
            match found.len() {
                0 if optional => continue,
                0 => {
                    return Err(fail(format!(
                        "cannot get selected environment configs: cannot process environment config {} by reference, \"environment-config-{i}\": Required environment config {} not found",
                        quote(name),
                        quote(name)
                    )));
                }
                _ => vec![found[0].clone()],
            }
        };
        match groups.iter_mut().find(|(p, _)| *p == src.to_field_path) {
            Some((_, list)) => list.extend(selected),
            None => groups.push((src.to_field_path, selected)),
        }
    }
    Ok(groups)
}

/// The groups' data merged in order over the input environment, all over the default data.
fn merged(
    groups: &Groups<'_>,
    env_in: Option<Value>,
    default_data: Option<&Value>,
) -> Result<Value> {
    let mut merged = Value::Object(Map::new());
    for (path, configs) in groups {
        for c in configs {
            let data = config_data(c, path).map_err(|e| e.wrap("cannot merge environment data"))?;
            deep_merge(&mut merged, &data);
        }
    }
    if let Some(input_env) = env_in {
        let mut base = input_env;
        deep_merge(&mut base, &merged);
        merged = base;
    }
    if let Some(default) = default_data {
        let mut base = default.clone();
        base.floats_everywhere();
        if base.as_object().is_none() {
            return Err(fail(format!(
                "cannot unmarshal default data: json: cannot unmarshal {} into Go value of type map[string]v1.JSON",
                base.json_kind()
            )));
        }
        deep_merge(&mut base, &merged);
        merged = base;
    }
    if let Value::Object(m) = &mut merged {
        let empty = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or("").is_empty();
        if empty("apiVersion") && empty("kind") {
            m.insert(
                "apiVersion".into(),
                "internal.crossplane.io/v1alpha1".into(),
            );
            m.insert("kind".into(), "Environment".into());
        }
    }
    Ok(merged)
}

fn input_error(msg: impl std::fmt::Display) -> Error {
    fail(format!(
        "cannot get Function input from *v1.RunFunctionRequest: {msg}"
    ))
}

/// Every failure here is a Fatal result of the step.
fn fail(message: String) -> Error {
    Error::new(ErrorKind::Render, message)
}

fn decode_source(c: &Value, i: usize) -> Result<Source<'_>> {
    let at = format!("spec.environmentConfigs[{i}]");
    let m = c
        .as_object()
        .ok_or_else(|| fail(format!("{at}: expected object, got {}", c.go_type())))?;
    let s = |k: &str| -> Result<Option<&str>> {
        match m.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(v) => Err(fail(format!(
                "{at}.{k}: expected string, got {}",
                v.go_type()
            ))),
        }
    };
    let kind = s("type")?.unwrap_or("");
    let ref_name = match m.get("ref") {
        None | Some(Value::Null) => None,
        Some(r) => Some(r.get("name").and_then(Value::as_str).unwrap_or("")),
    };
    let selector = m.get("selector").and_then(Value::as_object);
    match kind {
        "" | "Reference" if ref_name.is_none() => {
            return Err(fail(format!(
                "{at}.ref: Required value: type Reference needs ref.name"
            )));
        }
        "Selector" if selector.is_none() => {
            return Err(fail(format!(
                "{at}.selector: Required value: type Selector needs a selector"
            )));
        }
        "" | "Reference" | "Selector" => {}
        other => {
            return Err(fail(format!(
                "{at}.type: Unsupported value: {} (want \"Reference\" or \"Selector\")",
                quote(other)
            )));
        }
    }
    Ok(Source {
        kind: if kind.is_empty() { "Reference" } else { kind },
        ref_name,
        selector,
        to_field_path: s("toFieldPath")?.unwrap_or(""),
    })
}

/// Each entry's requirement; `None` for a selector whose labels came out empty.
fn requirements(
    st: &State<'_>,
    sources: &[Source<'_>],
    env: Option<&Value>,
) -> Result<Vec<Option<Match>>> {
    let empty_env = Value::Object(Map::new());
    let env = env.unwrap_or(&empty_env);
    let mut out = Vec::with_capacity(sources.len());
    for src in sources {
        if src.kind != "Selector" {
            out.push(Some(Match::Name(src.ref_name.unwrap_or("").to_owned())));
            continue;
        }
        let mut labels: Vec<(String, String)> = Vec::new();
        let matchers = src
            .selector
            .and_then(|s| s.get("matchLabels"))
            .and_then(Value::as_array)
            .unwrap_or(&[]);
        for m in matchers {
            let key = str_at(m, "key").unwrap_or("").to_owned();
            let value = match str_at(m, "type").unwrap_or("FromCompositeFieldPath") {
                "Value" => match str_at(m, "value") {
                    Some(v) => v.to_owned(),
                    None => return Err(fail(format!("label {}: value is required", quote(&key)))),
                },
                t @ ("FromCompositeFieldPath" | "FromEnvironmentFieldPath") => {
                    let (from, what) = if t == "FromCompositeFieldPath" {
                        (&st.xr, "composite")
                    } else {
                        (env, "environment")
                    };
                    let path = str_at(m, "valueFromFieldPath").unwrap_or("");
                    match fieldpath::get_string(from, path, SEM) {
                        Ok(v) => v.to_owned(),
                        Err(_) if str_at(m, "fromFieldPathPolicy") == Some("Optional") => continue,
                        Err(e) => {
                            return Err(fail(format!(
                                "cannot get value from {what} field path {}: {}",
                                quote(path),
                                e.message()
                            )));
                        }
                    }
                }
                other => return Err(fail(format!("unknown label matcher type {}", quote(other)))),
            };
            match labels.iter_mut().find(|(k, _)| *k == key) {
                Some(slot) => slot.1 = value,
                None => labels.push((key, value)),
            }
        }
        out.push((!labels.is_empty()).then_some(Match::Labels(labels)));
    }
    Ok(out)
}

/// `crossplane render`'s filtering fetcher over the name-sorted EnvironmentConfigs.
fn fetch<'e>(extra: &'e [Value], m: &Match) -> Vec<&'e Value> {
    match m {
        Match::Name(n) => extra.iter().find(|r| name(r) == n).into_iter().collect(),
        Match::Labels(want) => extra
            .iter()
            .filter(|r| {
                want.iter().all(|(k, v)| {
                    r.get("metadata")
                        .and_then(|md| md.get("labels"))
                        .and_then(|l| l.get(k))
                        .and_then(Value::as_str)
                        == Some(v.as_str())
                })
            })
            .collect(),
    }
}

fn by_selector(src: &Source<'_>, found: Vec<&Value>) -> Result<Vec<Value>> {
    let sel = src
        .selector
        .map(|s| Value::Object(s.clone()))
        .unwrap_or_default();
    let mode = str_at(&sel, "mode")
        .filter(|m| !m.is_empty())
        .unwrap_or("Single");
    match mode {
        "Single" => {
            if found.len() != 1 {
                return Err(fail(format!(
                    "expected exactly one required resource, got {}",
                    found.len()
                )));
            }
            Ok(vec![found[0].clone()])
        }
        "Multiple" => {
            let count = |k: &str| match sel.get(k) {
                Some(Value::Int(n)) => Some(usize::try_from(*n).unwrap_or(0)),
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                Some(Value::Float(f)) => Some(f.max(0.0) as usize),
                _ => None,
            };
            if let Some(min) = count("minMatch")
                && found.len() < min
            {
                return Err(fail(format!(
                    "expected at least {min} required resources, got {}",
                    found.len()
                )));
            }
            let path = str_at(&sel, "sortByFieldPath")
                .filter(|p| !p.is_empty())
                .unwrap_or("metadata.name");
            let mut sorted = sort_by_field_path(found, path)?;
            if let Some(max) = count("maxMatch") {
                sorted.truncate(max);
            }
            Ok(sorted)
        }
        other => Err(fail(format!("unknown selector mode {}", quote(other)))),
    }
}

/// Sorts by the value at `path`: all values of one type (missing ones count as
/// that type's zero value), numbers or strings only. Equal keys keep their order.
fn sort_by_field_path(found: Vec<&Value>, path: &str) -> Result<Vec<Value>> {
    let mut keyed = Vec::with_capacity(found.len());
    let mut kind: Option<&'static str> = None;
    for r in found {
        let v = match fieldpath::get_value(r, path, SEM) {
            Ok(v) if !v.is_null() => Some(v.clone()),
            Ok(_) => None,
            Err(e) if e.is_not_found() => None,
            Err(e) => return Err(e),
        };
        if let Some(v) = &v {
            let t = go_type(v);
            match kind {
                None => kind = Some(t),
                Some(k) if k != t => {
                    return Err(fail(format!(
                        "cannot sort values of different types {} and {}",
                        quote(k),
                        quote(t)
                    )));
                }
                Some(_) => {}
            }
        }
        keyed.push((v, r.clone()));
    }
    let Some(kind) = kind else {
        return Ok(keyed.into_iter().map(|(_, r)| r).collect());
    };
    if !matches!(kind, "float64" | "string" | "int64") && keyed.len() > 1 {
        let k = match kind {
            "map[string]interface {}" => "map",
            "[]interface {}" => "slice",
            k => k,
        };
        return Err(fail(format!("unsupported type {} for sorting", quote(k))));
    }
    let zero = match kind {
        "string" => Value::String(String::new()),
        _ => Value::Float(0.0),
    };
    crate::sort::sort_by(&mut keyed, |(a, _), (b, _)| {
        let (a, b) = (a.as_ref().unwrap_or(&zero), b.as_ref().unwrap_or(&zero));
        match (a, b) {
            (Value::String(x), Value::String(y)) => x.cmp(y),
            _ => num(a)
                .partial_cmp(&num(b))
                .unwrap_or(std::cmp::Ordering::Equal),
        }
    });
    Ok(keyed.into_iter().map(|(_, r)| r).collect())
}

#[allow(clippy::cast_precision_loss)] // numbers from the function's protobuf Struct are floats
fn num(v: &Value) -> f64 {
    match v {
        Value::Float(f) => *f,
        Value::Int(i) => *i as f64,
        _ => 0.0,
    }
}

fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Int(_) => "float64",
        other => other.go_type(),
    }
}

/// A config's data, placed at `path` when one is given.
fn config_data(c: &Value, path: &str) -> Result<Value> {
    let cname = name(c);
    let data = c.get("data");
    if !path.is_empty() {
        let mut out = Value::Object(Map::new());
        fieldpath::merge_value(&mut out, path, data.cloned().unwrap_or_default(), None, SEM)
            .map_err(|_| {
                fail(format!(
                    "cannot get data from environment config {cname} into path {}",
                    quote(path)
                ))
            })?;
        return Ok(out);
    }
    match data {
        None => Err(fail(format!(
            "cannot get data from environment config {}: data: no such field",
            quote(cname)
        ))),
        Some(v @ Value::Object(_)) => Ok(v.clone()),
        Some(Value::Null) => Ok(Value::Object(Map::new())),
        Some(v) => Err(fail(format!(
            "cannot get data from environment config {}: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
            quote(cname),
            v.json_kind()
        ))),
    }
}

fn str_at<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str)
}

fn name(v: &Value) -> &str {
    v.get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("")
}
