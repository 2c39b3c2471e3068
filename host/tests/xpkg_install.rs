//! `xprender xpkg install | uninstall | list` against a real kube-apiserver (with etcd) and a
//! loopback OCI registry, both started here; packages are built and pushed with the CLI.
//!
//! Needs `XPRENDER_KUBE_APISERVER`, `etcd`, `openssl` and `docker-registry`;
//! scripts/suites/70-cluster.sh provides them and runs these with `--ignored`.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, Patch, PatchParams};
use serde_json::{Value, json};
use sha2::Digest as _;

/// The servers and tools these tests share with the other live-server tests.
mod live {
    pub(crate) mod apiserver;
    pub(crate) mod registry;
    pub(crate) mod tools;
}

use live::apiserver::{Run, Servers};
use live::tools::{free_port, xprender_bin};

const IGNORE: &str =
    "needs kube-apiserver and docker-registry; scripts/suites/70-cluster.sh runs them";

/// etcd, kube-apiserver (user `admin`) and a registry in a temp dir, all stopped on drop.
struct World {
    servers: Servers,
    registry: String,
}

impl World {
    fn start() -> World {
        let mut servers = Servers::start(&[]);
        let reg_port = free_port();
        servers.spawn(&mut live::registry::command(
            &servers.dir,
            reg_port,
            false,
            None,
        ));
        assert!(
            live::registry::wait_up(reg_port),
            "docker-registry did not start; see {}",
            servers.dir.display()
        );
        World {
            servers,
            registry: format!("127.0.0.1:{reg_port}"),
        }
    }

    /// Scratch space beside the servers' logs, removed when the test passes.
    fn dir(&self) -> &Path {
        &self.servers.dir
    }

    async fn client(&self) -> kube::Client {
        let client = self.servers.client().await;
        let deadline = Instant::now() + Duration::from_secs(90);
        // Ready once the RBAC bootstrap ran and CRDs can be created.
        while crd_api(&client).list(&Default::default()).await.is_err()
            || api(
                &client,
                "rbac.authorization.k8s.io/v1",
                "ClusterRoleBinding",
                "clusterrolebindings",
            )
            .get_opt("system:discovery")
            .await
            .ok()
            .flatten()
            .is_none()
        {
            assert!(Instant::now() < deadline, "kube-apiserver not ready");
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
        client
    }

    /// Runs the CLI with an isolated blob cache and the test kubeconfig.
    fn run(&self, args: &[&str]) -> Run {
        Command::new(xprender_bin())
            .args(args)
            .env("XPRENDER_CACHE_DIR", self.dir().join("cache"))
            .env("DOCKER_CONFIG", self.dir().join("docker"))
            .env("KUBECONFIG", &self.servers.kubeconfig)
            .stdin(Stdio::null())
            .output()
            .expect("cannot run xprender")
            .into()
    }

    fn ok(&self, args: &[&str]) -> Run {
        let r = self.run(args);
        assert_eq!(
            r.code, 0,
            "xprender {args:?} failed:\n{}\n{}",
            r.stdout, r.stderr
        );
        r
    }

    fn ok_json(&self, args: &[&str]) -> Value {
        let mut a = args.to_vec();
        a.extend(["-o", "json"]);
        let r = self.ok(&a);
        serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", r.stdout))
    }

    fn fails(&self, args: &[&str]) -> String {
        let r = self.run(args);
        assert_ne!(r.code, 0, "xprender {args:?} should fail:\n{}", r.stdout);
        r.stderr
    }

    /// Builds `docs` into a package with `xpkg build` and pushes it as `repo:tag`.
    fn publish(&self, repo_tag: &str, docs: &[String]) -> String {
        let id = repo_tag.replace(['/', ':'], "_");
        let src = self.dir().join("src").join(&id);
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(src.join("package.yaml"), docs.join("---\n")).unwrap();
        let file = self.dir().join(format!("{id}.xpkg"));
        self.ok(&[
            "xpkg",
            "build",
            src.to_str().unwrap(),
            "-o",
            file.to_str().unwrap(),
        ]);
        let r = self.ok(&[
            "xpkg",
            "push",
            file.to_str().unwrap(),
            &format!("{}/{repo_tag}", self.registry),
        ]);
        r.stdout.split_whitespace().nth(1).unwrap().to_owned()
    }

    /// Pushes a legacy `.registry/` image of these files as `repo:tag`.
    fn publish_legacy(&self, repo_tag: &str, files: &[(&str, String)]) {
        let file = self
            .dir()
            .join(format!("{}.tar", repo_tag.replace(['/', ':'], "_")));
        std::fs::write(&file, legacy_layout(files)).unwrap();
        self.ok(&[
            "xpkg",
            "push",
            file.to_str().unwrap(),
            &format!("{}/{repo_tag}", self.registry),
        ]);
    }

    fn pkg(&self, repo: &str) -> String {
        format!("{}/{repo}", self.registry)
    }
}

fn sha(b: &[u8]) -> String {
    format!("sha256:{:x}", sha2::Sha256::digest(b))
}

/// An OCI image layout tarball with one gzip layer holding `files`.
fn legacy_layout(files: &[(&str, String)]) -> Vec<u8> {
    let tarball = |entries: &[(String, Vec<u8>)]| {
        let mut t = tar::Builder::new(Vec::new());
        for (p, data) in entries {
            let mut h = tar::Header::new_ustar();
            h.set_size(data.len() as u64);
            h.set_mode(0o644);
            h.set_mtime(0);
            t.append_data(&mut h, p, data.as_slice()).unwrap();
        }
        t.into_inner().unwrap()
    };
    let layer_tar = tarball(
        &files
            .iter()
            .map(|(p, t)| ((*p).to_owned(), t.as_bytes().to_vec()))
            .collect::<Vec<_>>(),
    );
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    z.write_all(&layer_tar).unwrap();
    let layer = z.finish().unwrap();
    let config =
        br#"{"architecture":"amd64","os":"linux","rootfs":{"type":"layers","diff_ids":[]}}"#
            .to_vec();
    let manifest = serde_json::to_vec(&json!({"schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": sha(&config), "size": config.len()},
        "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": sha(&layer), "size": layer.len()}]}))
    .unwrap();
    let index = serde_json::to_vec(&json!({"schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.index.v1+json",
        "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": sha(&manifest), "size": manifest.len()}]}))
    .unwrap();
    let blob = |b: &[u8]| (format!("blobs/sha256/{}", &sha(b)[7..]), b.to_vec());
    tarball(&[
        (
            "oci-layout".into(),
            br#"{"imageLayoutVersion":"1.0.0"}"#.to_vec(),
        ),
        ("index.json".into(), index),
        blob(&layer),
        blob(&config),
        blob(&manifest),
    ])
}

