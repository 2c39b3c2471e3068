//! `spec.mode: Pipeline`: function-patch-and-transform steps run in order, each
//! seeing the previous steps' desired state; other functions are reported, not run.

use std::collections::BTreeSet;

use crate::error::{Error, ErrorKind, Result};
use crate::fmt::quote;

use super::input::Step;
use super::{State, run_input};

/// Runs every step.
pub(super) fn run(st: &mut State<'_>, steps: &[Step<'_>]) -> Result<()> {
    validate(steps)?;
    for s in steps {
        match &s.input {
            Some(input) => {
                st.step = Some(s.name.to_owned());
                run_input(st, input)?;
                if st.stopped() {
                    break;
                }
            }
            None => {
                let msg = format!(
                    "pipeline step {} (function {}) was not run: only function-patch-and-transform steps (pt.fn.crossplane.io/v1beta1 Resources) can be rendered, so this step's changes are missing",
                    quote(s.name),
                    quote(s.function)
                );
                st.warn(msg, None);
            }
        }
    }
    st.step = None;
    Ok(())
}

/// The Composition's own pipeline validation (`validateMode`, `validatePipeline`).
fn validate(steps: &[Step<'_>]) -> Result<()> {
    let mut errs = Vec::new();
    if steps.is_empty() {
        errs.push(
            "spec.pipeline: Required value: an array of pipeline steps is required in Pipeline mode"
                .to_owned(),
        );
    }
    let mut seen = BTreeSet::new();
    for (i, s) in steps.iter().enumerate() {
        if !seen.insert(s.name) {
            errs.push(format!(
                "spec.pipeline[{i}].step: Duplicate value: {}",
                quote(s.name)
            ));
        }
    }
    match errs.as_slice() {
        [] => Ok(()),
        [one] => Err(invalid(one)),
        many => Err(invalid(&format!("[{}]", many.join(", ")))),
    }
}

fn invalid(msg: &str) -> Error {
    Error::new(
        ErrorKind::InvalidComposition,
        format!("refusing to use invalid Composition: {msg}"),
    )
}
