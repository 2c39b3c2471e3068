//! The whole tree from files: nested XRs rendered with their own Compositions, printed in tree
//! order (YAML stream) or as a tree (`--output tree`), the eventual state (`--until-ready`,
//! `--iterations`, `--simulation`) with what each render changed on stderr, and
//! CompositionTests that assert on it. Driven by `examples/nested-platform`; goldens in
//! `tests/data/tree` (regenerate with XPRENDER_BLESS=1 and review the diff).

// Test harness: reads goldens and writes split inputs.
#![allow(clippy::disallowed_methods)]

mod common;

use std::path::{Path, PathBuf};

use common::{built_request, canned_engine, root, run, temp_dir, write, xprender};
use serde_json::{Value, json};

const EXAMPLE: &str = "examples/nested-platform";

/// A file of the example, relative to the repository root (where the tests run).
fn ex(file: &str) -> String {
    format!("{EXAMPLE}/{file}")
}

/// `xprender render` of the example's XR with its Compositions, XRDs and observed resources.
fn render_example(extra: &[&str]) -> (i32, String, String) {
    run(xprender()
        .current_dir(root())
        .arg("render")
        .args([ex("xr.yaml"), ex("composition.yaml")])
        .args(["--xrd", &ex("xrd.yaml")])
        .args(["--observed-resources", &ex("observed.yaml")])
        .args(extra))
}

/// Compares `got` with the golden `tests/data/tree/NAME` (XPRENDER_BLESS=1 rewrites it).
fn golden(name: &str, got: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/tree")
        .join(name);
    if std::env::var_os("XPRENDER_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, got).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        got == want,
        "differs from {}\n--- want\n{want}\n--- got\n{got}",
        path.display()
    );
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap()
}

/// `Kind/name` of each document of a YAML stream (`Kind/` for one still to be named).
fn objects(stream: &str) -> Vec<String> {
    stream
        .split("---\n")
        .filter(|d| !d.trim().is_empty())
        .map(|d| {
            let field = |prefix: &str| {
                d.lines()
                    .find_map(|l| l.strip_prefix(prefix))
                    .unwrap_or_default()
                    .to_owned()
            };
            format!("{}/{}", field("kind: "), field("  name: "))
        })
        .collect()
}

/// The documents of a multi-document YAML file, without the `---` lines between them.
fn documents(path: &str) -> Vec<String> {
    read(path)
        .split("\n---\n")
        .map(|d| format!("{}\n", d.trim_end()))
        .collect()
}

