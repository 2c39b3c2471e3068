//! A render from files is a documents request: the same documents in any order, in any file,
//! print the committed golden streams. Each example's documents other than the XR (Composition,
//! XRD, observed resources, Secrets, EnvironmentConfigs) are shuffled into one COMPOSITION file.

// Test harness: reads the examples and writes the shuffled files.
#![allow(clippy::disallowed_methods)]

mod common;

use std::path::{Path, PathBuf};

use common::{root, run, temp_dir, xprender};

const DATA: &str = "host/tests/data/crossplane-render";

/// The documents of YAML files, each as its text without the `---` lines between them.
fn documents(files: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(root().join(f)).unwrap();
        let mut doc = String::new();
        for line in text.lines().chain(std::iter::once("---")) {
            if line == "---" {
                if doc
                    .lines()
                    .any(|l| !l.trim().is_empty() && !l.starts_with('#'))
                {
                    out.push(std::mem::take(&mut doc));
                }
                doc.clear();
            } else {
                doc.push_str(line);
                doc.push('\n');
            }
        }
    }
    out
}

/// Orders of `n` documents: as given, reversed, and rotated.
fn orders(n: usize) -> Vec<Vec<usize>> {
    let given: Vec<usize> = (0..n).collect();
    let reversed: Vec<usize> = (0..n).rev().collect();
    let rotated: Vec<usize> = (0..n).map(|i| (i + n / 2) % n).collect();
    vec![given, reversed, rotated]
}

/// `docs` in `order`, written as one multi-document file.
fn shuffled(dir: &Path, name: &str, docs: &[String], order: &[usize]) -> PathBuf {
    let text: Vec<&str> = order.iter().map(|&i| docs[i].as_str()).collect();
    common::write(dir, name, &text.join("---\n"))
}

/// Renders the XR with the documents of `files` in every order; each prints `want`.
fn renders_in_any_order(case: &str, xr: &str, files: &[&str], flags: &[&str], want: &str) {
    let dir = temp_dir(&format!("documents-{case}"));
    let docs = documents(files);
    for (n, order) in orders(docs.len()).iter().enumerate() {
        let all = shuffled(&dir, &format!("order-{n}.yaml"), &docs, order);
        let (code, out, err) = run(xprender()
            .current_dir(root())
            .arg("render")
            .arg(xr)
            .arg(&all)
            .args(flags));
        assert_eq!(code, 0, "{case} (order {n}): {err}");
        assert!(
            out == want,
            "{case} (order {n}): differs\n--- want\n{want}\n--- got\n{out}"
        );
    }
}

fn golden(name: &str) -> String {
    std::fs::read_to_string(root().join(DATA).join(format!("{name}.yaml"))).unwrap()
}

#[test]
fn the_pipeline_example_renders_its_golden_from_documents_in_any_order() {
    // The EnvironmentConfigs are documents here, not --extra-resources: the engine gives them
    // to the function-environment-configs step all the same.
    renders_in_any_order(
        "platform-db-pipeline",
        "examples/platform-db/xr.yaml",
        &[
            "examples/platform-db/pipeline/composition.yaml",
            "examples/platform-db/observed.yaml",
            "examples/platform-db/pipeline/environmentConfigs.yaml",
        ],
        &[
            "examples/platform-db/pipeline/functions.yaml",
            "-r",
            "-c",
            "-x",
        ],
        &golden("platform-db-pipeline"),
    );
    renders_in_any_order(
        "object-storage-pipeline",
        "examples/object-storage/xr.yaml",
        &[
            "examples/object-storage/pipeline/composition.yaml",
            "examples/platform-db/pipeline/environmentConfigs.yaml",
        ],
        &["examples/object-storage/pipeline/functions.yaml", "-r"],
        &golden("object-storage-pipeline"),
    );
}

#[test]
fn the_classic_examples_render_from_documents_in_any_order_as_from_their_files() {
    for (case, files, flags) in [
        (
            "platform-db",
            [
                "composition.yaml",
                "xrd.yaml",
                "observed.yaml",
                "environment.yaml",
            ]
            .as_slice(),
            [
                "--observed-resources",
                "observed.yaml",
                "--environment",
                "environment.yaml",
                "--xrd",
                "xrd.yaml",
            ]
            .as_slice(),
        ),
        (
            "pipeline-network",
            ["composition.yaml", "observed.yaml", "environment.yaml"].as_slice(),
            [
                "--observed-resources",
                "observed.yaml",
                "--environment",
                "environment.yaml",
            ]
            .as_slice(),
        ),
        (
            "object-storage",
            ["composition.yaml", "observed.yaml"].as_slice(),
            ["--observed-resources", "observed.yaml"].as_slice(),
        ),
    ] {
        let ex = |f: &str| format!("examples/{case}/{f}");
        let xr = ex("xr.yaml");
        // What the files render with each in its role; `xprender test examples` holds it to
        // the examples' committed expectations.
        let mut by_role = vec![ex("composition.yaml")];
        by_role.extend(flags.iter().map(|f| {
            if f.starts_with("--") {
                (*f).to_owned()
            } else {
                ex(f)
            }
        }));
        let (code, want, err) = run(xprender()
            .current_dir(root())
            .arg("render")
            .arg(&xr)
            .args(&by_role));
        assert_eq!(code, 0, "{case}: {err}");
        assert!(want.matches("\n---\n").count() >= 1, "{case}: {want}");
        let files: Vec<String> = files.iter().map(|f| ex(f)).collect();
        let files: Vec<&str> = files.iter().map(String::as_str).collect();
        renders_in_any_order(case, &xr, &files, &[], &want);
    }
}
