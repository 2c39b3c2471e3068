//! Data-driven transform tests: `tests/data/transform/*.json`, one file per family.
//!
//! Each case runs a transform list on an input under one or both semantics
//! and expects an output (typed: `3` is an int64, `3.0` a float64) or an
//! error text; `validate` cases check the up-front validation instead.
//! Quantity cases carry the `rule` they were derived from: apimachinery keeps
//! the value as unscaled × 10^scale, and the float is `float64(unscaled) *
//! math.Pow10(scale)`.

use serde_json::Value as Json;
use xprender::testing::transform as t;
use xprender::{Semantics, Value};

fn value(j: &Json) -> Value {
    Value::from_json(&j.to_string()).expect("test data is valid JSON")
}

fn semantics(case: &Json) -> Vec<Semantics> {
    match case.get("sem").and_then(Json::as_str) {
        Some("native") => vec![Semantics::Native],
        Some("function") => vec![Semantics::Function],
        None => vec![Semantics::Native, Semantics::Function],
        Some(other) => panic!("unknown semantics {other}"),
    }
}

/// Compares one outcome with the case's expectation; returns a failure line.
fn check(case: &Json, sem: Semantics, got: Result<Value, xprender::Error>) -> Option<String> {
    let name = case["name"].as_str().unwrap_or("?");
    let want = if let Some(e) = case.get("error") {
        Err(e.as_str().expect("error is a string").to_owned())
    } else if let Some(f) = case.get("output_float") {
        Ok(f.as_str().expect("output_float is a string").to_owned())
    } else if let Some(o) = case.get("output") {
        Ok(value(o).to_json())
    } else {
        Ok("ok".to_owned())
    };
    // A string as Go's JSON writes it (a byte that is not valid UTF-8 as U+FFFD); other values
    // as they are (their JSON text would not keep int64 and float64 apart).
    let written = |v: &Value| match v {
        Value::String(_) => value(&serde_json::from_str::<Json>(&v.to_json()).expect("JSON")),
        other => other.clone(),
    };
    let got_text = match &got {
        Ok(Value::Float(f)) if case.get("output_float").is_some() => Ok(t::format_float_f(*f)),
        Ok(v) if case.get("output").is_some() => Ok(written(v).to_json()),
        Ok(_) => Ok("ok".to_owned()),
        Err(e) => Err(e.to_string()),
    };
    // Int and Float print alike in JSON; the value model keeps them apart.
    let typed_ok = match (&got, case.get("output")) {
        (Ok(v), Some(o)) => written(v) == value(o),
        _ => true,
    };
    // `output_bytes`: the string's bytes as Go holds them, in hex.
    if let (Ok(v), Some(want)) = (&got, case.get("output_bytes").and_then(Json::as_str)) {
        let hex: String = t::go_bytes(v)
            .unwrap_or_default()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        if hex != want {
            return Some(format!(
                "{name} [{}]: want bytes {want}, got {hex}",
                sem.as_str()
            ));
        }
    }
    if got_text != want || !typed_ok {
        return Some(format!(
            "{name} [{}]: want {want:?}, got {got:?}",
            sem.as_str()
        ));
    }
    if let (Err(e), Some(kind)) = (&got, case.get("kind").and_then(Json::as_str))
        && e.kind().as_str() != kind
    {
        return Some(format!(
            "{name} [{}]: kind {} != {kind}",
            sem.as_str(),
            e.kind()
        ));
    }
    None
}

macro_rules! family {
    ($name:literal) => {
        run_family(
            $name,
            include_str!(concat!("data/transform/", $name, ".json")),
        )
    };
}

