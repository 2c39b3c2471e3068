//! What the benches that talk to `xprender function serve` share.

use std::io::{BufRead as _, BufReader};
use std::process::{Child, Command, Stdio};

use prost::bytes::{Buf, BufMut, Bytes};
use prost::encoding::{DecodeContext, WireType};
use serde_json::Value as Json;
use tonic::transport::Channel;

use proto::v1::RunFunctionResponse;

// The RunFunction client and the JSON to protobuf `Struct` conversion: the host's own.
pub(crate) use xprender_host::unstable::client as proto;
pub(crate) use xprender_host::unstable::structs;

/// Starts `BIN function serve` on a free loopback port and returns the child and the address
/// its "Listening" log line names. Its later log lines are drained so the server never blocks.
pub(crate) fn spawn_function_server(bin: &str) -> (Child, String) {
    let mut child = Command::new(bin)
        .args([
            "function",
            "serve",
            "--insecure",
            "--address",
            "127.0.0.1:0",
        ])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let address = loop {
        let line = lines.next().expect("the server listens").unwrap();
        let log: Json = serde_json::from_str(&line).unwrap_or_default();
        if log["msg"] == "Listening" {
            break log["address"].as_str().unwrap().to_owned();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    (child, address)
}

/// A request already encoded, sent as it is: the benches encode theirs before the clock
/// starts (prost's encoder measures every nested message once per level above it, and the
/// function bench sends bytes in Go's map order).
#[derive(Clone, Debug, Default)]
pub(crate) struct Encoded(pub(crate) Bytes);

impl prost::Message for Encoded {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        buf.put_slice(&self.0);
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        prost::encoding::skip_field(wire_type, tag, buf, ctx)
    }

    fn encoded_len(&self) -> usize {
        self.0.len()
    }

    fn clear(&mut self) {
        self.0 = Bytes::new();
    }
}

/// One RunFunction call with an encoded request.
pub(crate) async fn run_encoded(
    grpc: &mut tonic::client::Grpc<Channel>,
    request: Encoded,
) -> Result<RunFunctionResponse, tonic::Status> {
    grpc.ready()
        .await
        .map_err(|e| tonic::Status::unknown(e.to_string()))?;
    let path = tonic::codegen::http::uri::PathAndQuery::from_static(
        "/apiextensions.fn.proto.v1.FunctionRunnerService/RunFunction",
    );
    let codec = tonic_prost::ProstCodec::<Encoded, RunFunctionResponse>::default();
    grpc.unary(tonic::Request::new(request), path, codec)
        .await
        .map(tonic::Response::into_inner)
}
