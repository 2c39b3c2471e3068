//! `ExpandWildcards`: the concrete paths a `[*]` path addresses in an object.

use super::parse::{field, segments_string};
use super::{FieldPath, Segment, paved};
use crate::error::{Error, ErrorKind, Result};
use crate::go::quote;
use crate::semantics::Semantics;
use crate::value::Value;

/// Most paths one expansion may produce.
pub(crate) const MAX_EXPANSIONS: usize = 100_000;

/// Expands every wildcard of `path` against `obj`. Objects are walked in
/// sorted key order (Go's map order is random), arrays by index.
pub(super) fn expand(obj: &Value, path: &str, sem: Semantics) -> Result<Vec<String>> {
    let fp = FieldPath::parse(path)?;
    let mut out = Vec::new();
    expand_segments(obj, fp.segments(), sem, &mut out).map_err(|e| {
        e.wrap(format!(
            "cannot expand wildcards for segments: {}",
            quote(&segments_string(fp.segments()))
        ))
    })?;
    Ok(out.iter().map(|s| segments_string(s)).collect())
}

fn quoted(segments: &[Segment]) -> String {
    quote(&segments_string(segments))
}

/// Go's recursive `expandWildcards`: read every prefix up to the first
/// wildcard (a NotFound read yields nothing), substitute each index or key
/// there and recurse on the whole path; a path without wildcards survives
/// only if it exists all the way to its last segment.
fn expand_segments(
    data: &Value,
    segments: &[Segment],
    sem: Semantics,
    out: &mut Vec<Vec<Segment>>,
) -> Result<()> {
    let mut it = data;
    for i in 0..segments.len() {
        if segments[i].is_wildcard() {
            let subs: Vec<Segment> = match it {
                Value::Array(a) => (0..a.len())
                    .map(|ix| Segment::Index(u32::try_from(ix).unwrap_or(u32::MAX)))
                    .collect(),
                Value::Object(m) => m.keys().map(|k| field(k)).collect(),
                Value::Null if sem.wildcard_null_not_found() => {
                    return Err(Error::new(
                        ErrorKind::NotFound,
                        format!(
                            "wildcard field {} is not found in the path",
                            quoted(&segments[..i])
                        ),
                    ));
                }
                _ => {
                    return Err(Error::new(
                        ErrorKind::Render,
                        format!("{}: unexpected wildcard usage", quoted(&segments[..i])),
                    ));
                }
            };
            for sub in subs {
                // A key that trims to "*" would expand to itself forever
                // (upstream recurses until the stack overflows).
                if sub.is_wildcard() {
                    return Err(Error::new(
                        ErrorKind::Limit,
                        format!("{}: key \"*\" cannot be expanded", quoted(&segments[..=i])),
                    ));
                }
                let mut expanded = segments.to_vec();
                expanded[i] = sub;
                expand_segments(data, &expanded, sem, out).map_err(|e| {
                    e.wrap(format!("{}: cannot expand wildcards", quoted(&expanded)))
                })?;
            }
            return Ok(());
        }
        let child = match (&segments[i], it) {
            (Segment::Index(ix), Value::Array(a)) => a.get(*ix as usize),
            (Segment::Field(name), Value::Object(m)) => m.get(name),
            _ => None,
        };
        // The full read from the root only runs to produce its exact error.
        it = match child {
            Some(v) => v,
            None => match paved::get(data, &segments[..=i], sem) {
                Ok(v) => v,
                Err(e) if e.is_not_found() => return Ok(()),
                Err(e) => return Err(e),
            },
        };
    }
    if out.len() >= MAX_EXPANSIONS {
        return Err(Error::new(
            ErrorKind::Limit,
            format!("more than {MAX_EXPANSIONS} paths"),
        ));
    }
    out.push(segments.to_vec());
    Ok(())
}
