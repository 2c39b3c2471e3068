//! Golden render fixtures: every `tests/fixtures/<area>/<case>/request.json` is
//! rendered, under each semantics it runs (`support/fixtures.rs`), and compared with its
//! expected output; the pass counts per area are kept in `tests/CONFORMANCE.snap`.
//!
//! `UPDATE_GOLDEN=1 cargo test --test render` rewrites the expected files and the scoreboard.

// A test harness reads and writes fixture files and reports differences.
#![allow(clippy::disallowed_methods, clippy::print_stderr)]

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

#[path = "support/fixtures.rs"]
mod fixtures;

use fixtures::Render;

/// How many renders the fixtures held when the cases that ran under each semantics as two
/// directories became one directory each: merging, moving or blessing cases must not lose one.
const RENDERS_AT_LEAST: usize = 355;

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Re-indents compact JSON text with two spaces, keeping member order.
fn pretty(compact: &str) -> String {
    let mut out = String::with_capacity(compact.len() * 2);
    let mut indent = 0usize;
    let mut in_str = false;
    let mut escaped = false;
    let chars: Vec<char> = compact.chars().collect();
    let mut i = 0;
    let newline = |out: &mut String, n: usize| {
        out.push('\n');
        for _ in 0..n {
            out.push_str("  ");
        }
    };
    while i < chars.len() {
        let c = chars[i];
        if in_str {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_str = false;
            }
            i += 1;
            continue;
        }
        match c {
            '"' => {
                in_str = true;
                out.push(c);
            }
            '{' | '[' => {
                let close = if c == '{' { '}' } else { ']' };
                if chars.get(i + 1) == Some(&close) {
                    out.push(c);
                    out.push(close);
                    i += 2;
                    continue;
                }
                out.push(c);
                indent += 1;
                newline(&mut out, indent);
            }
            '}' | ']' => {
                indent = indent.saturating_sub(1);
                newline(&mut out, indent);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, indent);
            }
            ':' => out.push_str(": "),
            _ => out.push(c),
        }
        i += 1;
    }
    out.push('\n');
    out
}

/// Compact form of a pretty expected file, for comparison that ignores layout only.
fn compact(pretty: &str) -> String {
    let mut out = String::with_capacity(pretty.len());
    let mut in_str = false;
    let mut escaped = false;
    for c in pretty.chars() {
        if in_str {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_str = false;
            }
        } else if c == '"' {
            in_str = true;
            out.push(c);
        } else if !c.is_whitespace() {
            out.push(c);
        }
    }
    out
}

#[test]
fn golden_fixtures() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let all = fixtures::renders(&fixtures_dir());
    assert!(!all.is_empty(), "no fixtures found under tests/fixtures");
    let outputs: Vec<String> = all
        .iter()
        .map(|r| xprender::render_json(&r.request))
        .collect();
    if update {
        bless(&all, &outputs);
    }
    let mut per_area: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut failing = Vec::new();
    for (r, got) in all.iter().zip(&outputs) {
        let expected_path = fixtures::expected_path(&r.dir, r.semantics);
        let expected = fs::read_to_string(&expected_path).unwrap_or_default();
        let entry = per_area.entry(r.area.clone()).or_default();
        entry.1 += 1;
        if compact(&expected) == *got {
            entry.0 += 1;
        } else {
            failing.push(r.name.clone());
            eprintln!(
                "--- {}: output differs from {}\n--- expected\n{expected}--- got\n{}",
                r.name,
                expected_path.display(),
                pretty(got)
            );
        }
    }
    let mut snap = String::from("# Golden render fixtures: passing / total renders per area\n");
    let (mut pass, mut total) = (0, 0);
    for (area, (p, t)) in &per_area {
        let _ = writeln!(snap, "{area}: {p}/{t}");
        pass += p;
        total += t;
    }
    let _ = writeln!(snap, "total: {pass}/{total}");
    snap.push_str("\n# Failing renders\n");
    for f in &failing {
        let _ = writeln!(snap, "{f}");
    }
    let snap_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/CONFORMANCE.snap");
    if update {
        fs::write(&snap_path, &snap).expect("writable CONFORMANCE.snap");
    }
    let committed = fs::read_to_string(&snap_path).unwrap_or_default();
    assert!(
        failing.is_empty(),
        "{} of {total} renders fail:\n{}",
        failing.len(),
        failing.join("\n")
    );
    assert_eq!(
        committed, snap,
        "tests/CONFORMANCE.snap is stale: rerun with UPDATE_GOLDEN=1"
    );
}

