//! The `xprender` command end to end: flags, exit codes, input errors, output formats.

mod common;

use common::{built_request, canned_engine, example, root, run, temp_dir, write, xprender};
use serde_json::{Value, json};

const XR: &str = "\
apiVersion: example.org/v1
kind: XThing
metadata:
  name: thing
spec:
  size: 3
";

fn composition(name: &str, labels: &str, kind: &str) -> String {
    format!(
        "apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: {name}
  labels: {labels}
spec:
  compositeTypeRef:
    apiVersion: example.org/v1
    kind: {kind}
  resources:
    - name: a
      base:
        apiVersion: v1
        kind: ConfigMap
"
    )
}

#[test]
fn help_and_version() {
    let (code, out, _) = run(xprender().args(["render", "--help"]));
    assert_eq!(code, 0);
    for needle in [
        "--observed-resources",
        "--request",
        "--max-memory",
        "--timeout",
        "--engine",
        "Examples:",
        "Exit codes",
    ] {
        assert!(out.contains(needle), "render --help lacks {needle}: {out}");
    }
    let (code, out, _) = run(xprender().arg("version"));
    assert_eq!(code, 0);
    assert!(
        out.contains(&format!("xprender {}", env!("CARGO_PKG_VERSION"))),
        "{out}"
    );
    assert!(out.contains("abi:      1"), "{out}");
    assert!(out.contains("wasmtime: 48."), "{out}");
}

#[test]
fn completions_for_each_shell() {
    for (shell, needle) in [
        ("bash", "_xprender()"),
        ("zsh", "#compdef xprender"),
        ("fish", "complete -c xprender"),
    ] {
        let (code, out, err) = run(xprender().args(["completions", shell]));
        assert_eq!(code, 0, "{shell}: {err}");
        assert!(out.contains(needle), "{shell} completion lacks {needle}");
        assert!(
            out.contains("observed-resources"),
            "{shell} completion lacks render flags"
        );
    }
    let (code, _, err) = run(xprender().args(["completions", "tcsh"]));
    assert_eq!(code, 2, "{err}");
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        vec!["render"],
        vec!["render", "xr.yaml"],
        vec!["render", "a", "b", "--output", "toml"],
        vec!["render", "a", "b", "--semantics", "classic"],
        vec!["render", "a", "b", "--max-memory", "lots"],
        vec!["render", "a", "b", "--max-memory", "1KiB"],
        vec!["render", "a", "b", "--timeout", "soon"],
        vec!["render", "a", "b", "--timeout", "0s"],
        vec!["render", "a", "b", "--request", "r.json"],
        vec!["render", "--request", "r.json", "--semantics", "native"],
    ] {
        let (code, _, err) = run(xprender().args(&args));
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("error"), "{args:?}: {err}");
    }
}

