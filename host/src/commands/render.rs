//! `xprender render`: its command line. Gathering the request, running the engine and printing
//! its answer are the submodules' jobs.

mod engine;
mod gather;
mod iterations;
pub(crate) mod report;
mod run;
mod stream;
mod tree;
mod walk;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crate::timeout::parse_timeout;

/// The output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum OutputFormat {
    /// A YAML stream like `crossplane render`: the XR, then every composed resource (a nested
    /// XR as its own render leaves it, followed by its resources).
    Yaml,
    /// The engine's Output document, exactly as the engine wrote it.
    Json,
    /// The tree of objects, like `crossplane beta trace`: each with its readiness and whether
    /// its render reported a problem.
    Tree,
}

/// Which Crossplane engine's behaviour to reproduce.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum SemanticsArg {
    /// Crossplane v1.14's built-in patch-and-transform engine (default for spec.resources).
    Native,
    /// function-patch-and-transform v0.10 (default for spec.mode: Pipeline).
    Function,
}

/// Which `crossplane render` a render from files answers as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum CrossplaneVersion {
    /// Crossplane v1 (v1.14 to v1.20): the XR with the spec fields the render changed and its
    /// input status, claim labels and `generateName` on every composed resource, errors in
    /// xprender's words.
    V1,
    /// Crossplane v2.2: the XR as the functions desired it, v2's composed-resource metadata
    /// (namespaced XRs, observed identities), `crossplane render`'s errors and exit codes.
    V2,
}

impl SemanticsArg {
    fn as_str(self) -> &'static str {
        match self {
            SemanticsArg::Native => "native",
            SemanticsArg::Function => "function",
        }
    }
}

#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("iterating").multiple(true)))]
#[command(after_help = "\
Examples:
  # Render the XR with its Composition, as for a new XR.
  xprender render xr.yaml composition.yaml

  # Render an XR that already exists: observed resources (and their connection Secrets).
  xprender render xr.yaml composition.yaml --observed-resources observed.yaml

  # Explain every patch: what it read, each transform, what it wrote.
  xprender render xr.yaml composition.yaml --trace

  # Pick the Composition among a package directory; apply the result.
  xprender render xr.yaml package/ | kubectl apply -f -

  # Render a live XR (or claim) as its cluster would: Composition (or pinned
  # CompositionRevision), observed resources, connection Secrets, XRD, environment.
  xprender render --cluster xpostgresqlinstances/orders-db

  # Try a new Composition against that live state: a file, or a package's.
  xprender render --cluster xpostgresqlinstances/orders-db --composition new.yaml
  xprender render --cluster xpostgresqlinstances/orders-db --package registry.example.org/platform:v2

  # A tree of XRs: nested XRs are rendered with their own Compositions (given
  # among the documents, or with --composition) down to the leaves.
  xprender render xr.yaml compositions.yaml --xrd xrds.yaml --output tree

  # The eventual state: render until nothing changes, simulated providers
  # writing what simulation.yaml says; each render's changes go to stderr.
  xprender render xr.yaml compositions.yaml --until-ready --simulation simulation.yaml

  # Send a raw engine request (the render contract's JSON) from stdin.
  xprender render --request - --output json < request.json

