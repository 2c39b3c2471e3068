//! The engine's JSON reader against serde_json over a corpus: `tests/data/json_reader/*.json`
//! (one text per line of `corpus.jsonl` as a JSON string, plus files), every fixture request,
//! and generated texts. The deliberate differences are listed in `support/json_diff.rs`.

// A test harness reads its corpus files.
#![allow(clippy::disallowed_methods)]

#[path = "support/json_diff.rs"]
mod json_diff;

use std::fs;
use std::path::Path;

fn corpus() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut out = Vec::new();
    let lines = fs::read_to_string(root.join("data/json_reader/corpus.jsonl")).unwrap();
    for (i, line) in lines.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with("//") {
            continue;
        }
        let text: String =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("corpus.jsonl:{}: {e}", i + 1));
        out.push((format!("corpus.jsonl:{}", i + 1), text));
    }
    let mut stack = vec![root.join("fixtures")];
    while let Some(dir) = stack.pop() {
        for e in fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "json") {
                out.push((p.display().to_string(), fs::read_to_string(&p).unwrap()));
            }
        }
    }
    out
}

#[test]
fn engine_reader_agrees_with_serde_json() {
    let corpus = corpus();
    assert!(corpus.len() > 100, "corpus of {} texts", corpus.len());
    let mut failures = Vec::new();
    for (name, text) in &corpus {
        if let Some(d) = json_diff::difference(text) {
            failures.push(format!("{name}: {text:?}: {d}"));
        }
        // Every prefix of a short text: truncations are where readers slip.
        if text.len() < 200 {
            for cut in (0..text.len()).filter(|c| text.is_char_boundary(*c)) {
                if let Some(d) = json_diff::difference(&text[..cut]) {
                    failures.push(format!("{name} cut at {cut}: {:?}: {d}", &text[..cut]));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Strings and keys with each byte the reader stops at (and its neighbours) at every
/// offset around the reader's eight-byte steps, raw and escaped, whole and cut short.
#[test]
fn string_runs_agree_at_every_offset() {
    let mut failures = Vec::new();
    let bytes = [
        "\"",
        "\\\\",
        "\\n",
        "\\u00e9",
        "\\ud83d\\ude00",
        "\u{0}",
        "\u{1}",
        "\n",
        "\u{1f}",
        " ",
        "!",
        "#",
        "[",
        "]",
        "\u{7f}",
        "é",
        "\u{2028}",
        "😀",
    ];
    for b in bytes {
        for pre in 0..20 {
            for post in [0, 1, 7, 8, 9] {
                let s = format!("{}{b}{}", "a".repeat(pre), "z".repeat(post));
                for text in [
                    format!("\"{s}\""),
                    format!("{{\"{s}\":\"{s}\",\"k\":[\"{s}\"]}}"),
                    format!("\"{s}"),
                ] {
                    if let Some(d) = json_diff::difference(&text) {
                        failures.push(format!("{text:?}: {d}"));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn deliberate_differences_hold() {
    use xprender::Value;
    // 1. Lone surrogates decode to U+FFFD, as in Go.
    assert_eq!(
        Value::from_json(r#""\ud800x""#).unwrap(),
        Value::String("\u{fffd}x".into())
    );
    assert!(serde_json::from_str::<serde_json::Value>(r#""\ud800x""#).is_err());
    // 2. More than 1000 levels.
    let deep = format!("{}0{}", "[".repeat(1001), "]".repeat(1001));
    assert!(Value::from_json(&deep).is_err());
    let ok = format!("{}0{}", "[".repeat(1000), "]".repeat(1000));
    assert!(Value::from_json(&ok).is_ok());
    // 3. Integers beyond int64 are floats.
    assert_eq!(
        Value::from_json("9223372036854775808").unwrap(),
        Value::Float(9_223_372_036_854_775_808.0)
    );
    assert_eq!(
        Value::from_json("9223372036854775807").unwrap(),
        Value::Int(i64::MAX)
    );
    // 4. -0 is the integer 0.
    assert_eq!(Value::from_json("-0").unwrap(), Value::Int(0));
    // Duplicate keys: the last wins.
    assert_eq!(
        Value::from_json(r#"{"a":1,"a":2}"#).unwrap().get("a"),
        Some(&Value::Int(2))
    );
}

/// The writer against serde_json: every value the engine reads is written as text serde_json
/// reads back to the same value (the writer's Go escapes `\u003c`, `\u2028`… are plain JSON).
#[test]
fn engine_writer_round_trips_through_serde_json() {
    let mut texts: Vec<String> = corpus().into_iter().map(|(_, t)| t).collect();
    // Runs of plain bytes around every character the writer escapes, at every offset.
    for special in [
        "\"", "\\", "\n", "\u{1}", "\u{1f}", "<", ">", "&", "\u{2028}", "\u{2029}",
    ] {
        for pre in 0..18 {
            let s = format!(
                "{}{special}{}é\u{2027}",
                "a".repeat(pre),
                "b".repeat(pre % 5)
            );
            texts.push(serde_json::to_string(&s).unwrap());
        }
    }
    let mut failures = Vec::new();
    for text in &texts {
        let Ok(v) = xprender::Value::from_json(text) else {
            continue;
        };
        let written = v.to_json();
        match serde_json::from_str::<serde_json::Value>(&written) {
            Ok(r) if json_diff::same(&v, &r) => {}
            other => failures.push(format!("{text:?} written {written:?}: {other:?}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
