//! Gathering what a render reads: the documents of the files or package given, sent as one
//! documents request (the engine chooses the Composition, pairs observed resources and
//! Secrets, merges the environment and applies the XRD), a raw request, or a live cluster's.

use std::path::Path;

use serde_json::{Map, Value, json};

use super::RenderArgs;
use crate::io::{self, Doc, input_error, lookup};
use crate::runtime::json::Json;

/// The request for the engine and what the output step needs to know about it.
pub(crate) struct Gathered {
    pub(crate) request: Vec<u8>,
    /// The input XR's JSON text (for the partial XR output).
    pub(crate) xr: Vec<u8>,
    pub(crate) paused: bool,
    pub(crate) source: Source,
}

/// Where the request came from, which decides how its answer is read.
pub(crate) enum Source {
    /// A documents request: where each document came from (by position), which are observed
    /// resources and which Simulations, and the Compositions (and revisions) among them.
    Documents {
        origins: Vec<String>,
        observed: std::ops::Range<usize>,
        simulations: std::ops::Range<usize>,
        /// Whether an observed resource the render does not use is an error (files the user
        /// named) or a warning (what a cluster holds).
        strict: bool,
        compositions: Vec<Value>,
    },
    /// A raw request: its Composition's resource order (a request of parts; a documents
    /// request's Compositions are found in the request when its Output names them).
    Parts { order: Vec<String> },
}

/// The apiVersion an EnvironmentConfig of `--environment` gets when it has none.
const ENVIRONMENT_API: &str = "apiextensions.crossplane.io/v1alpha1";

/// The request for files (or a package) given on the command line.
pub(crate) fn from_files(args: &RenderArgs) -> anyhow::Result<Gathered> {
    let Some(xr_path) = &args.xr else {
        return Err(input_error!("XR and COMPOSITION are required without --request").into());
    };
    let xr = io::read_single(xr_path, "composite resource")?;
    let mut compositions = match (&args.source.package, &args.composition) {
        (Some(reference), _) => args.source.package_docs(reference)?,
        (None, Some(path)) => io::read_docs(path)?,
        (None, None) if !args.source.composition_file.is_empty() => Vec::new(),
        (None, None) => {
            return Err(input_error!("XR and COMPOSITION are required without --request").into());
        }
    };
    compositions.extend(args.source.composition_docs()?);
    let mut docs = vec![xr.clone()];
    // Given XRDs come before any among the Composition documents: the engine uses the first
    // for each type.
    for p in &args.xrd {
        docs.extend(documents_of(p, "CompositeResourceDefinition")?);
    }
    docs.extend(compositions);
    let start = docs.len();
    if let Some(p) = &args.observed_resources {
        docs.extend(io::read_docs(p)?);
    }
    let observed = start..docs.len();
    if let Some(p) = &args.environment {
        docs.extend(environment(p)?);
    }
    let start = docs.len();
    docs.extend(simulations(args)?);
    let simulations = start..docs.len();

    let mut options = Map::new();
    options.insert("xr".into(), format!("{}/{}", xr.kind(), xr.name()).into());
    if let Some(name) = &args.source.composition_name {
        options.insert("compositionName".into(), name.as_str().into());
    }
    if let Some(s) = args.semantics {
        options.insert("semantics".into(), s.as_str().into());
    }
    if args.trace {
        options.insert("trace".into(), true.into());
    }
    tree_options(args, &mut options);
    if args.crossplane_v2() {
        options.insert("crossplane".into(), "v2".into());
        if args.include_full_xr {
            options.insert("includeFullXr".into(), true.into());
        }
    }
    let mut request = Map::new();
    request.insert("options".into(), Value::Object(options));
    args.crossplane.extend(&mut request)?;
    let compositions: Vec<Value> = docs
        .iter()
        .filter(|d| matches!(d.kind(), "Composition" | "CompositionRevision"))
        .map(|d| d.value.clone())
        .collect();
    let origins = docs.iter().map(Doc::origin).collect();
    request.insert(
        "documents".into(),
        Value::Array(docs.into_iter().map(|d| d.value).collect()),
    );
    Ok(Gathered {
        request: serde_json::to_vec(&Value::Object(request))?,
        paused: is_paused(&xr.value),
        xr: serde_json::to_vec(&xr.value)?,
        source: Source::Documents {
            origins,
            observed,
            simulations,
            strict: true,
            compositions,
        },
    })
}