/// `--timeout` reads Go durations (`time.ParseDuration`) and refuses bad ones with Go's text.
#[test]
fn timeout_takes_go_durations() {
    let (xr, comp) = (example("xr.yaml"), example("composition.yaml"));
    for valid in ["1m30s", "1.5h", "2h45m", "300000us", "1.5s"] {
        let (code, out, err) = run(xprender()
            .arg("render")
            .args([&xr, &comp])
            .args(["--timeout", valid]));
        assert_eq!(code, 0, "--timeout {valid}: {err}");
        assert!(out.starts_with("---\n"), "--timeout {valid}: {out}");
    }
    for (invalid, message) in [
        ("-", r#"time: invalid duration "-""#),
        ("1", r#"time: missing unit in duration "1""#),
        ("1d", r#"time: unknown unit "d" in duration "1d""#),
        (
            "1µx",
            r#"time: unknown unit "\xc2\xb5x" in duration "1\xc2\xb5x""#,
        ),
        ("2562048h", r#"time: invalid duration "2562048h""#),
        ("0", "0 is not a positive duration"),
        ("-1s", "-1s is not a positive duration"),
    ] {
        let (code, _, err) = run(xprender()
            .arg("render")
            .args([&xr, &comp])
            .arg(format!("--timeout={invalid}")));
        assert_eq!(code, 2, "--timeout {invalid}: {err}");
        assert!(err.contains(message), "--timeout {invalid}: {err}");
    }
}

#[test]
fn missing_files_exit_2() {
    let dir = temp_dir("missing-files");
    let xr = write(&dir, "xr.yaml", XR);
    let comp = write(&dir, "comp.yaml", &composition("c", "{}", "XThing"));
    let cases: Vec<(Vec<std::ffi::OsString>, &str)> = vec![
        (
            vec!["nope.yaml".into(), comp.clone().into()],
            "nope.yaml: no such file",
        ),
        (
            vec![xr.clone().into(), "nope-comp.yaml".into()],
            "nope-comp.yaml: no such file",
        ),
        (
            vec![
                xr.clone().into(),
                comp.clone().into(),
                "--observed-resources".into(),
                "nope-dir".into(),
            ],
            "nope-dir: no such file",
        ),
        (
            vec![
                xr.clone().into(),
                comp.clone().into(),
                "--environment".into(),
                "env.yaml".into(),
            ],
            "env.yaml",
        ),
        (
            vec![
                xr.clone().into(),
                comp.clone().into(),
                "--xrd".into(),
                "xrd.yaml".into(),
            ],
            "xrd.yaml",
        ),
        (
            vec![
                xr.clone().into(),
                comp.clone().into(),
                "--engine".into(),
                "engine.wasm".into(),
            ],
            "engine.wasm",
        ),
        (
            vec!["--request".into(), "no-request.json".into()],
            "no-request.json",
        ),
    ];
    for (args, needle) in cases {
        let (code, out, err) = run(xprender().arg("render").args(&args));
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty());
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

#[test]
fn invalid_yaml_and_json_name_file_line_column() {
    let dir = temp_dir("invalid-yaml");
    let comp = write(&dir, "comp.yaml", &composition("c", "{}", "XThing"));
    let bad_yaml = write(
        &dir,
        "bad.yaml",
        "apiVersion: v1\nkind: X\nmetadata:\n  name: [unclosed\n",
    );
    let (code, _, err) = run(xprender().arg("render").arg(&bad_yaml).arg(&comp));
    assert_eq!(code, 2, "{err}");
    let prefix = format!("{}:", bad_yaml.display());
    assert!(err.contains(&prefix), "{err}");
    let position = err.split(&prefix).nth(1).unwrap();
    let mut parts = position.splitn(3, ':');
    let (line, col) = (parts.next().unwrap(), parts.next().unwrap());
    assert!(
        line.parse::<u32>().is_ok() && col.parse::<u32>().is_ok(),
        "no line:column in {err}"
    );

    let bad_json = write(&dir, "bad.json", "{\n  \"kind\": \"X\",\n  oops\n}\n");
    let (code, _, err) = run(xprender().arg("render").arg(&bad_json).arg(&comp));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("{}:3:3:", bad_json.display())),
        "{err}"
    );

    let tab = write(&dir, "tab.yaml", "a:\n\t- b\n");
    let (code, _, err) = run(xprender().arg("render").arg(&tab).arg(&comp));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("tab.yaml:2:"), "{err}");

    let inf = write(
        &dir,
        "inf.yaml",
        "apiVersion: v1\nkind: X\nspec:\n  n: .inf\n",
    );
    let (code, _, err) = run(xprender().arg("render").arg(&inf).arg(&comp));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("inf.yaml:4:6: non-finite float `.inf`"),
        "{err}"
    );

    let two = write(&dir, "two.yaml", &format!("{XR}---\n{XR}"));
    let (code, _, err) = run(xprender().arg("render").arg(&two).arg(&comp));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("expected one composite resource, found 2 documents"),
        "{err}"
    );

    let empty = write(&dir, "empty.yaml", "# nothing\n");
    let (code, _, err) = run(xprender().arg("render").arg(&empty).arg(&comp));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("empty"), "{err}");
}

