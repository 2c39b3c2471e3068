//! `xprender diff` and `xprender apply` against a live cluster.
//!
//! Exit codes: 0 nothing to change (diff) or applied (apply); 3 (diff) changes found; 1 failure,
//! including conflicts with other field managers.

use std::io::{IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::bail;
use serde_json::{Value, json};

use super::composition::composition_sources_help;
use crate::cluster::apply::{ApplyOptions, FIELD_MANAGER, Outcome};
use crate::cluster::client::Session;
use crate::cluster::diff::{FieldChange, is_secret_field, path_string};
use crate::cluster::plan::{Action, ResourcePlan};
use crate::cluster::{ClusterOptions, ConnectOptions, FetchOptions, Target, inputs, plan, render};
use crate::io::input_error;
use crate::review::{Objects, XrReview};

/// Diff found changes.
pub(crate) const EXIT_CHANGES: u8 = 3;

/// A review's exit status: a failed XR outranks changes (as crossplane-diff's), changes outrank none.
pub(crate) fn review_exit<'a>(reviews: impl Iterator<Item = &'a XrReview> + Clone) -> ExitCode {
    ExitCode::from(if reviews.clone().any(|x| !x.errors.is_empty()) {
        super::EXIT_RENDER
    } else if reviews.into_iter().any(|x| !x.changes.is_empty()) {
        EXIT_CHANGES
    } else {
        super::EXIT_OK
    })
}

/// What to read and how to reach the cluster (shared by diff and apply).
#[derive(Debug, clap::Args)]
pub(crate) struct ClusterArgs {
    /// The composite resource or claim, as KIND/NAME (kind, plural or kind.group).
    #[arg(long, value_name = "KIND/NAME")]
    pub(crate) cluster: Option<String>,
    /// The claim's namespace (default: the kubeconfig context's).
    #[arg(long, short = 'n')]
    pub(crate) namespace: Option<String>,
    /// The kubeconfig context to use.
    #[arg(long)]
    pub(crate) context: Option<String>,
    /// The kubeconfig file (default: $KUBECONFIG, ~/.kube/config, then in-cluster config).
    #[arg(long, value_name = "FILE")]
    pub(crate) kubeconfig: Option<PathBuf>,
    /// The Composition's source: the cluster's choice (a CompositionRevision when the XR pins
    /// one) unless --composition FILE or --package REF gives one.
    #[command(flatten)]
    pub(crate) source: super::composition::CompositionArgs,
    /// The limit for each request to the API server, e.g. 30s, 500ms, 2m.
    #[arg(long, default_value = "30s", value_parser = crate::timeout::parse_timeout)]
    pub(crate) timeout: Duration,
    /// Print Secret values instead of hiding them.
    #[arg(long)]
    pub(crate) show_secrets: bool,
    /// The output format.
    #[arg(long, short = 'o', value_enum, default_value_t = Format::Text)]
    pub(crate) output: Format,
}

impl ClusterArgs {
    /// The objects to review: exported ones from `dir`, else the cluster these arguments reach.
    pub(crate) async fn objects(&self, dir: Option<&Path>) -> anyhow::Result<Objects> {
        match dir {
            Some(dir) => Objects::from_dir(dir),
            None => {
                Objects::connect(&ConnectOptions {
                    kubeconfig: self.kubeconfig.clone(),
                    context: self.context.clone(),
                    timeout: self.timeout,
                })
                .await
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    Text,
    Json,
    Yaml,
}

/// Writes a report document as JSON or YAML.
fn write_document(
    out: &mut impl std::io::Write,
    format: Format,
    doc: &Value,
) -> anyhow::Result<()> {
    if format == Format::Yaml {
        write!(out, "{}", crate::io::to_yaml(doc))?;
    } else {
        writeln!(out, "{}", serde_json::to_string_pretty(doc)?)?;
    }
    Ok(())
}

#[derive(Debug, clap::Args)]
#[command(after_help = concat!(
    "Server-side apply with field manager `xprender`; a dry run unless --yes; never deletes; \
    writes nothing when the render ended with a Fatal result.\n\
    Exit status: 0 applied (or nothing to do), 1 failure or conflict with another field manager.\n\n",
    composition_sources_help!()
))]
pub(crate) struct ApplyArgs {
    #[command(flatten)]
    pub(crate) common: ClusterArgs,
    /// Really apply; without it the server only validates (dry run) and nothing changes.
    #[arg(long)]
    pub(crate) yes: bool,
    /// Take over fields other field managers own instead of reporting a conflict.
    #[arg(long)]
    pub(crate) force_conflicts: bool,
}

