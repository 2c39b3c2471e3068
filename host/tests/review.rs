//! `xprender diff FILE... --objects DIR`: reviews of XR and claim files against exported
//! objects (tests/data/review/objects: a claimed XR composing a VPC, a Gateway its Composition
//! no longer has, and a nested XR composing a Subnet), with no cluster.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/review")
        .join(name)
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn diff(args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_xprender"))
        .arg("diff")
        .args(args)
        .arg("--objects")
        .arg(data("objects"))
        .env("NO_COLOR", "1")
        .output()
        .expect("runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn input(name: &str) -> String {
    data("inputs").join(name).display().to_string()
}

fn json_of(r: &Run) -> Value {
    serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", r.stdout, r.stderr))
}

/// (type, Kind/name, resource) of every change of the first XR.
fn changes(doc: &Value, xr: usize) -> Vec<(String, String, String)> {
    doc["xrs"][xr]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["type"].as_str().unwrap().to_string(),
                format!(
                    "{}/{}",
                    c["kind"].as_str().unwrap(),
                    c["name"].as_str().unwrap()
                ),
                c["resource"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn triple(t: &str, id: &str, resource: &str) -> (String, String, String) {
    (t.into(), id.into(), resource.into())
}

#[test]
fn an_xr_change_reaches_nested_resources_under_their_own_names_and_removals_are_shown() {
    let r = diff(&[&input("xr.yaml"), "-o", "json"]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    let doc = json_of(&r);
    assert_eq!(
        changes(&doc, 0),
        vec![
            triple("modified", "XNetwork/acme", ""),
            triple("modified", "XSubnets/acme-subnets", "subnets"),
            triple("modified", "Subnet/acme-subnet-a", "subnets/subnet-a"),
            triple("modified", "VPC/acme-vpc", "vpc"),
            triple("removed", "Gateway/acme-gw", ""),
        ]
    );
    assert_eq!(
        doc["summary"],
        json!({"added": 0, "modified": 4, "removed": 1})
    );
    let subnet = &doc["xrs"][0]["changes"][2];
    assert_eq!(
        subnet["fields"],
        json!([{"path": "spec.forProvider.zone", "old": "eu-west-1a", "new": "us-east-2a"}])
    );
    assert_eq!(subnet["comparedWith"], "crd-defaults");
    assert_eq!(doc["xrs"][0]["comparedWith"], json!(["crd-defaults"]));
    assert_eq!(doc["xrs"][0]["status"], "changed");
    assert_eq!(doc["xrs"][0]["unchanged"], 0);
    assert_eq!(doc["errors"], json!([]));
    assert_eq!(doc["changes"].as_array().unwrap().len(), 5);
}

#[test]
fn compact_text_is_crossplane_diffs_format() {
    let r = diff(&[&input("xr.yaml"), "--compact"]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    let expected = std::fs::read_to_string(data("xr.compact.txt")).unwrap();
    assert_eq!(r.stdout, expected);
}

#[test]
fn yaml_output_is_the_json_document() {
    let j = json_of(&diff(&[&input("xr.yaml"), "-o", "json"]));
    let y = diff(&[&input("xr.yaml"), "-o", "yaml"]);
    assert_eq!(y.code, 3);
    let from_yaml: Value = serde_saphyr::from_str(&y.stdout).unwrap();
    assert_eq!(from_yaml, j);
}

#[test]
fn a_claim_reaches_its_xr_and_several_inputs_are_reported_each() {
    let r = diff(&[&input("unchanged.yaml"), &input("claim.yaml"), "-o", "json"]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    let doc = json_of(&r);
    assert_eq!(
        changes(&doc, 0),
        vec![triple("removed", "Gateway/acme-gw", "")]
    );
    assert_eq!(doc["xrs"][0]["unchanged"], 4);
    assert_eq!(doc["xrs"][1]["xr"]["kind"], "Network");
    assert_eq!(doc["xrs"][1]["xr"]["namespace"], "team-a");
    assert_eq!(
        changes(&doc, 1)[..3],
        [
            triple("modified", "Network/acme", ""),
            triple("modified", "XNetwork/acme", ""),
            triple("modified", "XSubnets/acme-subnets", "subnets"),
        ]
    );
    assert_eq!(
        doc["summary"],
        json!({"added": 0, "modified": 5, "removed": 2})
    );
}

#[test]
fn ignored_paths_are_no_changes() {
    let r = diff(&[
        &input("xr.yaml"),
        "-o",
        "json",
        "--ignore-paths",
        "spec.region,spec.forProvider.region",
        "--ignore-paths",
        "spec.forProvider.zone",
    ]);
    let doc = json_of(&r);
    assert_eq!(
        changes(&doc, 0),
        vec![triple("removed", "Gateway/acme-gw", "")]
    );
    let bad = diff(&[&input("xr.yaml"), "--ignore-paths", "spec[oops"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(
        bad.stderr.contains("--ignore-paths \"spec[oops\""),
        "{}",
        bad.stderr
    );
}

#[test]
fn exit_codes_gate_a_pipeline() {
    let dir = tempfile::tempdir().unwrap();
    // Without its Gateway the tree is as the Composition renders it: nothing to change.
    let objects = std::fs::read_to_string(data("objects/tree.yaml")).unwrap();
    let (head, tail) = objects
        .split_once("apiVersion: infra.example.org/v1\nkind: Gateway")
        .unwrap();
    let tail = &tail[tail.find("---").unwrap()..];
    let refs = "  - {apiVersion: infra.example.org/v1, kind: Gateway, name: acme-gw}\n";
    std::fs::write(
        dir.path().join("tree.yaml"),
        format!("{}{tail}", head.replace(refs, "")),
    )
    .unwrap();
    std::fs::copy(
        data("objects/definitions.yaml"),
        dir.path().join("definitions.yaml"),
    )
    .unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_xprender"))
            .arg("diff")
            .args(args)
            .arg("--objects")
            .arg(dir.path())
            .output()
            .unwrap()
    };
    let same = run(&[&input("unchanged.yaml")]);
    assert_eq!(
        same.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&same.stdout)
    );
    assert_eq!(String::from_utf8_lossy(&same.stdout), "No changes.\n");
    assert_eq!(run(&[&input("xr.yaml")]).status.code(), Some(3));

    // A failure outranks changes, and the other XRs are still reviewed.
    let missing = dir.path().join("missing-composition.yaml");
    std::fs::write(
        &missing,
        "apiVersion: review.example.org/v1\nkind: XNetwork\nmetadata: {name: other}\nspec:\n  compositionRef: {name: gone}\n",
    )
    .unwrap();
    let out = run(&[missing.to_str().unwrap(), &input("xr.yaml"), "-o", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["errors"][0]["resourceID"], "XNetwork/other");
    assert_eq!(doc["xrs"][0]["status"], "error");
    assert_eq!(doc["xrs"][1]["status"], "changed");
}

#[test]
fn a_composition_without_xr_files_is_an_impact_analysis() {
    // The exported definitions are one List; the Composition goes alone in a file.
    let list: Value =
        serde_saphyr::from_str(&std::fs::read_to_string(data("objects/definitions.yaml")).unwrap())
            .unwrap();
    let network = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["kind"] == "Composition" && d["metadata"]["name"] == "network")
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("network.json");
    std::fs::write(&file, serde_json::to_vec(network).unwrap()).unwrap();
    let r = diff(&["--composition", file.to_str().unwrap(), "-o", "json"]);
    assert!(matches!(r.code, 0 | 3), "{}", r.stderr);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(doc["impact"]["composition"], "network", "{}", r.stdout);
    let none = diff(&[]);
    assert_eq!(none.code, 2);
}

#[test]
fn stdin_is_read_with_a_dash() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_xprender"))
        .args(["diff", "-", "-o", "json", "--objects"])
        .arg(data("objects"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write as _;
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(std::fs::read(data("inputs/xr.yaml")).unwrap().as_slice())
            .unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["xrs"][0]["origin"], "stdin");
}
