//! A package's needs as its manifest declares them: `spec.dependsOn` of a meta object, or a
//! legacy app.yaml's `dependsOn`.

use anyhow::{Result, anyhow, bail};
use serde_json::Value;

use super::model::Need;

/// Reads `spec.dependsOn` of a meta object (or a legacy app.yaml's `dependsOn`).
pub(crate) fn needs_of(depends_on: Option<&Value>, what: &str) -> Result<Vec<Need>> {
    let Some(list) = depends_on else {
        return Ok(vec![]);
    };
    let Some(items) = list.as_array() else {
        bail!("{what}: dependsOn must be a list");
    };
    let mut out = Vec::new();
    for (i, d) in items.iter().enumerate() {
        let s = |k: &str| d.get(k).and_then(Value::as_str).filter(|s| !s.is_empty());
        if let Some(crd) = s("crd") {
            out.push(Need::Crd(crd.to_owned()));
            continue;
        }
        let (package, kind) = match (
            s("configuration"),
            s("provider"),
            s("function"),
            s("package"),
        ) {
            (Some(p), None, None, None) => (p, Some("Configuration")),
            (None, Some(p), None, None) => (p, Some("Provider")),
            (None, None, Some(p), None) => (p, Some("Function")),
            (None, None, None, Some(p)) => (p, s("kind")),
            _ => bail!(
                "{what}: dependsOn[{i}] must name exactly one of configuration, provider, function or package"
            ),
        };
        let version = s("version").unwrap_or("*");
        // A package reference may carry its digest itself.
        let (package, version) = match package.split_once('@') {
            Some((p, d)) => (p, d),
            None => (package, version),
        };
        if package
            .rsplit('/')
            .next()
            .is_some_and(|last| last.contains(':'))
        {
            return Err(anyhow!(
                "{what}: dependsOn[{i}] names {package:?} with a tag; give the repository and put the version in `version`"
            ));
        }
        out.push(Need::Package {
            package: package.to_owned(),
            kind: kind.map(str::to_owned),
            version: version.to_owned(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dep(p: &str, v: &str) -> Need {
        Need::Package {
            package: p.into(),
            kind: Some("Provider".into()),
            version: v.into(),
        }
    }

    #[test]
    fn depends_on_entries() {
        let v: Value = serde_json::from_str(
            r#"[
            {"provider": "r/p", "version": ">=v1"},
            {"configuration": "r/c"},
            {"function": "r/f@sha256:abc"},
            {"package": "r/x", "kind": "Provider", "version": "1.0.0"},
            {"crd": "*.example.org/v1"}]"#,
        )
        .unwrap();
        let needs = needs_of(Some(&v), "meta").unwrap();
        assert_eq!(needs[0], dep("r/p", ">=v1"));
        assert_eq!(
            needs[1],
            Need::Package {
                package: "r/c".into(),
                kind: Some("Configuration".into()),
                version: "*".into()
            }
        );
        assert_eq!(
            needs[2],
            Need::Package {
                package: "r/f".into(),
                kind: Some("Function".into()),
                version: "sha256:abc".into()
            }
        );
        assert_eq!(needs[3], dep("r/x", "1.0.0"));
        assert_eq!(needs[4], Need::Crd("*.example.org/v1".into()));
        let bad: Value = serde_json::from_str(r#"[{"provider": "a", "function": "b"}]"#).unwrap();
        assert!(
            needs_of(Some(&bad), "meta")
                .unwrap_err()
                .to_string()
                .contains("dependsOn[0] must name exactly one")
        );
        let tagged: Value = serde_json::from_str(r#"[{"provider": "r.io/a:v1"}]"#).unwrap();
        assert!(
            needs_of(Some(&tagged), "meta")
                .unwrap_err()
                .to_string()
                .contains("with a tag")
        );
    }
}
