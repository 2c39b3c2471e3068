//! `xprender function serve` over loopback gRPC: plain and mutual TLS, every function-semantics
//! fixture against the file-based render, hostile requests, graceful shutdown.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;

use std::collections::HashMap;
use std::io::{BufRead as _, BufReader};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

use serde_json::{Value as Json, json};
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Identity};

#[allow(unreachable_pub, clippy::all, clippy::pedantic)]
mod proto {
    pub mod v1 {
        include!(concat!(
            env!("OUT_DIR"),
            "/client/apiextensions.r#fn.proto.v1.rs"
        ));
    }
    pub mod v1beta1 {
        include!(concat!(
            env!("OUT_DIR"),
            "/client/apiextensions.r#fn.proto.v1beta1.rs"
        ));
    }
    use super::codec;
}

// The generated client decodes through it too; its unit tests compile here as well.
#[allow(dead_code, unreachable_pub, unused_imports)]
#[path = "../src/function/codec.rs"]
mod codec;

// Its unit tests compile here too, without a harness to run them.
#[allow(dead_code, unreachable_pub, unused_imports)]
#[path = "../src/function/structs.rs"]
mod structs;

use proto::v1::function_runner_service_client::FunctionRunnerServiceClient as V1Client;
use proto::v1::{RequestMeta, Resource, RunFunctionRequest, RunFunctionResponse, State};
use proto::v1beta1::function_runner_service_client::FunctionRunnerServiceClient as V1beta1Client;

const ENV_KEY: &str = "apiextensions.crossplane.io/environment";

/// A served `xprender function serve`, killed on drop.
struct Server {
    child: Child,
    address: String,
}