/// `diff --cluster KIND/NAME`: the plan `apply` would carry out.
pub(crate) fn diff(a: &ClusterArgs, cluster: &str) -> anyhow::Result<ExitCode> {
    let fetch = fetch_options(a)?;
    let (plans, warnings, summary, failure) =
        crate::cluster::block_on(prepare(cluster, a, &fetch))??.0;
    let style = Style::new(a.output);
    let changed = plans.iter().any(|p| p.action != Action::Unchanged);
    let mut out = std::io::stdout().lock();
    match a.output {
        Format::Json | Format::Yaml => {
            let mut doc = json!({
                "changed": changed,
                "resources": plans.iter().map(|p| plan_json(p, a.show_secrets)).collect::<Vec<_>>(),
                "warnings": warnings,
                "inputs": summary,
            });
            if let Some(f) = &failure {
                doc["failure"] = json!(f);
            }
            write_document(&mut out, a.output, &doc)?;
        }
        Format::Text => {
            print_warnings(&warnings);
            for p in &plans {
                write_plan(&mut out, p, a.show_secrets, &style)?;
            }
            let n = plans
                .iter()
                .filter(|p| p.action != Action::Unchanged)
                .count();
            if n == 0 {
                writeln!(out, "No changes.")?;
            } else {
                writeln!(out, "{n} of {} objects would change.", plans.len())?;
            }
        }
    }
    out.flush()?;
    if let Some(f) = failure {
        bail!("{}", failed_render(&f, !plans.is_empty()));
    }
    Ok(ExitCode::from(if changed {
        EXIT_CHANGES
    } else {
        super::EXIT_OK
    }))
}

pub(crate) fn apply(args: &ApplyArgs) -> anyhow::Result<ExitCode> {
    let a = &args.common;
    let Some(cluster) = &a.cluster else {
        return Err(
            input_error!("apply needs the XR or claim to apply: --cluster KIND/NAME").into(),
        );
    };
    let opts = ApplyOptions {
        dry_run: !args.yes,
        force_conflicts: args.force_conflicts,
    };
    let fetch = fetch_options(a)?;
    let (warnings, passes, late_failure) =
        crate::cluster::block_on(apply_passes(cluster, a, &fetch, opts))??;
    let style = Style::new(a.output);
    let suffix = if opts.dry_run { " (dry run)" } else { "" };
    let mut failed = 0;
    let mut out = std::io::stdout().lock();
    let mut docs = Vec::new();
    if a.output == Format::Text {
        print_warnings(&warnings);
    }
    let results = passes
        .iter()
        .enumerate()
        .flat_map(|(pass, (plans, outcomes))| {
            plans.iter().zip(outcomes).map(move |(p, o)| (pass, p, o))
        });
    for (pass, p, o) in results {
        if pass > 0 && matches!(o, Outcome::Unchanged) {
            continue;
        }
        let (status, detail) = describe(o, suffix);
        if matches!(o, Outcome::Conflict(_) | Outcome::Failed(_)) {
            failed += 1;
        }
        match a.output {
            Format::Text => {
                let then = if pass > 0 { "then " } else { "" };
                let color = match o {
                    Outcome::Unchanged => "",
                    Outcome::Applied { .. } => style.green,
                    _ => style.red,
                };
                writeln!(
                    out,
                    "{then}{} {}: {color}{status}{}",
                    p.resource,
                    p.object_label(),
                    style.reset
                )?;
                if let Some(d) = &detail {
                    writeln!(out, "  {d}")?;
                }
            }
            Format::Json | Format::Yaml => {
                let mut doc = plan_json(p, a.show_secrets);
                outcome_json(&mut doc, o, pass, &status, detail);
                docs.push(doc);
            }
        }
    }
    match a.output {
        Format::Json | Format::Yaml => {
            let doc = json!({"dryRun": opts.dry_run, "fieldManager": FIELD_MANAGER, "resources": docs, "warnings": warnings});
            write_document(&mut out, a.output, &doc)?;
        }
        Format::Text if opts.dry_run => writeln!(
            out,
            "Dry run: the cluster was not changed; rerun with --yes to apply."
        )?,
        Format::Text => {}
    }
    if let Some(f) = late_failure {
        bail!(
            "{}; the render after creating the objects above failed, so it applied nothing",
            failed_render(&f, false)
        );
    }
    if failed > 0 {
        bail!("{failed} object(s) could not be applied");
    }
    Ok(ExitCode::from(super::EXIT_OK))
}

