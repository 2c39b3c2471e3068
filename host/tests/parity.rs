//! `xprender render --request` (the core module in wasmtime) against the native engine, on
//! every golden fixture in tests/fixtures and on the bundled example.

mod common;

use std::path::{Path, PathBuf};

use common::{example, root, run, temp_dir, xprender};
use serde_json::Value;

fn fixtures(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            fixtures(&p, out);
        } else if p.file_name().is_some_and(|n| n == "request.json") {
            out.push(p);
        }
    }
}

#[test]
fn every_golden_fixture_renders_identically_through_wasmtime() {
    let mut requests = Vec::new();
    fixtures(&root().join("tests/fixtures"), &mut requests);
    assert!(
        !requests.is_empty(),
        "no golden fixtures under tests/fixtures"
    );
    let mut failures = Vec::new();
    for request in &requests {
        let text = std::fs::read_to_string(request).unwrap();
        let native = xprender::render_json(&text);
        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(request.with_file_name("expected.json")).unwrap(),
        )
        .unwrap();
        let (code, out, err) = run(xprender()
            .args(["render", "--output", "json", "--request"])
            .arg(request));
        // A request the engine rejects, or an Output with a Fatal result, is a failed render.
        let is_error = native.starts_with("{\"error\":");
        let fatal = expected["results"]
            .as_array()
            .is_some_and(|r| r.iter().any(|r| r["severity"] == "Fatal"));
        let (want_code, got) = match (is_error, fatal) {
            (true, _) => (1, err),
            (false, true) => (1, out),
            (false, false) => (0, out),
        };
        let got = got.strip_suffix('\n').unwrap_or(&got).to_owned();
        let case = request
            .parent()
            .unwrap()
            .strip_prefix(root())
            .unwrap()
            .display()
            .to_string();
        if code != want_code {
            failures.push(format!("{case}: exit {code}, want {want_code}"));
        } else if got != native {
            failures.push(format!(
                "{case}: wasmtime output differs from native\n  wasm:   {got}\n  native: {native}"
            ));
        } else if serde_json::from_str::<Value>(&got).unwrap() != expected {
            failures.push(format!(
                "{case}: output differs from expected.json\n  got: {got}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} fixtures failed:\n{}",
        failures.len(),
        requests.len(),
        failures.join("\n")
    );
}

#[test]
fn the_example_renders_identically_through_wasmtime() {
    let dir = temp_dir("parity-example");
    let args = [
        example("xr.yaml"),
        example("composition.yaml"),
        "--observed-resources".into(),
        example("observed.yaml"),
        "--xrd".into(),
        example("xrd.yaml"),
        "--environment".into(),
        example("environment.yaml"),
    ];
    let request = common::built_request(
        &dir,
        &args.iter().map(|p| p.to_str().unwrap()).collect::<Vec<_>>(),
    );
    // The CLI sends the files' documents; it prints the Output without the `inputs` report.
    assert!(request.get("documents").is_some(), "{request}");
    let native = xprender::render_json(&request.to_string());
    let native = match native.rfind(",\"inputs\":") {
        Some(i) => format!("{}}}", &native[..i]),
        None => native,
    };
    let (code, out, err) = run(xprender()
        .arg("render")
        .args(&args)
        .args(["--output", "json"]));
    if native.starts_with("{\"error\":") {
        assert_eq!(code, 1, "{err}");
    } else {
        assert_eq!(code, 0, "{err}");
        assert_eq!(out.trim_end(), native);
    }
}

#[test]
fn request_errors_print_the_error_document() {
    let dir = temp_dir("request-errors");
    for (name, text) in [
        ("not-json.json", "{not json"),
        ("array.json", "[]"),
        ("empty.json", ""),
    ] {
        let path = common::write(&dir, name, text);
        let (code, out, err) = run(xprender().args(["render", "--request"]).arg(&path));
        assert_eq!(code, 1, "{name}: {err}");
        assert!(out.is_empty(), "{name}: {out}");
        assert_eq!(err.trim_end(), xprender::render_json(text), "{name}");
        let doc: Value = serde_json::from_str(err.trim_end()).unwrap();
        assert_eq!(doc["error"]["kind"], "InvalidRequest", "{name}");
    }
    // The same through stdin.
    let (code, _, err) = run(xprender()
        .args(["render", "--request", "-"])
        .stdin(std::fs::File::open(dir.join("array.json")).unwrap()));
    assert_eq!(code, 1);
    assert_eq!(err.trim_end(), xprender::render_json("[]"));
}
