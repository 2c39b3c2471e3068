//! The host's own memory is bounded: hostile requests are rendered or refused with peak
//! resident memory of the `xprender` process at most 4x the request plus the engine's memory
//! limit, and requests over the limits are refused at once.
//!
//! Peak memory is the child's own `ru_maxrss` (wait4), so tests running in parallel do not
//! blur each other's figures.

mod common;
mod hostile;

use std::path::Path;
use std::time::Duration;

use common::{temp_dir, write, xprender};
use hostile::{Run, measure, mib};

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

#[test]
fn two_million_small_objects() {
    let dir = temp_dir("bounds-objects");
    let request = write(&dir, "request.json", &hostile::two_million_small_objects());
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
    let request = write(&dir, "request.json", &hostile::resources(200_000));
    let run = measure(xprender().args(["render", "--request"]).arg(&request));
    assert_bounded(&run, &request, "200,000 resources");
    assert_eq!(run.code, 1, "{}", run.err);
    // The engine's own error document, word for word.
    let engine = xprender::render_json(&hostile::resources(100_001));
    assert!(engine.contains("more than 100000 entries"), "{engine}");
    assert_eq!(run.err.trim_end(), engine);

    // The same resources as a pipeline step's function-patch-and-transform input.
    let pipeline = write(&dir, "pipeline.json", &hostile::pipeline_resources(200_000));
    let run = measure(xprender().args(["render", "--request"]).arg(&pipeline));
    assert_bounded(&run, &pipeline, "200,000 resources in a pipeline step");
    assert_eq!(run.code, 1, "{}", run.err);
    let engine = xprender::render_json(&hostile::pipeline_resources(100_001));
    assert!(
        engine.contains("composition.spec.pipeline[0].input: more than 100000 entries"),
        "{engine}"
    );
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
    let request = write(&dir, "request.json", &hostile::a_one_mebibyte_key());
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
    let request = write(&dir, "request.json", &hostile::nesting(100_000));
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
            "apiVersion: example.org/v1\nkind: XThing\nmetadata:\n  name: x\nspec:\n  items: {}\n",
            hostile::nested(100_000)
        ),
    );
    let comp = write(&dir, "comp.json", hostile::COMPOSITION);
    let run = measure(xprender().arg("render").arg(&yaml).arg(&comp));
    assert_bounded(&run, &yaml, "100,000-deep nesting (YAML)");
    assert_eq!(run.code, 2, "{}", run.err);
    assert!(
        run.err.contains("xr.yaml:6:1010: recursion limit exceeded"),
        "{}",
        run.err
    );
}

#[test]
fn requests_over_the_size_limit_are_refused_unread() {
    let dir = temp_dir("bounds-size");
    let request = write(&dir, "request.json", &hostile::padded(2 << 20));
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