#[test]
fn composition_selection() {
    let dir = temp_dir("selection");
    let xr = write(&dir, "xr.yaml", XR);
    // The engine chooses; the CLI's debug log names its choice.
    let chosen =
        |xr: &std::path::Path, comps: &std::path::Path, extra: &[&str]| -> Result<String, String> {
            let (code, _, err) = run(xprender()
                .env("XPRENDER_LOG", "debug")
                .arg("render")
                .arg(xr)
                .arg(comps)
                .args(extra)
                .args(["--output", "json"]));
            if code == 0 {
                let line = err
                    .lines()
                    .find_map(|l| l.strip_prefix("debug: Composition \""))
                    .unwrap_or_else(|| panic!("no choice logged: {err}"));
                Ok(line.split('"').next().unwrap().to_owned())
            } else {
                assert_eq!(code, 2, "{err}");
                Err(err)
            }
        };

    // The only Composition for the XR's type, among others and non-Composition documents.
    let comps = write(
        &dir,
        "comps.yaml",
        &format!(
            "{}---\n{}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: noise\n",
            composition("for-other", "{}", "XOther"),
            composition("for-thing", "{}", "XThing")
        ),
    );
    assert_eq!(chosen(&xr, &comps, &[]).unwrap(), "for-thing");

    // Two for the type: ambiguous, candidates listed.
    let two = write(
        &dir,
        "two.yaml",
        &format!(
            "{}---\n{}",
            composition("aws", "{provider: aws}", "XThing"),
            composition("gcp", "{provider: gcp}", "XThing")
        ),
    );
    let err = chosen(&xr, &two, &[]).unwrap_err();
    assert!(
        err.contains("2 Compositions are for XThing.example.org/v1")
            && err.contains("\"aws\"")
            && err.contains("\"gcp\""),
        "{err}"
    );

    // compositionRef, compositionSelector, v2 spec.crossplane.compositionRef.
    let by_ref = write(
        &dir,
        "by-ref.yaml",
        &format!("{XR}  compositionRef:\n    name: gcp\n"),
    );
    assert_eq!(chosen(&by_ref, &two, &[]).unwrap(), "gcp");
    let by_v2_ref = write(
        &dir,
        "by-v2-ref.yaml",
        &format!("{XR}  crossplane:\n    compositionRef:\n      name: aws\n"),
    );
    assert_eq!(chosen(&by_v2_ref, &two, &[]).unwrap(), "aws");
    let by_sel = write(
        &dir,
        "by-sel.yaml",
        &format!("{XR}  compositionSelector:\n    matchLabels:\n      provider: aws\n"),
    );
    assert_eq!(chosen(&by_sel, &two, &[]).unwrap(), "aws");
    let missing_ref = write(
        &dir,
        "missing-ref.yaml",
        &format!("{XR}  compositionRef:\n    name: azure\n"),
    );
    let err = chosen(&missing_ref, &two, &[]).unwrap_err();
    assert!(
        err.contains("\"azure\", which is not among the documents given")
            && err.contains("\"aws\""),
        "{err}"
    );
    let sel_none = write(
        &dir,
        "sel-none.yaml",
        &format!("{XR}  compositionSelector:\n    matchLabels:\n      provider: azure\n"),
    );
    assert!(
        chosen(&sel_none, &two, &[])
            .unwrap_err()
            .contains("matches the XR's compositionSelector")
    );
    let sel_many = write(
        &dir,
        "sel-many.yaml",
        &format!("{XR}  compositionSelector:\n    matchLabels: {{}}\n"),
    );
    assert!(
        chosen(&sel_many, &two, &[])
            .unwrap_err()
            .contains("2 Compositions match the XR's compositionSelector")
    );

    // The XRD's default, and its enforced ref which wins over the XR's own ref.
    let xrd = |field: &str, name: &str| {
        format!(
            "apiVersion: apiextensions.crossplane.io/v1\nkind: CompositeResourceDefinition\nmetadata:\n  name: xthings.example.org\n\
             spec:\n  group: example.org\n  names:\n    kind: XThing\n    plural: xthings\n  {field}:\n    name: {name}\n"
        )
    };
    let default = write(
        &dir,
        "xrd-default.yaml",
        &xrd("defaultCompositionRef", "gcp"),
    );
    assert_eq!(
        chosen(&xr, &two, &["--xrd", default.to_str().unwrap()]).unwrap(),
        "gcp"
    );
    let enforced = write(
        &dir,
        "xrd-enforced.yaml",
        &xrd("enforcedCompositionRef", "gcp"),
    );
    assert_eq!(
        chosen(&by_v2_ref, &two, &["--xrd", enforced.to_str().unwrap()]).unwrap(),
        "gcp"
    );
    // An XRD among the Composition documents is found without --xrd.
    let with_xrd = write(
        &dir,
        "with-xrd.yaml",
        &format!(
            "{}---\n{}",
            xrd("defaultCompositionRef", "aws"),
            std::fs::read_to_string(&two).unwrap()
        ),
    );
    assert_eq!(chosen(&xr, &with_xrd, &[]).unwrap(), "aws");

    // A directory of files.
    let comp_dir = dir.join("comp-dir");
    std::fs::create_dir_all(&comp_dir).unwrap();
    write(&comp_dir, "a.yaml", &composition("in-dir", "{}", "XThing"));
    write(&comp_dir, "notes.txt", "not read");
    assert_eq!(chosen(&xr, &comp_dir, &[]).unwrap(), "in-dir");

    // A referenced Composition for another type; none for the type; no Composition at all.
    let other = write(
        &dir,
        "other.yaml",
        &composition("for-other", "{}", "XOther"),
    );
    let ref_other = write(
        &dir,
        "ref-other.yaml",
        &format!("{XR}  compositionRef:\n    name: for-other\n"),
    );
    assert!(
        chosen(&ref_other, &other, &[])
            .unwrap_err()
            .contains("is for XOther.example.org/v1, not for the XR's XThing.example.org/v1")
    );
    assert!(
        chosen(&xr, &other, &[])
            .unwrap_err()
            .contains("no Composition has compositeTypeRef XThing.example.org/v1")
    );
    let none = write(&dir, "none.yaml", "apiVersion: v1\nkind: ConfigMap\n");
    assert!(
        chosen(&xr, &none, &[])
            .unwrap_err()
            .contains("no Composition (kind: Composition)")
    );
}

