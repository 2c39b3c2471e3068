//! Decoding the render request: XR, Composition, observed state, desired state and options.
//!
//! Shape errors name the document and field path (`observed.resources.db.resource: expected
//! object, got string`).

use std::borrow::Cow;
use std::sync::Arc;

use crate::connection::Details;
use crate::documents::Choices;
use crate::error::{Error, ErrorKind, Result};
use crate::semantics::Semantics;
use crate::value::read::Numbers;
use crate::value::{Map, Value};

use super::decodings::Decodings;
use super::desired::{self, Desired};
use super::shape::{At, Dec, member};

/// A render request: the render contract's JSON document, decoded.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub(crate) xr: Value,
    /// Shared with the engine's kept Compositions (`crate::engine`).
    pub(crate) composition: Arc<Value>,
    pub(crate) observed: Observed,
    /// What earlier steps of a function pipeline desired (`desired`).
    pub(crate) desired: Desired,
    pub(crate) options: Options,
    /// The initial Function context (pipelines).
    pub(crate) context: Map,
    /// Extra (required) resources that selection steps choose from.
    pub(crate) extra_resources: Vec<Value>,
    /// What a documents request chose, reported as the Output's `inputs`.
    pub(crate) inputs: Option<Value>,
    /// The XR's schema (`openAPIV3Schema`), whose defaults are applied to the XR.
    pub(crate) xrd_schema: Option<Value>,
    /// The decodings of `composition`, kept with it (`crate::engine`).
    pub(crate) decodings: Option<Arc<Decodings>>,
    /// A documents request's documents, for its nested XRs and iterations.
    pub(crate) tree: Option<Box<Level>>,
}

/// One level of a documents request's XR tree: the documents, shared by every level, and what
/// this level's render chose among them.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Level {
    pub(crate) documents: Arc<Documents>,
    /// Template name → index of the observed document paired with it.
    pub(crate) observed_docs: Vec<(String, usize)>,
    /// The documents this level used.
    pub(crate) used: Vec<usize>,
    /// The index of this level's XR among the documents (a nested XR's merged copy).
    pub(crate) xr_index: usize,
}

/// A documents request as given, and how its tree is rendered.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Documents {
    pub(crate) documents: Vec<Value>,
    /// The request's `options`, for the nested levels' renders.
    pub(crate) options: Value,
    /// The request's `context` and `extraResources`.
    pub(crate) context: Map,
    pub(crate) extra_resources: Vec<Value>,
    /// For every document, the observed nested XR it belongs to (`None`: the top level).
    pub(crate) owners: Vec<Option<usize>>,
    pub(crate) tree: TreeOptions,
}

/// `options.depthLimit`, `options.iterations`, `options.untilReady`, `options.keepIterations`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TreeOptions {
    /// How many levels of XRs are rendered (the top one is 1).
    pub(crate) depth_limit: usize,
    /// At most this many renders, each observing the one before through the simulated providers.
    pub(crate) iterations: Option<usize>,
    /// Render until the tree stops changing, and fail unless it is ready then.
    pub(crate) until_ready: bool,
    /// Keep every iteration's Output in the Output's `iterations`.
    pub(crate) keep_iterations: bool,
}

/// The XR of a level.
pub(crate) enum Top {
    /// The top XR, chosen among the documents by the request's rules.
    Choose,
    /// The top XR, the document at this index.
    Chosen(usize),
    /// A nested XR: the document at this index (past the documents: not observed yet)
    /// becomes this object, its observed self with what its parent desires.
    Nested(usize, Value),
}

/// The default `options.depthLimit`.
pub(crate) const DEPTH_LIMIT: usize = 10;
/// The most iterations `options.untilReady` renders without `options.iterations`.
pub(crate) const UNTIL_READY_ITERATIONS: usize = 20;

/// `options`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Options {
    pub(crate) semantics: Option<Semantics>,
    pub(crate) trace: bool,
    pub(crate) connection_secret_keys: Option<Vec<String>>,
    pub(crate) now: Option<String>,
    pub(crate) output: Shape,
    pub(crate) pipeline: super::pipeline_options::PipelineOptions,
}

