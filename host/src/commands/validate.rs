//! `xprender validate`: check objects against the schemas of CRDs and XRDs (structural
//! OpenAPI v3, defaults, CEL rules) and Compositions deeply, before they reach a cluster.

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use serde_json::{Value, json};
use xprender_validate::{
    Options, Outcome, Problem, Schemas, Severity, is_definition, validate_object,
};

use super::{EXIT_OK, EXIT_RENDER};
use crate::io::{self, Doc, input_error};
use crate::positions::{self, Tree};
use crate::xpkg::{self, Content};

/// The report format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ReportFormat {
    /// `FILE:LINE:COLUMN: KIND/NAME: field.path: message`, then a summary line.
    Text,
    /// One JSON document: every object with its problems, and the summary.
    Json,
}

/// What an object without a schema is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum MissingSchemas {
    Warn,
    Error,
}

#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  # Validate an XR and a claim against the XRD, and the Composition deeply.
  xprender validate package/ --resources examples/

  # Provider CRDs from a package, the rendered output from stdin, unknown fields fatal.
  xprender render xr.yaml composition.yaml | \\
    xprender validate --package xpkg.example.org/provider-aws-rds:v1.2.0 package/ --resources - --strict

Exit codes: 0 every object is valid, 1 a problem was found, 2 usage or input error.")]
pub(crate) struct ValidateArgs {
    /// Where the schemas come from: files or directories (YAML/JSON) of CRDs, XRDs and
    /// Compositions (Compositions are themselves checked deeply).
    #[arg(value_name = "EXTENSIONS")]
    pub(crate) extensions: Vec<PathBuf>,
    /// A Provider or Configuration package whose CRDs, XRDs and Compositions to use: a
    /// registry reference (pulled through the verified cache) or a file from `xpkg build`.
    #[arg(long = "package", value_name = "REF|FILE")]
    pub(crate) packages: Vec<String>,
    /// The objects to validate (XRs, claims, composed resources, Compositions, whole render
    /// outputs): a file, a directory, or - for stdin. Repeatable.
    #[arg(long, value_name = "FILE|DIR|-", required = true)]
    pub(crate) resources: Vec<String>,
    /// Unknown fields are errors (the API server's strict field validation), not warnings
    /// about fields it would prune.
    #[arg(long)]
    pub(crate) strict: bool,
    /// An object whose kind has no schema is a warning or an error.
    #[arg(long, value_enum, default_value = "warn")]
    pub(crate) missing_schemas: MissingSchemas,
    #[arg(long, value_enum, default_value = "text")]
    pub(crate) output: ReportFormat,
    /// Registry and cache options for --package.
    #[command(flatten)]
    pub(crate) fetch: super::fetch::FetchArgs,
}

/// One object's findings, with where it is.
struct Entry {
    doc: Doc,
    outcome: Outcome,
    problems: Vec<(Problem, (u64, u64))>,
    position: (u64, u64),
}

/// Reads sources once and remembers their position trees.
#[derive(Default)]
struct Positions {
    trees: BTreeMap<PathBuf, Option<Vec<Tree>>>,
}

impl Positions {
    fn add(&mut self, origin: &Path, text: &str) {
        self.trees
            .insert(origin.to_path_buf(), positions::of_stream(text));
    }

    fn tree(&mut self, doc: &Doc) -> Option<&Tree> {
        let trees = self.trees.entry(doc.path.clone()).or_insert_with(|| {
            std::fs::read_to_string(&doc.path)
                .ok()
                .and_then(|t| positions::of_stream(&t))
        });
        trees.as_ref()?.get(doc.index - 1)
    }
}

pub(crate) fn run(args: &ValidateArgs) -> anyhow::Result<ExitCode> {
    let mut positions = Positions::default();
    let mut sources = Vec::new();
    for path in &args.extensions {
        sources.extend(io::read_docs(path)?);
    }
    for reference in &args.packages {
        sources.extend(package_docs(reference, &args.fetch, &mut positions)?);
    }
    let mut resources = Vec::new();
    for r in &args.resources {
        if r == "-" {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .context("cannot read the resources from stdin")?;
            let origin = PathBuf::from("<stdin>");
            let values = io::parse_yaml_stream(&text)
                .map_err(|e| input_error!("{}:{e}", origin.display()))?;
            positions.add(&origin, &text);
            resources.extend(io::into_docs(values, &origin));
        } else {
            resources.extend(io::read_docs(Path::new(r))?);
        }
    }

    let opts = Options {
        strict: args.strict,
    };
    let entries = check(
        &sources,
        &resources,
        &mut positions,
        opts,
        args.missing_schemas,
    );
    let summary = Summary::of(&entries);
    match args.output {
        ReportFormat::Text => print_text(&entries, &summary),
        ReportFormat::Json => print_json(&entries, &summary)?,
    }
    Ok(ExitCode::from(if summary.errors > 0 {
        EXIT_RENDER
    } else {
        EXIT_OK
    }))
}

