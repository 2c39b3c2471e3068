//! Transforms: any pipeline on any input, under both semantics, never panics and is
//! deterministic. Input: `{"transforms": [...], "input": ...}`.
#![no_main]

use xprender::testing::transform;
use xprender::{Semantics, Value};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(doc) = Value::from_json(text) else {
        return;
    };
    let Some(transforms) = doc.get("transforms").and_then(Value::as_array) else {
        return;
    };
    let input = doc.get("input").cloned().unwrap_or(Value::Null);
    for sem in [Semantics::Native, Semantics::Function] {
        for (i, t) in transforms.iter().enumerate() {
            let _ = transform::validate(t, &format!("transforms[{i}]"), sem);
        }
        let a = transform::run(transforms, input.clone(), sem);
        let b = transform::run(transforms, input.clone(), sem);
        // Debug text: NaN outputs compare equal that way.
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
    }
});
