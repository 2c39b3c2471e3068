//! `xprender render` spelled as `crossplane render`: golden output streams, converted
//! Compositions rendering as their classic forms, and steps that cannot run.
//!
//! `UPDATE_GOLDEN=1 cargo test -p xprender-host --test crossplane_render` rewrites the streams.

// Test harness: reads and writes golden files.
#![allow(clippy::disallowed_methods)]

mod common;

use common::{root, run, xprender};
use serde_json::Value;

const DATA: &str = "host/tests/data/crossplane-render";

/// Runs xprender from the repository root; returns (exit code, stdout, stderr).
fn render(args: &[&str]) -> (i32, String, String) {
    run(xprender().current_dir(root()).arg("render").args(args))
}

fn golden(name: &str, args: &[&str]) {
    let (code, out, err) = render(args);
    assert_eq!(code, 0, "{name}: {err}");
    let path = root().join(DATA).join(format!("{name}.yaml"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &out).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        out == want,
        "{name}: output differs from {}\n--- want\n{want}\n--- got\n{out}",
        path.display()
    );
}

#[test]
fn converted_example_with_functions_file_results_context_and_full_xr() {
    golden(
        "platform-db-pipeline",
        &[
            "examples/platform-db/xr.yaml",
            "examples/platform-db/pipeline/composition.yaml",
            "examples/platform-db/pipeline/functions.yaml",
            "--observed-resources=examples/platform-db/observed.yaml",
            "--extra-resources=examples/platform-db/pipeline/environmentConfigs.yaml",
            "-r",
            "-c",
            "-x",
        ],
    );
}

#[test]
fn required_resources_short_flag_and_new_xr() {
    golden(
        "object-storage-pipeline",
        &[
            "examples/object-storage/xr.yaml",
            "examples/object-storage/pipeline/composition.yaml",
            "examples/object-storage/pipeline/functions.yaml",
            "-e",
            "examples/platform-db/pipeline/environmentConfigs.yaml",
            "-r",
        ],
    );
}

#[test]
fn context_files_and_values() {
    golden(
        "pipeline-network-context",
        &[
            "examples/pipeline-network/xr.yaml",
            "examples/pipeline-network/composition.yaml",
            "host/tests/data/crossplane-render/functions.yaml",
            "-o",
            "examples/pipeline-network/observed.yaml",
            "--context-files",
            "apiextensions.crossplane.io/environment=host/tests/data/crossplane-render/environment.json",
            "--context-values",
            r#"example.org/flags={"audit":true,"tier":"gold"}"#,
            "--include-context",
            "--include-function-results",
        ],
    );
}

