//! `render(request)`: composes the desired state from an XR, a Composition and observed state.
//!
//! This module only orchestrates: it decodes, picks the engine (`native` or
//! `patch_and_transform`), runs the Composition's resources or pipeline steps, and
//! assembles the Output (composite Ready condition, connection details, results).

mod auto_ready;
mod composition;
mod context;
mod decode;
mod decodings;
mod desired;
mod environment_configs;
mod function_ref;
mod members;
mod metadata;
mod native;
mod output;
mod patch_and_transform;
mod pipeline;
mod pipeline_options;
mod request;
mod shape;
mod snapshot;
mod state;
mod step;
mod v2;
mod validate;
mod wire;

use std::borrow::Cow;
use std::cmp::Ordering;

use crate::connection::Details;
use crate::error::{Error, ErrorKind, Result};
use crate::patch::environment;
use crate::readiness;
use crate::semantics::Semantics;
use crate::transform::Regexps;
use crate::value::{Map, Value};

pub(crate) use decodings::Decodings;
pub use output::Output;
pub use request::Request;
pub(crate) use request::{Documents, Level, Top, UNTIL_READY_ITERATIONS};

use composition::{Composition, PtInput};
pub(crate) use output::{Message, Severity};
pub(crate) use state::{FunctionState, NativeState, PipelineState, Positions, State};

/// Renders one XR with its Composition (`crate::tree::render` renders the nested XRs).
pub(crate) fn render_with(request: &Request, regexps: &Regexps) -> Result<Output> {
    let mut output = compose(request, regexps)?;
    output.inputs.clone_from(&request.inputs);
    Ok(output)
}

fn compose(request: &Request, regexps: &Regexps) -> Result<Output> {
    let sem = semantics_of(request);
    // `crossplane render` (v2) runs the pipeline on the XR as given: no pause check, and none
    // of the XR controller's labels and defaults.
    let v2 = is_v2(request, sem);
    // A paused XR is left exactly as it is: the reconciler stops before configuring it.
    if !v2
        && metadata::meta_entry(&request.xr, "annotations", metadata::ANNOTATION_PAUSED) == "true"
    {
        return Ok(paused(request.xr.clone(), request.options.trace));
    }
    let mut xr = request.xr.clone();
    if let Some(schema) = &request.xrd_schema {
        crate::documents::defaults::apply_schema(&mut xr, schema);
    }
    if !v2 {
        metadata::ensure_composite_label(&mut xr);
        metadata::default_connection_secret_ref(&mut xr, &request.composition)?;
    }

    let mut wired = None;
    let decoded = decodings::decoded(
        &request.composition,
        request.decodings.as_deref(),
        sem,
        &mut wired,
        regexps,
    )?;
    let composition = decoded.get();
    // Native renders change the XR in place; function renders keep the input XR for the output.
    let (state_xr, input_xr) = match sem {
        Semantics::Native => (xr, None),
        Semantics::Function => (wire::structured(&xr), Some(xr)),
    };
    let mut st = initial_state(request, sem, composition, state_xr);
    match composition {
        Composition::Resources(input) => run_input(&mut st, input)?,
        Composition::Pipeline(steps) => pipeline::run(&mut st, steps).map_err(|e| {
            // `crossplane render` wraps what stops its pipeline.
            if v2 {
                e.wrap("cannot render composite resource")
            } else {
                e
            }
        })?,
    }
    let steps = st.pipeline.steps.take().map(Value::Array);
    let mut output = if request.options.output == request::Shape::Function {
        step::output(st)
    } else if st.pipeline.fatal {
        fatal_output(st, input_xr)
    } else if st.native.failed_after_apply {
        failed_after_apply_output(st)
    } else {
        match input_xr {
            Some(input) if v2 => v2::finish(st, &input)?,
            _ => finish(st, input_xr)?,
        }
    };
    output.steps = steps;
    Ok(output)
}