fn api(client: &kube::Client, api_version: &str, kind: &str, plural: &str) -> Api<DynamicObject> {
    let (g, v) = api_version.split_once('/').unwrap_or(("", api_version));
    let ar = ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk(g, v, kind), plural);
    Api::all_with(client.clone(), &ar)
}

fn crd_api(client: &kube::Client) -> Api<DynamicObject> {
    api(
        client,
        "apiextensions.k8s.io/v1",
        "CustomResourceDefinition",
        "customresourcedefinitions",
    )
}

async fn get(a: &Api<DynamicObject>, name: &str) -> Option<Value> {
    a.get_opt(name)
        .await
        .unwrap()
        .map(|o| serde_json::to_value(o).unwrap())
}

/// Applies every document of a test data file as `test-setup`, then waits for the CRDs.
async fn setup(client: &kube::Client, file: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/cluster")
        .join(file);
    let text = std::fs::read_to_string(path).unwrap();
    let docs: Vec<Value> = serde_saphyr::from_multiple(&text).unwrap();
    for doc in docs
        .into_iter()
        .filter(|d| d["kind"] == "CustomResourceDefinition")
    {
        let name = doc["metadata"]["name"].as_str().unwrap().to_owned();
        crd_api(client)
            .patch(
                &name,
                &PatchParams::apply("test-setup").force(),
                &Patch::Apply(&doc),
            )
            .await
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let crd = get(&crd_api(client), &name).await.unwrap();
            let est = crd["status"]["conditions"].as_array().is_some_and(|cs| {
                cs.iter()
                    .any(|c| c["type"] == "Established" && c["status"] == "True")
            });
            if est {
                break;
            }
            assert!(Instant::now() < deadline, "{name} not established");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    // Discovery catches up a moment after Established.
    tokio::time::sleep(Duration::from_secs(2)).await;
}

fn meta(kind: &str, name: &str, deps: &[(&str, &str, &str)]) -> String {
    let mut s =
        format!("apiVersion: meta.pkg.crossplane.io/v1\nkind: {kind}\nmetadata:\n  name: {name}\n");
    if !deps.is_empty() {
        s.push_str("spec:\n  dependsOn:\n");
        for (field, p, v) in deps {
            s.push_str(&format!("    - {field}: {p}\n      version: '{v}'\n"));
        }
    }
    s
}

fn crd(group: &str, kind: &str) -> String {
    let plural = format!("{}s", kind.to_lowercase());
    format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: {plural}.{group}\nspec:\n  group: {group}\n  scope: Cluster\n  names: {{kind: {kind}, plural: {plural}}}\n  versions:\n    - name: v1\n      served: true\n      storage: true\n      schema: {{openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}}}\n"
    )
}