/// The shape of the Output (`options.output`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Shape {
    /// What Crossplane applies after the whole render.
    #[default]
    Render,
    /// What one function step returns: the desired XR as the step left it,
    /// composed resources without core metadata, and the environment.
    Function,
}

impl Shape {
    pub(crate) fn parse(s: &str) -> Option<Self> {
        match s {
            "render" => Some(Self::Render),
            "function" => Some(Self::Function),
            _ => None,
        }
    }
}

/// One observed composed resource.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ObservedResource {
    pub(crate) resource: Value,
    pub(crate) connection_details: Details,
}

/// Observed composed resources by template name, in name order: one sorted vector, as
/// a B-tree of them would be one more copy of the B-tree's code in the modules.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ObservedResources(Vec<(String, ObservedResource)>);

impl ObservedResources {
    /// The resources by name, sorted once: inserted one by one, each would
    /// move half the vector. The last of a repeated name wins.
    fn from_unsorted(mut all: Vec<(String, ObservedResource)>) -> ObservedResources {
        crate::sort::sort_by(&mut all, |a, b| a.0.cmp(&b.0));
        let mut kept: Vec<(String, ObservedResource)> = Vec::with_capacity(all.len());
        for item in all {
            // Stable: of equal names the one given last comes last.
            match kept.last_mut() {
                Some(last) if last.0 == item.0 => *last = item,
                _ => kept.push(item),
            }
        }
        ObservedResources(kept)
    }

    pub(crate) fn get(&self, name: &str) -> Option<&ObservedResource> {
        let i = self
            .0
            .binary_search_by(|(n, _)| n.as_str().cmp(name))
            .ok()?;
        self.0.get(i).map(|(_, r)| r)
    }

    pub(crate) fn values(&self) -> impl Iterator<Item = &ObservedResource> {
        self.0.iter().map(|(_, r)| r)
    }
}

impl<'a> IntoIterator for &'a ObservedResources {
    type Item = (&'a String, &'a ObservedResource);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (String, ObservedResource)>,
        fn(&'a (String, ObservedResource)) -> Self::Item,
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(n, r)| (n, r))
    }
}

/// `observed`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Observed {
    pub(crate) resources: ObservedResources,
    pub(crate) environment: Option<Value>,
}

impl Request {
    /// Decodes a request document. Numbers are typed as Kubernetes' decoder types
    /// them, except that in function semantics the literal `-0` is float64 -0, as
    /// the protobuf `Struct`s a function reads carry it.
    ///
    /// # Errors
    /// `ErrorKind::InvalidRequest` when the text is not JSON or not of the contract's shape.
    pub fn from_json(text: &str) -> Result<Request> {
        let read = |numbers| {
            Value::from_json_with(text, numbers).map_err(|e| {
                Error::new(
                    ErrorKind::InvalidRequest,
                    format!("cannot parse request: {e}"),
                )
            })
        };
        let (doc, minus_zero) = read(Numbers::Kubernetes)?;
        let request = Self::from_value(doc)?;
        // A function reads protobuf Structs, where `-0` is float64 -0, not the
        // int64 0 of Kubernetes' typing: such a request is read again (rarely).
        if minus_zero && super::semantics_of(&request) == Semantics::Function {
            return Self::from_value(read(Numbers::Struct)?.0);
        }
        Ok(request)
    }

