//! Crossplane's shapes as the engine reads them, for the tools around it (the CLI, the
//! validator, the playground): field paths, function-patch-and-transform's input, PatchSets,
//! the order of composed resources, the engine's entry limits, Go's durations and RE2.
//!
//! **Unstable**: this module follows the engine's needs and changes without notice between
//! versions. Nothing here is part of [`render`](crate::render)'s contract; the shipped wasm
//! modules carry only what the engine itself uses of it.

pub mod limits;
pub mod patch_sets;
pub mod pt;
pub mod regexp;

use crate::value::Value;

pub use crate::fieldpath::Segment;

/// Parses a field path as crossplane-runtime does (`spec.a[0]`, `metadata.labels[a.b/c]`,
/// `spec['x.y']`, `[*]` and `.*` wildcards); the empty path has no segments.
///
/// # Errors
/// The engine's error: `cannot parse path "<path>": <reason>`, or a
/// [`Limit`](crate::ErrorKind::Limit) for paths longer than the engine takes.
pub fn parse_field_path(path: &str) -> crate::Result<Vec<Segment>> {
    crate::fieldpath::FieldPath::parse(path).map(|p| p.segments().to_vec())
}

/// Go's `time.ParseDuration`: the duration in nanoseconds.
///
/// # Errors
/// Go's message (`time: invalid duration "…"`, `time: missing unit in duration "…"`,
/// `time: unknown unit "…" in duration "…"`).
pub fn parse_duration(s: &str) -> Result<i64, String> {
    crate::go::duration::parse_nanos(s)
}

/// The names of a Composition's composed resources in the order it lists them: a classic
/// Composition's `spec.resources`, then each Pipeline step's `input.resources`, each name once.
/// The engine composes (and its Output lists) resources in this order.
#[must_use]
pub fn composed_order(composition: &Value) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    // A set beside the list: a Composition may list 100,000 templates.
    let mut seen: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
    let lists = [composition.get("spec").and_then(|s| s.get("resources"))]
        .into_iter()
        .chain(
            composition
                .get("spec")
                .and_then(|s| s.get("pipeline"))
                .and_then(Value::as_array)
                .unwrap_or_default()
                .iter()
                .map(|step| step.get("input").and_then(|i| i.get("resources"))),
        );
    for list in lists.flatten() {
        for r in list.as_array().unwrap_or_default() {
            if let Some(n) = r.get("name").and_then(Value::as_str)
                && seen.insert(n)
            {
                names.push(n.to_owned());
            }
        }
    }
    names
}
