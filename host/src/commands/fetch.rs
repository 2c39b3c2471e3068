//! The registry flags of every command that pulls packages.

use std::path::PathBuf;

use crate::xpkg::{self, Limits, Options};

#[derive(Debug, clap::Args)]
pub(crate) struct FetchArgs {
    /// Use plain http for the registry (loopback registries use it without this flag).
    #[arg(long)]
    pub(crate) insecure: bool,
    /// The blob cache directory [default: $XPRENDER_CACHE_DIR, else $XDG_CACHE_HOME/xprender].
    #[arg(long, value_name = "DIR")]
    pub(crate) cache_dir: Option<PathBuf>,
    /// Largest compressed layer accepted, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().max_layer_bytes)]
    pub(crate) max_layer_size: u64,
    /// Largest total of decompressed layer content accepted, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().max_unpacked_bytes)]
    pub(crate) max_unpacked_size: u64,
    /// Longest wait for the registry: to connect, and between two reads of an answer
    /// (seconds).
    #[arg(long, value_name = "SECONDS", default_value_t = xpkg::DEFAULT_REGISTRY_TIMEOUT.as_secs())]
    pub(crate) registry_timeout: u64,
}

impl FetchArgs {
    pub(crate) fn options(&self) -> Options {
        Options {
            insecure: self.insecure,
            cache_dir: self
                .cache_dir
                .clone()
                .unwrap_or_else(xpkg::Cache::default_dir),
            timeout: std::time::Duration::from_secs(self.registry_timeout.max(1)),
            limits: Limits {
                max_layer_bytes: self.max_layer_size,
                max_unpacked_bytes: self.max_unpacked_size,
            },
        }
    }
}