    /// A request of Kubernetes documents in any order (the documents request): the engine
    /// chooses the XR, its Composition, the observed resources and the environment among them
    /// as Crossplane would, and the Output's `inputs` says what it chose. `options` is the
    /// request's `options` object (or `Value::Null`), which may also name the XR (`xr`:
    /// `KIND/NAME`) and the Composition (`compositionName`).
    ///
    /// # Errors
    /// `ErrorKind::InvalidRequest` naming the document or option at fault.
    pub fn from_documents(documents: Vec<Value>, options: Value) -> Result<Request> {
        let d = Dec(ErrorKind::InvalidRequest);
        let tree = match &options {
            Value::Null => TreeOptions::default(),
            v => decode_tree(d, v)?,
        };
        let owners = crate::documents::levels::owners(&documents);
        let shared = Documents {
            documents,
            options,
            context: Map::new(),
            extra_resources: Vec::new(),
            owners,
            tree,
        };
        let shared = Arc::new(shared);
        let hidden: Vec<bool> = shared.owners.iter().map(Option::is_some).collect();
        let request = Self::from_level(Arc::clone(&shared), hidden, Top::Choose)?;
        // An XR that is itself a nested one (a live XR composed by another) owns documents:
        // they are its level's, so it is rendered again seeing them.
        let root = request.tree.as_ref().map_or(usize::MAX, |l| l.xr_index);
        if !shared.owners.contains(&Some(root)) {
            return Ok(request);
        }
        let hidden = shared
            .owners
            .iter()
            .map(|o| o.is_some_and(|o| o != root))
            .collect();
        Self::from_level(shared, hidden, Top::Chosen(root))
    }

    /// One level of a documents request: its documents, less the `hidden` ones (other levels'),
    /// and its XR.
    pub(crate) fn from_level(
        shared: Arc<Documents>,
        hidden: Vec<bool>,
        xr: Top,
    ) -> Result<Request> {
        let d = Dec(ErrorKind::InvalidRequest);
        let options = &shared.options;
        let (mut opts, choices) = match options {
            Value::Null => (Options::default(), Choices::default()),
            v => (decode_options(d, v)?, decode_choices(d, v)?),
        };
        // Borrowed: only a document this level changes is copied.
        let mut documents: Vec<Cow<'_, Value>> =
            shared.documents.iter().map(Cow::Borrowed).collect();
        // A nested XR's render is no `crossplane render` print: its composite is the whole XR,
        // which the next level and the stream need.
        opts.pipeline.include_full_xr |= matches!(xr, Top::Nested(..));
        let (choices, forced) = level_choices(
            choices,
            opts.pipeline.crossplane_v2,
            hidden,
            xr,
            &mut documents,
        );
        let functions = &opts.pipeline.functions;
        let r = crate::documents::resolve(documents, &choices, |composition| {
            super::function_ref::runs_environment_configs(composition, functions)
        })?;
        if opts.connection_secret_keys.is_none() {
            opts.connection_secret_keys = r.connection_secret_keys;
        }
        // Sorted once by name; the last of a repeated name wins, as with `collect`.
        let resources = ObservedResources::from_unsorted(
            r.resources
                .into_iter()
                .map(|(name, resource, connection_details)| {
                    (
                        name,
                        ObservedResource {
                            resource,
                            connection_details,
                        },
                    )
                })
                .collect(),
        );
        Ok(Request {
            xr: r.xr,
            composition: Arc::new(r.composition),
            observed: Observed {
                resources,
                environment: r.environment,
            },
            options: opts,
            desired: Desired::default(),
            context: Map::new(),
            extra_resources: r.extra_resources,
            inputs: Some(r.inputs),
            xrd_schema: None,
            decodings: None,
            tree: Some(Box::new(Level {
                documents: Arc::clone(&shared),
                observed_docs: r.observed_docs,
                used: r.used,
                xr_index: forced.unwrap_or(r.xr_index),
            })),
        })
    }

    pub(crate) fn from_value(doc: Value) -> Result<Request> {
        Self::from_value_with(doc, None)
    }

