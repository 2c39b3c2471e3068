//! `xprender function serve`'s answers compared as bytes, not as decoded state: for every
//! function-semantics fixture of one function-patch-and-transform step, the RunFunctionResponse
//! the server writes is exactly the engine's Output (or error) for the same request, encoded as
//! Go's protobuf encodes function-patch-and-transform's answer with `Deterministic` (fields in
//! number order, map entries in key order). So a negative zero keeps its sign bit, a composed
//! resource's `metadata` is absent where the engine leaves it out (not `{}`), numbers are the
//! engine's doubles, and strings its text.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;

#[path = "common/function.rs"]
mod function;

use std::collections::BTreeMap;

use base64::Engine as _;
use prost::Message as _;
use prost::bytes::Buf as _;
use serde_json::{Value as Json, json};
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};

use function::proto::v1::{Resource, ResponseMeta, Result as FnResult, RunFunctionResponse};
use function::{ENV_KEY, FixtureSteps, RunFunctionRequest, Server, State, fn_request, to_struct};

/// Sends a request as prost encodes it and keeps the answer's bytes as they arrived.
#[derive(Default)]
struct RawAnswers;

struct RequestEncoder;

struct BytesDecoder;

impl Encoder for RequestEncoder {
    type Item = RunFunctionRequest;
    type Error = tonic::Status;
    fn encode(&mut self, item: Self::Item, buf: &mut EncodeBuf<'_>) -> Result<(), Self::Error> {
        item.encode(buf)
            .map_err(|e| tonic::Status::internal(e.to_string()))
    }
}

impl Decoder for BytesDecoder {
    type Item = Vec<u8>;
    type Error = tonic::Status;
    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<Vec<u8>>, Self::Error> {
        Ok(Some(buf.copy_to_bytes(buf.remaining()).to_vec()))
    }
}

impl Codec for RawAnswers {
    type Encode = RunFunctionRequest;
    type Decode = Vec<u8>;
    type Encoder = RequestEncoder;
    type Decoder = BytesDecoder;
    fn encoder(&mut self) -> RequestEncoder {
        RequestEncoder
    }
    fn decoder(&mut self) -> BytesDecoder {
        BytesDecoder
    }
}

async fn answer_bytes(
    grpc: &mut tonic::client::Grpc<tonic::transport::Channel>,
    request: RunFunctionRequest,
) -> Vec<u8> {
    grpc.ready().await.unwrap();
    let path = tonic::codegen::http::uri::PathAndQuery::from_static(
        "/apiextensions.fn.proto.v1.FunctionRunnerService/RunFunction",
    );
    grpc.unary(tonic::Request::new(request), path, RawAnswers)
        .await
        .unwrap()
        .into_inner()
}

/// A member the answer has, whatever it holds: an object as a Struct, anything else empty.
fn member(j: &Json, key: &str) -> Option<prost_types::Struct> {
    j.get(key).map(|v| {
        v.as_object()
            .map_or_else(Default::default, |_| to_struct(v))
    })
}

fn result(severity: &str, message: &str) -> FnResult {
    FnResult {
        severity: match severity {
            "Fatal" => 1,
            "Warning" => 2,
            _ => 3,
        },
        message: message.to_owned(),
        ..FnResult::default()
    }
}

/// The response function-patch-and-transform gives for the engine's `output` to `req`.
fn engine_response(req: &RunFunctionRequest, output: &Json) -> RunFunctionResponse {
    let mut rsp = RunFunctionResponse {
        meta: Some(ResponseMeta {
            tag: req.meta.as_ref().unwrap().tag.clone(),
            ttl: Some(prost_types::Duration {
                seconds: 60,
                nanos: 0,
            }),
        }),
        context: req.context.clone(),
        ..RunFunctionResponse::default()
    };
    if let Some(err) = output.get("error") {
        // The step's input is the request's `composition.spec.pipeline[0].input`.
        let message = err["message"]
            .as_str()
            .unwrap()
            .replace("composition.spec.pipeline[0].input", "input");
        let message = if err["kind"] == "InvalidComposition" {
            format!("cannot get Function input: {message}")
        } else {
            message
        };
        rsp.results.push(result("Fatal", &message));
        rsp.desired.clone_from(&req.desired);
        return rsp;
    }
    rsp.results = output["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            result(
                r["severity"].as_str().unwrap(),
                r["message"].as_str().unwrap(),
            )
        })
        .collect();
    if rsp.results.iter().any(|r| r.severity == 1) {
        rsp.desired.clone_from(&req.desired);
        return rsp;
    }
    let resources = output["resources"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, r)| {
            let resource = Resource {
                resource: member(r, "resource"),
                ready: if r["ready"] == true { 1 } else { 0 },
                ..Resource::default()
            };
            (name.clone(), resource)
        })
        .collect();
    let details = output["connectionDetails"]
        .as_object()
        .map(|d| {
            d.iter()
                .map(|(k, v)| {
                    let bytes = base64::engine::general_purpose::STANDARD
                        .decode(v.as_str().unwrap())
                        .unwrap();
                    (k.clone(), bytes)
                })
                .collect()
        })
        .unwrap_or_default();
    rsp.desired = Some(State {
        composite: Some(Resource {
            resource: member(output, "composite"),
            connection_details: details,
            ready: match output.get("compositeReady") {
                Some(Json::Bool(false)) => 2,
                Some(Json::Bool(true)) => 1,
                _ => 0,
            },
        }),
        resources,
    });
    if let Some(env) = member(output, "environment") {
        let mut ctx = rsp.context.take().unwrap_or_default();
        let value = prost_types::Value {
            kind: Some(prost_types::value::Kind::StructValue(env)),
        };
        ctx.fields.insert(ENV_KEY.to_owned(), value);
        rsp.context = Some(ctx);
    }
    rsp
}

