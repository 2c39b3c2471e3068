//! Schemas from CustomResourceDefinitions and Crossplane CompositeResourceDefinitions.
//!
//! An XRD yields two schemas, as Crossplane generates its CRDs: the composite resource's
//! and (when it offers one) the claim's, each with the fields Crossplane adds to spec and
//! status.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::problem::{Path, Problem};
use crate::schema;

/// One kind's schema in one version, and where it came from.
#[derive(Clone, Debug)]
pub struct Definition {
    pub group: String,
    pub version: String,
    pub kind: String,
    /// The `openAPIV3Schema`, with Crossplane's fields for an XRD's kinds.
    pub schema: Value,
    /// `CustomResourceDefinition/name` or `CompositeResourceDefinition/name (claim)`.
    pub origin: String,
    /// Why the schema cannot be used (it is nested too deep, a pattern is invalid...).
    pub unusable: Option<String>,
}

impl Definition {
    /// `group/version Kind`, as messages name a resource type.
    pub fn type_name(&self) -> String {
        if self.group.is_empty() {
            format!("{} {}", self.version, self.kind)
        } else {
            format!("{}/{} {}", self.group, self.version, self.kind)
        }
    }
}

/// Every schema known, by group, version and kind.
#[derive(Clone, Debug, Default)]
pub struct Schemas {
    by_type: BTreeMap<(String, String, String), Definition>,
}

/// Splits `group/version` (or a core `version`).
pub fn split_api_version(api_version: &str) -> (&str, &str) {
    api_version.rsplit_once('/').unwrap_or(("", api_version))
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> &'a str {
    path.iter()
        .try_fold(v, |v, k| v.get(k))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// Whether a document defines schemas (a CRD or an XRD).
pub fn is_definition(doc: &Value) -> bool {
    let (group, _) = split_api_version(str_at(doc, &["apiVersion"]));
    matches!(
        (group, str_at(doc, &["kind"])),
        ("apiextensions.k8s.io", "CustomResourceDefinition")
            | ("apiextensions.crossplane.io", "CompositeResourceDefinition")
    )
}

impl Schemas {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.by_type.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_type.is_empty()
    }

    pub fn definitions(&self) -> impl Iterator<Item = &Definition> {
        self.by_type.values()
    }

    /// Adds the schemas a CRD or XRD defines. Returns the problems found in the definition
    /// itself (paths into the document); a kind whose schema has a problem is still known,
    /// and objects of that kind are reported as unvalidatable.
    pub fn add(&mut self, doc: &Value) -> Vec<Problem> {
        let mut problems = Vec::new();
        let kind = str_at(doc, &["kind"]);
        let name = str_at(doc, &["metadata", "name"]);
        let group = str_at(doc, &["spec", "group"]).to_owned();
        let versions = doc
            .pointer("/spec/versions")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        if versions.is_empty() {
            problems.push(Problem::error(
                &Path::root().field("spec").field("versions"),
                "Required value: a definition needs at least one version",
            ));
        }
        let is_xrd = kind == "CompositeResourceDefinition";
        let xrd_v2 = is_xrd && split_api_version(str_at(doc, &["apiVersion"])).1 == "v2";
        for (i, v) in versions.iter().enumerate() {
            let version = str_at(v, &["name"]).to_owned();
            let at = Path::root()
                .field("spec")
                .field("versions")
                .index(i)
                .field("schema")
                .field("openAPIV3Schema");
            let user = v
                .pointer("/schema/openAPIV3Schema")
                .cloned()
                .unwrap_or_else(
                    || json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}),
                );
            let found = schema::schema_problems(&user);
            let unusable = found.first().map(|p| {
                format!(
                    "the schema of {kind}/{name} is unusable: {}: {}",
                    at_path(&at, &p.path),
                    p.message
                )
            });
            problems.extend(found.into_iter().map(|p| Problem {
                path: Path(at.0.iter().cloned().chain(p.path.0).collect()),
                ..p
            }));
            let mut add = |kind: &str, schema: Value, origin: String| {
                if kind.is_empty() {
                    return;
                }
                self.by_type.insert(
                    (group.clone(), version.clone(), kind.to_owned()),
                    Definition {
                        group: group.clone(),
                        version: version.clone(),
                        kind: kind.to_owned(),
                        schema,
                        origin,
                        unusable: unusable.clone(),
                    },
                );
            };
            if is_xrd {
                let xr = str_at(doc, &["spec", "names", "kind"]);
                add(
                    xr,
                    composite_schema(&user, xrd_v2),
                    format!("{kind}/{name}"),
                );
                let claim = str_at(doc, &["spec", "claimNames", "kind"]);
                if !xrd_v2 {
                    add(claim, claim_schema(&user), format!("{kind}/{name} (claim)"));
                }
            } else {
                let k = str_at(doc, &["spec", "names", "kind"]);
                add(k, user, format!("{kind}/{name}"));
            }
        }
        problems
    }

    /// The schema for an object's `apiVersion` and `kind`.
    pub fn lookup(&self, api_version: &str, kind: &str) -> Option<&Definition> {
        let (group, version) = split_api_version(api_version);
        self.by_type
            .get(&(group.to_owned(), version.to_owned(), kind.to_owned()))
    }
}

fn at_path(base: &Path, rel: &Path) -> Path {
    Path(
        base.0
            .iter()
            .cloned()
            .chain(rel.0.iter().cloned())
            .collect(),
    )
}

