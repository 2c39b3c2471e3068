//! `xprender validate`: objects against CRD and XRD schemas, Compositions deeply, reports
//! with file positions. Each case compares the report with a golden file under
//! tests/data/validate/expected (regenerate with XPRENDER_BLESS=1 and review the diff).

mod common;
#[path = "common/function.rs"]
mod function;

use std::path::{Path, PathBuf};

use common::{run, xprender};
use serde_json::Value;

fn data(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/validate")
        .join(p)
}

/// Runs `xprender validate ARGS` from the data directory (so reports name relative paths)
/// and checks exit code and stdout against `expected/NAME.txt`.
fn case(name: &str, args: &[&str], want_code: i32) -> String {
    let (code, stdout, stderr) = run(xprender().current_dir(data("")).arg("validate").args(args));
    assert_eq!(
        code, want_code,
        "{name}: stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    let golden = data("expected").join(format!("{name}.txt"));
    if std::env::var_os("XPRENDER_BLESS").is_some() {
        std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
        std::fs::write(&golden, &stdout).unwrap();
    }
    let want = std::fs::read_to_string(&golden).unwrap_or_default();
    assert_eq!(
        stdout,
        want,
        "{name}: report differs from {}",
        golden.display()
    );
    stdout
}

#[test]
fn good_manifests_pass() {
    case("good", &["provider", "platform", "--resources", "good"], 0);
}

#[test]
fn bad_manifests_fail_with_paths_and_positions() {
    case(
        "bad",
        &[
            "provider",
            "platform",
            "--resources",
            "bad/instance.yaml",
            "--resources",
            "bad/xr.yaml",
        ],
        1,
    );
}

#[test]
fn strict_makes_unknown_fields_errors() {
    case(
        "strict",
        &[
            "provider",
            "--resources",
            "bad/instance.yaml",
            "--strict",
            "--missing-schemas",
            "error",
        ],
        1,
    );
}

#[test]
fn composition_typos_and_patch_paths() {
    case(
        "composition",
        &[
            "provider",
            "platform",
            "bad/composition.yaml",
            "--resources",
            "good/xr.yaml",
        ],
        1,
    );
}

#[test]
fn missing_schemas_warn_or_fail() {
    let out = case("missing", &["--resources", "good/instance.yaml"], 0);
    assert!(out.contains("warning: no schema for rds.aws.example.org/v1beta1 Instance"));
    let (code, _, _) = run(xprender().current_dir(data("")).args([
        "validate",
        "--resources",
        "good/instance.yaml",
        "--missing-schemas=error",
    ]));
    assert_eq!(code, 1);
}

#[test]
fn json_report() {
    let (code, stdout, stderr) = run(xprender().current_dir(data("")).args([
        "validate",
        "provider",
        "--resources",
        "bad/instance.yaml",
        "--output",
        "json",
    ]));
    assert_eq!(code, 1, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let want: Value = serde_json::from_str(
        &std::fs::read_to_string(data("expected/bad-instance.json")).unwrap_or_default(),
    )
    .unwrap_or(Value::Null);
    if std::env::var_os("XPRENDER_BLESS").is_some() {
        std::fs::write(data("expected/bad-instance.json"), &stdout).unwrap();
    }
    assert_eq!(report, want);
}

#[test]
fn resources_from_stdin_and_usage_errors() {
    use std::io::Write as _;
    use std::process::Stdio;
    let mut child = xprender()
        .current_dir(data(""))
        .args(["validate", "provider", "--resources", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"apiVersion: rds.aws.example.org/v1beta1\nkind: SubnetGroup\nmetadata:\n  name: s\nspec:\n  forProvider:\n    region: eu-west-1\n    subnetIds: [a]\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "<stdin>:8:5: SubnetGroup/s: spec.forProvider.subnetIds: Invalid value: \"array\": spec.forProvider.subnetIds in body should have at least 2 items\n\
         1 object checked: 0 valid, 1 invalid, 0 without a schema; 1 error, 0 warnings\n"
    );
    let (code, _, stderr) = run(xprender()
        .current_dir(data(""))
        .args(["validate", "provider"]));
    assert_eq!(code, 2, "{stderr}");
    let (code, _, stderr) = run(xprender().current_dir(data("")).args([
        "validate",
        "nonexistent",
        "--resources",
        "good",
    ]));
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "error: cannot read nonexistent: no such file or directory\n"
    );
}

#[test]
fn hostile_schemas_are_reported_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    // A 10,000-level schema (JSON: deeper than any YAML parser's recursion budget is fair to ask).
    let mut schema = String::from("{\"type\":\"string\"}");
    for _ in 0..10_000 {
        schema = format!("{{\"type\":\"object\",\"properties\":{{\"a\":{schema}}}}}");
    }
    let crd = |name: &str, kind: &str, schema: &str| {
        format!(
            "{{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\",\"metadata\":{{\"name\":\"{name}\"}},\"spec\":{{\"group\":\"example.org\",\"names\":{{\"kind\":\"{kind}\"}},\"versions\":[{{\"name\":\"v1\",\"schema\":{{\"openAPIV3Schema\":{schema}}}}}]}}}}"
        )
    };
    std::fs::write(
        dir.path().join("deep.json"),
        crd("deeps.example.org", "Deep", &schema),
    )
    .unwrap();
    let bad_pattern = r#"{"type":"object","properties":{"spec":{"type":"object","properties":{"name":{"type":"string","pattern":"^(unclosed"}}}}}"#;
    std::fs::write(
        dir.path().join("pattern.json"),
        crd("patterns.example.org", "Pattern", bad_pattern),
    )
    .unwrap();
    let looping = r#"{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"x-kubernetes-validations":[{"rule":"self.l.all(a, self.l.all(b, self.l.all(c, a != b || b == c)))"}]}}}"#;
    std::fs::write(
        dir.path().join("cel.json"),
        crd("loops.example.org", "Loop", looping),
    )
    .unwrap();
    let objects = format!(
        "apiVersion: example.org/v1\nkind: Deep\nmetadata: {{name: d}}\n---\napiVersion: example.org/v1\nkind: Pattern\nmetadata: {{name: p}}\nspec: {{name: x}}\n---\napiVersion: example.org/v1\nkind: Loop\nmetadata: {{name: l}}\nspec:\n  l: [{}]\n",
        (0..300)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    std::fs::write(dir.path().join("objects.yaml"), objects).unwrap();
    // The 10,000-level document is refused by the reader, with its position.
    let (code, _, stderr) = run(xprender().current_dir(dir.path()).args([
        "validate",
        "deep.json",
        "--resources",
        "objects.yaml",
    ]));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.starts_with("error: deep.json:1:")
            && stderr.ends_with(": recursion limit exceeded\n"),
        "{stderr}"
    );
    let (code, stdout, stderr) = run(xprender().current_dir(dir.path()).args([
        "validate",
        "pattern.json",
        "cel.json",
        "--resources",
        "objects.yaml",
    ]));
    assert_eq!(code, 1, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 5, "{stdout}");
    assert!(lines[0].starts_with("pattern.json:1:321: CustomResourceDefinition/patterns.example.org: spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.name.pattern: invalid regular expression '^(unclosed': "), "{stdout}");
    assert!(
        lines[1].starts_with(
            "objects.yaml:1:1: Deep/d: <root>: warning: no schema for example.org/v1 Deep"
        ),
        "{stdout}"
    );
    assert!(lines[2].starts_with("objects.yaml:5:1: Pattern/p: <root>: the schema of CustomResourceDefinition/patterns.example.org is unusable: spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.name.pattern: invalid regular expression"), "{stdout}");
    assert!(lines[3].starts_with("objects.yaml:13:1: Loop/l: spec: Invalid value: \"object\": rule \"self.l.all(a, self.l.all(b, self.l.all(c, a != b || b == c)))\": estimated rule cost exceeds budget ("), "{stdout}");
    assert_eq!(
        lines[4],
        "4 objects checked: 0 valid, 3 invalid, 1 without a schema; 3 errors, 1 warning"
    );
}

#[test]
fn render_validate_checks_the_rendered_resources() {
    // Crossplane v1's render prints the XR's spec fields the render changed (here the XRD's
    // defaults), so the XR is checked too; v2's prints the XR as the functions desired it.
    let render_as = |xr: &str, version: &str| {
        run(xprender().current_dir(data("")).args([
            "render",
            xr,
            "platform/composition.yaml",
            "--xrd",
            "platform/xrd.yaml",
            "--validate",
            "--crds",
            "provider",
            "--crossplane-version",
            version,
        ]))
    };
    let render = |xr: &str| render_as(xr, "v1");
    let (code, stdout, stderr) = render_as("render/xr-too-small.yaml", "v2");
    assert_eq!(code, 1, "{stderr}");
    let line = stdout
        .lines()
        .position(|l| l.contains("allocatedStorage: 10"))
        .unwrap()
        + 1;
    assert_eq!(
        stderr,
        format!(
            "<rendered>:{line}:5: Instance: spec.forProvider.allocatedStorage: Invalid value: 10: spec.forProvider.allocatedStorage in body should be greater than or equal to 20\n\
             3 objects checked: 2 valid, 1 invalid, 0 without a schema; 1 error, 0 warnings\n\
             error: the rendered resources are not valid\n"
        )
    );
    let (code, stdout, stderr) = render("render/xr.yaml");
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("allocatedStorage: 50"), "{stdout}");
    assert_eq!(
        stderr,
        "3 objects checked: 3 valid, 0 invalid, 0 without a schema; 0 errors, 0 warnings\n"
    );
    let (code, stdout, stderr) = render("render/xr-too-small.yaml");
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stdout.contains("allocatedStorage: 10"),
        "the output is still printed: {stdout}"
    );
    let line = stdout
        .lines()
        .position(|l| l.contains("allocatedStorage: 10"))
        .unwrap()
        + 1;
    // The XRD's defaults make the render change the XR's spec.parameters, so the XR is printed
    // with them, and its own too-small storageGB is reported beside the composed resource's.
    let xr_line = stdout
        .lines()
        .position(|l| l.contains("storageGB: 10"))
        .unwrap()
        + 1;
    assert_eq!(
        stderr,
        format!(
            "<rendered>:{xr_line}:5: XPostgreSQLInstance/orders-db: spec.parameters.storageGB: Invalid value: 10: spec.parameters.storageGB in body should be greater than or equal to 20\n\
             <rendered>:{line}:5: Instance: spec.forProvider.allocatedStorage: Invalid value: 10: spec.forProvider.allocatedStorage in body should be greater than or equal to 20\n\
             3 objects checked: 1 valid, 2 invalid, 0 without a schema; 2 errors, 0 warnings\n\
             error: the rendered resources are not valid\n"
        )
    );
}