/// Whether the Output is what Crossplane v2's `crossplane render` prints: a Pipeline in
/// function semantics (Crossplane v2 composes through functions alone).
fn is_v2(request: &Request, sem: Semantics) -> bool {
    request.options.pipeline.crossplane_v2
        && sem == Semantics::Function
        && request.options.output == request::Shape::Render
        && request
            .composition
            .get("spec")
            .and_then(|s| s.get("mode"))
            .and_then(Value::as_str)
            == Some("Pipeline")
}

/// The semantics a request renders with: as asked, else by the Composition's mode.
fn semantics_of(request: &Request) -> Semantics {
    let is_pipeline = request
        .composition
        .get("spec")
        .and_then(|s| s.get("mode"))
        .and_then(Value::as_str)
        == Some("Pipeline");
    request.options.semantics.unwrap_or(if is_pipeline {
        Semantics::Function
    } else {
        Semantics::Native
    })
}

/// The state before any template or step runs: the request's desired state,
/// the initial environment and the Function context.
fn initial_state<'r>(
    request: &'r Request,
    sem: Semantics,
    composition: &Composition,
    xr: Value,
) -> State<'r> {
    let mut observed = Map::new();
    if sem == Semantics::Function {
        for (name, o) in &request.observed.resources {
            observed.insert(name.clone(), wire::structured(&o.resource));
        }
    }
    let default_data = match composition {
        Composition::Resources(i) => i.default_data.as_deref(),
        Composition::Pipeline(_) => None,
    };
    let (mut context, context_env) = context::FnContext::new(request.context.clone());
    let mut env = environment::initial(default_data, request.observed.environment.as_ref(), sem);
    if let Some(e) = &context_env {
        let mut e = e.clone();
        e.floats_everywhere();
        environment::deep_merge(&mut env, &e);
    }
    if request.observed.environment.is_some() {
        context.set_environment();
    }
    State {
        sem,
        request,
        function: FunctionState {
            desired_xr: step::desired_xr(&request.desired, &xr),
            observed,
            held_back: false,
        },
        xr,
        env,
        resources: request.desired.resources.clone(),
        resource_at: Positions::of(request.desired.resources.iter().map(|r| &r.name)),
        details: request.desired.connection_details.clone(),
        detail_at: Positions::of(request.desired.connection_details.iter().map(|(k, _)| k)),
        results: Vec::new(),
        trace: request.options.trace.then(Vec::new),
        native: NativeState::default(),
        pipeline: PipelineState {
            context,
            steps: (request.options.pipeline.steps
                && matches!(composition, Composition::Pipeline(_)))
            .then(Vec::new),
            ..PipelineState::default()
        },
    }
}

/// Runs one set of templates with the selected engine. A function's errors
/// are Fatal results: they end the render, which then applies nothing.
pub(crate) fn run_input(st: &mut State<'_>, input: &PtInput) -> Result<()> {
    match st.sem {
        Semantics::Native => native::run(st, input),
        Semantics::Function => {
            if let Err(e) = patch_and_transform::run(st, input) {
                st.results.push(Message {
                    severity: Severity::Fatal,
                    message: e.message().to_owned(),
                    resource: e.context().resource.clone(),
                    patch: None,
                    field_path: None,
                    source: None,
                    step: st.pipeline.step.clone(),
                });
                st.pipeline.fatal = true;
            }
            Ok(())
        }
    }
}

/// The Output of a render a function ended with a Fatal result: Crossplane
/// fails the reconcile and applies nothing, so the XR is unchanged and no
/// composed resource or connection detail is produced.
fn fatal_output(st: State<'_>, input_xr: Option<Value>) -> Output {
    let context = output_context(&st);
    Output {
        composite: input_xr.unwrap_or(st.xr),
        resources: Vec::new(),
        connection_details: Details::new(),
        ready: false,
        context,
        result_steps: st.request.options.pipeline.result_steps,
        results: st.results,
        trace: st
            .trace
            .map(|t| t.into_iter().map(crate::trace::Entry::recorded).collect()),
        environment: None,
        inputs: None,
        composite_ready: None,
        nested: Vec::new(),
        iterations: None,
        steps: None,
    }
}

