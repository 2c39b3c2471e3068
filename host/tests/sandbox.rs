//! The wasmtime sandbox: memory cap, time limit, engine traps, ABI violations, module cache.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{abi_module, engine, run, temp_dir, write, xprender};

const XR: &str = "apiVersion: example.org/v1\nkind: XThing\nmetadata:\n  name: thing\n";
const COMP: &str = "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: c\n\
spec:\n  compositeTypeRef:\n    apiVersion: example.org/v1\n    kind: XThing\n  resources: []\n";

fn inputs(dir: &Path) -> (PathBuf, PathBuf) {
    (write(dir, "xr.yaml", XR), write(dir, "comp.yaml", COMP))
}

/// Grows memory a page at a time until refused, then does what Rust's allocator does: abort.
const GREEDY: &str = "(block $full (loop $more
      (br_if $full (i32.eq (memory.grow (i32.const 1)) (i32.const -1)))
      (br $more)))
    unreachable";

#[test]
fn out_of_memory_is_a_clear_error() {
    let dir = temp_dir("oom");
    let (xr, comp) = inputs(&dir);
    let greedy = engine(&dir, "greedy.wasm", &abi_module(GREEDY, 1));
    let started = Instant::now();
    let (code, out, err) = run(xprender()
        .arg("render")
        .arg(&xr)
        .arg(&comp)
        .arg("--engine")
        .arg(&greedy));
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty());
    assert!(
        err.contains(
            "the engine ran out of memory: it needed more than 256 MiB (raise it with --max-memory)"
        ),
        "{err}"
    );
    assert!(started.elapsed() < Duration::from_secs(60));

    let (code, _, err) = run(xprender()
        .arg("render")
        .arg(&xr)
        .arg(&comp)
        .args(["--max-memory", "8MiB", "--engine"])
        .arg(&greedy));
    assert_eq!(code, 1);
    assert!(err.contains("more than 8 MiB"), "{err}");

    // A request larger than the cap cannot even be copied in.
    let big = write(
        &dir,
        "big.json",
        &format!("{{\"xr\": \"{}\"}}", "x".repeat(200 << 10)),
    );
    let echo = common::echo_engine(&dir);
    let (code, _, err) = run(xprender()
        .arg("render")
        .arg("--request")
        .arg(&big)
        .args(["--max-memory", "128KiB", "--engine"])
        .arg(&echo));
    assert_eq!(code, 1);
    assert!(
        err.contains("ran out of memory: it needed more than 128 KiB"),
        "{err}"
    );
}

#[test]
fn time_limit_interrupts_an_endless_engine() {
    let dir = temp_dir("timeout");
    let (xr, comp) = inputs(&dir);
    let spin = engine(
        &dir,
        "spin.wasm",
        &abi_module("(loop $forever (br $forever)) unreachable", 1),
    );
    let started = Instant::now();
    let (code, out, err) = run(xprender()
        .arg("render")
        .arg(&xr)
        .arg(&comp)
        .args(["--timeout", "300ms", "--engine"])
        .arg(&spin));
    let took = started.elapsed();
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty());
    assert!(
        err.contains("the render timed out after 300ms (raise it with --timeout)"),
        "{err}"
    );
    assert!(
        took >= Duration::from_millis(300) && took < Duration::from_secs(30),
        "{took:?}"
    );

    // The default is 2 s.
    let started = Instant::now();
    let (code, _, err) = run(xprender()
        .arg("render")
        .arg(&xr)
        .arg(&comp)
        .arg("--engine")
        .arg(&spin));
    assert_eq!(code, 1);
    assert!(err.contains("timed out after 2s"), "{err}");
    assert!(started.elapsed() >= Duration::from_secs(2));
}

