//! Where resolution gets tags and package images: the registry, or memory in tests.

use anyhow::Result;

use super::model::Fetched;

/// Where tags and package images come from.
pub(crate) trait Catalog {
    /// Every tag of a repository.
    fn tags(&mut self, package: &str) -> Result<Vec<String>>;
    /// A package image by tag or `sha256:` digest.
    fn fetch(&mut self, package: &str, version: &str) -> Result<Fetched>;
}