#[test]
fn request_assembly_from_the_example() {
    let dir = temp_dir("assembly");
    let req = built_request(
        &dir,
        &[
            example("xr.yaml").to_str().unwrap(),
            example("composition.yaml").to_str().unwrap(),
            "--observed-resources",
            example("observed.yaml").to_str().unwrap(),
            "--environment",
            example("environment.yaml").to_str().unwrap(),
            "--xrd",
            example("xrd.yaml").to_str().unwrap(),
            "--semantics",
            "function",
            "--trace",
        ],
    );
    // The files' documents as they are, in the order given (a given XRD before the Composition
    // documents); the engine chooses among them.
    let docs = req["documents"].as_array().unwrap();
    let kinds: Vec<&str> = docs.iter().map(|d| d["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "XPostgreSQLInstance",
            "CompositeResourceDefinition",
            "Composition",
            "SecurityGroup",
            "Instance",
            "Bucket",
            "Secret",
            "EnvironmentConfig"
        ]
    );
    // `deletionProtection: yes` is a YAML 1.1 boolean, as kubectl reads it.
    assert_eq!(docs[0]["spec"]["parameters"]["deletionProtection"], true);
    for part in ["xr", "composition", "observed", "xrdSchema"] {
        assert!(req.get(part).is_none(), "{part}: {req}");
    }
    assert_eq!(
        req["options"],
        json!({"xr": "XPostgreSQLInstance/orders-db", "semantics": "function", "trace": true,
               "crossplane": "v2",
               "now": "2024-01-01T00:00:00Z", "resultSteps": true, "includeContext": true})
    );

    // Without optional inputs: the XR and the Composition documents, and only the options
    // every file render has: crossplane render's condition time, result steps, the context.
    let req = built_request(
        &dir,
        &[
            example("xr.yaml").to_str().unwrap(),
            example("composition.yaml").to_str().unwrap(),
            "--composition-name",
            "postgresql-aws",
        ],
    );
    assert_eq!(req["documents"].as_array().unwrap().len(), 2, "{req}");
    assert_eq!(
        req["options"],
        json!({"xr": "XPostgreSQLInstance/orders-db", "compositionName": "postgresql-aws",
               "crossplane": "v2",
               "now": "2024-01-01T00:00:00Z", "resultSteps": true, "includeContext": true}),
        "{req}"
    );
}

/// A Composition whose one template reads the environment and its connection Secret.
const COMPOSITION_READING_INPUTS: &str = "\
apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: c
spec:
  compositeTypeRef:
    apiVersion: example.org/v1
    kind: XThing
  resources:
    - name: a
      base:
        apiVersion: v1
        kind: ConfigMap
      patches:
        - type: FromEnvironmentFieldPath
          fromFieldPath: a
          toFieldPath: data.a
      connectionDetails:
        - name: a
          fromConnectionSecretKey: a
        - name: b
          fromConnectionSecretKey: b
";

#[test]
fn observed_resources_errors_and_secrets() {
    let dir = temp_dir("observed");
    let xr = write(&dir, "xr.yaml", XR);
    let comp = write(&dir, "comp.yaml", COMPOSITION_READING_INPUTS);
    let render_from = |observed: &std::path::Path| {
        run(xprender()
            .arg("render")
            .arg(&xr)
            .arg(&comp)
            .arg("--observed-resources")
            .arg(observed)
            .args(["--output", "json"]))
    };
    let render = |observed: &str| render_from(&write(&dir, "observed.yaml", observed));
    let (code, _, err) = render("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n");
    assert_eq!(code, 2);
    assert!(err.contains("observed.yaml: observed resource ConfigMap/cm is not used: no crossplane.io/composition-resource-name annotation"), "{err}");

    let annotated = |name: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  annotations:\n    crossplane.io/composition-resource-name: a\n\
             spec:\n  writeConnectionSecretToRef:\n    name: conn\n    namespace: ns\n"
        )
    };
    let (code, _, err) = render(&format!("{}---\n{}", annotated("one"), annotated("two")));
    assert_eq!(code, 2);
    // The engine pairs the first; an observed resource given and not used is an error here.
    assert!(err.contains("observed.yaml (document 2): observed resource ConfigMap/two is not used: ConfigMap/one is annotated crossplane.io/composition-resource-name: a before it; Crossplane associates the first and deletes this one"), "{err}");

    // stringData is encoded; a Secret nobody references is ignored with a warning.
    let secret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: conn\n  namespace: ns\ndata:\n  a: YQ==\nstringData:\n  b: bee\n";
    let stray = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: stray\n";
    let (code, out, err) = render(&format!("{}---\n{secret}---\n{stray}", annotated("one")));
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("observed.yaml (document 3): ignoring Secret/stray: no observed resource writes its connection secret to it"),
        "{err}"
    );
    let output: Value = serde_json::from_str(out.trim_end()).unwrap();
    assert_eq!(
        output["connectionDetails"],
        json!({"a": "YQ==", "b": "YmVl"})
    );
    assert!(output.get("inputs").is_none(), "{out}");

    let bad = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: conn\n  namespace: ns\ndata:\n  a: '*not base64*'\n";
    let (code, _, err) = render(&format!("{}---\n{bad}", annotated("one")));
    assert_eq!(code, 2);
    assert!(
        err.contains("observed.yaml (document 2) (Secret/conn): data.a is not base64"),
        "{err}"
    );

    // A directory of observed files.
    let obs_dir = dir.join("observed-dir");
    std::fs::create_dir_all(&obs_dir).unwrap();
    write(&obs_dir, "one.yaml", &annotated("one"));
    let (code, out, err) = render_from(&obs_dir);
    assert_eq!(code, 0, "{err}");
    let output: Value = serde_json::from_str(out.trim_end()).unwrap();
    assert_eq!(
        output["resources"]["a"]["resource"]["metadata"]["name"],
        "one"
    );
}

