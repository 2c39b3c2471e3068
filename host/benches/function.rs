//! Load benchmark of `xprender function serve` over loopback gRPC: 8 concurrent clients each send
//! 500 RunFunction requests of a workload (benches/workloads/, as one function-patch-and-transform
//! step) and the latency percentiles and throughput are printed; then one client alone, for the
//! latency of a request that does not queue. Not a timed test: the figures
//! go to docs/benchmarks.md. Run with `cargo bench -p xprender-host --bench function`.
#![allow(clippy::unwrap_used, clippy::print_stdout, clippy::cast_precision_loss)]

mod common;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::{Value as Json, json};
use tonic::transport::Channel;

use common::proto::v1::function_runner_service_client::FunctionRunnerServiceClient;
use common::proto::v1::{RequestMeta, Resource, RunFunctionRequest, State};

const REQUESTS: usize = 500;

fn resource(j: &Json) -> Resource {
    Resource {
        resource: Some(common::structs::from_json(j)),
        ..Resource::default()
    }
}

/// A workload's classic Composition as the one function step that replaces it.
fn request(workload: &Json) -> RunFunctionRequest {
    let spec = &workload["composition"]["spec"];
    let input = json!({"apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources",
        "patchSets": spec.get("patchSets").cloned().unwrap_or(json!([])),
        "resources": spec["resources"]});
    let resources: HashMap<String, Resource> = workload["observed"]["resources"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), resource(&v["resource"])))
                .collect()
        })
        .unwrap_or_default();
    RunFunctionRequest {
        meta: Some(RequestMeta {
            tag: "bench".into(),
        }),
        observed: Some(State {
            composite: Some(resource(&workload["xr"])),
            resources,
        }),
        desired: Some(State::default()),
        input: Some(common::structs::from_json(&input)),
        ..RunFunctionRequest::default()
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

async fn load(address: &str, name: &str, clients: usize, req: RunFunctionRequest) {
    let channel = Channel::from_shared(format!("http://{address}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    // One warm-up call: it also checks that the workload renders without a Fatal result.
    let rsp = FunctionRunnerServiceClient::new(channel.clone())
        .run_function(req.clone())
        .await
        .unwrap()
        .into_inner();
    let fatal: Vec<&str> = rsp
        .results
        .iter()
        .filter(|r| r.severity == 1)
        .map(|r| r.message.as_str())
        .collect();
    assert!(fatal.is_empty(), "{name}: Fatal result {fatal:?}");
    let desired = rsp.desired.map_or(0, |d| d.resources.len());
    let start = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let req = req.clone();
        let channel = Channel::from_shared(format!("http://{address}"))
            .unwrap()
            .connect()
            .await
            .unwrap();
        tasks.push(tokio::spawn(async move {
            let mut client = FunctionRunnerServiceClient::new(channel);
            let mut latencies = Vec::with_capacity(REQUESTS);
            let mut errors = 0usize;
            for _ in 0..REQUESTS {
                let t = Instant::now();
                match client.run_function(req.clone()).await {
                    Ok(rsp) if rsp.get_ref().results.iter().all(|r| r.severity != 1) => {}
                    _ => errors += 1,
                }
                latencies.push(t.elapsed());
            }
            (latencies, errors)
        }));
    }
    let mut all = Vec::with_capacity(clients * REQUESTS);
    let mut errors = 0;
    for t in tasks {
        let (l, e) = t.await.unwrap();
        all.extend(l);
        errors += e;
    }
    let wall = start.elapsed();
    all.sort();
    println!(
        "{name}: {clients} client(s) x {REQUESTS} requests, {desired} desired resources each: \
         p50 {:.3} ms, p99 {:.3} ms, {:.0} requests/s, {errors} errors",
        percentile(&all, 0.50).as_secs_f64() * 1000.0,
        percentile(&all, 0.99).as_secs_f64() * 1000.0,
        all.len() as f64 / wall.as_secs_f64(),
    );
}

fn main() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../benches/workloads");
    let (mut server, address) = common::spawn_function_server(env!("CARGO_BIN_EXE_xprender"));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    for name in ["small", "medium"] {
        let text = std::fs::read_to_string(format!("{root}/{name}.json")).unwrap();
        let workload: Json = serde_json::from_str(&text).unwrap();
        for clients in [8, 1] {
            rt.block_on(load(&address, name, clients, request(&workload)));
        }
    }
    let _ = server.kill();
    let _ = server.wait();
}
