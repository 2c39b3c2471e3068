//! The engine's JSON reader against serde_json: same acceptance, same values (the deliberate
//! differences are in tests/support/json_diff.rs).
#![no_main]

#[path = "../../tests/support/json_diff.rs"]
mod json_diff;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Some(d) = json_diff::difference(text) {
        panic!("{text:?}: {d}");
    }
    // What the engine accepts it writes as JSON it reads back. One round may change a value
    // as Go's does (the float -0.0 is written `-0`, which reads back as the integer 0; a
    // whole float `1.0` is written `1`); from then on the text is a fixed point.
    if let Ok(v) = xprender::Value::from_json(text) {
        let once = xprender::Value::from_json(&v.to_json()).expect("the engine's own JSON");
        let twice = xprender::Value::from_json(&once.to_json()).expect("the engine's own JSON");
        assert_eq!(once.to_json(), twice.to_json());
    }
});
