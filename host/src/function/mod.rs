//! `xprender function serve`: the engine as a Crossplane composition function over gRPC, a
//! drop-in for function-patch-and-transform.
//!
//! `step` maps a RunFunctionRequest to the render contract and back, `service` runs it in the
//! sandbox, `server` listens, `codec` decodes requests as deep as Go does. `client`,
//! `go_order` and `structs` serve the other side, the host's tests and benches.

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
mod wire;

pub(crate) use log::Log;
pub(crate) use server::{Listen, serve};
pub(crate) use service::Service;
