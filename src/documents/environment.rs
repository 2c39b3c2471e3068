//! The environment: the EnvironmentConfigs a Composition selects, their `data` merged in order.
//!
//! A classic Composition selects them with `spec.environment.environmentConfigs` (by reference,
//! or by labels read from the XR). When it selects none, every EnvironmentConfig given is merged
//! in document order, as a render from files does; unless the request says the configs are a
//! pool to select from (`options.environmentConfigs: "selected"`), as on a cluster, where
//! Crossplane then merges none. A Pipeline that runs
//! function-environment-configs gets them all as extra resources instead, for its step to select.

use crate::error::Result;
use crate::patch::environment::deep_merge;
use crate::semantics::Semantics;
use crate::value::{Map, Value};

use super::classify::{Catalog, Role, at, name_of, str_at};
use super::invalid;

const KIND: &str = "EnvironmentConfig";

/// The merged environment and the EnvironmentConfigs it came from.
pub(crate) struct Environment {
    pub(crate) value: Value,
    pub(crate) names: Vec<String>,
}

pub(crate) fn select(
    cat: &mut Catalog<'_>,
    composition: &Value,
    xr: &Value,
    pool: bool,
) -> Result<Option<Environment>> {
    let configs = cat.crossplane(KIND);
    let sources = at(composition, &["spec", "environment", "environmentConfigs"])
        .and_then(Value::as_array)
        .filter(|s| !s.is_empty());
    let chosen = match sources {
        Some(sources) => {
            let optional = str_at(
                composition,
                &["spec", "environment", "policy", "resolution"],
            ) == Some("Optional");
            let mut chosen = Vec::new();
            for (i, src) in sources.iter().enumerate() {
                chosen.extend(source(cat, &configs, src, xr, i, optional)?);
            }
            chosen
        }
        None if pool => Vec::new(),
        None => configs.clone(),
    };
    for &i in &configs {
        if !chosen.contains(&i) {
            cat.skip(
                i,
                "not selected by the Composition's spec.environment.environmentConfigs",
            );
        }
    }
    if chosen.is_empty() {
        return Ok(None);
    }
    let mut env = Map::new();
    env.insert(
        "apiVersion".into(),
        "internal.crossplane.io/v1alpha1".into(),
    );
    env.insert("kind".into(), "Environment".into());
    let mut env = Value::Object(env);
    let mut names = Vec::new();
    for i in chosen {
        if let Some(data) = cat.docs[i].get("data") {
            deep_merge(&mut env, data);
        }
        cat.roles[i] = Role::Environment;
        names.push(name_of(&cat.docs[i]).to_owned());
    }
    Ok(Some(Environment { value: env, names }))
}

/// Every EnvironmentConfig given, in document order, for a pipeline whose
/// function-environment-configs step selects among them (`crossplane render -e`).
pub(crate) fn for_pipeline(cat: &mut Catalog<'_>) -> Vec<Value> {
    let configs = cat.crossplane(KIND);
    for &i in &configs {
        cat.roles[i] = Role::Environment;
    }
    configs
        .into_iter()
        .map(|i| Value::clone(&cat.docs[i]))
        .collect()
}

/// The configs one `environmentConfigs[i]` entry selects.
fn source(
    cat: &Catalog<'_>,
    configs: &[usize],
    src: &Value,
    xr: &Value,
    i: usize,
    optional: bool,
) -> Result<Vec<usize>> {
    let at_field = format!("spec.environment.environmentConfigs[{i}]");
    match str_at(src, &["type"]).unwrap_or("Reference") {
        "Reference" => {
            let name = str_at(src, &["ref", "name"]).unwrap_or("");
            if name.is_empty() {
                return Err(invalid(format!("{at_field}: a Reference needs ref.name")));
            }
            match configs
                .iter()
                .copied()
                .find(|&c| name_of(&cat.docs[c]) == name)
            {
                Some(c) => Ok(vec![c]),
                None if optional => Ok(Vec::new()),
                None => Err(invalid(format!(
                    "{KIND} {} ({at_field}) is not among the documents given (found: {})",
                    crate::go::quote(name),
                    cat.list(configs)
                ))),
            }
        }
        "Selector" => by_labels(cat, configs, src, xr, &at_field, optional),
        other => Err(invalid(format!(
            "{at_field}: unknown type {}",
            crate::go::quote(other)
        ))),
    }
}

/// Label-selected configs, sorted by name; `Single` takes the first, `Multiple` up to `maxMatch`.
fn by_labels(
    cat: &Catalog<'_>,
    configs: &[usize],
    src: &Value,
    xr: &Value,
    at_field: &str,
    optional: bool,
) -> Result<Vec<usize>> {
    let mut labels: Vec<(String, String)> = Vec::new();
    for m in at(src, &["selector", "matchLabels"])
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let key = str_at(m, &["key"]).unwrap_or("").to_owned();
        let value = match str_at(m, &["type"]).unwrap_or("FromCompositeFieldPath") {
            "Value" => str_at(m, &["value"]).unwrap_or("").to_owned(),
            _ => {
                let path = str_at(m, &["valueFromFieldPath"]).unwrap_or("");
                match crate::fieldpath::get_value(xr, path, Semantics::Native) {
                    Ok(Value::String(s)) => s.clone(),
                    Ok(v) if !v.is_null() => v.to_json(),
                    _ => {
                        return Err(invalid(format!(
                            "{at_field}: the XR has no value at {} for label {}",
                            crate::go::quote(path),
                            crate::go::quote(&key)
                        )));
                    }
                }
            }
        };
        labels.push((key, value));
    }
    let mut found: Vec<usize> = configs
        .iter()
        .copied()
        .filter(|&c| {
            labels
                .iter()
                .all(|(k, v)| str_at(&cat.docs[c], &["metadata", "labels", k]) == Some(v.as_str()))
        })
        .collect();
    crate::sort::sort_by(&mut found, |&a, &b| {
        name_of(&cat.docs[a]).cmp(name_of(&cat.docs[b]))
    });
    if str_at(src, &["selector", "mode"]) == Some("Multiple") {
        if let Some(Value::Int(max)) = at(src, &["selector", "maxMatch"]) {
            found.truncate(usize::try_from(*max).unwrap_or(usize::MAX));
        }
        return Ok(found);
    }
    if found.is_empty() && !optional {
        let shown: Vec<String> = labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
        return Err(invalid(format!(
            "{at_field}: no {KIND} matches {}",
            shown.join(",")
        )));
    }
    found.truncate(1);
    Ok(found)
}
