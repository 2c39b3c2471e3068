//! The EnvironmentConfigs a classic Composition selects (`spec.environment.environmentConfigs`),
//! read from the cluster and merged in order into the environment a render starts from.

use anyhow::{anyhow, bail};
use serde_json::{Map, Value};

use super::client::Session;
use super::str_at;

const ENVIRONMENT_API: &str = "apiextensions.crossplane.io/v1alpha1";

/// The merged `data` of the selected EnvironmentConfigs; `None` when the Composition selects none.
pub(crate) async fn fetch(
    session: &mut Session,
    composition: &Value,
    xr: &Value,
) -> anyhow::Result<Option<Value>> {
    let Some(sources) = composition
        .pointer("/spec/environment/environmentConfigs")
        .and_then(Value::as_array)
    else {
        return Ok(None);
    };
    if sources.is_empty() {
        return Ok(None);
    }
    let kind = session.kind(ENVIRONMENT_API, "EnvironmentConfig").await?;
    let mut merged = Map::new();
    for (i, src) in sources.iter().enumerate() {
        let ty = src
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("Reference");
        let configs = match ty {
            "Reference" => {
                let name = str_at(src, "/ref/name");
                if name.is_empty() {
                    bail!("spec.environment.environmentConfigs[{i}]: a Reference needs ref.name");
                }
                let c = session
                    .get(&kind, None, name)
                    .await?
                    .ok_or_else(|| anyhow!("EnvironmentConfig {name:?} (spec.environment.environmentConfigs[{i}]) not found"))?;
                vec![c]
            }
            "Selector" => select(session, &kind, src, xr, i).await?,
            other => bail!("spec.environment.environmentConfigs[{i}]: unknown type {other:?}"),
        };
        for c in configs {
            if let Some(data) = c.get("data").and_then(Value::as_object) {
                merge(&mut merged, data);
            }
        }
    }
    Ok(Some(Value::Object(merged)))
}

/// Label-selected configs, sorted by name; `Single` takes the first, `Multiple` up to `maxMatch`.
async fn select(
    session: &mut Session,
    kind: &super::client::Kind,
    src: &Value,
    xr: &Value,
    i: usize,
) -> anyhow::Result<Vec<Value>> {
    let mut labels = Vec::new();
    for m in src
        .pointer("/selector/matchLabels")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let key = str_at(m, "/key");
        let value = match m
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("FromCompositeFieldPath")
        {
            "Value" => str_at(m, "/value").to_string(),
            _ => {
                let path = str_at(m, "/valueFromFieldPath");
                match pointer_for(path).and_then(|p| xr.pointer(&p)) {
                    Some(Value::String(s)) => s.clone(),
                    Some(v) if !v.is_null() => v.to_string(),
                    _ => bail!(
                        "spec.environment.environmentConfigs[{i}]: the XR has no value at {path:?} for label {key:?}"
                    ),
                }
            }
        };
        labels.push(format!("{key}={value}"));
    }
    let selector = labels.join(",");
    let mut found = session
        .list(
            kind,
            if selector.is_empty() {
                None
            } else {
                Some(&selector)
            },
        )
        .await?;
    found.sort_by(|a, b| str_at(a, "/metadata/name").cmp(str_at(b, "/metadata/name")));
    let mode = str_at(src, "/selector/mode");
    if mode == "Multiple" {
        if let Some(max) = src.pointer("/selector/maxMatch").and_then(Value::as_u64) {
            found.truncate(usize::try_from(max).unwrap_or(usize::MAX));
        }
        return Ok(found);
    }
    if found.is_empty() {
        bail!("spec.environment.environmentConfigs[{i}]: no EnvironmentConfig matches {selector}");
    }
    found.truncate(1);
    Ok(found)
}

/// A JSON pointer for a simple dotted field path (`spec.parameters.region`).
fn pointer_for(path: &str) -> Option<String> {
    if path.is_empty() || path.contains('[') {
        return None;
    }
    Some(path.split('.').map(|s| format!("/{s}")).collect())
}

/// Later configs win; nested objects merge key by key.
fn merge(into: &mut Map<String, Value>, from: &Map<String, Value>) {
    for (k, v) in from {
        match (into.get_mut(k), v) {
            (Some(Value::Object(a)), Value::Object(b)) => merge(a, b),
            _ => {
                into.insert(k.clone(), v.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn later_configs_win_and_objects_merge() {
        let mut m = json!({"a": 1, "b": {"c": 1, "d": 1}})
            .as_object()
            .unwrap()
            .clone();
        merge(
            &mut m,
            json!({"a": 2, "b": {"d": 2}, "e": [1]})
                .as_object()
                .unwrap(),
        );
        assert_eq!(
            Value::Object(m),
            json!({"a": 2, "b": {"c": 1, "d": 2}, "e": [1]})
        );
    }

    #[test]
    fn dotted_paths_become_pointers() {
        assert_eq!(
            pointer_for("spec.parameters.region").as_deref(),
            Some("/spec/parameters/region")
        );
        assert_eq!(pointer_for("spec.list[0]"), None);
        assert_eq!(pointer_for(""), None);
    }
}
