//! `xprender function serve`: the engine as a Crossplane composition function over gRPC, a
//! drop-in for function-patch-and-transform.
//!
//! `step` maps a RunFunctionRequest to the render contract and back, `service` runs it in the
//! sandbox, `server` listens, `codec` decodes requests as deep as Go does. `client`,
//! `go_order` and `structs` serve the other side, the host's tests and benches.

#[cfg_attr(not(feature = "prost-struct"), allow(dead_code))]
pub(crate) mod bridge;
pub mod client;
mod codec;
pub mod go_order;
mod linger;
mod log;
mod proto;
mod server;
mod service;
mod step;
pub mod structs;
#[cfg_attr(feature = "prost-struct", allow(dead_code))]
pub(crate) mod wire;

/// The server's `google.protobuf.Struct` (build.rs maps the type here) and its JSON.
#[cfg(feature = "prost-struct")]
pub(crate) use bridge as held;
#[cfg(not(feature = "prost-struct"))]
pub(crate) use wire as held;

pub(crate) use log::Log;
pub(crate) use server::{Listen, serve};
pub(crate) use service::Service;
