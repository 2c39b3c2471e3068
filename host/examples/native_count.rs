//! Live renders of a workload under the host's wasmtime configuration, for counting the
//! machine instructions they take with valgrind's callgrind (`scripts/native-count.sh`).
//!
//! `native_count MODULE.wasm --precompile OUT.cwasm` compiles the module once; then
//! `native_count OUT.cwasm REQUEST.json RENDERS` renders on one instance RENDERS times, so
//! that the difference of two counts is the renders' alone.
//!
//! `native_count --serde-json REQUEST.json TIMES` parses the request TIMES times into a
//! `serde_json::Value`, natively: the yardstick the render's speed is set against (what
//! parsing its own request costs).

use wasmtime::{Engine, Linker, Module, Store};
use xprender_host::unstable::engine_config;

#[path = "common/guest.rs"]
mod guest;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: native_count MODULE.wasm --precompile OUT.cwasm | OUT.cwasm REQUEST.json RENDERS \
         | --serde-json REQUEST.json TIMES";
    let mut config = engine_config(1);
    if std::env::var("XPRENDER_BENCH_EPOCHS").is_ok_and(|v| v == "0") {
        config.epoch_interruption(false);
    }
    // `XPRENDER_PERFMAP=1`: /tmp/perf-<pid>.map names the guest's functions at their addresses.
    if std::env::var_os("XPRENDER_PERFMAP").is_some() {
        config.profiler(wasmtime::ProfilingStrategy::PerfMap);
    }
    if let [flag, request, times] = &args[..]
        && flag == "--serde-json"
    {
        #[allow(clippy::disallowed_methods)]
        let request = std::fs::read_to_string(request)?;
        for _ in 0..times.parse::<u32>()? {
            let value: serde_json::Value = serde_json::from_str(std::hint::black_box(&request))?;
            std::hint::black_box(value);
        }
        return Ok(());
    }
    let engine = Engine::new(&config)?;
    if let [module, flag, out] = &args[..]
        && flag == "--precompile"
    {
        #[allow(clippy::disallowed_methods)] // an example run by hand: files are its job
        let wasm = std::fs::read(module)?;
        #[allow(clippy::disallowed_methods)]
        std::fs::write(out, engine.precompile_module(&wasm)?)?;
        return Ok(());
    }
    let [cwasm, request, renders] = &args[..] else {
        return Err(usage.into());
    };
    // SAFETY: the file is this engine's own output of `--precompile` above.
    let module = unsafe { Module::deserialize_file(&engine, cwasm)? };
    #[allow(clippy::disallowed_methods)]
    let request = std::fs::read(request)?;
    let renders: u32 = renders.parse()?;
    let mut store = Store::new(&engine, ());
    store.set_epoch_deadline(u64::MAX / 2);
    let instance = Linker::new(&engine).instantiate(&mut store, &module)?;
    for _ in 0..renders {
        guest::render(&mut store, &instance, &request)?;
    }
    Ok(())
}
