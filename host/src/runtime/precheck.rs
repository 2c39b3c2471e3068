//! The engine's entry limits checked on the request's text before it is copied into the
//! sandbox: a Composition of millions of resources is refused at once, in the engine's own
//! words, instead of after the engine has decoded all of it.

use super::json::Json;

/// `--max-request-size` by default: far above any real Composition and its observed state,
/// low enough that the host's copies of a request stay a small part of a machine's memory.
pub(crate) const DEFAULT_MAX_REQUEST_SIZE: usize = 64 << 20;

/// The engine's largest number of templates, patch sets or pipeline steps in one list
/// (`src/compose/input.rs`).
const MAX_ITEMS: usize = 100_000;

/// The engine's error document for a request over its entry limits, or `None` when the
/// engine should judge the request itself (including text that is not JSON).
pub(crate) fn precheck(request: &[u8]) -> Option<String> {
    let request = Json::parse(request).ok()?;
    let spec = request.lookup(&["composition", "spec"])?;
    let pipeline = spec.get("mode").and_then(Json::as_str).as_deref() == Some("Pipeline");
    // The lists the engine decodes first, with the location its error names.
    let lists: &[(&str, &str)] = if pipeline {
        &[("pipeline", "composition.spec.pipeline")]
    } else {
        &[
            ("patchSets", "composition.spec"),
            ("resources", "composition.spec"),
        ]
    };
    for (key, at) in lists {
        if let Some(list) = spec.get(key)
            && list.items().nth(MAX_ITEMS).is_some()
        {
            let doc = serde_json::json!({"error": {
                "context": {},
                "kind": "Limit",
                "message": format!("{at}: more than {MAX_ITEMS} entries"),
            }});
            return Some(doc.to_string());
        }
    }
    None
}
