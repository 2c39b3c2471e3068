//! `xprender diff --composition FILE` alone (impact analysis) against a real kube-apiserver:
//! which XRs and claims adopt the changed Composition, why the others are left out, the summary,
//! `--namespace`, `--resource`, `--include-manual`, exit codes, v2 namespaced XRs, and the same
//! report from the objects exported to a directory (`--objects DIR`).
//!
//! Needs `XPRENDER_KUBE_APISERVER`, `etcd` and `openssl`; scripts/suites/70-cluster.sh provides
//! them and runs these with `--ignored`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use kube::api::{Api, DeleteParams, DynamicObject, ListParams, Patch, PatchParams};
use serde_json::{Value, json};

mod live {
    pub(crate) mod apiserver;
    pub(crate) mod tools;
}

use live::apiserver::{Run, Servers, served_kind as api};
use live::tools::xprender_bin;

const NEEDS: &str = "needs kube-apiserver; scripts/suites/70-cluster.sh runs them";

fn data(dir: &str, name: &str) -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(dir)
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    serde_saphyr::from_multiple::<Value>(&text)
        .unwrap()
        .into_iter()
        .filter(|d| !d.is_null())
        .collect()
}

async fn object_api(client: &kube::Client, doc: &Value) -> Api<DynamicObject> {
    let s = |p: &str| doc.pointer(p).and_then(Value::as_str).unwrap_or("");
    let (ar, namespaced) = api(client, s("/apiVersion"), s("/kind")).await;
    if namespaced {
        Api::namespaced_with(client.clone(), s("/metadata/namespace"), &ar)
    } else {
        Api::all_with(client.clone(), &ar)
    }
}

async fn apply(client: &kube::Client, docs: Vec<Value>) {
    for doc in docs {
        let name = doc["metadata"]["name"].as_str().unwrap().to_string();
        let api = object_api(client, &doc).await;
        api.patch(
            &name,
            &PatchParams::apply("test").force(),
            &Patch::Apply(&doc),
        )
        .await
        .unwrap_or_else(|e| panic!("cannot apply {name}: {e}"));
    }
}

/// A server holding the bucket example (its CRDs, XRD and Composition) and tests/data/impact.
struct Cluster {
    servers: Servers,
    rt: tokio::runtime::Runtime,
    client: kube::Client,
}

impl Cluster {
    fn start() -> Cluster {
        let servers = Servers::start(&[]);
        let rt = tokio::runtime::Runtime::new().unwrap();
        let client = rt.block_on(async {
            let client = servers.client().await;
            api(&client, "v1", "Namespace").await;
            let mut docs = data("cluster", "crds.yaml");
            docs.extend(data("cluster", "xrd.yaml"));
            docs.extend(data("cluster", "composition.yaml"));
            docs.extend(data("impact", "objects.yaml"));
            docs.extend(data("impact", "v2.yaml"));
            apply(&client, docs).await;
            // Deleted with a finalizer: it stays, with a deletionTimestamp.
            let probe = json!({"apiVersion": "example.org/v1alpha1", "kind": "XBucket"});
            let xrs = object_api(&client, &probe).await;
            xrs.delete("deleting", &DeleteParams::default())
                .await
                .unwrap();
            // a1 controls what it composed, as Crossplane leaves it.
            let uid = xrs.get("a1").await.unwrap().metadata.uid.unwrap();
            let owner = json!([{"apiVersion": "example.org/v1alpha1", "kind": "XBucket", "name": "a1",
                "uid": uid, "controller": true, "blockOwnerDeletion": true}]);
            for (kind, name) in [("Bucket", "a1-7xk2p"), ("AccessKey", "a1-q9w8e")] {
                let obj = json!({"apiVersion": "storage.example.org/v1", "kind": kind});
                let patch = json!({"metadata": {"ownerReferences": owner}});
                object_api(&client, &obj)
                    .await
                    .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
                    .await
                    .unwrap();
            }
            client
        });
        Cluster {
            servers,
            rt,
            client,
        }
    }

    fn dir(&self) -> &Path {
        &self.servers.dir
    }

    /// `xprender diff ARGS --kubeconfig ...`.
    fn diff(&self, args: &[&str]) -> Run {
        let mut cmd = Command::new(xprender_bin());
        cmd.arg("diff")
            .args(args)
            .arg("--kubeconfig")
            .arg(&self.servers.kubeconfig)
            .env("NO_COLOR", "1");
        cmd.output().expect("cannot run xprender").into()
    }

    /// The bucket Composition with each Bucket's ACL `acl`, written to a file.
    fn composition(&self, acl: &str) -> PathBuf {
        let mut c = data("cluster", "composition.yaml").remove(0);
        c["spec"]["resources"][0]["base"]["spec"]["forProvider"]["acl"] = acl.into();
        let path = self.dir().join(format!("composition-{acl}.json"));
        std::fs::write(&path, serde_json::to_vec(&c).unwrap()).unwrap();
        path
    }

