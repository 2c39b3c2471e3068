//! One RunFunction: the gRPC request as an engine request, the engine's answer as the response.
//!
//! The engine does the work (`options.output: function`, docs/render.md); this file only moves
//! fields between protobuf and the render contract's JSON, as function-patch-and-transform's
//! SDK calls do (`request.Get*`, `response.To`, `response.Set*`).

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use base64::Engine as _;
use serde::ser::{self, SerializeMap as _};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value as Json;

use super::proto::v1::{
    Resource, ResponseMeta, Result as FnResult, RunFunctionRequest, RunFunctionResponse, Severity,
    State,
};
use super::structs;

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
/// the text of a Fatal result.
pub(crate) fn engine_request(req: &RunFunctionRequest) -> Result<Vec<u8>, String> {
    let observed = req.observed.as_ref();
    let desired = req.desired.as_ref();
    let desired_xr = desired.and_then(|s| s.composite.as_ref());
    let request = EngineRequest {
        xr: Part::new(
            "cannot get observed composite resource",
            None,
            doc(observed.and_then(|s| s.composite.as_ref())),
        ),
        composition: Composition {
            api_version: "apiextensions.crossplane.io/v1",
            kind: "Composition",
            metadata: Name { name: "function" },
            spec: Spec {
                mode: "Pipeline",
                pipeline: [Step {
                    step: "function",
                    function_ref: Name { name: "xprender" },
                    input: Part::new("cannot get Function input", None, Input(req.input.as_ref())),
                }],
            },
        },
        observed: Observed {
            resources: Resources {
                state: observed,
                what: "cannot get observed composed resources",
                desired: false,
            },
            environment: environment(req)
                .map(|s| Part::new(ENVIRONMENT_FAULT, None, structs::StructJson(s))),
        },
        desired: Desired {
            composite: Part::new(
                "cannot get desired composite resource",
                None,
                doc(desired_xr),
            ),
            connection_details: desired_xr.map(|r| Details(&r.connection_details)),
            resources: Resources {
                state: desired,
                what: "cannot get desired composed resources",
                desired: true,
            },
        },
        options: Options {
            semantics: "function",
            output: "function",
        },
    };
    serde_json::to_vec(&request).map_err(|e| e.to_string())
}

/// The engine's own refusal of an input with more templates or PatchSets than it takes, found
/// without writing the request out.
pub(crate) fn over_limits(req: &RunFunctionRequest) -> Option<String> {
    use prost_types::value::Kind;
    let fields = &req.input.as_ref()?.fields;
    ["patchSets", "resources"]
        .into_iter()
        .find_map(|key| match &fields.get(key)?.kind {
            Some(Kind::ListValue(l)) => crate::runtime::list_over_limit(
                "composition.spec.pipeline[0].input",
                l.values.len(),
            ),
            _ => None,
        })
}

/// The engine request's members in the order their faults are reported.
#[derive(Serialize)]
struct EngineRequest<'a> {
    xr: Part<'a, Doc<'a>>,
    composition: Composition<'a>,
    observed: Observed<'a>,
    desired: Desired<'a>,
    options: Options,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Composition<'a> {
    api_version: &'static str,
    kind: &'static str,
    metadata: Name,
    spec: Spec<'a>,
}

#[derive(Serialize)]
struct Name {
    name: &'static str,
}

#[derive(Serialize)]
struct Spec<'a> {
    mode: &'static str,
    pipeline: [Step<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Step<'a> {
    step: &'static str,
    function_ref: Name,
    input: Part<'a, Input<'a>>,
}

#[derive(Serialize)]
struct Observed<'a> {
    resources: Resources<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    environment: Option<Part<'a, structs::StructJson<'a>>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Desired<'a> {
    composite: Part<'a, Doc<'a>>,
    connection_details: Option<Details<'a>>,
    resources: Resources<'a>,
}

#[derive(Serialize)]
struct Options {
    semantics: &'static str,
    output: &'static str,
}

/// A part of the request whose fault is reported as `what: [name: ]fault`.
struct Part<'a, T> {
    what: &'static str,
    name: Option<&'a str>,
    value: T,
}

impl<'a, T> Part<'a, T> {
    fn new(what: &'static str, name: Option<&'a str>, value: T) -> Self {
        Part { what, name, value }
    }
}

impl<T: Serialize> Serialize for Part<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(s).map_err(|e| {
            ser::Error::custom(match self.name {
                Some(name) => format!("{}: {name}: {e}", self.what),
                None => format!("{}: {e}", self.what),
            })
        })
    }
}

/// A resource's object, `{}` when the message has none.
struct Doc<'a>(Option<&'a prost_types::Struct>);

fn doc(r: Option<&Resource>) -> Doc<'_> {
    Doc(r.and_then(|r| r.resource.as_ref()))
}

impl Serialize for Doc<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Some(st) => structs::StructJson(st).serialize(s),
            None => s.serialize_map(Some(0))?.end(),
        }
    }
}

/// function-patch-and-transform's input: whatever apiVersion and kind it names, it is decoded
/// as its own (a number JSON cannot hold is refused there too, as protojson refuses it).
struct Input<'a>(Option<&'a prost_types::Struct>);

