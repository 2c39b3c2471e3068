//! `xprender diff FILE... --objects DIR`: reviews of XR and claim files against exported
//! objects (tests/data/review/objects: a claimed XR composing a VPC, a Gateway its Composition
//! no longer has, and a nested XR composing a Subnet), with no cluster.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/review")
        .join(name)
}

use live::apiserver::Run;

fn diff(args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_xprender"))
        .arg("diff")
        .args(args)
        .arg("--objects")
        .arg(data("objects"))
        .env("NO_COLOR", "1")
        .output()
        .expect("runs");
    Run::from(out)
}

fn input(name: &str) -> String {
    data("inputs").join(name).display().to_string()
}

fn json_of(r: &Run) -> Value {
    serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", r.stdout, r.stderr))
}

/// (type, Kind/name, resource) of every change of the first XR.
fn changes(doc: &Value, xr: usize) -> Vec<(String, String, String)> {
    doc["xrs"][xr]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["type"].as_str().unwrap().to_string(),
                format!(
                    "{}/{}",
                    c["kind"].as_str().unwrap(),
                    c["name"].as_str().unwrap()
                ),
                c["resource"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn triple(t: &str, id: &str, resource: &str) -> (String, String, String) {
    (t.into(), id.into(), resource.into())
}

#[test]
fn an_xr_change_reaches_nested_resources_under_their_own_names_and_removals_are_shown() {
    let r = diff(&[&input("xr.yaml"), "-o", "json"]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    let doc = json_of(&r);
    assert_eq!(
        changes(&doc, 0),
        vec![
            triple("modified", "XNetwork/acme", ""),
            triple("modified", "XSubnets/acme-subnets", "subnets"),
            triple("modified", "Subnet/acme-subnet-a", "subnets/subnet-a"),
            triple("modified", "VPC/acme-vpc", "vpc"),
            triple("removed", "Gateway/acme-gw", ""),
        ]
    );
    assert_eq!(
        doc["summary"],
        json!({"added": 0, "modified": 4, "removed": 1})
    );
    let subnet = &doc["xrs"][0]["changes"][2];
    assert_eq!(
        subnet["fields"],
        json!([{"path": "spec.forProvider.zone", "old": "eu-west-1a", "new": "us-east-2a"}])
    );
    assert_eq!(subnet["comparedWith"], "crd-defaults");
    assert_eq!(doc["xrs"][0]["comparedWith"], json!(["crd-defaults"]));
    assert_eq!(doc["xrs"][0]["status"], "changed");
    assert_eq!(doc["xrs"][0]["unchanged"], 0);
    assert_eq!(doc["errors"], json!([]));
    assert_eq!(doc["changes"].as_array().unwrap().len(), 5);
}

#[test]
fn compact_text_is_crossplane_diffs_format() {
    let r = diff(&[&input("xr.yaml"), "--compact"]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    let expected = std::fs::read_to_string(data("xr.compact.txt")).unwrap();
    assert_eq!(r.stdout, expected);
}

#[test]
fn yaml_output_is_the_json_document() {
    let j = json_of(&diff(&[&input("xr.yaml"), "-o", "json"]));
    let y = diff(&[&input("xr.yaml"), "-o", "yaml"]);
    assert_eq!(y.code, 3);
    let from_yaml: Value = serde_saphyr::from_str(&y.stdout).unwrap();
    assert_eq!(from_yaml, j);
}

#[test]
fn a_claim_reaches_its_xr_and_several_inputs_are_reported_each() {
    let r = diff(&[&input("unchanged.yaml"), &input("claim.yaml"), "-o", "json"]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    let doc = json_of(&r);
    assert_eq!(
        changes(&doc, 0),
        vec![triple("removed", "Gateway/acme-gw", "")]
    );
    assert_eq!(doc["xrs"][0]["unchanged"], 4);
    assert_eq!(doc["xrs"][1]["xr"]["kind"], "Network");
    assert_eq!(doc["xrs"][1]["xr"]["namespace"], "team-a");
    assert_eq!(
        changes(&doc, 1)[..3],
        [
            triple("modified", "Network/acme", ""),
            triple("modified", "XNetwork/acme", ""),
            triple("modified", "XSubnets/acme-subnets", "subnets"),
        ]
    );
    assert_eq!(
        doc["summary"],
        json!({"added": 0, "modified": 5, "removed": 2})
    );
}

#[test]
fn ignored_paths_are_no_changes() {
    let r = diff(&[
        &input("xr.yaml"),
        "-o",
        "json",
        "--ignore-paths",
        "spec.region,spec.forProvider.region",
        "--ignore-paths",
        "spec.forProvider.zone",
    ]);
    let doc = json_of(&r);
    assert_eq!(
        changes(&doc, 0),
        vec![triple("removed", "Gateway/acme-gw", "")]
    );
    let bad = diff(&[&input("xr.yaml"), "--ignore-paths", "spec[oops"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(
        bad.stderr.contains("--ignore-paths \"spec[oops\""),
        "{}",
        bad.stderr
    );
}

#[test]
fn exit_codes_gate_a_pipeline() {
    let dir = tempfile::tempdir().unwrap();
    // Without its Gateway the tree is as the Composition renders it: nothing to change.
    let objects = std::fs::read_to_string(data("objects/tree.yaml")).unwrap();
    let (head, tail) = objects
        .split_once("apiVersion: infra.example.org/v1\nkind: Gateway")
        .unwrap();
    let tail = &tail[tail.find("---").unwrap()..];
    let refs = "  - {apiVersion: infra.example.org/v1, kind: Gateway, name: acme-gw}\n";
    std::fs::write(
        dir.path().join("tree.yaml"),
        format!("{}{tail}", head.replace(refs, "")),
    )
    .unwrap();
    std::fs::copy(
        data("objects/definitions.yaml"),
        dir.path().join("definitions.yaml"),
    )
    .unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_xprender"))
            .arg("diff")
            .args(args)
            .arg("--objects")
            .arg(dir.path())
            .output()
            .unwrap()
    };
    let same = run(&[&input("unchanged.yaml")]);
    assert_eq!(
        same.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&same.stdout)
    );
    assert_eq!(String::from_utf8_lossy(&same.stdout), "No changes.\n");
    assert_eq!(run(&[&input("xr.yaml")]).status.code(), Some(3));

    // A failure outranks changes, and the other XRs are still reviewed.
    let missing = dir.path().join("missing-composition.yaml");
    std::fs::write(
        &missing,
        "apiVersion: review.example.org/v1\nkind: XNetwork\nmetadata: {name: other}\nspec:\n  compositionRef: {name: gone}\n",
    )
    .unwrap();
    let out = run(&[missing.to_str().unwrap(), &input("xr.yaml"), "-o", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["errors"][0]["resourceID"], "XNetwork/other");
    assert_eq!(doc["xrs"][0]["status"], "error");
    assert_eq!(doc["xrs"][1]["status"], "changed");
}

#[test]
fn a_composition_without_xr_files_is_an_impact_analysis() {
    // The exported definitions are one List; the Composition goes alone in a file.
    let list: Value =
        serde_saphyr::from_str(&std::fs::read_to_string(data("objects/definitions.yaml")).unwrap())
            .unwrap();
    let network = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["kind"] == "Composition" && d["metadata"]["name"] == "network")
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("network.json");
    std::fs::write(&file, serde_json::to_vec(network).unwrap()).unwrap();
    let r = diff(&["--composition", file.to_str().unwrap(), "-o", "json"]);
    assert!(matches!(r.code, 0 | 3), "{}", r.stderr);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(doc["impact"]["composition"], "network", "{}", r.stdout);
    let none = diff(&[]);
    assert_eq!(none.code, 2);
}

#[test]
fn stdin_is_read_with_a_dash() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_xprender"))
        .args(["diff", "-", "-o", "json", "--objects"])
        .arg(data("objects"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write as _;
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(std::fs::read(data("inputs/xr.yaml")).unwrap().as_slice())
            .unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["xrs"][0]["origin"], "stdin");
}

/// The changes of the namespaced v2 XR App/shop (tests/data/review/v2): its size grows, its
/// ConfigMap follows, a Bucket is new, the XR's connection Secret is composed from its
/// Database's, and the Queue its Composition dropped is removed.
fn v2_changes() -> Vec<(String, String, String)> {
    vec![
        triple("modified", "App/shop", ""),
        triple("added", "Bucket/shop-(generated)", "bucket"),
        triple("modified", "ConfigMap/shop-config", "config"),
        triple("added", "Secret/shop-connection", "shop-connection-secret"),
        triple("removed", "Queue/shop-queue", ""),
    ]
}

fn v2_diff(objects: &Path, extra: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_xprender"))
        .arg("diff")
        .arg(data("v2/inputs/app.yaml"))
        .args(["-o", "json"])
        .args(extra)
        .arg("--objects")
        .arg(objects)
        .output()
        .expect("runs");
    Run::from(out)
}

#[test]
fn a_namespaced_v2_xr_is_reviewed_in_its_namespace() {
    let r = v2_diff(&data("v2/objects"), &[]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    let doc = json_of(&r);
    assert_eq!(changes(&doc, 0), v2_changes(), "{doc:#}");
    assert_eq!(doc["xrs"][0]["xr"]["namespace"], "team-b");
    let c = &doc["xrs"][0]["changes"];
    // `legacy` was set by Crossplane's apply, which the next one leaves it out of: removed.
    assert_eq!(
        c[2]["fields"],
        json!([{"path": "data.legacy", "old": "yes"},
               {"path": "data.size", "old": "small", "new": "large"}])
    );
    // v2 composes into the XR's namespace, and labels for a claim only when there is one.
    let bucket = &c[1]["fields"][0]["new"];
    assert_eq!(bucket["metadata"]["namespace"], "team-b");
    assert_eq!(
        bucket["metadata"]["labels"],
        json!({"crossplane.io/composite": "shop"})
    );
    assert_eq!(bucket["spec"]["forProvider"]["versioning"], false);
    assert_eq!(doc["xrs"][0]["warnings"], json!([]));
    assert_eq!(c[3]["fields"][0]["new"]["data"], connection_data());
}

/// The XR's connection Secret's data: the password read from the Database's connection Secret
/// (`"czNjcjN0"`, "s3cr3t"), shown as its digest.
fn connection_data() -> Value {
    json!({"password": "(hidden, sha256 88209f7238fe…)"})
}

/// The servers and tools these tests share with the other live-server tests.
mod live {
    pub(crate) mod apiserver;
    pub(crate) mod tools;
}

mod on_a_live_api_server {
    use std::collections::BTreeMap;
    use std::time::{Duration, Instant};

    use kube::api::{Api, DynamicObject, ListParams, Patch, PatchParams};
    use serde_json::{Value, json};

    use super::live::apiserver::Servers;
    use super::{connection_data, data, input, v2_changes, v2_diff};

    fn yaml_docs(path: &std::path::Path) -> Vec<Value> {
        let text = std::fs::read_to_string(path).unwrap();
        let docs: Vec<Value> = serde_saphyr::from_multiple(&text).unwrap();
        docs.into_iter()
            .filter(|d| !d.is_null())
            .flat_map(|d| match d.get("items") {
                Some(Value::Array(items)) => items.clone(),
                _ => vec![d],
            })
            .collect()
    }

    /// The API of a kind, waiting until it is served.
    async fn api(
        client: &kube::Client,
        av: &str,
        kind: &str,
        ns: Option<&str>,
    ) -> Api<DynamicObject> {
        match (
            super::live::apiserver::served_kind(client, av, kind).await,
            ns,
        ) {
            ((ar, true), Some(ns)) => Api::namespaced_with(client.clone(), ns, &ar),
            ((ar, _), _) => Api::all_with(client.clone(), &ar),
        }
    }

    /// Server-side applies an object as it is written in the fixtures, less its uid and status,
    /// as the manager of its first `managedFields` entry (else `fixtures`); its owner references
    /// get the uids the server gave the owners (`uids`: Kind/name → uid).
    async fn apply(client: &kube::Client, doc: &Value, uids: &mut BTreeMap<String, String>) {
        let mut doc = doc.clone();
        let meta = doc["metadata"].as_object_mut().unwrap();
        meta.remove("uid");
        let manager = meta
            .remove("managedFields")
            .and_then(|m| {
                m.pointer("/0/manager")
                    .and_then(Value::as_str)
                    .map(String::from)
            })
            .unwrap_or_else(|| "fixtures".into());
        let refs = doc.pointer_mut("/metadata/ownerReferences");
        for r in refs.and_then(Value::as_array_mut).into_iter().flatten() {
            let owner = format!(
                "{}/{}",
                r["kind"].as_str().unwrap(),
                r["name"].as_str().unwrap()
            );
            if let Some(uid) = uids.get(&owner) {
                r["uid"] = json!(uid);
            }
        }
        doc.as_object_mut().unwrap().remove("status");
        let s = |p: &str| {
            doc.pointer(p)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let ns = s("/metadata/namespace");
        let api = api(
            client,
            &s("/apiVersion"),
            &s("/kind"),
            Some(&ns).filter(|n| !n.is_empty()).map(String::as_str),
        )
        .await;
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let pp = PatchParams::apply(&manager).force();
            match api
                .patch(&s("/metadata/name"), &pp, &Patch::Apply(&doc))
                .await
            {
                Ok(o) => {
                    let key = format!("{}/{}", s("/kind"), s("/metadata/name"));
                    uids.insert(key, o.metadata.uid.unwrap_or_default());
                    return;
                }
                // A CRD just created may not accept objects for a moment.
                Err(e) if Instant::now() < deadline => {
                    eprintln!("retrying {}: {e}", s("/metadata/name"));
                    tokio::time::sleep(Duration::from_millis(300)).await;
                }
                Err(e) => panic!("cannot apply {}: {e}", s("/metadata/name")),
            }
        }
    }

    /// Every object of these kinds as `kubectl get -o yaml` writes them: one `kind: List`.
    async fn export(client: &kube::Client, kinds: &[(&str, &str)], dir: &std::path::Path) {
        let mut items = Vec::new();
        for (av, kind) in kinds {
            let api = api(client, av, kind, None).await;
            for o in api.list(&ListParams::default()).await.unwrap() {
                let mut v = serde_json::to_value(o).unwrap();
                v["apiVersion"] = json!(av);
                v["kind"] = json!(kind);
                items.push(v);
            }
        }
        let list = json!({"apiVersion": "v1", "kind": "List", "items": items});
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(
            dir.join("export.json"),
            serde_json::to_string_pretty(&list).unwrap(),
        )
        .unwrap();
    }

    /// A report without what tells a live review from an offline one.
    fn comparable(mut doc: Value) -> Value {
        for xr in doc["xrs"].as_array_mut().unwrap() {
            xr.as_object_mut().unwrap().remove("comparedWith");
            for c in xr["changes"].as_array_mut().unwrap() {
                c.as_object_mut().unwrap().remove("comparedWith");
            }
        }
        doc.as_object_mut().unwrap().remove("changes");
        doc
    }

    fn xprender(servers: &Servers, args: &[&str]) -> super::Run {
        let out = std::process::Command::new(super::live::tools::xprender_bin())
            .arg("diff")
            .args(args)
            .arg("--kubeconfig")
            .arg(&servers.kubeconfig)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        super::Run::from(out)
    }

    #[test]
    #[ignore = "needs kube-apiserver; scripts/suites/70-cluster.sh runs them"]
    fn live_and_exported_reviews_agree_and_ownership_is_warned() {
        let servers = Servers::start(&[]);
        let rt = tokio::runtime::Runtime::new().unwrap();
        let client = rt.block_on(servers.client());
        let mut uids = BTreeMap::new();
        rt.block_on(async {
            let crossplane = yaml_docs(&data("../cluster/crds.yaml"));
            for d in crossplane.iter().chain(&yaml_docs(&data("live-crds.yaml"))) {
                apply(&client, d, &mut uids).await;
            }
            for d in yaml_docs(&data("objects/definitions.yaml"))
                .iter()
                .chain(&yaml_docs(&data("objects/tree.yaml")))
            {
                apply(&client, d, &mut uids).await;
            }
        });

        // Live: every resource compared by a server-side dry run.
        let live = xprender(
            &servers,
            &[&input("xr.yaml"), &input("claim.yaml"), "-o", "json"],
        );
        assert_eq!(live.code, 3, "{}\n{}", live.stderr, live.stdout);
        let live: Value = serde_json::from_str(&live.stdout).unwrap();
        assert_eq!(
            live["xrs"][0]["comparedWith"],
            json!(["dry-run"]),
            "{live:#}"
        );
        assert_eq!(
            live["summary"],
            json!({"added": 0, "modified": 9, "removed": 2}),
            "{live:#}"
        );

        // Ignored paths are no changes against the live server too: with spec and metadata left
        // out nothing is modified, and the removals stay (YAML output: the same document).
        let ignored = xprender(
            &servers,
            &[
                &input("xr.yaml"),
                &input("claim.yaml"),
                "-o",
                "yaml",
                "--ignore-paths",
                "spec,metadata",
            ],
        );
        assert_eq!(ignored.code, 3, "{}\n{}", ignored.stderr, ignored.stdout);
        let ignored: Value = serde_saphyr::from_str(&ignored.stdout).unwrap();
        assert_eq!(
            ignored["summary"],
            json!({"added": 0, "modified": 0, "removed": 2}),
            "{ignored:#}"
        );

        // Exported as kubectl would, reviewed offline: the same report but for how it compared.
        let dir = servers.dir.join("export");
        let kinds = [
            ("apiextensions.k8s.io/v1", "CustomResourceDefinition"),
            (
                "apiextensions.crossplane.io/v1",
                "CompositeResourceDefinition",
            ),
            ("apiextensions.crossplane.io/v1", "Composition"),
            ("review.example.org/v1", "XNetwork"),
            ("review.example.org/v1", "Network"),
            ("review.example.org/v1", "XSubnets"),
            ("infra.example.org/v1", "VPC"),
            ("infra.example.org/v1", "Subnet"),
            ("infra.example.org/v1", "Gateway"),
        ];
        rt.block_on(export(&client, &kinds, &dir));
        let offline = std::process::Command::new(super::live::tools::xprender_bin())
            .args([
                "diff",
                &input("xr.yaml"),
                &input("claim.yaml"),
                "-o",
                "json",
                "--objects",
            ])
            .arg(&dir)
            .output()
            .unwrap();
        assert_eq!(offline.status.code(), Some(3));
        let offline: Value = serde_json::from_slice(&offline.stdout).unwrap();
        assert_eq!(offline["xrs"][0]["comparedWith"], json!(["crd-defaults"]));
        assert_eq!(comparable(offline), comparable(live));

        // A resource labelled for another XR (no controller) is taken over: a warning, not an
        // exit code.
        rt.block_on(apply(
            &client,
            &json!({"apiVersion": "infra.example.org/v1", "kind": "Subnet",
                    "metadata": {"name": "acme-subnet-a",
                                 "annotations": {"crossplane.io/composition-resource-name": "subnet-a"},
                                 "labels": {"crossplane.io/composite": "someone-else"}},
                    "spec": {"forProvider": {"zone": "eu-west-1a"}}}),
            &mut uids,
        ));
        let warned = xprender(&servers, &[&input("unchanged.yaml")]);
        assert_eq!(warned.code, 3, "{}", warned.stderr);
        assert!(
            warned.stderr.contains("WARNING: Resource already belongs to another composite. Applying this diff will assume ownership! (currentOwner=someone-else, newOwner=acme, resource=Subnet/acme-subnet-a)"),
            "{}\n{}",
            warned.stdout,
            warned.stderr
        );
    }

    #[test]
    #[ignore = "needs kube-apiserver; scripts/suites/70-cluster.sh runs them"]
    fn a_namespaced_v2_xr_reviews_alike_live_and_exported() {
        let servers = Servers::start(&[]);
        let rt = tokio::runtime::Runtime::new().unwrap();
        let client = rt.block_on(servers.client());
        let mut uids = BTreeMap::new();
        rt.block_on(async {
            let crossplane = yaml_docs(&data("../cluster/crds.yaml"));
            for d in crossplane
                .iter()
                .chain(&yaml_docs(&data("v2/live-crds.yaml")))
            {
                apply(&client, d, &mut uids).await;
            }
            for d in yaml_docs(&data("v2/objects/definitions.yaml"))
                .iter()
                .chain(&yaml_docs(&data("v2/objects/tree.yaml")))
            {
                apply(&client, d, &mut uids).await;
            }
        });
        let app = data("v2/inputs/app.yaml");
        let live = xprender(&servers, &[app.to_str().unwrap(), "-o", "json"]);
        assert_eq!(live.code, 3, "{}\n{}", live.stderr, live.stdout);
        let live: Value = serde_json::from_str(&live.stdout).unwrap();
        assert_eq!(super::changes(&live, 0), v2_changes(), "{live:#}");
        assert_eq!(live["xrs"][0]["comparedWith"], json!(["dry-run"]));
        // Dry-run as Crossplane's manager: the field only it set, and sets no more, goes.
        assert_eq!(
            live["xrs"][0]["changes"][2]["fields"],
            json!([{"path": "data.legacy", "old": "yes"},
                   {"path": "data.size", "old": "small", "new": "large"}])
        );
        // The Database's connection Secret, read by name, gives the XR's its password.
        assert_eq!(
            live["xrs"][0]["changes"][3]["fields"][0]["new"]["data"],
            connection_data()
        );

        let dir = servers.dir.join("export-v2");
        let kinds = [
            ("apiextensions.k8s.io/v1", "CustomResourceDefinition"),
            (
                "apiextensions.crossplane.io/v2",
                "CompositeResourceDefinition",
            ),
            ("apiextensions.crossplane.io/v1", "Composition"),
            ("pkg.crossplane.io/v1", "Function"),
            ("review.example.org/v1", "App"),
            ("v1", "ConfigMap"),
            ("infra.example.org/v1", "Queue"),
            ("infra.example.org/v1", "Bucket"),
            ("infra.example.org/v1", "Database"),
            ("v1", "Secret"),
        ];
        rt.block_on(export(&client, &kinds, &dir));
        let offline = v2_diff(&dir, &[]);
        assert_eq!(offline.code, 3, "{}", offline.stderr);
        let offline: Value = serde_json::from_str(&offline.stdout).unwrap();
        assert_eq!(offline["xrs"][0]["comparedWith"], json!(["crd-defaults"]));
        assert_eq!(comparable(offline), comparable(live));
    }
}
