//! `xprender test`: the bundled examples' suites pass; a failing case shows its diff and
//! exits 1; --update rewrites expected output; --junit writes a report.

// Test harness: writes test suites and reads reports.
#![allow(clippy::disallowed_methods)]

mod common;

use common::{root, run, temp_dir, write, xprender};

#[test]
fn bundled_example_suites_pass() {
    let junit = temp_dir("composition-test-junit").join("junit.xml");
    let (code, out, err) = run(xprender()
        .current_dir(root())
        .args(["test", "examples", "--junit"])
        .arg(&junit));
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("8 passed, 0 failed"), "{out}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.starts_with("<?xml version=\"1.0\""), "{xml}");
    assert!(
        xml.contains(r#"<testsuites name="xprender test" tests="8" failures="0">"#),
        "{xml}"
    );
    assert!(
        xml.contains(r#"name="missing-environment-config""#),
        "{xml}"
    );
}

#[test]
fn a_failing_case_shows_its_diff_and_exits_1() {
    let dir = temp_dir("composition-test-failing");
    let ex = root().join("examples/pipeline-network");
    let case = format!(
        "apiVersion: xprender.dev/v1alpha1
kind: CompositionTest
metadata:
  name: wrong-region
spec:
  xr: {xr}
  composition: {comp}
  environment: {env}
  expect:
    ready: true
    resources:
      vpc:
        spec:
          forProvider:
            region: us-east-1
      gateway:
        kind: InternetGateway
    output: expected.yaml
",
        xr = ex.join("xr.yaml").display(),
        comp = ex.join("composition.yaml").display(),
        env = ex.join("environment.yaml").display(),
    );
    write(&dir, "suite.yaml", &case);
    write(&dir, "expected.yaml", "---\napiVersion: v1\nkind: Stale\n");
    let junit = dir.join("junit.xml");
    let (code, out, _) = run(xprender().arg("test").arg(&dir).arg("--junit").arg(&junit));
    assert_eq!(code, 1, "{out}");
    for needle in [
        "FAIL ",
        "wrong-region",
        "ready: expected true, got false",
        r#"resources.vpc.spec.forProvider.region: expected "us-east-1", got "eu-central-1""#,
        "resources.gateway: expected, but not rendered",
        "output differs from",
        "- kind: Stale",
        "+ kind: XNetwork",
        "0 passed, 1 failed",
    ] {
        assert!(out.contains(needle), "{needle:?} not in:\n{out}");
    }
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains(r#"failures="1""#), "{xml}");
    assert!(
        xml.contains("<failure message=\"ready: expected true, got false\">"),
        "{xml}"
    );

    // --update rewrites the expected stream; the partial expectations still fail.
    let (code, _, _) = run(xprender().arg("test").arg(&dir).arg("--update"));
    assert_eq!(code, 1);
    let updated = std::fs::read_to_string(dir.join("expected.yaml")).unwrap();
    assert!(updated.contains("kind: XNetwork"), "{updated}");
    let (_, out, _) = run(xprender().arg("test").arg(&dir));
    assert!(!out.contains("output differs"), "{out}");
}

#[test]
fn no_cases_is_a_usage_error() {
    let dir = temp_dir("composition-test-empty");
    write(&dir, "other.yaml", "apiVersion: v1\nkind: ConfigMap\n");
    let (code, _, err) = run(xprender().arg("test").arg(&dir));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no CompositionTest documents found"), "{err}");
}
