//! The host's own memory is bounded: hostile requests are rendered or refused with peak
//! resident memory of the `xprender` process at most 4x the request plus the engine's memory
//! limit, and requests over the limits are refused at once.
//!
//! Peak memory is the child's own `ru_maxrss` (wait4), so tests running in parallel do not
//! blur each other's figures.

mod common;

use std::io::Read as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{temp_dir, write, xprender};

/// What a run of the CLI did.
struct Run {
    code: i32,
    /// Bytes written on stdout (not kept: outputs are large).
    out_len: usize,
    /// The first and last lines of stdout.
    out_head: String,
    err: String,
    /// Peak resident memory of the process, in bytes.
    peak: u64,
    elapsed: Duration,
}

// The child is reaped by wait4 below, which std's Child cannot see.
#[allow(clippy::zombie_processes)]
fn measure(cmd: &mut Command) -> Run {
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

/// The engine's default memory limit (`--max-memory`).
const ENGINE_LIMIT: u64 = 256 << 20;

/// The target: peak resident memory at most 4x the request plus the engine's memory limit.
fn assert_bounded(run: &Run, request: &Path, what: &str) {
    let size = std::fs::metadata(request).unwrap().len();
    assert_within(run, size, ENGINE_LIMIT, what);
}

fn assert_within(run: &Run, size: u64, engine_limit: u64, what: &str) {
    let bound = 4 * size + engine_limit;
    eprintln!(
        "{what}: request {:.1} MiB, exit {}, {:.2?}, peak RSS {:.1} MiB (bound {:.1} MiB), stdout {} bytes",
        mib(size),
        run.code,
        run.elapsed,
        mib(run.peak),
        mib(bound),
        run.out_len
    );
    assert!(
        run.peak <= bound,
        "{what}: peak RSS {:.1} MiB over the bound {:.1} MiB",
        mib(run.peak),
        mib(bound)
    );
}

#[allow(clippy::cast_precision_loss)]
fn mib(n: u64) -> f64 {
    n as f64 / f64::from(1 << 20)
}

const COMPOSITION: &str = r#"{"apiVersion": "apiextensions.crossplane.io/v1", "kind": "Composition",
 "metadata": {"name": "c"},
 "spec": {"compositeTypeRef": {"apiVersion": "example.org/v1", "kind": "XThing"},
  "resources": [{"name": "cm", "base": {"apiVersion": "v1", "kind": "ConfigMap"},
   "patches": [{"fromFieldPath": "spec.items", "toFieldPath": "data.items",
     "transforms": [{"type": "string", "string": {"type": "Format", "fmt": "%d"}}]}]}]}}"#;

fn request_with_spec(spec: &str) -> String {
    format!(
        r#"{{"xr": {{"apiVersion": "example.org/v1", "kind": "XThing", "metadata": {{"name": "x"}}, "spec": {spec}}}, "composition": {COMPOSITION}}}"#
    )
}

