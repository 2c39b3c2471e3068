//! `xprender xpkg deps | index | install | uninstall | list`: the package manager's job.

use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context as _, Result, bail};
use serde_json::Value;

use super::fetch::FetchArgs;
use crate::cluster::ConnectOptions;
use crate::cluster::client::Session;
use crate::xpkg::catalog::{RegistryCatalog, root_of};
use crate::xpkg::deps::index::{Entry, Index, parse_crd};
use crate::xpkg::deps::{self, Catalog as _, Graph, Root};
use crate::xpkg::{Options, install};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Output {
    Text,
    Json,
}

/// What to resolve: a package (reference or file) or, with `--crd`, the package owning a CRD.
#[derive(Debug, clap::Args)]
pub(crate) struct Target {
    /// A package reference (repo:tag, repo@sha256:..., or repo for its highest version tag) or
    /// a package file written by `xpkg build`.
    #[arg(required_unless_present = "crd", conflicts_with = "crd")]
    pub(crate) package: Option<String>,
    /// Start from the package that provides this CRD (kind.group/version), found in --index.
    #[arg(long, value_name = "KIND.GROUP/VERSION", requires = "index")]
    pub(crate) crd: Option<String>,
    /// An index of package contents (from `xpkg index`), to resolve CRD dependencies.
    #[arg(long, value_name = "FILE")]
    pub(crate) index: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub(crate) struct ClusterConn {
    /// The kubeconfig file (default: $KUBECONFIG, ~/.kube/config, then in-cluster config).
    #[arg(long, value_name = "FILE")]
    pub(crate) kubeconfig: Option<PathBuf>,
    /// The kubeconfig context to use.
    #[arg(long)]
    pub(crate) context: Option<String>,
    /// The limit for each request to the API server, e.g. 30s, 500ms, 2m.
    #[arg(long, default_value = "30s", value_parser = crate::timeout::parse_timeout)]
    pub(crate) timeout: Duration,
}

impl ClusterConn {
    fn options(&self) -> ConnectOptions {
        ConnectOptions {
            kubeconfig: self.kubeconfig.clone(),
            context: self.context.clone(),
            timeout: self.timeout,
        }
    }
}

#[derive(Debug, clap::Args)]
pub(crate) struct DepsArgs {
    #[command(flatten)]
    pub(crate) target: Target,
    /// The output format (text: a tree for deps, a table for list).
    #[arg(short = 'o', long, value_enum, default_value_t = Output::Text)]
    pub(crate) output: Output,
    #[command(flatten)]
    pub(crate) fetch: FetchArgs,
}

#[derive(Debug, clap::Args)]
pub(crate) struct IndexArgs {
    /// Packages to index: repo:tag or repo@sha256:... for one version, repo for every version tag.
    #[arg(required = true)]
    pub(crate) packages: Vec<String>,
    /// Write the index to this file instead of standard output.
    #[arg(short = 'f', long, value_name = "FILE")]
    pub(crate) file: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) fetch: FetchArgs,
}

#[derive(Debug, clap::Args)]
#[command(
    after_help = "A dry run unless --yes. Without --direct, writes the pkg.crossplane.io/v1 \
object Crossplane installs from; with --direct, installs every package itself in dependency \
order and records them in the pkg.crossplane.io/v1beta1 Lock named xprender."
)]
pub(crate) struct InstallArgs {
    #[command(flatten)]
    pub(crate) target: Target,
    /// Really install; without it nothing is written and the plan is printed.
    #[arg(long)]
    pub(crate) yes: bool,
    /// Do the package manager's job: apply the packages' objects (for clusters without Crossplane).
    #[arg(long)]
    pub(crate) direct: bool,
    /// Crossplane mode: write every resolved dependency as its own pinned package object.
    #[arg(long, conflicts_with = "direct")]
    pub(crate) resolve: bool,
    /// The output format (text: a tree for deps, a table for list).
    #[arg(short = 'o', long, value_enum, default_value_t = Output::Text)]
    pub(crate) output: Output,
    #[command(flatten)]
    pub(crate) cluster: ClusterConn,
    #[command(flatten)]
    pub(crate) fetch: FetchArgs,
}

#[derive(Debug, clap::Args)]
pub(crate) struct UninstallArgs {
    /// The installed package's name (`xpkg list` shows them).
    pub(crate) name: String,
    /// Really uninstall; without it nothing is deleted.
    #[arg(long)]
    pub(crate) yes: bool,
    /// The output format (text: a tree for deps, a table for list).
    #[arg(short = 'o', long, value_enum, default_value_t = Output::Text)]
    pub(crate) output: Output,
    #[command(flatten)]
    pub(crate) cluster: ClusterConn,
}

#[derive(Debug, clap::Args)]
pub(crate) struct ListArgs {
    /// The output format (text: a tree for deps, a table for list).
    #[arg(short = 'o', long, value_enum, default_value_t = Output::Text)]
    pub(crate) output: Output,
    #[command(flatten)]
    pub(crate) cluster: ClusterConn,
}

fn print_json(v: &Value) -> Result<()> {
    crate::outln!("{}", serde_json::to_string_pretty(v)?);
    Ok(())
}

fn spinner() -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new_spinner();
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

fn resolve(target: &Target, opts: &Options, present: &dyn Fn(&str) -> bool) -> Result<Graph> {
    let index = target.index.as_deref().map(Index::read).transpose()?;
    let root = match (&target.package, &target.crd) {
        (_, Some(crd)) => {
            parse_crd(crd)?;
            Root::Crd(crd.clone())
        }
        (Some(p), None) => root_of(p, opts)?,
        (None, None) => bail!("name a package or --crd"),
    };
    let mut catalog = RegistryCatalog::new(opts);
    let graph = deps::resolve(&mut catalog, index.as_ref(), present, root);
    catalog.finish();
    graph
}

