//! Load benchmark of `xprender function serve` over loopback gRPC: 8 concurrent clients each send
//! 500 RunFunction requests of a workload (benches/workloads/, as one function-patch-and-transform
//! step) and the latency percentiles, throughput and the server's CPU time per request are
//! printed; then one client alone, for the latency of a request that does not queue.
//!
//! Each load runs twice: with the request's maps in key order, as prost (or Go with
//! `Deterministic`) writes them, and in Go's map order, which differs from one marshal to the
//! next, as Crossplane sends them (160 such orderings, taken in turn). Not a timed test: the
//! figures go to docs/benchmarks.md. Run with `cargo bench -p xprender-host --bench function`,
//! or `-- medium-go small-sorted` for some of the loads; `XPRENDER_BIN=PATH` serves from another
//! build of `xprender`.
#![allow(clippy::unwrap_used, clippy::print_stdout, clippy::cast_precision_loss)]

mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use prost::Message as _;
use serde_json::{Value as Json, json};
use tonic::transport::Channel;

use common::Encoded;
use common::proto::v1::function_runner_service_client::FunctionRunnerServiceClient;
use common::proto::v1::{RequestMeta, Resource, RunFunctionRequest, State};
use xprender_host::unstable::go_order::{Rng, entry, field, go_struct, nested};

const REQUESTS: usize = 500;
/// Orderings of a request in Go's map order, sent in turn: as from Go, the same bytes come
/// again only after many other requests, never from two clients at once.
const ORDERINGS: usize = 160;

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
    let resources: BTreeMap<String, Resource> = workload["observed"]["resources"]
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

fn go_resource(r: &Resource, rng: &mut Rng) -> Vec<u8> {
    assert!(
        r.connection_details.is_empty() && r.ready == 0,
        "not written here"
    );
    r.resource
        .as_ref()
        .map_or_else(Vec::new, |s| nested(1, &go_struct(s, rng)))
}

fn go_state(s: &State, rng: &mut Rng) -> Vec<u8> {
    let mut out = s
        .composite
        .as_ref()
        .map_or_else(Vec::new, |r| nested(1, &go_resource(r, rng)));
    let entries = s
        .resources
        .iter()
        .map(|(name, r)| entry(2, name, &go_resource(r, rng)))
        .collect();
    out.extend(rng.shuffled(entries));
    out
}

/// The request as Go's protobuf writes it by default: every map in an order of its own.
fn go_order(req: &RunFunctionRequest, rng: &mut Rng) -> Encoded {
    assert!(
        req.required_resources.is_empty() && req.credentials.is_empty() && req.context.is_none()
    );
    let mut out = Vec::new();
    if let Some(m) = &req.meta {
        field(&mut out, 1, &m.encode_to_vec());
    }
    for (tag, state) in [(2, &req.observed), (3, &req.desired)] {
        if let Some(s) = state {
            field(&mut out, tag, &go_state(s, rng));
        }
    }
    if let Some(i) = &req.input {
        field(&mut out, 4, &go_struct(i, rng));
    }
    // The same request, whatever the order.
    assert_eq!(&RunFunctionRequest::decode(out.as_slice()).unwrap(), req);
    Encoded(out.into())
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

/// The CPU time the process has used (user and system), from `/proc`.
fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // The fields after the command's closing parenthesis; utime and stime are the 14th and
    // 15th of the line, the 12th and 13th after it.
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let ticks: u64 = after
        .split(' ')
        .skip(11)
        .take(2)
        .map(|t| t.parse::<u64>().unwrap())
        .sum();
    // SAFETY: sysconf reads a constant of the system.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    Duration::from_secs_f64(ticks as f64 / per_second as f64)
}

async fn load(
    address: &str,
    server: u32,
    name: &str,
    clients: usize,
    req: &RunFunctionRequest,
    go: bool,
) {
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
    let requests: Vec<Encoded> = if go {
        let mut rng = Rng(clients as u64);
        (0..ORDERINGS).map(|_| go_order(req, &mut rng)).collect()
    } else {
        vec![Encoded(req.encode_to_vec().into())]
    };
    let order = if go { "Go's map order" } else { "key order" };
    let cpu = cpu_time(server);
    let start = Instant::now();
    let mut tasks = Vec::new();
    for c in 0..clients {
        let requests = requests.clone();
        let channel = Channel::from_shared(format!("http://{address}"))
            .unwrap()
            .connect()
            .await
            .unwrap();
        tasks.push(tokio::spawn(async move {
            let mut grpc = tonic::client::Grpc::new(channel);
            let mut latencies = Vec::with_capacity(REQUESTS);
            let mut errors = 0usize;
            for i in 0..REQUESTS {
                // Concurrent clients send different orderings, each again only after all others.
                let req = requests[(i * clients + c) % requests.len()].clone();
                let t = Instant::now();
                match common::run_encoded(&mut grpc, req).await {
                    Ok(rsp) if rsp.results.iter().all(|r| r.severity != 1) => {}
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
    let cpu = cpu_time(server) - cpu;
    all.sort();
    println!(
        "{name}, {order}: {clients} client(s) x {REQUESTS} requests, {desired} desired resources \
         each: p50 {:.3} ms, p99 {:.3} ms, {:.0} requests/s, server CPU {:.0} µs a request, \
         {errors} errors",
        percentile(&all, 0.50).as_secs_f64() * 1000.0,
        percentile(&all, 0.99).as_secs_f64() * 1000.0,
        all.len() as f64 / wall.as_secs_f64(),
        cpu.as_secs_f64() * 1e6 / all.len() as f64,
    );
}

fn main() {
    // Loads named on the command line (`small-sorted`, `medium-go`, ...) run alone.
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../benches/workloads");
    // `XPRENDER_BIN` serves from another build of the binary, for comparing two builds.
    let bin =
        std::env::var("XPRENDER_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_xprender").to_owned());
    let (mut server, address) = common::spawn_function_server(&bin);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    for name in ["small", "medium"] {
        let text = std::fs::read_to_string(format!("{root}/{name}.json")).unwrap();
        let workload: Json = serde_json::from_str(&text).unwrap();
        let req = request(&workload);
        for go in [false, true] {
            if !only.is_empty()
                && !only.contains(&format!("{name}-{}", if go { "go" } else { "sorted" }))
            {
                continue;
            }
            for clients in [8, 1] {
                rt.block_on(load(&address, server.id(), name, clients, &req, go));
            }
        }
    }
    let _ = server.kill();
    let _ = server.wait();
}