#[test]
fn environment_inputs() {
    let dir = temp_dir("environment");
    let xr = write(&dir, "xr.yaml", XR);
    let comp = write(&dir, "comp.yaml", COMPOSITION_READING_INPUTS);
    let env_of = |text: &str| {
        let p = write(&dir, "env.yaml", text);
        run(xprender()
            .arg("render")
            .arg(&xr)
            .arg(&comp)
            .arg("--environment")
            .arg(&p)
            .args(["--output", "json"]))
    };
    let environment = |out: &str| {
        let output: Value = serde_json::from_str(out.trim_end()).unwrap();
        output["context"]["apiextensions.crossplane.io/environment"].clone()
    };
    // EnvironmentConfigs (an apiVersion is not required) merge in order.
    let configs = "kind: EnvironmentConfig\ndata:\n  a: {p: 1, q: 2}\n  b: 1\n---\nkind: EnvironmentConfig\ndata:\n  a: {q: 3}\n  c: [1]\n";
    let (code, out, err) = env_of(configs);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        environment(&out),
        json!({"apiVersion": "internal.crossplane.io/v1alpha1", "kind": "Environment", "a": {"p": 1, "q": 3}, "b": 1, "c": [1]})
    );
    // One plain object is an EnvironmentConfig's data.
    let (code, out, err) = env_of("a: eu\n");
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        environment(&out),
        json!({"apiVersion": "internal.crossplane.io/v1alpha1", "kind": "Environment", "a": "eu"})
    );
    let (code, _, err) = env_of("- a\n---\n- b\n");
    assert_eq!(code, 2);
    assert!(
        err.contains("expected EnvironmentConfig documents or one environment object"),
        "{err}"
    );
}

/// An Output document as the engine returns it, to test what the CLI makes of it.
fn output_doc() -> Value {
    json!({
        "composite": {
            "apiVersion": "example.org/v1", "kind": "XThing",
            "metadata": {"name": "thing", "labels": {"crossplane.io/composite": "thing"}},
            "spec": {"size": 3, "resourceRefs": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "b"}]},
            "status": {"address": "db.example.org"}
        },
        "resources": {
            "b": {"resource": {"apiVersion": "v1", "kind": "ConfigMap",
                               "metadata": {"annotations": {"crossplane.io/composition-resource-name": "b"}},
                               "data": {"flag": "yes", "mode": "0777", "n": "1e3", "empty": ""}}, "ready": true},
            "a": {"resource": {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}, "ready": false}
        },
        "connectionDetails": {}, "ready": false,
        "results": [{"severity": "Warning", "message": "cannot render b", "resource": "b"}]
    })
}

fn composition_ab() -> String {
    "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: c\nspec:\n  compositeTypeRef:\n    apiVersion: example.org/v1\n    kind: XThing\n  resources:\n    - name: b\n    - name: a\n".into()
}

#[test]
fn yaml_stream_like_crossplane_render() {
    let dir = temp_dir("yaml-stream");
    let xr = write(&dir, "xr.yaml", XR);
    let comp = write(&dir, "comp.yaml", &composition_ab());
    let engine = canned_engine(&dir, "canned.wasm", &output_doc().to_string());
    let (code, out, err) = run(xprender()
        .arg("render")
        .arg(&xr)
        .arg(&comp)
        .arg("--engine")
        .arg(&engine));
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("warning: b: cannot render b"), "{err}");
    let expected = "\
---
apiVersion: example.org/v1
kind: XThing
metadata:
  name: thing
spec:
  resourceRefs:
  - apiVersion: v1
    kind: ConfigMap
    name: b
status:
  address: db.example.org
---
apiVersion: v1
data:
  empty: \"\"
  flag: \"yes\"
  mode: \"0777\"
  \"n\": \"1e3\"
kind: ConfigMap
metadata:
  annotations:
    crossplane.io/composition-resource-name: b
---
apiVersion: v1
kind: Secret
metadata:
  annotations:
    crossplane.io/composition-resource-name: a
  name: s
