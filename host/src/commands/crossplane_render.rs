//! `crossplane render`'s own arguments, accepted as it spells them (v1 and v2): the FUNCTIONS
//! positional, extra/required resources, Function context, Result and Context documents, and
//! the Docker-only flags (accepted, ignored with a notice). They add to the render request
//! and to the YAML stream; `render.rs` calls in at two points.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::io::{self, InputError, input_error, lookup};

/// The time `crossplane render` writes as every condition's `lastTransitionTime`.
pub(crate) const CONDITION_TIME: &str = "2024-01-01T00:00:00Z";

#[derive(Debug, Default, clap::Args)]
pub(crate) struct CrossplaneArgs {
    /// The Functions (a file or directory of pkg.crossplane.io Function documents), as
    /// `crossplane render` takes them: each step's functionRef.name is the Function of that
    /// name, and its package says which function it is. A step whose function xprender cannot
    /// run is an error (see --skip-unsupported).
    #[arg(value_name = "FUNCTIONS")]
    pub(crate) functions: Option<PathBuf>,
    /// Extra resources for the Function pipeline (EnvironmentConfigs that
    /// function-environment-configs selects). Crossplane v1's -e; v2 deprecates it.
    #[arg(long, value_name = "PATH")]
    pub(crate) extra_resources: Option<PathBuf>,
    /// Required resources for the Function pipeline (Crossplane v2's -e; same as
    /// --extra-resources).
    #[arg(long, short = 'e', value_name = "PATH")]
    pub(crate) required_resources: Option<PathBuf>,
    /// Include warning and informational results of the steps as `kind: Result` documents.
    #[arg(long, short = 'r')]
    pub(crate) include_function_results: bool,
    /// Include the Function context the pipeline ended with as a `kind: Context` document.
    #[arg(long, short = 'c')]
    pub(crate) include_context: bool,
    /// Function context values from files (JSON or YAML): KEY=FILE, the flag repeated for
    /// more (as `crossplane render`, it does not split a value at commas).
    #[arg(long, value_name = "KEY=FILE")]
    pub(crate) context_files: Vec<String>,
    /// Function context values: KEY=JSON, the flag repeated for more (JSON keeps its commas).
    /// They take precedence over --context-files.
    #[arg(long, value_name = "KEY=VALUE")]
    pub(crate) context_values: Vec<String>,
    /// Render without the steps whose function xprender cannot run (a warning each) instead
    /// of failing.
    #[arg(long)]
    pub(crate) skip_unsupported: bool,
    /// Accepted for `crossplane render` compatibility and ignored: functions are not run in
    /// containers, so they need no credentials.
    #[arg(long, value_name = "PATH")]
    pub(crate) function_credentials: Option<PathBuf>,
    /// Accepted for `crossplane render` compatibility and ignored: OpenAPI schemas for
    /// functions that ask for them; the emulated functions ask for none.
    #[arg(long, short = 's', value_name = "DIR")]
    pub(crate) required_schemas: Option<PathBuf>,
    /// Accepted for `crossplane render` compatibility and ignored: annotations that choose
    /// how Functions run (KEY=VALUE); no function runs in a container here.
    #[arg(long, short = 'a', value_name = "KEY=VALUE")]
    pub(crate) function_annotations: Vec<String>,
}

impl CrossplaneArgs {
    /// Notices for accepted flags that change nothing here.
    pub(crate) fn notices(&self) {
        if self.required_schemas.is_some() {
            eprintln!(
                "notice: --required-schemas is ignored: the emulated functions ask for no schemas"
            );
        }
        if !self.function_annotations.is_empty() {
            eprintln!(
                "notice: --function-annotations is ignored: xprender emulates the functions \
                 in its sandbox and runs no containers"
            );
        }
        if self.function_credentials.is_some() {
            eprintln!(
                "notice: --function-credentials is ignored: xprender emulates the functions \
                 in its sandbox and runs no containers"
            );
        }
    }

