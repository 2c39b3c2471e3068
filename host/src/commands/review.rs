//! `xprender diff FILE...`: reviews XR and claim files against a live cluster or exported
//! objects, and writes the report (text, JSON or YAML).
//!
//! The inputs decide the mode: XR or claim files review those; `--cluster KIND/NAME` is the
//! live plan in `cluster.rs`; a Composition alone is an impact analysis over the XRs it
//! reaches (`impact.rs`).

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use serde_json::Value;

use super::cluster::{ClusterArgs, Format, review_exit};
use crate::cluster::str_at;
use crate::io::{self, input_error};
use crate::review::write::{self, TextStyle};
use crate::review::{IgnorePaths, Objects, ReviewOptions, XrReview};

#[derive(Debug, clap::Args)]
#[command(after_help = concat!(
    "Reviewing FILEs (XRs and claims): each is compared, with the whole tree it composes (nested XRs \
    to --depth-limit), as the API server would store it: a server-side dry run where the credentials \
    may, else the render with CRD defaults (always with --objects). Text: `+++` added, `~~~` modified, \
    `---` removed, then `Summary: ...`; warnings and errors on stderr.\n\
    --output json|yaml: {summary: {added, modified, removed}, changes: [...], xrs: [{xr, origin, status, \
    summary, unchanged, comparedWith, changes: [{type, apiVersion, kind, name, namespace, resource, \
    comparedWith, diff: {spec} | {old, new}, fields: [{path, old, new}]}], warnings, errors}], \
    warnings: [{message, context}], errors: [{resourceID, message}]}\n\
    Exit status: 0 no changes, 3 changes found, 1 failure (any XR that could not be reviewed: a failure \
    outranks changes; warnings never count), 2 usage error.\n\n\
    With --cluster KIND/NAME: the field-level plan `apply` uses, for one live XR or claim. Exit status: \
    0 no changes, 3 changes found, 1 failure (a render that ended with a Fatal result \
    included: the resources Crossplane applies before failing are still shown).\n\
    Compared: the fields the render sets; server-managed metadata and composed resources' status are ignored.\n\
    --output json: {changed, resources: [{resource, apiVersion, kind, name, namespace, action, \
    changes: [{path, live, desired}]}], warnings, failure?, inputs: {composite, claim, composition, observed, \
    connectionSecretKeys, connectionDetailKeys, environmentKeys}}\n\n",
    super::composition::composition_sources_help!()
))]
pub(crate) struct DiffArgs {
    /// XR and claim files to review (multi-document YAML or JSON; `-` reads stdin).
    #[arg(value_name = "FILE", conflicts_with = "cluster")]
    pub(crate) files: Vec<PathBuf>,
    #[command(flatten)]
    pub(crate) common: ClusterArgs,
    #[command(flatten)]
    pub(crate) review: ReviewArgs,
    #[command(flatten)]
    pub(crate) impact: super::impact::ImpactArgs,
}

/// `xprender diff`: a review of files, with `--cluster` the live plan, with a Composition alone
/// an impact analysis.
pub(crate) fn diff(args: &DiffArgs) -> anyhow::Result<ExitCode> {
    let a = &args.common;
    match &a.cluster {
        Some(_) if args.review.objects.is_some() => Err(input_error!(
            "--objects reviews XR and claim files; it does not go with --cluster"
        )
        .into()),
        Some(cluster) => super::cluster::diff(a, cluster),
        None if super::impact::asked(&args.files, a) => impact(a, &args.review, &args.impact),
        None if !args.impact.resource.is_empty() || args.impact.include_manual => Err(input_error!(
            "--resource and --include-manual narrow an impact analysis: give a Composition and no XR files"
        )
        .into()),
        None => run(&args.files, a, &args.review),
    }
}

/// An impact analysis with the Composition given and the review's options.
fn impact(
    a: &ClusterArgs,
    r: &ReviewArgs,
    i: &super::impact::ImpactArgs,
) -> anyhow::Result<ExitCode> {
    let composition = override_composition(a)?
        .context("an impact analysis needs the Composition: --composition FILE or --package REF")?;
    let review = ReviewOptions {
        composition: None,
        depth_limit: r.depth_limit,
        ignore: IgnorePaths::parse(&r.ignore_paths).map_err(|e| input_error!("{e}"))?,
        dry_run: !r.no_dry_run,
    };
    let style = TextStyle {
        color: !r.no_color
            && std::io::stdout().is_terminal()
            && std::env::var_os("NO_COLOR").is_none(),
        compact: r.compact,
    };
    super::impact::run(a, composition, r.objects.as_deref(), review, style, i)
}

/// Options of a review of files.
#[derive(Debug, clap::Args)]
pub(crate) struct ReviewArgs {
    /// Read the cluster's objects from DIR (`kubectl get -o yaml` output, any YAML or JSON
    /// files, recursively) instead of connecting: an offline review, compared with CRD defaults.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["cluster", "context", "kubeconfig"])]
    pub(crate) objects: Option<PathBuf>,
    /// Leave these fields out of the comparison, in crossplane-diff's syntax
    /// (`metadata.annotations[argocd.argoproj.io/tracking-id]`); repeatable or comma-separated.
    #[arg(long, value_name = "PATH")]
    pub(crate) ignore_paths: Vec<String>,
    /// How deep nested XRs are followed (the reviewed XR is level 1).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) depth_limit: u32,
    /// Show diffs with three lines of context instead of whole objects.
    #[arg(long)]
    pub(crate) compact: bool,
    /// No colours (also without a terminal or with NO_COLOR set).
    #[arg(long)]
    pub(crate) no_color: bool,
    /// Do not ask the API server for dry runs: compare with the render and CRD defaults.
    #[arg(long)]
    pub(crate) no_dry_run: bool,
}