pub(crate) fn deps(args: &DepsArgs) -> Result<()> {
    let graph = resolve(&args.target, &args.fetch.options(), &|_| false)?;
    match args.output {
        Output::Json => print_json(&graph.to_json()),
        Output::Text => {
            crate::out!("{}", graph.to_tree());
            Ok(())
        }
    }
}

pub(crate) fn index(args: &IndexArgs) -> Result<()> {
    let opts = args.fetch.options();
    let mut catalog = RegistryCatalog::new(&opts);
    let mut entries = Vec::new();
    for p in &args.packages {
        let (package, versions) = match root_of(p, &opts)? {
            Root::Reference {
                package, version, ..
            } => (package, vec![version]),
            Root::Latest(package) => {
                let tags = catalog.tags(&package)?;
                let versions: Vec<String> = tags
                    .into_iter()
                    .filter(|t| crate::xpkg::constraint::parse_tag(t).is_some())
                    .collect();
                if versions.is_empty() {
                    bail!("{package} has no version tags to index");
                }
                (package, versions)
            }
            Root::File { .. } | Root::Crd(_) => {
                bail!("{p}: index packages from a registry (repo or repo:tag)")
            }
        };
        for v in versions {
            let f = catalog
                .fetch(&package, &v)
                .with_context(|| format!("indexing {package} {v}"))?;
            entries.push(Entry::of(&package, &v, &f));
        }
    }
    catalog.finish();
    let text = serde_json::to_string_pretty(&Index::new(entries))? + "\n";
    match &args.file {
        Some(f) => std::fs::write(f, text).with_context(|| format!("writing {}", f.display())),
        None => {
            crate::out!("{text}");
            Ok(())
        }
    }
}

pub(crate) fn install(args: &InstallArgs) -> Result<()> {
    let opts = args.fetch.options();
    let conn = args.cluster.options();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut session = rt.block_on(Session::connect(&conn))?;
    // CRD dependencies the cluster already serves need no package.
    let present: Vec<(String, String, String)> = if args.direct {
        rt.block_on(served_crds(&mut session))?
    } else {
        vec![]
    };
    let is_present = |crd: &str| {
        parse_crd(crd).is_ok_and(|(name, group, version)| {
            present.iter().any(|(k, g, v)| {
                *g == group
                    && (version == "*" || *v == version)
                    && (name == "*" || k.eq_ignore_ascii_case(&name))
            })
        })
    };
    let graph = resolve(&args.target, &opts, &is_present)?;
    let bar = spinner();
    let report = if args.direct {
        rt.block_on(install::install_direct(
            &mut session,
            &graph,
            !args.yes,
            &bar,
        ))
    } else {
        rt.block_on(install::install_objects(
            &mut session,
            &graph,
            args.resolve,
            !args.yes,
        ))
    };
    bar.finish_and_clear();
    let report = report?;
    match args.output {
        Output::Json => print_json(&report.to_json()),
        Output::Text => {
            crate::out!("{}", report.to_text());
            Ok(())
        }
    }
}

/// (kind and plural, group, version) of every CRD in the cluster.
async fn served_crds(session: &mut Session) -> Result<Vec<(String, String, String)>> {
    let kind = session
        .kind("apiextensions.k8s.io/v1", "CustomResourceDefinition")
        .await?;
    let mut out = Vec::new();
    for crd in session.list(&kind, None).await? {
        let s = |p: &str| {
            crd.pointer(p)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        for v in crd
            .pointer("/spec/versions")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
        {
            let version = v["name"].as_str().unwrap_or("").to_owned();
            out.push((s("/spec/names/kind"), s("/spec/group"), version.clone()));
            out.push((s("/spec/names/plural"), s("/spec/group"), version));
        }
    }
    Ok(out)
}

pub(crate) fn uninstall(args: &UninstallArgs) -> Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let report = rt.block_on(async {
        let mut session = Session::connect(&args.cluster.options()).await?;
        install::uninstall(&mut session, &args.name, !args.yes).await
    })?;
    match args.output {
        Output::Json => print_json(&report.to_json()),
        Output::Text => {
            crate::out!("{}", report.to_text());
            Ok(())
        }
    }
}

pub(crate) fn list(args: &ListArgs) -> Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let doc = rt.block_on(async {
        let mut session = Session::connect(&args.cluster.options()).await?;
        install::list(&mut session).await
    })?;
    if args.output == Output::Json {
        return print_json(&doc);
    }
    let rows: Vec<[String; 5]> = doc["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            let s = |k: &str| p[k].as_str().unwrap_or("").to_owned();
            let deps: Vec<String> = p["dependsOn"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|d| {
                    format!(
                        "{}:{}",
                        d["package"].as_str().unwrap_or(""),
                        d["version"].as_str().unwrap_or("")
                    )
                })
                .collect();
            [
                s("name"),
                s("kind"),
                format!("{}:{}", s("package"), s("version")),
                s("mode"),
                deps.join(", "),
            ]
        })
        .collect();
    if rows.is_empty() {
        crate::outln!("No packages installed.");
        return Ok(());
    }
    let head = ["NAME", "KIND", "PACKAGE", "MODE", "DEPENDS ON"];
    let mut widths = head.map(str::len);
    for r in &rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.len());
        }
    }
    for r in std::iter::once(head.map(str::to_owned)).chain(rows) {
        let line: Vec<String> = r
            .iter()
            .zip(widths)
            .map(|(c, w)| format!("{c:w$}"))
            .collect();
        crate::outln!("{}", line.join("  ").trim_end());
    }
    Ok(())
}
