//! Plans compiled from a kept Composition, made once and reused by every render of it.
//!
//! A Composition's plan (`input::decode_composition`) depends only on the
//! Composition and the semantics it renders with, so a live instance keeps one
//! per semantics next to the Composition it read (`crate::plan`). A render
//! takes the kept plan, or compiles it at the moment it always did; either way
//! it runs the same plan, and a Composition that fails to compile fails every
//! render with the same error at the same point.

use std::sync::{Arc, OnceLock};

use crate::error::Result;
use crate::semantics::Semantics;
use crate::value::Value;

use super::input::{self, Plan, Request};
use super::wire;

/// The plans of one Composition, compiled on first use: one per semantics.
#[derive(Default)]
pub(crate) struct Compiled([OnceLock<Result<Arc<Plan>>>; 2]);

impl Compiled {
    /// How many plans have been compiled (failed ones included).
    pub(crate) fn count(&self) -> usize {
        self.0.iter().filter(|p| p.get().is_some()).count()
    }

    fn slot(&self, sem: Semantics) -> &OnceLock<Result<Arc<Plan>>> {
        match sem {
            Semantics::Native => &self.0[0],
            Semantics::Function => &self.0[1],
        }
    }
}

// A plan is a function of the Composition: requests sharing one are equal in it.
impl PartialEq for Compiled {
    fn eq(&self, _: &Compiled) -> bool {
        true
    }
}

impl std::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Compiled")
    }
}

/// The request's Composition compiled for `sem`: kept with the Composition when
/// the instance keeps it, else compiled for this render.
pub(super) fn plan(request: &Request, sem: Semantics) -> Result<Arc<Plan>> {
    let compile = || compile(&request.composition, sem).map(Arc::new);
    match &request.compiled {
        Some(c) => c.slot(sem).get_or_init(compile).clone(),
        None => compile(),
    }
}

fn compile(composition: &Value, sem: Semantics) -> Result<Plan> {
    match sem {
        Semantics::Native => input::decode_composition(composition, sem),
        // FN's input crosses the wire as a protobuf Struct, like everything else it reads.
        Semantics::Function => input::decode_composition(&wire::input(composition), sem),
    }
}
