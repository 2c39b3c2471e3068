//! One RunFunction: the gRPC request as an engine request, the engine's answer as the response.
//!
//! The engine does the work (`options.output: function`, docs/render.md); this file only moves
//! fields between protobuf and the render contract's JSON, as function-patch-and-transform's
//! SDK calls do (`request.Get*`, `response.To`, `response.Set*`).

use std::collections::HashMap;
use std::time::Duration;

use base64::Engine as _;
use serde_json::{Map, Value as Json, json};

use super::proto::v1::{
    Resource, ResponseMeta, Result as FnResult, RunFunctionRequest, RunFunctionResponse, Severity,
    State,
};
use super::structs;

/// The context key of the Composition environment.
pub(crate) const ENVIRONMENT_KEY: &str = "apiextensions.crossplane.io/environment";

/// How long Crossplane may cache a response (function-sdk-go's `response.DefaultTTL`).
const TTL: Duration = Duration::from_secs(60);

/// `ready` of a composed resource on the wire.
const READY_TRUE: i32 = 1;
const READY_FALSE: i32 = 2;

/// The render contract's request for one step; an error is the text of a Fatal result.
pub(crate) fn engine_request(req: &RunFunctionRequest) -> Result<Vec<u8>, String> {
    let observed = req.observed.as_ref();
    let xr = resource_json(observed.and_then(|s| s.composite.as_ref()))
        .map_err(|e| format!("cannot get observed composite resource: {e}"))?;
    let mut input = match &req.input {
        Some(s) => structs::to_json(s).map_err(|e| format!("cannot get Function input: {e}"))?,
        None => Json::Object(Map::new()),
    };
    // function-patch-and-transform decodes its input whatever apiVersion and kind it names.
    if let Json::Object(m) = &mut input {
        m.insert("apiVersion".into(), "pt.fn.crossplane.io/v1beta1".into());
        m.insert("kind".into(), "Resources".into());
    }
    let mut observed_resources = Map::new();
    for (name, r) in observed.map(|s| &s.resources).into_iter().flatten() {
        let resource = resource_json(Some(r))
            .map_err(|e| format!("cannot get observed composed resources: {name}: {e}"))?;
        observed_resources.insert(
            name.clone(),
            json!({"resource": resource, "connectionDetails": details_json(&r.connection_details)}),
        );
    }
    let mut observed_doc = json!({"resources": observed_resources});
    if let Some(env) = environment(req)? {
        observed_doc["environment"] = env;
    }
    let desired = req.desired.as_ref();
    let mut desired_resources = Map::new();
    for (name, r) in desired.map(|s| &s.resources).into_iter().flatten() {
        let resource = resource_json(Some(r))
            .map_err(|e| format!("cannot get desired composed resources: {name}: {e}"))?;
        desired_resources.insert(
            name.clone(),
            json!({"resource": resource, "ready": r.ready == READY_TRUE}),
        );
    }
    let desired_xr = desired.and_then(|s| s.composite.as_ref());
    let request = json!({
        "xr": xr,
        "composition": {
            "apiVersion": "apiextensions.crossplane.io/v1",
            "kind": "Composition",
            "metadata": {"name": "function"},
            "spec": {
                "mode": "Pipeline",
                "pipeline": [{"step": "function", "functionRef": {"name": "xprender"}, "input": input}],
            },
        },
        "observed": observed_doc,
        "desired": {
            "composite": resource_json(desired_xr)
                .map_err(|e| format!("cannot get desired composite resource: {e}"))?,
            "connectionDetails": desired_xr.map(|r| details_json(&r.connection_details)).unwrap_or_default(),
            "resources": desired_resources,
        },
        "options": {"semantics": "function", "output": "function"},
    });
    Ok(serde_json::to_vec(&request).unwrap_or_default())
}

fn environment(req: &RunFunctionRequest) -> Result<Option<Json>, String> {
    use prost_types::value::Kind;
    let Some(ctx) = &req.context else {
        return Ok(None);
    };
    match ctx
        .fields
        .get(ENVIRONMENT_KEY)
        .and_then(|v| v.kind.as_ref())
    {
        Some(Kind::StructValue(s)) => structs::to_json(s).map(Some).map_err(|e| {
            format!("cannot get Composition environment from context key {ENVIRONMENT_KEY:?}: {e}")
        }),
        _ => Ok(None),
    }
}

fn resource_json(r: Option<&Resource>) -> Result<Json, String> {
    match r.and_then(|r| r.resource.as_ref()) {
        Some(s) => structs::to_json(s),
        None => Ok(Json::Object(Map::new())),
    }
}

