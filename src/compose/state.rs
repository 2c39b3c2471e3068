//! The state a render accumulates, split by who owns each part: what every
//! render shares, what only native or only function semantics track, and
//! what a pipeline tracks across its steps.

use std::collections::BTreeMap;

use super::context::FnContext;
use super::output::{Message, Rendered, Severity};
use super::request::Request;
use crate::connection::Details;
use crate::error::Error;
use crate::patch::Patch;
use crate::semantics::Semantics;
use crate::trace::PatchTrace;
use crate::value::{Map, Value};

/// Everything a render accumulates while templates and steps run.
pub(crate) struct State<'r> {
    pub(crate) sem: Semantics,
    pub(crate) request: &'r Request,
    /// Native: the in-memory XR that environment and ToComposite patches change.
    /// Function: the observed XR (numbers as floats), read-only.
    pub(crate) xr: Value,
    pub(crate) env: Value,
    pub(crate) resources: Vec<Rendered>,
    /// Where each of `resources` is, by name, so that setting one stays O(log n).
    pub(crate) resource_at: Positions,
    pub(crate) details: Details,
    /// Where each of `details` is, by key.
    pub(crate) detail_at: Positions,
    pub(crate) results: Vec<Message>,
    pub(crate) trace: Option<Vec<PatchTrace>>,
    /// What only native renders track.
    pub(crate) native: NativeState,
    /// What only function renders track.
    pub(crate) function: FunctionState,
    /// What pipeline steps track, whichever semantics runs them.
    pub(crate) pipeline: PipelineState,
}

/// A native render's own progress.
#[derive(Default)]
pub(crate) struct NativeState {
    /// Templates that could not be rendered (they count as unready).
    pub(crate) unrendered: Vec<String>,
    /// The reconcile failed after the composed resources were applied.
    pub(crate) failed_after_apply: bool,
}

/// A function render's own state, as function-patch-and-transform sees it.
pub(crate) struct FunctionState {
    /// The desired XR that ToComposite patches write (status is applied).
    pub(crate) desired_xr: Value,
    /// Observed composed resources with float numbers.
    pub(crate) observed: Map,
    /// A new resource was held back by a Required patch.
    pub(crate) held_back: bool,
}

/// A pipeline's progress through its steps.
#[derive(Default)]
pub(crate) struct PipelineState {
    /// The step running, named in results and traces.
    pub(crate) step: Option<String>,
    /// A step returned a Fatal result; nothing is applied.
    pub(crate) fatal: bool,
    /// The Function context besides the environment.
    pub(crate) context: FnContext,
    /// The desired state after each step and its results, when `options.steps` asks for it.
    pub(crate) steps: Option<Vec<Value>>,
}

impl State<'_> {
    pub(crate) fn warn(&mut self, message: String, resource: Option<&str>) {
        self.results.push(Message {
            severity: Severity::Warning,
            message,
            resource: resource.map(str::to_owned),
            patch: None,
            field_path: None,
            source: None,
            step: self.pipeline.step.clone(),
        });
    }

    /// A native reconcile failed after Crossplane applied the composed resources
    /// (ToComposite patches, connection details, readiness): a Fatal result that
    /// names where, and the render stops with what was applied.
    pub(crate) fn fail_after_apply(&mut self, e: &Error) {
        let ctx = e.context();
        self.results.push(Message {
            severity: Severity::Fatal,
            message: e.message().to_owned(),
            resource: ctx.resource.clone(),
            patch: ctx.patch.clone(),
            field_path: ctx.field_path.clone(),
            source: ctx.source.clone(),
            step: self.pipeline.step.clone(),
        });
        self.native.failed_after_apply = true;
    }

    /// Whether the render has ended: a Fatal function result or a failed native reconcile.
    pub(crate) fn stopped(&self) -> bool {
        self.pipeline.fatal || self.native.failed_after_apply
    }

    /// A trace entry for a patch about to run, when tracing.
    pub(crate) fn start_trace(
        &self,
        resource: Option<&str>,
        index: usize,
        p: &Patch,
        from: &'static str,
        to: &'static str,
    ) -> Option<PatchTrace> {
        self.trace.as_ref()?;
        Some(PatchTrace {
            step: self.pipeline.step.clone(),
            resource: resource.map(str::to_owned),
            index,
            source: p.source.to_string(),
            kind: p.kind.as_str().to_owned(),
            from_object: from,
            to_object: to,
            from_policy: p
                .policy
                .from_field_path
                .as_deref()
                .unwrap_or("Optional")
                .to_owned(),
            to_policy: p.policy.describe(self.sem),
            ..PatchTrace::default()
        })
    }

    /// Records patches that never ran, with the reason.
    pub(crate) fn trace_not_run<'p, 'a: 'p>(
        &mut self,
        resource: Option<&str>,
        patches: impl Iterator<Item = (usize, &'p &'p Patch<'a>)>,
        reason: &str,
    ) {
        if self.trace.is_none() {
            return;
        }
        for (i, p) in patches {
            let mut t = self.start_trace(resource, i, p, "-", "-");
            if let Some(t) = t.as_mut() {
                t.finish(crate::trace::Outcome::NotRun, reason);
            }
            self.end_trace(t);
        }
    }

    pub(crate) fn end_trace(&mut self, t: Option<PatchTrace>) {
        if let (Some(list), Some(t)) = (self.trace.as_mut(), t) {
            list.push(t);
        }
    }

    /// Sets or replaces a desired composed resource, keeping its first position.
    pub(crate) fn put_resource(&mut self, r: Rendered) {
        // A later pipeline step may render what an earlier one could not.
        if !self.native.unrendered.is_empty() {
            self.native.unrendered.retain(|n| *n != r.name);
        }
        match self.resource_at.get(&r.name) {
            Some(i) => self.resources[i] = r,
            None => {
                self.resource_at.insert(&r.name, self.resources.len());
                self.resources.push(r);
            }
        }
    }

    /// The desired composed resource named `name`.
    pub(crate) fn resource(&self, name: &str) -> Option<&Rendered> {
        self.resource_at.get(name).map(|i| &self.resources[i])
    }

    pub(crate) fn add_details(&mut self, d: Details) {
        for (k, v) in d {
            match self.detail_at.get(&k) {
                Some(i) => self.details[i].1 = v,
                None => {
                    self.detail_at.insert(&k, self.details.len());
                    self.details.push((k, v));
                }
            }
        }
    }
}

/// Each name's position in a list of unique names.
///
/// A B-tree: names arrive in template order, which is not their sorted order
/// (`r10` comes between `r1` and `r2`), and inserting into a sorted vector
/// moves half of it each time, quadratic in the number of resources.
#[derive(Default)]
pub(crate) struct Positions(BTreeMap<String, usize>);

impl Positions {
    pub(crate) fn of<'a>(names: impl Iterator<Item = &'a String>) -> Positions {
        let mut at = Positions::default();
        for (i, n) in names.enumerate() {
            at.insert(n, i);
        }
        at
    }

    fn get(&self, name: &str) -> Option<usize> {
        self.0.get(name).copied()
    }

    fn insert(&mut self, name: &str, i: usize) {
        self.0.insert(name.to_owned(), i);
    }
}
