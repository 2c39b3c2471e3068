//! `xprender test [DIR]`: composition tests as data. Every `*.yaml` file under DIR (default `.`)
//! whose documents are `kind: CompositionTest` is a suite; each document a case: the render
//! inputs (paths relative to the file), and what the render must produce: whole output streams,
//! partial objects (only the fields written must match), readiness and results.
//!
//! Each case runs this same binary's `render` in a child process, so a case sees exactly what a
//! user running the command would.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use serde_json::{Value, json};

use crate::io::{self, InputError, input_error};

#[derive(Debug, clap::Args)]
#[command(after_help = "\
A test case (one YAML document; paths are relative to its file):

  apiVersion: xprender.dev/v1alpha1
  kind: CompositionTest
  metadata:
    name: new-database
  spec:
    xr: ../xr.yaml
    composition: ../composition.yaml
    functions: functions.yaml            # optional, crossplane render's FUNCTIONS
    observedResources: ../observed.yaml  # optional
    extraResources: environmentConfigs.yaml
    environment: ../environment.yaml
    args: [--semantics, native]          # any other render flags
    expect:
      ready: false
      resources:                          # partial objects, matched by resource name
        instance:
          spec: {forProvider: {region: eu-west-1}}
      xr: {status: {address: db.example.org}}
      results: [{severity: Warning, message: cannot check readiness}]  # message: substring
      output: expected.yaml               # the whole YAML stream, byte for byte
      error: text the failure must contain  # the render must fail (exit 1)

A tree of XRs and its eventual state (each file key takes a path or a list;
compositions, xrds and simulations are the same as composition, xrd and simulation):

  spec:
    xr: ../xr.yaml
    composition: [../platform.yaml, ../network.yaml]  # the first is COMPOSITION,
                                                     # the others --composition
    xrd: ../xrds.yaml
    simulation: ../simulation.yaml       # what simulated providers write
    untilReady: true                     # render until nothing changes (--until-ready)
    iterations: 10                       # at most N renders (--iterations)
    depthLimit: 5                        # --depth-limit
    expect:
      ready: true
      iterations: 4                      # how many renders it took
      resources:
        network/vpc:                     # template names down through nested XRs
          ready: true
          spec: {forProvider: {region: eu-west-1}}

Exit codes: 0 every case passed, 1 a case failed, 2 usage or input error.")]
pub(crate) struct TestArgs {
    /// A directory searched recursively for CompositionTest files, or one file.
    #[arg(default_value = ".", value_name = "DIR")]
    pub(crate) dir: PathBuf,
    /// Rewrite each case's `expect.output` file from the actual output.
    #[arg(long)]
    pub(crate) update: bool,
    /// Also write a JUnit XML report to FILE.
    #[arg(long, value_name = "FILE")]
    pub(crate) junit: Option<PathBuf>,
}

struct Case {
    file: PathBuf,
    name: String,
    spec: Value,
}

struct Outcome {
    suite: String,
    name: String,
    failures: Vec<String>,
    seconds: f64,
}

pub(crate) fn run(args: &TestArgs) -> anyhow::Result<ExitCode> {
    let cases = collect(&args.dir)?;
    if cases.is_empty() {
        return Err(
            input_error!("{}: no CompositionTest documents found", args.dir.display()).into(),
        );
    }
    let mut outcomes = Vec::new();
    for case in &cases {
        let started = std::time::Instant::now();
        let failures = run_case(case, args.update)?;
        let suite = case.file.display().to_string();
        if failures.is_empty() {
            crate::outln!("PASS {suite}: {}", case.name);
        } else {
            crate::outln!("FAIL {suite}: {}", case.name);
            for f in &failures {
                for line in f.lines() {
                    crate::outln!("    {line}");
                }
            }
        }
        outcomes.push(Outcome {
            suite,
            name: case.name.clone(),
            failures,
            seconds: started.elapsed().as_secs_f64(),
        });
    }
    let failed = outcomes.iter().filter(|o| !o.failures.is_empty()).count();
    crate::outln!("\n{} passed, {failed} failed", outcomes.len() - failed);
    if let Some(path) = &args.junit {
        std::fs::write(path, junit(&outcomes))
            .map_err(|e| input_error!("cannot write {}: {e}", path.display()))?;
    }
    Ok(ExitCode::from(if failed == 0 {
        super::EXIT_OK
    } else {
        super::EXIT_RENDER
    }))
}