fn obj(props: Value) -> Value {
    json!({"type": "object", "properties": props})
}

fn string() -> Value {
    json!({"type": "string"})
}

fn name_ref() -> Value {
    let mut r = obj(json!({"name": string()}));
    r["required"] = json!(["name"]);
    r
}

fn selector() -> Value {
    let mut s = obj(json!({"matchLabels": {"type": "object", "additionalProperties": string()}}));
    s["required"] = json!(["matchLabels"]);
    s
}

fn object_ref(namespaced: bool) -> Value {
    let mut props = json!({"apiVersion": string(), "kind": string(), "name": string()});
    if namespaced {
        props["namespace"] = string();
    }
    obj(props)
}

fn conditions() -> Value {
    json!({
        "type": "array",
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["type"],
        "items": {
            "type": "object",
            "required": ["lastTransitionTime", "reason", "status", "type"],
            "properties": {
                "lastTransitionTime": {"type": "string", "format": "date-time"},
                "message": string(),
                "observedGeneration": {"type": "integer", "format": "int64"},
                "reason": string(),
                "status": string(),
                "type": string()
            }
        }
    })
}

fn publish_to() -> Value {
    let mut p = obj(json!({
        "name": string(),
        "configRef": {"type": "object", "default": {"name": "default"}, "properties": {"name": string()}},
        "metadata": obj(json!({
            "annotations": {"type": "object", "additionalProperties": string()},
            "labels": {"type": "object", "additionalProperties": string()},
            "type": string()
        }))
    }));
    p["required"] = json!(["name"]);
    p
}

fn secret_ref(namespaced: bool) -> Value {
    let mut props = json!({"name": string()});
    let mut required = vec!["name"];
    if namespaced {
        props["namespace"] = string();
        required.push("namespace");
    }
    let mut r = obj(props);
    r["required"] = json!(required);
    r
}

/// The fields Crossplane adds to a spec to pick and pin a Composition.
fn composition_fields() -> Vec<(&'static str, Value)> {
    vec![
        ("compositionRef", name_ref()),
        ("compositionSelector", selector()),
        ("compositionRevisionRef", name_ref()),
        ("compositionRevisionSelector", selector()),
        (
            "compositionUpdatePolicy",
            json!({"type": "string", "enum": ["Automatic", "Manual"]}),
        ),
    ]
}

/// Merges Crossplane's fields into a copy of the user's schema under `key`.
fn with_fields(user: &Value, key: &str, fields: Vec<(&'static str, Value)>) -> Value {
    let mut out = user.clone();
    if !out.is_object() {
        out = json!({"type": "object"});
    }
    let props = out
        .as_object_mut()
        .map(|o| o.entry("properties").or_insert_with(|| json!({})));
    if let Some(Value::Object(props)) = props {
        let section = props
            .entry(key.to_owned())
            .or_insert_with(|| json!({"type": "object"}));
        if let Value::Object(section) = section {
            let inner = section.entry("properties").or_insert_with(|| json!({}));
            if let Value::Object(inner) = inner {
                for (k, v) in fields {
                    inner.insert(k.to_owned(), v);
                }
            }
        }
    }
    out
}

/// A composite resource's schema: the XRD's, with Crossplane's spec and status fields
/// (under `spec.crossplane` for a v2 XRD).
pub fn composite_schema(user: &Value, v2: bool) -> Value {
    let mut spec = composition_fields();
    spec.push((
        "resourceRefs",
        json!({"type": "array", "items": object_ref(true)}),
    ));
    let out = if v2 {
        let mut cp = obj(json!({}));
        for (k, v) in spec {
            cp["properties"][k] = v;
        }
        with_fields(user, "spec", vec![("crossplane", cp)])
    } else {
        spec.extend([
            ("claimRef", {
                let mut r = object_ref(true);
                r["required"] = json!(["apiVersion", "kind", "name", "namespace"]);
                r
            }),
            (
                "environmentConfigRefs",
                json!({"type": "array", "items": object_ref(false)}),
            ),
            ("publishConnectionDetailsTo", publish_to()),
            ("writeConnectionSecretToRef", secret_ref(true)),
        ]);
        with_fields(user, "spec", spec)
    };
    with_fields(
        &out,
        "status",
        vec![
            ("conditions", conditions()),
            (
                "connectionDetails",
                obj(json!({"lastPublishedTime": {"type": "string", "format": "date-time"}})),
            ),
            (
                "claimConditionTypes",
                json!({"type": "array", "x-kubernetes-list-type": "set", "items": string()}),
            ),
        ],
    )
}

/// A claim's schema: the XRD's, with the fields Crossplane adds to a claim.
pub fn claim_schema(user: &Value) -> Value {
    let mut spec = composition_fields();
    spec.extend([
        (
            "compositeDeletePolicy",
            json!({"type": "string", "enum": ["Background", "Foreground"]}),
        ),
        ("resourceRef", {
            let mut r = object_ref(false);
            r["required"] = json!(["apiVersion", "kind", "name"]);
            r
        }),
        ("publishConnectionDetailsTo", publish_to()),
        ("writeConnectionSecretToRef", secret_ref(false)),
    ]);
    let out = with_fields(user, "spec", spec);
    with_fields(
        &out,
        "status",
        vec![
            ("conditions", conditions()),
            (
                "connectionDetails",
                obj(json!({"lastPublishedTime": {"type": "string", "format": "date-time"}})),
            ),
        ],
    )
}
