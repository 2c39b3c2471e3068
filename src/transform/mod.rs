//! Transforms: map, match, math, string and convert.
//!
//! Placeholder: the full implementation replaces this module.

use crate::error::{Error, ErrorKind, Result};
use crate::semantics::Semantics;
use crate::value::Value;

/// One transform's output, for the explain trace.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Step {
    /// The transform's `type`.
    pub(crate) kind: String,
    /// What it returned.
    pub(crate) output: Value,
}

/// Runs `transforms` (the patch's `transforms` list, as written) in order on `input`.
///
/// Errors read `transform at index N returned error: ...` as Crossplane's do.
pub(crate) fn run(
    transforms: &[Value],
    input: Value,
    _sem: Semantics,
    _steps: Option<&mut Vec<Step>>,
) -> Result<Value> {
    if transforms.is_empty() {
        Ok(input)
    } else {
        Err(Error::new(
            ErrorKind::Render,
            "transforms are not implemented",
        ))
    }
}
