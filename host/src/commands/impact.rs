//! `xprender diff --composition FILE` with no XR files and no `--cluster`: impact analysis. Every
//! composite resource (and claim) the Composition would reach once applied is reviewed with it,
//! from a live cluster or `--objects DIR`, then summed up; same formats and exit codes as a
//! review of files.
//!
//! A progress bar counts the reviews on stderr when stderr is a terminal and there are at least
//! [`PROGRESS_FROM`] of them, whatever the output format: it never touches stdout, and a
//! terminal on stderr means someone is waiting. Redirected, piped or in CI (no terminal) it is
//! not drawn.

use std::io::{IsTerminal as _, Write as _};
use std::process::ExitCode;

use std::path::Path;

use serde_json::Value;

use super::cluster::{ClusterArgs, Format, review_exit};
use crate::impact::scope::{ResourceRef, Scope};
use crate::impact::{Impact, ImpactOptions, report};
use crate::io::input_error;
use crate::review::ReviewOptions;
use crate::review::write::{self, TextStyle};

/// Reviews from this many on get a progress bar (on a terminal).
const PROGRESS_FROM: usize = 10;

/// Options of an impact analysis.
#[derive(Debug, clap::Args)]
pub(crate) struct ImpactArgs {
    /// Impact analysis only: the composites to analyse, as [NAMESPACE/]NAME (a claim or a
    /// namespaced XR; a bare name is a cluster-scoped XR); repeatable or comma-separated; not
    /// with --namespace.
    #[arg(
        long,
        value_name = "[NAMESPACE/]NAME",
        value_delimiter = ',',
        conflicts_with = "namespace"
    )]
    pub(crate) resource: Vec<String>,
    /// Impact analysis only: also review the composites whose Manual update policy keeps them on
    /// their pinned revision (Crossplane would not move them).
    #[arg(long)]
    pub(crate) include_manual: bool,
}

/// Whether the command line asks for an impact analysis: a Composition and nothing to review
/// with it.
pub(crate) fn asked(files: &[std::path::PathBuf], a: &ClusterArgs) -> bool {
    files.is_empty()
        && a.cluster.is_none()
        && (!a.source.composition_file.is_empty() || a.source.package.is_some())
}

/// Analyses the impact of `composition` on the composites it reaches (objects from the cluster,
/// or from `objects` when given), each reviewed with `review`, and writes the report.
pub(crate) fn run(
    a: &ClusterArgs,
    composition: Value,
    objects: Option<&Path>,
    review: ReviewOptions,
    style: TextStyle,
    i: &ImpactArgs,
) -> anyhow::Result<ExitCode> {
    let opts = ImpactOptions {
        composition,
        scope: scope(a, i)?,
        include_manual: i.include_manual,
        review,
    };
    let impact = crate::cluster::block_on(async {
        let mut objects = a.objects(objects).await?;
        let bar = Progress::default();
        let impact = crate::impact::analyse(&mut objects, &opts, |done, total| {
            bar.update(done, total);
        })
        .await;
        bar.finish();
        impact
    })??;
    write_report(&impact, a.output, style)?;
    Ok(review_exit(impact.analysed.iter().map(|x| &x.review)))
}

fn scope(a: &ClusterArgs, i: &ImpactArgs) -> anyhow::Result<Scope> {
    if !i.resource.is_empty() {
        let refs = i
            .resource
            .iter()
            .map(|r| ResourceRef::parse(r).map_err(|e| input_error!("{e}").into()))
            .collect::<anyhow::Result<Vec<_>>>()?;
        return Ok(Scope::Resources(refs));
    }
    Ok(a.namespace.clone().map_or(Scope::All, Scope::Namespace))
}

fn write_report(impact: &Impact, format: Format, style: TextStyle) -> anyhow::Result<()> {
    let reviews: Vec<_> = impact.analysed.iter().map(|x| x.review.clone()).collect();
    let mut out = std::io::stdout().lock();
    match format {
        Format::Text => {
            let mut err = std::io::stderr().lock();
            write::text(&mut out, &mut err, &reviews, style)?;
            if !reviews.is_empty() {
                writeln!(out)?;
            }
            report::text(&mut out, impact)?;
        }
        Format::Json | Format::Yaml => {
            let mut doc = write::document(&reviews);
            doc["impact"] = report::document(impact);
            if format == Format::Yaml {
                write!(out, "{}", crate::io::to_yaml(&doc))?;
            } else {
                writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
            }
        }
    }
    out.flush()?;
    Ok(())
}

/// The progress bar, drawn only on a terminal and for enough reviews.
#[derive(Default)]
struct Progress(std::cell::OnceCell<indicatif::ProgressBar>);

impl Progress {
    fn update(&self, done: usize, total: usize) {
        if total < PROGRESS_FROM || !std::io::stderr().is_terminal() {
            return;
        }
        let bar = self.0.get_or_init(|| {
            let bar = indicatif::ProgressBar::new(total as u64);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "reviewing {pos}/{len} XRs [{bar:30}] {eta}",
            ) {
                bar.set_style(style);
            }
            bar
        });
        bar.set_position(done as u64);
    }

    fn finish(&self) {
        if let Some(bar) = self.0.get() {
            bar.finish_and_clear();
        }
    }
}
