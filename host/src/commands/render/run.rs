//! `xprender render` from start to end: gather the request, run the engine, print its answer.

use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

use serde_json::Value;

use super::gather::{self, Gathered, Source};
use super::walk::{self, Node, Orders};
use super::{OutputFormat, RenderArgs, engine, iterations, report, stream, tree};
use crate::commands::{CrossplaneFailed, EXIT_OK, EXIT_RENDER, RenderFailed};
use crate::io::{self, Doc, input_error};
use crate::runtime::json::Json;
use crate::runtime::{self, Limits};
use crate::trace;

pub(crate) fn run(args: &RenderArgs) -> anyhow::Result<ExitCode> {
    args.crossplane.notices();
    let limits = Limits {
        max_memory: args.max_memory,
        timeout: args.timeout,
    };
    io::set_max_input_size(args.max_request_size);
    let gathered = match (&args.request, &args.cluster) {
        (Some(source), _) => gather::raw(source)?,
        (None, Some(target)) => gather::from_cluster(args, target)?,
        (None, None) => gather::from_files(args)?,
    };
    io::check_input_size(gathered.request.len(), "the render request")?;
    let response = match runtime::precheck(&gathered.request) {
        Some(refusal) => refusal.into_bytes(),
        None => engine::render_sandboxed(args, limits, &gathered.request)?,
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
        let err = err.to_value();
        if crossplane_errors(args, &gathered.source)
            && err.get("kind").and_then(Value::as_str) != Some("InvalidRequest")
        {
            let message = err.get("message").and_then(Value::as_str).unwrap_or("");
            return Err(CrossplaneFailed(message.to_owned()).into());
        }
        return Err(engine_error(&err, &gathered.source));
    }
    let mut v2 = false;
    let orders = match &gathered.source {
        // A raw documents request names the Composition it rendered, as one from files does.
        Source::Parts { order } => {
            let request = Json::parse(&gathered.request).ok();
            let mut orders = Orders::of_request(order.clone(), request);
            if order.is_empty()
                && let Some(name) = doc
                    .lookup(&["inputs", "composition"])
                    .and_then(Json::as_str)
            {
                orders = Orders::of_request(orders.named(&name).unwrap_or_default(), request);
            }
            orders
        }
        Source::Documents { compositions, .. } => {
            let inputs = doc.get("inputs");
            if let Some(i) = inputs {
                let text = |k: &str| i.get(k).and_then(Json::as_str).unwrap_or_default();
                crate::debug!(
                    "Composition {:?} chosen by {}",
                    text("composition"),
                    text("compositionReason")
                );
            }
            let composition = chosen(inputs, compositions);
            v2 = args.crossplane_v2()
                && args.semantics != Some(super::SemanticsArg::Native)
                && composition.is_some_and(is_pipeline);
            let top = composition.map(walk::output_order).unwrap_or_default();
            Orders::new(top, compositions)
        }
    };
    let nodes = walk::nodes(doc, &orders);
    if let Err(e) = check_documents(&gathered.source, doc, v2) {
        // A nested level's warning (no Composition for its XR) says why documents went unused.
        if args.output != OutputFormat::Json {
            report_tree(&nodes, true, trace::Color::for_stderr());
        }
        return Err(e.into());
    }
    if v2 && args.output == OutputFormat::Yaml {
        return print_v2(args, &gathered, doc, &orders, &nodes);
    }
    print(args, &gathered, &response, doc, &orders, &nodes)
}

/// The documents of a request from files or a cluster that the render did not use: observed
/// resources (see [`report::check_unused`]) and Simulations.
fn check_documents(source: &Source, doc: Json<'_>, v2: bool) -> Result<(), io::InputError> {
    let Source::Documents {
        origins,
        observed,
        simulations,
        strict,
        ..
    } = source
    else {
        return Ok(());
    };
    let inputs = doc.get("inputs");
    if v2 {
        // `crossplane render` hands every observed resource to the functions, which ignore
        // those no template names: not an error, and nothing is printed.
        report::debug_unused(inputs, origins, observed);
    } else {
        report::check_unused(inputs, origins, observed, *strict, "observed resource")?;
    }
    report::check_unused(inputs, origins, simulations, true, "simulation")
}

