//! Builds the engine's core wasm module from this very commit and optimizes it for embedding.
//!
//! The module is built by a nested `cargo build --profile wasm --target wasm32-unknown-unknown
//! -p xprender` in a target directory of its own (the outer cargo holds the lock on its own),
//! then optimized with binaryen's `wasm-opt -O3` from the repository's `node_modules` when
//! present (`-O3` rather than `-Oz`: 1.5 % fewer machine instructions per render for 0.4 %
//! more bytes, docs/benchmarks.md).
//! `src/runtime` embeds the result with `include_bytes!`. A toolchain without the wasm32 target
//! that rustup cannot add it to (no network) embeds the committed `assets/xprender-core.wasm`
//! instead, which `scripts/build-embedded.sh` writes and the test command proves current.
//!
//! The module is then compiled ahead of time with the host's own wasmtime configuration
//! (`src/runtime/config.rs`, shared with this script) for the target's baseline CPU, so a fresh
//! process loads machine code instead of running Cranelift (`src/runtime/cache.rs`).
//!
//! It also generates the gRPC code of `function serve` from `proto/` with protox, a protobuf
//! compiler in Rust, so no system `protoc` is needed.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

// The configuration every render runs under: the precompiled module must match it.
#[allow(dead_code, unreachable_pub)]
#[path = "src/runtime/config.rs"]
mod config;

fn main() {
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let root = manifest_dir
        .parent()
        .expect("host/ lives in the workspace")
        .to_path_buf();
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets it"));
    compile_protos(&manifest_dir);

    for path in ["src", "Cargo.toml", "Cargo.lock", "rust-toolchain.toml"] {
        println!("cargo:rerun-if-changed={}", root.join(path).display());
    }
    println!("cargo:rerun-if-env-changed=XPRENDER_WASM_OPT");
    // The embedded playground (rust-embed) lists this directory: a file added or removed there
    // must rebuild the binary.
    println!(
        "cargo:rerun-if-changed={}",
        manifest_dir.join("assets/playground").display()
    );

    let shipped = out_dir.join("xprender.wasm");
    let optimized = if ensure_wasm_target() {
        let raw = build_core_module(&root, &core_target_dir(&out_dir));
        if optimize(&root, &raw, &shipped) {
            "true"
        } else {
            "false"
        }
    } else {
        let prebuilt = manifest_dir.join(PREBUILT);
        println!("cargo:rerun-if-changed={}", prebuilt.display());
        println!(
            "cargo:warning=the wasm32-unknown-unknown target is missing and rustup could not \
             add it: embedding the prebuilt core module host/{PREBUILT} (the engine as of the \
             last `scripts/build-embedded.sh`); add the target to build it from src/"
        );
        std::fs::copy(&prebuilt, &shipped).expect("copy the prebuilt core module");
        "prebuilt"
    };
    let precompiled = out_dir.join("xprender.cwasm");
    let started = std::time::Instant::now();
    let result = precompile(&shipped, &precompiled);
    // Kept in the build script's stderr file (target/*/build/xprender-host-*/stderr).
    eprintln!("precompiling the core module took {:?}", started.elapsed());
    if let Err(e) = result {
        // The binary still works: it compiles the module at run time, as it would for a
        // CPU the artifact does not suit.
        println!("cargo:warning=cannot precompile the core module: {e}");
        std::fs::write(&precompiled, b"").expect("write OUT_DIR/xprender.cwasm");
    }
    println!(
        "cargo:rustc-env=XPRENDER_CORE_CWASM={}",
        precompiled.display()
    );
    println!(
        "cargo:rustc-env=XPRENDER_WASMTIME_VERSION={}",
        locked_version(&root, "wasmtime")
    );
    println!("cargo:rustc-env=XPRENDER_CORE_WASM={}", shipped.display());
    println!("cargo:rustc-env=XPRENDER_CORE_OPTIMIZED={optimized}");
}

/// The committed core module (relative to host/), for toolchains that cannot build one.
const PREBUILT: &str = "assets/xprender-core.wasm";