/// Validates `resources` (and the Compositions among `sources`) against the schemas of
/// every definition in either.
fn check(
    sources: &[Doc],
    resources: &[Doc],
    positions: &mut Positions,
    opts: Options,
    missing: MissingSchemas,
) -> Vec<Entry> {
    // Every definition, wherever it was given, contributes its schemas.
    let mut schemas = Schemas::new();
    let mut entries = Vec::new();
    for doc in sources.iter().chain(resources) {
        if is_definition(&doc.value) {
            let problems = schemas.add(&doc.value);
            if !problems.is_empty() {
                entries.push(entry(
                    doc.clone(),
                    Outcome::Validated {
                        schema: "the schema rules".into(),
                    },
                    problems,
                    positions,
                ));
            }
        }
    }
    let compositions = sources
        .iter()
        .filter(|d| xprender_validate::composition::is_composition(&d.value));
    let objects = resources
        .iter()
        .filter(|d| !is_definition(&d.value) && !is_render_result(&d.value));
    for doc in compositions.chain(objects) {
        let report = validate_object(&schemas, &doc.value, opts);
        let mut problems = report.problems;
        match &report.outcome {
            Outcome::NoSchema => problems.push(Problem {
                severity: match missing {
                    MissingSchemas::Warn => Severity::Warning,
                    MissingSchemas::Error => Severity::Error,
                },
                path: xprender_validate::Path::root(),
                message: format!(
                    "no schema for {} {}",
                    doc.str_at(&["apiVersion"]).unwrap_or(""),
                    doc.kind()
                ),
                suggestion: None,
            }),
            Outcome::Unusable(why) => problems.push(Problem::error(
                &xprender_validate::Path::root(),
                why.clone(),
            )),
            Outcome::Validated { .. } => {}
        }
        entries.push(entry(doc.clone(), report.outcome, problems, positions));
    }

    entries
}

/// `render --validate`: checks the rendered YAML stream against the schemas in
/// `schema_docs`, reporting on stderr with positions in the printed stream. True when an
/// error was found.
pub(crate) fn check_rendered(stream: &str, schema_docs: &[Doc]) -> anyhow::Result<bool> {
    let origin = PathBuf::from("<rendered>");
    let values = io::parse_yaml_stream(stream)
        .map_err(|e| anyhow::anyhow!("the rendered output cannot be read back: {e}"))?;
    let mut positions = Positions::default();
    positions.add(&origin, stream);
    let mut resources = io::into_docs(values, &origin);
    // Status is written through the status subresource, never with the object: the API
    // server ignores it on apply, and a render's conditions carry no transition times.
    for doc in &mut resources {
        if let Some(o) = doc.value.as_object_mut() {
            o.remove("status");
        }
    }
    let entries = check(
        schema_docs,
        &resources,
        &mut positions,
        Options::default(),
        MissingSchemas::Warn,
    );
    let summary = Summary::of(&entries);
    write_text(&mut std::io::stderr().lock(), &entries, &summary);
    Ok(summary.errors > 0)
}

/// `crossplane render` adds Result documents to its output: they are not API objects.
fn is_render_result(v: &Value) -> bool {
    v.get("apiVersion")
        .and_then(Value::as_str)
        .is_some_and(|a| a.starts_with("render.crossplane.io/"))
}

fn entry(doc: Doc, outcome: Outcome, problems: Vec<Problem>, positions: &mut Positions) -> Entry {
    let tree = positions.tree(&doc);
    let position = tree.map_or((1, 1), |t| t.locate(&xprender_validate::Path::root()));
    let mut problems = problems
        .into_iter()
        .map(|p| {
            let at = tree.map_or(position, |t| t.locate(&p.path));
            (p, at)
        })
        .collect::<Vec<_>>();
    // Grouped per object, in file order.
    problems.sort_by_key(|(_, at)| *at);
    Entry {
        doc,
        outcome,
        problems,
        position,
    }
}