    /// A request document whose `composition` was read already (`kept`, with
    /// the decodings kept for it, if any; the document's own member is then ignored).
    pub(crate) fn from_value_with(
        doc: Value,
        kept: Option<(Arc<Value>, Option<Arc<Decodings>>)>,
    ) -> Result<Request> {
        let d = Dec(ErrorKind::InvalidRequest);
        let Value::Object(mut root) = doc else {
            return Err(Error::new(
                ErrorKind::InvalidRequest,
                format!("request: expected object, got {}", doc.go_type()),
            ));
        };
        if member(&root, "documents").is_some() {
            return Self::from_documents_member(root);
        }
        // `observed.composite` stands in for `xr` when only it is given.
        let observed_xr = member(&root, "observed")
            .and_then(|o| o.get("composite"))
            .filter(|v| !v.is_null() && member(&root, "xr").is_none())
            .cloned();
        let observed = match root.remove("observed").filter(|v| !v.is_null()) {
            Some(v) => decode_observed(d, v)?,
            None => Observed::default(),
        };
        let desired = match root.remove("desired").filter(|v| !v.is_null()) {
            Some(v) => desired::decode(d, v)?,
            None => Desired::default(),
        };
        let (context, extra_resources) = super::pipeline_options::decode_inputs(d, &mut root)?;
        let xrd_schema = match root.remove("xrdSchema").filter(|v| !v.is_null()) {
            Some(s) => {
                d.object(&s, &"xrdSchema")?;
                Some(s)
            }
            None => None,
        };
        let options = match member(&root, "options") {
            Some(v) => decode_options(d, v)?,
            None => Options::default(),
        };
        let xr = match root.remove("xr").filter(|v| !v.is_null()) {
            Some(v) => v,
            None => observed_xr.ok_or_else(|| {
                Error::new(ErrorKind::InvalidRequest, "xr: required value").with_field_path("xr")
            })?,
        };
        d.object(&xr, &"xr")?;
        let (composition, decodings) = match kept {
            Some((c, decodings)) => (c, decodings),
            None => {
                let c = root
                    .remove("composition")
                    .filter(|v| !v.is_null())
                    .ok_or_else(|| {
                        Error::new(ErrorKind::InvalidRequest, "composition: required value")
                            .with_field_path("composition")
                    })?;
                d.object(&c, &"composition")?;
                (Arc::new(c), None)
            }
        };
        Ok(Request {
            xr,
            composition,
            observed,
            desired,
            options,
            context,
            extra_resources,
            inputs: None,
            xrd_schema,
            decodings,
            tree: None,
        })
    }

    /// The request as its parts: `xr`, `composition`, `observed`, `options`.
    #[cfg(feature = "serde")]
    pub(crate) fn to_value(&self) -> Value {
        use base64::Engine as _;
        let mut resources = Map::new();
        for (name, r) in &self.observed.resources {
            let mut details = Map::new();
            for (k, v) in &r.connection_details {
                details.insert(
                    k.clone(),
                    base64::engine::general_purpose::STANDARD.encode(v).into(),
                );
            }
            let mut entry = Map::new();
            entry.insert("resource".into(), r.resource.clone());
            entry.insert("connectionDetails".into(), Value::Object(details));
            resources.insert(name.clone(), Value::Object(entry));
        }
        let mut observed = Map::new();
        observed.insert("resources".into(), Value::Object(resources));
        if let Some(env) = &self.observed.environment {
            observed.insert("environment".into(), env.clone());
        }
        let o = &self.options;
        let mut options = Map::new();
        if let Some(s) = o.semantics {
            options.insert("semantics".into(), s.as_str().into());
        }
        options.insert("trace".into(), Value::Bool(o.trace));
        if let Some(keys) = &o.connection_secret_keys {
            options.insert(
                "connectionSecretKeys".into(),
                Value::Array(keys.iter().map(|k| k.as_str().into()).collect()),
            );
        }
        if let Some(now) = &o.now {
            options.insert("now".into(), now.as_str().into());
        }
        let mut out = Map::new();
        out.insert("xr".into(), self.xr.clone());
        out.insert("composition".into(), (*self.composition).clone());
        out.insert("observed".into(), Value::Object(observed));
        out.insert("options".into(), Value::Object(options));
        Value::Object(out)
    }