/// Writes each render's output as its expected file. A case rendered under each semantics
/// keeps one `expected.json` when they agree, else one `expected.<semantics>.json` each.
fn bless(all: &[Render], outputs: &[String]) {
    let mut by_case: BTreeMap<&Path, Vec<(Option<&str>, &str)>> = BTreeMap::new();
    for (r, got) in all.iter().zip(outputs) {
        by_case
            .entry(&r.dir)
            .or_default()
            .push((r.semantics, got.as_str()));
    }
    for (dir, outputs) in by_case {
        let shared = outputs.iter().all(|(_, got)| *got == outputs[0].1);
        for s in fixtures::SEMANTICS {
            let _ = fs::remove_file(dir.join(format!("expected.{s}.json")));
        }
        if shared {
            fs::write(dir.join("expected.json"), pretty(outputs[0].1))
                .expect("writable expected.json");
            continue;
        }
        let _ = fs::remove_file(dir.join("expected.json"));
        for (s, got) in outputs {
            let s = s.expect("only a case rendered under each semantics has several outputs");
            fs::write(dir.join(format!("expected.{s}.json")), pretty(got))
                .expect("writable expected file");
        }
    }
}

/// No render is lost, and each case holds the expected files of the renders it runs, no
/// others. A `-native` / `-function` pair of cases whose requests differ only in the semantics
/// they ask for is one case rendered under each semantics.
#[test]
fn every_case_keeps_its_renders() {
    let root = fixtures_dir();
    let all = fixtures::renders(&root);
    assert!(
        all.len() >= RENDERS_AT_LEAST,
        "{} renders, fewer than the {RENDERS_AT_LEAST} the fixtures held",
        all.len()
    );
    let mut problems = Vec::new();
    for (area, case, dir) in fixtures::cases(&root) {
        let request = fs::read_to_string(dir.join("request.json")).expect("readable request.json");
        let every = request.contains(fixtures::EVERY_SEMANTICS);
        let shared = dir.join("expected.json").is_file();
        let own: Vec<&str> = fixtures::SEMANTICS
            .into_iter()
            .filter(|s| dir.join(format!("expected.{s}.json")).is_file())
            .collect();
        let fine = if every {
            (shared && own.is_empty()) || (!shared && own == fixtures::SEMANTICS)
        } else {
            shared && own.is_empty()
        };
        if !fine {
            problems.push(format!(
                "{area}/{case}: expected.json {shared}, per semantics {own:?}"
            ));
        }
        let Some(base) = case.strip_suffix("-native") else {
            continue;
        };
        let Ok(twin) = fs::read_to_string(
            dir.with_file_name(format!("{base}-function"))
                .join("request.json"),
        ) else {
            continue;
        };
        let asked = |text: &str, s: &str| text.replacen(&format!("\"semantics\": \"{s}\""), "", 1);
        if asked(&request, "native") == asked(&twin, "function") {
            problems.push(format!(
                "{area}/{case} and {base}-function differ only in the semantics: make them one case"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// An engine keeps the Compositions it has read and, from their second render, their
/// decodings: every fixture renders to the same bytes, errors included, read as a whole, on
/// first sight of its Composition, when its decoding is made to be kept and when the kept
/// decoding is reused; so does every fixture rendered with the other semantics, whose decoding
/// is kept beside the first.
#[test]
fn golden_fixtures_with_kept_compositions() {
    let all = fixtures::renders(&fixtures_dir());
    assert!(!all.is_empty(), "no fixtures found under tests/fixtures");
    let mut engine = xprender::Engine::new();
    for Render { name, request, .. } in &all {
        let whole = xprender::testing::render_json_unkept(request);
        let first = engine.render_json(request);
        let again = engine.render_json(request);
        let reused = engine.render_json(request);
        assert_eq!(whole, first, "{name}: first render differs");
        assert_eq!(
            whole, again,
            "{name}: render with the kept Composition differs"
        );
        assert_eq!(
            whole, reused,
            "{name}: render with the kept decoding differs"
        );
        let Some(other) = with_other_semantics(request) else {
            continue;
        };
        let whole = xprender::testing::render_json_unkept(&other);
        for _ in 0..2 {
            assert_eq!(
                whole,
                engine.render_json(&other),
                "{name}: render with the other semantics differs with a kept Composition"
            );
        }
    }
    let (kept, _) = xprender::testing::kept_compositions(&engine);
    assert!(kept > 0, "no Composition was kept");
    assert!(
        xprender::testing::kept_decodings(&engine) > kept,
        "no Composition kept a decoding for each semantics"
    );
}

/// The request asking for the semantics it does not ask for (by its Composition's mode when
/// it names none); `None` for a request that is not an object with an object `options`.
fn with_other_semantics(request: &str) -> Option<String> {
    let mut doc: serde_json::Value = serde_json::from_str(request).ok()?;
    let pipeline = doc["composition"]["spec"]["mode"] == "Pipeline";
    let root = doc.as_object_mut()?;
    let options = root
        .entry("options")
        .or_insert_with(|| serde_json::json!({}))
        .as_object_mut()?;
    let asked = options.get("semantics").and_then(serde_json::Value::as_str);
    let function = asked.map_or(pipeline, |s| s == "function");
    let other = if function { "native" } else { "function" };
    options.insert("semantics".into(), other.into());
    Some(serde_json::to_string(&doc).expect("serialisable"))
}

/// The engine must answer every request with a document, never panic.
#[test]
fn hostile_shapes_give_error_documents() {
    // A sample of the corpus keeps this quick in debug builds.
    for Render { request, .. } in fixtures::renders(&fixtures_dir()).into_iter().step_by(7) {
        let Ok(mut doc) = serde_json::from_str::<serde_json::Value>(&request) else {
            continue;
        };
        // Trace everything, so the explain trace sees the hostile shapes too.
        if let Some(root) = doc.as_object_mut() {
            let options = root
                .entry("options")
                .or_insert_with(|| serde_json::json!({}));
            if let Some(o) = options.as_object_mut() {
                o.insert("trace".into(), serde_json::json!(true));
            }
        }
        // Replace every scalar, in turn, by values of other types.
        let mut paths = Vec::new();
        collect_paths(&doc, &mut Vec::new(), &mut paths);
        for path in paths.iter().take(150) {
            for replacement in [
                serde_json::json!(7),
                serde_json::json!("x"),
                serde_json::json!(null),
                serde_json::json!([1]),
                serde_json::json!({"a": 1}),
                serde_json::json!(1.5e300),
            ] {
                let mut mutated = doc.clone();
                if let Some(slot) = pointer_mut(&mut mutated, path) {
                    *slot = replacement;
                }
                let out = xprender::render_json(&mutated.to_string());
                assert!(out.starts_with('{'), "not a JSON document: {out}");
            }
        }
    }
}

fn collect_paths(v: &serde_json::Value, cur: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    out.push(cur.clone());
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                cur.push(k.clone());
                collect_paths(x, cur, out);
                cur.pop();
            }
        }
        serde_json::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                cur.push(i.to_string());
                collect_paths(x, cur, out);
                cur.pop();
            }
        }
        _ => {}
    }
}

fn pointer_mut<'a>(
    v: &'a mut serde_json::Value,
    path: &[String],
) -> Option<&'a mut serde_json::Value> {
    let mut cur = v;
    for seg in path {
        cur = match cur {
            serde_json::Value::Object(m) => m.get_mut(seg)?,
            serde_json::Value::Array(a) => a.get_mut(seg.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}
