//! Validation of Kubernetes objects against the schemas of CustomResourceDefinitions and
//! Crossplane CompositeResourceDefinitions, as the API server validates them, and deep checks
//! of Compositions (patch-and-transform inputs and patch paths).
//!
//! Pure: no I/O, clock or threads, so the CLI and the browser playground share it.
//!
//! ```
//! use serde_json::json;
//! use xprender_validate::{Options, Schemas, validate_object};
//!
//! let mut schemas = Schemas::new();
//! schemas.add(&json!({
//!     "apiVersion": "apiextensions.k8s.io/v1",
//!     "kind": "CustomResourceDefinition",
//!     "metadata": {"name": "buckets.example.org"},
//!     "spec": {"group": "example.org", "names": {"kind": "Bucket"}, "versions": [{
//!         "name": "v1",
//!         "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {
//!             "type": "object", "required": ["region"],
//!             "properties": {"region": {"type": "string", "enum": ["eu", "us"]}}
//!         }}}}
//!     }]}
//! }));
//! let report = validate_object(&schemas, &json!({
//!     "apiVersion": "example.org/v1", "kind": "Bucket",
//!     "metadata": {"name": "b"}, "spec": {"region": "mars"}
//! }), Options::default());
//! assert_eq!(
//!     report.problems[0].to_string(),
//!     "spec.region: Unsupported value: \"mars\": supported values: \"eu\", \"us\""
//! );
//! ```

mod cel;
pub mod composition;
mod definitions;
mod documents;
pub mod fieldpath;
mod format;
mod problem;
mod schema;
mod suggest;
#[cfg(feature = "web")]
mod web;

use serde_json::Value;

pub use cel::{COST_BUDGET, MAX_RULE_LEN, MAX_RULE_NESTING, MAX_RULE_OPERATORS};
pub use definitions::{
    Definition, Schemas, claim_schema, composite_schema, is_definition, split_api_version,
};
pub use documents::{problems_json, validate_documents};
pub use problem::{Path, Problem, Seg, Severity, Suggestion, Target};
pub use schema::{MAX_DEPTH, Options, schema_problems, validate as validate_with_schema};
pub use suggest::closest;

/// How an object was validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Against its kind's schema (or, for a Composition, Crossplane's).
    Validated { schema: String },
    /// No schema is known for its kind.
    NoSchema,
    /// Its kind's schema is itself broken; the reason.
    Unusable(String),
}

/// What validating one object found.
#[derive(Clone, Debug)]
pub struct Report {
    pub outcome: Outcome,
    pub problems: Vec<Problem>,
    /// The object as the API server would store it: unknown fields pruned, defaults applied.
    pub object: Value,
}

impl Report {
    pub fn errors(&self) -> usize {
        self.problems
            .iter()
            .filter(|p| p.severity == Severity::Error)
            .count()
    }

    pub fn warnings(&self) -> usize {
        self.problems.len() - self.errors()
    }
}

/// Validates one object: a Composition deeply, anything else against its kind's schema.
pub fn validate_object(schemas: &Schemas, object: &Value, opts: Options) -> Report {
    let api = object
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    let kind = object.get("kind").and_then(Value::as_str).unwrap_or("");
    if composition::is_composition(object) && schemas.lookup(api, kind).is_none() {
        return Report {
            outcome: Outcome::Validated {
                schema: "Crossplane's Composition schema".into(),
            },
            problems: composition::check(schemas, object),
            object: object.clone(),
        };
    }
    let Some(def) = schemas.lookup(api, kind) else {
        return Report {
            outcome: Outcome::NoSchema,
            problems: Vec::new(),
            object: object.clone(),
        };
    };
    if let Some(why) = &def.unusable {
        return Report {
            outcome: Outcome::Unusable(why.clone()),
            problems: Vec::new(),
            object: object.clone(),
        };
    }
    let mut out = object.clone();
    let mut problems = schema::validate(&mut out, &def.schema, opts);
    if composition::is_composition(object) {
        problems.extend(composition::check(schemas, object));
    }
    Report {
        outcome: Outcome::Validated {
            schema: def.origin.clone(),
        },
        problems,
        object: out,
    }
}
