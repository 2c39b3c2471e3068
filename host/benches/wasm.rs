//! Render benchmarks of the core module under wasmtime, over `benches/workloads/`.
//!
//! `XPRENDER_WASM` names the module (scripts/bench.sh builds it with `--profile wasm` and
//! `wasm-opt -O3`, as shipped). Two figures per workload: a render on a fresh instance (what
//! the CLI does for every render) and a render on a live instance (the engine's own speed),
//! both under the host's own wasmtime configuration. `XPRENDER_BENCH_EPOCHS=0` turns off
//! its epoch interruption (the deadline's checks at every call and loop), to compare with
//! figures measured without it. A third figure runs the live instance on the bundled module as
//! the binary loads it, precompiled by build.rs for x86-64-v2 rather than for this CPU
//! (`wasmtime_live_instance_precompiled`), to show what the portable artifact costs. Beside them, the yardstick the render's speed is set against:
//! parsing the same request into a `serde_json::Value`, natively (`serde_json_parse`).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use wasmtime::{Engine, Instance, Linker, Module, Store, TypedFunc};

use xprender_host::unstable::engine_config;

const WORKLOADS: [(&str, &str); 7] = [
    ("small", include_str!("../../benches/workloads/small.json")),
    (
        "medium",
        include_str!("../../benches/workloads/medium.json"),
    ),
    ("large", include_str!("../../benches/workloads/large.json")),
    // Documents requests of the whole tree: 100 managed resources under 3 levels of XRs, the
    // same 100 in one level, and the tree rendered until it settles.
    ("tree", include_str!("../../benches/workloads/tree.json")),
    (
        "tree-flat",
        include_str!("../../benches/workloads/tree-flat.json"),
    ),
    (
        "tree-until-ready",
        include_str!("../../benches/workloads/tree-until-ready.json"),
    ),
    (
        "tree-new-until-ready",
        include_str!("../../benches/workloads/tree-new-until-ready.json"),
    ),
];

struct Guest {
    store: Store<()>,
    instance: Instance,
    alloc: TypedFunc<i32, i32>,
    free: TypedFunc<(i32, i32), ()>,
    render: TypedFunc<(i32, i32), i64>,
}

impl Guest {
    fn new(engine: &Engine, linker: &Linker<()>, module: &Module) -> Guest {
        let mut store = Store::new(engine, ());
        // Nothing advances the epoch here: the deadline is never reached.
        store.set_epoch_deadline(1);
        let instance = linker.instantiate(&mut store, module).expect("instantiate");
        let alloc = instance
            .get_typed_func(&mut store, "xprender_alloc")
            .expect("alloc");
        let free = instance
            .get_typed_func(&mut store, "xprender_free")
            .expect("free");
        let render = instance
            .get_typed_func(&mut store, "xprender_render")
            .expect("render");
        Guest {
            store,
            instance,
            alloc,
            free,
            render,
        }
    }

    fn render(&mut self, request: &str) -> usize {
        let memory = self
            .instance
            .get_memory(&mut self.store, "memory")
            .expect("memory");
        let len = i32::try_from(request.len()).expect("request fits");
        let ptr = self.alloc.call(&mut self.store, len).expect("alloc");
        memory
            .write(
                &mut self.store,
                usize::try_from(ptr).unwrap(),
                request.as_bytes(),
            )
            .expect("write");
        let packed = self
            .render
            .call(&mut self.store, (ptr, len))
            .expect("render");
        let (rptr, rlen) = ((packed >> 32) as i32, (packed & 0xffff_ffff) as i32);
        let mut out = vec![0u8; usize::try_from(rlen).unwrap()];
        memory
            .read(&self.store, usize::try_from(rptr).unwrap(), &mut out)
            .expect("read");
        self.free.call(&mut self.store, (rptr, rlen)).expect("free");
        assert!(
            !out.starts_with(b"{\"error\""),
            "the workload does not render"
        );
        out.len()
    }
}

fn wasm(c: &mut Criterion) {
    let path = std::env::var("XPRENDER_WASM")
        .expect("XPRENDER_WASM must name the core module (scripts/bench.sh sets it)");
    // `XPRENDER_PERFMAP=1` writes /tmp/perf-<pid>.map so `perf record` names the guest's
    // functions (build the module with its name section kept: no `--strip-debug`).
    // One live instance per workload, and a fresh one beside it.
    let mut config = engine_config(2);
    if std::env::var("XPRENDER_BENCH_EPOCHS").is_ok_and(|v| v == "0") {
        config.epoch_interruption(false);
    }
    if std::env::var_os("XPRENDER_PERFMAP").is_some() {
        config.profiler(wasmtime::ProfilingStrategy::PerfMap);
    }
    let engine = Engine::new(&config).expect("wasmtime engine");
    let module = Module::from_file(&engine, &path).expect("compile the core module");
    let linker = Linker::new(&engine);
    let artifact: &[u8] = include_bytes!(env!("XPRENDER_CORE_CWASM"));
    // SAFETY: build.rs's output for this wasmtime and configuration; wasmtime checks it.
    #[allow(unsafe_code)]
    let precompiled = (!artifact.is_empty())
        .then(|| unsafe { Module::deserialize(&engine, artifact) }.ok())
        .flatten();
    for (name, request) in WORKLOADS {
        let mut group = c.benchmark_group(name);
        group.bench_function("wasmtime_fresh_instance", |b| {
            b.iter(|| Guest::new(&engine, &linker, &module).render(black_box(request)));
        });
        let mut live = Guest::new(&engine, &linker, &module);
        group.bench_function("wasmtime_live_instance", |b| {
            b.iter(|| live.render(black_box(request)));
        });
        if let Some(precompiled) = &precompiled {
            let mut live = Guest::new(&engine, &linker, precompiled);
            group.bench_function("wasmtime_live_instance_precompiled", |b| {
                b.iter(|| live.render(black_box(request)));
            });
        }
        group.bench_function("serde_json_parse", |b| {
            b.iter(|| serde_json::from_str::<serde_json::Value>(black_box(request)).expect("JSON"));
        });
        group.finish();
    }
}

criterion_group!(benches, wasm);
criterion_main!(benches);