/// One render applied: its plans and what became of each.
type Pass = (Vec<ResourcePlan>, Vec<Outcome>);

/// Renders and applies; renders and applies once more when objects were created. Returns the
/// first render's warnings, the passes, and the second render's failure, if it failed.
async fn apply_passes(
    cluster: &str,
    a: &ClusterArgs,
    fetch: &FetchOptions,
    opts: ApplyOptions,
) -> anyhow::Result<(Vec<String>, Vec<Pass>, Option<String>)> {
    let ((plans, warnings, _, failure), mut session) = prepare(cluster, a, fetch).await?;
    if let Some(f) = failure {
        // Crossplane would apply these resources and then fail; apply writes nothing.
        print_warnings(&warnings);
        bail!(
            "{}; nothing was applied",
            failed_render(&f, !plans.is_empty())
        );
    }
    let outcomes = crate::cluster::apply::apply(&mut session, &plans, opts).await;
    let created = !opts.dry_run
        && outcomes.iter().any(|o| {
            matches!(
                o,
                Outcome::Applied {
                    action: Action::Create,
                    ..
                }
            )
        });
    let mut passes = vec![(plans, outcomes)];
    let mut late_failure = None;
    if created {
        // New objects' generated names are known only now: one more render records them
        // (the XR's spec.resourceRefs), as Crossplane's next reconcile would.
        let ((plans, _, _, failure), mut session) = prepare(cluster, a, fetch).await?;
        match failure {
            // The first pass stands; the second writes nothing.
            Some(f) => late_failure = Some(f),
            None => {
                let outcomes = crate::cluster::apply::apply(&mut session, &plans, opts).await;
                passes.push((plans, outcomes));
            }
        }
    }
    Ok((warnings, passes, late_failure))
}

/// An outcome as the report names it, and the detail printed under it.
fn describe(o: &Outcome, suffix: &str) -> (String, Option<String>) {
    match o {
        Outcome::Unchanged => ("unchanged".to_string(), None),
        Outcome::Applied {
            action: Action::Create,
            name,
        } => (format!("created {name}{suffix}"), None),
        Outcome::Applied { .. } => (format!("configured{suffix}"), None),
        Outcome::Conflict(c) => {
            let fields: Vec<String> = c
                .iter()
                .map(|(m, f)| {
                    if f.is_empty() {
                        format!("field manager {m:?}")
                    } else {
                        format!("{f} (owned by field manager {m:?})")
                    }
                })
                .collect();
            (
                "conflict".to_string(),
                Some(format!(
                    "conflicts with other field managers: {}; rerun with --force-conflicts to take them over",
                    fields.join(", ")
                )),
            )
        }
        Outcome::Failed(e) => ("failed".to_string(), Some(format!("{e:#}"))),
    }
}

/// Adds an outcome to a plan's JSON document.
fn outcome_json(doc: &mut Value, o: &Outcome, pass: usize, status: &str, detail: Option<String>) {
    doc["outcome"] = json!(status);
    doc["pass"] = json!(pass + 1);
    if let Outcome::Applied { name, .. } = o {
        doc["name"] = json!(name);
    }
    if let Outcome::Conflict(c) = o {
        doc["conflicts"] = c
            .iter()
            .map(|(m, f)| json!({"manager": m, "field": f}))
            .collect();
    }
    if let Some(d) = detail {
        doc["error"] = json!(d);
    }
}

/// The plans, warnings, inputs summary and the render's failure (its first Fatal result).
type Prepared = (
    (Vec<ResourcePlan>, Vec<String>, Value, Option<String>),
    Session,
);