#[test]
fn engine_traps_are_reported_as_engine_bugs() {
    let dir = temp_dir("trap");
    let (xr, comp) = inputs(&dir);
    let crash = engine(&dir, "crash.wasm", &abi_module("unreachable", 1));
    let (code, _, err) = run(xprender()
        .arg("render")
        .arg(&xr)
        .arg(&comp)
        .arg("--engine")
        .arg(&crash));
    assert_eq!(code, 1);
    assert!(
        err.contains("the engine crashed (wasm trap: wasm `unreachable` instruction executed)"),
        "{err}"
    );
    assert!(
        err.contains("this is a bug in xprender's engine, not in your input"),
        "{err}"
    );

    let divide = engine(
        &dir,
        "divide.wasm",
        &abi_module("(i64.div_s (i64.const 1) (i64.const 0))", 1),
    );
    let (code, _, err) = run(xprender()
        .arg("render")
        .arg(&xr)
        .arg(&comp)
        .arg("--engine")
        .arg(&divide));
    assert_eq!(code, 1);
    assert!(
        err.contains("the engine crashed (wasm trap: integer divide by zero)")
            || err.contains("integer divide by zero"),
        "{err}"
    );
}

#[test]
fn abi_violations() {
    let dir = temp_dir("abi");
    let (xr, comp) = inputs(&dir);
    let cases = [
        (
            "v2.wasm",
            abi_module("(i64.const 0)", 2),
            1,
            "does not speak the xprender ABI: it speaks ABI version 2, this host speaks 1",
        ),
        (
            "outside.wasm",
            abi_module("(i64.const 0x7fff000000000100)", 1),
            1,
            "returned a response (0x7fff0000, 256 bytes) outside memory",
        ),
        (
            "no-render.wasm",
            "(module (memory (export \"memory\") 1) (func (export \"xprender_alloc\") (param i32) (result i32) (i32.const 0)))".into(),
            1,
            "export xprender_free(i32, i32)",
        ),
        (
            "imports.wasm",
            "(module (import \"env\" \"now\" (func)) (memory (export \"memory\") 1))".into(),
            2,
            "the engine module imports env::now; an xprender core module must import nothing",
        ),
        ("not-wasm.wasm", String::new(), 2, "cannot compile the engine module"),
    ];
    for (name, wat_text, want_code, needle) in cases {
        let module = if wat_text.is_empty() {
            write(&dir, name, "this is not wasm")
        } else {
            engine(&dir, name, &wat_text)
        };
        let (code, _, err) = run(xprender()
            .arg("render")
            .arg(&xr)
            .arg(&comp)
            .arg("--engine")
            .arg(&module));
        assert_eq!(code, want_code, "{name}: {err}");
        assert!(err.contains(needle), "{name}: {err}");
    }
}

#[test]
fn version_of_another_engine() {
    let dir = temp_dir("version-engine");
    let echo = common::echo_engine(&dir);
    let (code, out, err) = run(xprender().args(["version", "--engine"]).arg(&echo));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&format!("engine:   {}", echo.display())),
        "{out}"
    );
    assert!(out.contains("abi:      1"), "{out}");
}

fn cache_entries(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    entries.sort();
    entries
}

