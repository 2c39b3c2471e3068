//! Data-driven tests of field paths: one JSON file per operation family in `tests/data/fieldpath/`.

use std::fmt::Write as _;

use serde_json::Value as Json;
use xprender::Value;
use xprender::testing::fieldpath as fp;

const BOTH: [&str; 2] = ["native", "function"];

/// A data file, embedded at compile time (the test binary does no I/O).
macro_rules! load {
    ($name:literal) => {
        parse_doc(
            $name,
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/data/fieldpath/",
                $name
            )),
        )
    };
}

fn parse_doc(name: &str, text: &str) -> Json {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn cases(doc: &Json, key: &str) -> Vec<Json> {
    let cases = doc[key].as_array().cloned().unwrap_or_default();
    assert!(!cases.is_empty(), "no {key} in data file");
    cases
}

/// The JSON text of a case field (serde keeps `1.0` apart from `1`).
fn text(v: &Json) -> String {
    serde_json::to_string(v).expect("serialisable")
}

/// The engine value a case field denotes.
fn value(v: &Json) -> Value {
    fp::value(&text(v)).unwrap_or_else(|e| panic!("bad value {v}: {e}"))
}

fn str_field<'a>(case: &'a Json, key: &str) -> &'a str {
    case[key]
        .as_str()
        .unwrap_or_else(|| panic!("case lacks string {key}: {case}"))
}

fn name(case: &Json) -> String {
    case.get("name")
        .or_else(|| case.get("path"))
        .or_else(|| case.get("policy"))
        .map(ToString::to_string)
        .unwrap_or_default()
}

/// The semantics a case runs under: `sem` if given, else both.
fn sems(case: &Json) -> Vec<&str> {
    match case.get("sem").and_then(Json::as_str) {
        Some(s) => vec![s],
        None => BOTH.to_vec(),
    }
}

/// Collects failures so one run reports every broken case.
#[derive(Default)]
struct Report {
    checked: usize,
    failures: String,
}

impl Report {
    fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        self.checked += 1;
        if !ok {
            let _ = writeln!(self.failures, "- {}", what());
        }
    }

    fn finish(self, file: &str) {
        assert!(self.checked > 0, "{file}: nothing checked");
        assert!(
            self.failures.is_empty(),
            "{file}: failing cases:\n{}",
            self.failures
        );
    }
}

/// Compares an outcome with the case's `error`/`kind` or with `want`.
fn check_outcome<T: std::fmt::Debug>(
    r: &mut Report,
    label: &str,
    case: &Json,
    got: Result<T, fp::Failure>,
    want_ok: impl FnOnce(&T) -> bool,
) {
    match (case.get("error").and_then(Json::as_str), got) {
        (Some(msg), Err((kind, got_msg))) => {
            let want_kind = case["kind"].as_str().unwrap_or("Render");
            r.check(got_msg == msg && kind == want_kind, || {
                format!("{label}: want {want_kind} {msg:?}, got {kind} {got_msg:?}")
            });
        }
        (Some(msg), Ok(v)) => r.check(false, || format!("{label}: want error {msg:?}, got {v:?}")),
        (None, Err(e)) => r.check(false, || format!("{label}: unexpected error {e:?}")),
        (None, Ok(v)) => {
            let ok = want_ok(&v);
            r.check(ok, || format!("{label}: got {v:?}, case {case}"));
        }
    }
}

