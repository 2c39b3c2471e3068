//! `xprender render`: assemble a render request from files, run the engine sandboxed, print.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use base64::Engine as _;
use serde_json::{Map, Value, json};

use super::{EXIT_OK, EXIT_RENDER, RenderFailed};
use crate::go_duration::parse_timeout;
use crate::io::{self, Doc, InputError, YamlNode, input_error, lookup};
use crate::runtime::json::{Json, sorted_members};
use crate::runtime::{self, Limits, Runtime};
use crate::{select, trace};

const RESOURCE_NAME: &str = "crossplane.io/composition-resource-name";

/// The output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum OutputFormat {
    /// A YAML stream like `crossplane render`: the XR, then every composed resource.
    Yaml,
    /// The engine's Output document, exactly as the engine wrote it.
    Json,
}

/// Which Crossplane engine's behaviour to reproduce.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum SemanticsArg {
    /// Crossplane v1.14's built-in patch-and-transform engine (default for spec.resources).
    Native,
    /// function-patch-and-transform v0.10 (default for spec.mode: Pipeline).
    Function,
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

  # Send a raw engine request (the render contract's JSON) from stdin.
  xprender render --request - --output json < request.json

Exit codes: 0 rendered (or the XR is paused), 1 the render failed, 2 usage or input error.")]
pub(crate) struct RenderArgs {
    /// The composite resource (YAML or JSON).
    #[arg(required_unless_present_any = ["request", "cluster"], value_name = "XR")]
    pub(crate) xr: Option<PathBuf>,
    /// The Composition: a file (multi-document allowed) or a directory of YAML/JSON files.
    #[arg(
        required_unless_present_any = ["request", "package", "cluster", "composition_file"],
        conflicts_with_all = ["package", "composition_file"],
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
    /// The CompositeResourceDefinition (default and enforced Composition, connection
    /// secret keys). Found among the COMPOSITION documents when not given.
    #[arg(long, value_name = "FILE")]
    pub(crate) xrd: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Yaml)]
    pub(crate) output: OutputFormat,
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
        conflicts_with_all = ["xr", "composition", "observed_resources", "environment", "xrd", "semantics", "package", "composition_file", "composition_name"]
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
    args.crossplane.notices();
    let limits = Limits {
        max_memory: args.max_memory,
        timeout: args.timeout,
    };
    io::set_max_input_size(args.max_request_size);
    let (request, plan) = match (&args.request, &args.cluster) {
        (Some(source), _) => raw_request(source)?,
        (None, Some(target)) => cluster_request(args, target)?,
        (None, None) => build_request(args)?,
    };
    io::check_input_size(request.len(), "the render request")?;
    let response = match runtime::precheck(&request) {
        Some(refusal) => refusal.into_bytes(),
        None => render_sandboxed(args, limits, &request)?,
    };
    // The answer is read in place: no tree of it is built, however large it is.
    let doc = Json::parse(&response).map_err(|e| {
        RenderFailed(format!(
            "the engine returned invalid JSON ({e}); this is a bug in the engine"
        ))
    })?;

    if let Some(err) = doc.get("error") {
        if args.request.is_some() {
            let mut stderr = std::io::stderr().lock();
            stderr.write_all(&response)?;
            stderr.write_all(b"\n")?;
            return Ok(ExitCode::from(EXIT_RENDER));
        }
        return Err(RenderFailed(describe_error(&err.to_value())).into());
    }

    let color = trace::Color::for_stderr();
    if (args.trace || args.request.is_some())
        && args.output == OutputFormat::Yaml
        && let Some(t) = doc.get("trace")
    {
        eprint!("{}", trace::render(&t.to_value(), color));
    }
    // A paused XR gets the notice below instead of the engine's result saying the same.
    let results = doc.get("results").map_or(Value::Null, Json::to_value);
    let fatal = report_results(
        &results,
        args.output == OutputFormat::Yaml && !plan.paused,
        color,
    );

    // A native reconcile that failed after the apply still shows what Crossplane applied.
    let applied = fatal.is_some() && has_resources(doc);
    let mut stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout());
    match args.output {
        OutputFormat::Json => {
            stdout.write_all(&response)?;
            stdout.write_all(b"\n")?;
        }
        OutputFormat::Yaml if (fatal.is_none() || applied) && !plan.paused => {
            if args.validate {
                // The report checks the stream as written, so it is kept for the check.
                let mut stream = Vec::new();
                io::with_deep_stack(|| yaml_stream(doc, &plan, args.include_full_xr, &mut stream))?;
                stdout.write_all(&stream)?;
                write_extra_documents(doc, args, &mut stdout)?;
                stdout.flush()?;
                let stream = String::from_utf8_lossy(&stream);
                if super::validate::check_rendered(&stream, &validation_schemas(args)?)? {
                    return Err(RenderFailed("the rendered resources are not valid".into()).into());
                }
            } else {
                io::with_deep_stack(|| yaml_stream(doc, &plan, args.include_full_xr, &mut stdout))?;
                write_extra_documents(doc, args, &mut stdout)?;
            }
        }
        OutputFormat::Yaml => {}
    }
    stdout.flush()?;
    if plan.paused {
        eprintln!(
            "notice: the XR is paused (annotation crossplane.io/paused: \"true\"): Crossplane \
             does not compose it, so nothing is rendered"
        );
    }
    match fatal {
        Some(msg) if applied => Err(RenderFailed(format!(
            "{msg}\n  Crossplane fails this reconcile after applying the composed resources shown"
        ))
        .into()),
        Some(msg) => Err(RenderFailed(msg).into()),
        None => Ok(ExitCode::from(EXIT_OK)),
    }
}