/// Every CompositionTest document under `dir` (files in name order).
fn collect(dir: &Path) -> Result<Vec<Case>, InputError> {
    let mut files = Vec::new();
    walk(dir, &mut files)?;
    files.sort();
    let mut cases = Vec::new();
    for file in files {
        let docs = io::read_docs(&file)?;
        if !docs.iter().any(|d| d.kind() == "CompositionTest") {
            continue;
        }
        for d in docs {
            if d.kind() != "CompositionTest" {
                return Err(input_error!(
                    "{}: expected CompositionTest documents only, found {}",
                    d.origin(),
                    d.display_name()
                ));
            }
            let name = match d.name() {
                "" => format!("case {}", d.index),
                n => n.to_owned(),
            };
            let spec = d.value.get("spec").cloned().unwrap_or_else(|| json!({}));
            cases.push(Case {
                file: file.clone(),
                name,
                spec,
            });
        }
    }
    Ok(cases)
}

fn walk(path: &Path, out: &mut Vec<PathBuf>) -> Result<(), InputError> {
    if path.is_file() {
        out.push(path.to_owned());
        return Ok(());
    }
    let entries =
        std::fs::read_dir(path).map_err(|e| input_error!("cannot read {}: {e}", path.display()))?;
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out)?;
        } else if p.extension().is_some_and(|x| x == "yaml" || x == "yml") {
            out.push(p);
        }
    }
    Ok(())
}

/// The render command line of a case.
fn render_args(case: &Case, base: &Path, output_json: bool) -> Result<Vec<String>, InputError> {
    let path = |p: &str| base.join(p).display().to_string();
    // A key that names files: one path, or a list of them.
    let paths = |keys: &[&str]| -> Result<Vec<String>, InputError> {
        let mut out = Vec::new();
        for key in keys {
            match case.spec.get(*key) {
                None | Some(Value::Null) => {}
                Some(Value::String(p)) => out.push(path(p)),
                Some(Value::Array(items)) if items.iter().all(Value::is_string) => {
                    out.extend(items.iter().filter_map(Value::as_str).map(path));
                }
                Some(_) => {
                    return Err(input_error!(
                        "{}: case {:?}: spec.{key}: expected a path or a list of paths",
                        case.file.display(),
                        case.name
                    ));
                }
            }
        }
        Ok(out)
    };
    let xr = paths(&["xr"])?;
    let compositions = paths(&["composition", "compositions"])?;
    let (Some(xr), Some((comp, more))) = (xr.first(), compositions.split_first()) else {
        return Err(input_error!(
            "{}: case {:?}: spec.xr and spec.composition are required",
            case.file.display(),
            case.name
        ));
    };
    let mut args = vec!["render".to_owned(), xr.clone(), comp.clone()];
    args.extend(paths(&["functions"])?);
    args.extend(more.iter().map(|p| format!("--composition={p}")));
    for (keys, flag) in [
        (&["observedResources"][..], "--observed-resources"),
        (&["extraResources"], "--extra-resources"),
        (&["environment"], "--environment"),
        (&["xrd", "xrds"], "--xrd"),
        (&["simulation", "simulations"], "--simulation"),
    ] {
        args.extend(paths(keys)?.into_iter().map(|p| format!("{flag}={p}")));
    }
    if case.spec.get("untilReady") == Some(&Value::Bool(true)) {
        args.push("--until-ready".to_owned());
    }
    for (key, flag) in [
        ("iterations", "--iterations"),
        ("depthLimit", "--depth-limit"),
    ] {
        match case.spec.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::Number(n)) => args.push(format!("{flag}={n}")),
            Some(v) => {
                return Err(input_error!(
                    "{}: case {:?}: spec.{key}: expected a number, got {v}",
                    case.file.display(),
                    case.name
                ));
            }
        }
    }
    for a in case
        .spec
        .get("args")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        args.push(a.as_str().map_or_else(|| a.to_string(), str::to_owned));
    }
    if output_json {
        args.push("--output=json".to_owned());
    }
    Ok(args)
}

