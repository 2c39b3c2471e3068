//! package.yaml: the YAML stream of a package, validated per package kind.

use anyhow::{Result, anyhow, bail};
use serde_json::Value;

pub(crate) const META_GROUP: &str = "meta.pkg.crossplane.io";
const XP_GROUP: &str = "apiextensions.crossplane.io";
const CRD_GROUP: &str = "apiextensions.k8s.io";
const WEBHOOK_GROUP: &str = "admissionregistration.k8s.io";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Configuration,
    Provider,
    Function,
}

impl Kind {
    fn from_meta(kind: &str) -> Option<Self> {
        match kind {
            "Configuration" => Some(Self::Configuration),
            "Provider" => Some(Self::Provider),
            "Function" => Some(Self::Function),
            _ => None,
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Configuration => "Configuration",
            Self::Provider => "Provider",
            Self::Function => "Function",
        }
    }

    /// The (group, kind) pairs a package of this kind may carry besides its meta object.
    fn allowed(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Self::Configuration => &[
                (XP_GROUP, "CompositeResourceDefinition"),
                (XP_GROUP, "Composition"),
            ],
            Self::Provider => &[
                (CRD_GROUP, "CustomResourceDefinition"),
                (WEBHOOK_GROUP, "ValidatingWebhookConfiguration"),
                (WEBHOOK_GROUP, "MutatingWebhookConfiguration"),
            ],
            Self::Function => &[(CRD_GROUP, "CustomResourceDefinition")],
        }
    }
}

/// A validated package: its kind, the index of the meta object and every object in stream order.
#[derive(Debug, Clone)]
pub(crate) struct Package {
    pub(crate) kind: Kind,
    pub(crate) meta_index: usize,
    pub(crate) objects: Vec<Value>,
}

impl Package {
    pub(crate) fn meta(&self) -> &Value {
        &self.objects[self.meta_index]
    }
}

/// Parses a YAML stream into its documents (empty documents dropped), naming the line and
/// column of a syntax error.
pub(crate) fn parse_stream(text: &str, source: &str) -> Result<Vec<Value>> {
    let options = crate::io::yaml_options(text);
    let docs: Vec<Value> =
        serde_saphyr::from_multiple_with_options(text, options).map_err(|e| {
            match e.location() {
                Some(l) => anyhow!(
                    "{source} is not a valid YAML stream: line {}, column {}: {}",
                    l.line(),
                    l.column(),
                    crate::io::yaml_reason(&e)
                ),
                None => anyhow!(
                    "{source} is not a valid YAML stream: {}",
                    crate::io::yaml_reason(&e)
                ),
            }
        })?;
    Ok(docs.into_iter().filter(|d| !d.is_null()).collect())
}

/// Parses and validates package.yaml.
pub(crate) fn parse(bytes: &[u8]) -> Result<Package> {
    let text = std::str::from_utf8(bytes).map_err(|_| anyhow!("package.yaml is not UTF-8 text"))?;
    validate(parse_stream(text, "package.yaml")?)
}

fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(g, _)| g)
}

/// `document N (Kind, apiVersion)` — how errors name a document (N counts from 1).
fn describe(i: usize, obj: &Value) -> String {
    let s = |k: &str| obj.get(k).and_then(Value::as_str).unwrap_or("?");
    format!(
        "package.yaml document {} ({}, apiVersion {})",
        i + 1,
        s("kind"),
        s("apiVersion")
    )
}

pub(crate) fn validate(objects: Vec<Value>) -> Result<Package> {
    let mut meta: Option<(usize, Kind)> = None;
    for (i, obj) in objects.iter().enumerate() {
        if !obj.is_object() {
            bail!("package.yaml document {}: not an object", i + 1);
        }
        let api_version = obj
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let kind = obj.get("kind").and_then(Value::as_str).unwrap_or_default();
        if api_version.is_empty() || kind.is_empty() {
            bail!("{}: apiVersion and kind are required", describe(i, obj));
        }
        let name = obj
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if name.is_empty() {
            bail!("{}: metadata.name is required", describe(i, obj));
        }
        if group_of(api_version) != META_GROUP {
            continue;
        }
        let Some(k) = Kind::from_meta(kind) else {
            bail!(
                "{}: not a package meta kind (Configuration, Provider or Function)",
                describe(i, obj)
            );
        };
        if let Some((first, first_kind)) = meta {
            bail!(
                "{}: a package has exactly one meta object, and document {} is already a {}",
                describe(i, obj),
                first + 1,
                first_kind.as_str()
            );
        }
        meta = Some((i, k));
    }
    let Some((meta_index, kind)) = meta else {
        bail!(
            "package.yaml has no meta object (a Configuration, Provider or Function of {META_GROUP})"
        );
    };
    for (i, obj) in objects.iter().enumerate() {
        if i == meta_index {
            continue;
        }
        let group = group_of(
            obj.get("apiVersion")
                .and_then(Value::as_str)
                .unwrap_or_default(),
        );
        let k = obj.get("kind").and_then(Value::as_str).unwrap_or_default();
        if !kind.allowed().iter().any(|(g, a)| *g == group && *a == k) {
            let names: Vec<&str> = kind.allowed().iter().map(|(_, k)| *k).collect();
            bail!(
                "{}: a {} package may only contain {} objects besides its meta object",
                describe(i, obj),
                kind.as_str(),
                names.join(", ")
            );
        }
    }
    Ok(Package {
        kind,
        meta_index,
        objects,
    })
}