fn run_family(family: &str, text: &str) {
    let doc: Json = serde_json::from_str(text).expect("data file is JSON");
    let cases = doc["cases"].as_array().expect("cases");
    assert!(!cases.is_empty(), "{family}: no cases");
    let mut failures = Vec::new();
    let (mut passing, mut erroring) = (0, 0);
    for case in cases {
        for sem in semantics(case) {
            let got = if let Some(v) = case.get("validate") {
                let p = case.get("path").and_then(Json::as_str).unwrap_or("");
                t::validate(&value(v), p, sem).map(|()| Value::Null)
            } else {
                let transforms = match value(&case["transforms"]) {
                    Value::Array(a) => a,
                    other => vec![other],
                };
                t::run(&transforms, value(&case["input"]), sem)
            };
            if got.is_ok() {
                passing += 1;
            } else {
                erroring += 1;
            }
            failures.extend(check(case, sem, got));
        }
    }
    assert!(
        passing > 0 && erroring > 0,
        "{family}: needs passing and error cases"
    );
    assert!(
        failures.is_empty(),
        "{family}: {} failing:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn map() {
    family!("map");
}

#[test]
fn match_() {
    family!("match");
}

#[test]
fn math() {
    family!("math");
}

#[test]
fn string() {
    family!("string");
}

#[test]
fn convert() {
    family!("convert");
}

#[test]
fn quantity() {
    family!("quantity");
}

#[test]
fn pipeline() {
    family!("pipeline");
}

#[test]
fn trace_records_each_step() {
    let transforms = match value(&serde_json::json!([
        {"type": "math", "math": {"type": "Multiply", "multiply": 2}},
        {"type": "convert", "convert": {"toType": "string"}}
    ])) {
        Value::Array(a) => a,
        _ => unreachable!(),
    };
    let (out, steps) = t::run_traced(&transforms, Value::Int(21), Semantics::Native).unwrap();
    assert_eq!(out, Value::String("42".into()));
    assert_eq!(
        steps,
        vec![
            ("math".to_owned(), Value::Int(42)),
            ("convert".to_owned(), Value::String("42".into()))
        ]
    );
}

#[test]
fn failing_transform_is_named_in_context() {
    let transforms = match value(&serde_json::json!([
        {"type": "string", "string": {"type": "Format", "fmt": "%s"}},
        {"type": "map", "map": {"a": "b"}}
    ])) {
        Value::Array(a) => a,
        _ => unreachable!(),
    };
    let err = t::run(&transforms, Value::Int(1), Semantics::Native).unwrap_err();
    assert_eq!(err.context().transform, Some((1, "map".to_owned())));
}

/// Deeply nested regexps and JSON are refused before they can exhaust a
/// small (wasm-sized) stack.
#[test]
fn deep_nesting_fits_a_small_stack() {
    let worker = std::thread::Builder::new().stack_size(1 << 20).spawn(|| {
        let sem = Semantics::Function;
        let ok = t::regexp_find_submatch(&("(?:a*".repeat(199) + &")*".repeat(199)), "aa", sem);
        assert!(ok.is_ok());
        let deep = t::regexp_find_submatch(&("(".repeat(200) + &")".repeat(200)), "", sem);
        assert!(deep.unwrap_err().contains("expression nests too deeply"));
        let json = "[".repeat(9999) + &"]".repeat(9999);
        assert!(
            t::json_unmarshal(&json, false)
                .unwrap_err()
                .contains("beyond the engine's limit")
        );
        let json = "[".repeat(10001) + &"]".repeat(10001);
        assert_eq!(
            t::json_unmarshal(&json, false).unwrap_err(),
            "invalid character '[' exceeded max depth"
        );
        assert!(t::json_unmarshal(&("[".repeat(1000) + &"]".repeat(1000)), false).is_ok());
    });
    worker.unwrap().join().unwrap();
}

#[test]
fn hostile_inputs_do_not_panic() {
    let sem = Semantics::Function;
    let big = "a".repeat(1 << 16);
    let cases = serde_json::json!([
        {"type": "string", "string": {"type": "Regexp", "regexp": {"match": "((((((((((a*)*)*)*)*)*)*)*)*)*)*$"}}},
        {"type": "string", "string": {"type": "Regexp", "regexp": {"match": "(a{1000}){1000}"}}},
        {"type": "string", "string": {"type": "Regexp", "regexp": {"match": "(".repeat(5000)}}},
        {"type": "string", "string": {"type": "Regexp", "regexp": {"match": "x{99999999999}"}}},
        {"type": "string", "string": {"type": "Regexp", "regexp": {"match": "a", "group": -1}}},
        {"type": "string", "string": {"type": "Replace", "replace": {"search": "", "replace": big.clone()}}},
        {"type": "convert", "convert": {"toType": "object", "format": "json"}},
        {"type": "convert", "convert": {"toType": "float64", "format": "quantity"}},
    ]);
    for tr in cases.as_array().unwrap() {
        let tr = vec![value(tr)];
        for input in [
            Value::String(big.clone()),
            Value::String("[".repeat(20000)),
            Value::String("12345678901234567890e-99999999999".into()),
            Value::String("9".repeat(5000) + "e999999999"),
        ] {
            let _ = t::run(&tr, input, sem);
        }
    }
}