/// Whether an Output has composed resources (a failed one has them only when they were applied).
fn has_resources(doc: Json<'_>) -> bool {
    doc.get("resources")
        .is_some_and(|r| r.is_object() && !r.is_empty_container())
}

/// `crossplane render`'s Result and Context documents (-r, -c), after the composed resources.
fn write_extra_documents(
    doc: Json<'_>,
    args: &RenderArgs,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    if !args.crossplane.include_function_results && !args.crossplane.include_context {
        return Ok(());
    }
    // Only the members these documents read are turned into values.
    let mut members = serde_json::Map::new();
    for key in ["results", "context"] {
        if let Some(v) = doc.get(key) {
            members.insert(key.to_owned(), v.to_value());
        }
    }
    let output = Value::Object(members);
    for d in super::crossplane_render::extra_documents(&output, &args.crossplane) {
        out.write_all(format!("---\n{}", io::to_yaml(&d)).as_bytes())?;
    }
    Ok(())
}

/// The documents whose CRDs and XRDs `--validate` uses.
fn validation_schemas(args: &RenderArgs) -> anyhow::Result<Vec<Doc>> {
    let mut docs = Vec::new();
    for c in &args.crds {
        if Path::new(c).exists() {
            docs.extend(io::read_docs(Path::new(c))?);
        } else {
            docs.extend(args.source.package_docs(c)?);
        }
    }
    for path in [&args.xrd, &args.composition].into_iter().flatten() {
        docs.extend(io::read_docs(path)?);
    }
    if let Some(reference) = &args.source.package {
        docs.extend(args.source.package_docs(reference)?);
    }
    Ok(docs)
}

/// The engine's answer to `request`, run in the wasmtime sandbox.
fn render_sandboxed(args: &RenderArgs, limits: Limits, request: &[u8]) -> anyhow::Result<Vec<u8>> {
    let started = std::time::Instant::now();
    let runtime = load_runtime(args.engine.as_deref())?;
    crate::debug!(
        "engine module {:?} in {:?}",
        runtime.source(),
        started.elapsed()
    );
    let started = std::time::Instant::now();
    let response = runtime
        .render(request, limits)
        .map_err(|e| RenderFailed(e.to_string()))?;
    crate::debug!(
        "render of {} request bytes in {:?}",
        request.len(),
        started.elapsed()
    );
    Ok(response)
}