/// The documents of a package: its package.yaml (with positions), or a legacy package's CRDs.
fn package_docs(
    reference: &str,
    fetch: &super::fetch::FetchArgs,
    positions: &mut Positions,
) -> anyhow::Result<Vec<Doc>> {
    let opts = fetch.options();
    let loaded = if Path::new(reference).is_file() {
        xpkg::open_file(Path::new(reference), &opts)?
    } else {
        xpkg::pull(reference, &opts)?.1
    };
    let origin = PathBuf::from(format!("{reference}//package.yaml"));
    match loaded.content {
        Content::Xpkg(_) => {
            let text = String::from_utf8_lossy(loaded.fs.read("package.yaml").unwrap_or_default())
                .into_owned();
            let values = io::parse_yaml_stream(&text)
                .map_err(|e| input_error!("{}:{e}", origin.display()))?;
            positions.add(&origin, &text);
            Ok(io::into_docs(values, &origin))
        }
        Content::Legacy(l) => Ok(io::into_docs(l.crds, &PathBuf::from(reference))),
    }
}

struct Summary {
    objects: usize,
    valid: usize,
    invalid: usize,
    without_schema: usize,
    errors: usize,
    warnings: usize,
}

impl Summary {
    fn of(entries: &[Entry]) -> Self {
        let errors = |e: &Entry| {
            e.problems
                .iter()
                .filter(|(p, _)| p.severity == Severity::Error)
                .count()
        };
        Summary {
            objects: entries.len(),
            valid: entries
                .iter()
                .filter(|e| errors(e) == 0 && !matches!(e.outcome, Outcome::NoSchema))
                .count(),
            invalid: entries.iter().filter(|e| errors(e) > 0).count(),
            without_schema: entries
                .iter()
                .filter(|e| matches!(e.outcome, Outcome::NoSchema))
                .count(),
            errors: entries.iter().map(errors).sum(),
            warnings: entries.iter().map(|e| e.problems.len() - errors(e)).sum(),
        }
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn print_text(entries: &[Entry], s: &Summary) {
    write_text(&mut std::io::stdout().lock(), entries, s);
}

fn write_text(out: &mut dyn std::io::Write, entries: &[Entry], s: &Summary) {
    for e in entries.iter().filter(|e| !e.problems.is_empty()) {
        for (p, (line, col)) in &e.problems {
            let _ = writeln!(
                out,
                "{}:{line}:{col}: {}: {p}",
                e.doc.path.display(),
                e.doc.display_name()
            );
        }
    }
    let _ = writeln!(
        out,
        "{} checked: {} valid, {} invalid, {} without a schema; {}, {}",
        plural(s.objects, "object", "objects"),
        s.valid,
        s.invalid,
        s.without_schema,
        plural(s.errors, "error", "errors"),
        plural(s.warnings, "warning", "warnings"),
    );
}

fn print_json(entries: &[Entry], s: &Summary) -> anyhow::Result<()> {
    let objects: Vec<Value> = entries
        .iter()
        .map(|e| {
            let errors = e
                .problems
                .iter()
                .any(|(p, _)| p.severity == Severity::Error);
            let (status, schema) = match &e.outcome {
                Outcome::Validated { schema } => (
                    if errors { "invalid" } else { "valid" },
                    Some(schema.clone()),
                ),
                Outcome::NoSchema => (if errors { "invalid" } else { "no-schema" }, None),
                Outcome::Unusable(_) => ("invalid", None),
            };
            json!({
                "file": e.doc.path.display().to_string(),
                "document": e.doc.index,
                "line": e.position.0,
                "column": e.position.1,
                "apiVersion": e.doc.str_at(&["apiVersion"]).unwrap_or(""),
                "kind": e.doc.kind(),
                "name": e.doc.name(),
                "status": status,
                "schema": schema,
                "problems": e.problems.iter().map(|(p, (line, col))| json!({
                    "severity": p.severity.as_str(),
                    "path": p.path.to_string(),
                    "line": line,
                    "column": col,
                    "message": p.message,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let doc = json!({
        "objects": objects,
        "summary": {
            "objects": s.objects,
            "valid": s.valid,
            "invalid": s.invalid,
            "withoutSchema": s.without_schema,
            "errors": s.errors,
            "warnings": s.warnings,
        }
    });
    crate::outln!("{}", serde_json::to_string_pretty(&doc)?);
    Ok(())
}