impl Serialize for Input<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("apiVersion", "pt.fn.crossplane.io/v1beta1")?;
        m.serialize_entry("kind", "Resources")?;
        for (k, v) in self.0.iter().flat_map(|st| &st.fields) {
            let entry = if k == "apiVersion" || k == "kind" {
                // Replaced, but still read as JSON first.
                serde_json::to_writer(std::io::sink(), &structs::ValueJson(v))
                    .map_err(|e| e.to_string())
            } else {
                m.serialize_entry(k, &structs::ValueJson(v))
                    .map_err(|e| e.to_string())
            };
            entry.map_err(|e| ser::Error::custom(structs::at(k, &e)))?;
        }
        m.end()
    }
}

/// A state's composed resources by name (sorted, so a request's text is the same each time).
struct Resources<'a> {
    state: Option<&'a State>,
    what: &'static str,
    desired: bool,
}

impl Serialize for Resources<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut rs: Vec<(&String, &Resource)> = self
            .state
            .map(|st| st.resources.iter().collect())
            .unwrap_or_default();
        rs.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let mut m = s.serialize_map(Some(rs.len()))?;
        for (name, r) in rs {
            let resource = Part::new(self.what, Some(name.as_str()), doc(Some(r)));
            if self.desired {
                m.serialize_entry(
                    name,
                    &DesiredResource {
                        resource,
                        ready: r.ready == READY_TRUE,
                    },
                )?;
            } else {
                let connection_details = Details(&r.connection_details);
                m.serialize_entry(
                    name,
                    &ObservedResource {
                        resource,
                        connection_details,
                    },
                )?;
            }
        }
        m.end()
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ObservedResource<'a> {
    resource: Part<'a, Doc<'a>>,
    connection_details: Details<'a>,
}

#[derive(Serialize)]
struct DesiredResource<'a> {
    resource: Part<'a, Doc<'a>>,
    ready: bool,
}

/// Connection details, base64 as in a Secret.
struct Details<'a>(&'a HashMap<String, Vec<u8>>);

impl Serialize for Details<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let engine = base64::engine::general_purpose::STANDARD;
        s.collect_map(self.0.iter().map(|(k, v)| (k, engine.encode(v))))
    }
}

/// The Composition environment in the request's context, when it is an object.
fn environment(req: &RunFunctionRequest) -> Option<&prost_types::Struct> {
    use prost_types::value::Kind;
    match req
        .context
        .as_ref()?
        .fields
        .get(ENVIRONMENT_KEY)?
        .kind
        .as_ref()
    {
        Some(Kind::StructValue(s)) => Some(s),
        _ => None,
    }
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
    composite: Option<prost_types::Struct>,
    #[serde(default, deserialize_with = "object")]
    environment: Option<prost_types::Struct>,
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
    resource: Option<prost_types::Struct>,
    #[serde(default)]
    ready: bool,
}

/// A member that is there, whatever it holds: an object as a `Struct`, anything else empty.
fn object<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<prost_types::Struct>, D::Error> {
    structs::StructFromJson::deserialize(d).map(|s| Some(s.0))
}

/// Reads the engine's answer.
///
/// # Errors
/// The answer is not JSON of the shape an answer has.
pub(crate) fn answer(bytes: &[u8]) -> serde_json::Result<Answer> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
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
            ready: 0,
        }),
        resources,
    });
    if let Some(env) = answer.environment {
        let ctx = rsp.context.get_or_insert_with(prost_types::Struct::default);
        ctx.fields.insert(
            ENVIRONMENT_KEY.to_owned(),
            prost_types::Value {
                kind: Some(prost_types::value::Kind::StructValue(env)),
            },
        );
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
    use serde_json::json;

    use super::*;

    fn st(j: &Json) -> prost_types::Struct {
        structs::from_json(j)
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

    #[test]
    fn the_step_is_written_as_the_render_contract() {
        let details = json!({"password": "czNjcjN0"});
        assert_eq!(
            engine_json(&request()),
            json!({
                "xr": {"kind": "XR", "spec": {"n": 3}},
                "composition": {
                    "apiVersion": "apiextensions.crossplane.io/v1",
                    "kind": "Composition",
                    "metadata": {"name": "function"},
                    "spec": {"mode": "Pipeline", "pipeline": [{
                        "step": "function", "functionRef": {"name": "xprender"},
                        "input": {"apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources",
                            "resources": [{"name": "a", "base": {"kind": "A"}}]}}]}},
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
                "composition": {
                    "apiVersion": "apiextensions.crossplane.io/v1",
                    "kind": "Composition",
                    "metadata": {"name": "function"},
                    "spec": {"mode": "Pipeline", "pipeline": [{
                        "step": "function", "functionRef": {"name": "xprender"},
                        "input": {"apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources"}}]}},
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

    fn with_nan(s: &mut prost_types::Struct, key: &str, path: &[&str]) {
        s.fields.insert(key.to_owned(), nan_at(path));
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
                    let ctx = r.context.as_mut().unwrap();
                    ctx.fields
                        .insert(ENVIRONMENT_KEY.to_owned(), nan_at(&["tier"]));
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
        req.context
            .as_mut()
            .unwrap()
            .fields
            .insert("other".into(), nan_at(&[]));
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
            structs::to_json(xr.resource.as_ref().unwrap()).unwrap(),
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
            Some(prost_types::Struct::default())
        );
        let ctx = structs::to_json(rsp.context.as_ref().unwrap()).unwrap();
        assert_eq!(ctx, json!({ENVIRONMENT_KEY: {"region": "us"}, "other": 1}));
        assert_eq!(rsp.meta.unwrap().ttl.unwrap().seconds, 60);
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