/// What the output step needs to know about the request.
struct Plan {
    /// The input XR's JSON text (for the partial XR output).
    xr: Vec<u8>,
    /// Composed resource names in Composition order.
    order: Vec<String>,
    paused: bool,
}

impl Plan {
    fn new(xr: Value, composition: &Value) -> Plan {
        let paused = lookup(&xr, &["metadata", "annotations", "crossplane.io/paused"])
            .and_then(Value::as_str)
            == Some("true");
        let mut order = serde_json::to_vec(composition)
            .ok()
            .and_then(|c| Json::parse(&c).ok().map(resource_order))
            .unwrap_or_default();
        super::crossplane_render::pipeline_order(composition, &mut order);
        Plan {
            order,
            xr: serde_json::to_vec(&xr).unwrap_or_default(),
            paused,
        }
    }
}

fn load_runtime(engine: Option<&Path>) -> anyhow::Result<Runtime> {
    let cache = runtime::default_cache_dir();
    match engine {
        None => Runtime::new(runtime::BUNDLED_ENGINE, cache.as_deref()),
        Some(path) => {
            let wasm = std::fs::read(path).map_err(|e| {
                input_error!("cannot read the engine module {}: {e}", path.display())
            })?;
            Runtime::new(&wasm, cache.as_deref())
                .map_err(|e| input_error!("{}: {e:#}", path.display()).into())
        }
    }
}

fn raw_request(source: &str) -> anyhow::Result<(Vec<u8>, Plan)> {
    let bytes = if source == "-" {
        io::read_limited(std::io::stdin().lock(), "the request on stdin")?
    } else {
        io::read_file_limited(Path::new(source))?
    };
    // The engine judges the request; the host only peeks (in place) for output ordering.
    let parsed = Json::parse(&bytes).ok();
    let plan = Plan {
        xr: parsed
            .and_then(|r| r.get("xr"))
            .map_or_else(|| b"null".to_vec(), |x| x.text().to_vec()),
        order: parsed
            .and_then(|r| r.get("composition"))
            .map(resource_order)
            .unwrap_or_default(),
        paused: false, // the engine's Output says what it rendered
    };
    Ok((bytes, plan))
}

/// The request for a live XR: everything read from the cluster, rendered as from files.
fn cluster_request(args: &RenderArgs, target: &str) -> anyhow::Result<(Vec<u8>, Plan)> {
    use crate::cluster::{self, ClusterOptions, Target};
    let target = Target::parse(target, args.namespace.clone())?;
    let opts = ClusterOptions {
        connect: cluster::ConnectOptions {
            kubeconfig: args.kubeconfig.clone(),
            context: args.context.clone(),
            timeout: args.cluster_timeout,
        },
        fetch: cluster::FetchOptions {
            candidates: args.source.candidates()?,
            composition_name: args.source.composition_name.clone(),
        },
    };
    let inputs = cluster::block_on(cluster::fetch_render_inputs(&target, &opts))??;
    for w in &inputs.warnings {
        eprintln!("warning: {w}");
    }
    let mut request = inputs.request;
    if let Some(options) = request.get_mut("options") {
        if let Some(sem) = args.semantics {
            options["semantics"] = json!(sem.as_str());
        }
        if args.trace {
            options["trace"] = json!(true);
        }
    }
    let plan = Plan::new(inputs.xr, &inputs.composition);
    Ok((serde_json::to_vec(&request)?, plan))
}