/// Reviews the XRs and claims of `files`.
pub(crate) fn run(files: &[PathBuf], a: &ClusterArgs, r: &ReviewArgs) -> anyhow::Result<ExitCode> {
    if files.is_empty() {
        return Err(input_error!(
            "give XR or claim files to review (`-` reads stdin), or --cluster KIND/NAME"
        )
        .into());
    }
    let inputs = read_inputs(files)?;
    let ignore = IgnorePaths::parse(&r.ignore_paths).map_err(|e| input_error!("{e}"))?;
    let composition = override_composition(a)?;
    let reviews = crate::cluster::block_on(async {
        let mut objects = a.objects(r.objects.as_deref()).await?;
        let composition = match (composition, &a.source.composition_name) {
            (Some(c), _) => Some(c),
            (None, Some(name)) => Some(cluster_composition(&mut objects, name).await?),
            (None, None) => None,
        };
        let opts = ReviewOptions {
            composition,
            depth_limit: r.depth_limit,
            ignore,
            dry_run: !r.no_dry_run,
        };
        if a.output == Format::Text {
            eprintln!("reviewing against {}", objects.origin());
        }
        let mut out = Vec::new();
        for (value, origin) in &inputs {
            out.push(crate::review::review(&mut objects, value, origin, &opts).await);
        }
        anyhow::Ok(out)
    })??;
    write_report(&reviews, a.output, r)?;
    Ok(review_exit(reviews.iter()))
}

fn write_report(reviews: &[XrReview], format: Format, r: &ReviewArgs) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    let mut err = std::io::stderr().lock();
    match format {
        Format::Text => {
            let style = TextStyle {
                color: !r.no_color
                    && std::io::stdout().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none(),
                compact: r.compact,
            };
            write::text(&mut out, &mut err, reviews, style)?;
        }
        Format::Json => {
            let doc = write::document(reviews);
            use std::io::Write as _;
            writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
        }
        Format::Yaml => {
            use std::io::Write as _;
            write!(out, "{}", io::to_yaml(&write::document(reviews)))?;
        }
    }
    Ok(())
}

/// Every document of the files (stdin for `-`), each with where it came from.
fn read_inputs(files: &[PathBuf]) -> anyhow::Result<Vec<(Value, String)>> {
    let mut out = Vec::new();
    for f in files {
        let docs = if f == Path::new("-") {
            let bytes = io::read_limited(std::io::stdin().lock(), "stdin")?;
            let text = String::from_utf8(bytes).map_err(|_| input_error!("stdin is not UTF-8"))?;
            let values = io::parse_yaml_stream(&text).map_err(|e| input_error!("stdin:{e}"))?;
            io::into_docs(values, Path::new("stdin"))
        } else {
            io::read_docs(f)?
        };
        for d in docs {
            if !d.value.is_object() || d.kind().is_empty() {
                return Err(input_error!("{}: not an XR or claim (no kind)", d.origin()).into());
            }
            let origin = d.origin();
            out.push((d.value, origin));
        }
    }
    if out.is_empty() {
        return Err(input_error!("no XR or claim in the files given").into());
    }
    Ok(out)
}

/// The Composition of `--composition FILE` or `--package`: the only one there, or the one
/// `--composition-name` names.
pub(crate) fn override_composition(a: &ClusterArgs) -> anyhow::Result<Option<Value>> {
    let Some(candidates) = a.source.candidates()? else {
        return Ok(None);
    };
    let comps: Vec<&Value> = candidates
        .docs
        .iter()
        .map(|d| &d.value)
        .filter(|v| str_at(v, "/kind") == "Composition")
        .collect();
    let name = a.source.composition_name.as_deref();
    let chosen: Vec<&&Value> = comps
        .iter()
        .filter(|c| name.is_none_or(|n| str_at(c, "/metadata/name") == n))
        .collect();
    match chosen.as_slice() {
        [one] => Ok(Some((**one).clone())),
        [] => Err(input_error!(
            "{}: no Composition{}",
            candidates.source,
            name.map(|n| format!(" named {n:?}")).unwrap_or_default()
        )
        .into()),
        _ => Err(input_error!(
            "{}: several Compositions; pick one with --composition-name",
            candidates.source
        )
        .into()),
    }
}

/// The cluster's Composition of this name.
async fn cluster_composition(objects: &mut Objects, name: &str) -> anyhow::Result<Value> {
    let defs = objects.definitions().await?;
    defs.compositions
        .iter()
        .find(|c| str_at(c, "/metadata/name") == name)
        .cloned()
        .with_context(|| format!("{} has no Composition named {name:?}", objects.origin()))
}