fn xrd(group: &str, kind: &str) -> String {
    let plural = format!("{}s", kind.to_lowercase());
    format!(
        "apiVersion: apiextensions.crossplane.io/v1\nkind: CompositeResourceDefinition\nmetadata:\n  name: {plural}.{group}\nspec:\n  group: {group}\n  names: {{kind: {kind}, plural: {plural}}}\n  versions:\n    - name: v1\n      served: true\n      referenceable: true\n      schema: {{openAPIV3Schema: {{type: object}}}}\n"
    )
}

fn composition(name: &str, group: &str, kind: &str, note: &str) -> String {
    format!(
        "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: {name}\n  annotations: {{example.org/note: '{note}'}}\nspec:\n  compositeTypeRef: {{apiVersion: {group}/v1, kind: {kind}}}\n  resources: []\n"
    )
}

fn label_of(o: &Value) -> &str {
    o["metadata"]["labels"]["pkg.crossplane.io/package"]
        .as_str()
        .unwrap_or("")
}

/// name → resourceVersion of the objects the packages own, and of the record.
async fn versions(client: &kube::Client) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (av, kind, plural) in [
        (
            "apiextensions.k8s.io/v1",
            "CustomResourceDefinition",
            "customresourcedefinitions",
        ),
        (
            "apiextensions.crossplane.io/v1",
            "CompositeResourceDefinition",
            "compositeresourcedefinitions",
        ),
        (
            "apiextensions.crossplane.io/v1",
            "Composition",
            "compositions",
        ),
        ("pkg.crossplane.io/v1beta1", "Lock", "locks"),
    ] {
        for o in api(client, av, kind, plural)
            .list(&Default::default())
            .await
            .unwrap()
        {
            out.insert(
                format!("{kind} {}", o.metadata.name.clone().unwrap_or_default()),
                o.metadata.resource_version.clone().unwrap_or_default(),
            );
        }
    }
    out
}

fn actions(doc: &Value) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for p in doc["packages"].as_array().unwrap() {
        for o in p["objects"].as_array().unwrap() {
            out.insert(
                format!(
                    "{} {} {}",
                    p["name"].as_str().unwrap(),
                    o["kind"].as_str().unwrap(),
                    o["name"].as_str().unwrap()
                ),
                o["action"].as_str().unwrap().to_owned(),
            );
        }
    }
    out
}