fn build_request(args: &RenderArgs) -> anyhow::Result<(Vec<u8>, Plan)> {
    let Some(xr_path) = &args.xr else {
        return Err(input_error!("XR and COMPOSITION are required without --request").into());
    };
    let xr = io::read_single(xr_path, "composite resource")?;
    let composition_path = args
        .composition
        .as_ref()
        .or(args.source.composition_file.as_ref());
    let (docs, source) = match (&args.source.package, composition_path) {
        (Some(reference), _) => (args.source.package_docs(reference)?, reference.clone()),
        (None, Some(comp_path)) => (io::read_docs(comp_path)?, comp_path.display().to_string()),
        (None, None) => {
            return Err(input_error!("XR and COMPOSITION are required without --request").into());
        }
    };
    let mut compositions = select::compositions(&docs, &source)?;
    if let Some(name) = &args.source.composition_name {
        compositions = vec![select::named(&compositions, name, &source)?.clone()];
    }
    let xrd = match &args.xrd {
        Some(p) => Some(io::read_single(p, "CompositeResourceDefinition")?),
        None => select::find_xrd(&xr, &docs),
    };
    // --composition-name stands in for the XRD's default (an enforced Composition still wins).
    let selection_xrd = xrd.clone().map(|mut d| {
        if args.source.composition_name.is_some()
            && let Some(spec) = d.value.get_mut("spec").and_then(Value::as_object_mut)
        {
            spec.remove("defaultCompositionRef");
        }
        d
    });
    let selected = select::composition(&xr, &compositions, selection_xrd.as_ref())?;
    crate::debug!(
        "Composition {:?} chosen by {}",
        selected.composition.name(),
        selected.reason
    );
    let composition = selected.composition.value.clone();

    let mut observed = Map::new();
    if let Some(p) = &args.observed_resources {
        observed.insert("resources".into(), Value::Object(observed_resources(p)?));
    }
    if let Some(p) = &args.environment {
        observed.insert("environment".into(), environment(p)?);
    }
    let mut options = Map::new();
    if let Some(s) = args.semantics {
        options.insert("semantics".into(), s.as_str().into());
    }
    if args.trace {
        options.insert("trace".into(), true.into());
    }
    if let Some(keys) = xrd
        .as_ref()
        .and_then(|d| lookup(&d.value, &["spec", "connectionSecretKeys"]))
        && keys.as_array().is_some_and(|k| !k.is_empty())
    {
        options.insert("connectionSecretKeys".into(), keys.clone());
    }
    let mut request = Map::new();
    request.insert("xr".into(), xr.value.clone());
    request.insert("composition".into(), composition.clone());
    if !observed.is_empty() {
        request.insert("observed".into(), Value::Object(observed));
    }
    if !options.is_empty() {
        request.insert("options".into(), Value::Object(options));
    }
    if let Some(schema) = xrd
        .as_ref()
        .and_then(|d| super::crossplane_render::xrd_schema(&d.value, &xr.value))
    {
        request.insert("xrdSchema".into(), schema);
    }
    args.crossplane.extend(&mut request)?;
    let bytes = serde_json::to_vec(&Value::Object(request))?;
    Ok((bytes, Plan::new(xr.value, &composition)))
}