/// The error for a render that ended with a Fatal result.
fn failed_render(failure: &str, applied: bool) -> String {
    if applied {
        format!(
            "render failed: {failure}\n  Crossplane applies the composed resources shown and then fails the reconcile"
        )
    } else {
        format!("render failed: {failure}")
    }
}

/// What the engine chose among the documents read from the cluster, without secret values: the
/// Composition's source, the observed resources and the connection detail keys each one offers.
fn inputs_summary(inputs: &inputs::ClusterInputs, output: &Value) -> Value {
    let chosen = output.get("inputs").cloned().unwrap_or(Value::Null);
    let names = |key: &str| -> Vec<String> {
        chosen
            .get(key)
            .and_then(Value::as_object)
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    };
    let keys = |doc: Option<&Value>, fields: &[&str]| -> Vec<String> {
        let mut keys: Vec<String> = fields
            .iter()
            .filter_map(|f| doc?.get(*f)?.as_object())
            .flat_map(|m| m.keys().cloned())
            .collect();
        keys.sort();
        keys.dedup();
        keys
    };
    let details: serde_json::Map<String, Value> = names("observed")
        .into_iter()
        .map(|t| {
            let secret = chosen
                .pointer(&format!(
                    "/connectionSecrets/{}",
                    t.replace('~', "~0").replace('/', "~1")
                ))
                .and_then(Value::as_str)
                .and_then(|s| inputs.document(s));
            (t, keys(secret, &["data", "stringData"]).into())
        })
        .collect();
    let environment: Option<Vec<String>> =
        chosen
            .get("environment")
            .and_then(Value::as_array)
            .map(|names| {
                let mut all: Vec<String> = names
                    .iter()
                    .filter_map(Value::as_str)
                    .flat_map(|n| {
                        keys(
                            inputs.document(&format!("EnvironmentConfig/{n}")),
                            &["data"],
                        )
                    })
                    .collect();
                all.sort();
                all.dedup();
                all
            });
    let xrd = chosen
        .get("xrd")
        .and_then(Value::as_str)
        .and_then(|n| inputs.document(&format!("CompositeResourceDefinition/{n}")));
    let secret_keys = xrd
        .and_then(|x| x.pointer("/spec/connectionSecretKeys"))
        .and_then(Value::as_array)
        .filter(|k| !k.is_empty());
    let name_of = |key: &str| {
        chosen
            .get(key)
            .and_then(Value::as_str)
            .and_then(|d| d.split_once('/'))
            .map(|(_, n)| n.to_owned())
    };
    json!({
        "composite": crate::cluster::str_at(&inputs.xr, "/metadata/name"),
        "claim": name_of("claim"),
        "composition": inputs.composition_source(output),
        "observed": names("observed"),
        "connectionSecretKeys": secret_keys,
        "connectionDetailKeys": details,
        "environmentKeys": environment,
    })
}

/// The local Composition source, read (and pulled) before any cluster IO starts.
fn fetch_options(a: &ClusterArgs) -> anyhow::Result<FetchOptions> {
    Ok(FetchOptions {
        candidates: a.source.candidates()?,
        composition_name: a.source.composition_name.clone(),
    })
}

/// Connects, reads the cluster, renders and plans.
async fn prepare(cluster: &str, a: &ClusterArgs, fetch: &FetchOptions) -> anyhow::Result<Prepared> {
    let target = Target::parse(cluster, a.namespace.clone())?;
    let opts = ClusterOptions {
        connect: ConnectOptions {
            kubeconfig: a.kubeconfig.clone(),
            context: a.context.clone(),
            timeout: a.timeout,
        },
        fetch: fetch.clone(),
    };
    let mut session = Session::connect(&opts.connect).await?;
    let inputs = inputs::fetch(&mut session, &target, &opts.fetch).await?;
    let output = render::render(&inputs.request)?;
    if let Some(e) = inputs.input_error(&output) {
        return Err(e.into());
    }
    let mut warnings = inputs.warnings(&output);
    if a.output == Format::Text {
        eprintln!(
            "{}: rendering with {}",
            target,
            inputs.composition_source(&output)
        );
    }
    let mut failure = None;
    for r in output
        .get("results")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let sev = r.get("severity").and_then(Value::as_str).unwrap_or("");
        let msg = r.get("message").and_then(Value::as_str).unwrap_or("");
        match sev {
            "Normal" => {}
            "Fatal" => {
                failure.get_or_insert_with(|| fatal_text(r, msg));
            }
            _ => warnings.push(format!("render {sev}: {msg}")),
        }
    }
    let mut plans = plan::plan(&inputs, &output)?;
    if failure.is_some() {
        // A failed reconcile never applies the XR; a native one that failed after the apply
        // step has applied its composed resources, which the plans still show.
        plans.retain(|p| !p.composite);
    }
    Ok((
        (plans, warnings, inputs_summary(&inputs, &output), failure),
        session,
    ))
}

