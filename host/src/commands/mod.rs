//! One module per subcommand.

pub(crate) mod cluster;
pub(crate) mod completions;
pub(crate) mod composition;
pub(crate) mod crossplane_render;
pub(crate) mod fetch;
pub(crate) mod function;
pub(crate) mod impact;
pub(crate) mod module;
pub(crate) mod packages;
pub(crate) mod playground;
pub(crate) mod render;
pub(crate) mod review;
pub(crate) mod test;
pub(crate) mod validate;
pub(crate) mod version;
pub(crate) mod xpkg;

use std::fmt;

/// Rendered (or nothing to do).
pub(crate) const EXIT_OK: u8 = 0;
/// The render failed.
pub const EXIT_RENDER: u8 = 1;
/// Usage or input error.
pub(crate) const EXIT_USAGE: u8 = 2;

/// A render that ran and failed (an engine error, a Fatal result, a sandbox limit): exit 1.
#[derive(Debug)]
pub(crate) struct RenderFailed(pub(crate) String);

impl fmt::Display for RenderFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RenderFailed {}

/// A failure of a render answering as `crossplane render`, in its words: printed as
/// `<program>: error: <message>`, exit 1.
#[derive(Debug)]
pub struct CrossplaneFailed(pub(crate) String);

impl fmt::Display for CrossplaneFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CrossplaneFailed {}

/// The exit code for an error that reached `main`: input problems are usage errors (2),
/// everything else means the render could not be done (1).
pub fn exit_code(e: &anyhow::Error) -> u8 {
    if e.downcast_ref::<crate::io::InputError>().is_some() {
        EXIT_USAGE
    } else {
        EXIT_RENDER
    }
}