    /// Every object of these kinds, written as one `kubectl get -o yaml`-style List per kind.
    fn export(&self, kinds: &[(&str, &str)]) -> PathBuf {
        let dir = self.dir().join("export");
        std::fs::create_dir_all(&dir).unwrap();
        self.rt.block_on(async {
            for (i, &(av, kind)) in kinds.iter().enumerate() {
                let (ar, _) = api(&self.client, av, kind).await;
                let all: Api<DynamicObject> = Api::all_with(self.client.clone(), &ar);
                let items: Vec<Value> = all
                    .list(&ListParams::default())
                    .await
                    .unwrap()
                    .items
                    .into_iter()
                    .map(|o| {
                        let mut v = serde_json::to_value(o).unwrap();
                        v["apiVersion"] = av.into();
                        v["kind"] = kind.into();
                        v
                    })
                    .collect();
                let list = json!({"apiVersion": "v1", "kind": "List", "items": items});
                let file = dir.join(format!("{i:02}-{kind}.json"));
                std::fs::write(file, serde_json::to_vec_pretty(&list).unwrap()).unwrap();
            }
        });
        dir
    }
}

fn json_of(run: &Run) -> Value {
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}\n{}", run.stdout, run.stderr))
}

/// name → status (with the adoption or filter reason) of every composite in the report.
fn statuses(doc: &Value) -> BTreeMap<String, String> {
    doc["impact"]["composites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let who = match (&c["xr"]["name"], &c["claim"]) {
                (Value::String(x), Value::Null) => x.clone(),
                (Value::String(x), claim) => {
                    format!("{x} (claim {})", claim["name"].as_str().unwrap())
                }
                (_, claim) => format!("claim {}", claim["name"].as_str().unwrap()),
            };
            let why = c["adoption"]
                .as_str()
                .or(c["filterReason"].as_str())
                .unwrap();
            let status = c["status"].as_str().unwrap();
            (who, format!("{status} {why}"))
        })
        .collect()
}

fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
        .collect()
}

