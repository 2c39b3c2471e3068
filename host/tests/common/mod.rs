//! Shared helpers of the CLI tests: spawning the binary, temp dirs, test-only engine modules.
#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The golden fixtures as renders, each case once per semantics it runs (the engine's tests
/// read them through the same file).
#[path = "../../../tests/support/fixtures.rs"]
pub mod fixtures;

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A file of the bundled example.
pub fn example(file: &str) -> PathBuf {
    root().join("examples/platform-db").join(file)
}

/// The module cache all tests share (each test-only engine module compiles once per run).
pub fn cache_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("xprender-module-cache")
}

/// `xprender` with the shared module cache (for engines other than the bundled one, which the
/// binary carries precompiled).
pub fn xprender() -> Command {
    // XPRENDER_TEST_BIN runs another build of the CLI (e.g. a copy taken right after the
    // build, when several checkouts share one target directory).
    let bin = std::env::var_os("XPRENDER_TEST_BIN")
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_xprender").into());
    let mut cmd = Command::new(bin);
    cmd.env("XPRENDER_CACHE_DIR", cache_dir())
        .env_remove("XPRENDER_LOG")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null());
    cmd
}

/// Runs the command; returns (exit code, stdout, stderr).
pub fn run(cmd: &mut Command) -> (i32, String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = cmd.output().unwrap();
    (
        status.code().unwrap_or(-1),
        String::from_utf8(stdout).unwrap(),
        String::from_utf8(stderr).unwrap(),
    )
}

/// A fresh directory for one test.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cli-tests")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `text` to `dir/name` and returns the path.
pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Writes a test-only engine module compiled from WAT to `dir/name`.
pub fn engine(dir: &Path, name: &str, wat_text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, wat::parse_str(wat_text).unwrap()).unwrap();
    p
}

/// The ABI's exports around a custom `xprender_render` body (a bump allocator, no-op free).
pub fn abi_module(render_body: &str, abi_version: i32) -> String {
    format!(
        r#"(module
  (memory (export "memory") 1)
  (global $heap (mut i32) (i32.const 1024))
  (func (export "xprender_alloc") (param $len i32) (result i32)
    (local $ptr i32)
    (local.set $ptr (global.get $heap))
    (global.set $heap (i32.add (global.get $heap) (local.get $len)))
    (block $done
      (loop $grow
        (br_if $done (i32.le_u (global.get $heap) (i32.mul (memory.size) (i32.const 65536))))
        (drop (memory.grow (i32.const 1)))
        (br $grow)))
    (local.get $ptr))
  (func (export "xprender_free") (param i32 i32))
  (func (export "xprender_abi_version") (result i32) (i32.const {abi_version}))
  (func (export "xprender_render") (param $ptr i32) (param $len i32) (result i64)
    {render_body}))"#
    )
}

/// An engine that answers every request with the request itself: shows what the CLI sent.
pub fn echo_engine(dir: &Path) -> PathBuf {
    engine(
        dir,
        "echo.wasm",
        &abi_module(
            "(i64.or (i64.shl (i64.extend_i32_u (local.get $ptr)) (i64.const 32)) (i64.extend_i32_u (local.get $len)))",
            1,
        ),
    )
}

/// An engine that answers every request with `response` (stored in a data segment).
pub fn canned_engine(dir: &Path, name: &str, response: &str) -> PathBuf {
    let escaped: String = response.bytes().map(|b| format!("\\{b:02x}")).collect();
    let len = response.len();
    let wat_text = format!(
        r#"(module
  (memory (export "memory") 2)
  (data (i32.const 65536) "{escaped}")
  (func (export "xprender_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "xprender_free") (param i32 i32))
  (func (export "xprender_abi_version") (result i32) (i32.const 1))
  (func (export "xprender_render") (param i32 i32) (result i64)
    (i64.or (i64.shl (i64.const 65536) (i64.const 32)) (i64.const {len}))))"#
    );
    engine(dir, name, &wat_text)
}

/// The request the CLI builds for these arguments (through the echo engine).
pub fn built_request(dir: &Path, args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&built_request_text(dir, args)).unwrap()
}

/// [`built_request`] as the JSON text the engine is handed.
pub fn built_request_text(dir: &Path, args: &[&str]) -> String {
    let echo = echo_engine(dir);
    let (code, out, err) = run(xprender()
        .arg("render")
        .args(args)
        .args(["--output", "json", "--engine"])
        .arg(&echo));
    assert_eq!(code, 0, "stderr: {err}");
    out.trim_end().to_owned()
}
