//! The desired state after each pipeline step (`options.steps`): the desired XR and composed
//! resources (with their readiness) as the step left them, and the results it added.

use crate::semantics::Semantics;
use crate::value::{Map, Value};

use super::State;
use super::output::results_value;

/// Records the desired state as `step` left it, with the results it added since
/// `first_result`; nothing unless the request asks for steps.
pub(super) fn record(st: &mut State<'_>, step: &str, first_result: usize) {
    if st.pipeline.steps.is_none() {
        return;
    }
    let composite = match st.sem {
        Semantics::Function => st.function.desired_xr.clone(),
        Semantics::Native => st.xr.clone(),
    };
    let mut resources = Map::new();
    for r in &st.resources {
        let mut entry = Map::new();
        entry.insert("resource".into(), r.resource.clone());
        entry.insert("ready".into(), Value::Bool(r.ready));
        resources.insert(r.name.clone(), Value::Object(entry));
    }
    let mut desired = Map::new();
    desired.insert("composite".into(), composite);
    desired.insert("resources".into(), Value::Object(resources));
    let mut entry = Map::new();
    entry.insert("step".into(), step.into());
    entry.insert("desired".into(), Value::Object(desired));
    let results = st.results.get(first_result..).unwrap_or_default();
    entry.insert("results".into(), results_value(results, false));
    if let Some(list) = st.pipeline.steps.as_mut() {
        list.push(Value::Object(entry));
    }
}
