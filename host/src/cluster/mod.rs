//! Cluster IO: read an XR (or claim), its Composition and observed state from a live API server,
//! render it, show the differences and server-side apply them.

pub(crate) mod apply;
pub(crate) mod client;
pub(crate) mod diff;
pub(crate) mod inputs;
pub(crate) mod plan;
pub(crate) mod render;

use std::fmt;

use anyhow::{anyhow, bail};
use serde_json::Value;

pub(crate) use client::ConnectOptions;
pub(crate) use inputs::{ClusterInputs, FetchOptions};

pub(crate) const COMPOSITE_LABEL: &str = "crossplane.io/composite";

/// What to read: `KIND/NAME` (a claim when the kind is namespaced).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    pub(crate) kind: String,
    pub(crate) name: String,
    pub(crate) namespace: Option<String>,
}

impl Target {
    pub(crate) fn parse(text: &str, namespace: Option<String>) -> anyhow::Result<Target> {
        match text.split_once('/') {
            Some((kind, name)) if !kind.is_empty() && !name.is_empty() && !name.contains('/') => {
                Ok(Target {
                    kind: kind.into(),
                    name: name.into(),
                    namespace,
                })
            }
            _ => bail!("expected KIND/NAME (e.g. xpostgresqlinstances/my-db), got {text:?}"),
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.kind, self.name)
    }
}

/// Connection and fetch options together.
#[derive(Debug, Clone)]
pub(crate) struct ClusterOptions {
    pub(crate) connect: ConnectOptions,
    pub(crate) fetch: FetchOptions,
}

/// Connects and reads everything a render of `target` needs; `inputs.request` is the engine
/// request.
pub(crate) async fn fetch_render_inputs(
    target: &Target,
    opts: &ClusterOptions,
) -> anyhow::Result<ClusterInputs> {
    let mut session = client::Session::connect(&opts.connect).await?;
    inputs::fetch(&mut session, target, &opts.fetch).await
}

/// Runs cluster IO from synchronous code.
pub(crate) fn block_on<F: Future>(fut: F) -> anyhow::Result<F::Output> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| anyhow!("cannot start the async runtime: {e}"))?;
    Ok(rt.block_on(fut))
}

/// The string at a JSON pointer, or "".
pub(crate) fn str_at<'a>(v: &'a Value, pointer: &str) -> &'a str {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::Target;

    #[test]
    fn targets_parse_kind_and_name() {
        let t = Target::parse("xbuckets.example.org/my-bucket", None).unwrap();
        assert_eq!(
            (t.kind.as_str(), t.name.as_str()),
            ("xbuckets.example.org", "my-bucket")
        );
        for bad in ["xbuckets", "/name", "kind/", "a/b/c"] {
            assert!(Target::parse(bad, None).is_err(), "{bad}");
        }
    }
}