/// The Function package's input CRD (host/package/input) checks a `Resources` document as the
/// API server would: every example's pipeline step input and every fixture's step input that
/// the engine renders without an error passes, and a mistyped member, a value outside a Go
/// enum's and a missing required member fail with their paths.
#[test]
fn the_function_packages_input_crd_checks_step_inputs() {
    let crd = common::root().join("host/package/input/pt.fn.crossplane.io_resources.yaml");
    let dir = tempfile::tempdir().unwrap();
    let mut inputs = Vec::new();
    let named = |mut input: Value, name: String| {
        input["metadata"] = serde_json::json!({ "name": name });
        input.to_string()
    };
    for comp in [
        "examples/pipeline-network/composition.yaml",
        "examples/object-storage/pipeline/composition.yaml",
        "examples/platform-db/pipeline/composition.yaml",
    ] {
        let text = std::fs::read_to_string(common::root().join(comp)).unwrap();
        let comp: Value = serde_saphyr::from_str(&text).unwrap();
        for step in comp["spec"]["pipeline"].as_array().unwrap() {
            if step["input"]["apiVersion"] == "pt.fn.crossplane.io/v1beta1" {
                inputs.push(named(
                    step["input"].clone(),
                    step["step"].as_str().unwrap().to_owned(),
                ));
            }
        }
    }
    for fixture in function::fixtures() {
        let request = serde_json::from_str::<Value>(&fixture.request).ok();
        let expected = std::fs::read_to_string(&fixture.expected)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok());
        let (Some(request), Some(expected)) = (request, expected) else {
            continue;
        };
        let failed = expected.get("error").is_some()
            || expected["results"]
                .as_array()
                .is_some_and(|rs| rs.iter().any(|r| r["severity"] == "Fatal"));
        for (i, input) in function::steps(&request)
            .unwrap_or_default()
            .into_iter()
            .enumerate()
        {
            if !failed && input["apiVersion"] == "pt.fn.crossplane.io/v1beta1" {
                // A classic Composition's spec read as an input names `resources` even when
                // the spec has none: a null no written input has.
                let mut input = input;
                input.as_object_mut().unwrap().retain(|_, v| !v.is_null());
                let name = fixture.dir.file_name().unwrap().to_string_lossy();
                inputs.push(named(input, format!("{name}-{i}")));
            }
        }
    }
    assert!(inputs.len() >= 100, "only {} inputs", inputs.len());
    std::fs::write(dir.path().join("good.yaml"), inputs.join("\n---\n")).unwrap();
    let (code, stdout, stderr) = run(xprender()
        .current_dir(dir.path())
        .arg("validate")
        .arg(&crd)
        .args(["--resources", "good.yaml", "--strict"]));
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{stderr}");
    let n = inputs.len();
    assert!(
        stdout.ends_with(&format!(
            "{n} objects checked: {n} valid, 0 invalid, 0 without a schema; 0 errors, 0 warnings\n"
        )),
        "{stdout}"
    );

    std::fs::write(
        dir.path().join("bad.yaml"),
        "apiVersion: pt.fn.crossplane.io/v1beta1
kind: Resources
metadata: {name: bad}
resources:
- name: bucket
  base: {apiVersion: s3.example.org/v1, kind: Bucket}
  patches:
  - fromFieldPath: spec.size
    toFieldPath: spec.forProvider.size
    transforms:
    - type: math
      math: {multiply: two}
    - type: string
      string: {type: Convert, convert: ToCamelCase}
- base: {apiVersion: s3.example.org/v1, kind: Policy}
",
    )
    .unwrap();
    let (code, stdout, stderr) = run(xprender()
        .current_dir(dir.path())
        .arg("validate")
        .arg(&crd)
        .args(["--resources", "bad.yaml"]));
    assert_eq!(code, 1, "stdout:\n{stdout}\nstderr:\n{stderr}");
    for want in [
        "bad.yaml:12:14: Resources/bad: resources[0].patches[0].transforms[0].math.multiply: Invalid value: \"string\": resources[0].patches[0].transforms[0].math.multiply in body must be of type integer: \"string\"",
        "bad.yaml:14:31: Resources/bad: resources[0].patches[0].transforms[1].string.convert: Unsupported value: \"ToCamelCase\"",
        "bad.yaml:15:3: Resources/bad: resources[1].name: Required value",
    ] {
        assert!(
            stdout.lines().any(|l| l.starts_with(want)),
            "no line starts with {want:?}:\n{stdout}"
        );
    }
}

