//! function-auto-ready: a desired composed resource that no earlier step marked
//! ready is ready when its observed resource has the condition `Ready: True`.
//! The XR's readiness then follows from its resources as usual.

use crate::readiness;

use super::State;

pub(crate) fn run(st: &mut State<'_>) {
    let observed = &st.request.observed.resources;
    for r in &mut st.resources {
        if r.ready {
            continue;
        }
        if let Some(o) = observed.get(&r.name)
            && readiness::condition_status(&o.resource, "Ready") == "True"
        {
            r.ready = true;
        }
    }
}
