//! `xprender function serve` over loopback gRPC: plain and mutual TLS, every function-semantics
//! fixture against the file-based render, hostile requests, graceful shutdown.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;

#[path = "common/function.rs"]
mod function;

use std::time::Duration;

use function::{
    Server, State, V1Client, V1beta1Client, answer, check_small, fn_request, pki, resource,
    small_request, tls_channel, to_struct,
};
use serde_json::{Value as Json, json};

#[tokio::test(flavor = "multi_thread")]
async fn every_function_fixture_through_the_server_equals_the_file_render() {
    let server = Server::start(&["--insecure"]);
    let mut client = V1Client::new(server.channel().await);
    let (mut compared, mut fatal_compared, mut failures) = (0, 0, Vec::new());
    for render in function::fixtures() {
        let Some(c) = function::compare_fixture(&mut client, &render).await else {
            continue;
        };
        if c.fatal {
            fatal_compared += 1;
        } else {
            compared += 1;
        }
        if !c.same {
            let name = render.name;
            let (want, got) = (&c.want, &c.got);
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
    function::assert_serving(channel).await;
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

    function::assert_refuses_uncertified_clients(&server, &pki).await;
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
    let slow = function::slow_request(3000);
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