#[test]
fn the_stream_prints_each_nested_xr_in_its_place_followed_by_its_resources() {
    let (code, out, err) = render_example(&[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    assert_eq!(
        objects(&out),
        [
            "XPlatform/shop",
            "XNetwork/shop-6x2kq",
            "VPC/shop-6x2kq-m4x7t",
            "XSubnetGroup/shop-6x2kq-p9w2c",
            "Subnet/",
            "Subnet/",
            "XPostgreSQL/",
            "Instance/",
            "Zone/shop-t8p3d",
        ]
    );
    // The nested XR as its own render leaves it: its status and Ready condition included.
    assert!(
        out.contains("  vpcId: vpc-0a1b2c3d4e5f60718\n---\napiVersion: ec2.aws.upbound.io/v1beta1\nkind: VPC\n"),
        "{out}"
    );
    // `xprender test examples/nested-platform` holds the same stream to the committed golden.
    assert_eq!(out, read(&ex("tests/existing.expected.yaml")));

    // A raw documents request prints in tree order too, each level in its Composition's order.
    let (code, out, err) = run(xprender().current_dir(root()).args([
        "render",
        "--request",
        "tests/fixtures/tree/three-levels/request.json",
    ]));
    assert_eq!(code, 0, "{err}");
    let kinds: Vec<String> = objects(&out)
        .iter()
        .map(|o| o.split('/').next().unwrap().to_owned())
        .collect();
    assert_eq!(
        kinds,
        [
            "XPlatform",
            "XNetwork",
            "VPC",
            "XSubnets",
            "Subnet",
            "Subnet",
            "XCluster",
            "Cluster",
            "Zone"
        ]
    );
}

#[test]
fn compositions_and_xrds_come_from_several_files() {
    let dir = temp_dir("tree-several-files");
    let compositions = documents(&ex("composition.yaml"));
    assert_eq!(compositions.len(), 4);
    let files: Vec<PathBuf> = compositions
        .iter()
        .enumerate()
        .map(|(i, c)| write(&dir, &format!("composition-{i}.yaml"), c))
        .collect();
    let xrds = documents(&ex("xrd.yaml"));
    let xrd_a = write(&dir, "xrd-a.yaml", &xrds[..2].join("---\n"));
    let xrd_b = write(&dir, "xrd-b.yaml", &xrds[2..].join("---\n"));
    let (code, out, err) = run(xprender()
        .current_dir(root())
        .arg("render")
        .arg(ex("xr.yaml"))
        .arg(&files[0])
        .args(
            files[1..]
                .iter()
                .flat_map(|f| ["--composition".as_ref(), f.as_os_str()]),
        )
        .arg("--xrd")
        .arg(&xrd_a)
        .arg("--xrd")
        .arg(&xrd_b)
        .args(["--observed-resources", &ex("observed.yaml")]));
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, read(&ex("tests/existing.expected.yaml")));

    // --composition alone (no COMPOSITION) works too.
    let (code, out, err) = run(xprender()
        .current_dir(root())
        .arg("render")
        .arg(ex("xr.yaml"))
        .args(
            files
                .iter()
                .flat_map(|f| ["--composition".as_ref(), f.as_os_str()]),
        )
        .args([
            "--xrd",
            &ex("xrd.yaml"),
            "--observed-resources",
            &ex("observed.yaml"),
        ]));
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, read(&ex("tests/existing.expected.yaml")));
}

#[test]
fn output_tree_lists_every_object_with_its_readiness() {
    let (code, out, err) = render_example(&["--output", "tree"]);
    assert_eq!(code, 0, "{err}");
    golden("existing.txt", &out);
    assert!(out.starts_with("NAME "), "{out}");
    assert!(
        out.contains("\n│  └─ XSubnetGroup/shop-6x2kq-p9w2c "),
        "{out}"
    );
    assert!(out.contains("\n├─ XPostgreSQL/shop-* "), "{out}");
}

