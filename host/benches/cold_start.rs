//! Cold start of the `xprender` binary: from exec to a first answer, with an empty module cache,
//! the bundled engine precompiled (as shipped) and compiled at run time
//! (`XPRENDER_PRECOMPILED=off`, the behaviour of a binary without the artifact), in the same run:
//! - `render`: the README's main command (the bundled example), exec to exit;
//! - `function serve`: exec to the first RunFunction answer, the client retrying its connection
//!   every millisecond from the moment of exec, as Crossplane retries a function pod.
//!
//! Not a timed test: the figures go to docs/benchmarks.md. Run with
//! `cargo bench -p xprender-host --bench cold_start [-- RUNS]` (default 10 runs of each);
//! `XPRENDER_BIN=path` measures another build (e.g. the static one of scripts/build-static.sh).
#![allow(clippy::unwrap_used, clippy::print_stdout, clippy::cast_precision_loss)]

#[allow(dead_code)]
mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use common::proto::v1::function_runner_service_client::FunctionRunnerServiceClient;
use common::proto::v1::{Resource, RunFunctionRequest, State};

/// One P&T step: a template patched from the XR.
fn small_request() -> RunFunctionRequest {
    let xr = json!({"apiVersion": "example.org/v1", "kind": "XDB", "metadata": {"name": "db"},
                    "spec": {"region": "eu-west-1"}});
    let input = json!({"apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources",
        "resources": [{"name": "bucket",
            "base": {"apiVersion": "s3.example.org/v1", "kind": "Bucket"},
            "patches": [{"type": "FromCompositeFieldPath", "fromFieldPath": "spec.region",
                          "toFieldPath": "spec.forProvider.region"}]}]});
    RunFunctionRequest {
        observed: Some(State {
            composite: Some(Resource {
                resource: Some(common::structs::from_json(&xr)),
                ..Resource::default()
            }),
            ..State::default()
        }),
        input: Some(common::structs::from_json(&input)),
        ..RunFunctionRequest::default()
    }
}

/// The answer renders the bucket.
fn check_small(rsp: &common::proto::v1::RunFunctionResponse) {
    let desired = rsp.desired.as_ref().expect("a desired state");
    assert!(
        desired.resources.contains_key("bucket"),
        "no bucket in {rsp:?}"
    );
}

fn bin() -> PathBuf {
    std::env::var_os("XPRENDER_BIN")
        .map_or_else(|| env!("CARGO_BIN_EXE_xprender").into(), PathBuf::from)
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A command with a module cache directory that does not exist yet.
fn cold(args: &[&str], precompiled: bool, cache: &Path) -> Command {
    let mut cmd = Command::new(bin());
    cmd.args(args)
        .current_dir(root())
        .env("XPRENDER_CACHE_DIR", cache)
        .env_remove("XPRENDER_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if !precompiled {
        cmd.env("XPRENDER_PRECOMPILED", "off");
    }
    cmd
}

fn render_once(precompiled: bool, cache: &Path) -> Duration {
    let example = "examples/platform-db";
    let xr = format!("{example}/xr.yaml");
    let composition = format!("{example}/composition.yaml");
    let observed = format!("{example}/observed.yaml");
    let args = [
        "render",
        &xr,
        &composition,
        "--observed-resources",
        &observed,
    ];
    let started = Instant::now();
    let status = cold(&args, precompiled, cache).status().unwrap();
    let took = started.elapsed();
    assert!(status.success(), "render failed: {status}");
    took
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn serve_once(rt: &tokio::runtime::Runtime, precompiled: bool, cache: &Path) -> Duration {
    let address = format!("127.0.0.1:{}", free_port());
    let args = ["function", "serve", "--insecure", "--address", &address];
    let started = Instant::now();
    let mut child = cold(&args, precompiled, cache).spawn().unwrap();
    let url = format!("http://{address}");
    let answered = rt.block_on(async {
        loop {
            if let Ok(mut client) = FunctionRunnerServiceClient::connect(url.clone()).await
                && let Ok(rsp) = client.run_function(small_request()).await
            {
                return rsp.into_inner();
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "no answer in 60 s"
            );
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    });
    let took = started.elapsed();
    check_small(&answered);
    let _ = child.kill();
    let _ = child.wait();
    took
}

fn report(name: &str, mut runs: Vec<Duration>) {
    runs.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{name:<44} min {:>7.1} ms  median {:>7.1} ms  max {:>7.1} ms  ({} runs)",
        ms(runs[0]),
        ms(runs[runs.len() / 2]),
        ms(runs[runs.len() - 1]),
        runs.len()
    );
}

fn main() {
    let runs: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(10);
    let scratch = std::env::temp_dir().join(format!("xprender-cold-{}", std::process::id()));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    println!("binary: {}", bin().display());
    for precompiled in [true, false] {
        let how = if precompiled {
            "precompiled"
        } else {
            "compiled at start"
        };
        let mut render = Vec::new();
        let mut serve = Vec::new();
        for i in 0..runs {
            // A directory that does not exist: the cache is empty.
            render.push(render_once(precompiled, &scratch.join(format!("r{i}"))));
            serve.push(serve_once(&rt, precompiled, &scratch.join(format!("s{i}"))));
            let _ = std::fs::remove_dir_all(&scratch);
        }
        report(&format!("render, empty cache, {how}"), render);
        report(&format!("function serve, first answer, {how}"), serve);
    }
    let warm = scratch.join("warm");
    render_once(false, &warm);
    let warm_runs = (0..runs).map(|_| render_once(false, &warm)).collect();
    report("render, warm module cache", warm_runs);
    let _ = std::fs::remove_dir_all(&scratch);
}