#[test]
fn two_million_small_objects() {
    let dir = temp_dir("bounds-objects");
    let mut items = String::with_capacity(24 << 20);
    for i in 0..2_000_000 {
        if i > 0 {
            items.push(',');
        }
        items.push_str(r#"{"k":"v"}"#);
    }
    let request = write(
        &dir,
        "request.json",
        &request_with_spec(&format!(r#"{{"items": [{items}]}}"#)),
    );
    let size = std::fs::metadata(&request).unwrap().len();
    // With the default engine limit the engine runs out of memory, and says so.
    let run = measure(
        xprender()
            .args(["render", "--timeout", "60s", "--request"])
            .arg(&request),
    );
    assert_bounded(&run, &request, "two million small objects");
    assert_eq!(run.code, 1, "{}", run.err);
    assert!(
        run.err.contains("the engine ran out of memory"),
        "{}",
        run.err
    );

    // With room for the engine: the whole XR back as YAML, two million `- k: v` lines.
    let run = measure(
        xprender()
            .args(["render", "--max-memory", "1GiB", "--timeout", "60s"])
            .args(["--include-full-xr", "--request"])
            .arg(&request),
    );
    assert_within(&run, size, 1 << 30, "two million small objects (YAML)");
    assert_eq!(run.code, 0, "{}", run.err);
    assert!(
        run.out_head
            .starts_with("---\napiVersion: example.org/v1\n")
    );
    assert!(
        run.out_len > 2_000_000 * "  - k: v\n".len(),
        "{}",
        run.out_len
    );

    // JSON passes through as the engine wrote it.
    let run = measure(
        xprender()
            .args(["render", "--max-memory", "1GiB", "--timeout", "60s"])
            .args(["--output", "json", "--request"])
            .arg(&request),
    );
    assert_within(&run, size, 1 << 30, "two million small objects (JSON)");
    assert!(run.out_len > size as usize, "{}", run.out_len);
    assert_eq!(run.code, 0, "{}", run.err);
}

#[test]
fn two_hundred_thousand_resources_are_refused_at_once() {
    let dir = temp_dir("bounds-resources");
    let request_of = |n: usize| {
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
    };
    let request = write(&dir, "request.json", &request_of(200_000));
    let run = measure(xprender().args(["render", "--request"]).arg(&request));
    assert_bounded(&run, &request, "200,000 resources");
    assert_eq!(run.code, 1, "{}", run.err);
    // The engine's own error document, word for word.
    let engine = xprender::render_json(&request_of(100_001));
    assert!(engine.contains("more than 100000 entries"), "{engine}");
    assert_eq!(run.err.trim_end(), engine);
    // The target is under a second for an optimized build (`cargo test --release`); an
    // unoptimized test build scans the text many times slower, more so on a busy machine.
    let limit = if cfg!(debug_assertions) { 30 } else { 1 };
    assert!(
        run.elapsed < Duration::from_secs(limit),
        "refused after {:?}",
        run.elapsed
    );
}

#[test]
fn a_one_mebibyte_key() {
    let dir = temp_dir("bounds-key");
    let key = "k".repeat(1 << 20);
    let request = write(
        &dir,
        "request.json",
        &request_with_spec(&format!(r#"{{"{key}": 1, "items": 7}}"#)),
    );
    let run = measure(
        xprender()
            .args(["render", "--include-full-xr", "--request"])
            .arg(&request),
    );
    assert_bounded(&run, &request, "a 1 MiB key");
    assert_eq!(run.code, 0, "{}", run.err);
    assert!(run.out_len > 1 << 20);
}

#[test]
fn nesting_a_hundred_thousand_deep() {
    let dir = temp_dir("bounds-nesting");
    let depth = 100_000;
    let nested = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let request = write(
        &dir,
        "request.json",
        &request_with_spec(&format!(r#"{{"items": {nested}}}"#)),
    );
    let run = measure(xprender().args(["render", "--request"]).arg(&request));
    assert_bounded(&run, &request, "100,000-deep nesting");
    assert_eq!(run.code, 1, "{}", run.err);
    assert!(
        run.err
            .contains("JSON nested more than 1000 levels deep is beyond the engine's limit"),
        "{}",
        run.err
    );

    // The same XR as a YAML file.
    let yaml = write(
        &dir,
        "xr.yaml",
        &format!(
            "apiVersion: example.org/v1\nkind: XThing\nmetadata:\n  name: x\nspec:\n  items: {nested}\n"
        ),
    );
    let comp = write(&dir, "comp.json", COMPOSITION);
    let run = measure(xprender().arg("render").arg(&yaml).arg(&comp));
    assert_bounded(&run, &yaml, "100,000-deep nesting (YAML)");
    assert_eq!(run.code, 2, "{}", run.err);
    assert!(
        run.err.contains("xr.yaml:6:265: recursion limit exceeded"),
        "{}",
        run.err
    );
}

#[test]
fn requests_over_the_size_limit_are_refused_unread() {
    let dir = temp_dir("bounds-size");
    let request = write(
        &dir,
        "request.json",
        &request_with_spec(&format!(r#"{{"pad": "{}"}}"#, "x".repeat(2 << 20))),
    );
    let run = measure(
        xprender()
            .args(["render", "--max-request-size", "1MiB", "--request"])
            .arg(&request),
    );
    assert_eq!(run.code, 2, "{}", run.err);
    assert!(
        run.err.contains("is larger than --max-request-size"),
        "{}",
        run.err
    );
    assert!(run.elapsed < Duration::from_secs(1));

    // From a stream with no end: cut at the limit.
    let run = measure(
        xprender()
            .args(["render", "--max-request-size", "1MiB", "--request", "-"])
            .stdin(std::fs::File::open("/dev/zero").unwrap()),
    );
    assert_eq!(run.code, 2, "{}", run.err);
    assert!(
        run.err
            .contains("the request on stdin is larger than --max-request-size"),
        "{}",
        run.err
    );
    assert_within(&run, 1 << 20, ENGINE_LIMIT, "an endless stdin");
}
