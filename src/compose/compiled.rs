//! Plans compiled from a kept Composition, made once and reused by every render of it.
//!
//! A Composition's plan (`input::decode_composition`) depends only on the
//! Composition and the semantics it renders with, so a live instance keeps one
//! per semantics next to the Composition it read (`crate::plan`), owning what
//! the plan of a single render borrows from the Composition. A render runs the
//! kept plan or decodes one at the moment it always did; either way it runs
//! the same decoding and the same plan, and a Composition that fails to decode
//! fails every render with the same error at the same point.

use std::sync::{Arc, OnceLock};

use crate::error::Result;
use crate::semantics::Semantics;
use crate::value::Value;

use super::input::{self, Plan, Request};
use super::wire;

/// The plans of one Composition, compiled on first use: one per semantics.
#[derive(Default)]
pub(crate) struct Compiled([OnceLock<Result<Arc<Plan<'static>>>>; 2]);

impl Compiled {
    fn slot(&self, sem: Semantics) -> &OnceLock<Result<Arc<Plan<'static>>>> {
        match sem {
            Semantics::Native => &self.0[0],
            Semantics::Function => &self.0[1],
        }
    }

    /// How many plans have been compiled (failed ones included).
    pub(crate) fn count(&self) -> usize {
        self.0.iter().filter(|p| p.get().is_some()).count()
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

/// A render's plan: kept with the Composition, or decoded for this render only.
pub(super) enum PlanOf<'r> {
    Kept(Arc<Plan<'static>>),
    Fresh(Plan<'r>),
}

impl<'r> PlanOf<'r> {
    pub(super) fn get(&self) -> &Plan<'r> {
        match self {
            PlanOf::Kept(p) => p,
            PlanOf::Fresh(p) => p,
        }
    }
}

/// The request's Composition decoded for `sem`: the plan kept with the
/// Composition when the instance keeps one for it, else decoded from
/// `source` (where the function's wire form of the Composition is put).
pub(super) fn plan<'r>(
    request: &'r Request,
    sem: Semantics,
    source: &'r mut Option<Value>,
) -> Result<PlanOf<'r>> {
    if let Some(c) = &request.compiled {
        let compile = || {
            let mut wired = None;
            decode(&request.composition, sem, &mut wired).map(|p| Arc::new(p.into_owned()))
        };
        return c.slot(sem).get_or_init(compile).clone().map(PlanOf::Kept);
    }
    decode(&request.composition, sem, source).map(PlanOf::Fresh)
}

fn decode<'v>(
    composition: &'v Value,
    sem: Semantics,
    wired: &'v mut Option<Value>,
) -> Result<Plan<'v>> {
    match sem {
        Semantics::Native => input::decode_composition(composition, sem),
        // FN's input crosses the wire as a protobuf Struct, like everything else it reads.
        Semantics::Function => {
            input::decode_composition(wired.insert(wire::input(composition)), sem)
        }
    }
}