Exit codes: 0 rendered (or the XR is paused), 1 the render failed (or did not settle),
2 usage or input error.")]
pub(crate) struct RenderArgs {
    /// The composite resource (YAML or JSON), or a claim: rendered as the composite
    /// Crossplane creates for it (its XRD must be given).
    #[arg(required_unless_present_any = ["request", "cluster"], value_name = "XR")]
    pub(crate) xr: Option<PathBuf>,
    /// The Composition: a file (multi-document allowed) or a directory of YAML/JSON files.
    /// The Compositions of nested XRs may be among them, or in --composition files.
    #[arg(
        required_unless_present_any = ["request", "package", "cluster", "composition_file"],
        conflicts_with = "package",
        value_name = "COMPOSITION"
    )]
    pub(crate) composition: Option<PathBuf>,
    /// The Composition's source instead of COMPOSITION (with --cluster: instead of the
    /// cluster's choice).
    #[command(flatten)]
    pub(crate) source: super::composition::CompositionArgs,
    /// Observed composed resources (a multi-document file or a directory), matched by their
    /// crossplane.io/composition-resource-name annotation; Secrets among them are the
    /// connection secrets the resources' spec.writeConnectionSecretToRef name.
    #[arg(long, short = 'o', value_name = "FILE|DIR")]
    pub(crate) observed_resources: Option<PathBuf>,
    /// The environment: EnvironmentConfig documents (their data is merged in order) or a
    /// plain object.
    #[arg(long, value_name = "FILE")]
    pub(crate) environment: Option<PathBuf>,
    /// CompositeResourceDefinitions (default and enforced Composition, connection secret
    /// keys, schema defaults): the XR's and its nested XRs'. A file (multi-document allowed)
    /// or a directory; repeatable. Found among the COMPOSITION documents too.
    #[arg(long, value_name = "FILE|DIR")]
    pub(crate) xrd: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Yaml)]
    pub(crate) output: OutputFormat,
    /// Render the eventual state: render, let simulated providers act on what was desired
    /// (--simulation), observe it and render again, until a render changes nothing. Fails
    /// when the tree does not settle, or settles unready, within --iterations (default 20).
    /// What each render changed goes to stderr.
    #[arg(long, group = "iterating")]
    pub(crate) until_ready: bool,
    /// Render at most N times, each observing what the one before desired (see
    /// --until-ready); alone, stops there without requiring the tree to be ready.
    #[arg(long, value_name = "N", group = "iterating", value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) iterations: Option<u32>,
    /// What the simulated providers write between iterations: Simulation documents
    /// (xprender.dev/v1alpha1). Repeatable; needs --until-ready or --iterations.
    #[arg(long, value_name = "FILE|DIR", requires = "iterating")]
    pub(crate) simulation: Vec<PathBuf>,
    /// How deep nested XRs may go (the top XR is level 1; default 10).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) depth_limit: Option<u32>,
    /// Explain every patch on stderr: source value, each transform, the value written.
    #[arg(long)]
    pub(crate) trace: bool,
    /// Print the XR's full spec and metadata, not only what the render set (name, status
    /// and the spec fields patches wrote).
    #[arg(long, short = 'x')]
    pub(crate) include_full_xr: bool,
    /// The semantics to render with (default: native for spec.resources, function for
    /// spec.mode: Pipeline).
    #[arg(long, value_enum)]
    pub(crate) semantics: Option<SemanticsArg>,
    /// Send a raw engine request (the render contract's JSON) from FILE, or stdin with `-`.
    #[arg(
        long,
        value_name = "FILE|-",
        conflicts_with_all = ["xr", "composition", "observed_resources", "environment", "xrd", "semantics", "package", "composition_file", "composition_name", "until_ready", "iterations", "simulation", "depth_limit"]
    )]
    pub(crate) request: Option<String>,
    /// Read the XR (or a claim, followed to its XR), its Composition (unless --composition
    /// FILE or --package REF gives one; a CompositionRevision when the XR pins one), the
    /// observed composed resources, their connection Secrets and the XRD from a live cluster:
    /// KIND/NAME.
    #[arg(
        long,
        value_name = "KIND/NAME",
        conflicts_with_all = ["xr", "composition", "observed_resources", "environment", "xrd", "request"]
    )]
    pub(crate) cluster: Option<String>,
    /// With --cluster: the claim's namespace (default: the kubeconfig context's).
    #[arg(long, short = 'n', requires = "cluster")]
    pub(crate) namespace: Option<String>,
    /// With --cluster: the kubeconfig context to use.
    #[arg(long, requires = "cluster")]
    pub(crate) context: Option<String>,
    /// With --cluster: the kubeconfig file (default: $KUBECONFIG, ~/.kube/config, then
    /// in-cluster config).
    #[arg(long, value_name = "FILE", requires = "cluster")]
    pub(crate) kubeconfig: Option<PathBuf>,
    /// With --cluster: the limit for each request to the API server (a Go duration).
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_timeout)]
    pub(crate) cluster_timeout: Duration,
    /// Memory cap of the engine sandbox, e.g. 256MiB, 64M, 1GiB.
    #[arg(long, value_name = "SIZE", default_value = "256MiB", value_parser = parse_size)]
    pub(crate) max_memory: usize,
    /// Time limit of the render: a Go duration, e.g. 1m30s, 500ms.
    #[arg(long, value_name = "DURATION", default_value = "2s", value_parser = parse_timeout)]
    pub(crate) timeout: Duration,
    /// Largest request the host accepts (each input file, and the request assembled from
    /// them), e.g. 64MiB; larger ones are refused before they are read.
    #[arg(long, value_name = "SIZE", default_value = "64MiB", value_parser = parse_size)]
    pub(crate) max_request_size: usize,
    /// Run another build of the engine's core module instead of the bundled one.
    #[arg(long, value_name = "PATH.wasm")]
    pub(crate) engine: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) crossplane: super::crossplane_render::CrossplaneArgs,
    /// Which `crossplane render` a Pipeline rendered from files answers as (host/README.md,
    /// "`crossplane render` compatibility").
    #[arg(long, value_enum, value_name = "VERSION", default_value_t = CrossplaneVersion::V2)]
    pub(crate) crossplane_version: CrossplaneVersion,
    /// Validate the rendered XR and composed resources against their schemas: the CRDs of
    /// --crds and the XRDs among the XRD, COMPOSITION and --package documents. Problems go
    /// to stderr as `xprender validate` reports them, and fail the render (exit 1).
    #[arg(long)]
    pub(crate) validate: bool,
    /// CRDs for --validate: a file or directory, or a package reference. Repeatable.
    #[arg(long, value_name = "DIR|FILE|REF", requires = "validate")]
    pub(crate) crds: Vec<String>,
}

pub(crate) fn run(args: &RenderArgs) -> anyhow::Result<ExitCode> {
    run::run(args)
}

impl RenderArgs {
    /// Whether this render answers as Crossplane v2's `crossplane render`: from files, v2.
    pub(crate) fn crossplane_v2(&self) -> bool {
        self.crossplane_version == CrossplaneVersion::V2
            && self.request.is_none()
            && self.cluster.is_none()
    }
}

/// `256MiB`, `64M`, `1GiB`, `1048576`.
pub(crate) fn parse_size(s: &str) -> Result<usize, String> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: usize = num
        .parse()
        .map_err(|_| format!("{s:?} is not a size (e.g. 256MiB)"))?;
    let mult: usize = match unit.trim() {
        "" | "B" => 1,
        "K" | "KB" | "KiB" | "k" => 1 << 10,
        "M" | "MB" | "MiB" => 1 << 20,
        "G" | "GB" | "GiB" => 1 << 30,
        u => return Err(format!("unknown size unit {u:?} (use KiB, MiB or GiB)")),
    };
    let bytes = n
        .checked_mul(mult)
        .ok_or_else(|| format!("{s} is too large"))?;
    if bytes < 64 << 10 {
        return Err(format!("{s} is below the 64KiB wasm page"));
    }
    Ok(bytes)
}