/// Prints the results of every render of the tree on stderr (Warning and Normal ones when
/// `print`), top first; returns the first Fatal one, and whether it is the top XR's.
fn report_tree(nodes: &[Node<'_>], print: bool, color: trace::Color) -> Option<(bool, String)> {
    let mut fatal = None;
    for node in nodes {
        let Some(results) = node.level.and_then(|l| l.get("results")) else {
            continue;
        };
        let found = report::report_results(&results.to_value(), &node.at(), print, color);
        if fatal.is_none() {
            fatal = found.map(|f| (node.path.is_empty(), f));
        }
    }
    fatal
}

/// What each iteration changed, on stderr.
fn report_iterations(doc: Json<'_>) {
    eprint!("{}", iterations::report(doc));
}

/// Whether an error is reported in `crossplane render`'s words: a v2 render from files of
/// Pipelines (classic Compositions, which `crossplane render` refuses, keep xprender's).
fn crossplane_errors(args: &RenderArgs, source: &Source) -> bool {
    args.crossplane_v2()
        && matches!(source, Source::Documents { compositions, .. }
            if !compositions.is_empty() && compositions.iter().all(is_pipeline))
}

fn is_pipeline(composition: &Value) -> bool {
    composition.pointer("/spec/mode").and_then(Value::as_str) == Some("Pipeline")
}

/// Prints the answer as Crossplane v2's `crossplane render` does: the stream alone, or its
/// error for a Fatal result (nothing on stdout then). Warnings go only to `-r` documents; those
/// of nested XRs' renders, which `crossplane render` does not do, go to stderr.
fn print_v2(
    args: &RenderArgs,
    gathered: &Gathered,
    doc: Json<'_>,
    orders: &Orders<'_>,
    nodes: &[Node<'_>],
) -> anyhow::Result<ExitCode> {
    let fatal = doc
        .get("results")
        .into_iter()
        .flat_map(Json::items)
        .find(|r| r.get("severity").and_then(Json::as_str).as_deref() == Some("Fatal"));
    if let Some(r) = fatal {
        let text = |k: &str| r.get(k).and_then(Json::as_str).unwrap_or_default();
        return Err(CrossplaneFailed(format!(
            "cannot render composite resource: pipeline step {:?} returned a fatal result: {}",
            text("step"),
            text("message")
        ))
        .into());
    }
    report_iterations(doc);
    let nested = nodes.get(1..).unwrap_or_default();
    let nested_fatal = report_tree(nested, true, trace::Color::for_stderr());
    let mut stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout());
    if args.validate {
        let mut written = Vec::new();
        stream::yaml_stream(doc, &gathered.xr, orders, true, &mut written)?;
        stream::write_extra_documents(doc, args, &mut written)?;
        stdout.write_all(&written)?;
        stdout.flush()?;
        validate_stream(args, &written)?;
    } else {
        // The engine wrote the XR as `crossplane render` prints it, `-x` included.
        stream::yaml_stream(doc, &gathered.xr, orders, true, &mut stdout)?;
        stream::write_extra_documents(doc, args, &mut stdout)?;
        stdout.flush()?;
    }
    match nested_fatal {
        Some((_, msg)) => Err(RenderFailed(msg).into()),
        None => Ok(ExitCode::from(EXIT_OK)),
    }
}

/// Prints the answer: the Output JSON, the YAML stream or the tree, with results, trace and
/// iterations on stderr.
fn print(
    args: &RenderArgs,
    gathered: &Gathered,
    response: &[u8],
    doc: Json<'_>,
    orders: &Orders<'_>,
    nodes: &[Node<'_>],
) -> anyhow::Result<ExitCode> {
    let color = trace::Color::for_stderr();
    let human = args.output != OutputFormat::Json;
    if (args.trace || args.request.is_some()) && human {
        for node in nodes {
            let Some(t) = node.level.and_then(|l| l.get("trace")) else {
                continue;
            };
            if !node.path.is_empty() {
                eprintln!("{} ({}):", node.at(), node.display_name());
            }
            eprint!("{}", trace::render(&t.to_value(), color));
        }
    }
    if human && !gathered.paused {
        report_iterations(doc);
    }
    // A paused XR gets the notice below instead of the engine's result saying the same.
    let fatal = report_tree(nodes, human && !gathered.paused, color);

    // A native reconcile that failed after the apply still shows what Crossplane applied; a
    // nested XR's failure leaves its parents' renders to show.
    let top_fatal = matches!(fatal, Some((true, _)));
    let applied = top_fatal && has_resources(doc);
    let show = (!top_fatal || applied) && !gathered.paused;
    let mut stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout());
    match args.output {
        OutputFormat::Json => {
            let printed = match (&args.request, &gathered.source) {
                (None, Source::Documents { .. }) => report::without_inputs(response, doc),
                _ => response.into(),
            };
            stdout.write_all(&printed)?;
            stdout.write_all(b"\n")?;
        }
        OutputFormat::Yaml if show => {
            if args.validate {
                // The report checks the stream as written, so it is kept for the check.
                let mut written = Vec::new();
                write_stream(args, gathered, doc, orders, &mut written)?;
                stdout.write_all(&written)?;
                stdout.flush()?;
                validate_stream(args, &written)?;
            } else {
                write_stream(args, gathered, doc, orders, &mut stdout)?;
            }
        }
        // The tree shows a failed render too: its objects are not synced.
        OutputFormat::Tree if !gathered.paused => {
            stdout.write_all(tree::render(nodes).as_bytes())?;
            stdout.flush()?;
            if args.validate && show {
                let mut written = Vec::new();
                write_stream(args, gathered, doc, orders, &mut written)?;
                validate_stream(args, &written)?;
            }
        }
        OutputFormat::Yaml | OutputFormat::Tree => {}
    }
    stdout.flush()?;
    if gathered.paused {
        eprintln!(
            "notice: the XR is paused (annotation crossplane.io/paused: \"true\"): Crossplane \
             does not compose it, so nothing is rendered"
        );
    }
    match fatal {
        Some((_, msg)) if applied => Err(RenderFailed(format!(
            "{msg}\n  Crossplane fails this reconcile after applying the composed resources shown"
        ))
        .into()),
        Some((_, msg)) => Err(RenderFailed(msg).into()),
        None => Ok(ExitCode::from(EXIT_OK)),
    }
}

/// `--validate`: the stream as written against the schemas; problems fail the render.
fn validate_stream(args: &RenderArgs, written: &[u8]) -> anyhow::Result<()> {
    let written = String::from_utf8_lossy(written);
    if crate::commands::validate::check_rendered(&written, &validation_schemas(args)?)? {
        return Err(RenderFailed("the rendered resources are not valid".into()).into());
    }
    Ok(())
}

/// The YAML stream and the documents `crossplane render` appends.
fn write_stream<W: std::io::Write>(
    args: &RenderArgs,
    gathered: &Gathered,
    doc: Json<'_>,
    orders: &Orders<'_>,
    out: &mut W,
) -> std::io::Result<()> {
    stream::yaml_stream(doc, &gathered.xr, orders, args.include_full_xr, &mut *out)?;
    stream::write_extra_documents(doc, args, out)
}

/// The engine's error document as an error of this command: for a documents request the host
/// gathered, an invalid request is a problem with the files given (exit 2), each document
/// named by the file it came from.
fn engine_error(err: &Value, source: &Source) -> anyhow::Error {
    let message = report::describe_error(err);
    match source {
        Source::Documents { origins, .. }
            if err.get("kind").and_then(Value::as_str) == Some("InvalidRequest") =>
        {
            input_error!("{}", io::with_origins(&message, origins)).into()
        }
        _ => RenderFailed(message).into(),
    }
}

/// The Composition (or revision) the engine chose, named in `inputs`; an engine that names
/// none (an older or test build) is taken to have used the only one given.
fn chosen<'c>(inputs: Option<Json<'_>>, compositions: &'c [Value]) -> Option<&'c Value> {
    let named = inputs
        .and_then(|i| i.get("composition"))
        .and_then(Json::as_str);
    match (named, compositions) {
        (Some(name), _) => compositions
            .iter()
            .find(|c| c.pointer("/metadata/name").and_then(Value::as_str) == Some(&*name)),
        (None, [only]) => Some(only),
        (None, _) => None,
    }
}

/// Whether an Output has composed resources (a failed one has them only when they were applied).
fn has_resources(doc: Json<'_>) -> bool {
    doc.get("resources")
        .is_some_and(|r| r.is_object() && !r.is_empty_container())
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
    let files = args.xrd.iter().chain(&args.composition);
    for path in files.chain(&args.source.composition_file) {
        docs.extend(io::read_docs(path)?);
    }
    if let Some(reference) = &args.source.package {
        docs.extend(args.source.package_docs(reference)?);
    }
    Ok(docs)
}
