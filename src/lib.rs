//! xprender: Crossplane's composition engine (patch and transform) as a pure function.
//!
//! [`render`] takes a composite resource (XR), a Composition and the observed
//! state, and returns the desired state exactly as Crossplane would compose it:
//! patches, transforms, readiness and connection details. It does no I/O, reads
//! no clock and draws no random numbers, so the same request gives the same
//! bytes natively, in wasmtime, in wazero and in a browser.
//!
//! The JSON contract ([`render_json`]) is what every host speaks; it is
//! documented in `docs/render.md`.

mod bytes;
mod compose;
mod connection;
mod documents;
mod engine;
mod error;
mod fieldpath;
mod fmt;
mod go;
pub mod model;
mod patch;
mod readiness;
mod semantics;
#[cfg(feature = "serde")]
mod serde;
mod sort;
mod trace;
mod transform;
mod tree;
mod value;

#[doc(hidden)]
pub mod testing;

#[cfg(target_arch = "wasm32")]
#[cfg(not(feature = "web"))]
mod abi;
#[cfg(feature = "web")]
mod web;

#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
mod alloc;

#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: alloc::SizeClasses = alloc::SizeClasses::new();

pub use compose::{Output, Request};
pub use engine::Engine;
pub use error::{Context, Error, ErrorKind, Result};
pub use semantics::Semantics;
pub use tree::render;
pub use value::{Map, ParseError, Value, map};

/// The version of the engine.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Applies the `openAPIV3Schema` defaults of a CRD or XRD (`spec.versions[].schema`, of the
/// version `object`'s apiVersion names) to `object`, as the API server's structural defaulting
/// does and as the engine defaults an XR. For hosts that predict what the API server stores.
pub fn apply_schema_defaults(object: &mut Value, definition: &Value) {
    documents::defaults::apply(object, definition);
}

/// Renders a request given as the contract's JSON text; returns the Output
/// document, or an error document `{"error": {"kind", "message", "context"}}`.
///
/// Never panics on any input: every failure is an error document.
///
/// Renders with a fresh [`Engine`]: a caller that renders the same Composition
/// again keeps an engine and calls [`Engine::render_json`], which reads and
/// decodes a Composition once; the Output is the same either way.
#[must_use]
pub fn render_json(request: &str) -> String {
    Engine::new().render_json(request)
}

/// The error document hosts receive for a failed render.
#[must_use]
pub fn error_document(e: &Error) -> String {
    let mut context = Map::new();
    let c = e.context();
    if let Some(r) = &c.resource {
        context.insert("resource".into(), r.as_str().into());
    }
    if let Some((i, t)) = &c.patch {
        context.insert("patchIndex".into(), Value::Int(to_i64(*i)));
        context.insert("patchType".into(), t.as_str().into());
    }
    if let Some((i, t)) = &c.transform {
        context.insert("transformIndex".into(), Value::Int(to_i64(*i)));
        context.insert("transformType".into(), t.as_str().into());
    }
    if let Some(p) = &c.field_path {
        context.insert("fieldPath".into(), p.as_str().into());
    }
    if let Some(s) = &c.source {
        context.insert("source".into(), s.as_str().into());
    }
    let mut err = Map::new();
    err.insert("kind".into(), e.kind().as_str().into());
    err.insert("message".into(), e.message().into());
    err.insert("context".into(), Value::Object(context));
    let mut doc = Map::new();
    doc.insert("error".into(), Value::Object(err));
    Value::Object(doc).to_json()
}

fn to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// The README's examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