/// The Output of a native render whose reconcile failed after the apply step:
/// the composed resources as Crossplane applied them, the XR with the
/// environment and ToComposite patches that ran before the failure (its Ready
/// condition untouched: the reconcile ends before setting it), no connection
/// details (they are published only after a successful compose), and the
/// failure as the last, Fatal, result.
fn failed_after_apply_output(st: State<'_>) -> Output {
    let context = output_context(&st);
    Output {
        composite: st.xr,
        resources: st.resources,
        connection_details: Details::new(),
        ready: false,
        context,
        result_steps: st.request.options.pipeline.result_steps,
        results: st.results,
        trace: st
            .trace
            .map(|t| t.into_iter().map(crate::trace::Entry::recorded).collect()),
        environment: None,
        inputs: None,
        composite_ready: None,
        nested: Vec::new(),
        iterations: None,
        steps: None,
    }
}

/// The Function context for the Output, when the request asks for it.
fn output_context(st: &State<'_>) -> Option<Value> {
    st.request
        .options
        .pipeline
        .include_context
        .then(|| st.pipeline.context.to_value(&st.env))
}

fn paused(xr: Value, trace: bool) -> Output {
    let ready = readiness::condition_status(&xr, "Ready") == "True";
    Output {
        composite: xr,
        resources: Vec::new(),
        connection_details: Details::new(),
        ready,
        results: vec![Message {
            severity: Severity::Normal,
            message: "Reconciliation is paused via the pause annotation; nothing was rendered"
                .to_owned(),
            resource: None,
            patch: None,
            field_path: None,
            source: None,
            step: None,
        }],
        context: None,
        result_steps: false,
        trace: trace.then(Vec::new),
        environment: None,
        inputs: None,
        composite_ready: None,
        nested: Vec::new(),
        iterations: None,
        steps: None,
    }
}

/// Composite readiness, connection-detail filtering and the Output.
fn finish(mut st: State<'_>, input_xr: Option<Value>) -> Result<Output> {
    let sem = st.sem;
    let mut composite = match input_xr {
        None => std::mem::take(&mut st.xr),
        Some(xr) => with_desired_status(xr, &st.function.desired_xr),
    };
    let (ready, message) = composite_readiness(&st);
    // A desired XR whose status a patch made an array (or any non-object)
    // is returned as it is: no condition can be set inside it.
    let status_not_object = sem == Semantics::Function
        && st
            .function
            .desired_xr
            .get("status")
            .is_some_and(|s| !s.is_null() && s.as_object().is_none());
    if !status_not_object {
        readiness::set_ready_condition(
            &mut composite,
            ready,
            message,
            st.request.options.now.as_deref(),
        );
    }
    if sem == Semantics::Function {
        // Crossplane core renders composed-resource metadata after the pipeline.
        let owner = metadata::Owner::of(&composite);
        for r in &mut st.resources {
            metadata::render(&mut r.resource, &owner, Some(&r.name)).map_err(|e| {
                e.wrap(format!(
                    "cannot render metadata for composed resource {}",
                    crate::go::quote(&r.name)
                ))
                .with_resource(r.name.as_str())
            })?;
        }
    }
    Ok(finished(st, composite, ready))
}

/// The Output of a render that ran to its end: the connection details the XRD's keys keep
/// (all when it lists none), and the Function context when asked for.
pub(super) fn finished(mut st: State<'_>, composite: Value, ready: bool) -> Output {
    let context = output_context(&st);
    let mut details = std::mem::take(&mut st.details);
    if let Some(keys) = &st.request.options.connection_secret_keys
        && !keys.is_empty()
    {
        details.retain(|(k, _)| keys.contains(k));
    }
    Output {
        context,
        result_steps: st.request.options.pipeline.result_steps,
        composite,
        resources: st.resources,
        connection_details: details,
        ready,
        results: st.results,
        trace: st
            .trace
            .map(|t| t.into_iter().map(crate::trace::Entry::recorded).collect()),
        environment: None,
        inputs: None,
        composite_ready: None,
        nested: Vec::new(),
        iterations: None,
        steps: None,
    }
}

