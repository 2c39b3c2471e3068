//! Go `fmt.Sprintf` emulation: the cases of `tests/data/fmt.json` (expected outputs are Go's,
//! re-checked against Go by `tests/go_fmt.rs`), quoting, `%v`, and robustness on hostile formats.

// Tests read their data files; the I/O ban is for the engine.
#![allow(clippy::disallowed_methods)]

use std::path::Path;

use xprender::testing::fmt as engine;
use xprender::{ErrorKind, Value};

fn cases() -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fmt.json");
    let text = std::fs::read_to_string(&path).unwrap();
    match Value::from_json(&text).unwrap() {
        Value::Array(a) => a,
        _ => panic!("fmt.json must be an array"),
    }
}

#[test]
fn data_cases() {
    let mut failures = Vec::new();
    let all = cases();
    assert!(all.len() >= 100, "fmt.json lost its cases");
    for (i, c) in all.iter().enumerate() {
        let format = c.get("format").and_then(Value::as_str).unwrap();
        let args: Vec<Value> = c
            .get("args")
            .and_then(Value::as_array)
            .unwrap_or_default()
            .iter()
            .map(|t| engine::typed(t).unwrap())
            .collect();
        let got = engine::sprintf(format, &args);
        match (
            c.get("want").and_then(Value::as_str),
            c.get("error").and_then(Value::as_str),
        ) {
            (Some(want), None) => match &got {
                Ok(s) if s == want => {}
                _ => failures.push(format!("#{i} {format:?}: want {want:?}, got {got:?}")),
            },
            (None, Some("Limit")) => match &got {
                Err(e)
                    if e.kind() == ErrorKind::Limit
                        && e.to_string().contains("exceeds the limit") => {}
                Err(e) => failures.push(format!(
                    "#{i} {format:?}: want a Limit error, got {:?}: {e}",
                    e.kind()
                )),
                Ok(s) => failures.push(format!(
                    "#{i} {format:?}: want a Limit error, got {} bytes",
                    s.len()
                )),
            },
            _ => panic!("case #{i} needs \"want\" or \"error\": \"Limit\""),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn sprint_v_is_percent_v() {
    let v = Value::from_json(r#"{"b": [1, 2.5, null, "x"], "a": {"c": true}, "d": 1e6}"#).unwrap();
    assert_eq!(
        engine::sprint_v(&v),
        "map[a:map[c:true] b:[1 2.5 <nil> x] d:1e+06]"
    );
    assert_eq!(
        engine::sprint_v(&v),
        engine::sprintf("%v", std::slice::from_ref(&v)).unwrap()
    );
    assert_eq!(engine::sprint_v(&Value::Null), "<nil>");
    assert_eq!(engine::sprint_v(&Value::Float(-0.0)), "-0");
}

#[test]
fn quote_is_strconv_quote() {
    let cases = [
        ("", r#""""#),
        ("héllo", r#""héllo""#),
        ("a\"b\\c", r#""a\"b\\c""#),
        ("\u{7}\u{8}\u{c}\n\r\t\u{b}", r#""\a\b\f\n\r\t\v""#),
        ("\u{0}\u{1f}\u{7f}", r#""\x00\x1f\x7f""#),
        (
            "\u{80}\u{ad}\u{2028}\u{feff}",
            r#""\u0080\u00ad\u2028\ufeff""#,
        ),
        ("\u{e0001}\u{10ff7f}", r#""\U000e0001\U0010ff7f""#),
        // U+10FF80 to U+10FFFF stand for bytes that are not UTF-8 (`go::bytestr`).
        ("a\u{10ffc3}b", r#""a\xc3b""#),
        ("日本 ☺😀", r#""日本 ☺😀""#),
        ("'", r#""'""#),
    ];
    for (input, want) in cases {
        assert_eq!(engine::quote(input), want, "quote({input:?})");
    }
}

#[test]
fn is_print_follows_go() {
    for c in [' ', 'a', '~', 'é', '日', '😀', '\u{300}'] {
        assert!(engine::is_print(c), "{c:?} is printable");
    }
    for c in [
        '\t', '\u{7f}', '\u{a0}', '\u{ad}', '\u{2028}', '\u{feff}', '\u{e000}', '\u{fffe}',
        '\u{3000}',
    ] {
        assert!(!engine::is_print(c), "{c:?} is not printable");
    }
}

/// A deterministic generator for the robustness test.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        usize::try_from(self.0 % (n as u64)).unwrap()
    }
}

#[test]
fn hostile_formats_never_panic_and_stay_bounded() {
    let args = [
        Value::Null,
        Value::Bool(true),
        Value::Int(i64::MIN),
        Value::Int(1_000_000),
        Value::Float(f64::NAN),
        Value::Float(-1e308),
        Value::Float(5e-324),
        Value::String("日本\u{0}é".into()),
        Value::from_json(r#"{"a": [null, 1, {"b": "x"}], "": 2.5}"#).unwrap(),
        Value::Array(vec![Value::Null, Value::Int(-1)]),
    ];
    let pieces = [
        "%", "%%", "-", "+", "#", " ", "0", "9", "99", "999999", "9999999", ".", "*", "[", "]",
        "[1]", "[0]", "[99]", "[-1]", "v", "d", "s", "q", "x", "X", "f", "e", "g", "G", "b", "o",
        "O", "c", "U", "T", "t", "p", "w", "é", "😀", "!", "\u{0}",
    ];
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for _ in 0..20_000 {
        let n = 1 + rng.below(10);
        let format: String = (0..n).map(|_| pieces[rng.below(pieces.len())]).collect();
        let k = rng.below(args.len() + 1);
        let chosen: Vec<Value> = (0..k)
            .map(|_| args[rng.below(args.len())].clone())
            .collect();
        match engine::sprintf(&format, &chosen) {
            Ok(s) => assert!(
                s.len() <= engine::MAX_OUTPUT,
                "{format:?}: {} bytes",
                s.len()
            ),
            Err(e) => assert_eq!(e.kind(), ErrorKind::Limit, "{format:?}: {e}"),
        }
    }
}

#[test]
fn repetition_is_bounded() {
    let big = Value::String("x".repeat(100_000));
    let format = "%[1]s".repeat(100);
    let err = engine::sprintf(&format, std::slice::from_ref(&big)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Limit);
    // The same string a few times is fine.
    assert_eq!(
        engine::sprintf("%[1]s%[1]s", &[big]).unwrap().len(),
        200_000
    );
}

fn json_data() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fmt_json.json");
    Value::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// Go's `json.Marshal` text (`Value::to_json`) for the values of `tests/data/fmt_json.json`.
#[test]
fn json_marshal_text() {
    let data = json_data();
    let cases = data.get("json").and_then(Value::as_array).unwrap();
    assert!(cases.len() > 20);
    for c in cases {
        let v = engine::typed(c.get("value").unwrap()).unwrap();
        let want = c.get("want").and_then(Value::as_str).unwrap();
        assert_eq!(
            v.to_json(),
            want,
            "json.Marshal({})",
            c.get("value").unwrap().to_json()
        );
    }
}

/// `strconv.FormatFloat(f, 'f', -1, 64)` for the floats of `tests/data/fmt_json.json`.
#[test]
fn format_float_f() {
    let data = json_data();
    let cases = data
        .get("format_float_f")
        .and_then(Value::as_array)
        .unwrap();
    assert!(cases.len() > 10);
    for c in cases {
        let f = c.get("float").and_then(Value::as_str).unwrap();
        let Value::Float(x) =
            engine::typed(&Value::from_json(&format!(r#"{{"t":"float64","v":"{f}"}}"#)).unwrap())
                .unwrap()
        else {
            panic!("{f} is not a float");
        };
        let want = c.get("want").and_then(Value::as_str).unwrap();
        assert_eq!(
            engine::format_float_f(x),
            want,
            "FormatFloat({f}, 'f', -1, 64)"
        );
    }
}
