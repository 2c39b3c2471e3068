//! The function server's `google.protobuf.Struct` codec beside the plain alternative, in one
//! process: `wire` (the server's: the Struct kept as its bytes, its JSON written while they are
//! checked) and `bridge` (prost's Struct, bridged to and from JSON text without a JSON tree).
//!
//! Per workload of benches/workloads/ as one function-patch-and-transform step:
//! `decode_write`, the request's Structs (the XR, every observed resource, the input, each in
//! Go's map order) decoded and written as the engine's JSON; `encode`, the engine's answer read
//! into Structs and each encoded. Run with `cargo bench -p xprender-host --bench structs`.
#![allow(clippy::unwrap_used, clippy::print_stdout)]

mod bridge;
// The server's codec is private to the host: the bench compiles its files.
#[allow(dead_code, unreachable_pub, unused_imports)]
#[path = "../../src/function/wire/mod.rs"]
mod wire;

use std::collections::BTreeMap;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use prost::Message;
use serde::Deserialize;
use serde_json::{Value as Json, json};
use xprender_host::unstable::{go_order, structs};

/// A workload's classic request as the engine request of the one function step.
fn step_request(w: &Json) -> Json {
    let spec = &w["composition"]["spec"];
    let input = json!({"apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources",
        "patchSets": spec.get("patchSets").cloned().unwrap_or(json!([])),
        "resources": spec["resources"]});
    json!({
        "xr": w["xr"],
        "composition": {"apiVersion": "apiextensions.crossplane.io/v1", "kind": "Composition",
            "metadata": {"name": "function"}, "spec": {"mode": "Pipeline", "pipeline": [
                {"step": "function", "functionRef": {"name": "xprender"}, "input": input}]}},
        "observed": {"resources": w["observed"]["resources"]},
        "desired": {"resources": {}, "composite": {}, "connectionDetails": null},
        "options": {"semantics": "function", "output": "function"},
    })
}

/// The request's Structs as Go sends them.
fn request_structs(step: &Json) -> Vec<Vec<u8>> {
    let mut rng = go_order::Rng(1);
    let mut docs = vec![
        &step["xr"],
        &step["composition"]["spec"]["pipeline"][0]["input"],
    ];
    if let Some(rs) = step["observed"]["resources"].as_object() {
        docs.extend(rs.values().map(|r| &r["resource"]));
    }
    docs.into_iter()
        .map(|d| go_order::go_struct(&structs::from_json(d), &mut rng))
        .collect()
}

#[derive(Deserialize)]
struct Answer<S> {
    composite: S,
    resources: BTreeMap<String, AnswerResource<S>>,
}

#[derive(Deserialize)]
struct AnswerResource<S> {
    resource: S,
}

/// The answer's Structs as `wire` reads them.
struct WireStruct(wire::Struct);

impl<'de> Deserialize<'de> for WireStruct {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        wire::Struct::deserialize(d).map(WireStruct)
    }
}

/// The answer's Structs as `bridge` reads them.
struct BridgeStruct(bridge::Struct);

impl<'de> Deserialize<'de> for BridgeStruct {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        bridge::deserialize(d).map(BridgeStruct)
    }
}

fn encode_all<'a, M: Message + 'a>(out: &mut Vec<u8>, all: impl Iterator<Item = &'a M>) {
    for m in all {
        m.encode_length_delimited(out).unwrap();
    }
}

fn bench(c: &mut Criterion) {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../benches/workloads");
    for name in ["small", "medium", "large"] {
        let text = std::fs::read_to_string(format!("{root}/{name}.json")).unwrap();
        let step = step_request(&serde_json::from_str(&text).unwrap());
        let blobs = request_structs(&step);
        let answer = xprender::render_json(&step.to_string());
        assert!(answer.contains("\"resources\""), "{name}: {answer:.300}");
        let fixed = [("kind", "Resources")];

        // Both codecs write the same documents.
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for bytes in &blobs {
            wire::Struct::decode(bytes.as_slice())
                .unwrap()
                .write_json(&mut a, &fixed)
                .unwrap();
            let s = bridge::Struct::decode(bytes.as_slice()).unwrap();
            bridge::write_json(&s, &mut b, &fixed).unwrap();
        }
        assert_eq!(a, b, "{name}");

        let mut g = c.benchmark_group(name);
        let mut out = Vec::with_capacity(a.len());
        g.bench_function("decode_write/wire", |t| {
            t.iter(|| {
                out.clear();
                for bytes in &blobs {
                    let s = wire::Struct::decode(black_box(bytes.as_slice())).unwrap();
                    s.write_json(&mut out, &fixed).unwrap();
                }
                out.len()
            });
        });
        g.bench_function("decode_write/bridge", |t| {
            t.iter(|| {
                out.clear();
                for bytes in &blobs {
                    let s = bridge::Struct::decode(black_box(bytes.as_slice())).unwrap();
                    bridge::write_json(&s, &mut out, &fixed).unwrap();
                }
                out.len()
            });
        });
        g.bench_function("encode/wire", |t| {
            t.iter(|| {
                let a: Answer<WireStruct> = serde_json::from_str(black_box(&answer)).unwrap();
                out.clear();
                let resources = a.resources.values().map(|r| &r.resource.0);
                encode_all(&mut out, std::iter::once(&a.composite.0).chain(resources));
                out.len()
            });
        });
        g.bench_function("encode/bridge", |t| {
            t.iter(|| {
                let a: Answer<BridgeStruct> = serde_json::from_str(black_box(&answer)).unwrap();
                out.clear();
                let resources = a.resources.values().map(|r| &r.resource.0);
                encode_all(&mut out, std::iter::once(&a.composite.0).chain(resources));
                out.len()
            });
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