/// Observed resources keyed by their composition-resource-name annotation, each with the
/// connection details of the Secret its `spec.writeConnectionSecretToRef` names.
fn observed_resources(path: &Path) -> Result<Map<String, Value>, InputError> {
    let docs = io::read_docs(path)?;
    let secret_ref = |d: &Doc| {
        let name = d
            .str_at(&["spec", "writeConnectionSecretToRef", "name"])?
            .to_owned();
        let ns = d
            .str_at(&["spec", "writeConnectionSecretToRef", "namespace"])
            .map(str::to_owned);
        Some((name, ns))
    };
    let refs: Vec<(String, Option<String>)> = docs.iter().filter_map(secret_ref).collect();
    let is_connection_secret = |d: &Doc| {
        d.kind() == "Secret"
            && refs.iter().any(|(name, ns)| {
                name == d.name()
                    && ns.as_deref().is_none_or(|ns| {
                        d.str_at(&["metadata", "namespace"]).is_none_or(|n| n == ns)
                    })
            })
    };

    let mut out = Map::new();
    for d in docs.iter().filter(|d| !is_connection_secret(d)) {
        let Some(name) = d.str_at(&["metadata", "annotations", RESOURCE_NAME]) else {
            if d.kind() == "Secret" {
                eprintln!(
                    "warning: {}: ignoring {}: no observed resource writes its connection secret to it",
                    d.origin(),
                    d.display_name()
                );
                continue;
            }
            return Err(input_error!(
                "{}: observed resource {} has no {RESOURCE_NAME} annotation, so it matches no \
                 Composition entry",
                d.origin(),
                d.display_name()
            ));
        };
        if out.contains_key(name) {
            return Err(input_error!(
                "{}: two observed resources are annotated {RESOURCE_NAME}: {name}",
                d.origin()
            ));
        }
        let mut entry = Map::new();
        entry.insert("resource".into(), d.value.clone());
        if let Some((secret_name, ns)) = secret_ref(d) {
            let secret = docs.iter().find(|s| {
                s.kind() == "Secret"
                    && s.name() == secret_name
                    && ns.as_deref().is_none_or(|ns| {
                        s.str_at(&["metadata", "namespace"]).is_none_or(|n| n == ns)
                    })
            });
            if let Some(secret) = secret {
                entry.insert(
                    "connectionDetails".into(),
                    Value::Object(secret_data(secret)?),
                );
            }
        }
        out.insert(name.to_owned(), Value::Object(entry));
    }
    Ok(out)
}

/// A Secret's `data` (base64 already) merged with its `stringData` (encoded here).
fn secret_data(secret: &Doc) -> Result<Map<String, Value>, InputError> {
    let mut out = Map::new();
    if let Some(data) = lookup(&secret.value, &["data"]).and_then(Value::as_object) {
        for (k, v) in data {
            let s = v.as_str().ok_or_else(|| {
                input_error!(
                    "{}: {}: data.{k} must be a base64 string",
                    secret.origin(),
                    secret.display_name()
                )
            })?;
            base64::engine::general_purpose::STANDARD
                .decode(s)
                .map_err(|e| {
                    input_error!(
                        "{}: {}: data.{k} is not base64: {e}",
                        secret.origin(),
                        secret.display_name()
                    )
                })?;
            out.insert(k.clone(), v.clone());
        }
    }
    if let Some(data) = lookup(&secret.value, &["stringData"]).and_then(Value::as_object) {
        for (k, v) in data {
            let s = v.as_str().ok_or_else(|| {
                input_error!(
                    "{}: {}: stringData.{k} must be a string",
                    secret.origin(),
                    secret.display_name()
                )
            })?;
            out.insert(
                k.clone(),
                base64::engine::general_purpose::STANDARD.encode(s).into(),
            );
        }
    }
    Ok(out)
}

/// The environment: EnvironmentConfigs' data merged in order (as Crossplane merges them),
/// or a plain object taken as it is.
fn environment(path: &Path) -> Result<Value, InputError> {
    let docs = io::read_docs(path)?;
    if docs.is_empty() {
        return Err(input_error!(
            "{}: no environment in the file (it is empty)",
            path.display()
        ));
    }
    if docs.iter().all(|d| d.kind() == "EnvironmentConfig") {
        let mut env =
            json!({"apiVersion": "internal.crossplane.io/v1alpha1", "kind": "Environment"});
        for d in &docs {
            if let Some(data) = lookup(&d.value, &["data"]) {
                merge(&mut env, data);
            }
        }
        return Ok(env);
    }
    match docs.as_slice() {
        [one] if one.value.is_object() => Ok(one.value.clone()),
        _ => Err(input_error!(
            "{}: expected EnvironmentConfig documents or one environment object",
            path.display()
        )),
    }
}