    /// Adds the FUNCTIONS map, extra resources, context and pipeline options to a request
    /// built from files.
    pub(crate) fn extend(&self, request: &mut Map<String, Value>) -> Result<(), InputError> {
        let options = request
            .entry("options")
            .or_insert_with(|| json!({}))
            .as_object_mut()
            .ok_or_else(|| input_error!("request options: expected object"))?;
        options.insert("now".into(), CONDITION_TIME.into());
        options.insert("resultSteps".into(), true.into());
        options.insert("includeContext".into(), true.into());
        if self.skip_unsupported {
            options.insert("skipUnsupported".into(), true.into());
        }
        if let Some(path) = &self.functions {
            options.insert("functions".into(), Value::Object(functions(path)?));
        }
        let mut extra = Vec::new();
        for path in [&self.extra_resources, &self.required_resources]
            .into_iter()
            .flatten()
        {
            extra.extend(io::read_docs(path)?.into_iter().map(|d| d.value));
        }
        if !extra.is_empty() {
            request.insert("extraResources".into(), Value::Array(extra));
        }
        let context = self.context()?;
        if !context.is_empty() {
            request.insert("context".into(), Value::Object(context));
        }
        Ok(())
    }

    fn context(&self) -> Result<Map<String, Value>, InputError> {
        let mut out = Map::new();
        for pair in &self.context_files {
            let (key, file) = split_pair(pair, "--context-files", "KEY=FILE")?;
            let doc = io::read_single(Path::new(file), "context value")
                .map_err(|e| input_error!("cannot read context value for key {key:?}: {e}"))?;
            out.insert(key.to_owned(), doc.value);
        }
        for pair in &self.context_values {
            let (key, text) = split_pair(pair, "--context-values", "KEY=VALUE")?;
            let value: Value = serde_json::from_str(text).map_err(|e| {
                input_error!("--context-values: the value for key {key:?} is not JSON: {e}")
            })?;
            out.insert(key.to_owned(), value);
        }
        Ok(out)
    }
}

fn split_pair<'a>(pair: &'a str, flag: &str, form: &str) -> Result<(&'a str, &'a str), InputError> {
    pair.split_once('=')
        .filter(|(k, _)| !k.is_empty())
        .ok_or_else(|| input_error!("{flag}: expected {form}, got {pair:?}"))
}

/// Function name → package, from Function documents.
fn functions(path: &Path) -> Result<Map<String, Value>, InputError> {
    let mut out = Map::new();
    for d in io::read_docs(path)? {
        if d.kind() != "Function" {
            return Err(input_error!(
                "{}: expected pkg.crossplane.io Function documents, found {}",
                d.origin(),
                d.display_name()
            ));
        }
        let package = d.str_at(&["spec", "package"]).ok_or_else(|| {
            input_error!("{}: Function {} has no spec.package", d.origin(), d.name())
        })?;
        out.insert(d.name().to_owned(), package.into());
    }
    Ok(out)
}

/// The documents `crossplane render` appends: Results (with -r), then the Context (with -c).
pub(crate) fn extra_documents(output: &Value, args: &CrossplaneArgs) -> Vec<Value> {
    let mut docs = Vec::new();
    if args.include_function_results {
        for r in output
            .get("results")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let severity = match r.get("severity").and_then(Value::as_str) {
                Some("Warning") => "SEVERITY_WARNING",
                Some("Fatal") => continue,
                _ => "SEVERITY_NORMAL",
            };
            let message = r.get("message").and_then(Value::as_str).unwrap_or("");
            docs.push(json!({
                "apiVersion": "render.crossplane.io/v1beta1",
                "kind": "Result",
                "step": r.get("step").cloned().unwrap_or_else(|| "".into()),
                "severity": severity,
                "message": message,
            }));
        }
    }
    if args.include_context {
        let fields = output.get("context").cloned().unwrap_or_else(|| json!({}));
        docs.push(json!({
            "apiVersion": "render.crossplane.io/v1beta1",
            "kind": "Context",
            "fields": fields,
        }));
    }
    docs
}

/// Composed resources in `crossplane render`'s order for a pipeline: by name (an empty
/// order leaves the Output's name-sorted order).
pub(crate) fn pipeline_order(composition: &Value, order: &mut Vec<String>) {
    if lookup(composition, &["spec", "mode"]).and_then(Value::as_str) == Some("Pipeline") {
        order.clear();
    }
}
