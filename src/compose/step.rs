//! One function step's view: the desired state earlier pipeline steps left
//! (`desired` in the request) and the step's own answer (`options.output: function`).
//!
//! A composition function receives the desired state accumulated so far and
//! returns it changed; Crossplane core, not the function, then applies the
//! desired XR's status, the Ready condition and composed-resource metadata.
//! This is what `xprender function serve` answers over gRPC.

use crate::value::{Map, Value};

use super::desired::Desired;

/// The desired XR a step starts from: what earlier steps desired, with the
/// observed XR's apiVersion and kind (function-patch-and-transform sets both).
pub(crate) fn desired_xr(desired: &Desired, observed_xr: &Value) -> Value {
    let mut m = match &desired.composite {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    for k in ["apiVersion", "kind"] {
        match observed_xr.get(k) {
            Some(v) => m.insert(k.to_owned(), v.clone()),
            None => m.remove(k),
        };
    }
    Value::Object(m)
}

/// The step's answer. A Fatal result returns the desired state the step was
/// given, untouched, as function-patch-and-transform does (`response.To`).
pub(crate) fn output(st: super::State<'_>) -> super::Output {
    let trace = st
        .trace
        .map(|t| t.into_iter().map(crate::trace::Entry::recorded).collect());
    if st.pipeline.fatal {
        let given = &st.request.desired;
        return super::Output {
            composite: given
                .composite
                .clone()
                .unwrap_or_else(|| Value::Object(Map::new())),
            resources: given.resources.clone(),
            connection_details: given.connection_details.clone(),
            ready: false,
            results: st.results,
            trace,
            environment: st.request.observed.environment.clone(),
            context: None,
            result_steps: st.request.options.pipeline.result_steps,
            inputs: None,
            composite_ready: None,
            nested: Vec::new(),
            iterations: None,
            steps: None,
        };
    }
    let ready = !st.function.held_back && st.resources.iter().all(|r| r.ready);
    super::Output {
        composite: st.function.desired_xr,
        resources: st.resources,
        connection_details: st.details,
        ready,
        results: st.results,
        trace,
        environment: Some(st.env),
        context: None,
        result_steps: st.request.options.pipeline.result_steps,
        inputs: None,
        // function-patch-and-transform marks the XR unready when it held a resource back.
        composite_ready: st.function.held_back.then_some(false),
        nested: Vec::new(),
        iterations: None,
        steps: None,
    }
}
