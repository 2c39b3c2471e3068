//! Composition impact analysis against a real kube-apiserver: N XBuckets (10, 100, 1,000), each
//! with its two composed resources (a Bucket and an AccessKey), all using one Composition; then
//! `xprender diff --composition` with a changed copy of it (every Bucket's ACL changes), timed
//! wall-clock, with the API requests it made counted from the server's
//! `apiserver_request_total`. Not a timed test: the figures go to docs/benchmarks.md.
//!
//! Needs `XPRENDER_KUBE_APISERVER`, etcd and openssl, as the live cluster tests do;
//! scripts/bench-impact.sh provides them and builds the release binary (`XPRENDER_BIN`).
//! `XPRENDER_BENCH_SIZES=10,100` picks the sizes, `XPRENDER_BENCH_RUNS` the runs per size
//! (default 3; the median is reported).
#![allow(clippy::unwrap_used, clippy::print_stdout, clippy::cast_precision_loss)]

// The live cluster tests' servers and tools (`apiserver` reaches `super::tools`).
#[path = "../tests/live/apiserver.rs"]
#[allow(dead_code)]
mod apiserver;
#[path = "../tests/live/tools.rs"]
mod tools;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use kube::api::{Api, DynamicObject, Patch, PatchParams};
use serde_json::{Value, json};
use tokio::task::JoinSet;

use apiserver::{Servers, served_kind as api};
use tools::xprender_bin;

const COMPOSITION: &str = "xbuckets-default";

fn data(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/cluster")
        .join(name);
    let text = std::fs::read_to_string(path).unwrap();
    Value::Array(
        serde_saphyr::from_multiple::<Value>(&text)
            .unwrap()
            .into_iter()
            .filter(|d| !d.is_null())
            .collect(),
    )
}

