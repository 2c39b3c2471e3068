//! The engine's entry limits checked on the request's text before it is copied into the
//! sandbox: a Composition of millions of resources is refused at once, in the engine's own
//! words, instead of after the engine has decoded all of it.
//!
//! The text is checked once (no tree), then only the Composition's spec is walked, each
//! member skipped over once, and a list is counted only up to the limit.

use xprender::model::limits::{MAX_ITEMS, too_many};
use xprender::model::pt::API_VERSION as PT_API_VERSION;

use super::json::Json;

/// `--max-request-size` by default: far above any real Composition and its observed state,
/// low enough that the host's copies of a request stay a small part of a machine's memory.
pub(crate) const DEFAULT_MAX_REQUEST_SIZE: usize = 64 << 20;

/// The engine's error document for a request over its entry limits, or `None` when the
/// engine should judge the request itself (including text that is not JSON).
pub(crate) fn precheck(request: &[u8]) -> Option<String> {
    let request = Json::parse(request).ok()?;
    let spec = request.lookup(&["composition", "spec"])?;
    let (mut mode, mut pipeline, mut patch_sets, mut resources) = (None, None, None, None);
    for (key, value) in spec.members() {
        // The last of duplicate keys counts, as in the engine's reader.
        match &*key {
            "mode" => mode = Some(value),
            "pipeline" => pipeline = Some(value),
            "patchSets" => patch_sets = Some(value),
            "resources" => resources = Some(value),
            _ => {}
        }
    }
    // The lists in the order the engine decodes them, with the location its error names.
    let mode = match mode {
        None => None,
        // Another mode, or one that is not a string, is the engine's to refuse.
        Some(m) => Some(m.as_str()?),
    };
    if mode.as_deref() == Some("Pipeline") {
        let steps = pipeline?;
        if over_limit(steps) {
            return Some(refusal("composition.spec.pipeline"));
        }
        for (i, step) in steps.items().enumerate() {
            let Some(input) = step.get("input") else {
                continue;
            };
            let is_pt = input.get("apiVersion").and_then(Json::as_str).as_deref()
                == Some(PT_API_VERSION)
                && input.get("kind").and_then(Json::as_str).as_deref() == Some("Resources");
            if is_pt {
                for key in ["patchSets", "resources"] {
                    if input.get(key).is_some_and(over_limit) {
                        return Some(refusal(&format!("composition.spec.pipeline[{i}].input")));
                    }
                }
            }
        }
        return None;
    }
    if mode.is_some_and(|m| m != "Resources") {
        return None;
    }
    [patch_sets, resources]
        .into_iter()
        .flatten()
        .any(over_limit)
        .then(|| refusal("composition.spec"))
}

/// Whether a list holds more entries than the engine takes (counted up to the limit only).
fn over_limit(list: Json<'_>) -> bool {
    list.items().nth(MAX_ITEMS).is_some()
}

/// The engine's error document for a list of `len` entries at `at`, when that is over the
/// limit (for a host that holds the request decoded rather than as text).
pub(crate) fn list_over_limit(at: &str, len: usize) -> Option<String> {
    (len > MAX_ITEMS).then(|| refusal(at))
}

/// The engine's error document for a list over the limit at `at`.
fn refusal(at: &str) -> String {
    xprender::error_document(&too_many(&at))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(n: usize) -> String {
        format!("[{}]", vec!["{}"; n].join(","))
    }

    fn message(request: &str) -> Option<String> {
        let doc: serde_json::Value = serde_json::from_str(&precheck(request.as_bytes())?).unwrap();
        Some(doc["error"]["message"].as_str().unwrap().to_owned())
    }

    #[test]
    fn lists_over_the_limit_are_refused_where_the_engine_names_them() {
        let over = list(MAX_ITEMS + 1);
        let at_limit = list(MAX_ITEMS);
        let classic =
            |key: &str, l: &str| format!(r#"{{"composition": {{"spec": {{"{key}": {l}}}}}}}"#);
        assert_eq!(
            message(&classic("resources", &over)).as_deref(),
            Some("composition.spec: more than 100000 entries")
        );
        assert_eq!(
            message(&classic("patchSets", &over)).as_deref(),
            Some("composition.spec: more than 100000 entries")
        );
        assert_eq!(message(&classic("resources", &at_limit)), None);
        let step = |input: &str| {
            format!(
                r#"{{"composition": {{"spec": {{"mode": "Pipeline", "pipeline": [{{"step": "a"}}, {{"step": "b", "input": {input}}}]}}}}}}"#
            )
        };
        let pt = |l: &str| {
            format!(
                r#"{{"apiVersion": "{PT_API_VERSION}", "kind": "Resources", "resources": {l}}}"#
            )
        };
        assert_eq!(
            message(&step(&pt(&over))).as_deref(),
            Some("composition.spec.pipeline[1].input: more than 100000 entries")
        );
        assert_eq!(message(&step(&pt(&at_limit))), None);
        // Another function's input is not the engine's to decode.
        assert_eq!(
            message(&step(&format!(
                r#"{{"kind": "Other", "resources": {over}}}"#
            ))),
            None
        );
        let steps = format!("[{}]", vec![r#"{"step": "s"}"#; MAX_ITEMS + 1].join(","));
        assert_eq!(
            message(&format!(
                r#"{{"composition": {{"spec": {{"mode": "Pipeline", "pipeline": {steps}}}}}}}"#
            ))
            .as_deref(),
            Some("composition.spec.pipeline: more than 100000 entries")
        );
        // An unknown mode, or text that is not JSON, is left to the engine.
        assert_eq!(
            message(&format!(
                r#"{{"composition": {{"spec": {{"mode": "Other", "resources": {over}}}}}}}"#
            )),
            None
        );
        assert_eq!(message("{\"composition\": "), None);
    }
}
