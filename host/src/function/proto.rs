//! The gRPC code build.rs generates from `proto/` (Crossplane's function protocol).

#![allow(
    unreachable_pub,
    clippy::all,
    clippy::pedantic,
    clippy::doc_markdown,
    clippy::derive_partial_eq_without_eq
)]

// The generated services decode with `codec::BoundedCodec`, two modules up (build.rs).
use super::codec;

/// `apiextensions.fn.proto.v1`: the messages and the service.
pub(crate) mod v1 {
    // prost names the file after the package, with `fn` escaped as a raw identifier.
    include!(concat!(env!("OUT_DIR"), "/apiextensions.r#fn.proto.v1.rs"));
}

/// `apiextensions.fn.proto.v1beta1`: the same service under its older name.
pub(crate) mod v1beta1 {
    include!(concat!(
        env!("OUT_DIR"),
        "/apiextensions.r#fn.proto.v1beta1.rs"
    ));
}
