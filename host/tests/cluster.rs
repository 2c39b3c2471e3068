//! `xprender diff` / `apply` against a real kube-apiserver (started here with etcd on 127.0.0.1),
//! plus the failure modes that need no server (unreachable, timeout).
//!
//! The server tests need `XPRENDER_KUBE_APISERVER` (a kube-apiserver binary), `etcd` and `openssl`;
//! scripts/suites/70-cluster.sh provides them and runs these with `--ignored`.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use kube::api::{
    Api, ApiResource, DynamicObject, GroupVersionKind, ListParams, Patch, PatchParams,
};
use kube::discovery::Scope;
use serde_json::{Value, json};

/// The servers and tools these tests share with the other live-server tests.
mod live {
    pub(crate) mod apiserver;
    pub(crate) mod tools;
}

use live::apiserver::{Run, Servers};
use live::tools::{free_port, xprender_bin};

const NEEDS: &str = "needs kube-apiserver; scripts/suites/70-cluster.sh runs them";

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/cluster")
        .join(name)
}

/// etcd + kube-apiserver with users `admin` and `bob` (no RBAC grants).
struct ApiServer {
    servers: Servers,
}

impl ApiServer {
    fn start() -> ApiServer {
        ApiServer {
            servers: Servers::start(&["bob"]),
        }
    }

    /// Scratch space beside the servers' logs, removed when the test passes.
    fn dir(&self) -> &Path {
        &self.servers.dir
    }

    async fn client(&self) -> kube::Client {
        self.servers.client().await
    }

    /// Ready: the default namespace and the discovery RBAC binding exist (post-start hooks ran).
    async fn wait_ready(&self, client: &kube::Client) {
        let deadline = Instant::now() + Duration::from_secs(90);
        loop {
            let ns = dynamic(client, "v1", "Namespace").await;
            let crb = dynamic(client, "rbac.authorization.k8s.io/v1", "ClusterRoleBinding").await;
            if let (Some(ns), Some(crb)) = (ns, crb)
                && ns.0.get_opt("default").await.ok().flatten().is_some()
                && crb
                    .0
                    .get_opt("system:discovery")
                    .await
                    .ok()
                    .flatten()
                    .is_some()
            {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "kube-apiserver not ready; logs in {}",
                self.servers.dir.display()
            );
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
    }

    fn xprender(&self, args: &[&str]) -> Run {
        let mut cmd = Command::new(xprender_bin());
        cmd.args(args)
            .arg("--kubeconfig")
            .arg(&self.servers.kubeconfig);
        run(cmd)
    }
}

impl Run {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!("stdout is not JSON ({e}): {}\n{}", self.stdout, self.stderr)
        })
    }
}

fn run(mut cmd: Command) -> Run {
    cmd.env("NO_COLOR", "1")
        .output()
        .expect("cannot run xprender")
        .into()
}

/// The cluster-wide API of a kind (and whether it is namespaced); `None` until it is served.
async fn dynamic(
    client: &kube::Client,
    api_version: &str,
    kind: &str,
) -> Option<(Api<DynamicObject>, ApiResource, bool)> {
    let (g, v) = api_version.split_once('/').unwrap_or(("", api_version));
    let (ar, caps) = kube::discovery::pinned_kind(client, &GroupVersionKind::gvk(g, v, kind))
        .await
        .ok()?;
    Some((
        Api::all_with(client.clone(), &ar),
        ar,
        caps.scope == Scope::Namespaced,
    ))
}

/// Server-side applies every document of a YAML file as `manager`, waiting for kinds to be served.
async fn apply_docs(client: &kube::Client, docs: Vec<Value>, manager: &str) {
    for doc in docs {
        apply_doc(client, &doc, manager, false).await;
    }
}

