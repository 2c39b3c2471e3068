//! `xprender render --request` (the core module in wasmtime) against the native engine, on
//! every golden fixture render in tests/fixtures (each semantics of a case that runs under
//! both) and on the bundled example.

mod common;

use common::{example, fixtures, root, run, temp_dir, xprender};
use serde_json::Value;

#[test]
fn every_golden_fixture_renders_identically_through_wasmtime() {
    let renders = fixtures::renders(&root().join("tests/fixtures"));
    assert!(
        !renders.is_empty(),
        "no golden fixtures under tests/fixtures"
    );
    // A case run under each semantics is given to the CLI as the request of one semantics.
    let asked = temp_dir("parity-fixtures");
    let mut failures = Vec::new();
    for (i, r) in renders.iter().enumerate() {
        let native = xprender::render_json(&r.request);
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(&r.expected).unwrap()).unwrap();
        let request = match r.semantics {
            None => r.dir.join("request.json"),
            Some(_) => common::write(&asked, &format!("{i}.json"), &r.request),
        };
        let (code, out, err) = run(xprender()
            .args(["render", "--output", "json", "--request"])
            .arg(&request));
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
        let case = &r.name;
        if code != want_code {
            failures.push(format!("{case}: exit {code}, want {want_code}"));
        } else if got != native {
            failures.push(format!(
                "{case}: wasmtime output differs from native\n  wasm:   {got}\n  native: {native}"
            ));
        } else if serde_json::from_str::<Value>(&got).unwrap() != expected {
            failures.push(format!(
                "{case}: output differs from {}\n  got: {got}",
                r.expected.display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} fixture renders failed:\n{}",
        failures.len(),
        renders.len(),
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