#[test]
fn module_cache_is_reused_and_repaired() {
    let dir = temp_dir("cache");
    let cache = dir.join("cache");
    let (xr, comp) = inputs(&dir);
    let echo = common::echo_engine(&dir);
    let render = || {
        let (code, _, err) = run(xprender()
            .env("XPRENDER_CACHE_DIR", &cache)
            .env("XPRENDER_LOG", "debug")
            .arg("render")
            .arg(&xr)
            .arg(&comp)
            .args(["--output", "json", "--engine"])
            .arg(&echo));
        assert_eq!(code, 0, "{err}");
        err
    };
    assert!(render().contains("engine module Compiled"));
    let entries = cache_entries(&cache);
    assert_eq!(entries.len(), 1, "{entries:?}");
    let entry = &entries[0];
    let name = entry.file_name().unwrap().to_str().unwrap();
    assert!(
        name.contains("-wasmtime48.") && name.ends_with(".cwasm"),
        "{name}"
    );
    assert!(render().contains("engine module Cache"));

    // A corrupt entry (one flipped byte) is recompiled and replaced.
    let mut bytes = std::fs::read(entry).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    std::fs::write(entry, &bytes).unwrap();
    assert!(render().contains("engine module Compiled"));
    assert!(render().contains("engine module Cache"));
    // A truncated one too.
    let bytes = std::fs::read(entry).unwrap();
    std::fs::write(entry, &bytes[..10]).unwrap();
    assert!(render().contains("engine module Compiled"));
    assert_eq!(
        cache_entries(&cache).len(),
        1,
        "no temporary files left behind"
    );

    // An unwritable cache costs speed, not the render.
    let blocked = dir.join("blocked");
    std::fs::write(&blocked, "a file, not a directory").unwrap();
    let (code, _, err) = run(xprender()
        .env("XPRENDER_CACHE_DIR", blocked.join("sub"))
        .arg("render")
        .arg(&xr)
        .arg(&comp)
        .args(["--output", "json", "--engine"])
        .arg(&echo));
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning: cannot write the module cache"),
        "{err}"
    );
}

/// The bundled engine is loaded as build.rs precompiled it, so a first render with an empty
/// cache compiles nothing and writes no entry; turned off, it is compiled and cached, and the
/// render is the same.
#[test]
fn the_bundled_engine_is_loaded_precompiled() {
    let dir = temp_dir("precompiled");
    let render = |cache: &Path, precompiled: &str| {
        let (code, out, err) = run(xprender()
            .env("XPRENDER_CACHE_DIR", cache)
            .env("XPRENDER_LOG", "debug")
            .env("XPRENDER_PRECOMPILED", precompiled)
            .arg("render")
            .arg(common::example("xr.yaml"))
            .arg(common::example("composition.yaml"))
            .arg("--observed-resources")
            .arg(common::example("observed.yaml")));
        assert_eq!(code, 0, "{err}");
        (out, err)
    };
    let (shipped, err) = render(&dir.join("empty"), "on");
    assert!(err.contains("engine module Precompiled"), "{err}");
    assert!(cache_entries(&dir.join("empty")).is_empty());
    let (compiled, err) = render(&dir.join("off"), "off");
    assert!(err.contains("engine module Compiled"), "{err}");
    assert_eq!(cache_entries(&dir.join("off")).len(), 1);
    assert_eq!(shipped, compiled);
}

#[test]
fn module_cache_keeps_the_newest_entries() {
    let dir = temp_dir("cache-prune");
    let cache = dir.join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    let old = std::time::SystemTime::now() - Duration::from_secs(3600);
    for i in 0..20 {
        let p = cache.join(format!("old-{i:02}.cwasm"));
        std::fs::write(&p, "stale").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_modified(old + Duration::from_secs(i))
            .unwrap();
    }
    write(&cache, "notes.txt", "not an entry");
    let (xr, comp) = inputs(&dir);
    let echo = common::echo_engine(&dir);
    let (code, _, err) = run(xprender()
        .env("XPRENDER_CACHE_DIR", &cache)
        .arg("render")
        .arg(&xr)
        .arg(&comp)
        .args(["--output", "json", "--engine"])
        .arg(&echo));
    assert_eq!(code, 0, "{err}");
    let names: Vec<String> = cache_entries(&cache)
        .iter()
        .map(|p| p.file_name().unwrap().to_str().unwrap().to_owned())
        .collect();
    assert_eq!(names.len(), 17, "{names:?}");
    assert!(names.contains(&"notes.txt".to_owned()));
    assert!(
        !names.contains(&"old-04.cwasm".to_owned()),
        "the oldest go first: {names:?}"
    );
    assert!(
        names.contains(&"old-05.cwasm".to_owned()) && names.contains(&"old-19.cwasm".to_owned()),
        "{names:?}"
    );
    assert_eq!(
        names.iter().filter(|n| n.contains("-wasmtime")).count(),
        1,
        "the new entry stays"
    );
}
