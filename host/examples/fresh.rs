//! CPU time and page faults of a render on a fresh instance, one new instance per render as
//! the CLI and a pool's new instances get, under the host's wasmtime configuration; or with
//! `XPRENDER_ON_DEMAND=1`, under wasmtime's default allocator, which maps new memory for
//! every instance and faults in every page the render touches.
//!
//! `cargo run --release -p xprender-host --example fresh -- MODULE.wasm REQUEST.json [RENDERS]`

use wasmtime::{Config, Engine, Linker, Module, OptLevel, Store};
use xprender_host::unstable::engine_config;

#[path = "common/guest.rs"]
mod guest;

/// User and system CPU seconds of this process, and its minor page faults.
fn usage() -> (f64, f64, i64) {
    // SAFETY: getrusage only writes the struct it is given.
    let u = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut u);
        u
    };
    #[allow(clippy::cast_precision_loss)] // seconds and microseconds of a short run
    let secs = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
    (secs(u.ru_utime), secs(u.ru_stime), u.ru_minflt)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage_text = "usage: fresh MODULE.wasm REQUEST.json [RENDERS]";
    let module_path = args.next().ok_or(usage_text)?;
    #[allow(clippy::disallowed_methods)] // an example run by hand: reading its inputs is its job
    let request = std::fs::read(args.next().ok_or(usage_text)?)?;
    let renders: u32 = args.next().map_or(Ok(500), |r| r.parse())?;

    let config = if std::env::var_os("XPRENDER_ON_DEMAND").is_some() {
        let mut c = Config::new();
        c.cranelift_opt_level(OptLevel::Speed);
        c.epoch_interruption(true);
        c
    } else {
        engine_config(1)
    };
    let engine = Engine::new(&config)?;
    let module = Module::from_file(&engine, &module_path)?;
    let pre = Linker::new(&engine).instantiate_pre(&module)?;
    let render = || -> Result<(), Box<dyn std::error::Error>> {
        let mut store = Store::new(&engine, ());
        store.set_epoch_deadline(1);
        let instance = pre.instantiate(&mut store)?;
        guest::render(&mut store, &instance, &request)?;
        Ok(())
    };
    for _ in 0..20 {
        render()?;
    }
    let (user0, sys0, faults0) = usage();
    let started = std::time::Instant::now();
    for _ in 0..renders {
        render()?;
    }
    let wall = started.elapsed().as_secs_f64();
    let (user1, sys1, faults1) = usage();
    let per = |x: f64| x / f64::from(renders) * 1e6;
    #[allow(clippy::cast_precision_loss)] // a fault count
    let faults = (faults1 - faults0) as f64 / f64::from(renders);
    println!(
        "per render: {:.0} µs wall, {:.0} µs user, {:.0} µs system, {faults:.1} page faults",
        per(wall),
        per(user1 - user0),
        per(sys1 - sys0),
    );
    Ok(())
}