fn details_json(d: &HashMap<String, Vec<u8>>) -> Json {
    let engine = base64::engine::general_purpose::STANDARD;
    Json::Object(
        d.iter()
            .map(|(k, v)| (k.clone(), Json::String(engine.encode(v))))
            .collect(),
    )
}

/// The response `response.To` starts from: the request's tag, desired state and context.
pub(crate) fn passthrough(req: &RunFunctionRequest) -> RunFunctionResponse {
    RunFunctionResponse {
        meta: Some(ResponseMeta {
            tag: req.meta.as_ref().map(|m| m.tag.clone()).unwrap_or_default(),
            ttl: Some(prost_types::Duration {
                seconds: i64::try_from(TTL.as_secs()).unwrap_or(60),
                nanos: 0,
            }),
        }),
        desired: req.desired.clone(),
        context: req.context.clone(),
        ..RunFunctionResponse::default()
    }
}

/// A Fatal result on the request's own desired state (`response.Fatal`).
pub(crate) fn fatal(req: &RunFunctionRequest, message: String) -> RunFunctionResponse {
    let mut rsp = passthrough(req);
    rsp.results.push(FnResult {
        severity: Severity::Fatal.into(),
        message,
        ..FnResult::default()
    });
    rsp
}

/// The response for the engine's answer (an Output document or an error document).
pub(crate) fn response(req: &RunFunctionRequest, output: &Json) -> RunFunctionResponse {
    if let Some(err) = output.get("error") {
        let message = err.get("message").and_then(Json::as_str).unwrap_or("");
        // The input sits at composition.spec.pipeline[0].input of the engine request.
        let message = message.replace("composition.spec.pipeline[0].input", "input");
        let kind = err.get("kind").and_then(Json::as_str).unwrap_or("");
        let message = if kind == "InvalidComposition" {
            format!("cannot get Function input: {message}")
        } else {
            message
        };
        return fatal(req, message);
    }
    let mut rsp = passthrough(req);
    let results = results(output);
    if results.iter().any(|r| r.severity == Severity::Fatal as i32) {
        // `response.Fatal`: the desired state and context go back as they came.
        rsp.results = results;
        return rsp;
    }
    rsp.results = results;
    let given = req.desired.as_ref();
    let mut resources = HashMap::new();
    if let Some(Json::Object(rs)) = output.get("resources") {
        for (name, r) in rs {
            let ready = if r.get("ready") == Some(&Json::Bool(true)) {
                READY_TRUE
            } else {
                // Not ready: an untouched READY_FALSE from an earlier step stays as it was.
                given
                    .and_then(|s| s.resources.get(name))
                    .map(|g| g.ready)
                    .filter(|&g| g == READY_FALSE)
                    .unwrap_or(0)
            };
            resources.insert(
                name.clone(),
                Resource {
                    resource: r.get("resource").map(structs::from_json),
                    connection_details: HashMap::new(),
                    ready,
                },
            );
        }
    }
    let mut details = HashMap::new();
    if let Some(Json::Object(cd)) = output.get("connectionDetails") {
        for (k, v) in cd {
            let bytes = v
                .as_str()
                .and_then(|s| base64::engine::general_purpose::STANDARD.decode(s).ok())
                .unwrap_or_default();
            details.insert(k.clone(), bytes);
        }
    }
    rsp.desired = Some(State {
        composite: Some(Resource {
            resource: output.get("composite").map(structs::from_json),
            connection_details: details,
            ready: 0,
        }),
        resources,
    });
    if let Some(env) = output.get("environment") {
        let ctx = rsp.context.get_or_insert_with(prost_types::Struct::default);
        ctx.fields.insert(
            ENVIRONMENT_KEY.to_owned(),
            prost_types::Value {
                kind: Some(prost_types::value::Kind::StructValue(structs::from_json(
                    env,
                ))),
            },
        );
    }
    rsp
}

fn results(output: &Json) -> Vec<FnResult> {
    let mut out = Vec::new();
    for r in output
        .get("results")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
    {
        let severity = match r.get("severity").and_then(Json::as_str) {
            Some("Fatal") => Severity::Fatal,
            Some("Warning") => Severity::Warning,
            _ => Severity::Normal,
        };
        out.push(FnResult {
            severity: severity.into(),
            message: r
                .get("message")
                .and_then(Json::as_str)
                .unwrap_or("")
                .to_owned(),
            ..FnResult::default()
        });
    }
    out
}

/// Composed resources in a request (for the log line).
pub(crate) fn resource_count(req: &RunFunctionRequest) -> usize {
    req.observed.as_ref().map_or(0, |s| s.resources.len())
}
