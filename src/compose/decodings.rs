//! The decoded forms of a kept Composition, made once and reused by every render of it.
//!
//! A Composition's decoded form (`decode::composition`) depends only on the
//! Composition and the semantics it renders with, so an engine keeps one per
//! semantics next to the Composition it read (`crate::engine`), owning what the
//! decoding of a single render borrows from the Composition. A render runs the
//! kept decoding or decodes one at the moment it always did; either way it runs
//! the same decoding, and a Composition that fails to decode fails every render
//! with the same error at the same point.

use std::sync::{Arc, OnceLock};

use crate::error::Result;
use crate::semantics::Semantics;
use crate::transform::Regexps;
use crate::value::Value;

use super::composition::Composition;
use super::{decode, wire};

/// The decodings of one Composition, made on first use: one per semantics.
#[derive(Default)]
pub(crate) struct Decodings([OnceLock<Result<Arc<Composition<'static>>>>; 2]);

impl Decodings {
    fn slot(&self, sem: Semantics) -> &OnceLock<Result<Arc<Composition<'static>>>> {
        match sem {
            Semantics::Native => &self.0[0],
            Semantics::Function => &self.0[1],
        }
    }

    /// How many decodings have been made (failed ones included).
    pub(crate) fn count(&self) -> usize {
        self.0.iter().filter(|p| p.get().is_some()).count()
    }
}

// A decoding is a function of the Composition: requests sharing one are equal in it.
impl PartialEq for Decodings {
    fn eq(&self, _: &Decodings) -> bool {
        true
    }
}

impl std::fmt::Debug for Decodings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Decodings")
    }
}

/// A render's decoded Composition: kept with the Composition, or decoded for this render only.
pub(super) enum Decoded<'r> {
    Kept(Arc<Composition<'static>>),
    Fresh(Composition<'r>),
}

impl<'r> Decoded<'r> {
    pub(super) fn get(&self) -> &Composition<'r> {
        match self {
            Decoded::Kept(c) => c,
            Decoded::Fresh(c) => c,
        }
    }
}

/// A request's `composition` decoded for `sem`: the decoding kept with it
/// when the engine keeps its `decodings`, else decoded from `source` (where
/// the function's wire form of the Composition is put).
pub(super) fn decoded<'r>(
    composition: &'r Value,
    decodings: Option<&Decodings>,
    sem: Semantics,
    source: &'r mut Option<Value>,
    regexps: &Regexps,
) -> Result<Decoded<'r>> {
    if let Some(c) = decodings {
        let decode = || {
            let mut wired = None;
            decode(composition, sem, &mut wired, regexps).map(|c| Arc::new(c.into_owned()))
        };
        return c.slot(sem).get_or_init(decode).clone().map(Decoded::Kept);
    }
    decode(composition, sem, source, regexps).map(Decoded::Fresh)
}

fn decode<'v>(
    composition: &'v Value,
    sem: Semantics,
    wired: &'v mut Option<Value>,
    regexps: &Regexps,
) -> Result<Composition<'v>> {
    match sem {
        Semantics::Native => decode::composition(composition, sem, regexps),
        // FN's input crosses the wire as a protobuf Struct, like everything else it reads.
        Semantics::Function => {
            decode::composition(wired.insert(wire::input(composition)), sem, regexps)
        }
    }
}
