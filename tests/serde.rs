//! The `serde` feature: typed values in and out agree with the JSON contract.
#![cfg(feature = "serde")]
#![allow(clippy::disallowed_methods)]

use std::fs;
use std::path::Path;

use xprender::{Output, Request, Value};

#[path = "support/fixtures.rs"]
mod fixtures;

/// A fixture's request, asking for `semantics` when the case runs under each.
fn fixture(area: &str, case: &str, semantics: &str) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(area)
        .join(case);
    fixtures::with_semantics(
        &fs::read_to_string(dir.join("request.json")).unwrap(),
        semantics,
    )
}

#[test]
fn values_round_trip_with_kubernetes_number_typing() {
    let text =
        r#"{"i":9223372036854775807,"big":9223372036854775808,"f":1.5,"n":null,"a":[true,"s",{}]}"#;
    let v: Value = serde_json::from_str(text).unwrap();
    assert_eq!(v, Value::from_json(text).unwrap());
    assert_eq!(v.get("i"), Some(&Value::Int(i64::MAX)));
    assert!(matches!(v.get("big"), Some(Value::Float(_))));
    let back: serde_json::Value = serde_json::to_value(&v).unwrap();
    assert_eq!(
        back["big"],
        serde_json::json!(9.223_372_036_854_776e18),
        "past int64: a float"
    );
    assert_eq!(back["i"], serde_json::json!(i64::MAX));
    assert_eq!(back["a"], serde_json::json!([true, "s", {}]));
}

#[test]
fn requests_of_either_form_render_as_their_json() {
    for (area, case) in [
        ("documents", "observed-and-secret"),
        ("connection", "all-types"),
        ("documents", "xrd-defaults"),
    ] {
        let text = fixture(area, case, "native");
        let request: Request = serde_json::from_str(&text).unwrap();
        let want = xprender::render_json(&text);
        let output = xprender::render(&request).unwrap();
        assert_eq!(output.to_json(), want, "{area}/{case}");

        // Serialized, a request is its parts; rendered again it gives the same Output, less inputs.
        let parts: Request =
            serde_json::from_value(serde_json::to_value(&request).unwrap()).unwrap();
        let again = xprender::render(&parts).unwrap().to_json();
        let cut = want
            .rfind(",\"inputs\":")
            .map_or(want.clone(), |i| format!("{}}}", &want[..i]));
        assert_eq!(again, cut, "{area}/{case}");

        // The Output serializes as its document and reads back to the same bytes.
        let typed: serde_json::Value = serde_json::to_value(&output).unwrap();
        assert_eq!(
            typed,
            serde_json::from_str::<serde_json::Value>(&want).unwrap()
        );
        let keys: Vec<&String> = typed["resources"].as_object().unwrap().keys().collect();
        let read: Output = serde_json::from_str(&want).unwrap();
        assert_eq!(read.to_json(), want, "{area}/{case}: {keys:?}");
    }
}

#[test]
fn a_malformed_request_fails_with_the_engines_message() {
    let e = serde_json::from_str::<Request>(r#"{"documents": [1]}"#).unwrap_err();
    assert_eq!(e.to_string(), "documents[0]: expected object, got int64");
}