";
    assert_eq!(out, expected);
    // --include-full-xr prints the desired XR as the engine returned it.
    let (code, out, _) = run(xprender()
        .arg("render")
        .arg(&xr)
        .arg(&comp)
        .arg("-x")
        .arg("--engine")
        .arg(&engine));
    assert_eq!(code, 0);
    assert!(out.starts_with("---\napiVersion: example.org/v1\nkind: XThing\nmetadata:\n  labels:\n    crossplane.io/composite: thing\n  name: thing\nspec:\n  resourceRefs:"), "{out}");
    assert!(out.contains("  size: 3\n"), "{out}");

    // --output json prints the engine's bytes.
    let (code, out, err) = run(xprender()
        .arg("render")
        .arg(&xr)
        .arg(&comp)
        .args(["--output", "json"])
        .arg("--engine")
        .arg(&engine));
    assert_eq!(code, 0);
    assert_eq!(out, format!("{}\n", output_doc()));
    assert!(err.is_empty(), "json mode keeps stderr quiet: {err}");
}

#[test]
fn engine_errors_and_fatal_results_exit_1() {
    let dir = temp_dir("engine-errors");
    let xr = write(&dir, "xr.yaml", XR);
    let comp = write(&dir, "comp.yaml", &composition_ab());
    let error_doc = json!({"error": {"kind": "Render", "message": "cannot apply the patch at index 2: boom",
        "context": {"resource": "b", "patchIndex": 2, "patchType": "FromCompositeFieldPath",
                    "transformIndex": 0, "transformType": "math", "fieldPath": "spec.size"}}});
    let engine = canned_engine(&dir, "error.wasm", &error_doc.to_string());
    let (code, out, err) = run(xprender()
        .arg("render")
        .arg(&xr)
        .arg(&comp)
        .arg("--engine")
        .arg(&engine));
    assert_eq!(code, 1);
    assert!(out.is_empty());
    for needle in [
        "error: render failed: cannot apply the patch at index 2: boom",
        "resource:   b",
        "patch:      #2 (FromCompositeFieldPath)",
        "transform:  #0 (math)",
        "field path: spec.size",
        "kind:       Render",
    ] {
        assert!(err.contains(needle), "{needle} not in {err}");
    }

    // A function's Fatal result: nothing was applied, so nothing is printed.
    let mut fatal = output_doc();
    fatal["resources"] = json!({});
    fatal["results"] = json!([{"severity": "Fatal", "message": "cannot compose", "resource": "a"}]);
    let engine = canned_engine(&dir, "fatal.wasm", &fatal.to_string());
    let (code, out, err) = run(xprender()
        .arg("render")
        .arg(&xr)
        .arg(&comp)
        .arg("--engine")
        .arg(&engine));
    assert_eq!(code, 1);
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("error: a: cannot compose"), "{err}");

    // A native reconcile that failed after the apply: the applied resources are printed.
    let mut applied = output_doc();
    applied["results"] = json!([{"severity": "Fatal", "message": "cannot compose", "resource": "a",
        "patchIndex": 1, "patchType": "ToCompositeFieldPath", "fieldPath": "status.x"}]);
    let engine = canned_engine(&dir, "applied.wasm", &applied.to_string());
    let (code, out, err) = run(xprender()
        .arg("render")
        .arg(&xr)
        .arg(&comp)
        .arg("--engine")
        .arg(&engine));
    assert_eq!(code, 1);
    let kinds: Vec<&str> = out.lines().filter(|l| l.starts_with("kind: ")).collect();
    assert_eq!(
        kinds,
        ["kind: XThing", "kind: ConfigMap", "kind: Secret"],
        "{out}"
    );
    for needle in [
        "error: a: cannot compose",
        "patch:      #1 (ToCompositeFieldPath)",
        "field path: status.x",
        "after applying the composed resources shown",
    ] {
        assert!(err.contains(needle), "{needle} not in {err}");
    }

    let engine = canned_engine(&dir, "garbage.wasm", "not json");
    let (code, _, err) = run(xprender()
        .arg("render")
        .arg(&xr)
        .arg(&comp)
        .arg("--engine")
        .arg(&engine));
    assert_eq!(code, 1);
    assert!(err.contains("the engine returned invalid JSON"), "{err}");
}

#[test]
fn paused_xr_renders_nothing() {
    let dir = temp_dir("paused");
    let xr = write(
        &dir,
        "xr.yaml",
        "apiVersion: example.org/v1\nkind: XThing\nmetadata:\n  name: thing\n  annotations:\n    crossplane.io/paused: \"true\"\n",
    );
    let comp = write(&dir, "comp.yaml", &composition_ab());
    let engine = canned_engine(&dir, "canned.wasm", &output_doc().to_string());
    let (code, out, err) = run(xprender()
        .arg("render")
        .arg(&xr)
        .arg(&comp)
        .arg("--engine")
        .arg(&engine));
    assert_eq!(code, 0, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("notice: the XR is paused"), "{err}");
}