/// The options of the whole tree: iterations and the depth limit.
fn tree_options(args: &RenderArgs, options: &mut Map<String, Value>) {
    if args.until_ready {
        options.insert("untilReady".into(), true.into());
    }
    if let Some(n) = args.iterations {
        options.insert("iterations".into(), n.into());
    }
    if let Some(n) = args.depth_limit {
        options.insert("depthLimit".into(), n.into());
    }
}

/// The documents of every `--simulation` file.
fn simulations(args: &RenderArgs) -> anyhow::Result<Vec<Doc>> {
    let mut docs = Vec::new();
    for p in &args.simulation {
        docs.extend(documents_of(p, "Simulation")?);
    }
    Ok(docs)
}

/// The documents of a file (or directory) given for one role: at least one, each of `kind`.
fn documents_of(path: &Path, kind: &str) -> anyhow::Result<Vec<Doc>> {
    let docs = io::read_docs(path)?;
    if docs.is_empty() {
        return Err(input_error!("{}: no {kind} in the file (it is empty)", path.display()).into());
    }
    if let Some(d) = docs.iter().find(|d| d.kind() != kind) {
        return Err(input_error!(
            "{}: expected {kind} documents only, found {}",
            d.origin(),
            d.display_name()
        )
        .into());
    }
    Ok(docs)
}

/// `--environment`: EnvironmentConfig documents, or one plain object taken as an
/// EnvironmentConfig's data.
fn environment(path: &Path) -> anyhow::Result<Vec<Doc>> {
    let mut docs = io::read_docs(path)?;
    if docs.is_empty() {
        return Err(input_error!(
            "{}: no environment in the file (it is empty)",
            path.display()
        )
        .into());
    }
    if docs.iter().all(|d| d.kind() == "EnvironmentConfig") {
        for d in &mut docs {
            if let Some(m) = d.value.as_object_mut() {
                m.entry("apiVersion")
                    .or_insert_with(|| ENVIRONMENT_API.into());
            }
        }
        return Ok(docs);
    }
    match docs.as_mut_slice() {
        [one] if one.value.is_object() => {
            let name = path
                .file_stem()
                .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
            one.value = json!({"apiVersion": ENVIRONMENT_API, "kind": "EnvironmentConfig",
                "metadata": {"name": name}, "data": one.value.take()});
            Ok(docs)
        }
        _ => Err(input_error!(
            "{}: expected EnvironmentConfig documents or one environment object",
            path.display()
        )
        .into()),
    }
}

/// A raw request (`--request FILE|-`), sent as it is.
pub(crate) fn raw(source: &str) -> anyhow::Result<Gathered> {
    let bytes = if source == "-" {
        io::read_limited(std::io::stdin().lock(), "the request on stdin")?
    } else {
        io::read_file_limited(Path::new(source))?
    };
    // The engine judges the request; the host only peeks (in place) for output ordering.
    let parsed = Json::parse(&bytes).ok();
    let xr = parsed
        .and_then(|r| r.get("xr"))
        .map_or_else(|| b"null".to_vec(), |x| x.text().to_vec());
    let order = parsed
        .and_then(|r| r.get("composition"))
        .map(super::walk::resource_order)
        .unwrap_or_default();
    Ok(Gathered {
        request: bytes,
        xr,
        paused: false, // the engine's Output says what it rendered
        source: Source::Parts { order },
    })
}

/// The request for a live XR: the documents read from the cluster.
pub(crate) fn from_cluster(args: &RenderArgs, target: &str) -> anyhow::Result<Gathered> {
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
    let mut request = inputs.request;
    let mut origins = inputs.origins;
    if let Some(options) = request.get_mut("options").and_then(Value::as_object_mut) {
        if let Some(sem) = args.semantics {
            options.insert("semantics".into(), json!(sem.as_str()));
        }
        if args.trace {
            options.insert("trace".into(), json!(true));
        }
        tree_options(args, options);
    }
    let start = origins.len();
    if let Some(Value::Array(docs)) = request.get_mut("documents") {
        for d in simulations(args)? {
            origins.push(d.origin());
            docs.push(d.value);
        }
    }
    let simulations = start..origins.len();
    Ok(Gathered {
        request: serde_json::to_vec(&request)?,
        paused: is_paused(&inputs.xr),
        xr: serde_json::to_vec(&inputs.xr)?,
        source: Source::Documents {
            origins,
            observed: inputs.composed,
            simulations,
            strict: false,
            compositions: inputs.compositions,
        },
    })
}

fn is_paused(xr: &Value) -> bool {
    lookup(xr, &["metadata", "annotations", "crossplane.io/paused"]).and_then(Value::as_str)
        == Some("true")
}
