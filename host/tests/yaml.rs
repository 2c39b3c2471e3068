//! YAML is read the way kubectl reads it: go-yaml v2 (YAML 1.1 scalars), then JSON.

mod common;

use common::{built_request, temp_dir, write};
use serde_json::{Value, json};

/// Reads `spec` of an XR whose spec is `body`, through the CLI's YAML reader (the XR is the
/// first document of the request the CLI builds).
fn read_spec(name: &str, body: &str) -> Value {
    let dir = temp_dir(name);
    let xr = write(
        &dir,
        "xr.yaml",
        &format!(
            "apiVersion: example.org/v1\nkind: XThing\nmetadata:\n  name: thing\nspec:\n{body}"
        ),
    );
    let comp = write(
        &dir,
        "comp.yaml",
        "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: c\n\
         spec:\n  compositeTypeRef:\n    apiVersion: example.org/v1\n    kind: XThing\n  resources: []\n",
    );
    let req = built_request(&dir, &[xr.to_str().unwrap(), comp.to_str().unwrap()]);
    req["documents"][0]["spec"].clone()
}

#[test]
fn yaml_1_1_scalars_like_kubectl() {
    // (YAML text, value kubectl sends to the API server)
    let cases: &[(&str, Value)] = &[
        ("yes", json!(true)),
        ("Yes", json!(true)),
        ("YES", json!(true)),
        ("no", json!(false)),
        ("on", json!(true)),
        ("Off", json!(false)),
        ("y", json!(true)),
        ("n", json!(false)),
        ("true", json!(true)),
        ("False", json!(false)),
        ("\"yes\"", json!("yes")),
        ("'on'", json!("on")),
        ("0777", json!(511)),
        ("\"0777\"", json!("0777")),
        ("0o17", json!(15)),
        ("0x1F", json!(31)),
        ("1_000", json!(1000)),
        ("1e3", json!(1000)),
        ("2.0", json!(2)),
        ("-0.0", json!(0)),
        ("1.5", json!(1.5)),
        ("1e21", json!(1e21)),
        (
            "12345678901234567890",
            json!(12_345_678_901_234_567_890_u64),
        ),
        ("~", json!(null)),
        ("null", json!(null)),
        ("", json!(null)),
        ("2024-01-15", json!("2024-01-15")),
        ("2024-01-15T10:00:00Z", json!("2024-01-15T10:00:00Z")),
        ("1:20", json!("1:20")),
        ("0.1.2", json!("0.1.2")),
        ("'123'", json!("123")),
    ];
    let body: String = cases
        .iter()
        .enumerate()
        .map(|(i, (text, _))| format!("  k{i}: {text}\n"))
        .collect();
    let spec = read_spec("yaml-scalars", &body);
    for (i, (text, want)) in cases.iter().enumerate() {
        assert_eq!(&spec[format!("k{i}")], want, "YAML `{text}`");
    }
}

#[test]
fn non_string_keys_become_strings() {
    let spec = read_spec(
        "yaml-keys",
        "  m:\n    yes: a\n    off: b\n    1: c\n    1.5: d\n    ~: e\n    \"on\": f\n",
    );
    assert_eq!(
        spec["m"],
        json!({"true": "a", "false": "b", "1": "c", "1.5": "d", "null": "e", "on": "f"})
    );
}

#[test]
fn anchors_aliases_and_duplicate_keys() {
    let spec = read_spec("yaml-anchors", "  a: &x {p: 1}\n  b: *x\n  c: 1\n  c: 2\n");
    assert_eq!(spec, json!({"a": {"p": 1}, "b": {"p": 1}, "c": 2}));
}

#[test]
fn json_files_read_as_the_api_server_stores_them() {
    let dir = temp_dir("json-input");
    let xr = write(
        &dir,
        "xr.json",
        r#"{"apiVersion": "example.org/v1", "kind": "XThing", "metadata": {"name": "t"},
            "spec": {"a": "yes", "b": 1.0, "c": 777, "d": 2.5, "e": 1e3}}"#,
    );
    let comp = write(
        &dir,
        "comp.json",
        r#"{"apiVersion": "apiextensions.crossplane.io/v1", "kind": "Composition", "metadata": {"name": "c"},
            "spec": {"compositeTypeRef": {"apiVersion": "example.org/v1", "kind": "XThing"}}}"#,
    );
    let req = built_request(&dir, &[xr.to_str().unwrap(), comp.to_str().unwrap()]);
    assert_eq!(
        req["documents"][0]["spec"],
        json!({"a": "yes", "b": 1, "c": 777, "d": 2.5, "e": 1000})
    );
}