#[test]
fn trace_is_printed_on_stderr() {
    let dir = temp_dir("trace");
    let xr = write(&dir, "xr.yaml", XR);
    let comp = write(&dir, "comp.yaml", &composition_ab());
    let mut doc = output_doc();
    doc["trace"] = json!([{"resource": "b", "patch": 0, "type": "FromCompositeFieldPath",
        "direction": "composite -> composed", "policy": {"fromFieldPath": "Optional", "write": "Replace"},
        "from": [{"path": "spec.size", "value": 3}],
        "transforms": [{"index": 0, "type": "math", "input": 3, "output": 6}],
        "to": [{"path": "data.n", "value": 6}], "outcome": "applied"}]);
    let engine = canned_engine(&dir, "trace.wasm", &doc.to_string());
    let (code, out, err) = run(xprender()
        .arg("render")
        .arg(&xr)
        .arg(&comp)
        .arg("--trace")
        .arg("--engine")
        .arg(&engine));
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("---\n"));
    assert!(
        err.contains("b  patch #0 FromCompositeFieldPath  composite -> composed  [applied]"),
        "{err}"
    );
    assert!(err.contains("    math   3 → 6\n"), "{err}");
    assert!(err.contains("    to     data.n = 6\n"), "{err}");
    assert!(!err.contains('\x1b'), "no colors off a terminal: {err}");
}

#[test]
fn raw_requests_print_the_yaml_stream_too() {
    let dir = temp_dir("request-yaml");
    let mut doc = output_doc();
    doc["trace"] = json!([{"resource": "a", "patch": 0, "type": "FromCompositeFieldPath", "outcome": "skipped",
        "from": [{"path": "spec.x", "missing": true, "error": "no such field"}], "to": [],
        "reason": "the source is missing"}]);
    let engine = canned_engine(&dir, "canned.wasm", &doc.to_string());
    let comp: Value = serde_json::from_str(
        &json!({"spec": {"resources": [{"name": "b"}, {"name": "a"}]}}).to_string(),
    )
    .unwrap();
    let request = write(
        &dir,
        "request.json",
        &json!({"xr": {"spec": {"size": 3}}, "composition": comp}).to_string(),
    );
    let (code, out, err) = run(xprender()
        .args(["render", "--request"])
        .arg(&request)
        .arg("--engine")
        .arg(&engine));
    assert_eq!(code, 0, "{err}");
    let kinds: Vec<&str> = out.lines().filter(|l| l.starts_with("kind: ")).collect();
    assert_eq!(
        kinds,
        ["kind: XThing", "kind: ConfigMap", "kind: Secret"],
        "Composition order: {out}"
    );
    // The response's trace is printed whether or not --trace was given: the request decides.
    assert!(
        err.contains("(missing: no such field)") && err.contains("why    the source is missing"),
        "{err}"
    );

    // From stdin, as JSON.
    let (code, out, _) = run(xprender()
        .args(["render", "--request", "-", "--output", "json", "--engine"])
        .arg(&engine)
        .stdin(std::fs::File::open(&request).unwrap()));
    assert_eq!(code, 0);
    assert_eq!(out, format!("{doc}\n"));
}

/// The bundled engine on a first render whose Required ToComposite patch has no source yet:
/// the resources Crossplane applies are printed, the failure goes to stderr, exit 1.
#[test]
fn a_failure_after_the_apply_shows_the_applied_resources() {
    let request = root().join("tests/fixtures/after-apply/to-composite-required-new/request.json");
    let (code, out, err) = run(xprender().args(["render", "--request"]).arg(&request));
    assert_eq!(code, 1, "{err}");
    let kinds: Vec<&str> = out.lines().filter(|l| l.starts_with("kind: ")).collect();
    assert_eq!(
        kinds,
        [
            "kind: XCluster",
            "kind: Network",
            "kind: Cluster",
            "kind: NodePool"
        ],
        "{out}"
    );
    assert!(
        out.contains("  networkId: net-0a1\n"),
        "the XR as far as it got: {out}"
    );
    for needle in [
        "error: cluster: cannot render ToComposite patches for composed resource \"cluster\": cannot apply the \"ToCompositeFieldPath\" patch at index 1: status: no such field",
        "patch:      #1 (ToCompositeFieldPath)",
        "field path: status.atProvider.endpoint",
    ] {
        assert!(err.contains(needle), "{needle} not in {err}");
    }

    let (code, out, err) = run(xprender()
        .args(["render", "--output", "json", "--request"])
        .arg(&request));
    assert_eq!(code, 1, "{err}");
    let doc: Value = serde_json::from_str(&out).expect("the Output as JSON");
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(request.with_file_name("expected.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(doc, expected);
    assert!(
        err.contains("field path: status.atProvider.endpoint"),
        "{err}"
    );

    // The same patch once the resource is observed with the field: a success.
    let request =
        root().join("tests/fixtures/after-apply/to-composite-required-observed/request.json");
    let (code, out, err) = run(xprender().args(["render", "--request"]).arg(&request));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("  endpoint: https://10.0.0.1\n"), "{out}");
}

#[test]
fn the_example_renders_with_the_bundled_engine() {
    let (code, out, err) = run(xprender()
        .arg("render")
        .arg(example("xr.yaml"))
        .arg(example("composition.yaml"))
        .arg("--observed-resources")
        .arg(example("observed.yaml")));
    assert_eq!(code, 0, "{err}");
    let names: Vec<&str> = out
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("crossplane.io/composition-resource-name: ")
        })
        .collect();
    assert_eq!(
        names,
        [
            "security-group",
            "subnet-group",
            "parameter-group",
            "instance",
            "backup-bucket",
            "app-config"
        ],
        "every composed resource, in Composition order: {out}"
    );
    assert!(
        out.starts_with(
            "---\napiVersion: platform.example.org/v1alpha1\nkind: XPostgreSQLInstance\n"
        ),
        "{out}"
    );
    // ToCompositeFieldPath and CombineToComposite read the observed instance.
    assert!(
        out.contains("  endpoint: orders-db-k7m2p.c9akciq32.eu-west-1.rds.amazonaws.com:5432\n"),
        "{out}"
    );

    // Paused: a notice, nothing on stdout.
    let dir = temp_dir("example-paused");
    let xr = std::fs::read_to_string(example("xr.yaml"))
        .unwrap()
        .replace(
            "  labels:\n",
            "  annotations:\n    crossplane.io/paused: \"true\"\n  labels:\n",
        );
    let xr = write(&dir, "xr.yaml", &xr);
    let (code, out, err) = run(xprender()
        .arg("render")
        .arg(&xr)
        .arg(example("composition.yaml")));
    assert_eq!(code, 0, "{err}");
    assert!(out.is_empty(), "{out}");
    assert_eq!(
        err,
        "notice: the XR is paused (annotation crossplane.io/paused: \"true\"): Crossplane does not compose it, so nothing is rendered\n"
    );
}