async fn apply_doc(client: &kube::Client, doc: &Value, manager: &str, status: bool) -> Value {
    let s = |p: &str| {
        doc.pointer(p)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let (av, kind, name, ns) = (
        s("/apiVersion"),
        s("/kind"),
        s("/metadata/name"),
        s("/metadata/namespace"),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    let (ar, namespaced) = loop {
        if let Some((_, ar, n)) = dynamic(client, &av, &kind).await {
            break (ar, n);
        }
        assert!(
            Instant::now() < deadline,
            "kind {kind} in {av} never became served"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let api: Api<DynamicObject> = if namespaced {
        Api::namespaced_with(client.clone(), &ns, &ar)
    } else {
        Api::all_with(client.clone(), &ar)
    };
    let pp = PatchParams::apply(manager).force();
    let res = if status {
        api.patch_status(&name, &pp, &Patch::Apply(doc)).await
    } else {
        api.patch(&name, &pp, &Patch::Apply(doc)).await
    };
    serde_json::to_value(res.unwrap_or_else(|e| panic!("cannot apply {kind} {name}: {e}"))).unwrap()
}

fn yaml_docs(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    serde_saphyr::from_multiple::<Value>(&text)
        .unwrap()
        .into_iter()
        .filter(|d| !d.is_null())
        .collect()
}

async fn get(client: &kube::Client, api_version: &str, kind: &str, name: &str) -> Value {
    let (api, _, _) = dynamic(client, api_version, kind)
        .await
        .expect("kind served");
    serde_json::to_value(api.get(name).await.expect("object exists")).unwrap()
}

/// name → resourceVersion of every object of the bucket example's kinds.
async fn versions(client: &kube::Client) -> BTreeMap<String, String> {
    versions_of(
        client,
        &[
            ("example.org/v1alpha1", "XBucket"),
            ("example.org/v1alpha1", "BucketClaim"),
            ("storage.example.org/v1", "Bucket"),
            ("storage.example.org/v1", "AccessKey"),
            ("v1", "Secret"),
        ],
    )
    .await
}

/// name → resourceVersion of every object of these kinds.
async fn versions_of(client: &kube::Client, kinds: &[(&str, &str)]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for &(av, kind) in kinds {
        let (api, _, _) = dynamic(client, av, kind).await.unwrap();
        for o in api.list(&ListParams::default()).await.unwrap() {
            let key = format!(
                "{kind} {}/{}",
                o.metadata.namespace.clone().unwrap_or_default(),
                o.metadata.name.clone().unwrap_or_default()
            );
            out.insert(key, o.metadata.resource_version.clone().unwrap_or_default());
        }
    }
    out
}

fn resources_by_action(doc: &Value) -> BTreeMap<String, String> {
    doc["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["resource"].as_str().unwrap().to_string(),
                r["action"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn changes_of(doc: &Value, resource: &str) -> Vec<Value> {
    let r = doc["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["resource"] == resource)
        .expect("resource listed");
    r["changes"].as_array().unwrap().clone()
}

/// One server for the whole story: each step builds on the cluster state the previous one left.
#[test]
#[ignore = "needs kube-apiserver; scripts/suites/70-cluster.sh runs them"]
fn render_diff_apply_against_a_live_api_server() {
    let _ = NEEDS;
    let (server, rt, client) = bucket_server();
    // What the provider would have written: the bucket's observed status.
    let status = json!({"apiVersion": "storage.example.org/v1", "kind": "Bucket",
        "metadata": {"name": "my-bucket-7xk2p"}, "status": {"atProvider": {"arn": "arn:example:my-bucket"}}});
    rt.block_on(apply_doc(&client, &status, "test-provider", true));

    // render --cluster reads the same inputs and renders them as from files.
    let r = server.xprender(&[
        "render",
        "--cluster",
        "xbuckets/my-bucket",
        "--output",
        "json",
    ]);
    assert_eq!(r.code, 0, "render --cluster: {}\n{}", r.stdout, r.stderr);
    let out = r.json();
    assert_eq!(
        out["composite"]["metadata"]["name"], "my-bucket",
        "{}",
        r.stdout
    );
    assert!(
        out["resources"].as_object().is_some_and(|m| !m.is_empty()),
        "render --cluster composed nothing: {}",
        r.stdout
    );

    // Inputs come from the cluster: XRD default Composition, observed bucket, its Secret's keys.
    let d = server.xprender(&["diff", "--cluster", "xbuckets/my-bucket", "-o", "json"]);
    assert_eq!(
        d.code, 3,
        "diff with a missing resource: {}\n{}",
        d.stdout, d.stderr
    );
    let doc = d.json();
    assert_eq!(doc["inputs"]["composite"], "my-bucket");
    assert!(
        doc["inputs"]["composition"]
            .as_str()
            .unwrap()
            .contains("xbuckets-default"),
        "{}",
        doc["inputs"]
    );
    assert!(
        doc["inputs"]["composition"]
            .as_str()
            .unwrap()
            .contains("defaultCompositionRef"),
        "{}",
        doc["inputs"]
    );
    assert_eq!(doc["inputs"]["observed"], json!(["bucket"]));
    assert_eq!(
        doc["inputs"]["connectionSecretKeys"],
        json!(["endpoint", "password"])
    );
    assert_eq!(
        doc["inputs"]["connectionDetailKeys"]["bucket"],
        json!(["endpoint", "password", "username"])
    );
    assert!(!d.stdout.contains("s3cr3t"), "a secret value was printed");
    let actions = resources_by_action(&doc);
    assert_eq!(actions["accessKey"], "create", "{doc}");
    assert_eq!(actions["bucket"], "unchanged", "{doc}");
    assert_eq!(actions["composite"], "update", "{doc}");
    let xr_paths: Vec<Value> = changes_of(&doc, "composite")
        .iter()
        .map(|c| c["path"].clone())
        .collect();
    assert!(
        xr_paths.contains(&json!("status.arn")),
        "ToComposite patch from the observed bucket: {xr_paths:?}"
    );

    // A claim leads to its composite resource.
    let c = server.xprender(&[
        "diff",
        "--cluster",
        "bucketclaim/my-claim",
        "-n",
        "team-a",
        "-o",
        "json",
    ]);
    assert_eq!(c.code, 3, "{}\n{}", c.stdout, c.stderr);
    assert_eq!(c.json()["inputs"]["claim"], "my-claim");
    assert_eq!(c.json()["resources"], doc["resources"]);

    // Dry run: the server validates, nothing is written.
    let before = rt.block_on(versions(&client));
    let a = server.xprender(&["apply", "--cluster", "xbuckets/my-bucket"]);
    assert_eq!(a.code, 0, "dry-run apply: {}\n{}", a.stdout, a.stderr);
    assert!(
        a.stdout.contains("created") && a.stdout.contains("(dry run)"),
        "{}",
        a.stdout
    );
    assert!(
        a.stdout.contains("Dry run: the cluster was not changed"),
        "{}",
        a.stdout
    );
    assert_eq!(
        rt.block_on(versions(&client)),
        before,
        "dry-run apply changed the cluster"
    );

    // --yes creates the access key and updates the XR (a second render pass records the
    // generated name wherever the render uses it).
    let a = server.xprender(&["apply", "--cluster", "xbuckets/my-bucket", "--yes"]);
    assert_eq!(a.code, 0, "apply --yes: {}\n{}", a.stdout, a.stderr);
    assert!(
        a.stdout.contains(
            "accessKey AccessKey (name generated from \"my-bucket-\"): created my-bucket-"
        ),
        "{}",
        a.stdout
    );
    let after = rt.block_on(versions(&client));
    assert_eq!(
        after.keys().filter(|k| k.starts_with("AccessKey")).count(),
        1,
        "{after:?}"
    );
    let xr = rt.block_on(get(&client, "example.org/v1alpha1", "XBucket", "my-bucket"));
    assert_eq!(xr["status"]["arn"], "arn:example:my-bucket", "{xr}");
    let key_name = after
        .keys()
        .find(|k| k.starts_with("AccessKey"))
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_string();
    let key = rt.block_on(get(
        &client,
        "storage.example.org/v1",
        "AccessKey",
        &key_name,
    ));
    assert_eq!(key["spec"]["forProvider"]["bucketName"], "my-bucket");
    assert!(
        key["metadata"]["managedFields"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["manager"] == "xprender"),
        "{key}"
    );

    // The cluster now matches the render: no changes, exit 0.
    let d = server.xprender(&["diff", "--cluster", "xbuckets/my-bucket"]);
    assert_eq!(d.code, 0, "diff after apply: {}\n{}", d.stdout, d.stderr);
    assert!(d.stdout.contains("No changes."), "{}", d.stdout);
    // The kind may be named as kubectl accepts it.
    for spelling in ["XBucket.example.org/my-bucket", "xbucket/my-bucket"] {
        let d = server.xprender(&["diff", "--cluster", spelling]);
        assert_eq!(d.code, 0, "{spelling}: {}\n{}", d.stdout, d.stderr);
    }
    let before = rt.block_on(versions(&client));
    let a = server.xprender(&["apply", "--cluster", "xbuckets/my-bucket", "--yes"]);
    assert_eq!(a.code, 0, "{}\n{}", a.stdout, a.stderr);
    assert_eq!(
        rt.block_on(versions(&client)),
        before,
        "applying an unchanged render wrote something"
    );

    // An edited Composition: exactly the changed field, exit 3.
    let comp = data("composition-public.yaml");
    let comp = comp.to_str().unwrap();
    let d = server.xprender(&[
        "diff",
        "--cluster",
        "xbuckets/my-bucket",
        "--composition",
        comp,
        "-o",
        "json",
    ]);
    assert_eq!(d.code, 3, "{}\n{}", d.stdout, d.stderr);
    let doc = d.json();
    let changed: BTreeMap<String, String> = resources_by_action(&doc)
        .into_iter()
        .filter(|(_, a)| a != "unchanged")
        .collect();
    assert_eq!(
        changed,
        BTreeMap::from([("bucket".to_string(), "update".to_string())]),
        "{doc}"
    );
    assert_eq!(
        changes_of(&doc, "bucket"),
        vec![json!({"path": "spec.forProvider.acl", "live": "private", "desired": "public-read"})]
    );
    let d = server.xprender(&[
        "diff",
        "--cluster",
        "xbuckets/my-bucket",
        "--composition",
        comp,
    ]);
    assert_eq!(d.code, 3);
    assert!(
        d.stdout
            .contains("~ spec.forProvider.acl: \"private\" → \"public-read\""),
        "{}",
        d.stdout
    );

    // Another field manager owns the field: reported by name, nothing written; forced on request.
    rt.block_on(async {
        let theirs = json!({"apiVersion": "storage.example.org/v1", "kind": "Bucket",
            "metadata": {"name": "my-bucket-7xk2p"}, "spec": {"forProvider": {"acl": "authenticated-read"}}});
        apply_doc(&client, &theirs, "ops-team", false).await;
    });
    let before = rt.block_on(versions(&client));
    let a = server.xprender(&["apply", "--cluster", "xbuckets/my-bucket", "--yes"]);
    assert_eq!(a.code, 1, "{}\n{}", a.stdout, a.stderr);
    assert!(
        a.stdout.contains("\"ops-team\"") && a.stdout.contains(".spec.forProvider.acl"),
        "{}",
        a.stdout
    );
    assert!(a.stdout.contains("--force-conflicts"), "{}", a.stdout);
    assert_eq!(
        rt.block_on(versions(&client)),
        before,
        "a conflicting apply wrote something"
    );
    let a = server.xprender(&[
        "apply",
        "--cluster",
        "xbuckets/my-bucket",
        "--yes",
        "--force-conflicts",
    ]);
    assert_eq!(a.code, 0, "{}\n{}", a.stdout, a.stderr);
    let bucket = rt.block_on(get(
        &client,
        "storage.example.org/v1",
        "Bucket",
        "my-bucket-7xk2p",
    ));
    assert_eq!(bucket["spec"]["forProvider"]["acl"], "private");

    // Composition selection as Crossplane does it: selector, reference, the XRD's enforced ref.
    rt.block_on(apply_docs(
        &client,
        yaml_docs(&data("selection.yaml")),
        "test-setup",
    ));
    let source = |xr: &str| {
        let d = server.xprender(&["diff", "--cluster", &format!("xbuckets/{xr}"), "-o", "json"]);
        assert_eq!(d.code, 3, "{}\n{}", d.stdout, d.stderr);
        d.json()["inputs"]["composition"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        source("selected-bucket"),
        "Composition \"xbuckets-alt\" (the XR's compositionSelector)"
    );
    assert_eq!(
        source("referencing-bucket"),
        "Composition \"xbuckets-alt\" (the XR's compositionRef)"
    );
    // EnvironmentConfigs from the cluster, merged in order (the selected one wins on replicas).
    let d = server.xprender(&[
        "diff",
        "--cluster",
        "xbuckets/selected-bucket",
        "-o",
        "json",
    ]);
    let doc = d.json();
    assert_eq!(
        doc["inputs"]["environmentKeys"],
        json!(["acl", "tier"]),
        "{doc}"
    );
    let desired: BTreeMap<String, Value> = changes_of(&doc, "bucket")
        .into_iter()
        .map(|c| {
            (
                c["path"].as_str().unwrap().to_string(),
                c["desired"].clone(),
            )
        })
        .collect();
    assert_eq!(
        desired["spec.forProvider.acl"], "log-delivery-write",
        "{doc}"
    );
    assert_eq!(desired["spec.forProvider.sizeGiB"], 3, "{doc}");

    // Secret values stay hidden unless asked for.
    let d = server.xprender(&["diff", "--cluster", "xbuckets/selected-bucket"]);
    assert!(
        d.stdout
            .contains("+ stringData.token: \"(hidden; --show-secrets shows it)\""),
        "{}",
        d.stdout
    );
    assert!(!d.stdout.contains("t0ps3cret"), "{}", d.stdout);
    let d = server.xprender(&[
        "diff",
        "--cluster",
        "xbuckets/selected-bucket",
        "--show-secrets",
    ]);
    assert!(
        d.stdout.contains("+ stringData.token: \"t0ps3cret\""),
        "{}",
        d.stdout
    );
    // Applying it fails for the Secret alone: nothing sets its namespace.
    let a = server.xprender(&["apply", "--cluster", "xbuckets/selected-bucket"]);
    assert_eq!(a.code, 1, "{}\n{}", a.stdout, a.stderr);
    assert!(a.stdout.contains("secrets is namespaced but the render gives Secret (name generated from \"selected-bucket-\") no metadata.namespace"), "{}", a.stdout);
    // The engine's rules and texts; an input error.
    let e = server.xprender(&["diff", "--cluster", "xbuckets/unmatched-bucket"]);
    assert_eq!(e.code, 2);
    assert!(
        e.stderr.contains(
            "no Composition for XBucket.example.org/v1alpha1 matches the XR's compositionSelector {\"provider\":\"nobody\"}"
        ),
        "{}",
        e.stderr
    );
    let enforce = json!({"apiVersion": "apiextensions.crossplane.io/v1", "kind": "CompositeResourceDefinition",
        "metadata": {"name": "xbuckets.example.org"}, "spec": {"enforcedCompositionRef": {"name": "xbuckets-default"}}});
    rt.block_on(apply_doc(&client, &enforce, "platform-team", false));
    assert_eq!(
        source("referencing-bucket"),
        "Composition \"xbuckets-default\" (the XRD's spec.enforcedCompositionRef)"
    );

    // Clear errors: a kind nobody serves, a template kind without CRD, an RBAC denial.
    let e = server.xprender(&["diff", "--cluster", "widgets/w"]);
    assert_eq!(e.code, 1);
    assert!(
        e.stderr.contains("serves no kind \"widgets\"")
            && e.stderr.contains("CustomResourceDefinition"),
        "{}",
        e.stderr
    );
    let missing = server.dir().join("composition-missing-crd.yaml");
    std::fs::write(
        &missing,
        std::fs::read_to_string(data("composition.yaml"))
            .unwrap()
            .replace("kind: AccessKey", "kind: Widget"),
    )
    .unwrap();
    let e = server.xprender(&[
        "diff",
        "--cluster",
        "xbuckets/my-bucket",
        "--composition",
        missing.to_str().unwrap(),
    ]);
    assert_eq!(e.code, 1, "{}\n{}", e.stdout, e.stderr);
    assert!(
        e.stderr
            .contains("does not serve kind Widget in storage.example.org/v1"),
        "{}",
        e.stderr
    );
    let e = server.xprender(&[
        "diff",
        "--cluster",
        "xbuckets/my-bucket",
        "--context",
        "bob",
    ]);
    assert_eq!(e.code, 1, "{}\n{}", e.stdout, e.stderr);
    assert!(
        e.stderr.contains("forbidden")
            && e.stderr.contains("verb \"get\"")
            && e.stderr.contains("\"xbuckets.example.org\""),
        "{}",
        e.stderr
    );
    assert!(e.stderr.contains("User \"bob\""), "{}", e.stderr);
}

/// The repository's platform-db example, live: every resource is new, one apply converges.
#[test]
#[ignore = "needs kube-apiserver; scripts/suites/70-cluster.sh runs them"]
fn the_platform_db_example_converges_on_a_live_api_server() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/platform-db");
    let server = ApiServer::start();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = rt.block_on(async {
        let client = server.client().await;
        server.wait_ready(&client).await;
        apply_docs(&client, yaml_docs(&data("crds.yaml")), "test-setup").await;
        apply_docs(
            &client,
            yaml_docs(&data("platform-db-crds.yaml")),
            "test-setup",
        )
        .await;
        for f in ["xrd.yaml", "composition.yaml", "xr.yaml"] {
            apply_docs(&client, yaml_docs(&example.join(f)), "test-setup").await;
        }
        client
    });
    let target = "xpostgresqlinstances/orders-db";

    let d = server.xprender(&["diff", "--cluster", target, "-o", "json"]);
    assert_eq!(d.code, 3, "{}\n{}", d.stdout, d.stderr);
    let doc = d.json();
    assert!(
        doc["inputs"]["composition"]
            .as_str()
            .unwrap()
            .contains("postgresql-aws"),
        "{doc}"
    );
    let actions = resources_by_action(&doc);
    let composed: Vec<&String> = actions
        .iter()
        .filter(|(r, _)| *r != "composite")
        .map(|(_, a)| a)
        .collect();
    assert!(
        composed.len() >= 5 && composed.iter().all(|a| *a == "create"),
        "{actions:?}"
    );

    let kinds = [
        ("platform.example.org/v1alpha1", "XPostgreSQLInstance"),
        ("ec2.aws.upbound.io/v1beta1", "SecurityGroup"),
        ("rds.aws.upbound.io/v1beta1", "SubnetGroup"),
        ("rds.aws.upbound.io/v1beta1", "ClusterParameterGroup"),
        ("rds.aws.upbound.io/v1beta1", "Instance"),
        ("s3.aws.upbound.io/v1beta1", "Bucket"),
        ("kubernetes.crossplane.io/v1alpha2", "Object"),
    ];
    let before = rt.block_on(versions_of(&client, &kinds));
    assert_eq!(before.len(), 1, "only the XR exists: {before:?}");
    let a = server.xprender(&["apply", "--cluster", target]);
    assert_eq!(a.code, 0, "{}\n{}", a.stdout, a.stderr);
    assert_eq!(
        rt.block_on(versions_of(&client, &kinds)),
        before,
        "dry-run apply changed the cluster"
    );

    let a = server.xprender(&["apply", "--cluster", target, "--yes"]);
    assert_eq!(a.code, 0, "{}\n{}", a.stdout, a.stderr);
    assert_eq!(
        rt.block_on(versions_of(&client, &kinds)).len(),
        composed.len() + 1
    );
    let d = server.xprender(&["diff", "--cluster", target]);
    assert_eq!(d.code, 0, "diff after apply: {}\n{}", d.stdout, d.stderr);
    let d = server.xprender(&[
        "diff",
        "--cluster",
        "postgresqlinstance/orders-db",
        "-n",
        "orders",
    ]);
    assert_eq!(d.code, 1, "no claim was created: {}", d.stderr);
    assert!(
        d.stderr
            .contains("PostgreSQLInstance \"orders-db\" not found in namespace \"orders\""),
        "{}",
        d.stderr
    );
}

/// `xprender` without a cluster (xpkg build).
fn xprender_offline(args: &[&str]) -> Run {
    let mut cmd = Command::new(xprender_bin());
    cmd.args(args);
    run(cmd)
}

/// A server with the bucket example installed, with the owner reference Crossplane would have
/// written on the bucket.
fn bucket_server() -> (ApiServer, tokio::runtime::Runtime, kube::Client) {
    let server = ApiServer::start();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = rt.block_on(async {
        let client = server.client().await;
        server.wait_ready(&client).await;
        for f in ["crds.yaml", "xrd.yaml", "composition.yaml", "objects.yaml"] {
            apply_docs(&client, yaml_docs(&data(f)), "test-setup").await;
        }
        // Crossplane's owner reference on the bucket: the live Composition changes nothing.
        let xr = get(&client, "example.org/v1alpha1", "XBucket", "my-bucket").await;
        let owner = json!({"apiVersion": "example.org/v1alpha1", "kind": "XBucket", "name": "my-bucket",
            "uid": xr["metadata"]["uid"], "controller": true, "blockOwnerDeletion": true});
        let bucket = json!({"apiVersion": "storage.example.org/v1", "kind": "Bucket",
            "metadata": {"name": "my-bucket-7xk2p", "ownerReferences": [owner]}});
        apply_doc(&client, &bucket, "crossplane", false).await;
        client
    });
    (server, rt, client)
}

/// The bucket's `spec.forProvider.acl` in a diff's JSON, desired and live (`None`: unchanged).
fn acl_change(doc: &Value) -> Option<(Value, Value)> {
    changes_of(doc, "bucket")
        .into_iter()
        .find(|c| c["path"] == "spec.forProvider.acl")
        .map(|c| (c["live"].clone(), c["desired"].clone()))
}

/// The live Composition's file with another name and bucket ACL.
fn composition_variant(name: &str, acl: &str) -> String {
    std::fs::read_to_string(data("composition.yaml"))
        .unwrap()
        .replace("name: xbuckets-default", &format!("name: {name}"))
        .replace("acl: private", &format!("acl: {acl}"))
}

/// A native render that fails after Crossplane's apply step (a Required ToComposite patch on an
/// access key that does not exist yet): diff shows what would be applied and fails; apply
/// writes nothing.
#[test]
#[ignore = "needs kube-apiserver; scripts/suites/70-cluster.sh runs them"]
fn a_render_that_fails_after_the_apply_against_a_live_api_server() {
    let (server, rt, client) = bucket_server();
    let target = "xbuckets/my-bucket";
    let file = server.dir().join("required-key.yaml");
    let mut text = std::fs::read_to_string(data("composition.yaml")).unwrap();
    text.push_str(
        "        - type: ToCompositeFieldPath\n          fromFieldPath: status.atProvider.keyId\n          toFieldPath: status.keyId\n          policy: {fromFieldPath: Required}\n",
    );
    std::fs::write(&file, text).unwrap();
    let file = file.to_str().unwrap();
    let failure = "accessKey: cannot render ToComposite patches for composed resource \"accessKey\": cannot apply the \"ToCompositeFieldPath\" patch at index 1: status: no such field";

    let d = server.xprender(&[
        "diff",
        "--cluster",
        target,
        "--composition",
        file,
        "-o",
        "json",
    ]);
    assert_eq!(d.code, 1, "{}\n{}", d.stdout, d.stderr);
    let doc = d.json();
    assert_eq!(
        doc["failure"],
        format!("{failure} (patch #1, ToCompositeFieldPath) (field path status.atProvider.keyId)"),
        "{doc}"
    );
    // The composed resources Crossplane applies before failing; the XR is not applied.
    let actions = resources_by_action(&doc);
    assert_eq!(
        actions.get("accessKey").map(String::as_str),
        Some("create"),
        "{doc}"
    );
    assert_eq!(
        actions.get("bucket").map(String::as_str),
        Some("unchanged"),
        "{doc}"
    );
    assert!(!actions.contains_key("composite"), "{doc}");
    assert!(d.stderr.contains("render failed: "), "{}", d.stderr);

    let d = server.xprender(&["diff", "--cluster", target, "--composition", file]);
    assert_eq!(d.code, 1, "{}\n{}", d.stdout, d.stderr);
    assert!(d.stdout.contains("+ accessKey AccessKey"), "{}", d.stdout);
    assert!(d.stderr.contains(failure), "{}", d.stderr);
    assert!(
        d.stderr.contains(
            "Crossplane applies the composed resources shown and then fails the reconcile"
        ),
        "{}",
        d.stderr
    );

    let before = rt.block_on(versions(&client));
    let a = server.xprender(&["apply", "--cluster", target, "--composition", file, "--yes"]);
    assert_eq!(a.code, 1, "{}\n{}", a.stdout, a.stderr);
    assert!(a.stderr.contains(failure), "{}", a.stderr);
    assert!(a.stderr.contains("nothing was applied"), "{}", a.stderr);
    assert_eq!(
        rt.block_on(versions(&client)),
        before,
        "apply wrote nothing"
    );
}

/// `--package` (a package file from `xpkg build`) and `--composition FILE` instead of the
/// cluster's Composition, for render, diff and apply alike.
#[test]
#[ignore = "needs kube-apiserver; scripts/suites/70-cluster.sh runs them"]
fn local_and_package_compositions_against_a_live_api_server() {
    let (server, rt, client) = bucket_server();
    let target = "xbuckets/my-bucket";

    // A package with two Compositions for XBucket: the live one and a public-read variant.
    let dir = server.dir().join("package");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("crossplane.yaml"),
        "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: buckets\n",
    )
    .unwrap();
    std::fs::copy(data("composition.yaml"), dir.join("composition.yaml")).unwrap();
    std::fs::write(
        dir.join("public.yaml"),
        composition_variant("xbuckets-public", "public-read"),
    )
    .unwrap();
    let package = server.dir().join("buckets.xpkg");
    let package = package.to_str().unwrap();
    let b = xprender_offline(&["xpkg", "build", dir.to_str().unwrap(), "-o", package]);
    assert_eq!(b.code, 0, "xpkg build: {}", b.stderr);

    // Several Compositions suit the XR: Crossplane's selection picks (the XRD's default here),
    // so the package's copy of the live Composition changes nothing.
    let d = server.xprender(&[
        "diff",
        "--cluster",
        target,
        "--package",
        package,
        "-o",
        "json",
    ]);
    assert_eq!(d.code, 3, "{}\n{}", d.stdout, d.stderr);
    let doc = d.json();
    assert_eq!(
        doc["inputs"]["composition"],
        format!(
            "Composition \"xbuckets-default\" from package {package} (the XRD's spec.defaultCompositionRef)"
        ),
        "{doc}"
    );
    assert_eq!(resources_by_action(&doc)["bucket"], "unchanged", "{doc}");

    // --composition-name picks another one of the package.
    let public = [
        "--cluster",
        target,
        "--package",
        package,
        "--composition-name",
        "xbuckets-public",
    ];
    let d = server.xprender(&[&["diff"][..], &public, &["-o", "json"]].concat());
    assert_eq!(d.code, 3, "{}\n{}", d.stdout, d.stderr);
    let doc = d.json();
    assert_eq!(
        doc["inputs"]["composition"],
        format!("Composition \"xbuckets-public\" from package {package} (--composition-name)")
    );
    assert_eq!(
        acl_change(&doc),
        Some((json!("private"), json!("public-read"))),
        "{doc}"
    );
    let r = server.xprender(&[&["render"][..], &public, &["--output", "json"]].concat());
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(
        r.json()["resources"]["bucket"]["resource"]["spec"]["forProvider"]["acl"],
        "public-read",
        "{}",
        r.stdout
    );
    let before = rt.block_on(versions(&client));
    // test-setup owns the live ACL: taken over, but only in a dry run.
    let a = server.xprender(&[&["apply"][..], &public, &["--force-conflicts"]].concat());
    assert_eq!(a.code, 0, "{}\n{}", a.stdout, a.stderr);
    assert!(
        a.stdout
            .contains("bucket Bucket my-bucket-7xk2p: configured (dry run)"),
        "{}",
        a.stdout
    );
    assert_eq!(
        rt.block_on(versions(&client)),
        before,
        "dry-run apply wrote"
    );

    let e = server.xprender(&[
        "diff",
        "--cluster",
        target,
        "--package",
        package,
        "--composition-name",
        "nope",
    ]);
    assert_eq!(e.code, 2, "{}\n{}", e.stdout, e.stderr);
    assert!(
        e.stderr.contains(&format!(
            "package {package}: --composition-name: no Composition named \"nope\" (found: \"xbuckets-default\", \"xbuckets-public\")"
        )),
        "{}",
        e.stderr
    );

    // A local file with the only Composition for the XR's type: used whatever the XR selects.
    let file = server.dir().join("logging.yaml");
    std::fs::write(
        &file,
        composition_variant("xbuckets-logging", "log-delivery-write"),
    )
    .unwrap();
    let file = file.to_str().unwrap();
    let r = server.xprender(&[
        "render",
        "--cluster",
        target,
        "--composition",
        file,
        "--output",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(
        r.json()["resources"]["bucket"]["resource"]["spec"]["forProvider"]["acl"],
        "log-delivery-write",
        "{}",
        r.stdout
    );
    let d = server.xprender(&[
        "diff",
        "--cluster",
        target,
        "--composition",
        file,
        "-o",
        "json",
    ]);
    assert_eq!(
        d.json()["inputs"]["composition"],
        format!(
            "Composition \"xbuckets-logging\" from {file} (the only Composition for XBucket.example.org/v1alpha1)"
        )
    );

    // A package without a Composition for the XR is named as such.
    let other = server.dir().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::copy(dir.join("crossplane.yaml"), other.join("crossplane.yaml")).unwrap();
    std::fs::write(
        other.join("composition.yaml"),
        composition_variant("widgets", "private").replace("kind: XBucket", "kind: XWidget"),
    )
    .unwrap();
    let other_pkg = server.dir().join("other.xpkg");
    let other_pkg = other_pkg.to_str().unwrap();
    assert_eq!(
        xprender_offline(&["xpkg", "build", other.to_str().unwrap(), "-o", other_pkg]).code,
        0
    );
    let e = server.xprender(&["render", "--cluster", target, "--package", other_pkg]);
    assert_eq!(e.code, 2, "{}\n{}", e.stdout, e.stderr);
    assert!(
        e.stderr.contains(
            "no Composition has compositeTypeRef XBucket.example.org/v1alpha1 (found: widgets for XWidget.example.org/v1alpha1)"
        ),
        "{}",
        e.stderr
    );

    // The cluster's own Composition of another name.
    rt.block_on(async {
        let alt: Value =
            serde_saphyr::from_str(&composition_variant("xbuckets-alt", "authenticated-read"))
                .unwrap();
        apply_doc(&client, &alt, "test-setup", false).await;
    });
    let d = server.xprender(&[
        "diff",
        "--cluster",
        target,
        "--composition-name",
        "xbuckets-alt",
        "-o",
        "json",
    ]);
    assert_eq!(d.code, 3, "{}\n{}", d.stdout, d.stderr);
    let doc = d.json();
    assert_eq!(
        doc["inputs"]["composition"],
        "Composition \"xbuckets-alt\" (--composition-name)"
    );
    assert_eq!(
        acl_change(&doc),
        Some((json!("private"), json!("authenticated-read")))
    );
    let e = server.xprender(&["diff", "--cluster", target, "--composition-name", "gone"]);
    assert_eq!(e.code, 2);
    assert!(
        e.stderr
            .contains("--composition-name: no Composition named \"gone\" (found: "),
        "{}",
        e.stderr
    );

    // Among several local Compositions for the XR, Crossplane's selection must find one.
    rt.block_on(async {
        let (api, _, _) = dynamic(&client, "example.org/v1alpha1", "XBucket")
            .await
            .unwrap();
        let patch = json!({"spec": {"compositionRef": {"name": "xbuckets-alt"}}});
        api.patch("my-bucket", &PatchParams::default(), &Patch::Merge(patch))
            .await
            .unwrap();
    });
    let e = server.xprender(&["diff", "--cluster", target, "--package", package]);
    assert_eq!(e.code, 2, "{}\n{}", e.stdout, e.stderr);
    assert!(
        e.stderr.contains(&format!(
            "package {package}: the XR's compositionRef names Composition \"xbuckets-alt\", which is not among the documents given"
        )) && e.stderr.contains("; pick one with --composition-name"),
        "{}",
        e.stderr
    );
    let d = server.xprender(&[&["diff"][..], &public, &["-o", "json"]].concat());
    assert_eq!(d.code, 3, "{}\n{}", d.stdout, d.stderr);
    assert_eq!(
        acl_change(&d.json()),
        Some((json!("private"), json!("public-read")))
    );
}

/// Composition revisions as Crossplane v1.14 picks them: the pinned one under the Manual policy,
/// the latest matching the revision selector under Automatic, else the Composition itself.
#[test]
#[ignore = "needs kube-apiserver; scripts/suites/70-cluster.sh runs them"]
fn composition_revisions_against_a_live_api_server() {
    let (server, rt, client) = bucket_server();
    let target = "xbuckets/my-bucket";
    let comp = rt.block_on(get(
        &client,
        "apiextensions.crossplane.io/v1",
        "Composition",
        "xbuckets-default",
    ));
    // Revision 1 (channel stable) had another ACL; revision 2 (channel dev) is the current spec.
    // One more revision of another Composition must never be chosen for this one.
    let revision = |name: &str, number: i64, channel: &str, acl: &str, owner: &Value| {
        let mut spec = owner["spec"].clone();
        spec["revision"] = json!(number);
        spec["resources"][0]["base"]["spec"]["forProvider"]["acl"] = json!(acl);
        let owner_name = owner["metadata"]["name"].clone();
        json!({"apiVersion": "apiextensions.crossplane.io/v1", "kind": "CompositionRevision",
            "metadata": {"name": name,
                "labels": {"crossplane.io/composition-name": owner_name, "channel": channel},
                "ownerReferences": [{"apiVersion": "apiextensions.crossplane.io/v1", "kind": "Composition",
                    "name": owner_name, "uid": owner["metadata"]["uid"], "controller": true}]},
            "spec": spec})
    };
    let mut stranger = comp.clone();
    stranger["metadata"]["uid"] = json!("00000000-0000-0000-0000-000000000000");
    rt.block_on(async {
        for r in [
            revision(
                "xbuckets-default-1",
                1,
                "stable",
                "bucket-owner-read",
                &comp,
            ),
            revision("xbuckets-default-2", 2, "dev", "private", &comp),
            revision(
                "xbuckets-default-9",
                9,
                "stable",
                "public-read-write",
                &stranger,
            ),
        ] {
            apply_doc(&client, &r, "crossplane", false).await;
        }
    });
    // Sets the XR's revision fields (a merge patch: those not given are removed).
    let set_xr = |fields: Value| {
        let mut spec = json!({"compositionUpdatePolicy": null, "compositionRevisionRef": null,
            "compositionRevisionSelector": null});
        for (k, v) in fields.as_object().unwrap() {
            spec[k] = v.clone();
        }
        rt.block_on(async {
            let (api, _, _) = dynamic(&client, "example.org/v1alpha1", "XBucket")
                .await
                .unwrap();
            api.patch(
                "my-bucket",
                &PatchParams::default(),
                &Patch::Merge(json!({"spec": spec})),
            )
            .await
            .unwrap();
        });
    };
    let diff = || {
        let d = server.xprender(&["diff", "--cluster", target, "-o", "json"]);
        assert!(d.code == 0 || d.code == 3, "{}\n{}", d.stdout, d.stderr);
        d.json()
    };
    let default = "Composition \"xbuckets-default\" (the XRD's spec.defaultCompositionRef)";

    // Manual policy with a reference: that revision, whatever the Composition says now.
    set_xr(
        json!({"compositionUpdatePolicy": "Manual", "compositionRevisionRef": {"name": "xbuckets-default-1"}}),
    );
    let doc = diff();
    assert_eq!(
        doc["inputs"]["composition"],
        "CompositionRevision \"xbuckets-default-1\" (the XR's spec.compositionRevisionRef \
         (compositionUpdatePolicy: Manual); the XRD's spec.defaultCompositionRef)"
    );
    assert_eq!(
        acl_change(&doc),
        Some((json!("private"), json!("bucket-owner-read"))),
        "{doc}"
    );
    let r = server.xprender(&["render", "--cluster", target, "--output", "json"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(
        r.json()["resources"]["bucket"]["resource"]["spec"]["forProvider"]["acl"],
        "bucket-owner-read"
    );
    // A local Composition replaces the pinned revision (which names the cluster's).
    let d = server.xprender(&[
        "diff",
        "--cluster",
        target,
        "--composition",
        data("composition.yaml").to_str().unwrap(),
    ]);
    assert_eq!(d.code, 3, "{}\n{}", d.stdout, d.stderr);
    assert!(!d.stdout.contains("bucket-owner-read"), "{}", d.stdout);

    // Automatic policy: the reference is Crossplane's record of the latest revision, which
    // mirrors the Composition, so the Composition itself is rendered.
    set_xr(
        json!({"compositionUpdatePolicy": "Automatic", "compositionRevisionRef": {"name": "xbuckets-default-1"}}),
    );
    let doc = diff();
    assert_eq!(doc["inputs"]["composition"], default);
    assert_eq!(acl_change(&doc), None, "{doc}");
    // Manual without a reference: Crossplane pins the latest revision, the Composition's twin.
    set_xr(json!({"compositionUpdatePolicy": "Manual"}));
    assert_eq!(diff()["inputs"]["composition"], default);

    // A revision selector: the highest revision of this Composition among those it matches.
    set_xr(json!({"compositionRevisionSelector": {"matchLabels": {"channel": "stable"}}}));
    let doc = diff();
    assert_eq!(
        doc["inputs"]["composition"],
        format!(
            "CompositionRevision \"xbuckets-default-1\" (latest revision of Composition \"xbuckets-default\"; \
             the XRD's spec.defaultCompositionRef)"
        )
    );
    assert_eq!(
        acl_change(&doc),
        Some((json!("private"), json!("bucket-owner-read")))
    );
    set_xr(json!({"compositionUpdatePolicy": "Automatic",
        "compositionRevisionSelector": {"matchLabels": {"channel": "dev"}}}));
    let doc = diff();
    assert!(
        doc["inputs"]["composition"]
            .as_str()
            .unwrap()
            .starts_with("CompositionRevision \"xbuckets-default-2\" (latest revision of"),
        "{doc}"
    );
    assert_eq!(acl_change(&doc), None, "{doc}");

    // Clear errors: nothing matches the selector; the pinned revision is missing.
    set_xr(json!({"compositionRevisionSelector": {"matchLabels": {"channel": "beta"}}}));
    let e = server.xprender(&["diff", "--cluster", target]);
    assert_eq!(e.code, 2, "{}\n{}", e.stdout, e.stderr);
    assert!(
        e.stderr.contains(
            "no CompositionRevision of Composition \"xbuckets-default\" matches the XR's spec.compositionRevisionSelector {\"channel\":\"beta\"}"
        ),
        "{}",
        e.stderr
    );
    set_xr(
        json!({"compositionUpdatePolicy": "Manual", "compositionRevisionRef": {"name": "xbuckets-default-7"}}),
    );
    let e = server.xprender(&["render", "--cluster", target]);
    assert_eq!(e.code, 2, "{}\n{}", e.stdout, e.stderr);
    assert!(
        e.stderr.contains("CompositionRevision \"xbuckets-default-7\" named by the XR's spec.compositionRevisionRef (compositionUpdatePolicy: Manual) is not among the documents given (found: "),
        "{}",
        e.stderr
    );

    // Without the CompositionRevision CRD the cluster has no revisions: the Composition is
    // rendered, as from files given no revisions.
    rt.block_on(async {
        let (crds, _, _) = dynamic(
            &client,
            "apiextensions.k8s.io/v1",
            "CustomResourceDefinition",
        )
        .await
        .unwrap();
        crds.delete(
            "compositionrevisions.apiextensions.crossplane.io",
            &Default::default(),
        )
        .await
        .unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        while dynamic(
            &client,
            "apiextensions.crossplane.io/v1",
            "CompositionRevision",
        )
        .await
        .is_some()
        {
            assert!(Instant::now() < deadline, "the CRD was never removed");
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
    });
    set_xr(
        json!({"compositionUpdatePolicy": "Manual", "compositionRevisionRef": {"name": "xbuckets-default-1"}}),
    );
    assert_eq!(diff()["inputs"]["composition"], default);
    // The Automatic policy needs no revision.
    set_xr(json!({}));
    assert_eq!(diff()["inputs"]["composition"], default);
}

/// The Composition comes from one source: the cluster, --composition FILE or --package REF.
#[test]
fn composition_sources_are_mutually_exclusive() {
    let cases: [&[&str]; 4] = [
        &[
            "diff",
            "--cluster",
            "xbuckets/b",
            "--composition",
            "c.yaml",
            "--package",
            "p.xpkg",
        ],
        &[
            "apply",
            "--cluster",
            "xbuckets/b",
            "--package",
            "p.xpkg",
            "--composition",
            "c.yaml",
        ],
        &[
            "render",
            "--cluster",
            "xbuckets/b",
            "--composition",
            "c.yaml",
            "--package",
            "p.xpkg",
        ],
        &["render", "xr.yaml", "c.yaml", "--package", "p.xpkg"],
    ];
    for args in cases {
        let r = xprender_offline(args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(
            r.stderr.contains("cannot be used with") && r.stderr.contains("--package <REF|FILE>"),
            "{args:?}: {}",
            r.stderr
        );
    }
}

fn kubeconfig_for(dir: &Path, server: &str) -> PathBuf {
    let path = dir.join("kubeconfig");
    let mut f = std::fs::File::create(&path).unwrap();
    write!(
        f,
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {{server: \"{server}\", insecure-skip-tls-verify: true}}\n\
         users:\n- name: u\n  user: {{token: t}}\ncontexts:\n- name: c\n  context: {{cluster: c, user: u}}\ncurrent-context: c\n"
    )
    .unwrap();
    path
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xprender-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn an_unreachable_server_is_named() {
    let dir = scratch("unreachable");
    let port = free_port(); // closed again: nothing listens there
    let kc = kubeconfig_for(&dir, &format!("https://127.0.0.1:{port}"));
    let mut cmd = Command::new(xprender_bin());
    cmd.args(["diff", "--cluster", "xbuckets/x", "--kubeconfig"])
        .arg(&kc);
    let r = run(cmd);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!(
            "cannot reach the API server at https://127.0.0.1:{port}"
        )),
        "{}",
        r.stderr
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_silent_server_times_out() {
    let dir = scratch("timeout");
    // Accepts connections and never answers.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let held = std::thread::spawn(move || {
        let conns: Vec<_> = listener.incoming().take(4).filter_map(Result::ok).collect();
        std::thread::sleep(Duration::from_secs(5));
        drop(conns);
    });
    let kc = kubeconfig_for(&dir, &format!("https://127.0.0.1:{port}"));
    let mut cmd = Command::new(xprender_bin());
    cmd.args([
        "diff",
        "--cluster",
        "xbuckets/x",
        "--timeout",
        "1s",
        "--kubeconfig",
    ])
    .arg(&kc);
    let started = Instant::now();
    let r = run(cmd);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("timed out after 1s"), "{}", r.stderr);
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "took {:?}",
        started.elapsed()
    );
    drop(held);
    let _ = std::fs::remove_dir_all(dir);
}
