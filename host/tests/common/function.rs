//! The client side of the `function serve` tests: Crossplane's FunctionRunnerService client,
//! requests built as Crossplane builds them, the engine's answer for the same step, and mutual
//! TLS material. Test crates mount it with `#[path = "common/function.rs"] mod function;`.
#![allow(
    dead_code,
    unused_imports,
    unreachable_pub,
    clippy::unwrap_used,
    clippy::expect_used
)]

use std::collections::BTreeMap;
use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::{Value as Json, json};
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Identity};

// The client and the JSON to `Struct` conversion are the host's own.
pub use xprender_host::unstable::client as proto;
pub use xprender_host::unstable::structs;

pub use proto::v1::function_runner_service_client::FunctionRunnerServiceClient as V1Client;
pub use proto::v1::{RequestMeta, Resource, RunFunctionRequest, RunFunctionResponse, State};
pub use proto::v1beta1::function_runner_service_client::FunctionRunnerServiceClient as V1beta1Client;

pub const ENV_KEY: &str = "apiextensions.crossplane.io/environment";

/// A served `xprender function serve`, killed on drop.
pub struct Server {
    pub child: Child,
    pub address: String,
}

impl Server {
    /// `xprender function serve` on a free loopback port.
    pub fn start(args: &[&str]) -> Server {
        let mut cmd = crate::common::xprender();
        cmd.args(["function", "serve", "--address", "127.0.0.1:0"])
            .args(args);
        Server::spawn(&mut cmd)
    }

    /// Spawns a server command with its logs piped; returns once it logs `Listening`.
    pub fn spawn(cmd: &mut Command) -> Server {
        let mut child = cmd.stderr(Stdio::piped()).spawn().unwrap();
        let stderr = child.stderr.take().unwrap();
        let mut lines = BufReader::new(stderr).lines();
        let mut seen = String::new();
        let address = loop {
            let Some(Ok(line)) = lines.next() else {
                panic!("the server stopped before listening:\n{seen}");
            };
            seen.push_str(&line);
            seen.push('\n');
            let log: Json = serde_json::from_str(&line).unwrap_or_default();
            if log["msg"] == "Listening" {
                break log["address"].as_str().unwrap().to_owned();
            }
        };
        // Keep draining the logs so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        Server { child, address }
    }

    pub async fn channel(&self) -> Channel {
        Channel::from_shared(format!("http://{}", self.address))
            .unwrap()
            .connect()
            .await
            .unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn to_struct(j: &Json) -> prost_types::Struct {
    structs::from_json(j)
}

pub fn resource(j: &Json) -> Resource {
    Resource {
        resource: Some(to_struct(j)),
        ..Resource::default()
    }
}

/// A request for one function-patch-and-transform step.
pub fn fn_request(
    xr: &Json,
    input: &Json,
    observed: &Json,
    env: Option<&Json>,
) -> RunFunctionRequest {
    let mut resources = BTreeMap::new();
    if let Some(rs) = observed.as_object() {
        for (name, r) in rs {
            let mut res = resource(&r["resource"]);
            if let Some(cd) = r.get("connectionDetails").and_then(Json::as_object) {
                use base64::Engine as _;
                for (k, v) in cd {
                    let bytes = base64::engine::general_purpose::STANDARD
                        .decode(v.as_str().unwrap())
                        .unwrap();
                    res.connection_details.insert(k.clone(), bytes);
                }
            }
            resources.insert(name.clone(), res);
        }
    }
    let context = env.map(|e| to_struct(&json!({ ENV_KEY: e })));
    RunFunctionRequest {
        meta: Some(RequestMeta { tag: "t".into() }),
        observed: Some(State {
            composite: Some(resource(xr)),
            resources,
        }),
        desired: Some(State::default()),
        input: Some(to_struct(input)),
        context,
        ..RunFunctionRequest::default()
    }
}

pub fn json_of(s: Option<&prost_types::Struct>) -> Json {
    s.map_or(json!({}), |s| structs::to_json(s).unwrap())
}

/// Numbers compared as the float64 every protobuf number is.
pub fn floats(j: &Json) -> Json {
    match j {
        Json::Number(n) => json!(n.as_f64().unwrap()),
        Json::Array(a) => Json::Array(a.iter().map(floats).collect()),
        Json::Object(m) => Json::Object(m.iter().map(|(k, v)| (k.clone(), floats(v))).collect()),
        other => other.clone(),
    }
}

/// The step's answer in the render contract's terms, for comparison with the engine's Output.
pub fn answer(rsp: &RunFunctionResponse) -> Json {
    use base64::Engine as _;
    let desired = rsp.desired.clone().unwrap_or_default();
    let composite = desired.composite.unwrap_or_default();
    let mut resources = serde_json::Map::new();
    for (name, r) in &desired.resources {
        resources.insert(
            name.clone(),
            json!({"resource": json_of(r.resource.as_ref()), "ready": r.ready == 1}),
        );
    }
    let details: serde_json::Map<String, Json> = composite
        .connection_details
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                json!(base64::engine::general_purpose::STANDARD.encode(v)),
            )
        })
        .collect();
    let results: Vec<Json> = rsp
        .results
        .iter()
        .map(|r| {
            let sev = ["", "Fatal", "Warning", "Normal"][usize::try_from(r.severity).unwrap()];
            json!({"severity": sev, "message": r.message})
        })
        .collect();
    let env = rsp
        .context
        .as_ref()
        .and_then(|c| c.fields.get(ENV_KEY))
        .and_then(|v| match &v.kind {
            Some(prost_types::value::Kind::StructValue(s)) => Some(structs::to_json(s).unwrap()),
            _ => None,
        });
    // The XR's readiness as the step states it: READY_TRUE 1, READY_FALSE 2, unspecified 0.
    let composite_ready = match composite.ready {
        1 => json!(true),
        2 => json!(false),
        _ => Json::Null,
    };
    floats(&json!({
        "composite": json_of(composite.resource.as_ref()),
        "compositeReady": composite_ready,
        "resources": resources,
        "connectionDetails": details,
        "results": results,
        "environment": env,
    }))
}

