//! Adoption cases as data: each directory of tests/data/adopt holds `composition.yaml` (the
//! Composition as it will be), `cluster.yaml` (the XRD, Compositions and composites) and
//! `expected.yaml` (composite name → the reason it adopts or is left out; `+manual` marks one only
//! --include-manual adds). `options.yaml` may set `includeManual: true`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Context, Verdict, verdict};
use crate::cluster::str_at;
use crate::io::read_docs;

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/adopt");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

fn values(path: &Path) -> Vec<Value> {
    read_docs(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .into_iter()
        .map(|d| d.value)
        .collect()
}

fn outcome(v: &Verdict) -> String {
    match v {
        Verdict::Adopts { why, manual: false } => why.reason().into(),
        Verdict::Adopts { why, manual: true } => format!("{}+manual", why.reason()),
        Verdict::LeftOut(l) => l.reason().into(),
    }
}

fn run_case(dir: &Path) -> (BTreeMap<String, String>, BTreeMap<String, String>) {
    let composition = values(&dir.join("composition.yaml")).remove(0);
    let cluster = values(&dir.join("cluster.yaml"));
    let expected: BTreeMap<String, String> =
        serde_json::from_value(values(&dir.join("expected.yaml")).remove(0)).unwrap();
    let include_manual = dir.join("options.yaml").exists()
        && values(&dir.join("options.yaml"))[0]["includeManual"] == Value::Bool(true);
    let of_kind = |k: &'static str| cluster.iter().filter(move |d| str_at(d, "/kind") == k);
    let compositions: Vec<Value> = of_kind("Composition").cloned().collect();
    let xrd = of_kind("CompositeResourceDefinition").next();
    let cx = Context {
        composition: &composition,
        compositions: &compositions,
        xrd,
        include_manual,
    };
    let xr_type = (
        str_at(&composition, "/spec/compositeTypeRef/apiVersion"),
        str_at(&composition, "/spec/compositeTypeRef/kind"),
    );
    let got = cluster
        .iter()
        .filter(|d| (str_at(d, "/apiVersion"), str_at(d, "/kind")) == xr_type)
        .map(|xr| {
            (
                str_at(xr, "/metadata/name").to_owned(),
                outcome(&verdict(&cx, xr)),
            )
        })
        .collect();
    (got, expected)
}

#[test]
fn adoption_cases() {
    let cases = cases();
    assert!(!cases.is_empty(), "no cases in tests/data/adopt");
    let mut failures = Vec::new();
    for dir in &cases {
        let (got, expected) = run_case(dir);
        if got != expected {
            failures.push(format!(
                "{}:\n  expected {expected:?}\n  got      {got:?}",
                dir.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn left_out_details_name_the_rule() {
    use super::LeftOut;
    let manual = LeftOut::ManualPolicy {
        revision: "db-abc1234".into(),
    };
    assert_eq!(
        manual.detail(),
        "compositionUpdatePolicy Manual, pinned to revision \"db-abc1234\" (--include-manual evaluates it)"
    );
    let ambiguous = LeftOut::Ambiguous {
        candidates: vec!["a".into(), "b".into()],
    };
    assert_eq!(
        ambiguous.detail(),
        "no compositionRef, and Crossplane picks one of a, b at random"
    );
}

#[test]
fn claims_without_an_xr_or_being_deleted_are_left_out() {
    use super::{LeftOut, composite_verdict};
    use crate::impact::scope::Composite;
    let composition = serde_json::json!({"metadata": {"name": "db"}});
    let cx = Context {
        composition: &composition,
        compositions: &[],
        xrd: None,
        include_manual: false,
    };
    let claim =
        serde_json::json!({"kind": "Database", "metadata": {"name": "c", "namespace": "a"}});
    let unbound = Composite {
        xr: None,
        claim: Some(claim.clone()),
    };
    assert_eq!(
        composite_verdict(&cx, &unbound),
        Verdict::LeftOut(LeftOut::Unbound)
    );
    let mut deleting = claim;
    deleting["metadata"]["deletionTimestamp"] = "2025-05-06T07:08:09Z".into();
    let xr =
        serde_json::json!({"metadata": {"name": "x"}, "spec": {"compositionRef": {"name": "db"}}});
    let c = Composite {
        xr: Some(xr),
        claim: Some(deleting),
    };
    assert_eq!(
        composite_verdict(&cx, &c),
        Verdict::LeftOut(LeftOut::Deleting {
            since: "2025-05-06T07:08:09Z".into()
        })
    );
}