/// Optimizes the module with wasm-opt into `shipped`; says whether it could.
fn optimize(root: &Path, raw: &Path, shipped: &Path) -> bool {
    match wasm_opt(root) {
        Some(wasm_opt) => {
            println!("cargo:rerun-if-changed={}", wasm_opt.display());
            run(Command::new(&wasm_opt)
                .args(["-O3", "--strip-debug", "--strip-producers"])
                .arg(raw)
                .arg("-o")
                .arg(shipped));
            true
        }
        None => {
            // A fresh clone before `npm ci`: ship the module as rustc built it. Re-run once
            // node_modules appears, so the optimized module replaces it without a manual step.
            println!(
                "cargo:rerun-if-changed={}",
                root.join("node_modules").display()
            );
            println!(
                "cargo:warning=wasm-opt not found (run `npm ci` at the repository root): \
                 embedding the unoptimized core module"
            );
            std::fs::copy(raw, shipped).expect("copy the core module");
            false
        }
    }
}

/// Compiles `wasm` for the target with the runtime's configuration into `out`.
///
/// On x86_64 the code may use x86-64-v2 (SSE4.2, POPCNT, CMPXCHG16B, every x86_64 server
/// since 2009), not the build machine's own features: the binary is shipped (the Function
/// package runs on whatever node it lands on), and wasmtime refuses an artifact that needs a
/// feature the running CPU lacks, so a narrower set makes it load everywhere.
fn precompile(wasm: &Path, out: &Path) -> Result<(), String> {
    let triple = env::var("TARGET").map_err(|e| e.to_string())?;
    let mut config = config::config(1);
    config.target(&triple).map_err(|e| format!("{e:#}"))?;
    if triple.starts_with("x86_64-") {
        // SAFETY: a preset of x86_64's own feature flags; wasmtime checks at load time that
        // the running CPU has every feature the artifact was compiled with.
        #[allow(unsafe_code)]
        unsafe {
            config.cranelift_flag_enable("nehalem");
        }
    }
    let engine = wasmtime::Engine::new(&config).map_err(|e| format!("{e:#}"))?;
    let wasm = std::fs::read(wasm).map_err(|e| e.to_string())?;
    let artifact = engine
        .precompile_module(&wasm)
        .map_err(|e| format!("{e:#}"))?;
    std::fs::write(out, artifact).map_err(|e| e.to_string())
}

/// Crossplane's function protocol (v1 and the v1beta1 alias), server and client.
fn compile_protos(manifest_dir: &Path) {
    let proto = manifest_dir.join("proto");
    println!("cargo:rerun-if-changed={}", proto.display());
    let files = ["fn/v1/run_function.proto", "fn/v1beta1/run_function.proto"];
    let fds = protox::compile(files, [&proto]).unwrap_or_else(|e| panic!("{e:?}"));
    // The server holds each `google.protobuf.Struct` as its bytes (src/function/wire/).
    tonic_prost_build::configure()
        // Go's nesting limit rather than prost's (host/src/function/codec.rs).
        .codec_path("super::super::codec::BoundedCodec")
        // Maps in key order, as Go writes them with `Deterministic`: the same answer is the
        // same bytes every time.
        .btree_map(".")
        .extern_path(".google.protobuf.Struct", "crate::function::wire::Struct")
        .build_client(false)
        .compile_fds(fds.clone())
        .expect("generate the gRPC code");
    // Its clients (tests, benches) use prost's types, as any other client would.
    let client = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets it")).join("client");
    std::fs::create_dir_all(&client).expect("create OUT_DIR/client");
    tonic_prost_build::configure()
        .codec_path("super::super::codec::BoundedCodec")
        .btree_map(".")
        .build_server(false)
        .out_dir(client)
        .compile_fds(fds)
        .expect("generate the gRPC client code");
}

/// A target directory beside the outer one (`<target>/xprender-core`), so the nested cargo
/// neither waits on the outer build's lock nor rebuilds from scratch per profile, or per
/// target: a `--target` build (the static one of `scripts/build-static.sh`) shares it too.
fn core_target_dir(out_dir: &Path) -> PathBuf {
    // OUT_DIR is <target>[/<triple>]/<profile>/build/<pkg>-<hash>/out.
    let mut dir = out_dir.ancestors().nth(4);
    let triple = env::var("TARGET").unwrap_or_default();
    if dir.is_some_and(|d| d.file_name().is_some_and(|n| n == triple.as_str())) {
        dir = dir.and_then(Path::parent);
    }
    dir.map_or_else(|| out_dir.join("core-target"), |t| t.join("xprender-core"))
}