/// The input XR with the desired XR's status applied: all Crossplane takes
/// from a function's desired XR.
fn with_desired_status(mut xr: Value, desired_xr: &Value) -> Value {
    if let Some(status) = desired_xr.get("status") {
        let status = status
            .clone()
            .normalize()
            .unwrap_or_else(|_| status.clone());
        if let Value::Object(m) = &mut xr {
            let slot = m.get_or_insert_with("status", || Value::Object(crate::value::Map::new()));
            environment::deep_merge(slot, &status);
        }
    }
    xr
}

/// Whether the composite is ready, and the Ready condition's message when not.
pub(super) fn composite_readiness(st: &State<'_>) -> (bool, Option<String>) {
    let mut unready: Vec<String> = st
        .resources
        .iter()
        .filter(|r| !r.ready)
        .map(|r| r.name.clone())
        .collect();
    unready.extend(st.native.unrendered.iter().cloned());
    let ready = unready.is_empty() && !st.function.held_back;
    let message = if !unready.is_empty() {
        Some(readiness::unready_message(&mut unready))
    } else if st.function.held_back {
        Some("Composite resource was explicitly marked as unready by the composer".to_owned())
    } else {
        None
    };
    (ready, message)
}

/// [`applied_members`] with every member.
#[cfg(test)]
pub(crate) fn applied<'v>(observed: Option<&Value>, desired: &'v Value) -> Cow<'v, Value> {
    applied_members(observed, desired, None)
}

/// The object Crossplane reads after applying `desired` over `observed`
/// (a JSON merge patch: objects merge, `null` deletes, the rest replaces),
/// holding only the top-level members named in `only` (all when `None`):
/// what is read of it through those members reads the same, and the members
/// nothing reads are neither merged nor copied.
pub(crate) fn applied_members<'v>(
    observed: Option<&Value>,
    desired: &'v Value,
    only: Option<&[&str]>,
) -> Cow<'v, Value> {
    match observed {
        None => Cow::Borrowed(desired),
        Some(o) => Cow::Owned(merge_patched(o, desired, only)),
    }
}

/// What is read of the applied object through the members named in `only`:
/// [`applied_members`], or the observed object itself when `desired` has
/// none of those members, which then are all the observed ones, unmerged
/// (the status of most resources). Other members may differ: nothing reads them.
pub(crate) fn applied_view<'v>(
    observed: Option<&'v Value>,
    desired: &'v Value,
    only: Option<&[&str]>,
) -> Cow<'v, Value> {
    match (observed, desired, only) {
        (Some(o @ Value::Object(_)), Value::Object(d), Some(keys))
            if keys.iter().all(|k| d.get(k).is_none()) =>
        {
            Cow::Borrowed(o)
        }
        _ => applied_members(observed, desired, only),
    }
}

/// `target` with `patch` applied as a JSON merge patch, built in one pass:
/// members are taken from whichever side wins, so nothing `patch` replaces
/// is copied first, and both sides are walked in key order, so no member is
/// looked up or inserted into the middle of a map.
fn merge_patched(target: &Value, patch: &Value, only: Option<&[&str]>) -> Value {
    let Value::Object(p) = patch else {
        return patch.clone();
    };
    let empty = crate::value::Map::new();
    let t = match target {
        Value::Object(t) => t,
        _ => &empty,
    };
    let mut out = Vec::with_capacity(t.len().max(p.len()));
    let (mut ti, mut pi) = (t.iter().peekable(), p.iter().peekable());
    let skip = |k: &str| only.is_some_and(|keys| !keys.contains(&k));
    loop {
        let order = match (ti.peek(), pi.peek()) {
            (None, None) => break,
            (Some((tk, _)), _) if skip(tk) => {
                ti.next();
                continue;
            }
            (_, Some((pk, _))) if skip(pk) => {
                pi.next();
                continue;
            }
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (Some((tk, _)), Some((pk, _))) => tk.cmp(pk),
        };
        match order {
            Ordering::Less => {
                if let Some((k, v)) = ti.next() {
                    out.push((k.clone(), v.clone()));
                }
            }
            Ordering::Greater => {
                if let Some((k, v)) = pi.next()
                    && !v.is_null()
                {
                    out.push((k.clone(), merge_patched(&Value::Null, v, None)));
                }
            }
            Ordering::Equal => {
                if let (Some((k, tv)), Some((_, v))) = (ti.next(), pi.next())
                    && !v.is_null()
                {
                    out.push((k.clone(), merge_patched(tv, v, None)));
                }
            }
        }
    }
    Value::Object(crate::value::Map::from_sorted(out))
}