#[test]
#[ignore = "needs kube-apiserver; scripts/suites/70-cluster.sh runs them"]
fn impact_of_a_changed_composition_against_a_live_api_server() {
    let _ = NEEDS;
    let c = Cluster::start();
    let public = c.composition("public-read");
    let public = public.to_str().unwrap();

    // Every XBucket: who adopts it and why, who is left out and why.
    let run = c.diff(&["--composition", public, "-o", "json", "--no-dry-run"]);
    assert_eq!(run.code, 3, "changes found: {}", run.stderr);
    let doc = json_of(&run);
    assert_eq!(
        statuses(&doc),
        map(&[
            ("a1", "changed composition_ref"),
            ("claimed (claim my-claim)", "changed composition_ref"),
            ("selected", "changed composition_selector"),
            ("pinned", "filtered manual_policy"),
            ("beta", "filtered revision_selector_mismatch"),
            ("other", "filtered other_composition"),
            ("deleting", "filtered deleting"),
        ])
    );
    let impact = &doc["impact"];
    assert_eq!(
        (
            &impact["analysed"],
            &impact["changed"],
            &impact["failed"],
            &impact["leftOut"]
        ),
        (&json!(3), &json!(3), &json!(0), &json!(4))
    );
    assert_eq!(
        impact["leftOutByReason"],
        json!({"deleting": 1, "manual_policy": 1, "other_composition": 1, "revision_selector_mismatch": 1})
    );
    // a1's Bucket exists: its ACL is the change.
    let a1 = doc["xrs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["xr"]["name"] == "a1")
        .unwrap();
    assert_eq!(
        a1["summary"],
        json!({"added": 0, "modified": 1, "removed": 0}),
        "{a1:#}"
    );

    // Text: the summary after the reviews.
    let text = c.diff(&["--composition", public, "--no-dry-run"]);
    assert_eq!(text.code, 3, "{}", text.stderr);
    assert!(
        text.stdout.contains("Impact of Composition \"xbuckets-default\"")
            && text.stdout.contains("  3 analysed: 3 change (")
            && text.stdout.contains("  4 left out:")
            && text.stdout.contains("    XBucket pinned: compositionUpdatePolicy Manual, pinned to revision \"xbuckets-default-1111111\"")
            && text.stdout.contains("    1 use Composition \"xbuckets-other\""),
        "{}",
        text.stdout
    );

    // --include-manual reviews the pinned one too, marked as such.
    let manual = json_of(&c.diff(&[
        "--composition",
        public,
        "-o",
        "json",
        "--no-dry-run",
        "--include-manual",
    ]));
    assert_eq!(statuses(&manual)["pinned"], "changed composition_ref");
    let pinned = manual["impact"]["composites"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["xr"]["name"] == "pinned")
        .unwrap();
    assert_eq!(pinned["includedByIncludeManual"], true);

    // --namespace: the composites whose claim (or own namespace) is there.
    let ns = json_of(&c.diff(&[
        "--composition",
        public,
        "-o",
        "json",
        "--no-dry-run",
        "-n",
        "team-a",
    ]));
    assert_eq!(
        statuses(&ns),
        map(&[("claimed (claim my-claim)", "changed composition_ref")])
    );

    // --resource: a claim by namespace/name, an XR by bare name; one naming nothing is refused.
    let some = json_of(&c.diff(&[
        "--composition",
        public,
        "-o",
        "json",
        "--no-dry-run",
        "--resource",
        "team-a/my-claim,pinned",
    ]));
    assert_eq!(
        statuses(&some),
        map(&[
            ("claimed (claim my-claim)", "changed composition_ref"),
            ("pinned", "filtered manual_policy"),
        ])
    );
    let nothing = c.diff(&["--composition", public, "--resource", "team-a/nope"]);
    assert_eq!(nothing.code, 2, "{}", nothing.stderr);
    assert!(
        nothing
            .stderr
            .contains("--resource team-a/nope: no composite resource or claim"),
        "{}",
        nothing.stderr
    );
    let both = c.diff(&["--composition", public, "--resource", "a1", "-n", "team-a"]);
    assert_eq!(both.code, 2, "{}", both.stderr);

    // The Composition as it is: a1 is unchanged, exit 0.
    let same = c.composition("private");
    let same = c.diff(&[
        "--composition",
        same.to_str().unwrap(),
        "--resource",
        "a1",
        "-o",
        "json",
        "--no-dry-run",
    ]);
    assert_eq!(same.code, 0, "{}\n{}", same.stdout, same.stderr);
    assert_eq!(
        statuses(&json_of(&same)),
        map(&[("a1", "unchanged composition_ref")])
    );

    // A Composition that cannot render: each adopting XR fails, exit 1, the rest still reported.
    // (a pipeline step of a function the engine does not run).
    let mut broken = data("cluster", "composition.yaml").remove(0);
    broken["spec"] = json!({
        "compositeTypeRef": broken["spec"]["compositeTypeRef"],
        "mode": "Pipeline",
        "pipeline": [{"step": "templates", "functionRef": {"name": "function-go-templating"}}],
    });
    let broken_file = c.dir().join("broken.json");
    std::fs::write(&broken_file, serde_json::to_vec(&broken).unwrap()).unwrap();
    let failed = c.diff(&[
        "--composition",
        broken_file.to_str().unwrap(),
        "-o",
        "json",
        "--no-dry-run",
    ]);
    assert_eq!(failed.code, 1, "{}", failed.stderr);
    let failed = json_of(&failed);
    assert_eq!(
        (&failed["impact"]["failed"], &failed["impact"]["leftOut"]),
        (&json!(3), &json!(4))
    );

    // The same objects exported to a directory give the same report.
    let export = c.export(&[
        ("apiextensions.k8s.io/v1", "CustomResourceDefinition"),
        (
            "apiextensions.crossplane.io/v1",
            "CompositeResourceDefinition",
        ),
        ("apiextensions.crossplane.io/v1", "Composition"),
        ("example.org/v1alpha1", "XBucket"),
        ("example.org/v1alpha1", "BucketClaim"),
        ("storage.example.org/v1", "Bucket"),
        ("storage.example.org/v1", "AccessKey"),
    ]);
    let offline = Command::new(xprender_bin())
        .args(["diff", "--composition", public, "-o", "json", "--objects"])
        .arg(&export)
        .output()
        .unwrap();
    let offline: Run = offline.into();
    assert_eq!(offline.code, 3, "{}", offline.stderr);
    assert_eq!(
        json_of(&offline),
        doc,
        "offline report differs from the live one"
    );
}

#[test]
#[ignore = "needs kube-apiserver; scripts/suites/70-cluster.sh runs them"]
fn impact_on_namespaced_v2_composites_against_a_live_api_server() {
    let c = Cluster::start();
    let mut caches = data("impact", "v2.yaml")
        .into_iter()
        .find(|d| d["kind"] == "Composition")
        .unwrap();
    caches["spec"]["pipeline"][0]["input"]["resources"][0]["base"]["data"]["tier"] = "large".into();
    let file = c.dir().join("caches.json");
    std::fs::write(&file, serde_json::to_vec(&caches).unwrap()).unwrap();
    let file = file.to_str().unwrap();

    let all = json_of(&c.diff(&["--composition", file, "-o", "json", "--no-dry-run"]));
    assert_eq!(
        statuses(&all),
        map(&[
            ("cache-a", "changed composition_ref"),
            ("cache-b", "changed composition_ref"),
            ("cache-pinned", "filtered manual_policy"),
        ])
    );
    let team_b = c.diff(&[
        "--composition",
        file,
        "-o",
        "yaml",
        "--no-dry-run",
        "-n",
        "team-b",
    ]);
    assert_eq!(team_b.code, 3, "{}", team_b.stderr);
    let doc: Value = serde_saphyr::from_str(&team_b.stdout).unwrap();
    assert_eq!(
        statuses(&doc),
        map(&[
            ("cache-b", "changed composition_ref"),
            ("cache-pinned", "filtered manual_policy"),
        ])
    );
    let one = json_of(&c.diff(&[
        "--composition",
        file,
        "-o",
        "json",
        "--no-dry-run",
        "--resource",
        "team-a/cache-a",
    ]));
    assert_eq!(
        statuses(&one),
        map(&[("cache-a", "changed composition_ref")])
    );
}