/// The engine's own Output for the same request, reduced to what a function answers.
pub fn expected(output: &Json) -> Json {
    let resources: serde_json::Map<String, Json> = output["resources"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, r)| {
            (
                k.clone(),
                json!({"resource": r["resource"], "ready": r["ready"]}),
            )
        })
        .collect();
    let results: Vec<Json> = output["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| {
            !r["message"]
                .as_str()
                .unwrap()
                .contains("was not run: only function-patch-and-transform")
        })
        .map(|r| json!({"severity": r["severity"], "message": r["message"]}))
        .collect();
    floats(&json!({
        "composite": output["composite"],
        "compositeReady": output.get("compositeReady").cloned().unwrap_or(Json::Null),
        "resources": resources,
        "connectionDetails": output["connectionDetails"],
        "results": results,
        "environment": output.get("environment").cloned().unwrap_or(Json::Null),
    }))
}

pub fn deep_merge(dst: &mut Json, src: &Json) {
    match (dst, src) {
        (Json::Object(d), Json::Object(s)) => {
            for (k, v) in s {
                match d.get_mut(k) {
                    Some(e) => deep_merge(e, v),
                    None => {
                        d.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (d, s) => *d = s.clone(),
    }
}

/// The function steps of a fixture as Crossplane would call them: (input, initial environment).
pub fn steps(request: &Json) -> Option<Vec<Json>> {
    let comp = &request["composition"];
    let spec = &comp["spec"];
    let pipeline = spec["mode"] == "Pipeline";
    let sem = request["options"]["semantics"].as_str();
    if sem == Some("native") || (!pipeline && sem != Some("function")) {
        return None;
    }
    if pipeline {
        let steps: Vec<Json> = spec["pipeline"]
            .as_array()?
            .iter()
            .filter(|s| {
                s["input"]["apiVersion"] == "pt.fn.crossplane.io/v1beta1"
                    && s["input"]["kind"] == "Resources"
            })
            .map(|s| s["input"].clone())
            .collect();
        return Some(steps);
    }
    let mut input = json!({
        "apiVersion": "pt.fn.crossplane.io/v1beta1",
        "kind": "Resources",
        "resources": spec["resources"],
    });
    if let Some(ps) = spec.get("patchSets") {
        input["patchSets"] = ps.clone();
    }
    if let Some(p) = spec["environment"].get("patches") {
        input["environment"] = json!({ "patches": p });
    }
    Some(vec![input])
}

/// A fixture's step answered by the server beside the engine's own answer for the request.
pub struct Compared {
    /// The engine's answer ends in a Fatal result: Crossplane applies nothing, so only the
    /// results count.
    pub fatal: bool,
    /// The server answered what the engine answers.
    pub same: bool,
    pub got: Json,
    pub want: Json,
}

/// A fixture as Crossplane calls function-patch-and-transform for it: the XR, the observed
/// resources, the context it starts with, each step's input, and the engine's own Output for
/// the same request.
pub struct FixtureSteps {
    pub xr: Json,
    pub observed: Json,
    pub env: Option<Json>,
    pub steps: Vec<Json>,
    pub output: Json,
}

/// The function-patch-and-transform steps of a fixture and the engine's Output (or error
/// document) for it; `None` for a fixture beyond one such function's view.
pub fn fixture_steps(render: &crate::common::fixtures::Render) -> Option<FixtureSteps> {
    let Ok(mut request) = serde_json::from_str::<Json>(&render.request) else {
        return None;
    };
    let steps = steps(&request)?;
    if steps.is_empty() || request.get("desired").is_some() {
        return None;
    }
    // Requests beyond one patch-and-transform function's view: a documents request, a
    // pipeline of other functions (environment configs, auto-ready), a starting context,
    // extra resources or an XRD schema are Crossplane's or other functions' parts.
    let other_steps = request["composition"]["spec"]["pipeline"]
        .as_array()
        .is_some_and(|p| {
            p.iter()
                .any(|s| s["input"]["apiVersion"] != "pt.fn.crossplane.io/v1beta1")
        });
    if other_steps
        || ["documents", "context", "extraResources", "xrdSchema"]
            .iter()
            .any(|k| request.get(*k).is_some())
    {
        return None;
    }
    if let Some(o) = request.get_mut("options").and_then(Json::as_object_mut) {
        o.remove("trace");
    }
    request["options"]["semantics"] = json!("function");
    request["options"]["output"] = json!("function");
    let output: Json = serde_json::from_str(&xprender::render_json(&request.to_string())).unwrap();
    let xr = request
        .get("xr")
        .cloned()
        .unwrap_or_else(|| request["observed"]["composite"].clone());
    let observed = request["observed"]["resources"].clone();
    let mut env = request["composition"]["spec"]["environment"]
        .get("defaultData")
        .cloned()
        .filter(|_| request["composition"]["spec"]["mode"] != "Pipeline");
    if let Some(e) = request["observed"]
        .get("environment")
        .filter(|e| e.is_object())
    {
        match &mut env {
            Some(d) => deep_merge(d, e),
            None => env = Some(e.clone()),
        }
    }
    Some(FixtureSteps {
        xr,
        observed,
        env,
        steps,
        output,
    })
}

/// Calls a fixture's function-patch-and-transform steps as Crossplane calls them (the desired
/// state and the context threaded from step to step) and compares the answer with the engine's
/// own Output for the same request. `None` for a fixture beyond one such function's view.
pub async fn compare_fixture(
    client: &mut V1Client<Channel>,
    render: &crate::common::fixtures::Render,
) -> Option<Compared> {
    let FixtureSteps {
        xr,
        observed,
        env,
        steps,
        output,
    } = fixture_steps(render)?;
    if output.get("error").is_some() {
        // Composition-level refusals (no steps, duplicate names) and input shapes: no
        // desired state to compare.
        return None;
    }
    // Crossplane threads the desired state and the context from step to step.
    let mut desired = State::default();
    let mut context = env.as_ref().map(|e| to_struct(&json!({ ENV_KEY: e })));
    let mut results = Vec::new();
    let mut last = None;
    for input in &steps {
        let mut req = fn_request(&xr, input, &observed, None);
        req.desired = Some(desired.clone());
        req.context.clone_from(&context);
        let rsp = client.run_function(req).await.unwrap().into_inner();
        results.extend(rsp.results.clone());
        let fatal = rsp.results.iter().any(|r| r.severity == 1);
        desired = rsp.desired.clone().unwrap_or_default();
        context.clone_from(&rsp.context);
        last = Some(rsp);
        if fatal {
            break;
        }
    }
    let mut rsp = last.unwrap();
    rsp.results = results;
    let got = answer(&rsp);
    let want = expected(&output);
    let fatal = want["results"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["severity"] == "Fatal");
    let same = if fatal {
        got["results"] == want["results"]
    } else {
        got == want
    };
    Some(Compared {
        fatal,
        same,
        got,
        want,
    })
}

/// Every fixture render under `tests/fixtures` (a case run under each semantics once per
/// semantics), sorted by case.
pub fn fixtures() -> Vec<crate::common::fixtures::Render> {
    crate::common::fixtures::renders(&crate::common::root().join("tests/fixtures"))
}

/// A small step: one template patched from the XR, one ready observed resource.
/// The small request whose step formats `formats` strings of 1.9 MB in turn: slow enough to be
/// in flight when a signal arrives.
pub fn slow_request(formats: usize) -> RunFunctionRequest {
    let patches: Vec<Json> = (0..formats)
        .map(|_| {
            json!({"type": "FromCompositeFieldPath", "fromFieldPath": "spec.region",
            "toFieldPath": "spec.x",
            "transforms": [{"type": "string", "string": {"type": "Format", "fmt": "%1900000s"}}]})
        })
        .collect();
    let mut slow = small_request();
    slow.input = Some(to_struct(
        &json!({"resources": [{"name": "bucket", "base": {"kind": "B"}, "patches": patches}]}),
    ));
    slow
}

pub fn small_request() -> RunFunctionRequest {
    let xr = json!({"apiVersion": "example.org/v1", "kind": "XDB", "metadata": {"name": "db"},
                    "spec": {"region": "eu-west-1", "size": 3}});
    let input = json!({"apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources",
        "resources": [{"name": "bucket",
            "base": {"apiVersion": "s3.example.org/v1", "kind": "Bucket"},
            "patches": [{"type": "FromCompositeFieldPath", "fromFieldPath": "spec.region",
                          "toFieldPath": "spec.forProvider.region",
                          "transforms": [{"type": "string", "string": {"type": "Convert", "convert": "ToUpper"}}]},
                        {"type": "FromCompositeFieldPath", "fromFieldPath": "spec.size",
                          "toFieldPath": "spec.forProvider.size"}]}]});
    let observed = json!({"bucket": {"resource": {"apiVersion": "s3.example.org/v1", "kind": "Bucket",
        "metadata": {"name": "db-x1"}, "status": {"conditions": [{"type": "Ready", "status": "True"}]}}}});
    fn_request(&xr, &input, &observed, Some(&json!({"tier": "gold"})))
}

pub fn check_small(rsp: &RunFunctionResponse) {
    let got = answer(rsp);
    assert_eq!(
        got["resources"]["bucket"],
        floats(
            &json!({"resource": {"apiVersion": "s3.example.org/v1", "kind": "Bucket",
            "metadata": {"name": "db-x1"}, "spec": {"forProvider": {"region": "EU-WEST-1", "size": 3}}},
            "ready": true})
        )
    );
    assert_eq!(
        got["composite"],
        json!({"apiVersion": "example.org/v1", "kind": "XDB"})
    );
    assert_eq!(got["environment"]["tier"], "gold");
    assert_eq!(rsp.meta.as_ref().unwrap().tag, "t");
    assert_eq!(rsp.meta.as_ref().unwrap().ttl.unwrap().seconds, 60);
}

pub struct Pki {
    /// `tls.crt`, `tls.key` and `ca.crt`, as Crossplane mounts them for a function.
    pub dir: tempfile::TempDir,
    pub client_cert: String,
    pub client_key: String,
    pub ca: String,
}

/// A CA, a server pair for localhost and a client pair, all signed by the CA.
pub fn pki() -> Pki {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca_params, ca_key);
    let leaf = |names: Vec<String>| {
        let key = KeyPair::generate().unwrap();
        let cert = CertificateParams::new(names)
            .unwrap()
            .signed_by(&key, &issuer)
            .unwrap();
        (cert.pem(), key.serialize_pem())
    };
    let (server_cert, server_key) = leaf(vec!["localhost".into()]);
    let (client_cert, client_key) = leaf(vec!["crossplane".into()]);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tls.crt"), server_cert).unwrap();
    std::fs::write(dir.path().join("tls.key"), server_key).unwrap();
    std::fs::write(dir.path().join("ca.crt"), ca_cert.pem()).unwrap();
    Pki {
        dir,
        client_cert,
        client_key,
        ca: ca_cert.pem(),
    }
}

pub async fn tls_channel(
    server: &Server,
    pki: &Pki,
    with_cert: bool,
) -> Result<Channel, tonic::transport::Error> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut tls = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(&pki.ca))
        .domain_name("localhost");
    if with_cert {
        tls = tls.identity(Identity::from_pem(&pki.client_cert, &pki.client_key));
    }
    Channel::from_shared(format!("https://{}", server.address))
        .unwrap()
        .tls_config(tls)?
        .connect()
        .await
}

/// The standard health service answers SERVING for the server and the function service.
pub async fn assert_serving(channel: Channel) {
    let mut health = tonic_health::pb::health_client::HealthClient::new(channel);
    for service in ["", "apiextensions.fn.proto.v1.FunctionRunnerService"] {
        let status = health
            .check(tonic_health::pb::HealthCheckRequest {
                service: service.into(),
            })
            .await
            .unwrap()
            .into_inner()
            .status;
        assert_eq!(
            status,
            tonic_health::pb::health_check_response::ServingStatus::Serving as i32,
            "health of {service:?}"
        );
    }
}

/// A client without a certificate signed by the CA, or a plain-text one, is refused: the
/// handshake or the first call fails.
pub async fn assert_refuses_uncertified_clients(server: &Server, pki: &Pki) {
    let refused = match tls_channel(server, pki, false).await {
        Err(_) => true,
        Ok(channel) => V1Client::new(channel)
            .run_function(small_request())
            .await
            .is_err(),
    };
    assert!(refused, "a client without a certificate was served");
    // A plain-text client is refused too.
    let plain = Channel::from_shared(format!("http://{}", server.address))
        .unwrap()
        .connect()
        .await;
    if let Ok(channel) = plain {
        assert!(
            V1Client::new(channel)
                .run_function(small_request())
                .await
                .is_err()
        );
    }
}