#[test]
fn parse() {
    let doc = load!("parse.json");
    let mut r = Report::default();
    for case in cases(&doc, "cases") {
        let path = str_field(&case, "path");
        let label = format!("parse {path:?}");
        let want: Vec<String> = case["segments"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        check_outcome(&mut r, &label, &case, fp::parse(path), |got| *got == want);
        if let Some(canonical) = case.get("canonical").and_then(Json::as_str) {
            let got = fp::canonical(path);
            r.check(got.as_deref() == Ok(canonical), || {
                format!("{label}: canonical {got:?}, want {canonical:?}")
            });
        }
    }
    r.finish("parse.json");
}

#[test]
fn get() {
    let doc = load!("get.json");
    let mut r = Report::default();
    for case in cases(&doc, "cases") {
        let obj = text(&case["object"]);
        let path = str_field(&case, "path");
        for sem in sems(&case) {
            let label = format!("{} [{sem}]", name(&case));
            let got = match case.get("getter").and_then(Json::as_str) {
                Some(kind) => fp::get_typed(&obj, path, kind, sem),
                None => fp::get(&obj, path, sem),
            };
            let want = case.get("value").map(value);
            check_outcome(&mut r, &label, &case, got, |v| want.as_ref() == Some(v));
        }
    }
    r.finish("get.json");
}

/// Checks a write: the resulting object, or the error with the object unchanged.
fn check_write(
    r: &mut Report,
    label: &str,
    case: &Json,
    before: &Value,
    got: Result<Value, (fp::Failure, Value)>,
    want: Option<Value>,
) {
    match got {
        Ok(obj) => {
            if let Some([key, len]) = case
                .get("result_len")
                .and_then(Json::as_array)
                .map(Vec::as_slice)
            {
                let n = obj
                    .get(key.as_str().unwrap_or_default())
                    .and_then(Value::as_array)
                    .map(<[Value]>::len);
                let want_len = len.as_u64().and_then(|l| usize::try_from(l).ok());
                r.check(n == want_len, || {
                    format!("{label}: length {n:?}, want {len}")
                });
            } else {
                check_outcome(r, label, case, Ok::<_, fp::Failure>(obj), |o| {
                    want.as_ref() == Some(o)
                });
            }
        }
        Err((failure, obj)) => {
            check_outcome::<Value>(r, label, case, Err(failure), |_| false);
            r.check(obj == *before, || {
                format!("{label}: object changed on error: {obj:?}")
            });
        }
    }
}

#[test]
fn set() {
    let doc = load!("set.json");
    let mut r = Report::default();
    for case in cases(&doc, "cases") {
        let obj = text(&case["object"]);
        let before = value(&case["object"]);
        let path = str_field(&case, "path");
        let val = text(&case["value"]);
        for sem in sems(&case) {
            let label = format!("{} [{sem}]", name(&case));
            let got = fp::set(&obj, path, &val, sem);
            check_write(
                &mut r,
                &label,
                &case,
                &before,
                got,
                case.get("result").map(value),
            );
        }
    }
    r.finish("set.json");
}

/// The object, path and expected result of a merge-style case: either
/// explicit (`object`, `path`, `result`) or `dst` placed at `spec.x` with the
/// expected `merged` value there.
fn merge_setup(case: &Json) -> (Json, String, Option<Value>) {
    if let Some(obj) = case.get("object") {
        let path = case["path"].as_str().unwrap_or("spec.x").to_owned();
        return (obj.clone(), path, case.get("result").map(value));
    }
    let obj = serde_json::json!({"spec": {"x": case["dst"], "other": 1}});
    let want = case
        .get("merged")
        .map(|m| value(&serde_json::json!({"spec": {"x": m, "other": 1}})));
    (obj, "spec.x".to_owned(), want)
}

fn options(v: &Json) -> Option<(bool, bool)> {
    v.as_object().map(|o| {
        let flag = |k: &str| o.get(k).and_then(Json::as_bool).unwrap_or(false);
        (flag("keepMapValues"), flag("appendSlice"))
    })
}

#[test]
fn merge() {
    let doc = load!("merge.json");
    let mut r = Report::default();
    for case in cases(&doc, "cases") {
        let (obj, path, want) = merge_setup(&case);
        let before = value(&obj);
        let val = text(&case["value"]);
        let opts = options(&case["options"]);
        for sem in sems(&case) {
            let label = format!("{} [{sem}]", name(&case));
            let got = fp::merge(&text(&obj), &path, &val, opts, sem);
            check_write(&mut r, &label, &case, &before, got, want.clone());
        }
    }
    r.finish("merge.json");
}

#[test]
fn policies() {
    let doc = load!("policies.json");
    let mut r = Report::default();
    for case in cases(&doc, "options") {
        let policy = case["policy"].as_str();
        let label = format!("policy {policy:?}");
        let want = options(&case["options"]);
        check_outcome(&mut r, &label, &case, fp::policy(policy), |got| {
            *got == want
        });
    }
    for case in cases(&doc, "cases") {
        let (obj, path, want) = merge_setup(&case);
        let before = value(&obj);
        let val = text(&case["value"]);
        for sem in sems(&case) {
            let label = format!("{} [{sem}]", name(&case));
            let got = fp::policy(case["policy"].as_str())
                .map_err(|f| (f, before.clone()))
                .and_then(|opts| fp::merge(&text(&obj), &path, &val, opts, sem));
            check_write(&mut r, &label, &case, &before, got, want.clone());
        }
    }
    r.finish("policies.json");
}

#[test]
fn wildcard() {
    let doc = load!("wildcard.json");
    let mut r = Report::default();
    for case in cases(&doc, "cases") {
        let obj = text(&case["object"]);
        let path = str_field(&case, "path");
        let want: Vec<String> = case["paths"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        for sem in sems(&case) {
            let label = format!("{} [{sem}]", name(&case));
            check_outcome(&mut r, &label, &case, fp::expand(&obj, path, sem), |got| {
                *got == want
            });
        }
    }
    r.finish("wildcard.json");
}

#[test]
fn delete() {
    let doc = load!("delete.json");
    let mut r = Report::default();
    for case in cases(&doc, "cases") {
        let before = value(&case["object"]);
        let path = str_field(&case, "path");
        let label = name(&case);
        let got = fp::delete(&text(&case["object"]), path);
        check_write(
            &mut r,
            &label,
            &case,
            &before,
            got,
            case.get("result").map(value),
        );
    }
    r.finish("delete.json");
}

/// Every expanded path, written with a merge, lands where expected: the
/// expansion's canonical strings re-parse to the addressed locations.
#[test]
fn expanded_paths_write_back() {
    let obj =
        r#"{"spec":{"rules":[{"cidr":"a"},{"port":1},{"cidr":"b"}],"tags":{"a.b":"x","c":"y"}}}"#;
    let mut cur = fp::value(obj).expect("valid");
    for path in ["spec.rules[*].cidr", "spec.tags[*]"] {
        for sem in BOTH {
            let paths = fp::expand(&cur.to_json(), path, sem).expect("expands");
            for p in paths {
                cur = fp::set(&cur.to_json(), &p, r#""10.0.0.0/8""#, sem).expect("writes");
            }
        }
    }
    let want = fp::value(
        r#"{"spec":{"rules":[{"cidr":"10.0.0.0/8"},{"port":1},{"cidr":"10.0.0.0/8"}],"tags":{"a.b":"10.0.0.0/8","c":"10.0.0.0/8"}}}"#,
    )
    .expect("valid");
    assert_eq!(cur, want);
}

/// Hostile inputs are refused with `Limit` errors, quickly and without
/// exhausting the stack or memory.
#[test]
fn hostile_inputs() {
    let (max_bytes, max_segments, max_index, max_expansions) = fp::limits();
    assert_eq!(max_index, 1024);

    // 100k segments: too long a path.
    let long = vec!["a"; 100_000].join(".");
    let (kind, msg) = fp::parse(&long).expect_err("refused");
    assert_eq!(kind, "Limit");
    assert!(msg.contains("limit"), "{msg}");
    for sem in BOTH {
        let (e, _) = fp::set("{}", &long, "1", sem).expect_err("refused");
        assert_eq!(e.0, "Limit");
        assert_eq!(fp::get("{}", &long, sem).expect_err("refused").0, "Limit");
        assert_eq!(
            fp::expand("{}", &long, sem).expect_err("refused").0,
            "Limit"
        );
    }
    assert_eq!(fp::delete("{}", &long).expect_err("refused").0.0, "Limit");

    // Within the byte limit but too many segments.
    let many = vec!["[0]"; max_segments + 1].concat();
    assert!(many.len() <= max_bytes);
    let (kind, msg) = fp::parse(&many).expect_err("refused");
    assert_eq!(kind, "Limit");
    assert!(msg.starts_with("cannot parse path \"[0][0]"), "{msg}");
    // The deepest allowed write works and builds the whole nest.
    let deepest = vec!["[0]"; max_segments].concat();
    let deep_field = format!("a{}", vec![".a"; max_segments - 1].concat());
    assert!(fp::set("{}", &deep_field, "1", "native").is_ok());
    let (e, _) = fp::set("{}", &format!("a{deepest}"), "1", "native").expect_err("too deep");
    assert_eq!(e.0, "Limit");

    // The largest u32 index is refused before anything is allocated.
    let (e, _) = fp::set("{}", "a[4294967295]", "1", "native").expect_err("refused");
    assert_eq!(
        e.1,
        "index 4294967295 is greater than max allowed index 1024"
    );

    // Wildcards over 400 x 400 elements exceed the expansion limit.
    let inner = format!("[{}]", vec!["0"; 400].join(","));
    let outer = format!("{{\"a\":[{}]}}", vec![inner.as_str(); 400].join(","));
    assert!(400 * 400 > max_expansions);
    let (kind, msg) = fp::expand(&outer, "a[*][*]", "native").expect_err("refused");
    assert_eq!(kind, "Limit");
    assert!(
        msg.starts_with("cannot expand wildcards for segments: \"a[*][*]\""),
        "{msg}"
    );
}