#[test]
#[ignore = "needs kube-apiserver and docker-registry; scripts/suites/70-cluster.sh runs them"]
fn direct_install_upgrade_conflict_and_uninstall() {
    let _ = IGNORE;
    let w = World::start();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = rt.block_on(async {
        let c = w.client().await;
        setup(&c, "crds.yaml").await;
        c
    });
    let (net, db, app) = (w.pkg("org/net"), w.pkg("org/db"), w.pkg("org/app"));
    let net_digest = w.publish(
        "org/net:v1.0.0",
        &[
            meta("Provider", "net", &[]),
            crd("net.example.org", "Network"),
        ],
    );
    let db_digest = w.publish(
        "org/db:v1.0.0",
        &[
            meta("Configuration", "db", &[("provider", &net, ">=v1.0.0")]),
            xrd("db.example.org", "XDatabase"),
            composition("db-small", "db.example.org", "XDatabase", "small"),
        ],
    );
    w.publish(
        "org/app:v1.0.0",
        &[
            meta("Configuration", "app", &[("configuration", &db, "^1")]),
            xrd("app.example.org", "XApp"),
            composition("app-a", "app.example.org", "XApp", "a"),
            composition("app-b", "app.example.org", "XApp", "b"),
        ],
    );
    let app_v2 = w.publish(
        "org/app:v1.1.0",
        &[
            meta("Configuration", "app", &[("configuration", &db, "^1")]),
            xrd("app.example.org", "XApp"),
            composition("app-a", "app.example.org", "XApp", "a, revised"),
        ],
    );

    // A dry run plans every package, dependencies first, and writes nothing.
    let plan = w.ok_json(&["xpkg", "install", &format!("{app}:v1.0.0"), "--direct"]);
    assert_eq!(plan["dryRun"], true);
    let names: Vec<&str> = plan["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["net", "db", "app"]);
    assert!(actions(&plan).values().all(|a| a == "create"), "{plan}");
    let text = w
        .ok(&["xpkg", "install", &format!("{app}:v1.0.0"), "--direct"])
        .stdout;
    assert!(
        text.contains("would create CustomResourceDefinition networks.net.example.org"),
        "{text}"
    );
    assert!(
        text.contains("Dry run: the cluster was not changed"),
        "{text}"
    );
    let crds = crd_api(&client);
    assert!(
        rt.block_on(get(&crds, "networks.net.example.org"))
            .is_none()
    );

    // Install: CRDs (Established), XRDs, Compositions, labelled, and the record.
    let done = w.ok_json(&[
        "xpkg",
        "install",
        &format!("{app}:v1.0.0"),
        "--direct",
        "--yes",
    ]);
    assert_eq!(done["dryRun"], false);
    let net_crd = rt
        .block_on(get(&crds, "networks.net.example.org"))
        .expect("CRD created");
    assert_eq!(label_of(&net_crd), "net");
    assert!(
        net_crd["status"]["conditions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["type"] == "Established" && c["status"] == "True")
    );
    let xrds = api(
        &client,
        "apiextensions.crossplane.io/v1",
        "CompositeResourceDefinition",
        "compositeresourcedefinitions",
    );
    let comps = api(
        &client,
        "apiextensions.crossplane.io/v1",
        "Composition",
        "compositions",
    );
    assert_eq!(
        label_of(
            &rt.block_on(get(&xrds, "xdatabases.db.example.org"))
                .unwrap()
        ),
        "db"
    );
    assert_eq!(
        label_of(&rt.block_on(get(&xrds, "xapps.app.example.org")).unwrap()),
        "app"
    );
    for c in ["app-a", "app-b"] {
        assert_eq!(
            label_of(&rt.block_on(get(&comps, c)).unwrap()),
            "app",
            "{c}"
        );
    }
    let locks = api(&client, "pkg.crossplane.io/v1beta1", "Lock", "locks");
    let lock = rt.block_on(get(&locks, "xprender")).expect("the record");
    let entries = lock["packages"].as_array().unwrap();
    assert_eq!(entries.len(), 3);
    assert_eq!(
        entries[0],
        json!({"name": "net", "type": "Provider", "source": net, "version": "v1.0.0", "digest": net_digest,
            "dependencies": [], "objects": [{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "name": "networks.net.example.org"}]})
    );
    assert_eq!(entries[1]["digest"], db_digest.as_str());
    assert_eq!(
        entries[1]["dependencies"],
        json!([{"package": net, "type": "Provider", "constraints": ">=v1.0.0", "version": "v1.0.0"}])
    );
    assert_eq!(entries[2]["dependencies"][0]["package"], db.as_str());

    // list reads it back.
    let listed = w.ok_json(&["xpkg", "list"]);
    let rows: Vec<(String, String, String)> = listed["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().into(),
                p["version"].as_str().unwrap().into(),
                p["mode"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("net".into(), "v1.0.0".into(), "direct".into()),
            ("db".into(), "v1.0.0".into(), "direct".into()),
            ("app".into(), "v1.0.0".into(), "direct".into())
        ]
    );
    assert_eq!(
        listed["packages"][2]["dependsOn"],
        json!([{"package": db, "version": "v1.0.0"}])
    );
    let table = w.ok(&["xpkg", "list"]).stdout;
    assert!(table.starts_with("NAME"), "{table}");
    assert!(
        table.contains(&format!("app   Configuration  {app}:v1.0.0")),
        "{table}"
    );

    // Re-installing the same version writes nothing.
    let before = rt.block_on(versions(&client));
    let again = w.ok_json(&[
        "xpkg",
        "install",
        &format!("{app}:v1.0.0"),
        "--direct",
        "--yes",
    ]);
    assert!(
        actions(&again).values().all(|a| a == "unchanged"),
        "{again}"
    );
    assert!(
        again["packages"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["recordChanged"] == false)
    );
    assert_eq!(
        rt.block_on(versions(&client)),
        before,
        "a re-install wrote to the cluster"
    );

    // Upgrading updates what changed and removes the Composition the new version dropped.
    let up = w.ok_json(&[
        "xpkg",
        "install",
        &format!("{app}:v1.1.0"),
        "--direct",
        "--yes",
    ]);
    let a = actions(&up);
    assert_eq!(a["app Composition app-a"], "update", "{up}");
    assert_eq!(a["app Composition app-b"], "delete", "{up}");
    assert_eq!(
        a["app CompositeResourceDefinition xapps.app.example.org"], "unchanged",
        "{up}"
    );
    assert_eq!(a["db Composition db-small"], "unchanged", "{up}");
    assert!(
        rt.block_on(get(&comps, "app-b")).is_none(),
        "app-b was not removed"
    );
    let app_a = rt.block_on(get(&comps, "app-a")).unwrap();
    assert_eq!(
        app_a["metadata"]["annotations"]["example.org/note"],
        "a, revised"
    );
    let lock = rt.block_on(get(&locks, "xprender")).unwrap();
    assert_eq!(lock["packages"][2]["version"], "v1.1.0");
    assert_eq!(lock["packages"][2]["digest"], app_v2.as_str());

    // An object another package owns is refused, naming that package; nothing is written.
    w.publish(
        "org/rogue:v1.0.0",
        &[
            meta("Configuration", "rogue", &[]),
            xrd("rogue.example.org", "XRogue"),
            composition("app-a", "rogue.example.org", "XRogue", "r"),
        ],
    );
    let e = w.fails(&[
        "xpkg",
        "install",
        &w.pkg("org/rogue:v1.0.0"),
        "--direct",
        "--yes",
    ]);
    assert!(
        e.contains(&format!(
            "conflict: Composition app-a of {} belongs to package app",
            w.pkg("org/rogue")
        )),
        "{e}"
    );
    assert!(
        rt.block_on(get(&xrds, "xrogues.rogue.example.org"))
            .is_none(),
        "a refused install wrote"
    );

    // Uninstall: refused while a dependent is installed; then app, then db.
    let e = w.fails(&["xpkg", "uninstall", "db", "--yes"]);
    assert!(
        e.contains("cannot uninstall db: package app depends on it (version ^1)"),
        "{e}"
    );
    let dry = w.ok(&["xpkg", "uninstall", "app"]).stdout;
    assert!(dry.contains("would delete Composition app-a"), "{dry}");
    assert!(rt.block_on(get(&comps, "app-a")).is_some());
    w.ok(&["xpkg", "uninstall", "app", "--yes"]);
    assert!(rt.block_on(get(&comps, "app-a")).is_none());
    assert!(rt.block_on(get(&xrds, "xapps.app.example.org")).is_none());
    w.ok(&["xpkg", "uninstall", "db", "--yes"]);
    let lock = rt.block_on(get(&locks, "xprender")).unwrap();
    let left: Vec<&str> = lock["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(left, ["net"]);
    let e = w.fails(&["xpkg", "uninstall", "app"]);
    assert!(
        e.contains("package app is not installed (installed: net)"),
        "{e}"
    );
}

#[test]
#[ignore = "needs kube-apiserver and docker-registry; scripts/suites/70-cluster.sh runs them"]
fn legacy_package_by_crd_name_brings_its_crd_dependencies_first() {
    let w = World::start();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = rt.block_on(w.client());
    let app = |title: &str, needs: &[&str]| {
        let mut s = format!("apiVersion: 0.2.0\ntitle: {title}\npackageType: Provider\n");
        if !needs.is_empty() {
            s.push_str("dependsOn:\n");
            for n in needs {
                s.push_str(&format!("  - crd: '{n}'\n"));
            }
        }
        s
    };
    w.publish_legacy(
        "org/queue:v0.1.0",
        &[
            (".registry/app.yaml", app("Queues", &[])),
            (
                ".registry/resources/queue/crd.yaml",
                crd("queue.example.org", "Queue"),
            ),
        ],
    );
    w.publish_legacy(
        "org/storage:v1.0.0",
        &[
            (
                ".registry/app.yaml",
                app("Storage", &["*.queue.example.org/v1"]),
            ),
            (".registry/icon.svg", "<svg/>".into()),
            (
                ".registry/resources/storage/group.yaml",
                "title: Object storage\noverviewShort: Buckets.\n".into(),
            ),
            (
                ".registry/resources/storage/bucket.resource.yaml",
                "id: Bucket\ntitle: Bucket\ntitlePlural: Buckets\ncategory: Storage\n".into(),
            ),
            (
                ".registry/resources/storage/bucket.crd.yaml",
                crd("storage.example.org", "Bucket"),
            ),
        ],
    );
    let index = w.dir().join("index.json");
    w.ok(&[
        "xpkg",
        "index",
        &w.pkg("org/queue"),
        &w.pkg("org/storage"),
        "-f",
        index.to_str().unwrap(),
    ]);

    let out = w.ok_json(&[
        "xpkg",
        "install",
        "--crd",
        "buckets.storage.example.org/v1",
        "--index",
        index.to_str().unwrap(),
        "--direct",
        "--yes",
    ]);
    let names: Vec<&str> = out["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["queue", "storage"], "{out}");
    let crds = crd_api(&client);
    let queue = rt
        .block_on(get(&crds, "queues.queue.example.org"))
        .expect("the dependency's CRD");
    let bucket = rt
        .block_on(get(&crds, "buckets.storage.example.org"))
        .expect("the package's CRD");
    // Dependencies first: the queue CRD is no younger than the bucket CRD.
    assert!(
        queue["metadata"]["creationTimestamp"].as_str()
            <= bucket["metadata"]["creationTimestamp"].as_str()
    );
    assert_eq!(label_of(&bucket), "storage");
    let ann = &bucket["metadata"]["annotations"];
    assert_eq!(ann["packages.crossplane.io/package-title"], "Storage");
    assert_eq!(ann["packages.crossplane.io/group-title"], "Object storage");
    assert_eq!(
        ann["packages.crossplane.io/group-overview-short"],
        "Buckets."
    );
    assert_eq!(
        ann["packages.crossplane.io/resource-title-plural"],
        "Buckets"
    );
    assert_eq!(ann["packages.crossplane.io/resource-category"], "Storage");
    assert_eq!(
        ann["packages.crossplane.io/icon-data-uri"],
        "data:image/svg+xml;base64,PHN2Zy8+"
    );
    assert_eq!(
        bucket["metadata"]["labels"]["app.kubernetes.io/managed-by"],
        "package-manager"
    );
    let locks = api(&client, "pkg.crossplane.io/v1beta1", "Lock", "locks");
    let lock = rt.block_on(get(&locks, "xprender")).unwrap();
    assert_eq!(lock["packages"][1]["type"], "Legacy");
    assert_eq!(
        lock["packages"][1]["dependencies"],
        json!([{"package": w.pkg("org/queue"), "type": "Legacy", "crd": "*.queue.example.org/v1", "version": "v0.1.0"}])
    );
    assert_eq!(lock["packages"][1]["record"]["spec"]["title"], "Storage");
    assert_eq!(
        lock["packages"][1]["record"]["spec"]["customresourcedefinitions"],
        json!([{"apiVersion": "storage.example.org/v1", "kind": "Bucket"}])
    );

    // A CRD dependency the cluster already serves needs no package: a second storage-like
    // package depending on queues installs alone.
    w.publish_legacy(
        "org/archive:v1.0.0",
        &[
            (
                ".registry/app.yaml",
                app("Archive", &["queues.queue.example.org/v1"]),
            ),
            (
                ".registry/resources/archive/crd.yaml",
                crd("archive.example.org", "Archive"),
            ),
        ],
    );
    let out = w.ok_json(&[
        "xpkg",
        "install",
        &w.pkg("org/archive:v1.0.0"),
        "--index",
        index.to_str().unwrap(),
        "--direct",
    ]);
    let names: Vec<&str> = out["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["archive"], "{out}");
    // Crossplane's package manager cannot install a legacy package.
    let e = w.fails(&[
        "xpkg",
        "install",
        &w.pkg("org/archive:v1.0.0"),
        "--index",
        index.to_str().unwrap(),
    ]);
    assert!(e.contains("is a legacy package"), "{e}");
}

#[test]
#[ignore = "needs kube-apiserver and docker-registry; scripts/suites/70-cluster.sh runs them"]
fn crossplane_mode_writes_the_package_objects() {
    let w = World::start();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = rt.block_on(async {
        let c = w.client().await;
        setup(&c, "pkg-crds.yaml").await;
        c
    });
    let (net, fnc, app) = (w.pkg("org/net"), w.pkg("org/fn"), w.pkg("org/app"));
    w.publish(
        "org/net:v1.0.0",
        &[
            meta("Provider", "net", &[]),
            crd("net.example.org", "Network"),
        ],
    );
    w.publish(
        "org/net:v1.2.0",
        &[
            meta("Provider", "net", &[]).replace("name: net", "name: net\n  labels: {v: '2'}"),
            crd("net.example.org", "Network"),
        ],
    );
    let fn_digest = w.publish(
        "org/fn:v0.3.0",
        &[meta("Function", "fn", &[]).replace(
            "meta.pkg.crossplane.io/v1",
            "meta.pkg.crossplane.io/v1beta1",
        )],
    );
    w.publish(
        "org/app:v1.0.0",
        &[meta(
            "Configuration",
            "app",
            &[
                ("provider", &net, "^1"),
                ("function", &format!("{fnc}@{fn_digest}"), ""),
            ],
        )],
    );

    let configurations = api(
        &client,
        "pkg.crossplane.io/v1",
        "Configuration",
        "configurations",
    );
    let providers = api(&client, "pkg.crossplane.io/v1", "Provider", "providers");
    let functions = api(&client, "pkg.crossplane.io/v1", "Function", "functions");

    // A dry run validates on the server and writes nothing.
    let plan = w.ok_json(&["xpkg", "install", &format!("{app}:v1.0.0")]);
    assert_eq!(plan["mode"], "crossplane");
    assert_eq!(
        plan["objects"],
        json!([{"action": "create", "apiVersion": "pkg.crossplane.io/v1", "kind": "Configuration", "name": "app", "spec": {"package": format!("{app}:v1.0.0")}}])
    );
    assert!(rt.block_on(get(&configurations, "app")).is_none());

    // The Configuration alone: Crossplane resolves its dependencies.
    w.ok(&["xpkg", "install", &format!("{app}:v1.0.0"), "--yes"]);
    let cfg = rt
        .block_on(get(&configurations, "app"))
        .expect("Configuration created");
    assert_eq!(cfg["spec"], json!({"package": format!("{app}:v1.0.0")}));
    assert!(rt.block_on(get(&providers, "net")).is_none());

    // --resolve writes each dependency pinned, with Crossplane's resolution off.
    let out = w.ok_json(&[
        "xpkg",
        "install",
        &format!("{app}:v1.0.0"),
        "--resolve",
        "--yes",
    ]);
    let acts: Vec<(&str, &str)> = out["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["name"].as_str().unwrap(), o["action"].as_str().unwrap()))
        .collect();
    assert_eq!(
        acts,
        [("net", "create"), ("fn", "create"), ("app", "update")]
    );
    assert_eq!(
        rt.block_on(get(&providers, "net")).unwrap()["spec"],
        json!({"package": format!("{net}:v1.2.0"), "skipDependencyResolution": true})
    );
    assert_eq!(
        rt.block_on(get(&functions, "fn")).unwrap()["spec"],
        json!({"package": format!("{fnc}@{fn_digest}"), "skipDependencyResolution": true})
    );
    assert_eq!(
        rt.block_on(get(&configurations, "app")).unwrap()["spec"]["skipDependencyResolution"],
        true
    );

    // Crossplane pulls from a registry: a package file is refused in this mode.
    let file = w.dir().join("org_app_v1.0.0.xpkg");
    let e = w.fails(&["xpkg", "install", file.to_str().unwrap()]);
    assert!(
        e.contains("is a package file: Crossplane installs from a registry"),
        "{e}"
    );

    let listed = w.ok_json(&["xpkg", "list"]);
    let rows: Vec<(&str, &str, &str, &str)> = listed["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap(),
                p["kind"].as_str().unwrap(),
                p["version"].as_str().unwrap(),
                p["mode"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("app", "Configuration", "v1.0.0", "crossplane"),
            ("net", "Provider", "v1.2.0", "crossplane"),
            ("fn", "Function", fn_digest.as_str(), "crossplane")
        ]
    );
}
