//! Native render benchmarks over the workloads in `benches/workloads/`, with the JSON floor:
//! a `serde_json::Value` parse and serialise of the same request and response.

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
        group.bench_function("render_json", |b| {
            b.iter(|| xprender::render_json(black_box(request)));
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

criterion_group!(benches, render);
criterion_main!(benches);
