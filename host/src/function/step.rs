//! One RunFunction: the gRPC request as an engine request, the engine's answer as the response.
//!
//! The engine does the work (`options.output: function`, docs/render.md); this file only moves
//! fields between protobuf and the render contract's JSON, as function-patch-and-transform's
//! SDK calls do (`request.Get*`, `response.To`, `response.Set*`).

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use base64::Engine as _;
use serde::Deserialize;
use serde_json::Value as Json;

use super::proto::v1::{
    Resource, ResponseMeta, Result as FnResult, RunFunctionRequest, RunFunctionResponse, Severity,
    State,
};
use super::wire;

/// The context key of the Composition environment.
pub(crate) const ENVIRONMENT_KEY: &str = "apiextensions.crossplane.io/environment";

/// What a fault in the environment is reported as (the key quoted, as Go's `%q` does).
const ENVIRONMENT_FAULT: &str = "cannot get Composition environment from context key \"apiextensions.crossplane.io/environment\"";

/// How long Crossplane may cache a response (function-sdk-go's `response.DefaultTTL`).
const TTL: Duration = Duration::from_secs(60);

/// `ready` of a composed resource on the wire.
const READY_TRUE: i32 = 1;
const READY_FALSE: i32 = 2;

/// The render contract's request for one step, written straight from the message; an error is
/// the text of a Fatal result, naming the first part at fault in the order they are written:
/// the XR, the input, observed resources, the environment, the desired state.
pub(crate) fn engine_request(req: &RunFunctionRequest) -> Result<Vec<u8>, String> {
    let observed = req.observed.as_ref();
    let desired = req.desired.as_ref();
    let desired_xr = desired.and_then(|s| s.composite.as_ref());
    let mut out = Vec::with_capacity(64 << 10);
    out.extend_from_slice(b"{\"xr\":");
    doc(&mut out, observed.and_then(|s| s.composite.as_ref()))
        .map_err(|e| format!("cannot get observed composite resource: {e}"))?;
    out.extend_from_slice(
        br#","composition":{"apiVersion":"apiextensions.crossplane.io/v1","kind":"Composition","metadata":{"name":"function"},"spec":{"mode":"Pipeline","pipeline":[{"step":"function","functionRef":{"name":"xprender"},"input":"#,
    );
    // function-patch-and-transform decodes its input whatever apiVersion and kind it names.
    let pt = [
        ("apiVersion", "pt.fn.crossplane.io/v1beta1"),
        ("kind", "Resources"),
    ];
    let none = wire::Struct::default();
    req.input
        .as_ref()
        .unwrap_or(&none)
        .write_json(&mut out, &pt)
        .map_err(|e| format!("cannot get Function input: {e}"))?;
    out.extend_from_slice(br#"}]}},"observed":{"resources":"#);
    resources(&mut out, observed, false)?;
    if let Some(ctx) = &req.context {
        let mark = out.len();
        out.extend_from_slice(br#","environment":"#);
        match ctx.write_member_json(ENVIRONMENT_KEY, &mut out) {
            None => out.truncate(mark),
            Some(r) => r.map_err(|e| format!("{ENVIRONMENT_FAULT}: {e}"))?,
        }
    }
    out.extend_from_slice(br#"},"desired":{"resources":"#);
    resources(&mut out, desired, true)?;
    out.extend_from_slice(br#","composite":"#);
    doc(&mut out, desired_xr).map_err(|e| format!("cannot get desired composite resource: {e}"))?;
    out.extend_from_slice(br#","connectionDetails":"#);
    match desired_xr {
        Some(r) => details(&mut out, &r.connection_details),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(br#"},"options":{"semantics":"function","output":"function"}}"#);
    Ok(out)
}

/// The engine's own refusal of an input with more templates or PatchSets than it takes, found
/// without writing the request out.
pub(crate) fn over_limits(req: &RunFunctionRequest) -> Option<String> {
    let input = req.input.as_ref()?;
    ["patchSets", "resources"].into_iter().find_map(|key| {
        let len = input.list_len(key)?;
        crate::runtime::list_over_limit("composition.spec.pipeline[0].input", len)
    })
}

/// A resource's object, `{}` when the message has none.
fn doc(out: &mut Vec<u8>, r: Option<&Resource>) -> Result<(), wire::Fault> {
    match r.and_then(|r| r.resource.as_ref()) {
        Some(s) => s.write_json(out, &[]),
        None => {
            out.extend_from_slice(b"{}");
            Ok(())
        }
    }
}

/// A state's composed resources by name (sorted, so a request's text is the same each time).
fn resources(out: &mut Vec<u8>, state: Option<&State>, desired: bool) -> Result<(), String> {
    let mut rs: Vec<(&String, &Resource)> = state
        .map(|st| st.resources.iter().collect())
        .unwrap_or_default();
    rs.sort_unstable_by(|a, b| a.0.cmp(b.0));
    out.push(b'{');
    for (i, (name, r)) in rs.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let _ = serde_json::to_writer(&mut *out, name);
        out.extend_from_slice(br#":{"resource":"#);
        doc(out, Some(r)).map_err(|e| {
            let state = if desired { "desired" } else { "observed" };
            format!("cannot get {state} composed resources: {name}: {e}")
        })?;
        if desired {
            out.extend_from_slice(if r.ready == READY_TRUE {
                br#","ready":true}"#
            } else {
                br#","ready":false}"#
            });
        } else {
            out.extend_from_slice(br#","connectionDetails":"#);
            details(out, &r.connection_details);
            out.push(b'}');
        }
    }
    out.push(b'}');
    Ok(())
}

/// Connection details, base64 as in a Secret.
fn details(out: &mut Vec<u8>, d: &HashMap<String, Vec<u8>>) {
    let engine = base64::engine::general_purpose::STANDARD;
    let encoded: BTreeMap<&String, String> = d.iter().map(|(k, v)| (k, engine.encode(v))).collect();
    let _ = serde_json::to_writer(&mut *out, &encoded);
}

/// The response `response.To` starts from: the request's tag, context and, when `keep` says
/// so, its desired state.
fn passthrough(req: &RunFunctionRequest, keep: bool) -> RunFunctionResponse {
    RunFunctionResponse {
        meta: Some(ResponseMeta {
            tag: req.meta.as_ref().map(|m| m.tag.clone()).unwrap_or_default(),
            ttl: Some(prost_types::Duration {
                seconds: i64::try_from(TTL.as_secs()).unwrap_or(60),
                nanos: 0,
            }),
        }),
        desired: if keep { req.desired.clone() } else { None },
        context: req.context.clone(),
        ..RunFunctionResponse::default()
    }
}

/// A Fatal result on the request's own desired state (`response.Fatal`).
pub(crate) fn fatal(req: &RunFunctionRequest, message: String) -> RunFunctionResponse {
    let mut rsp = passthrough(req, true);
    rsp.results.push(FnResult {
        severity: Severity::Fatal.into(),
        message,
        ..FnResult::default()
    });
    rsp
}

/// The engine's answer (an Output document or an error document), read straight into the
/// messages of the response: members the response has no place for are skipped unread.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Answer {
    #[serde(default)]
    error: Option<AnswerError>,
    #[serde(default)]
    results: Vec<AnswerResult>,
    #[serde(default)]
    resources: BTreeMap<String, AnswerResource>,
    #[serde(default)]
    connection_details: BTreeMap<String, Json>,
    #[serde(default, deserialize_with = "object")]
    composite: Option<wire::Struct>,
    #[serde(default, deserialize_with = "object")]
    environment: Option<wire::Struct>,
    /// The step's word on the XR's readiness: `false` when it held a resource back.
    #[serde(default)]
    composite_ready: Option<bool>,
}

#[derive(Deserialize)]
struct AnswerError {
    #[serde(default)]
    message: String,
    #[serde(default)]
    kind: String,
}

#[derive(Deserialize)]
struct AnswerResult {
    #[serde(default)]
    severity: String,
    #[serde(default)]
    message: String,
}

#[derive(Deserialize)]
struct AnswerResource {
    #[serde(default, deserialize_with = "object")]
    resource: Option<wire::Struct>,
    #[serde(default)]
    ready: bool,
}

/// A member that is there, whatever it holds: an object as a `Struct`, anything else empty.
fn object<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<wire::Struct>, D::Error> {
    wire::Struct::deserialize(d).map(Some)
}

/// Reads the engine's answer.
///
/// # Errors
/// The answer is not JSON of the shape an answer has.
pub(crate) fn answer(bytes: &[u8]) -> serde_json::Result<Answer> {
    // UTF-8 checked once for the whole answer rather than string by string; an answer that is
    // not UTF-8 is read as bytes, for serde_json's error naming where.
    match std::str::from_utf8(bytes) {
        Ok(text) => read_answer(serde_json::Deserializer::from_str(text)),
        Err(_) => read_answer(serde_json::Deserializer::from_slice(bytes)),
    }
}

fn read_answer<'de, R: serde_json::de::Read<'de>>(
    mut de: serde_json::Deserializer<R>,
) -> serde_json::Result<Answer> {
    // The engine bounds the answer's nesting; the host's threads have the stack for it.
    de.disable_recursion_limit();
    let answer = Answer::deserialize(&mut de)?;
    de.end()?;
    Ok(answer)
}

/// The response for the engine's answer.
pub(crate) fn response(req: &RunFunctionRequest, answer: Answer) -> RunFunctionResponse {
    if let Some(err) = answer.error {
        // The input sits at composition.spec.pipeline[0].input of the engine request.
        let message = err
            .message
            .replace("composition.spec.pipeline[0].input", "input");
        let message = if err.kind == "InvalidComposition" {
            format!("cannot get Function input: {message}")
        } else {
            message
        };
        return fatal(req, message);
    }
    let results: Vec<FnResult> = answer.results.into_iter().map(result).collect();
    if results.iter().any(|r| r.severity == Severity::Fatal as i32) {
        // `response.Fatal`: the desired state and context go back as they came.
        let mut rsp = passthrough(req, true);
        rsp.results = results;
        return rsp;
    }
    let mut rsp = passthrough(req, false);
    rsp.results = results;
    let given = req.desired.as_ref();
    let resources = answer
        .resources
        .into_iter()
        .map(|(name, r)| {
            let ready = if r.ready {
                READY_TRUE
            } else {
                // Not ready: an untouched READY_FALSE from an earlier step stays as it was.
                given
                    .and_then(|s| s.resources.get(&name))
                    .map(|g| g.ready)
                    .filter(|&g| g == READY_FALSE)
                    .unwrap_or(0)
            };
            let resource = Resource {
                resource: r.resource,
                connection_details: HashMap::new(),
                ready,
            };
            (name, resource)
        })
        .collect();
    let details = answer
        .connection_details
        .into_iter()
        .map(|(k, v)| {
            let bytes = v
                .as_str()
                .and_then(|s| base64::engine::general_purpose::STANDARD.decode(s).ok())
                .unwrap_or_default();
            (k, bytes)
        })
        .collect();
    rsp.desired = Some(State {
        composite: Some(Resource {
            resource: answer.composite,
            connection_details: details,
            // function-patch-and-transform marks the XR unready when it held a resource back.
            ready: match answer.composite_ready {
                Some(false) => READY_FALSE,
                Some(true) => READY_TRUE,
                None => 0,
            },
        }),
        resources,
    });
    if let Some(env) = answer.environment {
        let ctx = rsp.context.take().unwrap_or_default();
        rsp.context = Some(ctx.with_member(ENVIRONMENT_KEY, &env));
    }
    rsp
}

fn result(r: AnswerResult) -> FnResult {
    let severity = match r.severity.as_str() {
        "Fatal" => Severity::Fatal,
        "Warning" => Severity::Warning,
        _ => Severity::Normal,
    };
    FnResult {
        severity: severity.into(),
        message: r.message,
        ..FnResult::default()
    }
}

/// Composed resources in a request (for the log line).
pub(crate) fn resource_count(req: &RunFunctionRequest) -> usize {
    req.observed.as_ref().map_or(0, |s| s.resources.len())
}

#[cfg(test)]
mod tests {
    use prost::Message as _;
    use serde_json::json;

    use super::super::structs;
    use super::*;

    /// A Struct as a client sends it: prost's, encoded.
    fn wire_of(s: &prost_types::Struct) -> wire::Struct {
        wire::Struct::decode(s.encode_to_vec().as_slice()).unwrap()
    }

    fn st(j: &Json) -> wire::Struct {
        wire_of(&structs::from_json(j))
    }

    /// A Struct as a client reads it.
    fn json(s: &wire::Struct) -> Json {
        structs::to_json(&prost_types::Struct::decode(s.encode_to_vec().as_slice()).unwrap())
            .unwrap()
    }

    fn resource(j: &Json, ready: i32) -> Resource {
        Resource {
            resource: Some(st(j)),
            connection_details: HashMap::from([("password".to_owned(), b"s3cr3t".to_vec())]),
            ready,
        }
    }

    fn request() -> RunFunctionRequest {
        let env = json!({"region": "eu"});
        RunFunctionRequest {
            observed: Some(State {
                composite: Some(resource(&json!({"kind": "XR", "spec": {"n": 3}}), 0)),
                resources: HashMap::from([
                    ("b".to_owned(), resource(&json!({"kind": "B"}), 0)),
                    ("a".to_owned(), resource(&json!({"kind": "A"}), 0)),
                ]),
            }),
            desired: Some(State {
                composite: Some(resource(&json!({"status": {"x": 1.5}}), 0)),
                resources: HashMap::from([
                    ("a".to_owned(), resource(&json!({"kind": "A"}), READY_TRUE)),
                    ("c".to_owned(), resource(&json!({"kind": "C"}), READY_FALSE)),
                ]),
            }),
            input: Some(st(&json!({"apiVersion": "other/v1", "kind": "Other",
                "resources": [{"name": "a", "base": {"kind": "A"}}]}))),
            context: Some(st(&json!({ENVIRONMENT_KEY: env, "other": 1}))),
            ..RunFunctionRequest::default()
        }
    }

    fn engine_json(req: &RunFunctionRequest) -> Json {
        serde_json::from_slice(&engine_request(req).unwrap()).unwrap()
    }

    /// The one-step Composition the request carries, with this input.
    fn composition(input: Json) -> Json {
        json!({
            "apiVersion": "apiextensions.crossplane.io/v1",
            "kind": "Composition",
            "metadata": {"name": "function"},
            "spec": {"mode": "Pipeline", "pipeline": [{
                "step": "function", "functionRef": {"name": "xprender"}, "input": input}]}})
    }

    #[test]
    fn the_step_is_written_as_the_render_contract() {
        let details = json!({"password": "czNjcjN0"});
        assert_eq!(
            engine_json(&request()),
            json!({
                "xr": {"kind": "XR", "spec": {"n": 3}},
                "composition": composition(json!({
                    "apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources",
                    "resources": [{"name": "a", "base": {"kind": "A"}}]})),
                "observed": {
                    "resources": {
                        "a": {"resource": {"kind": "A"}, "connectionDetails": details},
                        "b": {"resource": {"kind": "B"}, "connectionDetails": details}},
                    "environment": {"region": "eu"}},
                "desired": {
                    "composite": {"status": {"x": 1.5}},
                    "connectionDetails": details,
                    "resources": {
                        "a": {"resource": {"kind": "A"}, "ready": true},
                        "c": {"resource": {"kind": "C"}, "ready": false}}},
                "options": {"semantics": "function", "output": "function"},
            })
        );
        // Nothing given: empty objects where a document goes, no environment.
        assert_eq!(
            engine_json(&RunFunctionRequest::default()),
            json!({
                "xr": {},
                "composition": composition(json!({
                    "apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources"})),
                "observed": {"resources": {}},
                "desired": {"composite": {}, "connectionDetails": null, "resources": {}},
                "options": {"semantics": "function", "output": "function"},
            })
        );
    }

    fn nan_at(path: &[&str]) -> prost_types::Value {
        use prost_types::value::Kind;
        let mut v = prost_types::Value {
            kind: Some(Kind::NumberValue(f64::NAN)),
        };
        for key in path.iter().rev() {
            v = prost_types::Value {
                kind: Some(Kind::StructValue(prost_types::Struct {
                    fields: BTreeMap::from([((*key).to_owned(), v)]),
                })),
            };
        }
        v
    }

    fn with_nan(s: &mut wire::Struct, key: &str, path: &[&str]) {
        let mut p = prost_types::Struct::decode(s.encode_to_vec().as_slice()).unwrap();
        p.fields.insert(key.to_owned(), nan_at(path));
        *s = wire_of(&p);
    }

    type Spoil = fn(&mut RunFunctionRequest);

    #[test]
    fn a_number_json_cannot_hold_is_named_with_its_part_and_path() {
        let fault = "invalid number NaN: JSON has no NaN or infinity";
        let cases: Vec<(&str, Spoil, String)> = vec![
            (
                "xr",
                (|r: &mut RunFunctionRequest| {
                    let xr = r.observed.as_mut().unwrap().composite.as_mut().unwrap();
                    with_nan(xr.resource.as_mut().unwrap(), "spec", &["x"]);
                }),
                format!("cannot get observed composite resource: spec.x: {fault}"),
            ),
            (
                "replaced apiVersion",
                (|r: &mut RunFunctionRequest| {
                    with_nan(r.input.as_mut().unwrap(), "apiVersion", &[]);
                }),
                format!("cannot get Function input: apiVersion: {fault}"),
            ),
            (
                "observed",
                (|r: &mut RunFunctionRequest| {
                    let b = r.observed.as_mut().unwrap().resources.get_mut("b").unwrap();
                    with_nan(b.resource.as_mut().unwrap(), "spec", &["y"]);
                }),
                format!("cannot get observed composed resources: b: spec.y: {fault}"),
            ),
            (
                "environment",
                (|r: &mut RunFunctionRequest| {
                    with_nan(r.context.as_mut().unwrap(), ENVIRONMENT_KEY, &["tier"]);
                }),
                format!(
                    "cannot get Composition environment from context key \"{ENVIRONMENT_KEY}\": tier: {fault}"
                ),
            ),
            (
                "desired",
                (|r: &mut RunFunctionRequest| {
                    let c = r.desired.as_mut().unwrap().resources.get_mut("c").unwrap();
                    with_nan(c.resource.as_mut().unwrap(), "spec", &[]);
                }),
                format!("cannot get desired composed resources: c: spec: {fault}"),
            ),
            (
                "desired XR",
                (|r: &mut RunFunctionRequest| {
                    let xr = r.desired.as_mut().unwrap().composite.as_mut().unwrap();
                    with_nan(xr.resource.as_mut().unwrap(), "status", &["z"]);
                }),
                format!("cannot get desired composite resource: status.z: {fault}"),
            ),
        ];
        for (what, spoil, message) in cases {
            let mut req = request();
            spoil(&mut req);
            assert_eq!(engine_request(&req).unwrap_err(), message, "{what}");
        }
        // A fault in another context key is not the step's to read.
        let mut req = request();
        with_nan(req.context.as_mut().unwrap(), "other", &[]);
        assert!(engine_request(&req).is_ok());
    }

    fn respond(answer_text: &Json) -> RunFunctionResponse {
        let answer = answer(answer_text.to_string().as_bytes()).unwrap();
        response(&request(), answer)
    }

    fn fatal_message(rsp: &RunFunctionResponse) -> &str {
        let last = rsp.results.last().unwrap();
        assert_eq!(last.severity, Severity::Fatal as i32);
        &last.message
    }

    #[test]
    fn the_answer_becomes_the_response() {
        let rsp = respond(&json!({
            "composite": {"status": {"x": 2}},
            "resources": {
                "a": {"resource": {"kind": "A"}, "ready": true},
                "c": {"resource": {"kind": "C"}, "ready": false},
                "d": {"resource": null, "ready": false}},
            "connectionDetails": {"url": "aHR0cDovL3g=", "bad": "%%"},
            "ready": false,
            "results": [{"severity": "Warning", "message": "careful"}],
            "environment": {"region": "us"},
            "unknown": [{"deep": [1, 2]}],
        }));
        assert_eq!(rsp.results.len(), 1);
        assert_eq!(rsp.results[0].severity, Severity::Warning as i32);
        assert_eq!(rsp.results[0].message, "careful");
        let desired = rsp.desired.unwrap();
        let xr = desired.composite.unwrap();
        assert_eq!(
            json(xr.resource.as_ref().unwrap()),
            json!({"status": {"x": 2}})
        );
        assert_eq!(xr.connection_details["url"], b"http://x");
        assert_eq!(xr.connection_details["bad"], b"");
        let ready: BTreeMap<_, _> = desired
            .resources
            .iter()
            .map(|(k, r)| (k.as_str(), r.ready))
            .collect();
        // c was READY_FALSE before this step and stays so; d had no readiness.
        assert_eq!(
            ready,
            BTreeMap::from([("a", READY_TRUE), ("c", READY_FALSE), ("d", 0)])
        );
        assert_eq!(
            desired.resources["d"].resource,
            Some(wire::Struct::default())
        );
        let ctx = json(rsp.context.as_ref().unwrap());
        assert_eq!(ctx, json!({ENVIRONMENT_KEY: {"region": "us"}, "other": 1}));
        assert_eq!(rsp.meta.unwrap().ttl.unwrap().seconds, 60);
    }

    #[test]
    fn an_answer_is_read_as_text_and_bytes_that_are_not_text_fail_as_before() {
        let text = r#"{"resources": {"a": {"resource": {"kind": "K", "s": "\u00e9\"é"}}}}"#;
        let rsp = response(&request(), answer(text.as_bytes()).unwrap());
        let a = &rsp.desired.unwrap().resources["a"];
        let mut json = Vec::new();
        a.resource
            .as_ref()
            .unwrap()
            .write_json(&mut json, &[])
            .unwrap();
        assert_eq!(json, r#"{"kind":"K","s":"é\"é"}"#.as_bytes());
        // Not UTF-8: serde_json's own error, as reading the bytes gave it.
        let mut bad = br#"{"resources": {"a": {"resource": {"s": "?"}}}}"#.to_vec();
        let at = bad.iter().position(|&b| b == b'?').unwrap();
        bad[at] = 0xff;
        let want = serde_json::from_slice::<Json>(&bad)
            .unwrap_err()
            .to_string();
        assert_eq!(answer(&bad).err().map(|e| e.to_string()), Some(want));
    }

    #[test]
    fn a_fatal_answer_returns_the_desired_state_given() {
        let rsp = respond(&json!({"results": [
            {"severity": "Normal", "message": "ok"},
            {"severity": "Fatal", "message": "broken"}]}));
        assert_eq!(fatal_message(&rsp), "broken");
        assert_eq!(rsp.desired, request().desired);
        assert_eq!(rsp.context, request().context);

        let rsp = respond(&json!({"error": {"kind": "InvalidComposition",
            "message": "composition.spec.pipeline[0].input.resources[0].name: required"}}));
        assert_eq!(
            fatal_message(&rsp),
            "cannot get Function input: input.resources[0].name: required"
        );
        assert_eq!(rsp.desired, request().desired);
        let rsp = respond(&json!({"error": {"kind": "Limit", "message": "over"}}));
        assert_eq!(fatal_message(&rsp), "over");
    }

    #[test]
    fn lists_over_the_engine_limit_are_refused_before_writing() {
        let mut req = request();
        assert_eq!(over_limits(&req), None);
        let many = json!({"resources": vec![json!({}); 100_001]});
        req.input = Some(st(&many));
        let refusal: Json = serde_json::from_str(&over_limits(&req).unwrap()).unwrap();
        assert_eq!(
            refusal["error"]["message"],
            "composition.spec.pipeline[0].input: more than 100000 entries"
        );
        let rsp = response(&req, answer(refusal.to_string().as_bytes()).unwrap());
        assert_eq!(fatal_message(&rsp), "input: more than 100000 entries");
    }
}