fn render(args: &[String]) -> anyhow::Result<(i32, String, String)> {
    let exe = std::env::current_exe()?;
    let out = Command::new(exe).args(args).env("NO_COLOR", "1").output()?;
    Ok((
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

fn run_case(case: &Case, update: bool) -> anyhow::Result<Vec<String>> {
    let base = case.file.parent().unwrap_or(Path::new("."));
    let expect = case
        .spec
        .get("expect")
        .cloned()
        .unwrap_or_else(|| json!({}));
    let mut failures = Vec::new();

    if let Some(want_err) = expect.get("error").and_then(Value::as_str) {
        let (code, _, err) = render(&render_args(case, base, false)?)?;
        if code != 1 {
            failures.push(format!(
                "expected the render to fail (exit 1), got exit {code}"
            ));
        }
        if !err.contains(want_err) {
            failures.push(format!(
                "error: expected a message containing {want_err:?}\n  got: {}",
                err.trim()
            ));
        }
        return Ok(failures);
    }

    let (code, out, err) = render(&render_args(case, base, true)?)?;
    if code != 0 {
        failures.push(format!("render failed (exit {code}):\n{}", err.trim()));
        return Ok(failures);
    }
    let doc: Value = serde_json::from_str(&out)?;
    if let Some(want) = expect.get("ready") {
        let got = doc.get("ready").cloned().unwrap_or(Value::Null);
        if *want != got {
            failures.push(format!("ready: expected {want}, got {got}"));
        }
    }
    if let Some(want) = expect.get("xr") {
        subset(want, &doc["composite"], "xr", &mut failures);
    }
    if let Some(want) = expect.get("iterations") {
        let got = doc
            .get("iterations")
            .and_then(Value::as_array)
            .map_or(Value::Null, |i| i.len().into());
        if *want != got {
            failures.push(format!("iterations: expected {want}, got {got}"));
        }
    }
    if let Some(want) = expect.get("resources").and_then(Value::as_object) {
        for (name, w) in want {
            let Some(r) = resource_at(&doc, name) else {
                failures.push(format!("resources.{name}: expected, but not rendered"));
                continue;
            };
            let mut w = w.clone();
            if let Some(ready) = w.as_object_mut().and_then(|m| m.remove("ready"))
                && r.get("ready") != Some(&ready)
            {
                failures.push(format!(
                    "resources.{name}.ready: expected {ready}, got {}",
                    r.get("ready").cloned().unwrap_or(Value::Null)
                ));
            }
            subset(
                &w,
                &r["resource"],
                &format!("resources.{name}"),
                &mut failures,
            );
        }
    }
    if let Some(want) = expect.get("results").and_then(Value::as_array) {
        let got = doc["results"].as_array().cloned().unwrap_or_default();
        for w in want {
            let found = got.iter().any(|g| {
                w.get("severity")
                    .is_none_or(|s| g.get("severity") == Some(s))
                    && w.get("message").and_then(Value::as_str).is_none_or(|m| {
                        g.get("message")
                            .and_then(Value::as_str)
                            .is_some_and(|gm| gm.contains(m))
                    })
            });
            if !found {
                failures.push(format!(
                    "results: expected one matching {w}, got {}",
                    Value::Array(got.clone())
                ));
            }
        }
    }
    if let Some(file) = expect.get("output").and_then(Value::as_str) {
        let path = base.join(file);
        let (code, yaml, err) = render(&render_args(case, base, false)?)?;
        if code != 0 {
            failures.push(format!("render failed (exit {code}):\n{}", err.trim()));
        } else if update {
            std::fs::write(&path, &yaml)
                .map_err(|e| input_error!("cannot write {}: {e}", path.display()))?;
        } else {
            let want = std::fs::read_to_string(&path).unwrap_or_default();
            if want != yaml {
                failures.push(format!(
                    "output differs from {} (--update rewrites it):\n{}",
                    path.display(),
                    line_diff(&want, &yaml)
                ));
            }
        }
    }
    Ok(failures)
}

/// The entry of the Output's `resources` at `path`: a template name, or template names through
/// nested XRs (`network/vpc`).
fn resource_at<'a>(doc: &'a Value, path: &str) -> Option<&'a Value> {
    if let Some(entry) = doc["resources"].get(path) {
        return Some(entry);
    }
    let mut level = doc;
    let mut entry: Option<&Value> = None;
    for name in path.split('/') {
        if let Some(e) = entry {
            level = e.get("nested")?;
        }
        entry = Some(level.get("resources")?.get(name)?);
    }
    entry
}

/// Every field of `want` must be in `got` with the same value; arrays match element-wise.
fn subset(want: &Value, got: &Value, at: &str, failures: &mut Vec<String>) {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => {
            for (k, wv) in w {
                match g.get(k) {
                    Some(gv) => subset(wv, gv, &format!("{at}.{k}"), failures),
                    None => failures.push(format!("{at}.{k}: expected {wv}, but it is not set")),
                }
            }
        }
        (Value::Array(w), Value::Array(g)) if w.len() == g.len() => {
            for (i, (wv, gv)) in w.iter().zip(g).enumerate() {
                subset(wv, gv, &format!("{at}[{i}]"), failures);
            }
        }
        (w, g) if w == g => {}
        (w, g) => failures.push(format!("{at}: expected {w}, got {g}")),
    }
}

