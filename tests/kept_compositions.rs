//! An engine keeps the Compositions it has read (`Engine::render_json`): renders of many XRs
//! against a kept Composition give the bytes a whole reading gives, errors included, and the
//! kept set stays bounded however many renders and Compositions pass through.

use serde_json::{Value, json};

const MEDIUM: &str = include_str!("../benches/workloads/medium.json");

/// The medium workload's request with its first three resources (test builds are slow).
fn base() -> Value {
    let mut r: Value = serde_json::from_str(MEDIUM).expect("medium workload");
    let resources = r["composition"]["spec"]["resources"]
        .as_array_mut()
        .expect("resources");
    resources.truncate(3);
    r
}

/// The request with the `i`th XR: parameters vary, and some of them make
/// a patch or transform fail (an unknown size, an invalid quantity, a version without a dot).
fn with_xr(base: &Value, i: usize) -> Value {
    let mut r = base.clone();
    let p = &mut r["xr"]["spec"]["parameters"];
    p["region"] = json!(["eu-west-1", "us-east-2", "ap-south-1", "eu-central-7"][i % 4]);
    p["size"] = json!(["small", "medium", "large", "huge"][i % 4]);
    p["storageGB"] = json!(i);
    p["storage"] = json!(if i % 97 == 5 {
        "lots".to_owned()
    } else {
        format!("{}Gi", i % 500)
    });
    p["version"] = json!(if i % 89 == 3 { "sixteen" } else { "15.4" });
    r["xr"]["metadata"]["name"] = json!(format!("db-{i}"));
    if i.is_multiple_of(3) {
        r["observed"] = json!({});
    }
    if i % 101 == 7 {
        r["xr"]["spec"] = json!([]);
    }
    // The same Composition rendered the function's way: a second plan, kept beside the first.
    if i % 5 == 1 {
        r["options"]["semantics"] = json!("function");
    }
    if i % 7 == 2 {
        r["options"]["trace"] = json!(true);
    }
    r
}

/// The `k`th of a family of Compositions: the base one under another name, with another
/// format string in its first resource.
fn with_composition(base: &Value, k: usize) -> Value {
    let mut r = base.clone();
    r["composition"]["metadata"]["name"] = json!(format!("bench-{k}"));
    r["composition"]["spec"]["resources"][0]["patches"][3]["transforms"][1]["string"]["fmt"] =
        json!(format!("engine-%s-{k}"));
    r
}

#[test]
fn one_kept_composition_serves_a_thousand_xrs() {
    let base = base();
    let mut engine = xprender::Engine::new();
    let mut errors = 0;
    for i in 0..1_000 {
        let request = with_xr(&base, i).to_string();
        let kept = engine.render_json(&request);
        let whole = xprender::testing::render_json_unkept(&request);
        assert_eq!(kept, whole, "render {i} differs with the kept Composition");
        errors += usize::from(kept.starts_with("{\"error\"") || kept.contains("\"Warning\""));
    }
    assert!(errors > 0, "no XR exercised an error");
    assert_eq!(xprender::testing::kept_compositions(&engine).0, 1);
    assert_eq!(
        xprender::testing::kept_decodings(&engine),
        2,
        "one plan per semantics, compiled once"
    );
}

#[test]
fn kept_compositions_stay_bounded() {
    let base = base();
    let families: Vec<Value> = (0..50).map(|k| with_composition(&base, k)).collect();
    let mut engine = xprender::Engine::new();
    let mut after_first_round = (0, 0);
    for i in 0..10_000 {
        let k = (i * 7) % 50;
        let mut request = with_xr(&families[k], i);
        request["composition"] = families[k]["composition"].clone();
        let request = request.to_string();
        let kept = engine.render_json(&request);
        if i % 250 == 0 {
            assert_eq!(
                kept,
                xprender::testing::render_json_unkept(&request),
                "render {i} differs with the kept Composition"
            );
        }
        if i == 49 {
            after_first_round = xprender::testing::kept_compositions(&engine);
        }
    }
    let (entries, bytes) = xprender::testing::kept_compositions(&engine);
    assert_eq!(entries, 50, "every Composition is kept once");
    assert_eq!(
        xprender::testing::kept_decodings(&engine),
        50,
        "one plan per Composition"
    );
    assert_eq!(
        (entries, bytes),
        after_first_round,
        "the kept set grows after every Composition has been seen"
    );
    assert!(bytes <= 8 << 20, "kept text over its bound: {bytes} bytes");

    // Twice as many Compositions as the engine keeps: the oldest are forgotten.
    for k in 0..128 {
        let request = with_composition(&base, 1_000 + k).to_string();
        let _ = engine.render_json(&request);
    }
    assert_eq!(xprender::testing::kept_compositions(&engine).0, 64);
}

/// What a request handed over as bytes rendered to before the reader took bytes: the whole
/// request checked as UTF-8, then its text read whole.
fn checked_then_rendered(b: &[u8]) -> String {
    match std::str::from_utf8(b) {
        Ok(text) => xprender::testing::render_json_unkept(text),
        Err(e) => xprender::error_document(&xprender::Error::new(
            xprender::ErrorKind::InvalidRequest,
            format!(
                "request is not UTF-8: invalid byte at offset {}",
                e.valid_up_to()
            ),
        )),
    }
}

/// Bytes that are not UTF-8: a lone continuation byte, a byte UTF-8 never uses, a sequence
/// cut short, a surrogate's encoding and an overlong '/'.
const INVALID: [&[u8]; 5] = [b"\x80", b"\xff", b"\xe2\x80", b"\xed\xa0\x80", b"\xc0\xaf"];

#[test]
fn bytes_render_as_checked_text_renders_with_and_without_a_kept_composition() {
    let base = base();
    let mut engine = xprender::Engine::new();
    let mut refused = 0;
    for i in 0..600 {
        let mut r = with_xr(&base, i);
        // Valid UTF-8 beyond ASCII in the XR, escaped and not.
        if i % 4 == 1 {
            r["xr"]["metadata"]["labels"]["team"] = json!(format!("équipe-{i}-\u{1F600}"));
        }
        let mut request = r.to_string().into_bytes();
        if i % 3 != 0 {
            // An invalid sequence somewhere: in the XR, the Composition, the observed
            // resources, between tokens or at either end.
            let bad = INVALID[i % INVALID.len()];
            let at = (i * 7_919) % (request.len() + 1);
            request.splice(at..at, bad.iter().copied());
        }
        let got = xprender::testing::render_bytes(&mut engine, &request);
        assert_eq!(got, checked_then_rendered(&request), "request {i}");
        refused += usize::from(got.contains("is not UTF-8"));
        // The first render of an untouched request keeps its Composition; render it again.
        if i % 3 == 0 {
            assert_eq!(
                xprender::testing::render_bytes(&mut engine, &request),
                got,
                "request {i}, kept"
            );
        }
    }
    assert!(
        refused > 100,
        "only {refused} requests were refused as not UTF-8"
    );
    assert_eq!(xprender::testing::kept_compositions(&engine).0, 1);
}