fn merge(dst: &mut Value, src: &Value) {
    match (dst, src) {
        (Value::Object(d), Value::Object(s)) => {
            for (k, v) in s {
                match d.get_mut(k) {
                    Some(existing) if existing.is_object() && v.is_object() => merge(existing, v),
                    _ => {
                        d.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (dst, src) => *dst = src.clone(),
    }
}

/// Resource names in the order the Composition lists them (classic or P&T pipeline steps).
fn resource_order(composition: Json<'_>) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut add = |resources: Option<Json<'_>>| {
        for r in resources.into_iter().flat_map(Json::items) {
            if let Some(n) = r.get("name").and_then(Json::as_str)
                && seen.insert(n.to_string())
            {
                names.push(n.into_owned());
            }
        }
    };
    add(composition.lookup(&["spec", "resources"]));
    for step in composition
        .lookup(&["spec", "pipeline"])
        .into_iter()
        .flat_map(Json::items)
    {
        add(step.lookup(&["input", "resources"]));
    }
    names
}

/// The YAML stream: the XR, then each composed resource, every document after `---`.
fn yaml_stream(
    output: Json<'_>,
    plan: &Plan,
    include_full_xr: bool,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    if let Some(xr) = output.get("composite") {
        out.write_all(b"---\n")?;
        let xr = if include_full_xr {
            YamlNode::Json(xr)
        } else {
            partial_xr(xr, Json::parse(&plan.xr).ok())
        };
        io::write_yaml(out, xr)?;
    }
    let Some(resources) = output.get("resources").filter(|r| r.is_object()) else {
        return Ok(());
    };
    let resources = sorted_members(resources);
    let find = |name: &str| {
        resources
            .binary_search_by(|(k, _)| k.as_ref().cmp(name))
            .ok()
            .map(|i| resources[i].1)
    };
    let ordered: std::collections::HashSet<&str> = plan.order.iter().map(String::as_str).collect();
    let names = plan
        .order
        .iter()
        .map(String::as_str)
        .filter(|n| find(n).is_some())
        .chain(
            resources
                .iter()
                .map(|(k, _)| k.as_ref())
                .filter(|k| !ordered.contains(k)),
        );
    for name in names {
        let Some(resource) = find(name).and_then(|r| r.get("resource")) else {
            continue;
        };
        out.write_all(b"---\n")?;
        io::write_yaml(out, with_annotation(resource, name))?;
    }
    Ok(())
}

/// What `crossplane render` prints of the XR without --include-full-xr: its identity, its
/// status, and the spec fields the render changed.
fn partial_xr<'a>(desired: Json<'a>, input: Option<Json<'_>>) -> YamlNode<'a> {
    let mut out = Vec::new();
    for key in ["apiVersion", "kind"] {
        if let Some(v) = desired.get(key) {
            out.push((key.into(), YamlNode::Json(v)));
        }
    }
    let mut meta = Vec::new();
    for key in ["name", "namespace"] {
        if let Some(v) = desired.lookup(&["metadata", key]) {
            meta.push((key.into(), YamlNode::Json(v)));
        }
    }
    out.push(("metadata".into(), YamlNode::Map(meta)));
    if let Some(spec) = desired.get("spec").filter(|s| s.is_object()) {
        let before = input
            .and_then(|i| i.get("spec"))
            .map(sorted_members)
            .unwrap_or_default();
        let changed: Vec<_> = sorted_members(spec)
            .into_iter()
            .filter(|(k, v)| {
                before
                    .binary_search_by(|(b, _)| b.cmp(k))
                    .map_or(true, |i| !before[i].1.same(*v))
            })
            .map(|(k, v)| (k, YamlNode::Json(v)))
            .collect();
        if !changed.is_empty() {
            out.push(("spec".into(), YamlNode::Map(changed)));
        }
    }
    if let Some(status) = desired.get("status") {
        out.push(("status".into(), YamlNode::Json(status)));
    }
    YamlNode::Map(out)
}

/// The resource with the composition-resource-name annotation `crossplane render` adds when
/// it is missing.
fn with_annotation<'a>(resource: Json<'a>, name: &str) -> YamlNode<'a> {
    /// `members` with `key` set to what `f` makes of its current value (`None` leaves it).
    fn edit<'a>(
        mut members: Vec<(std::borrow::Cow<'a, str>, YamlNode<'a>)>,
        key: &'a str,
        f: impl FnOnce(Option<Json<'a>>) -> Option<YamlNode<'a>>,
    ) -> YamlNode<'a> {
        match members.binary_search_by(|(k, _)| k.as_ref().cmp(key)) {
            Ok(i) => {
                if let YamlNode::Json(current) = members[i].1
                    && let Some(new) = f(Some(current))
                {
                    members[i].1 = new;
                }
            }
            Err(i) => {
                if let Some(new) = f(None) {
                    members.insert(i, (key.into(), new));
                }
            }
        }
        YamlNode::Map(members)
    }
    if !resource.is_object() {
        return YamlNode::Json(resource);
    }
    let annotate = |annotations: Option<Json<'a>>| match annotations {
        None => Some(YamlNode::Map(vec![(
            RESOURCE_NAME.into(),
            YamlNode::Str(name.into()),
        )])),
        Some(a) if a.is_object() => Some(edit(YamlNode::members(a), RESOURCE_NAME, |v| {
            v.is_none().then(|| YamlNode::Str(name.into()))
        })),
        Some(_) => None,
    };
    edit(YamlNode::members(resource), "metadata", |meta| match meta {
        None => Some(YamlNode::Map(vec![("annotations".into(), annotate(None)?)])),
        Some(m) if m.is_object() => Some(edit(YamlNode::members(m), "annotations", annotate)),
        Some(_) => None,
    })
}