/// A minimal line diff: `-` lines only in `want`, `+` lines only in `got` (by LCS).
fn line_diff(want: &str, got: &str) -> String {
    let a: Vec<&str> = want.lines().collect();
    let b: Vec<&str> = got.lines().collect();
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            i += 1;
            j += 1;
        } else if j < b.len() && (i == a.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            let _ = writeln!(out, "+ {}", b[j]);
            j += 1;
        } else {
            let _ = writeln!(out, "- {}", a[i]);
            i += 1;
        }
    }
    out
}

fn junit(outcomes: &[Outcome]) -> String {
    let esc = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
    };
    let failed = outcomes.iter().filter(|o| !o.failures.is_empty()).count();
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"xprender test\" tests=\"{}\" failures=\"{failed}\">\n",
        outcomes.len()
    );
    let mut suites: Vec<&str> = outcomes.iter().map(|o| o.suite.as_str()).collect();
    suites.dedup();
    for suite in suites {
        let cases: Vec<&Outcome> = outcomes.iter().filter(|o| o.suite == suite).collect();
        let f = cases.iter().filter(|o| !o.failures.is_empty()).count();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{f}\">",
            esc(suite),
            cases.len()
        );
        for c in cases {
            let _ = write!(
                out,
                "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
                esc(suite),
                esc(&c.name),
                c.seconds
            );
            if c.failures.is_empty() {
                out.push_str("/>\n");
            } else {
                let text = c.failures.join("\n");
                let first = text.lines().next().unwrap_or("");
                let _ = writeln!(
                    out,
                    ">\n      <failure message=\"{}\">{}</failure>\n    </testcase>",
                    esc(first),
                    esc(&text)
                );
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}