    /// `{"documents": [...], "options": {...}}`.
    fn from_documents_member(mut root: Map) -> Result<Request> {
        if let Some(k) = ["xr", "composition", "observed"]
            .into_iter()
            .find(|k| member(&root, k).is_some())
        {
            return Err(Error::new(
                ErrorKind::InvalidRequest,
                format!(
                    "request: {k} cannot be given with documents (the engine finds it among them)"
                ),
            )
            .with_field_path(k));
        }
        let Some(Value::Array(documents)) = root.remove("documents") else {
            let got = member(&root, "documents").map_or("nil", Value::go_type);
            return Err(Error::new(
                ErrorKind::InvalidRequest,
                format!("documents: expected array, got {got}"),
            )
            .with_field_path("documents"));
        };
        let d = Dec(ErrorKind::InvalidRequest);
        let (context, extra_resources) = super::pipeline_options::decode_inputs(d, &mut root)?;
        let options = root.remove("options").unwrap_or_default();
        let mut request = Self::from_documents(documents, options)?;
        if let Some(level) = &mut request.tree {
            let shared = Arc::make_mut(&mut level.documents);
            shared.context.clone_from(&context);
            shared.extra_resources.clone_from(&extra_resources);
        }
        request.with_inputs(context, extra_resources);
        Ok(request)
    }

    /// The request's own `context` and `extraResources` beside what the documents gave.
    pub(crate) fn with_inputs(&mut self, context: Map, extra_resources: Vec<Value>) {
        self.context = context;
        // Resources the host gives besides the documents come first, as with a request of parts.
        let chosen = std::mem::replace(&mut self.extra_resources, extra_resources);
        self.extra_resources.extend(chosen);
    }
}

/// The choices of a level: the request's for the top XR, a nested XR's own references for a
/// nested one (whose object takes its document's place, or comes after the documents).
fn level_choices(
    choices: Choices,
    crossplane_v2: bool,
    hidden: Vec<bool>,
    xr: Top,
    documents: &mut Vec<Cow<'_, Value>>,
) -> (Choices, Option<usize>) {
    match xr {
        Top::Choose => (
            Choices {
                crossplane_v2,
                hidden,
                ..choices
            },
            None,
        ),
        Top::Chosen(i) => (
            Choices {
                crossplane_v2,
                hidden,
                forced_xr: Some(i),
                ..choices
            },
            Some(i),
        ),
        // A nested XR's Composition is chosen by its own references, not the top level's.
        Top::Nested(i, value) => {
            if i < documents.len() {
                documents[i] = Cow::Owned(value);
            } else {
                documents.push(Cow::Owned(value));
            }
            let nested = Choices {
                crossplane_v2,
                environment_pool: choices.environment_pool,
                hidden,
                forced_xr: Some(i),
                ..Choices::default()
            };
            (nested, Some(i))
        }
    }
}

/// The options only a documents request has: `xr`, `compositionName`, `environmentConfigs`
/// and `localCompositions`.
fn decode_choices(d: Dec, v: &Value) -> Result<Choices> {
    let at = At::Root("options");
    let m = d.object(v, &at)?;
    let environment_pool = match d.opt_str(m, "environmentConfigs", &at)? {
        None | Some("all") => false,
        Some("selected") => true,
        Some(other) => {
            return Err(Error::new(
                ErrorKind::InvalidRequest,
                format!(
                    "options.environmentConfigs: unsupported value {} (want \"all\" or \"selected\")",
                    crate::go::quote(other)
                ),
            )
            .with_field_path("options.environmentConfigs"));
        }
    };
    Ok(Choices {
        xr: d.opt_str(m, "xr", &at)?.map(str::to_owned),
        composition_name: d.opt_str(m, "compositionName", &at)?.map(str::to_owned),
        environment_pool,
        local_compositions: d.opt_bool(m, "localCompositions", &at)?.unwrap_or(false),
        ..Choices::default()
    })
}

impl Default for TreeOptions {
    fn default() -> Self {
        TreeOptions {
            depth_limit: DEPTH_LIMIT,
            iterations: None,
            until_ready: false,
            keep_iterations: false,
        }
    }
}

