//! The whole tree of a documents request: nested XRs rendered with their own Compositions
//! down to the leaves, and the iterations that feed each render back as the observed state.
//!
//! Crossplane reconciles each XR on its own; a nested XR is a composed resource of its parent
//! that the XR controller then composes with its own Composition. A documents request that
//! gives the nested XRs' Compositions (and XRDs) is rendered level by level here, each level
//! seeing its own observed resources ([`crate::documents::levels`]).

mod changes;
mod iterate;
mod merge;
mod nest;
mod simulate;
mod writers;

use crate::compose::{Output, Request};
use crate::error::Result;
use crate::transform::Regexps;

/// Renders a request.
///
/// A render that Crossplane fails after it has applied the composed resources
/// (a native ToComposite patch, connection detail or readiness check) is an
/// `Ok` Output with those resources and a Fatal result, as is a function's
/// Fatal result. A documents request renders its nested XRs too, and iterates
/// when its options ask for it (see `docs/render.md`).
///
/// # Errors
/// A render that cannot proceed before anything is applied: an invalid
/// request or Composition, a native environment patch or base that fails.
pub fn render(request: &Request) -> Result<Output> {
    render_with(request, &Regexps::default())
}

/// Renders a request: a request of parts as it is, a documents request with its tree.
pub(crate) fn render_with(request: &Request, regexps: &Regexps) -> Result<Output> {
    match &request.tree {
        Some(level)
            if level.documents.tree.iterations.is_some() || level.documents.tree.until_ready =>
        {
            iterate::run(request, regexps)
        }
        Some(_) => nest::render(request, regexps),
        None => crate::compose::render_with(request, regexps),
    }
}
