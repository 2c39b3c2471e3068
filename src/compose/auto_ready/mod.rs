//! function-auto-ready v0.7.0: a desired composed resource that no earlier step
//! marked ready is ready when its observed resource passes the health check
//! registered for its kind, or else has the condition `Ready: True`. The
//! function sets nothing else; the XR's readiness follows from its resources.

mod health;
mod typed;

use crate::readiness;

use super::State;

pub(crate) fn run(st: &mut State<'_>) {
    let observed = &st.request.observed.resources;
    for r in &mut st.resources {
        // No emulated step marks a resource unready, so `false` is "unspecified".
        if r.ready {
            continue;
        }
        let Some(o) = observed.get(&r.name) else {
            continue;
        };
        // A failing health check leaves readiness unspecified, and the
        // function's last pass still reads the Ready condition.
        r.ready = health::check(&o.resource) == Some(true)
            || readiness::condition_status(&o.resource, "Ready") == "True";
    }
}
