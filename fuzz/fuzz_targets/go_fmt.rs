//! Go's fmt: any format with any arguments formats without a panic, deterministically, and
//! within the output limit.
#![no_main]

use xprender::Value;
use xprender::testing::fmt;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // `format\nargs-as-a-JSON-array`, or just a format with a few fixed arguments.
    let (format, args) = match text.split_once('\n') {
        Some((f, a)) => match Value::from_json(a) {
            Ok(Value::Array(args)) => (f, args),
            _ => (f, Vec::new()),
        },
        None => (
            text,
            vec![
                Value::Int(-42),
                Value::Float(1.5e300),
                Value::String("héllo\u{0}".into()),
                Value::Bool(true),
                Value::Null,
                Value::from_json(r#"{"a":[1,"b"]}"#).unwrap(),
            ],
        ),
    };
    let a = fmt::sprintf(format, &args);
    let b = fmt::sprintf(format, &args);
    assert_eq!(a.is_ok(), b.is_ok());
    if let (Ok(a), Ok(b)) = (a, b) {
        assert_eq!(a, b);
    }
    for v in &args {
        let _ = fmt::sprint_v(v);
    }
    let _ = fmt::quote(format);
});
