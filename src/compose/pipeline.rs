//! `spec.mode: Pipeline`: the steps run in order, each seeing the previous
//! steps' desired state and Function context.

use crate::error::{Error, ErrorKind, Result};
use crate::go::quote;
use crate::sort::repeats;

use super::composition::Step;
use super::decode::PT_API_VERSION;
use super::function_ref::{self, Implementation, Unsupported};
use super::output::{Message, Severity};
use super::{State, auto_ready, environment_configs, run_input};

/// Runs every step with the function it names: patch-and-transform,
/// environment-configs and auto-ready are emulated; any other function is an
/// error unless `options.skipUnsupported` makes it a warning.
pub(super) fn run(st: &mut State<'_>, steps: &[Step]) -> Result<()> {
    validate(steps)?;
    for s in steps {
        st.pipeline.step = Some(s.name.to_owned());
        let first_result = st.results.len();
        let implementation = match function_ref::resolve(
            s.as_ref(),
            &st.request.options.pipeline.functions,
        ) {
            Ok(i) => i,
            Err(Unsupported::Unknown(e)) => return Err(e),
            Err(Unsupported::NotEmulated { what }) => {
                if !st.request.options.pipeline.skip_unsupported {
                    return Err(Error::new(
                        ErrorKind::Render,
                        format!(
                            "cannot run pipeline step {}: {what} cannot be rendered: only function-patch-and-transform, function-environment-configs and function-auto-ready are emulated (skip unsupported steps to render without it)",
                            quote(&s.name)
                        ),
                    ));
                }
                let msg = format!(
                    "pipeline step {} ({what}) was not run: only function-patch-and-transform, function-environment-configs and function-auto-ready can be rendered, so this step's changes are missing",
                    quote(&s.name)
                );
                st.warn(msg, None);
                super::snapshot::record(st, &s.name, first_result);
                continue;
            }
        };
        match implementation {
            Implementation::PatchAndTransform => match &s.input {
                Some(input) => {
                    run_input(st, input)?;
                    st.pipeline.context.set_environment();
                }
                None => fatal(
                    st,
                    format!(
                        "cannot get Function input: input of pipeline step {} is not a {PT_API_VERSION} Resources",
                        quote(&s.name)
                    ),
                ),
            },
            Implementation::EnvironmentConfigs => {
                if let Err(e) = environment_configs::run(st, s.raw_input.as_deref()) {
                    fatal(st, e.message().to_owned());
                }
            }
            Implementation::AutoReady => auto_ready::run(st),
        }
        super::snapshot::record(st, &s.name, first_result);
        if st.stopped() {
            break;
        }
    }
    st.pipeline.step = None;
    Ok(())
}

/// A function's Fatal result: it ends the render, which then applies nothing.
fn fatal(st: &mut State<'_>, message: String) {
    st.results.push(Message {
        severity: Severity::Fatal,
        message,
        resource: None,
        patch: None,
        field_path: None,
        source: None,
        step: st.pipeline.step.clone(),
    });
    st.pipeline.fatal = true;
}

/// The Composition's own pipeline validation (`validateMode`, `validatePipeline`).
fn validate(steps: &[Step]) -> Result<()> {
    let mut errs = Vec::new();
    if steps.is_empty() {
        errs.push(
            "spec.pipeline: Required value: an array of pipeline steps is required in Pipeline mode"
                .to_owned(),
        );
    }
    let names: Vec<&str> = steps.iter().map(|s| s.name.as_str()).collect();
    for ((i, s), repeated) in steps.iter().enumerate().zip(repeats(&names)) {
        if repeated {
            errs.push(format!(
                "spec.pipeline[{i}].step: Duplicate value: {}",
                quote(&s.name)
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
