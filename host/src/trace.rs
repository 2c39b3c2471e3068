//! The explain trace, printed for humans: one block per patch, colored on a terminal.

use std::fmt::Write as _;
use std::io::IsTerminal as _;

use serde_json::Value;

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

    fn bold(self, s: &str) -> String {
        self.paint("1", s)
    }
    fn dim(self, s: &str) -> String {
        self.paint("2", s)
    }
    fn green(self, s: &str) -> String {
        self.paint("32", s)
    }
    fn yellow(self, s: &str) -> String {
        self.paint("33", s)
    }
    fn cyan(self, s: &str) -> String {
        self.paint("36", s)
    }

    /// A result severity label (`warning`, `fatal`, `normal`).
    pub(crate) fn severity(self, severity: &str) -> String {
        let label = severity.to_ascii_lowercase();
        match severity {
            "Warning" => self.yellow(&label),
            "Fatal" => self.paint("31", &label),
            _ => self.dim(&label),
        }
    }
}

/// Formats the engine's trace (an array of step objects) as indented text.
pub(crate) fn render(trace: &Value, color: Color) -> String {
    let mut out = String::new();
    let Some(entries) = trace.as_array() else {
        let _ = writeln!(out, "{}", compact(trace));
        return out;
    };
    let _ = writeln!(
        out,
        "{}",
        color.bold(&format!("trace: {} step(s)", entries.len()))
    );
    for entry in entries {
        entry_block(&mut out, entry, color);
    }
    out
}

/// Keys shown in the heading or in a dedicated line, in display order.
const HEAD: [&str; 6] = [
    "stage",
    "resource",
    "patchIndex",
    "index",
    "patchType",
    "type",
];

fn entry_block(out: &mut String, entry: &Value, color: Color) {
    let Some(obj) = entry.as_object() else {
        let _ = writeln!(out, "  {}", compact(entry));
        return;
    };
    let s = |k: &str| obj.get(k).and_then(Value::as_str);
    let mut head = Vec::new();
    if let Some(stage) = s("stage") {
        head.push(color.dim(stage));
    }
    if let Some(r) = s("resource") {
        head.push(color.bold(r));
    }
    let index = obj
        .get("patchIndex")
        .or_else(|| obj.get("index"))
        .and_then(Value::as_i64);
    let kind = s("patchType").or_else(|| s("type"));
    match (index, kind) {
        (Some(i), Some(k)) => head.push(color.cyan(&format!("patch #{i} {k}"))),
        (None, Some(k)) => head.push(color.cyan(k)),
        (Some(i), None) => head.push(color.cyan(&format!("#{i}"))),
        (None, None) => {}
    }
    let _ = writeln!(out, "\n{}", head.join("  "));
    for (key, value) in obj {
        if HEAD.contains(&key.as_str()) {
            continue;
        }
        match (key.as_str(), value) {
            ("transforms" | "steps", Value::Array(steps)) => {
                for (i, step) in steps.iter().enumerate() {
                    let kind = step
                        .get("kind")
                        .or_else(|| step.get("type"))
                        .and_then(Value::as_str)
                        .unwrap_or("transform");
                    let shown = step.get("output").map_or_else(|| compact(step), compact);
                    let _ = writeln!(
                        out,
                        "    {} {}  {}",
                        color.dim(&format!("transform #{i}")),
                        kind,
                        shown
                    );
                }
            }
            ("skipped" | "reason" | "skip", v) => {
                let _ = writeln!(out, "    {} {}", color.yellow("skipped:"), text(v));
            }
            ("error", v) => {
                let _ = writeln!(out, "    {} {}", color.paint("31", "error:"), text(v));
            }
            ("wrote" | "written" | "output" | "to", v) => {
                let _ = writeln!(out, "    {} {}", color.green(&format!("{key}:")), text(v));
            }
            (k, v) => {
                let _ = writeln!(out, "    {} {}", color.dim(&format!("{k}:")), text(v));
            }
        }
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