/// Prints Warning/Normal results on stderr (YAML mode); returns the first Fatal one.
fn report_results(results: &Value, print: bool, color: trace::Color) -> Option<String> {
    let mut fatal = None;
    for r in results.as_array().into_iter().flatten() {
        let severity = r
            .get("severity")
            .and_then(Value::as_str)
            .unwrap_or("Normal");
        let message = r.get("message").and_then(Value::as_str).unwrap_or("");
        let resource = r.get("resource").and_then(Value::as_str);
        let text = match resource {
            Some(res) => format!("{res}: {message}"),
            None => message.to_owned(),
        };
        if severity == "Fatal" {
            fatal.get_or_insert_with(|| with_location(text, r));
        } else if print {
            eprintln!("{}: {text}", color.severity(severity));
        }
    }
    fatal
}

/// A Fatal result's message with the patch and field path it names.
fn with_location(mut text: String, result: &Value) -> String {
    let s = |k: &str| result.get(k).and_then(Value::as_str);
    if let (Some(i), Some(t)) = (
        result.get("patchIndex").and_then(Value::as_i64),
        s("patchType"),
    ) {
        text.push_str(&format!("\n  patch:      #{i} ({t})"));
    }
    if let Some(p) = s("fieldPath") {
        text.push_str(&format!("\n  field path: {p}"));
    }
    text
}

/// The error document as a readable message: cause, then where.
fn describe_error(err: &Value) -> String {
    let message = err
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("unknown error");
    let mut out = format!("render failed: {message}");
    if let Some(ctx) = err.get("context").and_then(Value::as_object) {
        let s = |k: &str| ctx.get(k).and_then(Value::as_str);
        let n = |k: &str| ctx.get(k).and_then(Value::as_i64);
        if let Some(r) = s("resource") {
            out.push_str(&format!("\n  resource:   {r}"));
        }
        if let (Some(i), Some(t)) = (n("patchIndex"), s("patchType")) {
            out.push_str(&format!("\n  patch:      #{i} ({t})"));
        }
        if let (Some(i), Some(t)) = (n("transformIndex"), s("transformType")) {
            out.push_str(&format!("\n  transform:  #{i} ({t})"));
        }
        if let Some(p) = s("fieldPath") {
            out.push_str(&format!("\n  field path: {p}"));
        }
    }
    if let Some(kind) = err.get("kind").and_then(Value::as_str) {
        out.push_str(&format!("\n  kind:       {kind}"));
    }
    out
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
