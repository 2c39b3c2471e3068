//! The wasm-bindgen face for JavaScript: plain objects in, plain objects out, errors thrown.
//!
//! A mechanical shell: decode → [`crate::render`] → encode. Both directions go
//! through JSON text (`JSON.stringify` / `JSON.parse`), so `render` sees exactly
//! the request `renderJson` would, with Kubernetes' number typing (an integer
//! literal is an int64 even past 2^53), and answers the same bytes.

// The exports reach JavaScript through wasm-bindgen, not through Rust paths.
#![allow(unreachable_pub)]

use js_sys::{JSON, Object, Reflect};
use wasm_bindgen::prelude::*;

use std::cell::RefCell;

use crate::{Engine, Error, ErrorKind};

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** Options of a render request (the render contract's `options`). */
export interface RenderOptions {
  /** Default: native for `spec.resources`, function for `mode: Pipeline`. */
  semantics?: "native" | "function";
  /** Adds the explain trace to the output. */
  trace?: boolean;
  /** Keeps only these connection detail keys. */
  connectionSecretKeys?: string[];
  /** RFC 3339 time for the XR's Ready condition timestamps. */
  now?: string;
  /** A Pipeline's Output carries the desired state after each step (`steps`). */
  steps?: boolean;
}

/** An object as Kubernetes stores it (apiVersion, kind, metadata, ...). */
export type KubeObject = { [key: string]: unknown };

/** The observed state: the XR as it is, composed resources by template name, the environment. */
export interface Observed {
  composite?: KubeObject;
  resources?: {
    [name: string]: {
      resource: KubeObject;
      /** Values base64-encoded, as in a Secret. */
      connectionDetails?: { [key: string]: string };
    };
  };
  environment?: KubeObject;
}

export interface RenderResult {
  severity: "Normal" | "Warning" | "Fatal";
  message: string;
  resource?: string;
  /** Where a native reconcile failed after the apply (Fatal results only). */
  patchIndex?: number;
  patchType?: string;
  fieldPath?: string;
  /** The path of that patch (or template) in the Composition, e.g. "spec.resources[2].patches[1]". */
  source?: string;
}

/** What a render produced. */
export interface RenderOutput {
  /** The desired XR. */
  composite: KubeObject;
  /** Desired composed resources by template name, in Composition order. */
  resources: {
    [name: string]: {
      resource: KubeObject;
      ready: boolean;
      /** A nested XR's own render (a documents request that gives its Composition). */
      nested?: RenderOutput;
    };
  };
  /** Values base64-encoded. */
  connectionDetails: { [key: string]: string };
  ready: boolean;
  results: RenderResult[];
  /** The explain trace, when `options.trace` was set. */
  trace?: TraceEntry[];
  /** The desired state after each pipeline step, when `options.steps` was set. */
  steps?: PipelineStep[];
  /** What each render changed (`iterations`, `untilReady`). */
  iterations?: RenderIteration[];
  /** What a documents request chose (`renderDocuments` only). */
  inputs?: RenderInputs;
}

/** One pipeline step's outcome (`options.steps`). */
export interface PipelineStep {
  step: string;
  /** The desired XR and composed resources as the step left them. */
  desired: {
    composite: KubeObject;
    resources: { [name: string]: { resource: KubeObject; ready: boolean } };
  };
  /** The results the step added. */
  results: RenderResult[];
}

/** One render of `iterations`/`untilReady`. */
export interface RenderIteration {
  iteration: number;
  ready: boolean;
  changes: {
    /** Template names from the top XR down; absent for the top XR. */
    resource?: string;
    object: string;
    change: "added" | "changed" | "removed";
    path?: string;
    before?: unknown;
    after?: unknown;
  }[];
  /** That render's Output (`keepIterations`). */
  output?: RenderOutput;
}

/** One value a patch read. */
export interface TraceRead {
  path: string;
  value?: unknown;
  /** The field was not there. */
  missing?: boolean;
  error?: string;
}

/** One transform a patch ran. */
export interface TraceTransform {
  index: number;
  type: string;
  input: unknown;
  output?: unknown;
  error?: string;
}

/** One write a patch made. */
export interface TraceWrite {
  path: string;
  value: unknown;
  /** The value at the path after the write, when the merge policy changed it. */
  result?: unknown;
}

/** What one patch did (see docs/render.md, "The explain trace"). */
export interface TraceEntry {
  /** The pipeline step, in a Pipeline Composition. */
  step?: string;
  /** The template; absent for an environment patch. */
  resource?: string;
  /** Set for an environment patch. */
  environment?: true;
  /** The patch's index in the template (PatchSets expanded). */
  patch: number;
  /** The patch's path in the Composition, e.g. "spec.patchSets[0].patches[1]". */
  source: string;
  type: string;
  /** e.g. "composite -> resource"; absent when the patch did not run. */
  direction?: string;
  policy: { fromFieldPath: string; write: string };
  from: TraceRead[];
  /** The combined string of a Combine patch. */
  combined?: string;
  transforms?: TraceTransform[];
  to: TraceWrite[];
  outcome: "applied" | "skipped" | "failed" | "not-run";
  reason?: string;
  /** One line for humans. */
  summary: string;
}

/** What the engine chose among the documents of a documents request. */
export interface RenderInputs {
  /** The XR, as KIND/NAME. */
  xr: string;
  /** The claim bound to the XR, when given. */
  claim?: string;
  /** The Composition's name, or the CompositionRevision's. */
  composition: string;
  /** The rule that chose it. */
  compositionReason: string;
  /** The XRD's name, when one defines the XR's kind. */
  xrd?: string;
  /** Template name to the observed resource paired with it (KIND/NAME). */
  observed: { [template: string]: string };
  /** Template name to its connection Secret (Secret/NAME). */
  connectionSecrets?: { [template: string]: string };
  /** The EnvironmentConfigs merged, in order. */
  environment?: string[];
  /** Documents not used, with the reason. */
  unused: { document: number; kind: string; name: string; why: string }[];
}

/** Options of a documents request: the render options and the choices among the documents. */
export interface DocumentsOptions extends RenderOptions {
  /** The XR among several candidates: KIND/NAME. */
  xr?: string;
  /** The Composition to use (as `xprender render --composition-name`); wins over every
   * selection rule and is rendered as given (no revision is applied). */
  compositionName?: string;
  /** "all" (default): when the Composition selects no EnvironmentConfig, every one given is
   * merged in document order (as `--environment`). "selected": the ones given are a pool the
   * Composition selects from; selecting none merges none (as Crossplane on a cluster). */
  environmentConfigs?: "all" | "selected";
  /** The Compositions given are local candidates for a live XR: when only one suits the XR's
   * type it is used whatever the XR's or the XRD's references name; no revision is applied. */
  localCompositions?: boolean;
  /** How many levels of nested XRs are rendered (default 10). */
  depthLimit?: number;
  /** Render at most this many times, each observing the one before through the simulated
   * providers (Simulation documents). */
  iterations?: number;
  /** Render until nothing changes; an error unless the tree is ready then (at most
   * `iterations`, default 20). */
  untilReady?: boolean;
  /** Every iteration carries its whole Output. */
  keepIterations?: boolean;
}

/** Where a render error happened. */
export interface ErrorContext {
  resource?: string;
  patchIndex?: number;
  patchType?: string;
  transformIndex?: number;
  transformType?: string;
  fieldPath?: string;
  /** The path of the failing patch (or template) in the Composition, e.g. "spec.resources[2].patches[1]". */
  source?: string;
}

export type ErrorKind = "NotFound" | "InvalidRequest" | "InvalidComposition" | "Render" | "Limit";

/** The error `render` throws: `message` is Crossplane's text. */
export interface RenderError extends Error {
  name: "XprenderError";
  kind: ErrorKind;
  context: ErrorContext;
}

/**
 * Renders an XR with a Composition and the observed state.
 * @throws {RenderError} when the render cannot proceed.
 */
export function render(
  xr: KubeObject,
  composition: KubeObject,
  observed?: Observed | null,
  options?: RenderOptions | null,
): RenderOutput;

/**
 * Renders from Kubernetes documents in any order: the engine chooses the XR, its Composition,
 * observed resources, connection Secrets and EnvironmentConfigs as Crossplane would, and says
 * what it chose in `inputs`. `documents` is an array of objects, or its JSON text.
 * @throws {RenderError} when the render cannot proceed.
 */
export function renderDocuments(
  documents: KubeObject[] | string,
  options?: DocumentsOptions | null,
): RenderOutput;
"#;

/// Renders plain JS objects; returns the Output object or throws an `XprenderError`.
///
/// # Errors
/// The engine's error as a JS `Error` with `kind` and `context` fields.
#[wasm_bindgen(skip_typescript)]
pub fn render(
    xr: JsValue,
    composition: JsValue,
    observed: JsValue,
    options: JsValue,
) -> Result<JsValue, JsValue> {
    let request = Object::new();
    set(&request, "xr", &xr)?;
    set(&request, "composition", &composition)?;
    if !observed.is_null_or_undefined() {
        set(&request, "observed", &observed)?;
    }
    if !options.is_null_or_undefined() {
        set(&request, "options", &options)?;
    }
    let text = stringify(&request)?;
    render_text(&String::from(text))
}

/// Renders Kubernetes documents (an array of objects or its JSON text); returns the Output
/// object, with `inputs`, or throws an `XprenderError`.
///
/// # Errors
/// The engine's error as a JS `Error` with `kind` and `context` fields.
#[wasm_bindgen(js_name = renderDocuments, skip_typescript)]
pub fn render_documents(documents: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let options = if options.is_null_or_undefined() {
        String::from("null")
    } else {
        String::from(stringify(&options)?)
    };
    // JSON text goes to the engine as it is, so its integers keep their int64 precision.
    let documents = match documents.as_string() {
        Some(text) => text,
        None => String::from(stringify(&documents)?),
    };
    render_text(&format!(
        "{{\"documents\":{documents},\"options\":{options}}}"
    ))
}

/// The request as JSON text; `JSON.stringify` throws on BigInt and cycles.
fn stringify(request: &JsValue) -> Result<js_sys::JsString, JsValue> {
    JSON::stringify(request).map_err(|e| {
        js_error(&Error::new(
            ErrorKind::InvalidRequest,
            format!("cannot encode request: {}", message(&e)),
        ))
    })
}

fn message(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map_or_else(|| String::from("not JSON"), |e| String::from(e.message()))
}

// The module's one engine, kept across calls: a worker that renders the same
// Composition on every keystroke reads it once. A module runs on one thread.
thread_local! {
    static ENGINE: RefCell<Engine> = const { RefCell::new(Engine::new()) };
}

/// Through the module's engine.
fn render_text(text: &str) -> Result<JsValue, JsValue> {
    let output = ENGINE.with(|e| {
        let mut e = e.borrow_mut();
        e.read_request(text).and_then(|r| e.render(&r))
    });
    match output {
        Ok(output) => JSON::parse(&output.to_json()),
        Err(e) => Err(js_error(&e)),
    }
}

/// Renders a request given as the contract's JSON text; returns the response JSON,
/// byte for byte what native `render_json` returns.
#[wasm_bindgen(js_name = renderJson)]
#[must_use]
pub fn render_json(request: &str) -> String {
    ENGINE.with(|e| e.borrow_mut().render_json(request))
}

/// The engine's version.
#[wasm_bindgen]
#[must_use]
pub fn version() -> String {
    crate::VERSION.to_owned()
}

fn set(target: &Object, key: &str, value: &JsValue) -> Result<(), JsValue> {
    Reflect::set(target, &JsValue::from_str(key), value).map(drop)
}

/// An `Error` named `XprenderError` carrying the error document's `kind` and `context`.
fn js_error(e: &Error) -> JsValue {
    let err = js_sys::Error::new(e.message());
    err.set_name("XprenderError");
    // The error document is the one place that names the context fields.
    if let Ok(doc) = JSON::parse(&crate::error_document(e))
        && let Ok(fields) = Reflect::get(&doc, &JsValue::from_str("error"))
    {
        for key in ["kind", "context"] {
            if let Ok(v) = Reflect::get(&fields, &JsValue::from_str(key)) {
                let _ = Reflect::set(&err, &JsValue::from_str(key), &v);
            }
        }
    }
    err.into()
}
