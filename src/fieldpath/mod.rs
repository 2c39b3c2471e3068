//! Crossplane field paths: parsing, and reading and writing "paved" JSON objects.
//!
//! Placeholder: the full implementation replaces this module.

use std::fmt;

use crate::error::{Error, ErrorKind, Result};
use crate::semantics::Semantics;
use crate::value::Value;

/// One step of a field path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Segment {
    /// An object member (`*` is the wildcard).
    Field(String),
    /// An array index.
    Index(u32),
}

/// A parsed field path.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(crate) struct FieldPath {
    segments: Vec<Segment>,
}

impl FieldPath {
    /// Parses a path; errors read `cannot parse path "<path>": <reason>`.
    pub(crate) fn parse(path: &str) -> Result<FieldPath> {
        let segments = path
            .split('.')
            .filter(|s| !s.is_empty())
            .map(|s| Segment::Field(s.to_owned()))
            .collect();
        Ok(FieldPath { segments })
    }

    pub(crate) fn segments(&self) -> &[Segment] {
        &self.segments
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.segments.iter().enumerate() {
            match s {
                Segment::Field(name) if i == 0 => write!(f, "{name}")?,
                Segment::Field(name) => write!(f, ".{name}")?,
                Segment::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

/// Merge behaviour of a write (`mergo` options).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct MergeOptions {
    /// Do not overwrite existing non-empty values.
    pub(crate) keep_map_values: bool,
    /// Append arrays instead of replacing them.
    pub(crate) append_slice: bool,
}

/// `GetValue`: the value at `path`.
pub(crate) fn get_value<'a>(obj: &'a Value, path: &str, _sem: Semantics) -> Result<&'a Value> {
    let fp = FieldPath::parse(path)?;
    let mut cur = obj;
    for s in fp.segments() {
        if let Segment::Field(name) = s {
            cur = cur
                .get(name)
                .ok_or_else(|| Error::new(ErrorKind::NotFound, format!("{path}: no such field")))?;
        }
    }
    Ok(cur)
}

/// `SetValue`: writes `value` at `path`, creating what is missing.
pub(crate) fn set_value(obj: &mut Value, path: &str, value: Value, sem: Semantics) -> Result<()> {
    merge_value(obj, path, value, None, sem)
}

/// `MergeValue`: writes `value` at `path`, merging per `opts`.
pub(crate) fn merge_value(
    obj: &mut Value,
    path: &str,
    value: Value,
    _opts: Option<MergeOptions>,
    _sem: Semantics,
) -> Result<()> {
    let fp = FieldPath::parse(path)?;
    let mut cur = obj;
    let n = fp.segments().len();
    for (i, s) in fp.segments().iter().enumerate() {
        let Segment::Field(name) = s else { continue };
        let Value::Object(m) = cur else {
            return Err(Error::new(
                ErrorKind::Render,
                format!("{path} is not an object"),
            ));
        };
        if i + 1 == n {
            m.insert(name.clone(), value);
            return Ok(());
        }
        cur = m
            .entry(name.clone())
            .or_insert_with(|| Value::Object(Default::default()));
    }
    Ok(())
}

/// `ExpandWildcards`: the concrete paths a `[*]` path addresses in `obj`.
pub(crate) fn expand_wildcards(_obj: &Value, path: &str, _sem: Semantics) -> Result<Vec<String>> {
    Ok(vec![path.to_owned()])
}
