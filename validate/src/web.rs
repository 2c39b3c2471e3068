//! The wasm-bindgen face for JavaScript: the documents in (an array of objects), their
//! problems out, as plain objects. A mechanical shell over [`crate::validate_documents`].

// The exports reach JavaScript through wasm-bindgen, not through Rust paths.
#![allow(unreachable_pub)]

use js_sys::JSON;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** A misspelling's fix: `wrong` in the key or value at the problem's path becomes `right`. */
export interface Suggestion {
  target: "key" | "value";
  wrong: string;
  right: string;
}

/** One problem of one document. */
export interface ValidationProblem {
  /** The index of its document in the array given. */
  document: number;
  severity: "error" | "warning";
  /** The field path's steps: names and map keys as strings, list indices as numbers. */
  path: (string | number)[];
  /** The field path as text, `spec.resources[0].patches[1]`; `<root>` for the object. */
  field: string;
  message: string;
  suggestion?: Suggestion;
}

/**
 * Validates Kubernetes documents: the CRDs and XRDs among them give the schemas, every other
 * object is checked against its kind's, a Composition deeply (its patch-and-transform input and
 * every patch's field paths). Objects of a kind without a schema are not reported.
 */
export function validate(documents: unknown[]): ValidationProblem[];
"#;

/// See the TypeScript declaration above.
#[wasm_bindgen(skip_typescript)]
pub fn validate(documents: &JsValue) -> Result<JsValue, JsValue> {
    let text: String = JSON::stringify(documents)
        .map_err(|_| JsError::new("the documents are not JSON"))?
        .into();
    let docs: Vec<serde_json::Value> = serde_json::from_str(&text)
        .map_err(|e| JsError::new(&format!("the documents are not an array of objects: {e}")))?;
    let problems = crate::validate_documents(&docs);
    JSON::parse(&crate::problems_json(&problems).to_string())
}

/// The crate's version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}