/// A Fatal result as one line: resource, message, patch and field path.
fn fatal_text(r: &Value, msg: &str) -> String {
    let s = |k: &str| r.get(k).and_then(Value::as_str);
    let mut text = match s("resource") {
        Some(res) => format!("{res}: {msg}"),
        None => msg.to_owned(),
    };
    if let (Some(i), Some(t)) = (r.get("patchIndex").and_then(Value::as_i64), s("patchType")) {
        text.push_str(&format!(" (patch #{i}, {t})"));
    }
    if let Some(p) = s("fieldPath") {
        text.push_str(&format!(" (field path {p})"));
    }
    text
}

fn print_warnings(warnings: &[String]) {
    for w in warnings {
        eprintln!("warning: {w}");
    }
}

/// ANSI colors on a terminal (unless NO_COLOR), plain otherwise.
struct Style {
    red: &'static str,
    green: &'static str,
    yellow: &'static str,
    bold: &'static str,
    reset: &'static str,
}

impl Style {
    fn new(format: Format) -> Style {
        let color = format == Format::Text
            && std::io::stdout().is_terminal()
            && std::env::var_os("NO_COLOR").is_none();
        if color {
            Style {
                red: "\x1b[31m",
                green: "\x1b[32m",
                yellow: "\x1b[33m",
                bold: "\x1b[1m",
                reset: "\x1b[0m",
            }
        } else {
            Style {
                red: "",
                green: "",
                yellow: "",
                bold: "",
                reset: "",
            }
        }
    }
}

const HIDDEN: &str = "(hidden; --show-secrets shows it)";

fn shown(p: &ResourcePlan, c: &FieldChange, v: &Value, show_secrets: bool) -> Value {
    if !show_secrets && is_secret_field(&p.desired, &c.path) {
        json!(HIDDEN)
    } else {
        v.clone()
    }
}

fn write_plan(
    out: &mut impl std::io::Write,
    p: &ResourcePlan,
    show_secrets: bool,
    s: &Style,
) -> anyhow::Result<()> {
    let what = match p.action {
        Action::Unchanged => "unchanged".to_string(),
        Action::Create => "new".to_string(),
        Action::Update => format!("{} field(s) changed", p.changes.len()),
    };
    let mark = match p.action {
        Action::Unchanged => " ",
        Action::Create => "+",
        Action::Update => "~",
    };
    writeln!(
        out,
        "{}{mark} {} {}{}: {what}",
        s.bold,
        p.resource,
        p.object_label(),
        s.reset
    )?;
    for c in &p.changes {
        let path = path_string(&c.path);
        let desired = shown(p, c, &c.desired, show_secrets);
        match &c.live {
            None => writeln!(out, "    {}+ {path}: {desired}{}", s.green, s.reset)?,
            Some(live) => {
                let live = shown(p, c, live, show_secrets);
                writeln!(
                    out,
                    "    {}~ {path}:{} {}{live}{} → {}{desired}{}",
                    s.yellow, s.reset, s.red, s.reset, s.green, s.reset
                )?;
            }
        }
    }
    Ok(())
}

fn plan_json(p: &ResourcePlan, show_secrets: bool) -> Value {
    let changes: Vec<Value> = p
        .changes
        .iter()
        .map(|c| {
            json!({
                "path": path_string(&c.path),
                "live": c.live.as_ref().map(|l| shown(p, c, l, show_secrets)),
                "desired": shown(p, c, &c.desired, show_secrets),
            })
        })
        .collect();
    json!({
        "resource": p.resource,
        "apiVersion": p.api_version,
        "kind": p.kind,
        "name": p.name,
        "namespace": p.namespace,
        "action": p.action.as_str(),
        "changes": changes,
    })
}
