//! What the engine's answer says besides the render: results on stderr, the first Fatal
//! one, an error document as a readable message, and the documents a render did not use.

use std::borrow::Cow;
use std::ops::Range;

use serde_json::Value;

use crate::io::{InputError, input_error};
use crate::runtime::json::Json;
use crate::trace;

/// Prints Warning/Normal results on stderr (YAML mode); returns the first Fatal one. `at` is the
/// way to a nested XR's render (`network/subnets`), empty for the top XR's.
pub(crate) fn report_results(
    results: &Value,
    at: &str,
    print: bool,
    color: trace::Color,
) -> Option<String> {
    let mut fatal = None;
    for r in results.as_array().into_iter().flatten() {
        let severity = r
            .get("severity")
            .and_then(Value::as_str)
            .unwrap_or("Normal");
        let message = r.get("message").and_then(Value::as_str).unwrap_or("");
        let resource = r.get("resource").and_then(Value::as_str);
        let text = match (at, resource) {
            ("", Some(res)) => format!("{res}: {message}"),
            ("", None) => message.to_owned(),
            (at, Some(res)) => format!("{at}/{res}: {message}"),
            (at, None) => format!("{at}: {message}"),
        };
        if severity == "Fatal" {
            fatal.get_or_insert_with(|| with_location(text, r));
        } else if print {
            eprintln!("{}: {text}", color.severity(severity));
        }
    }
    fatal
}

/// A Fatal result's message with the patch and field path it names.
fn with_location(mut text: String, result: &Value) -> String {
    let s = |k: &str| result.get(k).and_then(Value::as_str);
    if let (Some(i), Some(t)) = (
        result.get("patchIndex").and_then(Value::as_i64),
        s("patchType"),
    ) {
        text.push_str(&format!("\n  patch:      #{i} ({t})"));
    }
    if let Some(p) = s("fieldPath") {
        text.push_str(&format!("\n  field path: {p}"));
    }
    text
}

/// The error document as a readable message: cause, then where.
pub(crate) fn describe_error(err: &Value) -> String {
    let message = err
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("unknown error");
    let mut out = format!("render failed: {message}");
    if let Some(ctx) = err.get("context").and_then(Value::as_object) {
        let s = |k: &str| ctx.get(k).and_then(Value::as_str);
        let n = |k: &str| ctx.get(k).and_then(Value::as_i64);
        if let Some(r) = s("resource") {
            out.push_str(&format!("\n  resource:   {r}"));
        }
        if let (Some(i), Some(t)) = (n("patchIndex"), s("patchType")) {
            out.push_str(&format!("\n  patch:      #{i} ({t})"));
        }
        if let (Some(i), Some(t)) = (n("transformIndex"), s("transformType")) {
            out.push_str(&format!("\n  transform:  #{i} ({t})"));
        }
        if let Some(p) = s("fieldPath") {
            out.push_str(&format!("\n  field path: {p}"));
        }
    }
    if let Some(kind) = err.get("kind").and_then(Value::as_str) {
        out.push_str(&format!("\n  kind:       {kind}"));
    }
    out
}

/// The Output as the CLI prints it: without the `inputs` member (its last) that a documents
/// request adds, so a render from files prints what the engine rendered and nothing more.
pub(crate) fn without_inputs<'a>(response: &'a [u8], output: Json<'_>) -> Cow<'a, [u8]> {
    const MEMBER: &[u8] = b",\"inputs\":";
    let Some(inputs) = output.get("inputs").map(Json::text) else {
        return Cow::Borrowed(response);
    };
    // `inputs` is a slice of `response`: where it starts there.
    let start = (inputs.as_ptr() as usize).wrapping_sub(response.as_ptr() as usize);
    let end = start.saturating_add(inputs.len());
    match (response.get(..start), response.get(end..)) {
        (Some(head), Some(tail)) if head.ends_with(MEMBER) => {
            Cow::Owned([&head[..head.len() - MEMBER.len()], tail].concat())
        }
        _ => Cow::Borrowed(response),
    }
}

/// The observed documents (among `observed`) a render did not use: (document, kind, name, why).
fn unused_observed(
    inputs: Option<Json<'_>>,
    observed: &Range<usize>,
) -> Vec<(usize, String, String, String)> {
    let mut out = Vec::new();
    for u in inputs
        .and_then(|i| i.get("unused"))
        .into_iter()
        .flat_map(Json::items)
    {
        let text = |k: &str| {
            u.get(k)
                .and_then(Json::as_str)
                .unwrap_or_default()
                .into_owned()
        };
        if let Some(i) = u
            .get("document")
            .and_then(|d| d.to_value().as_u64())
            .and_then(|d| usize::try_from(d).ok())
            .filter(|i| observed.contains(i))
        {
            out.push((i, text("kind"), text("name"), text("why")));
        }
    }
    out
}

/// A document of `range` (observed resources, Simulations: `what`) the render did not use: an
/// input error for files the user named (`strict`), a warning for what a cluster holds; an
/// unused Secret is always a warning.
pub(crate) fn check_unused(
    inputs: Option<Json<'_>>,
    origins: &[String],
    range: &Range<usize>,
    strict: bool,
    what: &str,
) -> Result<(), InputError> {
    for (i, kind, name, why) in unused_observed(inputs, range) {
        if kind == "Secret" || !strict {
            eprintln!("warning: {}: ignoring {kind}/{name}: {why}", origins[i]);
        } else {
            return Err(input_error!(
                "{}: {what} {kind}/{name} is not used: {why}",
                origins[i]
            ));
        }
    }
    Ok(())
}

/// The observed resources a render did not use, on the debug log only.
pub(crate) fn debug_unused(inputs: Option<Json<'_>>, origins: &[String], observed: &Range<usize>) {
    for (i, kind, name, why) in unused_observed(inputs, observed) {
        crate::debug!("{}: {kind}/{name} is not used: {why}", origins[i]);
    }
}
