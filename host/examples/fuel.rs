//! Counts the wasm instructions (wasmtime fuel) a render of a workload costs, which unlike
//! time does not move with the machine's load: first on a fresh instance, then per render on
//! a live one that keeps the Composition's plan.
//!
//! `cargo run --release -p xprender-host --example fuel -- MODULE.wasm REQUEST.json [ROUNDS]`

use wasmtime::{Config, Engine, Instance, Linker, Module, Store};

#[path = "common/guest.rs"]
mod guest;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: fuel MODULE.wasm REQUEST.json [ROUNDS]";
    let module_path = args.next().ok_or(usage)?;
    let request_path = args.next().ok_or(usage)?;
    let rounds: u64 = args.next().map_or(Ok(10), |r| r.parse())?;
    #[allow(clippy::disallowed_methods)] // an example run by hand: reading its inputs is its job
    let request = std::fs::read(&request_path)?;

    let mut config = Config::new();
    config.consume_fuel(true);
    let engine = Engine::new(&config)?;
    let module = Module::from_file(&engine, &module_path)?;
    let linker = Linker::new(&engine);
    let mut store = Store::new(&engine, ());
    store.set_fuel(u64::MAX)?;
    let instance = linker.instantiate(&mut store, &module)?;

    let first = render(&mut store, &instance, &request)?;
    let start = store.get_fuel()?;
    for _ in 0..rounds {
        render(&mut store, &instance, &request)?;
    }
    let live = (start - store.get_fuel()?) / rounds.max(1);
    println!("fresh instance: {first} instructions");
    println!("live instance:  {live} instructions per render ({rounds} renders)");
    Ok(())
}

/// One render through the C ABI; returns the fuel it consumed.
fn render(
    store: &mut Store<()>,
    instance: &Instance,
    request: &[u8],
) -> Result<u64, Box<dyn std::error::Error>> {
    let before = store.get_fuel()?;
    guest::render(store, instance, request)?;
    Ok(before - store.get_fuel()?)
}