/// What `xpkg inspect` shows of a package.
pub(crate) fn summary(pkg: &Package) -> Value {
    let meta = pkg.meta();
    let annotations: serde_json::Map<String, Value> = meta
        .pointer("/metadata/annotations")
        .and_then(Value::as_object)
        .map(|a| {
            a.iter()
                .filter(|(k, _)| k.starts_with("meta.crossplane.io/"))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
        .unwrap_or_default();
    let name_of = |o: &Value| o.pointer("/metadata/name").cloned().unwrap_or(Value::Null);
    let of_kind = |kind: &str| -> Vec<&Value> {
        pkg.objects
            .iter()
            .enumerate()
            .filter(|(i, o)| {
                *i != pkg.meta_index && o.get("kind").and_then(Value::as_str) == Some(kind)
            })
            .map(|(_, o)| o)
            .collect()
    };
    let mut out = serde_json::Map::new();
    out.insert("kind".into(), Value::from(pkg.kind.as_str()));
    out.insert("name".into(), name_of(meta));
    if let Some(v) = meta.pointer("/spec/crossplane/version") {
        out.insert("crossplaneVersion".into(), v.clone());
    }
    out.insert(
        "dependsOn".into(),
        meta.pointer("/spec/dependsOn")
            .cloned()
            .unwrap_or(Value::Array(vec![])),
    );
    out.insert("annotations".into(), Value::Object(annotations));
    let names = |kind: &str| Value::Array(of_kind(kind).into_iter().map(name_of).collect());
    match pkg.kind {
        Kind::Configuration => {
            out.insert(
                "compositeResourceDefinitions".into(),
                names("CompositeResourceDefinition"),
            );
            let comps = of_kind("Composition")
                .into_iter()
                .map(|c| {
                    let r = |f: &str| c.pointer(&format!("/spec/compositeTypeRef/{f}")).and_then(Value::as_str).unwrap_or("?");
                    serde_json::json!({"name": name_of(c), "compositeTypeRef": format!("{}, Kind={}", r("apiVersion"), r("kind"))})
                })
                .collect();
            out.insert("compositions".into(), Value::Array(comps));
        }
        Kind::Provider | Kind::Function => {
            out.insert(
                "customResourceDefinitions".into(),
                names("CustomResourceDefinition"),
            );
            let hooks = [
                "ValidatingWebhookConfiguration",
                "MutatingWebhookConfiguration",
            ]
            .iter()
            .flat_map(|k| {
                of_kind(k)
                    .into_iter()
                    .map(move |o| serde_json::json!({"kind": k, "name": name_of(o)}))
            })
            .collect();
            out.insert("webhookConfigurations".into(), Value::Array(hooks));
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CFG: &str =
        "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata: {name: cfg}\n";
    const PRV: &str =
        "apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata: {name: prv}\n";
    const FNC: &str =
        "apiVersion: meta.pkg.crossplane.io/v1beta1\nkind: Function\nmetadata: {name: fn}\n";
    const XRD: &str = "apiVersion: apiextensions.crossplane.io/v1\nkind: CompositeResourceDefinition\nmetadata: {name: xdbs.example.org}\n";
    const COMP: &str = "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata: {name: db}\nspec: {compositeTypeRef: {apiVersion: example.org/v1, kind: XDB}}\n";
    const CRD: &str = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: dbs.example.org}\n";
    const VWC: &str = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: v}\n";
    const MWC: &str = "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata: {name: m}\n";
    const DEP: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n";

    fn stream(docs: &[&str]) -> String {
        docs.join("---\n")
    }

    #[test]
    fn valid_packages() {
        let cases: &[(&[&str], Kind, usize)] = &[
            (&[CFG, XRD, COMP], Kind::Configuration, 3),
            (&[XRD, CFG], Kind::Configuration, 2),
            (&[PRV, CRD, VWC, MWC], Kind::Provider, 4),
            (&[FNC, CRD], Kind::Function, 2),
            (&[CFG, "", "# only a comment\n"], Kind::Configuration, 1),
        ];
        for (docs, kind, n) in cases {
            let p = parse(stream(docs).as_bytes()).unwrap();
            assert_eq!((p.kind, p.objects.len()), (*kind, *n));
        }
    }

    #[test]
    fn invalid_packages_name_the_document_and_kind() {
        let cases: &[(&[&str], &str)] = &[
            (&[XRD, COMP], "package.yaml has no meta object"),
            (
                &[CFG, PRV],
                "package.yaml document 2 (Provider, apiVersion meta.pkg.crossplane.io/v1): a package has exactly one meta object, and document 1 is already a Configuration",
            ),
            (
                &[CFG, XRD, DEP],
                "package.yaml document 3 (Deployment, apiVersion apps/v1): a Configuration package may only contain CompositeResourceDefinition, Composition objects besides its meta object",
            ),
            (
                &[CFG, CRD],
                "document 2 (CustomResourceDefinition, apiVersion apiextensions.k8s.io/v1): a Configuration package",
            ),
            (
                &[PRV, COMP],
                "document 2 (Composition, apiVersion apiextensions.crossplane.io/v1): a Provider package may only contain CustomResourceDefinition, ValidatingWebhookConfiguration, MutatingWebhookConfiguration",
            ),
            (
                &[FNC, VWC],
                "a Function package may only contain CustomResourceDefinition",
            ),
            (
                &["apiVersion: meta.pkg.crossplane.io/v1\nkind: Stack\nmetadata: {name: s}\n"],
                "document 1 (Stack, apiVersion meta.pkg.crossplane.io/v1): not a package meta kind",
            ),
            (
                &[CFG, "- a list\n"],
                "package.yaml document 2: not an object",
            ),
            (
                &[CFG, "kind: Composition\nmetadata: {name: x}\n"],
                "document 2 (Composition, apiVersion ?): apiVersion and kind are required",
            ),
            (
                &["apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\n"],
                "document 1 (Configuration, apiVersion meta.pkg.crossplane.io/v1): metadata.name is required",
            ),
        ];
        for (docs, want) in cases {
            let e = parse(stream(docs).as_bytes()).unwrap_err().to_string();
            assert!(e.contains(want), "{e}\n  should contain\n{want}");
        }
    }

    #[test]
    fn yaml_errors_carry_line_and_column() {
        let e = parse(format!("{CFG}---\nkind: [unclosed\n").as_bytes())
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("package.yaml is not a valid YAML stream: line "),
            "{e}"
        );
        assert!(e.contains("column"), "{e}");
        assert!(
            parse(b"\xff\xfe")
                .unwrap_err()
                .to_string()
                .contains("not UTF-8")
        );
    }

    #[test]
    fn summary_lists_what_the_package_carries() {
        let meta = "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: cfg\n  annotations:\n    meta.crossplane.io/maintainer: Team <t@example.org>\n    other/annotation: x\nspec:\n  crossplane: {version: '>=v1.14'}\n  dependsOn: [{provider: xpkg.example.org/p, version: '>=v1'}]\n";
        let p = parse(stream(&[meta, XRD, COMP]).as_bytes()).unwrap();
        let s = summary(&p);
        assert_eq!(
            s,
            serde_json::json!({
                "kind": "Configuration", "name": "cfg", "crossplaneVersion": ">=v1.14",
                "dependsOn": [{"provider": "xpkg.example.org/p", "version": ">=v1"}],
                "annotations": {"meta.crossplane.io/maintainer": "Team <t@example.org>"},
                "compositeResourceDefinitions": ["xdbs.example.org"],
                "compositions": [{"name": "db", "compositeTypeRef": "example.org/v1, Kind=XDB"}],
            })
        );
        let p = parse(stream(&[PRV, CRD, MWC]).as_bytes()).unwrap();
        assert_eq!(
            summary(&p)["webhookConfigurations"],
            serde_json::json!([{"kind": "MutatingWebhookConfiguration", "name": "m"}])
        );
    }
}