/// A convert transform's `toType` takes function-patch-and-transform's values: `float64`, not
/// `float`.
#[test]
fn convert_to_float64_is_a_known_type() {
    let dir = tempfile::tempdir().unwrap();
    let composition = |to_type: &str| {
        format!(
            "apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {{name: c}}
spec:
  compositeTypeRef: {{apiVersion: example.org/v1, kind: XB}}
  mode: Pipeline
  pipeline:
  - step: pt
    functionRef: {{name: function-xprender}}
    input:
      apiVersion: pt.fn.crossplane.io/v1beta1
      kind: Resources
      resources:
      - name: b
        base: {{apiVersion: s3.example.org/v1, kind: Bucket}}
        patches:
        - fromFieldPath: spec.size
          toFieldPath: spec.size
          transforms:
          - type: convert
            convert: {{toType: {to_type}}}
"
        )
    };
    for (to_type, want) in [("float64", 0), ("float", 1)] {
        std::fs::write(dir.path().join("c.yaml"), composition(to_type)).unwrap();
        let (code, stdout, stderr) = run(xprender().current_dir(dir.path()).args([
            "validate",
            "c.yaml",
            "--resources",
            "c.yaml",
        ]));
        assert_eq!(code, want, "{to_type}: {stdout}{stderr}");
        assert_eq!(
            stdout.contains("convert.toType: Unsupported value"),
            want == 1,
            "{to_type}: {stdout}"
        );
    }
}