/// The wasm32 standard library is in the sysroot of the compiler this build uses.
fn wasm_target_installed() -> bool {
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let sysroot = Command::new(rustc)
        .args(["--print", "sysroot"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    sysroot.is_some_and(|s| {
        s.join("lib/rustlib/wasm32-unknown-unknown/lib")
            .read_dir()
            .is_ok_and(|mut d| d.next().is_some())
    })
}

/// A pinned toolchain installed without the wasm32 target (rustup adds the targets of
/// rust-toolchain.toml only when it installs the toolchain): add it with rustup. False when it
/// stays missing (offline, or a toolchain rustup does not manage).
fn ensure_wasm_target() -> bool {
    if wasm_target_installed() {
        return true;
    }
    let mut rustup = Command::new("rustup");
    rustup.args(["target", "add", "wasm32-unknown-unknown"]);
    if let Some(toolchain) = env::var_os("RUSTUP_TOOLCHAIN") {
        rustup.arg("--toolchain").arg(toolchain);
    }
    println!(
        "cargo:warning=the wasm32-unknown-unknown target is missing: running `rustup target add \
         wasm32-unknown-unknown` to build the engine's core module"
    );
    let added = rustup
        .stdout(std::io::stderr())
        .status()
        .is_ok_and(|s| s.success());
    added && wasm_target_installed()
}

fn build_core_module(root: &Path, target_dir: &Path) -> PathBuf {
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(root)
        .args([
            "build",
            "--profile",
            "wasm",
            "--target",
            "wasm32-unknown-unknown",
        ])
        .args(["-p", "xprender", "--target-dir"])
        .arg(target_dir);
    // The outer build's settings (target, profile, flags, features, jobserver) must not leak
    // into the nested one: it always builds the same shipped artifact.
    for (key, _) in env::vars_os() {
        let Some(key) = key.to_str() else { continue };
        let inherited_cargo = key.starts_with("CARGO_") && key != "CARGO_HOME";
        let rust_flags = matches!(
            key,
            "RUSTFLAGS"
                | "RUSTDOCFLAGS"
                | "RUSTC_WRAPPER"
                | "RUSTC_WORKSPACE_WRAPPER"
                | "TARGET"
                | "HOST"
                | "OUT_DIR"
                | "PROFILE"
                | "OPT_LEVEL"
                | "DEBUG"
                | "NUM_JOBS"
                | "RUSTC_LINKER"
                | "MAKEFLAGS"
                | "MFLAGS"
        );
        if inherited_cargo || rust_flags {
            cmd.env_remove(key);
        }
    }
    // Dependencies' source paths (in panic locations) differ per machine: name them alike, so
    // the module's bytes depend on the commit only and the committed one can be checked.
    let cargo_home = env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    if let Some(home) = cargo_home {
        let mut flag = std::ffi::OsString::from("--remap-path-prefix=");
        flag.push(home);
        flag.push("=/cargo");
        cmd.env("CARGO_ENCODED_RUSTFLAGS", flag);
    }
    let status = cmd
        .stdout(std::io::stderr())
        .status()
        .unwrap_or_else(|e| panic!("cannot run cargo for the core module: {e}"));
    assert!(
        status.success(),
        "building the engine's core module failed ({status}); is the wasm32 target installed? \
         (rustup target add wasm32-unknown-unknown)"
    );
    target_dir.join("wasm32-unknown-unknown/wasm/xprender.wasm")
}

/// The version of `package` in Cargo.lock (for `xprender version` and the module cache key).
fn locked_version(root: &Path, package: &str) -> String {
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).unwrap_or_default();
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line == format!("name = \"{package}\"")
            && let Some(v) = lines.next().and_then(|l| l.strip_prefix("version = "))
        {
            return v.trim_matches('"').to_owned();
        }
    }
    "unknown".to_owned()
}

/// binaryen's wasm-opt: `$XPRENDER_WASM_OPT`, else the repository's npm install.
fn wasm_opt(root: &Path) -> Option<PathBuf> {
    if let Some(p) = env::var_os("XPRENDER_WASM_OPT") {
        return Some(PathBuf::from(p));
    }
    let p = root.join("node_modules/.bin/wasm-opt");
    p.is_file().then_some(p)
}

fn run(cmd: &mut Command) {
    // Anything the tools print must not be read as `cargo:` instructions.
    let status = cmd
        .stdout(std::io::stderr())
        .status()
        .unwrap_or_else(|e| panic!("cannot run {:?}: {e}", cmd.get_program()));
    assert!(status.success(), "{cmd:?} failed: {status}");
}