/// The options of a documents request's tree: `depthLimit`, `iterations`, `untilReady` and
/// `keepIterations`.
fn decode_tree(d: Dec, v: &Value) -> Result<TreeOptions> {
    let at = At::Root("options");
    let m = d.object(v, &at)?;
    let positive = |key: &str| -> Result<Option<usize>> {
        match d.opt_i64(m, key, &at)? {
            None => Ok(None),
            Some(n) if n >= 1 => Ok(Some(usize::try_from(n).unwrap_or(usize::MAX))),
            Some(n) => Err(Error::new(
                ErrorKind::InvalidRequest,
                format!("options.{key}: must be at least 1, got {n}"),
            )
            .with_field_path(format!("options.{key}"))),
        }
    };
    Ok(TreeOptions {
        depth_limit: positive("depthLimit")?.unwrap_or(DEPTH_LIMIT),
        iterations: positive("iterations")?,
        until_ready: d.opt_bool(m, "untilReady", &at)?.unwrap_or(false),
        keep_iterations: d.opt_bool(m, "keepIterations", &at)?.unwrap_or(false),
    })
}

fn decode_options(d: Dec, v: &Value) -> Result<Options> {
    let at = At::Root("options");
    let m = d.object(v, &at)?;
    let semantics = match d.opt_str(m, "semantics", &at)? {
        None => None,
        Some(s) => Some(Semantics::parse(s).ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidRequest,
                format!(
                    "options.semantics: unsupported value {} (want \"native\" or \"function\")",
                    crate::go::quote(s)
                ),
            )
            .with_field_path("options.semantics")
        })?),
    };
    let trace = d.opt_bool(m, "trace", &at)?.unwrap_or(false);
    let connection_secret_keys = match d.opt_array(m, "connectionSecretKeys", &at)? {
        None => None,
        Some(a) => Some(
            a.iter()
                .enumerate()
                .map(|(i, k)| {
                    d.string(k, &At::Item(&at, "connectionSecretKeys", i))
                        .map(str::to_owned)
                })
                .collect::<Result<Vec<_>>>()?,
        ),
    };
    let now = match d.opt_str(m, "now", &at)? {
        None => None,
        Some(t) => Some(crate::go::rfc3339::utc(t).ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidRequest,
                format!("options.now: not an RFC 3339 time: {}", crate::go::quote(t)),
            )
            .with_field_path("options.now")
        })?),
    };
    let output = match d.opt_str(m, "output", &at)? {
        None => Shape::default(),
        Some(s) => Shape::parse(s).ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidRequest,
                format!(
                    "options.output: unsupported value {} (want \"render\" or \"function\")",
                    crate::go::quote(s)
                ),
            )
            .with_field_path("options.output")
        })?,
    };
    Ok(Options {
        semantics,
        trace,
        connection_secret_keys,
        now,
        output,
        pipeline: super::pipeline_options::decode_options(d, m, &at)?,
    })
}

/// `observed`, taken apart rather than copied: it is the bulk of a request.
fn decode_observed(d: Dec, v: Value) -> Result<Observed> {
    let at = At::Root("observed");
    d.object(&v, &at)?;
    let Value::Object(mut m) = v else {
        return Ok(Observed::default());
    };
    if let Some(c) = member(&m, "composite") {
        d.object(c, &At::Key(&at, "composite"))?;
    }
    let environment = match member(&m, "environment") {
        Some(e) => {
            d.object(e, &At::Key(&at, "environment"))?;
            m.remove("environment")
        }
        None => None,
    };
    // An object's members come sorted and unique: the vector is in name order as built.
    let mut resources = Vec::new();
    d.opt_obj(&m, "resources", &at)?;
    if let Some(Value::Object(rs)) = m.remove("resources") {
        let rsat = At::Key(&at, "resources");
        for (name, r) in rs {
            let rat = At::Key(&rsat, &name);
            let rm = d.object(&r, &rat)?;
            d.resource_of(rm, &rat)?;
            let connection_details: Details = d.opt_details(rm, &rat)?;
            let Value::Object(mut rm) = r else {
                continue;
            };
            let resource = rm.remove("resource").unwrap_or_default();
            resources.push((
                name,
                ObservedResource {
                    resource,
                    connection_details,
                },
            ));
        }
    }
    Ok(Observed {
        resources: ObservedResources(resources),
        environment,
    })
}