/// The first byte at which two encodings differ, with a little of each around it.
fn first_difference(got: &[u8], want: &[u8]) -> String {
    let at = got
        .iter()
        .zip(want)
        .position(|(a, b)| a != b)
        .unwrap_or(got.len().min(want.len()));
    let around = |b: &[u8]| format!("{:02x?}", &b[at.saturating_sub(8)..(at + 8).min(b.len())]);
    format!(
        "{} bytes, {} expected; first difference at byte {at}: {} vs {}",
        got.len(),
        want.len(),
        around(got),
        around(want)
    )
}

/// Fixtures whose answers differ in bytes only (or first) from a decoded comparison's view:
/// each must be among those compared.
const MUST_COMPARE: [&str; 6] = [
    // Go's -0 through the Struct and back (the sign bit of a double).
    "semantics/negative-zero-environment-function",
    // -0 through Go's fmt, hashes, maps and matches.
    "semantics/negative-zero-function",
    // Strings that are not valid UTF-8 after a transform.
    "semantics/invalid-utf8 (function)",
    // The XR marked READY_FALSE when a resource is held back.
    "step/held-back-marks-xr-unready",
    // No `metadata` member at all for a resource without name or namespace.
    "step/observed-without-name",
    // The input decoded strictly, up front: Fatal with the decoder's text.
    "wire/input-type-string-for-int64-function",
];

#[tokio::test(flavor = "multi_thread")]
async fn every_one_step_answer_is_the_engine_s_byte_for_byte() {
    let server = Server::start(&["--insecure"]);
    let mut grpc = tonic::client::Grpc::new(server.channel().await);
    let (mut compared, mut fatal, mut failures) = (0, 0, BTreeMap::new());
    let mut seen = Vec::new();
    for render in function::fixtures() {
        let Some(FixtureSteps {
            xr,
            observed,
            env,
            steps,
            output,
        }) = function::fixture_steps(&render)
        else {
            continue;
        };
        if steps.len() != 1 {
            continue;
        }
        let mut req = fn_request(&xr, &steps[0], &observed, None);
        req.context = env.as_ref().map(|e| to_struct(&json!({ ENV_KEY: e })));
        let want = engine_response(&req, &output).encode_to_vec();
        let got = answer_bytes(&mut grpc, req).await;
        compared += 1;
        let name = render.name.clone();
        if name == MUST_COMPARE[0] {
            // number_value (field 2, fixed64) holding -0: the sign bit alone.
            let negative_zero = [0x11, 0, 0, 0, 0, 0, 0, 0, 0x80];
            assert!(
                want.windows(9).any(|w| w == negative_zero),
                "the expected answer holds no -0"
            );
        }
        seen.push(name);
        if output.get("error").is_some()
            || output["results"]
                .as_array()
                .is_some_and(|r| r.iter().any(|r| r["severity"] == "Fatal"))
        {
            fatal += 1;
        }
        if got != want {
            failures.insert(seen.last().unwrap().clone(), first_difference(&got, &want));
        }
    }
    eprintln!("compared {compared} answers as bytes, {fatal} of them Fatal");
    for name in MUST_COMPARE {
        assert!(seen.iter().any(|s| s == name), "{name} was not compared");
    }
    assert!(compared >= 100, "only {compared} fixtures compared");
    assert!(fatal >= 20, "only {fatal} Fatal answers compared");
    assert!(
        failures.is_empty(),
        "{} differ:\n{}",
        failures.len(),
        failures
            .iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}