/// Values nested far deeper than serde_json's default limit of 128 render with the bundled
/// engine: the host reads the engine's answer without that limit, since the engine bounds it.
#[test]
fn deeply_nested_values_render() {
    let dir = temp_dir("deep");
    let depth = 900;
    let deep = format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth));
    let request = format!(
        r#"{{"xr": {{"apiVersion": "example.org/v1", "kind": "XR", "metadata": {{"name": "x"}},
            "spec": {{"deep": {deep}}}}},
          "composition": {{"apiVersion": "apiextensions.crossplane.io/v1", "kind": "Composition",
            "metadata": {{"name": "c"}},
            "spec": {{"compositeTypeRef": {{"apiVersion": "example.org/v1", "kind": "XR"}},
              "resources": [{{"name": "r", "base": {{"apiVersion": "v1", "kind": "ConfigMap"}},
                "patches": [{{"fromFieldPath": "spec.deep", "toFieldPath": "data.deep"}}]}}]}}}}}}"#
    );
    let file = write(&dir, "request.json", &request);
    let (code, out, err) = run(xprender()
        .args(["render", "--output", "json", "--request"])
        .arg(&file));
    assert_eq!(code, 0, "{err}");
    let mut doc: Value = {
        let mut de = serde_json::Deserializer::from_str(&out);
        de.disable_recursion_limit();
        serde::Deserialize::deserialize(&mut de).unwrap()
    };
    let mut v = doc["resources"]["r"]["resource"]["data"]["deep"].take();
    for _ in 0..depth {
        v = v["a"].take();
    }
    assert_eq!(v, json!(1));

    // One level past the engine's limit is a clear request error, not a crash.
    let deeper = format!("{}1{}", r#"{"a":"#.repeat(1001), "}".repeat(1001));
    let file = write(&dir, "too-deep.json", &request.replace(&deep, &deeper));
    let (code, out, err) = run(xprender()
        .args(["render", "--output", "json", "--request"])
        .arg(&file));
    assert_eq!(code, 1, "{out}");
    assert!(
        err.contains("JSON nested more than 1000 levels deep is beyond the engine's limit"),
        "{err}"
    );
}

/// A reader that has gone away (`xprender ... | head`) ends the command quietly
/// with SIGPIPE's status, as Crossplane's Go CLI ends, instead of a panic.
#[test]
fn closed_stdout_ends_quietly() {
    let (xr, composition, observed) = (
        example("xr.yaml"),
        example("composition.yaml"),
        example("observed.yaml"),
    );
    let render = [
        "render",
        xr.to_str().unwrap(),
        composition.to_str().unwrap(),
        "--observed-resources",
        observed.to_str().unwrap(),
    ];
    let cases: [&[&str]; 4] = [
        &["version"],
        &["completions", "bash"],
        &render,
        &[&render[..], &["--output", "json"]].concat(),
    ];
    for args in cases {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = xprender()
            .args(args)
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(141), "{args:?}: {stderr}");
        assert_eq!(stderr, "", "{args:?}");
    }
}