#[test]
fn unsupported_function_fails_naming_the_step() {
    let args = [
        "examples/pipeline-network/xr.yaml",
        "host/tests/data/crossplane-render/templating.yaml",
        "host/tests/data/crossplane-render/templating-functions.yaml",
    ];
    let (code, out, err) = render(&args);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains(r#"cannot run pipeline step "render-templates": function "function-go-templating" from package "xpkg.upbound.io/crossplane-contrib/function-go-templating:v0.9.0" cannot be rendered"#),
        "{err}"
    );

    // --skip-unsupported renders the rest, with a warning: a Result document (as crossplane
    // render prints nothing on stderr), and on stderr with --crossplane-version v1.
    let mut skip = args.to_vec();
    skip.extend(["--skip-unsupported", "-r"]);
    let (code, out, err) = render(&skip);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    assert!(
        out.contains(r#"message: 'pipeline step "render-templates""#),
        "{out}"
    );
    let mut v1 = skip.clone();
    v1.push("--crossplane-version=v1");
    let (code, _, err) = render(&v1);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(r#"warning: pipeline step "render-templates""#),
        "{err}"
    );
    assert!(out.contains("kind: Result"), "{out}");
    assert!(out.contains("step: render-templates"), "{out}");
    assert!(out.contains("severity: SEVERITY_WARNING"), "{out}");

    // A step whose function the FUNCTIONS file lacks fails as crossplane render does.
    let (code, _, err) = render(&[
        "examples/pipeline-network/xr.yaml",
        "host/tests/data/crossplane-render/templating.yaml",
        "host/tests/data/crossplane-render/functions.yaml",
        "--skip-unsupported",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(
            r#"unknown Function "function-go-templating" - does it exist in your Functions file?"#
        ),
        "{err}"
    );
}

#[test]
fn docker_only_flags_are_accepted_with_a_notice() {
    let (code, _, err) = render(&[
        "examples/pipeline-network/xr.yaml",
        "examples/pipeline-network/composition.yaml",
        "host/tests/data/crossplane-render/functions.yaml",
        "--function-credentials=host/tests/data/crossplane-render/functions.yaml",
        "--timeout=1m",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("notice: --function-credentials is ignored"),
        "{err}"
    );
}

/// The composed resources (without readiness) of a JSON render.
fn resources(args: &[&str]) -> serde_json::Map<String, Value> {
    let mut all = args.to_vec();
    all.extend(["--output", "json"]);
    let (code, out, err) = render(&all);
    assert_eq!(code, 0, "{args:?}: {err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    let rs = doc["resources"].as_object().cloned().unwrap_or_default();
    assert!(!rs.is_empty(), "{args:?} rendered nothing");
    rs.into_iter()
        .map(|(k, v)| (k, v["resource"].clone()))
        .collect()
}

#[test]
fn converted_classic_examples_render_the_same_composed_resources() {
    // Each bundled classic example against its Pipeline form (environment-configs,
    // patch-and-transform and auto-ready steps), both with the classic engine's semantics.
    for (example, classic_extra, pipeline_extra) in [
        ("object-storage", vec![], vec![]),
        (
            "platform-db",
            vec!["--environment=examples/platform-db/environment.yaml"],
            vec!["--extra-resources=examples/platform-db/pipeline/environmentConfigs.yaml"],
        ),
    ] {
        let xr = format!("examples/{example}/xr.yaml");
        let observed = format!("--observed-resources=examples/{example}/observed.yaml");
        let classic_comp = format!("examples/{example}/composition.yaml");
        let pipeline_comp = format!("examples/{example}/pipeline/composition.yaml");
        let functions = format!("examples/{example}/pipeline/functions.yaml");
        let mut classic = vec![xr.as_str(), classic_comp.as_str(), observed.as_str()];
        classic.extend(classic_extra);
        let mut pipeline = vec![
            xr.as_str(),
            pipeline_comp.as_str(),
            functions.as_str(),
            observed.as_str(),
            "--semantics=native",
        ];
        pipeline.extend(pipeline_extra.iter().copied());
        assert_eq!(resources(&classic), resources(&pipeline), "{example}");

        // With function-patch-and-transform's own semantics the same resources are composed.
        let function_semantics: Vec<&str> = pipeline
            .iter()
            .copied()
            .filter(|a| !a.starts_with("--semantics"))
            .collect();
        let names = |m: serde_json::Map<String, Value>| m.keys().cloned().collect::<Vec<_>>();
        assert_eq!(
            names(resources(&classic)),
            names(resources(&function_semantics)),
            "{example}"
        );
    }
}

#[test]
fn module_writes_the_embedded_core_module() {
    let dir = common::temp_dir("module-output");
    let path = dir.join("xprender.wasm");
    let (code, _, err) = run(xprender().arg("module").arg("--output").arg(&path));
    assert_eq!(code, 0, "{err}");
    let wasm = std::fs::read(&path).unwrap();
    assert_eq!(&wasm[..4], b"\0asm", "not a wasm module");
    // The written module is the one `version` reports, and it renders.
    let (_, version, _) = run(xprender().arg("version"));
    assert!(
        version.contains(&format!("module:   {} bytes", wasm.len())),
        "{version}"
    );
    let (code, out, err) = render(&[
        "examples/pipeline-network/xr.yaml",
        "examples/pipeline-network/composition.yaml",
        "--engine",
        path.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("kind: VPC"), "{out}");
}

#[test]
fn xrd_schema_defaults_are_applied_to_the_xr() {
    let dir = common::temp_dir("crossplane-render-xrd");
    let xrd = common::write(
        &dir,
        "xrd.yaml",
        "apiVersion: apiextensions.crossplane.io/v1
kind: CompositeResourceDefinition
metadata:
  name: xnetworks.network.example.org
spec:
  group: network.example.org
  names: {kind: XNetwork, plural: xnetworks}
  versions:
    - name: v1alpha1
      served: true
      referenceable: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                subnets: {type: integer, default: 4}
                flowLogs: {type: boolean, default: true}
                tier: {type: string, default: standard}
",
    );
    let (code, out, err) = render(&[
        "examples/pipeline-network/xr.yaml",
        "examples/pipeline-network/composition.yaml",
        "--xrd",
        xrd.to_str().unwrap(),
        "-x",
    ]);
    assert_eq!(code, 0, "{err}");
    // Defaults fill what the XR leaves out; what it sets (subnets: 2) stays.
    for needle in ["  flowLogs: true\n", "  subnets: 2\n", "  tier: standard\n"] {
        assert!(out.contains(needle), "{needle:?} not in {out}");
    }
}

/// Every case of `host/tests/data/crossplane-render/cases/`: `args` (`render`'s arguments, one a line, run
/// in the case's directory), what `crossplane render` prints for it (`stdout`, `stderr`) and
/// its exit code (`exit`). `case.md` says which behaviour the case holds and which
/// `crossplane render` it follows. `UPDATE_GOLDEN=1` rewrites the three expectations.
#[test]
fn cases_print_what_crossplane_render_prints() {
    let dir = root().join(DATA).join("cases");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("args").is_file())
        .collect();
    names.sort();
    assert!(names.len() >= 20, "cases missing under {}", dir.display());
    let bless = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut failures = Vec::new();
    for case in &names {
        let args: Vec<String> = std::fs::read_to_string(case.join("args"))
            .unwrap()
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect();
        let (code, out, err) = run(xprender().current_dir(case).arg("render").args(&args));
        let got = [
            ("stdout", out),
            ("stderr", err),
            ("exit", format!("{code}\n")),
        ];
        for (file, text) in got {
            let path = case.join(file);
            if bless {
                std::fs::write(&path, &text).unwrap();
                continue;
            }
            let want = std::fs::read_to_string(&path).unwrap_or_default();
            if want != text {
                failures.push(format!(
                    "{}/{file}:\n--- want\n{want}\n--- got\n{text}",
                    case.file_name().unwrap().to_string_lossy()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
