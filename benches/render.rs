//! Native render benchmarks over the workloads in `benches/workloads/`, with the JSON floor:
//! a `serde_json::Value` parse and serialise of the same request and response, and the whole
//! tree of a documents request.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const WORKLOADS: [(&str, &str); 3] = [
    ("small", include_str!("workloads/small.json")),
    ("medium", include_str!("workloads/medium.json")),
    ("large", include_str!("workloads/large.json")),
];

fn render(c: &mut Criterion) {
    for (name, request) in WORKLOADS {
        let response = xprender::render_json(request);
        assert!(
            !response.starts_with("{\"error\""),
            "workload {name} does not render: {response}"
        );
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Bytes(request.len() as u64));
        // An engine kept across renders, as hosts keep one: the Composition read once.
        let mut engine = xprender::Engine::new();
        group.bench_function("render_json", |b| {
            b.iter(|| engine.render_json(black_box(request)));
        });
        // What a fresh engine renders: the whole request read, the plan compiled for it.
        group.bench_function("render_json_one_off", |b| {
            b.iter(|| xprender::testing::render_json_unkept(black_box(request)));
        });
        group.bench_function("json_floor", |b| {
            b.iter(|| {
                let req: serde_json::Value = serde_json::from_str(black_box(request)).unwrap();
                let resp: serde_json::Value = serde_json::from_str(black_box(&response)).unwrap();
                (
                    serde_json::to_string(&req).unwrap(),
                    serde_json::to_string(&resp).unwrap(),
                )
            });
        });
        group.finish();
    }
}

/// Documents requests of the whole tree (`scripts/gen-bench-workloads.py`): 100 managed
/// resources under a 3-level tree of XRs, the same 100 in one level, and the tree rendered
/// through simulated providers until it settles, observed and new.
const TREE: [(&str, &str); 4] = [
    ("tree", include_str!("workloads/tree.json")),
    ("tree-flat", include_str!("workloads/tree-flat.json")),
    (
        "tree-until-ready",
        include_str!("workloads/tree-until-ready.json"),
    ),
    (
        "tree-new-until-ready",
        include_str!("workloads/tree-new-until-ready.json"),
    ),
];

/// A warm render of each tree workload: one engine kept across renders, as hosts keep one.
fn tree(c: &mut Criterion) {
    for (name, request) in TREE {
        let response = xprender::render_json(request);
        assert!(
            !response.starts_with("{\"error\"") && response.contains("\"ready\":true"),
            "workload {name} does not render ready: {}",
            &response[..response.len().min(300)]
        );
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Bytes(request.len() as u64));
        let mut engine = xprender::Engine::new();
        group.bench_function("render_json", |b| {
            b.iter(|| engine.render_json(black_box(request)));
        });
        group.finish();
    }
}

/// The resource series (`scripts/gen-bench-workloads.py --series`): N resources with one
/// patch each, all observed. Time per resource should stay flat as N grows. Megabytes each, so
/// read at run time rather than compiled in.
#[allow(clippy::disallowed_methods)] // benches are host-side: reading workloads is their job
fn series(c: &mut Criterion) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/workloads");
    let mut group = c.benchmark_group("series");
    group.sample_size(10);
    for n in [2_500, 5_000, 10_000, 20_000] {
        let path = format!("{dir}/series-{n}.json");
        let request = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{path}: {e}; run scripts/gen-bench-workloads.py --series"));
        let response = xprender::render_json(&request);
        assert!(
            !response.starts_with("{\"error\""),
            "series-{n} does not render: {}",
            &response[..response.len().min(300)]
        );
        group.throughput(Throughput::Elements(n));
        let mut engine = xprender::Engine::new();
        group.bench_function(format!("render_json/{n}"), |b| {
            b.iter(|| engine.render_json(black_box(&request)));
        });
    }
    group.finish();
}

criterion_group!(benches, render, tree, series);
criterion_main!(benches);
