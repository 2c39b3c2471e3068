//! What each render of `--until-ready` or `--iterations` changed, as the Output's `iterations`
//! lists it: one line per render, one indented line per change.

use std::fmt::Write as _;

use crate::runtime::json::Json;

/// The report of the Output's `iterations` (empty when it has none).
pub(crate) fn report(output: Json<'_>) -> String {
    let mut out = String::new();
    for entry in output.get("iterations").into_iter().flat_map(Json::items) {
        let number = entry.get("iteration").map_or(&b"?"[..], Json::text);
        let ready = if entry.get("ready").is_some_and(|r| r.text() == b"true") {
            "ready"
        } else {
            "not ready"
        };
        let changes: Vec<Json<'_>> = entry
            .get("changes")
            .into_iter()
            .flat_map(Json::items)
            .collect();
        let _ = writeln!(
            out,
            "iteration {} ({ready}): {} change{}",
            String::from_utf8_lossy(number),
            changes.len(),
            if changes.len() == 1 { "" } else { "s" }
        );
        for change in changes {
            let _ = writeln!(out, "  {}", describe(change));
        }
    }
    out
}

/// `network/vpc VPC/acme-x7k2p status.atProvider.id: "a" -> "b"`, or `... added`/`removed`.
fn describe(change: Json<'_>) -> String {
    let text = |k: &str| change.get(k).and_then(Json::as_str).unwrap_or_default();
    let mut line = String::new();
    let resource = text("resource");
    if !resource.is_empty() {
        line.push_str(&resource);
        line.push(' ');
    }
    line.push_str(&text("object"));
    match &*text("change") {
        "changed" => {
            let value = |k: &str| change.get(k).map_or_else(|| "(unset)".to_owned(), compact);
            let _ = write!(
                line,
                " {}: {} -> {}",
                text("path"),
                value("before"),
                value("after")
            );
        }
        other => {
            line.push(' ');
            line.push_str(other);
        }
    }
    line
}

/// A value as compact JSON.
fn compact(v: Json<'_>) -> String {
    serde_json::to_string(&v.to_value()).unwrap_or_default()
}