#[test]
fn until_ready_prints_the_final_stream_and_what_each_render_changed() {
    let (code, out, err) =
        render_example(&["--until-ready", "--simulation", &ex("simulation.yaml")]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, read(&ex("tests/eventual.expected.yaml")));
    golden("until-ready-stderr.txt", &err);
    for needle in [
        "iteration 1 (not ready): 9 changes\n  XPlatform/shop added\n  network XNetwork/shop-6x2kq added\n",
        "  database/instance Instance/shop-r4b4p metadata.name: (unset) -> \"shop-r4b4p\"\n",
        "  network/subnets/subnet-a Subnet/shop-2ttsm (ready): false -> true\n",
        "iteration 5 (ready): 0 changes\n",
    ] {
        assert!(err.contains(needle), "{needle:?} not in:\n{err}");
    }

    let (code, out, err) = render_example(&[
        "--until-ready",
        "--simulation",
        &ex("simulation.yaml"),
        "--output",
        "tree",
    ]);
    assert_eq!(code, 0, "{err}");
    golden("until-ready.txt", &out);

    // --output json is the engine's Output: `iterations` holds what the report says.
    let (code, out, err) = render_example(&[
        "--until-ready",
        "--simulation",
        &ex("simulation.yaml"),
        "--output",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["iterations"].as_array().unwrap().len(), 5);
    assert!(doc.get("inputs").is_none(), "{out}");

    // --iterations alone stops where it got to, ready or not.
    let (code, out, err) = render_example(&[
        "--iterations",
        "2",
        "--simulation",
        &ex("simulation.yaml"),
        "--output",
        "tree",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("iteration 2 (not ready): "), "{err}");
    assert!(!err.contains("iteration 3"), "{err}");
    assert!(out.contains("\nXPlatform/shop   "), "{out}");
    assert!(out.lines().nth(1).unwrap().contains(" False "), "{out}");

    // With --until-ready, a tree that has not settled within --iterations fails.
    let (code, out, err) = render_example(&[
        "--until-ready",
        "--iterations",
        "2",
        "--simulation",
        &ex("simulation.yaml"),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("error: render failed: the composition did not settle within 2 iterations"),
        "{err}"
    );
}

#[test]
fn a_tree_that_never_settles_fails_naming_the_fields_that_flip() {
    let dir = temp_dir("tree-oscillation");
    let request: Value =
        serde_json::from_str(&read("tests/fixtures/tree/oscillation/request.json")).unwrap();
    let docs = request["documents"].as_array().unwrap();
    let file = |kind: &str| {
        let doc = docs.iter().find(|d| d["kind"] == kind).unwrap();
        write(&dir, &format!("{kind}.json"), &doc.to_string())
    };
    let (xr, composition) = (file("XFlip"), file("Composition"));
    let (code, out, err) = run(xprender()
        .arg("render")
        .arg(&xr)
        .arg(&composition)
        .arg("--until-ready"));
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty(), "{out}");
    for needle in [
        "error: render failed: the composition does not settle: iteration 4 desires what \
         iteration 2 desired, so it flips between 2 states; fields that flip: XFlip/f spec.mode \
         (written by Composition \"flip\" spec.resources[0].patches[1] (ToCompositeFieldPath))",
        "kind:       Render",
    ] {
        assert!(err.contains(needle), "{needle:?} not in:\n{err}");
    }
}

#[test]
fn a_nested_xr_without_its_composition_is_a_warning() {
    let dir = temp_dir("tree-missing-composition");
    let without: Vec<String> = documents(&ex("composition.yaml"))
        .into_iter()
        .filter(|c| !c.contains("\n  name: subnets\n"))
        .collect();
    assert_eq!(without.len(), 3);
    let compositions = write(&dir, "compositions.yaml", &without.join("---\n"));
    let render = |observed: &Path, extra: &[&str]| {
        run(xprender()
            .current_dir(root())
            .arg("render")
            .arg(ex("xr.yaml"))
            .arg(&compositions)
            .args(["--xrd", &ex("xrd.yaml"), "--observed-resources"])
            .arg(observed)
            .args(extra))
    };
    let observed = root().join(ex("observed.yaml"));
    let warning = "warning: network/subnets: cannot render nested composite resource \
                   XSubnetGroup/shop-6x2kq-p9w2c: no Composition for its type \
                   (XSubnetGroup.platform.example.org) was given, so its composed resources \
                   are not rendered\n";
    let (code, out, err) = render(&observed, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(err, warning);
    // The XSubnetGroup as the XNetwork desires it, and nothing below it.
    let objects = objects(&out);
    assert_eq!(objects[3], "XSubnetGroup/shop-6x2kq-p9w2c", "{out}");
    assert_eq!(objects[4], "XPostgreSQL/", "{out}");

    let (code, out, err) = render(&observed, &["--output", "tree"]);
    assert_eq!(code, 0, "{err}");
    golden("missing-composition.txt", &out);
    let line = out.lines().find(|l| l.contains("XSubnetGroup")).unwrap();
    assert!(line.ends_with("False"), "not synced: {line}");

    // A resource observed below it is not used, which fails a render from files (the warning
    // first says why).
    let subnet = "\
apiVersion: ec2.aws.upbound.io/v1beta1
kind: Subnet
metadata:
  name: shop-sn-a
  annotations:
    crossplane.io/composition-resource-name: subnet-a
  ownerReferences:
    - apiVersion: platform.example.org/v1alpha1
      kind: XSubnetGroup
      name: shop-6x2kq-p9w2c
      uid: 7d8e9f0a-1b2c-4d3e-8f4a-5b6c7d8e9f0a
      controller: true
";
    let more = write(
        &dir,
        "observed.yaml",
        &format!("{}---\n{subnet}", read(&ex("observed.yaml"))),
    );
    let (code, out, err) = render(&more, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(err.starts_with(warning), "{err}");
    assert!(
        err.contains(
            "observed.yaml (document 5): observed resource Subnet/shop-sn-a is not used: \
             belongs to XSubnetGroup/shop-6x2kq-p9w2c"
        ),
        "{err}"
    );
}

#[test]
fn a_nested_xr_deeper_than_the_depth_limit_fails() {
    let (code, out, err) = render_example(&["--depth-limit", "2"]);
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("nested composite resources go deeper than options.depthLimit (2)"),
        "{err}"
    );
    assert!(err.contains("resource:   subnets"), "{err}");
    let (code, _, err) = render_example(&["--depth-limit", "3"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_nested_render_that_fails_fails_the_render_after_the_stream() {
    let dir = temp_dir("tree-nested-fatal");
    let xr = write(
        &dir,
        "xr.yaml",
        "apiVersion: example.org/v1\nkind: XTop\nmetadata:\n  name: top\n",
    );
    let composition = write(
        &dir,
        "composition.yaml",
        "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: top\n\
         spec:\n  compositeTypeRef:\n    apiVersion: example.org/v1\n    kind: XTop\n  resources: []\n",
    );
    let output = json!({
        "composite": {"apiVersion": "example.org/v1", "kind": "XTop", "metadata": {"name": "top"}},
        "resources": {"net": {
            "resource": {"apiVersion": "example.org/v1", "kind": "XNet", "metadata": {"name": "top-net"}},
            "ready": false,
            "nested": {
                "composite": {"apiVersion": "example.org/v1", "kind": "XNet", "metadata": {"name": "top-net"}},
                "resources": {"vpc": {"resource": {"apiVersion": "v1", "kind": "VPC",
                                                   "metadata": {"generateName": "top-"}}, "ready": false}},
                "connectionDetails": {}, "ready": false,
                "results": [{"severity": "Fatal", "message": "cannot apply patch", "resource": "vpc"}]
            }
        }},
        "connectionDetails": {}, "ready": false, "results": []
    });
    let engine = canned_engine(&dir, "nested-fatal.wasm", &output.to_string());
    let render = |extra: &[&str]| {
        run(xprender()
            .arg("render")
            .arg(&xr)
            .arg(&composition)
            .arg("--engine")
            .arg(&engine)
            .args(extra))
    };
    let (code, out, err) = render(&[]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(objects(&out), ["XTop/top", "XNet/top-net", "VPC/"]);
    assert!(err.contains("error: net/vpc: cannot apply patch"), "{err}");

    let (code, out, err) = render(&["--output", "tree"]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        out,
        "\
NAME              READY     SYNCED
XTop/top          False     True
└─ XNet/top-net   False     False
   └─ VPC/top-*   False     False
"
    );
}

#[test]
fn tree_flags_reach_the_engine() {
    let dir = temp_dir("tree-flags");
    let req = built_request(
        &dir,
        &[
            &root().join(ex("xr.yaml")).display().to_string(),
            &root().join(ex("composition.yaml")).display().to_string(),
            "--xrd",
            &root().join(ex("xrd.yaml")).display().to_string(),
            "--until-ready",
            "--iterations",
            "7",
            "--depth-limit",
            "4",
            "--simulation",
            &root().join(ex("simulation.yaml")).display().to_string(),
        ],
    );
    let options = &req["options"];
    assert_eq!(options["untilReady"], true, "{options}");
    assert_eq!(options["iterations"], 7, "{options}");
    assert_eq!(options["depthLimit"], 4, "{options}");
    let kinds: Vec<&str> = req["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "XPlatform",
            "CompositeResourceDefinition",
            "CompositeResourceDefinition",
            "CompositeResourceDefinition",
            "CompositeResourceDefinition",
            "Composition",
            "Composition",
            "Composition",
            "Composition",
            "Simulation"
        ]
    );
}

#[test]
fn bad_tree_flags_are_usage_errors() {
    let dir = temp_dir("tree-bad-flags");
    let not_a_simulation = write(&dir, "simulation.yaml", "apiVersion: v1\nkind: ConfigMap\n");
    let wrong_group = write(
        &dir,
        "wrong-group.yaml",
        "apiVersion: example.org/v1\nkind: Simulation\nmetadata:\n  name: aws\nspec:\n  resources: []\n",
    );
    let simulation = ex("simulation.yaml");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["--iterations", "0"],
            "invalid value '0' for '--iterations <N>'",
        ),
        (
            vec!["--iterations", "many"],
            "invalid value 'many' for '--iterations <N>'",
        ),
        (
            vec!["--depth-limit", "0"],
            "invalid value '0' for '--depth-limit <N>'",
        ),
        (vec!["--simulation", &simulation], "--until-ready"),
        (
            vec![
                "--until-ready",
                "--simulation",
                not_a_simulation.to_str().unwrap(),
            ],
            "simulation.yaml: expected Simulation documents only, found ConfigMap",
        ),
        (
            vec![
                "--until-ready",
                "--simulation",
                wrong_group.to_str().unwrap(),
            ],
            "wrong-group.yaml: simulation Simulation/aws is not used: ",
        ),
        (
            vec!["--xrd", &simulation],
            "expected CompositeResourceDefinition documents only, found Simulation/aws",
        ),
    ];
    for (args, message) in cases {
        let (code, out, err) = render_example(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(err.contains(message), "{args:?}: {message:?} not in {err}");
    }
    // A raw request carries its own options.
    let (code, _, err) = run(xprender()
        .current_dir(root())
        .args([
            "render",
            "--request",
            "tests/fixtures/tree/converges/request.json",
        ])
        .arg("--until-ready"));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot be used with"), "{err}");
}

#[test]
fn a_composition_test_asserts_on_the_eventual_state() {
    let (code, out, err) = run(xprender().current_dir(root()).args(["test", EXAMPLE]));
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("PASS examples/nested-platform/tests/render.yaml: eventual-state"),
        "{out}"
    );
    assert!(out.contains("2 passed, 0 failed"), "{out}");

    let dir = temp_dir("tree-composition-test");
    let example = root().join(EXAMPLE);
    let case = format!(
        "apiVersion: xprender.dev/v1alpha1
kind: CompositionTest
metadata:
  name: wrong-expectations
spec:
  xr: {xr}
  composition: [{comp}]
  xrd: {xrd}
  observedResources: {observed}
  simulation: [{simulation}]
  untilReady: true
  iterations: 10
  expect:
    iterations: 3
    resources:
      network/vpc:
        ready: false
      network/subnets/subnet-a:
        spec:
          forProvider:
            availabilityZone: eu-west-1c
      network/nope: {{}}
",
        xr = example.join("xr.yaml").display(),
        comp = example.join("composition.yaml").display(),
        xrd = example.join("xrd.yaml").display(),
        observed = example.join("observed.yaml").display(),
        simulation = example.join("simulation.yaml").display(),
    );
    write(&dir, "suite.yaml", &case);
    let (code, out, _) = run(xprender().arg("test").arg(&dir));
    assert_eq!(code, 1, "{out}");
    for needle in [
        "iterations: expected 3, got 5",
        "resources.network/vpc.ready: expected false, got true",
        r#"resources.network/subnets/subnet-a.spec.forProvider.availabilityZone: expected "eu-west-1c", got "eu-west-1a""#,
        "resources.network/nope: expected, but not rendered",
        "0 passed, 1 failed",
    ] {
        assert!(out.contains(needle), "{needle:?} not in:\n{out}");
    }
}

/// A Pipeline Composition of `kind` with P&T templates (YAML list items, indented for `resources`).
fn pipeline(name: &str, kind: &str, resources: &str) -> String {
    format!(
        "apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: {name}
spec:
  compositeTypeRef:
    apiVersion: example.org/v1
    kind: {kind}
  mode: Pipeline
  pipeline:
    - step: patch-and-transform
      functionRef:
        name: function-patch-and-transform
      input:
        apiVersion: pt.fn.crossplane.io/v1beta1
        kind: Resources
        resources:
{resources}"
    )
}

#[test]
fn pipelines_print_each_level_by_name_as_crossplane_render_does() {
    let dir = temp_dir("tree-pipelines");
    let xr = write(
        &dir,
        "xr.yaml",
        "apiVersion: example.org/v1\nkind: XTop\nmetadata:\n  name: top\nspec:\n  region: eu\n",
    );
    let top = pipeline(
        "top",
        "XTop",
        "          - name: mid
            base:
              apiVersion: example.org/v1
              kind: XMid
            patches:
              - fromFieldPath: spec.region
                toFieldPath: spec.region
          - name: alpha
            base:
              apiVersion: v1
              kind: ConfigMap
",
    );
    let mid = pipeline(
        "mid",
        "XMid",
        "          - name: zeta
            base:
              apiVersion: v1
              kind: ConfigMap
            patches:
              - fromFieldPath: spec.region
                toFieldPath: data.region
          - name: beta
            base:
              apiVersion: v1
              kind: Secret
",
    );
    let both = write(&dir, "compositions.yaml", &format!("{top}---\n{mid}"));
    let (code, out, err) = run(xprender().arg("render").arg(&xr).arg(&both));
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    let kinds: Vec<String> = objects(&out)
        .iter()
        .map(|o| o.split('/').next().unwrap().to_owned())
        .collect();
    // alpha before mid at the top; beta (Secret) before zeta below the XMid.
    assert_eq!(
        kinds,
        ["XTop", "ConfigMap", "XMid", "Secret", "ConfigMap"],
        "{out}"
    );
    assert!(out.contains("data:\n  region: eu\n"), "{out}");

    // Without the XMid's Composition (its XRD says it is an XR): the top render's warning is a
    // `-r` Result document, as every warning of the top render is in `crossplane render`'s form.
    let only_top = write(&dir, "top.yaml", &top);
    let xrd = write(
        &dir,
        "xrd.yaml",
        "apiVersion: apiextensions.crossplane.io/v1
kind: CompositeResourceDefinition
metadata:
  name: xmids.example.org
spec:
  group: example.org
  names:
    kind: XMid
    plural: xmids
  versions:
    - name: v1
      served: true
      referenceable: true
",
    );
    let (code, out, err) = run(xprender()
        .arg("render")
        .arg(&xr)
        .arg(&only_top)
        .arg("--xrd")
        .arg(&xrd)
        .arg("-r"));
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    assert!(
        out.contains("kind: Result\nmessage: 'cannot render nested composite resource XMid/"),
        "{out}"
    );

    // A nested render's warning, which `crossplane render` has no place for, goes to stderr.
    let mid_with_leaf = pipeline(
        "mid",
        "XMid",
        "          - name: leaf
            base:
              apiVersion: example.org/v1
              kind: XLeaf
",
    );
    let compositions = write(
        &dir,
        "with-leaf.yaml",
        &format!("{top}---\n{mid_with_leaf}"),
    );
    let leaf_xrd = write(
        &dir,
        "leaf-xrd.yaml",
        &std::fs::read_to_string(&xrd)
            .unwrap()
            .replace("xmids", "xleafs")
            .replace("XMid", "XLeaf"),
    );
    let (code, out, err) = run(xprender()
        .arg("render")
        .arg(&xr)
        .arg(&compositions)
        .arg("--xrd")
        .arg(&leaf_xrd));
    assert_eq!(code, 0, "{err}");
    assert!(
        err.starts_with("warning: mid/leaf: cannot render nested composite resource XLeaf/"),
        "{err}"
    );
    // The XLeaf as the XMid desires it, last.
    assert_eq!(objects(&out).last().unwrap(), "XLeaf/", "{out}");
}
