//! The hostile requests of docs/security.md and a measure of one run of the CLI (exit code,
//! wall time, peak resident memory), shared by `tests/bounds.rs` (the memory bound, asserted)
//! and `benches/refusals.rs` (the figures, measured on a release build).
#![allow(dead_code, unreachable_pub)]

use std::io::Read as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What a run of the CLI did.
pub struct Run {
    pub code: i32,
    /// Bytes written on stdout (not kept: outputs are large).
    pub out_len: usize,
    /// The first 4 KiB of stdout.
    pub out_head: String,
    pub err: String,
    /// Peak resident memory of the process, in bytes.
    pub peak: u64,
    pub elapsed: Duration,
}

/// Runs `cmd` to its end. Peak memory is the child's own `ru_maxrss` (wait4), so runs in
/// parallel do not blur each other's figures.
// The child is reaped by wait4 below, which std's Child cannot see.
#[allow(clippy::zombie_processes)]
pub fn measure(cmd: &mut Command) -> Run {
    let started = Instant::now();
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let (mut len, mut head) = (0, Vec::new());
        let mut buf = vec![0u8; 1 << 16];
        loop {
            let n = stdout.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            if head.len() < 4096 {
                head.extend_from_slice(&buf[..n.min(4096)]);
            }
            len += n;
        }
        (len, String::from_utf8_lossy(&head).into_owned())
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        stderr.read_to_string(&mut s).unwrap();
        s
    });
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    let mut status = 0;
    // SAFETY: plain wait4 on our own child; rusage is a C struct that zeroed is valid for.
    #[allow(unsafe_code)]
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        assert_eq!(libc::wait4(pid, &raw mut status, 0, &raw mut usage), pid);
        usage
    };
    let elapsed = started.elapsed();
    let (out_len, out_head) = out.join().unwrap();
    Run {
        code: if libc::WIFEXITED(status) {
            libc::WEXITSTATUS(status)
        } else {
            -1
        },
        out_len,
        out_head,
        err: err.join().unwrap(),
        peak: u64::try_from(usage.ru_maxrss).unwrap() * 1024,
        elapsed,
    }
}

#[allow(clippy::cast_precision_loss)]
pub fn mib(n: u64) -> f64 {
    n as f64 / f64::from(1 << 20)
}

pub const COMPOSITION: &str = r#"{"apiVersion": "apiextensions.crossplane.io/v1", "kind": "Composition",
 "metadata": {"name": "c"},
 "spec": {"compositeTypeRef": {"apiVersion": "example.org/v1", "kind": "XThing"},
  "resources": [{"name": "cm", "base": {"apiVersion": "v1", "kind": "ConfigMap"},
   "patches": [{"fromFieldPath": "spec.items", "toFieldPath": "data.items",
     "transforms": [{"type": "string", "string": {"type": "Format", "fmt": "%d"}}]}]}]}}"#;

/// A render request of an XR with this spec and [`COMPOSITION`].
pub fn request_with_spec(spec: &str) -> String {
    format!(
        r#"{{"xr": {{"apiVersion": "example.org/v1", "kind": "XThing", "metadata": {{"name": "x"}}, "spec": {spec}}}, "composition": {COMPOSITION}}}"#
    )
}

/// Two million small objects in the XR's `spec.items`.
pub fn two_million_small_objects() -> String {
    let mut items = String::with_capacity(24 << 20);
    for i in 0..2_000_000 {
        if i > 0 {
            items.push(',');
        }
        items.push_str(r#"{"k":"v"}"#);
    }
    request_with_spec(&format!(r#"{{"items": [{items}]}}"#))
}

/// A Composition of `n` resources.
pub fn resources(n: usize) -> String {
    let mut resources = String::new();
    for i in 0..n {
        if i > 0 {
            resources.push(',');
        }
        resources.push_str(&format!(
            r#"{{"name": "r{i}", "base": {{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {{"name": "r{i}"}}, "data": {{"a": "b"}}}}}}"#
        ));
    }
    format!(
        r#"{{"xr": {{"apiVersion": "example.org/v1", "kind": "XThing", "metadata": {{"name": "x"}}}},
 "composition": {{"apiVersion": "apiextensions.crossplane.io/v1", "kind": "Composition",
 "metadata": {{"name": "c"}}, "spec": {{"compositeTypeRef": {{"apiVersion": "example.org/v1", "kind": "XThing"}},
 "resources": [{resources}]}}}}}}"#
    )
}

/// The same resources as the input of a function-patch-and-transform pipeline step.
pub fn pipeline_resources(n: usize) -> String {
    let classic = resources(n);
    let start = classic.find(r#""resources": ["#).unwrap();
    let list = &classic[start + r#""resources": "#.len()..classic.len() - 3];
    format!(
        r#"{{"xr": {{"apiVersion": "example.org/v1", "kind": "XThing", "metadata": {{"name": "x"}}}},
 "composition": {{"apiVersion": "apiextensions.crossplane.io/v1", "kind": "Composition",
 "metadata": {{"name": "c"}}, "spec": {{"compositeTypeRef": {{"apiVersion": "example.org/v1", "kind": "XThing"}},
 "mode": "Pipeline", "pipeline": [{{"step": "pt", "functionRef": {{"name": "function-patch-and-transform"}},
 "input": {{"apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources", "resources": {list}}}}}]}}}}}}"#
    )
}

/// An XR spec with a key of 1 MiB.
pub fn a_one_mebibyte_key() -> String {
    let key = "k".repeat(1 << 20);
    request_with_spec(&format!(r#"{{"{key}": 1, "items": 7}}"#))
}

/// `depth` nested arrays.
pub fn nested(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

/// An XR whose `spec.items` nests `depth` arrays deep.
pub fn nesting(depth: usize) -> String {
    request_with_spec(&format!(r#"{{"items": {}}}"#, nested(depth)))
}

/// A request padded past `bytes` with one long string.
pub fn padded(bytes: usize) -> String {
    request_with_spec(&format!(r#"{{"pad": "{}"}}"#, "x".repeat(bytes)))
}