/// Fatal errors carry the `Render` kind even when a NotFound caused them.
pub(crate) fn fatal(e: Error) -> Error {
    if e.is_not_found() {
        e.with_kind(ErrorKind::Render)
    } else {
        e
    }
}

#[cfg(test)]
mod tests {
    use super::applied;
    use crate::value::Value;

    #[test]
    fn applied_is_a_json_merge_patch_of_desired_over_observed() {
        let v = |s: &str| Value::from_json(s).expect("valid JSON");
        let observed = v(r#"{"a":{"b":1,"c":2},"d":[1],"e":"x","s":{"ok":true}}"#);
        let desired = v(r#"{"a":{"b":9,"n":null},"d":[2],"e":null}"#);
        assert_eq!(
            *applied(Some(&observed), &desired),
            v(r#"{"a":{"b":9,"c":2},"d":[2],"s":{"ok":true}}"#)
        );
        assert_eq!(*applied(None, &desired), desired);
    }

    /// The patch applied in place, member by member (RFC 7386's pseudocode).
    fn merge_patch(target: &mut Value, patch: &Value) {
        let Value::Object(p) = patch else {
            *target = patch.clone();
            return;
        };
        if !matches!(target, Value::Object(_)) {
            *target = Value::Object(crate::value::Map::new());
        }
        let Value::Object(t) = target else { return };
        for (k, v) in p {
            if v.is_null() {
                t.remove(k);
            } else {
                merge_patch(t.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
    }

    /// Read through the members it is given, the view reads as the applied object.
    #[test]
    fn applied_view_reads_as_the_applied_members() {
        let v = |s: &str| Value::from_json(s).expect("valid JSON");
        let observed = v(r#"{"s":{"a":1},"t":2,"u":3}"#);
        let sides = [r#"{"t":9}"#, r#"{"s":null}"#, r#"{"s":{"b":2}}"#, "{}", "1"];
        for d in sides {
            let d = v(d);
            for only in [&["s"][..], &["s", "u"], &["t"], &[]] {
                let view = super::applied_view(Some(&observed), &d, Some(only));
                let whole = super::applied_members(Some(&observed), &d, Some(only));
                for k in only {
                    assert_eq!(view.get(k), whole.get(k), "{d:?} {only:?} {k}");
                }
                assert_eq!(view.as_object().is_some(), whole.as_object().is_some());
            }
        }
    }

    #[test]
    fn applied_agrees_with_merging_in_place() {
        let v = |s: &str| Value::from_json(s).expect("valid JSON");
        let sides = [
            "null",
            "1",
            "[1,{\"a\":null}]",
            "{}",
            r#"{"a":{"b":1,"c":{"d":2}},"e":"x","z":[1]}"#,
            r#"{"a":{"b":null,"c":{"d":null,"e":{"f":null}}},"b":null,"e":{"x":null}}"#,
            r#"{"0":1,"a":2,"b":{"c":null},"zz":{}}"#,
        ];
        for o in sides {
            for d in sides {
                let (o, d) = (v(o), v(d));
                let mut want = o.clone();
                merge_patch(&mut want, &d);
                assert_eq!(*applied(Some(&o), &d), want, "{o:?} {d:?}");
                // Restricted to some members, it holds exactly those of the whole.
                for only in [&["a", "zz"][..], &["b"], &[]] {
                    let mut part = want.clone();
                    if let Value::Object(m) = &mut part {
                        m.retain(|k, _| only.contains(&k.as_str()));
                    }
                    let got = super::applied_members(Some(&o), &d, Some(only));
                    assert_eq!(*got, part, "{o:?} {d:?} {only:?}");
                }
            }
        }
    }
}
