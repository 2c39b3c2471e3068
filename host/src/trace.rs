//! The explain trace (docs/render.md) printed for humans: one block per patch, colored on a
//! terminal. What was read, each transform's input and output, what was written, and why a
//! patch did not apply.

use std::fmt::Write as _;
use std::io::IsTerminal as _;

use serde_json::{Map, Value};

/// Whether to emit ANSI colors.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Color(bool);

impl Color {
    /// Colors when stderr is a terminal and `NO_COLOR` is unset.
    pub(crate) fn for_stderr() -> Color {
        Color(
            std::io::stderr().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        )
    }

    fn paint(self, code: &str, s: &str) -> String {
        if self.0 {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_owned()
        }
    }

    /// A result severity label (`warning`, `fatal`, `normal`).
    pub(crate) fn severity(self, severity: &str) -> String {
        let label = severity.to_ascii_lowercase();
        match severity {
            "Warning" => self.paint("33", &label),
            "Fatal" => self.paint("31", &label),
            _ => self.paint("2", &label),
        }
    }

    fn outcome(self, outcome: &str) -> String {
        let code = match outcome {
            "applied" => "32",
            "skipped" => "33",
            "failed" => "1;31",
            _ => "2",
        };
        self.paint(code, outcome)
    }
}

/// Formats the engine's trace (an array of patch entries) as indented text.
pub(crate) fn render(trace: &Value, color: Color) -> String {
    let mut out = String::new();
    let Some(entries) = trace.as_array() else {
        let _ = writeln!(out, "trace: {}", compact(trace));
        return out;
    };
    let _ = writeln!(
        out,
        "{}",
        color.paint("1", &format!("trace: {} patch(es)", entries.len()))
    );
    for entry in entries {
        match entry.as_object() {
            Some(e) => entry_block(&mut out, e, color),
            None => {
                let _ = writeln!(out, "  {}", compact(entry));
            }
        }
    }
    out
}

fn entry_block(out: &mut String, e: &Map<String, Value>, color: Color) {
    let s = |k: &str| e.get(k).and_then(Value::as_str);
    let mut head = Vec::new();
    if let Some(step) = s("step") {
        head.push(color.paint("2", &format!("step {step}")));
    }
    match s("resource") {
        Some(r) => head.push(color.paint("1", r)),
        None if e.get("environment") == Some(&Value::Bool(true)) => {
            head.push(color.paint("1", "(environment)"))
        }
        None => {}
    }
    let patch = e
        .get("patch")
        .and_then(Value::as_i64)
        .map(|i| format!("patch #{i}"));
    let kind = s("type").unwrap_or("");
    head.push(
        color.paint(
            "36",
            patch
                .as_deref()
                .map_or(kind.to_owned(), |p| format!("{p} {kind}"))
                .trim(),
        ),
    );
    if let Some(d) = s("direction") {
        head.push(color.paint("2", d));
    }
    if let Some(o) = s("outcome") {
        head.push(format!("[{}]", color.outcome(o)));
    }
    let _ = writeln!(out, "\n{}", head.join("  "));

    if let Some(policy) = e.get("policy").and_then(Value::as_object) {
        let shown: Vec<String> = policy
            .iter()
            .map(|(k, v)| format!("{k}={}", text(v)))
            .collect();
        let _ = writeln!(
            out,
            "    {} {}",
            color.paint("2", "policy"),
            color.paint("2", &shown.join(" "))
        );
    }
    for read in e
        .get("from")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let path = read.get("path").and_then(Value::as_str).unwrap_or("?");
        let line = match (read.get("value"), read.get("error").and_then(Value::as_str)) {
            (Some(v), _) => format!("{path} = {}", compact(v)),
            (None, Some(err)) if read.get("missing") == Some(&Value::Bool(true)) => {
                format!("{path} {}", color.paint("33", &format!("(missing: {err})")))
            }
            (None, Some(err)) => {
                format!("{path} {}", color.paint("31", &format!("(error: {err})")))
            }
            (None, None) => path.to_owned(),
        };
        let _ = writeln!(out, "    {} {line}", color.paint("2", "from  "));
    }
    if let Some(c) = s("combined") {
        let _ = writeln!(
            out,
            "    {} {}",
            color.paint("2", "combine"),
            compact(&Value::String(c.to_owned()))
        );
    }
    for t in e
        .get("transforms")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let kind = t.get("type").and_then(Value::as_str).unwrap_or("transform");
        let input = t.get("input").map_or_else(String::new, compact);
        let result = match (t.get("output"), t.get("error").and_then(Value::as_str)) {
            (Some(o), _) => compact(o),
            (None, Some(err)) => color.paint("31", &format!("error: {err}")),
            (None, None) => "?".into(),
        };
        let _ = writeln!(
            out,
            "    {} {input} → {result}",
            color.paint("2", &format!("{kind:<6}"))
        );
    }
    for w in e.get("to").and_then(Value::as_array).into_iter().flatten() {
        let path = w.get("path").and_then(Value::as_str).unwrap_or("?");
        let value = w.get("value").map_or_else(String::new, compact);
        let mut line = format!("{path} = {}", color.paint("32", &value));
        if let Some(r) = w.get("result") {
            let _ = write!(line, " (merged: {})", compact(r));
        }
        let _ = writeln!(out, "    {} {line}", color.paint("2", "to    "));
    }
    if let Some(reason) = s("reason") {
        let _ = writeln!(out, "    {} {reason}", color.paint("2", "why   "));
    }
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        v => compact(v),
    }
}

fn compact(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 200 {
        format!("{}…", s.chars().take(200).collect::<String>())
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_patch_block() {
        let trace = serde_json::json!([
            {"resource": "instance", "patch": 0, "type": "FromCompositeFieldPath",
             "direction": "composite -> composed",
             "policy": {"fromFieldPath": "Optional", "write": "Replace"},
             "from": [{"path": "spec.region", "value": "us-east-1"}],
             "transforms": [{"index": 0, "type": "map", "input": "us-east-1", "output": "East US"}],
             "to": [{"path": "spec.forProvider.location", "value": "East US"}],
             "outcome": "applied"},
            {"environment": true, "patch": 1, "type": "ToCompositeFieldPath",
             "policy": {"fromFieldPath": "Optional", "write": "Replace"},
             "from": [{"path": "spec.zone", "missing": true, "error": "no such field"}],
             "to": [], "outcome": "skipped", "reason": "the source is missing"}
        ]);
        let text = render(&trace, Color(false));
        assert_eq!(
            text,
            "trace: 2 patch(es)\n\
             \ninstance  patch #0 FromCompositeFieldPath  composite -> composed  [applied]\n\
             \x20   policy fromFieldPath=Optional write=Replace\n\
             \x20   from   spec.region = \"us-east-1\"\n\
             \x20   map    \"us-east-1\" → \"East US\"\n\
             \x20   to     spec.forProvider.location = \"East US\"\n\
             \n(environment)  patch #1 ToCompositeFieldPath  [skipped]\n\
             \x20   policy fromFieldPath=Optional write=Replace\n\
             \x20   from   spec.zone (missing: no such field)\n\
             \x20   why    the source is missing\n"
        );
        assert!(render(&trace, Color(true)).contains("\x1b[32mapplied\x1b[0m"));
    }
}
