//! Composition impact analysis: which composite resources a new or changed Composition reaches
//! once applied, and what rendering each with it would change.

pub(crate) mod adopt;
pub(crate) mod scope;
