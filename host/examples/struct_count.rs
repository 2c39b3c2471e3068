//! The function server's reading of a request's `google.protobuf.Struct` and its writing as
//! JSON, for counting the machine instructions they take with valgrind's callgrind.
//!
//! `struct_count WORKLOAD.json N` takes the function input of a function-step workload
//! (`benches/workloads/medium-step.json`), writes it N times in Go's map order, each an order
//! of its own, then decodes and writes each in `run`:
//!
//! ```text
//! valgrind --tool=callgrind --toggle-collect=struct_count::run \
//!   target/release/examples/struct_count benches/workloads/medium-step.json 20
//! ```

// The server's reader is private to the host: the example compiles its file.
#[allow(dead_code, unused_imports)]
#[path = "../src/function/wire/mod.rs"]
mod wire;

use prost::Message as _;
use serde_json::Value as Json;
use xprender_host::unstable::{go_order, structs};

#[inline(never)]
fn decode(bytes: &[u8]) -> wire::Struct {
    wire::Struct::decode(bytes).expect("the input decodes")
}

#[inline(never)]
fn write(input: &wire::Struct) -> usize {
    let mut out = Vec::with_capacity(64 << 10);
    input
        .write_json(&mut out, &[("kind", "Resources")])
        .expect("the input has no NaN");
    out.len()
}

#[inline(never)]
fn run(orderings: &[Vec<u8>]) -> usize {
    orderings.iter().map(|b| write(&decode(b))).sum()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [workload, n] = args.as_slice() else {
        return Err("usage: struct_count WORKLOAD.json N".into());
    };
    let workload: Json = serde_json::from_str(&std::fs::read_to_string(workload)?)?;
    let input = &workload["composition"]["spec"]["pipeline"][0]["input"];
    let input = structs::from_json(input);
    let mut rng = go_order::Rng(1);
    let orderings: Vec<Vec<u8>> = (0..n.parse::<usize>()?)
        .map(|_| go_order::go_struct(&input, &mut rng))
        .collect();
    println!("{} bytes of JSON written", run(&orderings));
    Ok(())
}
