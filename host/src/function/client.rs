//! The gRPC client build.rs generates from `proto/`: Crossplane's FunctionRunnerService as a
//! client calls it, for the host's own tests and benches.

#![allow(
    unreachable_pub,
    clippy::all,
    clippy::pedantic,
    clippy::doc_markdown,
    clippy::derive_partial_eq_without_eq
)]

// The generated clients decode with `codec::BoundedCodec`, two modules up (build.rs).
use super::codec;

/// `apiextensions.fn.proto.v1`: the messages and the client.
pub mod v1 {
    include!(concat!(
        env!("OUT_DIR"),
        "/client/apiextensions.r#fn.proto.v1.rs"
    ));
}

/// `apiextensions.fn.proto.v1beta1`: the same client under the service's older name.
pub mod v1beta1 {
    include!(concat!(
        env!("OUT_DIR"),
        "/client/apiextensions.r#fn.proto.v1beta1.rs"
    ));
}