async fn apply(client: kube::Client, doc: Value) {
    let s = |p: &str| {
        doc.pointer(p)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let (ar, namespaced) = api(&client, &s("/apiVersion"), &s("/kind")).await;
    let api: Api<DynamicObject> = if namespaced {
        Api::namespaced_with(client, &s("/metadata/namespace"), &ar)
    } else {
        Api::all_with(client, &ar)
    };
    let pp = PatchParams::apply("bench").force();
    api.patch(&s("/metadata/name"), &pp, &Patch::Apply(&doc))
        .await
        .unwrap_or_else(|e| panic!("cannot apply {}: {e}", s("/metadata/name")));
}

/// Applies documents 16 at a time.
async fn apply_all(client: &kube::Client, docs: Vec<Value>) {
    let mut set = JoinSet::new();
    for doc in docs {
        if set.len() >= 16 {
            set.join_next().await.unwrap().unwrap();
        }
        set.spawn(apply(client.clone(), doc));
    }
    while let Some(r) = set.join_next().await {
        r.unwrap();
    }
}

/// XBucket `bench-i` as Crossplane leaves it composed: its Bucket and AccessKey, labelled,
/// annotated and referenced, as the Composition renders them.
fn composite(i: usize) -> Vec<Value> {
    let name = format!("bench-{i}");
    let composed = |kind: &str, template: &str, spec: Value| {
        json!({
            "apiVersion": "storage.example.org/v1",
            "kind": kind,
            "metadata": {
                "name": format!("{name}-{}", template.to_lowercase()),
                "labels": {"crossplane.io/composite": name, "crossplane.io/claim-name": "", "crossplane.io/claim-namespace": ""},
                "annotations": {"crossplane.io/composition-resource-name": template},
            },
            "spec": spec,
        })
    };
    let bucket = composed(
        "Bucket",
        "bucket",
        json!({
            "forProvider": {"acl": "private", "region": "eu-west-1", "sizeGiB": 10},
            "writeConnectionSecretToRef": {"name": format!("{name}-bucket"), "namespace": "crossplane-system"},
        }),
    );
    let key = composed(
        "AccessKey",
        "accessKey",
        json!({"forProvider": {"permissions": "read", "bucketName": name}}),
    );
    let refs: Vec<Value> = [&bucket, &key]
        .iter()
        .map(|c| json!({"apiVersion": c["apiVersion"], "kind": c["kind"], "name": c["metadata"]["name"]}))
        .collect();
    let xr = json!({
        "apiVersion": "example.org/v1alpha1",
        "kind": "XBucket",
        "metadata": {"name": name, "labels": {"crossplane.io/composite": name}},
        "spec": {
            "region": "eu-west-1", "size": 10,
            "compositionRef": {"name": COMPOSITION},
            "compositionUpdatePolicy": "Automatic",
            "resourceRefs": refs,
        },
    });
    vec![xr, bucket, key]
}

/// `apiserver_request_total` summed by verb and resource.
async fn requests(http: &reqwest::Client, server: &str) -> BTreeMap<String, f64> {
    let text = http
        .get(format!("{server}/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let mut out = BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| l.starts_with("apiserver_request_total{"))
    {
        let (labels, value) = line.rsplit_once(' ').unwrap();
        let label = |k: &str| {
            labels
                .split(&format!("{k}=\""))
                .nth(1)
                .and_then(|r| r.split('"').next())
                .unwrap_or("")
                .to_string()
        };
        let key = format!("{} {}", label("verb"), label("resource"));
        *out.entry(key).or_default() += value.parse::<f64>().unwrap();
    }
    out
}

fn metrics_client(servers: &Servers) -> (reqwest::Client, String) {
    let kubeconfig = std::fs::read_to_string(&servers.kubeconfig).unwrap();
    let server = kubeconfig
        .split("server: \"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap()
        .to_string();
    let ca = std::fs::read(servers.dir.join("certs/apiserver.crt")).unwrap();
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        reqwest::header::AUTHORIZATION,
        "Bearer admin-token".parse().unwrap(),
    );
    let http = reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_pem(&ca).unwrap())
        .default_headers(headers)
        .build()
        .unwrap();
    (http, server)
}

/// Waits for `/readyz`: the server's own start-up requests (RBAC bootstrap) are over.
async fn ready(http: &reqwest::Client, server: &str) {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let ok = http.get(format!("{server}/readyz")).send().await;
        if ok.is_ok_and(|r| r.status().is_success()) {
            return;
        }
        assert!(Instant::now() < deadline, "kube-apiserver never ready");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// One run: wall time, exit code and the requests the server counted meanwhile.
async fn run_once(
    servers: &Servers,
    http: &reqwest::Client,
    server: &str,
    composition: &Path,
    extra: &[&str],
) -> (Duration, i32, BTreeMap<String, f64>, String) {
    let before = requests(http, server).await;
    let start = Instant::now();
    let out = Command::new(xprender_bin())
        .args(["diff", "--composition"])
        .arg(composition)
        .arg("--kubeconfig")
        .arg(&servers.kubeconfig)
        .args(["-o", "json"])
        .args(extra)
        .output()
        .unwrap();
    let wall = start.elapsed();
    let after = requests(http, server).await;
    let mut delta = BTreeMap::new();
    for (k, v) in after {
        let mut d = v - before.get(&k).copied().unwrap_or(0.0);
        // The first scrape is counted once it is answered: one GET without a resource.
        if k == "GET " {
            d -= 1.0;
        }
        if d > 0.0 {
            delta.insert(k, d);
        }
    }
    let summary = serde_json::from_slice::<Value>(&out.stdout)
        .ok()
        .and_then(|v| v.get("summary").cloned())
        .map_or_else(
            || {
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .take(3)
                    .collect::<Vec<_>>()
                    .join(" | ")
            },
            |s| s.to_string(),
        );
    (wall, out.status.code().unwrap_or(-1), delta, summary)
}

fn sizes() -> Vec<usize> {
    std::env::var("XPRENDER_BENCH_SIZES").ok().map_or_else(
        || vec![10, 100, 1000],
        |s| s.split(',').map(|n| n.trim().parse().unwrap()).collect(),
    )
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let runs: usize = std::env::var("XPRENDER_BENCH_RUNS")
        .ok()
        .map_or(3, |r| r.parse().unwrap());
    let servers = Servers::start(&[]);
    let client = servers.client().await;
    let _ = api(&client, "v1", "Namespace").await;
    let setup = |v: Value| v.as_array().unwrap().clone();
    apply_all(&client, setup(data("crds.yaml"))).await;
    let mut base = setup(data("xrd.yaml"));
    base.extend(setup(data("composition.yaml")));
    base.push(
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "crossplane-system"}}),
    );
    for doc in base {
        apply(client.clone(), doc).await;
    }
    // The changed Composition: every Bucket's ACL.
    let mut changed = setup(data("composition.yaml")).remove(0);
    changed["spec"]["resources"][0]["base"]["spec"]["forProvider"]["acl"] = "public-read".into();
    let file = servers.dir.join("changed-composition.json");
    std::fs::write(&file, serde_json::to_vec_pretty(&changed).unwrap()).unwrap();

    let (http, server) = metrics_client(&servers);
    ready(&http, &server).await;
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "xprender diff --composition against kube-apiserver; {runs} runs per size; load average at start: {}",
        load.trim()
    );
    let mut created = 0;
    for n in sizes() {
        let docs: Vec<Value> = (created..n).flat_map(composite).collect();
        apply_all(&client, docs).await;
        created = n;
        // As the server would store them (dry runs), and as predicted from the CRDs alone.
        for (mode, extra) in [
            ("dry-run", &[][..]),
            ("--no-dry-run", &["--no-dry-run"][..]),
        ] {
            let mut walls = Vec::new();
            for _ in 0..runs {
                let (wall, code, delta, summary) =
                    run_once(&servers, &http, &server, &file, extra).await;
                walls.push(wall);
                let total = delta.values().fold(0.0, |a, b| a + b);
                println!(
                    "{n:>5} XRs, {mode}: {:>7.0} ms, exit {code}, {total} API requests {delta:?}",
                    wall.as_secs_f64() * 1000.0
                );
                println!("        summary: {summary}");
            }
            walls.sort();
            println!(
                "{n:>5} XRs, {mode}: median {:.0} ms",
                walls[walls.len() / 2].as_secs_f64() * 1000.0
            );
        }
    }
}