/// The Function package's input CRD says what the engine's model of the input says: each
/// object the members of its Go struct, each member the JSON type of its Go type, and every
/// enum a choice among the values the engine accepts for that named type.
#[test]
fn the_function_packages_input_crd_follows_the_engine_model() {
    use xprender::model::pt::{self, Go, Type};

    fn check(schema: &Value, t: &Type, at: &str, wrong: &mut Vec<String>) {
        let props = schema["properties"].as_object();
        // ObjectMeta is the API server's own: a CRD may only say it is an object.
        if t.go == "v1.ObjectMeta" && props.is_none() {
            return;
        }
        let mut have: Vec<&str> = props
            .into_iter()
            .flat_map(|p| p.keys())
            .map(String::as_str)
            .collect();
        let mut want: Vec<&str> = t.members.iter().map(|(n, _)| *n).collect();
        have.sort_unstable();
        want.sort_unstable();
        if have != want {
            wrong.push(format!(
                "{at}: members {have:?}, the model's {t}: {want:?}",
                t = t.go
            ));
        }
        for (name, go) in t.members {
            let Some(s) = props.and_then(|p| p.get(*name)) else {
                continue;
            };
            let at = format!("{at}.{name}");
            let ty = s["type"].as_str().unwrap_or("");
            let fits = match go {
                Go::Raw | Go::Object => true,
                Go::Str(n) => {
                    let values = pt::values(n);
                    let enum_ok = s["enum"].as_array().is_none_or(|e| {
                        e.iter()
                            .all(|v| v.as_str().is_some_and(|v| values.contains(&v)))
                    });
                    if !enum_ok {
                        wrong.push(format!(
                            "{at}: enum {} beyond the model's {values:?}",
                            s["enum"]
                        ));
                    }
                    ty == "string"
                }
                Go::Int(_) => ty == "integer",
                Go::One(t) => {
                    check(s, t, &at, wrong);
                    ty == "object"
                }
                Go::List(t) => {
                    check(&s["items"], t, &format!("{at}[]"), wrong);
                    ty == "array"
                }
                Go::Strings => ty == "array" && s["items"]["type"] == "string",
                Go::StringMap | Go::Pairs => ty == "object",
            };
            if !fits {
                wrong.push(format!("{at}: type {ty:?} for the model's {go:?}"));
            }
        }
    }

    let path = common::root().join("host/package/input/pt.fn.crossplane.io_resources.yaml");
    let crd: Value = serde_saphyr::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let schema = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    let mut wrong = Vec::new();
    check(schema, &pt::RESOURCES, "Resources", &mut wrong);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