impl Server {
    fn start(args: &[&str]) -> Server {
        let mut child = common::xprender()
            .args(["function", "serve", "--address", "127.0.0.1:0"])
            .args(args)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
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

    async fn channel(&self) -> Channel {
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

fn to_struct(j: &Json) -> prost_types::Struct {
    structs::from_json(j)
}

fn resource(j: &Json) -> Resource {
    Resource {
        resource: Some(to_struct(j)),
        ..Resource::default()
    }
}

/// A request for one function-patch-and-transform step.
fn fn_request(xr: &Json, input: &Json, observed: &Json, env: Option<&Json>) -> RunFunctionRequest {
    let mut resources = HashMap::new();
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

fn json_of(s: Option<&prost_types::Struct>) -> Json {
    s.map_or(json!({}), |s| structs::to_json(s).unwrap())
}

/// Numbers compared as the float64 every protobuf number is.
fn floats(j: &Json) -> Json {
    match j {
        Json::Number(n) => json!(n.as_f64().unwrap()),
        Json::Array(a) => Json::Array(a.iter().map(floats).collect()),
        Json::Object(m) => Json::Object(m.iter().map(|(k, v)| (k.clone(), floats(v))).collect()),
        other => other.clone(),
    }
}

/// The step's answer in the render contract's terms, for comparison with the engine's Output.
fn answer(rsp: &RunFunctionResponse) -> Json {
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
fn expected(output: &Json) -> Json {
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

fn deep_merge(dst: &mut Json, src: &Json) {
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
fn steps(request: &Json) -> Option<Vec<Json>> {
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

#[tokio::test(flavor = "multi_thread")]
async fn every_function_fixture_through_the_server_equals_the_file_render() {
    let server = Server::start(&["--insecure"]);
    let mut client = V1Client::new(server.channel().await);
    let fixtures = common::root().join("tests/fixtures");
    let (mut compared, mut fatal_compared, mut failures) = (0, 0, Vec::new());
    let mut dirs: Vec<_> = walk(&fixtures);
    dirs.sort();
    for dir in dirs {
        let text = std::fs::read_to_string(dir.join("request.json")).unwrap();
        let Ok(mut request) = serde_json::from_str::<Json>(&text) else {
            continue;
        };
        let Some(steps) = steps(&request) else {
            continue;
        };
        if steps.is_empty() || request.get("desired").is_some() {
            continue;
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
            continue;
        }
        if let Some(o) = request.get_mut("options").and_then(Json::as_object_mut) {
            o.remove("trace");
        }
        request["options"]["semantics"] = json!("function");
        request["options"]["output"] = json!("function");
        let output: Json =
            serde_json::from_str(&xprender::render_json(&request.to_string())).unwrap();
        if output.get("error").is_some() {
            // Composition-level refusals (no steps, duplicate names) and input shapes: no
            // desired state to compare.
            continue;
        }
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
        // A Fatal result stops the pipeline: Crossplane applies nothing, so only the results count.
        let same = if fatal {
            fatal_compared += 1;
            got["results"] == want["results"]
        } else {
            compared += 1;
            got == want
        };
        if !same {
            let name = dir.strip_prefix(&fixtures).unwrap().display().to_string();
            eprintln!("--- {name}\n--- file render\n{want:#}\n--- server\n{got:#}");
            failures.push(name);
        }
    }
    eprintln!("compared {compared} fixtures, {fatal_compared} ending in a Fatal result");
    assert!(compared >= 50, "only {compared} function fixtures compared");
    assert!(
        failures.is_empty(),
        "{} differ: {failures:?}",
        failures.len()
    );
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.join("request.json").is_file() {
            out.push(p);
        } else if p.is_dir() {
            out.extend(walk(&p));
        }
    }
    out
}

/// A small step: one template patched from the XR, one ready observed resource.
fn small_request() -> RunFunctionRequest {
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

fn check_small(rsp: &RunFunctionResponse) {
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

#[tokio::test(flavor = "multi_thread")]
async fn plain_grpc_serves_v1_v1beta1_and_health() {
    let server = Server::start(&["--insecure"]);
    let channel = server.channel().await;
    let rsp = V1Client::new(channel.clone())
        .run_function(small_request())
        .await
        .unwrap()
        .into_inner();
    check_small(&rsp);
    let rsp = V1beta1Client::new(channel.clone())
        .run_function(small_request())
        .await
        .unwrap()
        .into_inner();
    check_small(&rsp);
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

#[tokio::test(flavor = "multi_thread")]
async fn invalid_input_is_a_fatal_result_in_fpt_words() {
    let server = Server::start(&["--insecure"]);
    let mut client = V1Client::new(server.channel().await);
    let mut req = small_request();
    req.input = Some(to_struct(
        &json!({"resources": [{"name": "a", "base": {"kind": "B"},
        "patches": [{"type": "FromCompositeFieldPath"}]}]}),
    ));
    let rsp = client.run_function(req).await.unwrap().into_inner();
    let fatal = rsp
        .results
        .iter()
        .find(|r| r.severity == 1)
        .expect("a Fatal result");
    assert!(
        fatal
            .message
            .starts_with("invalid Function input: resources[0].patches[0]"),
        "{}",
        fatal.message
    );
    // A Fatal result returns the desired state the step was given.
    assert_eq!(rsp.desired, Some(State::default()));
}

#[tokio::test(flavor = "multi_thread")]
async fn negative_zero_and_a_held_back_resource_cross_the_wire_as_go_has_them() {
    let server = Server::start(&["--insecure"]);
    let mut client = V1Client::new(server.channel().await);
    // A Struct number -0 (as Crossplane sends a float64 -0) is formatted as Go formats it.
    let xr = json!({"apiVersion": "example.org/v1", "kind": "XDB", "metadata": {"name": "db"},
                    "spec": {"offset": -0.0}});
    let input = json!({"apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources",
        "resources": [
            {"name": "config", "base": {"apiVersion": "v1", "kind": "ConfigMap"},
             "patches": [{"type": "FromCompositeFieldPath", "fromFieldPath": "spec.offset",
                          "toFieldPath": "data.offset",
                          "transforms": [{"type": "string", "string": {"type": "Format", "fmt": "%v"}}]},
                         {"type": "FromCompositeFieldPath", "fromFieldPath": "spec.offset",
                          "toFieldPath": "data.fixed",
                          "transforms": [{"type": "string", "string": {"type": "Format", "fmt": "%f"}}]}]},
            {"name": "held", "base": {"apiVersion": "v1", "kind": "ConfigMap"},
             "patches": [{"type": "FromCompositeFieldPath", "fromFieldPath": "status.missing",
                          "toFieldPath": "data.x", "policy": {"fromFieldPath": "Required"}}]}]});
    let req = fn_request(&xr, &input, &json!({}), None);
    let rsp = client.run_function(req).await.unwrap().into_inner();
    let got = answer(&rsp);
    let data = &got["resources"]["config"]["resource"]["data"];
    assert_eq!(data["offset"], "-0");
    assert_eq!(data["fixed"], "-0.000000");
    // function-patch-and-transform marks the XR unready when it held a resource back.
    assert_eq!(
        rsp.desired.unwrap().composite.unwrap().ready,
        2,
        "READY_FALSE"
    );
    assert!(got["resources"].get("held").is_none());
}

struct Pki {
    dir: tempfile::TempDir,
    client_cert: String,
    client_key: String,
    ca: String,
}

/// A CA, a server pair for localhost and a client pair, all signed by the CA.
fn pki() -> Pki {
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

async fn tls_channel(
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

#[tokio::test(flavor = "multi_thread")]
async fn mutual_tls_serves_clients_with_a_certificate_and_refuses_others() {
    let pki = pki();
    let dir = pki.dir.path().to_str().unwrap().to_owned();
    let server = Server::start(&["--tls-certs-dir", &dir]);
    let channel = tls_channel(&server, &pki, true).await.unwrap();
    let rsp = V1Client::new(channel)
        .run_function(small_request())
        .await
        .unwrap()
        .into_inner();
    check_small(&rsp);

    // Without a client certificate the handshake or the first call fails.
    let refused = match tls_channel(&server, &pki, false).await {
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

#[test]
fn tls_is_required_unless_insecure() {
    let (code, _, stderr) = common::run(
        common::xprender()
            .args(["function", "serve", "--address", "127.0.0.1:0"])
            .env_remove("TLS_SERVER_CERTS_DIR"),
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("--tls-certs-dir (or TLS_SERVER_CERTS_DIR) is required unless --insecure"),
        "{stderr}"
    );
}

/// More callers than renders at once: every one is answered, by instances that reuse the
/// pool's memory slots (as many as `--parallel`, plus one).
#[tokio::test(flavor = "multi_thread")]
async fn more_callers_than_instances_are_all_answered() {
    let server = Server::start(&["--insecure", "--parallel", "2"]);
    let channel = server.channel().await;
    let mut calls = Vec::new();
    for _ in 0..24 {
        let mut client = V1Client::new(channel.clone());
        calls.push(tokio::spawn(async move {
            client.run_function(small_request()).await
        }));
    }
    for call in calls {
        let rsp = call.await.unwrap().unwrap().into_inner();
        check_small(&rsp);
    }
}

#[test]
fn parallel_is_bounded() {
    for bad in ["0", "1025"] {
        let (code, _, stderr) = common::run(common::xprender().args([
            "function",
            "serve",
            "--insecure",
            "--address",
            "127.0.0.1:0",
            "--parallel",
            bad,
        ]));
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.contains(&format!("invalid value '{bad}' for '--parallel <N>'")),
            "{stderr}"
        );
    }
}

/// Each hostile request gets a Fatal result or a gRPC error, and the server answers the next.
#[tokio::test(flavor = "multi_thread")]
async fn hostile_requests_fail_alone() {
    let server = Server::start(&[
        "--insecure",
        "--max-memory",
        "64MiB",
        "--timeout",
        "1s",
        "--max-recv-message-size",
        "64",
    ]);
    let mut client = V1Client::new(server.channel().await);
    let mut hostile = Vec::new();

    // A fmt width bomb: one format padding past the engine's own output limit...
    let mut req = small_request();
    req.input = Some(to_struct(
        &json!({"resources": [{"name": "bucket", "base": {"kind": "B"},
        "patches": [{"type": "CombineFromComposite", "toFieldPath": "spec.x",
            "combine": {"strategy": "string", "variables": vec![json!({"fromFieldPath": "spec.region"}); 200],
                "string": {"fmt": "%900000s".repeat(200)}}}]}]}),
    ));
    hostile.push(("fmt width bomb", req));
    // ...and a hundred just under it, which together outgrow the sandbox's memory.
    let patches: Vec<Json> = (0..100)
        .map(|i| {
            json!({"type": "FromCompositeFieldPath", "fromFieldPath": "spec.region",
            "toFieldPath": format!("spec.x{i}"),
            "transforms": [{"type": "string", "string": {"type": "Format", "fmt": "%1900000s"}}]})
        })
        .collect();
    let mut req = small_request();
    req.input = Some(to_struct(
        &json!({"resources": [{"name": "bucket", "base": {"kind": "B"}, "patches": patches}]}),
    ));
    hostile.push(("memory bomb", req));

    // Nesting past Go's limit: `requests_nest_as_deep_as_go_reads_them`.

    // 100k composed resources, observed and templated.
    let templates: Vec<Json> = (0..100_000)
        .map(|i| json!({"name": format!("r{i}"), "base": {"kind": "B"}}))
        .collect();
    let mut req = small_request();
    req.input = Some(to_struct(&json!({"resources": templates})));
    hostile.push(("100k resources", req));
    // One more than the engine takes: refused before the request enters the sandbox.
    let templates: Vec<Json> = (0..100_001).map(|_| json!({})).collect();
    let mut req = small_request();
    req.input = Some(to_struct(&json!({"resources": templates})));
    hostile.push(("over the entry limit", req));

    // Not the input's shape at all.
    let mut req = small_request();
    req.input = Some(to_struct(&json!({"resources": "none", "patchSets": 7})));
    hostile.push(("invalid input", req));

    for (what, req) in hostile {
        match client.run_function(req).await {
            Err(status) => eprintln!("{what}: gRPC error {status}"),
            Ok(rsp) => {
                let rsp = rsp.into_inner();
                let fatal = rsp.results.iter().find(|r| r.severity == 1);
                let ok_but_big = what == "100k resources"
                    && rsp
                        .desired
                        .as_ref()
                        .is_some_and(|d| d.resources.len() == 100_000);
                assert!(
                    fatal.is_some() || ok_but_big,
                    "{what}: neither Fatal nor an error"
                );
                if let Some(f) = fatal {
                    eprintln!("{what}: Fatal {}", &f.message[..f.message.len().min(200)]);
                    if what == "fmt width bomb" {
                        assert!(
                            f.message.contains("output exceeds the limit"),
                            "{}",
                            f.message
                        );
                    }
                    if what == "over the entry limit" {
                        // The engine's limit error, in the function's words.
                        assert_eq!(f.message, "input: more than 100000 entries");
                    }
                    if what == "memory bomb" {
                        assert!(
                            f.message.starts_with(
                                "the engine ran out of memory: it needed more than 64 MiB"
                            ),
                            "{}",
                            f.message
                        );
                    }
                }
            }
        }
        let rsp = client
            .run_function(small_request())
            .await
            .unwrap()
            .into_inner();
        check_small(&rsp);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_lets_the_request_in_flight_finish() {
    let mut server = Server::start(&[
        "--insecure",
        "--timeout",
        "2s",
        "--max-recv-message-size",
        "64",
    ]);
    let mut client = V1Client::new(server.channel().await);
    check_small(
        &client
            .run_function(small_request())
            .await
            .unwrap()
            .into_inner(),
    );
    // A small request that keeps the engine busy: thousands of 1.9 MB formats.
    let patches: Vec<Json> = (0..3000)
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
    let in_flight = tokio::spawn(async move { client.run_function(slow).await });
    tokio::time::sleep(Duration::from_millis(500)).await;
    let status = std::process::Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    // Answered, not cut off: a Fatal result for the time limit, or the desired state.
    let rsp = in_flight
        .await
        .unwrap()
        .expect("the request in flight is answered")
        .into_inner();
    let timed_out = rsp
        .results
        .iter()
        .any(|r| r.message.starts_with("the render timed out after 2s"));
    let rendered = rsp
        .desired
        .is_some_and(|d| d.resources.contains_key("bucket"));
    assert!(timed_out || rendered, "{:?}", rsp.results);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(code) = server.child.try_wait().unwrap() {
            assert!(code.success(), "exit status {code}");
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "still running 10s after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Go's protobuf reads 10,000 levels of nesting, and so the server does: an XR nested 300
/// objects deep (900 levels of `Struct`) renders, where prost's own limit of 100 levels stopped
/// at 31 objects. Past 10,000 levels a request is refused before it is decoded.
#[test]
fn requests_nest_as_deep_as_go_reads_them() {
    // Building, encoding and dropping such requests recurses per level: this side runs on a
    // thread with the stack for it, as the server's threads do.
    let run = || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let server = Server::start(&["--insecure"]);
            let mut client = V1Client::new(server.channel().await);
            let nested = |depth: usize| {
                let mut deep = json!("leaf");
                for _ in 0..depth {
                    deep = json!({ "a": deep });
                }
                let mut req = small_request();
                let xr = json!({"apiVersion": "example.org/v1", "kind": "XDB",
                    "metadata": {"name": "db"},
                    "spec": {"region": "eu-west-1", "size": 3, "deep": deep}});
                req.observed.as_mut().unwrap().composite = Some(resource(&xr));
                req
            };
            for depth in [31, 300] {
                let rsp = client.run_function(nested(depth)).await;
                check_small(
                    &rsp.unwrap_or_else(|e| panic!("depth {depth}: {e}"))
                        .into_inner(),
                );
            }
            // Decoded whole, deeper than the engine reads: a Fatal result, not a crash.
            let rsp = client
                .run_function(nested(3300))
                .await
                .unwrap()
                .into_inner();
            assert_eq!(rsp.results.len(), 1, "{:?}", rsp.results);
            assert_eq!(rsp.results[0].severity, 1);
            assert!(
                rsp.results[0].message.contains(
                    "JSON nested more than 1000 levels deep is beyond the engine's limit"
                ),
                "{:?}",
                rsp.results
            );
            let refused = client.run_function(nested(3400)).await.unwrap_err();
            assert_eq!(refused.code(), tonic::Code::Internal);
            assert_eq!(
                refused.message(),
                "failed to decode Protobuf message: nested more than 10000 levels deep"
            );
            // The server goes on serving.
            check_small(
                &client
                    .run_function(small_request())
                    .await
                    .unwrap()
                    .into_inner(),
            );
        });
    };
    std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(run)
        .unwrap()
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e));
}
