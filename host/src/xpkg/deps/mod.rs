//! Dependency resolution: from a package, the versions of everything it needs, recursively,
//! each the highest tag that satisfies every constraint on it (a digest pins one image), and
//! the install order (dependencies first).
//!
//! Packages are named by their repository (`registry/path`, no tag). Legacy packages name the
//! CRDs they need instead of packages; an index of package contents maps those to packages.
//!
//! `model` holds what resolution reads and answers, `manifest` reads a package's needs,
//! `index` maps CRDs to the packages owning them, `resolver` chooses the versions, `order`
//! sorts them for installing and `print` shows the graph.

mod catalog;
pub(crate) mod index;
mod manifest;
mod model;
mod order;
mod print;
mod resolver;
#[cfg(test)]
mod tests;

pub(crate) use catalog::Catalog;
pub(crate) use manifest::needs_of;
pub(crate) use model::{Fetched, Graph, Need, Resolved, Root, is_digest};
pub(crate) use resolver::resolve;
