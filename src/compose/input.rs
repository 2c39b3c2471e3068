//! Decoding the render request: XR, Composition (classic or Pipeline), observed state and options.
//!
//! Shape errors name the document and field path (`composition.spec.resources[2].patches[0].fromFieldPath:
//! expected string, got int64`). Native decoding applies the Composition CRD defaults the API
//! server would have applied; function decoding keeps the input exactly as written.

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use base64::Engine as _;

use crate::connection::{Detail, Details};
use crate::documents::Choices;
use crate::error::{Error, ErrorKind, Result};
use crate::fieldpath::{MergeOptions, Path};
use crate::patch::patchset::PatchSet;
use crate::patch::{self, Combine, Patch, PatchList, PatchType, Policy, Source};
use crate::readiness::Check;
use crate::semantics::Semantics;
use crate::transform;
use crate::value::read::Numbers;
use crate::value::{Map, Value};

use super::step::{Desired, Shape};

use crate::model::limits::MAX_ITEMS;

/// A render request: the render contract's JSON document, decoded.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub(crate) xr: Value,
    /// Shared with the instance's kept Compositions (`crate::plan`).
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
    /// The plans compiled from `composition`, kept with it (`crate::plan`).
    pub(crate) compiled: Option<Arc<super::Compiled>>,
}

/// `options`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Options {
    pub(crate) semantics: Option<Semantics>,
    pub(crate) trace: bool,
    pub(crate) connection_secret_keys: Option<Vec<String>>,
    pub(crate) now: Option<String>,
    pub(crate) output: Shape,
    pub(crate) pipeline: super::functions::PipelineOptions,
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
        let (mut opts, choices) = match &options {
            Value::Null => (Options::default(), Choices::default()),
            v => (decode_options(d, v)?, decode_choices(d, v)?),
        };
        let choices = Choices {
            crossplane_v2: opts.pipeline.crossplane_v2,
            ..choices
        };
        let functions = &opts.pipeline.functions;
        let r = crate::documents::resolve(documents, &choices, |composition| {
            super::functions::runs_environment_configs(composition, functions)
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
            compiled: None,
        })
    }

    pub(crate) fn from_value(doc: Value) -> Result<Request> {
        Self::from_value_with(doc, None)
    }

    /// A request document whose `composition` was read already (`kept`, with
    /// the plans kept for it, if any; the document's own member is then ignored).
    pub(crate) fn from_value_with(
        doc: Value,
        kept: Option<(Arc<Value>, Option<Arc<super::Compiled>>)>,
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
            Some(v) => super::step::decode(d, v)?,
            None => Desired::default(),
        };
        let (context, extra_resources) = super::functions::decode_inputs(d, &mut root)?;
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
        let (composition, compiled) = match kept {
            Some((c, compiled)) => (c, compiled),
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
            compiled,
        })
    }

    /// The request as its parts: `xr`, `composition`, `observed`, `options`.
    #[cfg(feature = "serde")]
    pub(crate) fn to_value(&self) -> Value {
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
        let (context, extra_resources) = super::functions::decode_inputs(d, &mut root)?;
        let options = root.remove("options").unwrap_or_default();
        let mut request = Self::from_documents(documents, options)?;
        request.context = context;
        // Resources the host gives besides the documents come first, as with a request of parts.
        let chosen = std::mem::replace(&mut request.extra_resources, extra_resources);
        request.extra_resources.extend(chosen);
        Ok(request)
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
        crossplane_v2: false,
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
        pipeline: super::functions::decode_options(d, m, &at)?,
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

// ---------------------------------------------------------------------------
// Compositions.

/// What a Composition asks for.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Plan<'a> {
    /// Classic `spec.resources` (mode Resources).
    Resources(Box<PtInput<'a>>),
    /// `spec.mode: Pipeline`.
    Pipeline(Vec<Step<'a>>),
}

/// A plan borrows from the Composition it was decoded from; a live instance
/// keeps an owned copy (`crate::compose::compiled`).
impl Plan<'_> {
    pub(crate) fn into_owned(self) -> Plan<'static> {
        match self {
            Plan::Resources(input) => Plan::Resources(Box::new(input.into_owned())),
            Plan::Pipeline(steps) => {
                Plan::Pipeline(steps.into_iter().map(Step::into_owned).collect())
            }
        }
    }
}

/// One pipeline step.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Step<'a> {
    pub(crate) name: String,
    pub(crate) function: String,
    /// The decoded function-patch-and-transform input, if the step is one.
    pub(crate) input: Option<PtInput<'a>>,
    /// The step's input as written.
    pub(crate) raw_input: Option<Cow<'a, Value>>,
}

/// What `functions::resolve` reads of a step.
#[derive(Clone, Copy)]
pub(crate) struct StepRef<'a> {
    pub(crate) name: &'a str,
    pub(crate) function: &'a str,
    pub(crate) raw_input: Option<&'a Value>,
}

impl Step<'_> {
    pub(crate) fn as_ref(&self) -> StepRef<'_> {
        StepRef {
            name: &self.name,
            function: &self.function,
            raw_input: self.raw_input.as_deref(),
        }
    }

    fn into_owned(self) -> Step<'static> {
        Step {
            name: self.name,
            function: self.function,
            input: self.input.map(PtInput::into_owned),
            raw_input: self.raw_input.map(owned),
        }
    }
}

fn owned(v: Cow<'_, Value>) -> Cow<'static, Value> {
    Cow::Owned(v.into_owned())
}

/// Resource templates, patch sets and environment patches: a classic
/// Composition's spec, or a function-patch-and-transform `Resources` input.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct PtInput<'a> {
    /// Where this lives, for validation messages (`spec` natively, empty for FN input).
    pub(crate) base_path: String,
    pub(crate) resources: Vec<Template<'a>>,
    pub(crate) patch_sets: Vec<PatchSet<'a>>,
    pub(crate) environment_patches: Vec<Patch<'a>>,
    pub(crate) default_data: Option<Cow<'a, Value>>,
    /// A classic Composition in Resources mode (validated as such natively).
    pub(crate) mode_resources: bool,
    /// FN input `writeConnectionSecretToRef` (v2 XRs' connection Secret).
    pub(crate) connection_secret_ref: Option<SecretRef<'a>>,
    /// FN: the input names a member its Go types lack, so the function fails
    /// decoding it (a Fatal result when the step runs).
    pub(crate) undecodable: Option<Error>,
    /// The engine's validation of this input, made when it first runs: it
    /// depends on the input alone, so a kept plan validates once.
    pub(crate) validated: OnceLock<Result<()>>,
}

impl PtInput<'_> {
    /// An input with nothing in it.
    fn empty(base_path: String) -> Self {
        PtInput {
            base_path,
            resources: Vec::new(),
            patch_sets: Vec::new(),
            environment_patches: Vec::new(),
            default_data: None,
            mode_resources: false,
            connection_secret_ref: None,
            undecodable: None,
            validated: OnceLock::new(),
        }
    }

    /// The engine's validation (`check`) of this input, made once.
    pub(crate) fn validate(&self, check: fn(&PtInput<'_>) -> Result<()>) -> Result<()> {
        self.validated.get_or_init(|| check(self)).clone()
    }

    fn into_owned(self) -> PtInput<'static> {
        PtInput {
            base_path: self.base_path,
            resources: self
                .resources
                .into_iter()
                .map(Template::into_owned)
                .collect(),
            patch_sets: self
                .patch_sets
                .into_iter()
                .map(PatchSet::into_owned)
                .collect(),
            environment_patches: patch::owned(self.environment_patches),
            default_data: self.default_data.map(owned),
            mode_resources: self.mode_resources,
            connection_secret_ref: self.connection_secret_ref.map(|r| SecretRef {
                name: r.name,
                namespace: r.namespace,
                patches: patch::owned(r.patches),
            }),
            undecodable: self.undecodable,
            validated: self.validated,
        }
    }
}

/// FN input `writeConnectionSecretToRef`: a base name/namespace and patches from the XR.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct SecretRef<'a> {
    pub(crate) name: String,
    pub(crate) namespace: String,
    pub(crate) patches: Vec<Patch<'a>>,
}

/// One resource template.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Template<'a> {
    /// The template name, or `resource <i+1>` for anonymous templates.
    pub(crate) name: String,
    pub(crate) named: bool,
    pub(crate) base: Option<Cow<'a, Value>>,
    pub(crate) patches: Vec<Patch<'a>>,
    pub(crate) readiness_checks: Vec<Check>,
    pub(crate) connection_details: Vec<Detail>,
    /// Where the template's patches are written; its `owner` is the template's path.
    pub(crate) source: Source,
}

impl Template<'_> {
    fn into_owned(self) -> Template<'static> {
        Template {
            name: self.name,
            named: self.named,
            base: self.base.map(owned),
            patches: patch::owned(self.patches),
            readiness_checks: self.readiness_checks,
            connection_details: self.connection_details,
            source: self.source,
        }
    }
}

pub(crate) use crate::model::pt::API_VERSION as PT_API_VERSION;

/// A field path in the request, built only when an error needs it.
#[derive(Clone, Copy)]
pub(crate) enum At<'p> {
    Root(&'p str),
    Key(&'p At<'p>, &'p str),
    Item(&'p At<'p>, &'p str, usize),
}

impl std::fmt::Display for At<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            At::Root(s) => f.write_str(s),
            At::Key(p, k) => write!(f, "{p}.{k}"),
            At::Item(p, k, i) => write!(f, "{p}.{k}[{i}]"),
        }
    }
}

/// Decodes a Composition.
pub(crate) fn decode_composition(comp: &Value, sem: Semantics) -> Result<Plan<'_>> {
    let d = Dec(ErrorKind::InvalidComposition);
    let root_at = At::Root("composition");
    let root = d.object(comp, &root_at)?;
    let empty: &'static Map = empty_map();
    let spec = d.opt_obj(root, "spec", &root_at)?.unwrap_or(empty);
    let spec_at = At::Key(&root_at, "spec");
    let mode = d.opt_str(spec, "mode", &spec_at)?;
    if mode == Some("Pipeline") {
        let steps = d.opt_array(spec, "pipeline", &spec_at)?.unwrap_or(&[]);
        limit(steps.len(), &At::Key(&spec_at, "pipeline"))?;
        let mut out = Vec::with_capacity(steps.len());
        for (i, s) in steps.iter().enumerate() {
            let at = At::Item(&spec_at, "pipeline", i);
            let sm = d.object(s, &at)?;
            let name = d.opt_str(sm, "step", &at)?.unwrap_or("");
            let function = match d.opt_obj(sm, "functionRef", &at)? {
                Some(f) => d
                    .opt_str(f, "name", &At::Key(&at, "functionRef"))?
                    .unwrap_or(""),
                None => "",
            };
            let input = match d.opt_obj(sm, "input", &at)? {
                Some(inp)
                    if inp.get("apiVersion").and_then(Value::as_str) == Some(PT_API_VERSION)
                        && inp.get("kind").and_then(Value::as_str) == Some("Resources") =>
                {
                    let iat = At::Key(&at, "input");
                    Some(match sem {
                        Semantics::Native => {
                            let base = format!("spec.pipeline[{i}].input");
                            decode_pt(d, inp, &iat, base, sem, Some(to_u32(i)))?
                        }
                        Semantics::Function => {
                            let undecodable = super::members::check_input(inp, &iat.to_string());
                            function_input(
                                decode_pt(d, inp, &iat, String::new(), sem, Some(to_u32(i))),
                                undecodable,
                            )?
                        }
                    })
                }
                _ => None,
            };
            out.push(Step {
                name: name.to_owned(),
                function: function.to_owned(),
                input,
                raw_input: member(sm, "input").map(Cow::Borrowed),
            });
        }
        return Ok(Plan::Pipeline(out));
    }
    if let Some(m) = mode
        && m != "Resources"
    {
        return Err(Error::new(
            ErrorKind::InvalidComposition,
            format!(
                "composition.spec.mode: unsupported value {} (want \"Resources\" or \"Pipeline\")",
                crate::go::quote(m)
            ),
        ));
    }
    let base = match sem {
        Semantics::Native => "spec".to_owned(),
        Semantics::Function => String::new(),
    };
    let decoded = decode_pt(d, spec, &spec_at, base, sem, None);
    let mut input = match sem {
        Semantics::Native => decoded?,
        Semantics::Function => function_input(
            decoded,
            super::members::check_classic(spec, &spec_at.to_string()),
        )?,
    };
    input.mode_resources = true;
    Ok(Plan::Resources(Box::new(input)))
}

/// A function input as the engine decoded it and as function-patch-and-transform's
/// Go types take it. When those reject it the step fails on that alone, whatever
/// the engine made of the input: an input it cannot read is then an empty one.
fn function_input<'a>(decoded: Result<PtInput<'a>>, go: Result<()>) -> Result<PtInput<'a>> {
    let mut input = match (decoded, &go) {
        (Ok(input), _) => input,
        (Err(_), Err(_)) => PtInput::empty(String::new()),
        (Err(e), Ok(())) => return Err(e),
    };
    input.undecodable = go.err();
    Ok(input)
}

fn empty_map() -> &'static Map {
    static EMPTY: Map = Map::new();
    &EMPTY
}

fn decode_pt<'a>(
    d: Dec,
    m: &'a Map,
    at: &At<'_>,
    base_path: String,
    sem: Semantics,
    step: Option<u32>,
) -> Result<PtInput<'a>> {
    let classic = step.is_none();
    let source = |list| Source {
        step,
        list,
        index: 0,
    };
    let mut patch_sets = Vec::new();
    if let Some(sets) = d.opt_array(m, "patchSets", at)? {
        limit(sets.len(), at)?;
        for (i, s) in sets.iter().enumerate() {
            let sat = At::Item(at, "patchSets", i);
            let sm = d.object(s, &sat)?;
            let name = d.opt_str(sm, "name", &sat)?.unwrap_or("");
            let patches = decode_patches(d, sm, &sat, sem, source(PatchList::PatchSet(to_u32(i))))?;
            patch_sets.push(PatchSet {
                name: name.to_owned(),
                patches,
            });
        }
    }
    let mut resources = Vec::new();
    if let Some(rs) = d.opt_array(m, "resources", at)? {
        limit(rs.len(), at)?;
        for (i, r) in rs.iter().enumerate() {
            resources.push(decode_template(
                d,
                r,
                &At::Item(at, "resources", i),
                i,
                sem,
                source(PatchList::Resource(to_u32(i))),
            )?);
        }
    }
    let connection_secret_ref = match d.opt_obj(m, "writeConnectionSecretToRef", at)? {
        Some(r) if !classic => {
            let rat = At::Key(at, "writeConnectionSecretToRef");
            Some(SecretRef {
                name: d.opt_str(r, "name", &rat)?.unwrap_or("").to_owned(),
                namespace: d.opt_str(r, "namespace", &rat)?.unwrap_or("").to_owned(),
                patches: decode_patches(d, r, &rat, sem, source(PatchList::ConnectionSecret))?,
            })
        }
        _ => None,
    };
    let mut environment_patches = Vec::new();
    let mut default_data = None;
    if let Some(env) = d.opt_obj(m, "environment", at)? {
        let eat = At::Key(at, "environment");
        environment_patches = decode_patches(d, env, &eat, sem, source(PatchList::Environment))?;
        if classic && let Some(dd) = member(env, "defaultData") {
            d.object(dd, &At::Key(&eat, "defaultData"))?;
            default_data = Some(Cow::Borrowed(dd));
        }
    }
    Ok(PtInput {
        resources,
        patch_sets,
        environment_patches,
        default_data,
        connection_secret_ref,
        ..PtInput::empty(base_path)
    })
}

fn decode_template<'a>(
    d: Dec,
    v: &'a Value,
    at: &At<'_>,
    index: usize,
    sem: Semantics,
    source: Source,
) -> Result<Template<'a>> {
    let m = d.object(v, at)?;
    let name = d.opt_str(m, "name", at)?;
    let base = match member(m, "base") {
        None => None,
        Some(b) => {
            d.object(b, &At::Key(at, "base"))?;
            Some(Cow::Borrowed(b))
        }
    };
    let patches = decode_patches(d, m, at, sem, source)?;
    let mut readiness_checks = Vec::new();
    if let Some(rcs) = d.opt_array(m, "readinessChecks", at)? {
        limit(rcs.len(), at)?;
        for (i, rc) in rcs.iter().enumerate() {
            readiness_checks.push(decode_check(
                d,
                rc,
                &At::Item(at, "readinessChecks", i),
                sem,
            )?);
        }
    }
    let mut connection_details = Vec::new();
    if let Some(cds) = d.opt_array(m, "connectionDetails", at)? {
        limit(cds.len(), at)?;
        for (i, cd) in cds.iter().enumerate() {
            connection_details.push(decode_detail(
                d,
                cd,
                &At::Item(at, "connectionDetails", i),
                sem,
            )?);
        }
    }
    let named = name.is_some_and(|n| !n.is_empty());
    Ok(Template {
        name: match name {
            Some(n) if !n.is_empty() => n.to_owned(),
            _ => format!("resource {}", index + 1),
        },
        named,
        base,
        patches,
        readiness_checks,
        connection_details,
        source,
    })
}

fn decode_patches<'a>(
    d: Dec,
    m: &'a Map,
    at: &At<'_>,
    sem: Semantics,
    source: Source,
) -> Result<Vec<Patch<'a>>> {
    let Some(ps) = d.opt_array(m, "patches", at)? else {
        return Ok(Vec::new());
    };
    limit(ps.len(), at)?;
    // At its final size: collecting results would grow it, moving every patch.
    let mut out = Vec::with_capacity(ps.len());
    for (i, p) in ps.iter().enumerate() {
        let mut patch = decode_patch(d, p, &At::Item(at, "patches", i), sem)?;
        patch.source = Source {
            index: to_u32(i),
            ..source
        };
        out.push(patch);
    }
    Ok(out)
}

/// The members of a patch that its decoding reads.
const PATCH_FIELDS: [&str; 7] = [
    "type",
    "fromFieldPath",
    "toFieldPath",
    "patchSetName",
    "combine",
    "transforms",
    "policy",
];

fn decode_patch<'a>(d: Dec, v: &'a Value, at: &At<'_>, sem: Semantics) -> Result<Patch<'a>> {
    let m = d.object(v, at)?;
    // One pass over the few members a patch has, instead of a search per
    // field; they are checked below in the order they always were.
    let mut f = [None; PATCH_FIELDS.len()];
    for (k, v) in m {
        if let Some(i) = PATCH_FIELDS.iter().position(|name| name == k) {
            f[i] = Some(v).filter(|v| !v.is_null());
        }
    }
    let [ty, from, to, set, comb, ts, pol] = f;
    let kind = PatchType::parse(d.str_of(ty, "type", at)?.unwrap_or(""));
    let from_field_path = d.str_of(from, "fromFieldPath", at)?;
    let to_field_path = d.str_of(to, "toFieldPath", at)?;
    let patch_set_name = d.str_of(set, "patchSetName", at)?;
    let combine = match d.obj_of(comb, "combine", at)? {
        None => None,
        Some(c) => Some(decode_combine(d, c, &At::Key(at, "combine"))?),
    };
    // Decoded from the list as written: the CRD defaults are the ones each
    // transform applies natively when its type is unset. Decoding says
    // whether the list validated needs them.
    let (transforms, pipeline): (Cow<'a, [Value]>, _) = match d.array_of(ts, "transforms", at)? {
        None => (Cow::Borrowed(&[]), Vec::new()),
        Some(ts) => {
            limit(ts.len(), at)?;
            for (i, t) in ts.iter().enumerate() {
                d.object(t, &At::Item(at, "transforms", i))?;
            }
            let (pipeline, lacks_defaults) = transform::decode_list(ts, sem);
            if lacks_defaults {
                let mut owned = ts.to_vec();
                owned.iter_mut().for_each(transform_defaults);
                (Cow::Owned(owned), pipeline)
            } else {
                (Cow::Borrowed(ts), pipeline)
            }
        }
    };
    let policy = match d.obj_of(pol, "policy", at)? {
        None => Policy::default(),
        Some(p) => {
            let pat = At::Key(at, "policy");
            let merge_options = match d.opt_obj(p, "mergeOptions", &pat)? {
                None => None,
                Some(mo) => {
                    let mat = At::Key(&pat, "mergeOptions");
                    Some(MergeOptions {
                        keep_map_values: d.opt_bool(mo, "keepMapValues", &mat)?.unwrap_or(false),
                        append_slice: d.opt_bool(mo, "appendSlice", &mat)?.unwrap_or(false),
                    })
                }
            };
            Policy {
                from_field_path: d.opt_str(p, "fromFieldPath", &pat)?.map(str::to_owned),
                merge_options,
                to_field_path: d.opt_str(p, "toFieldPath", &pat)?.map(str::to_owned),
            }
        }
    };
    Ok(Patch {
        kind,
        from_field_path: from_field_path.map(Path::new),
        to_field_path: to_field_path.map(Path::new),
        combine,
        patch_set_name: patch_set_name.map(str::to_owned),
        transforms,
        pipeline,
        policy,
        source: Source::default(),
    })
}

/// A list index as a patch's source keeps it (lists hold at most `MAX_ITEMS`).
fn to_u32(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

fn decode_combine<'a>(d: Dec, c: &'a Map, cat: &At<'_>) -> Result<Combine<'a>> {
    let mut variables = Vec::new();
    if let Some(vars) = d.opt_array(c, "variables", cat)? {
        limit(vars.len(), cat)?;
        for (i, var) in vars.iter().enumerate() {
            let vat = At::Item(cat, "variables", i);
            let vm = d.object(var, &vat)?;
            variables.push(Path::new(
                d.opt_str(vm, "fromFieldPath", &vat)?.unwrap_or(""),
            ));
        }
    }
    let strategy = d.opt_str(c, "strategy", cat)?.unwrap_or("").to_owned();
    let string_fmt = match d.opt_obj(c, "string", cat)? {
        None => None,
        Some(s) => Some(
            d.opt_str(s, "fmt", &At::Key(cat, "string"))?
                .unwrap_or("")
                .to_owned(),
        ),
    };
    Ok(Combine {
        variables,
        strategy,
        string_fmt,
    })
}

/// The Composition CRD's transform defaults (`string.type: Format`,
/// `math.type: Multiply`, match pattern `type: literal`), which only
/// API-server-defaulted native Compositions get.
fn transform_defaults(t: &mut Value) {
    let kind = t
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let Value::Object(m) = t else { return };
    let set_default = |block: &mut Value, key: &str, value: &str| {
        if let Value::Object(b) = block
            && b.get(key).is_none_or(Value::is_null)
        {
            b.insert(key.to_owned(), value.into());
        }
    };
    match kind.as_str() {
        "string" => {
            if let Some(b) = m.get_mut("string") {
                set_default(b, "type", "Format");
            }
        }
        "math" => {
            if let Some(b) = m.get_mut("math") {
                set_default(b, "type", "Multiply");
            }
        }
        "match" => {
            if let Some(Value::Object(b)) = m.get_mut("match")
                && let Some(Value::Array(ps)) = b.get_mut("patterns")
            {
                for p in ps {
                    set_default(p, "type", "literal");
                }
            }
        }
        _ => {}
    }
}

fn decode_check(d: Dec, v: &Value, at: &At<'_>, sem: Semantics) -> Result<Check> {
    let m = d.object(v, at)?;
    let own = |s: Option<&str>| s.map(str::to_owned);
    let kind = d.opt_str(m, "type", at)?.unwrap_or("").to_owned();
    let mut field_path = own(d.opt_str(m, "fieldPath", at)?);
    let mut match_string = own(d.opt_str(m, "matchString", at)?);
    let mut match_integer = match member(m, "matchInteger") {
        // The function's input keeps the wire's -0 (`wire::input`): int64 0 to Go.
        Some(Value::Float(f)) if sem == Semantics::Function && *f == 0.0 => Some(0),
        _ => d.opt_i64(m, "matchInteger", at)?,
    };
    let mut match_condition = match d.opt_obj(m, "matchCondition", at)? {
        None => None,
        Some(c) => {
            let cat = At::Key(at, "matchCondition");
            Some((
                d.opt_str(c, "type", &cat)?.unwrap_or("").to_owned(),
                d.opt_str(c, "status", &cat)?.unwrap_or("").to_owned(),
            ))
        }
    };
    match sem {
        Semantics::Native => {
            // Plain (non-pointer) fields in v1: the zero value means unset.
            field_path = field_path.filter(|s| !s.is_empty());
            match_string = match_string.filter(|s| !s.is_empty());
            match_integer = match_integer.filter(|i| *i != 0);
        }
        Semantics::Function => {
            if kind == "MatchCondition" && match_condition.is_none() {
                match_condition = Some(("Ready".to_owned(), "True".to_owned()));
            }
        }
    }
    Ok(Check {
        kind,
        field_path,
        match_string,
        match_integer,
        match_condition,
    })
}

fn decode_detail(d: Dec, v: &Value, at: &At<'_>, sem: Semantics) -> Result<Detail> {
    let m = d.object(v, at)?;
    let own = |s: Option<&str>| s.map(str::to_owned);
    let mut out = Detail {
        kind: d.opt_str(m, "type", at)?.unwrap_or("").to_owned(),
        name: own(d.opt_str(m, "name", at)?),
        from_connection_secret_key: own(d.opt_str(m, "fromConnectionSecretKey", at)?),
        from_field_path: own(d.opt_str(m, "fromFieldPath", at)?).map(Path::owned),
        value: own(d.opt_str(m, "value", at)?),
    };
    if sem == Semantics::Native {
        // v1.11+ type inference for entries without `type`.
        if out.kind.is_empty() {
            out.kind = if out.value.is_some() {
                "FromValue"
            } else if out.from_connection_secret_key.is_some() {
                "FromConnectionSecretKey"
            } else if out.from_field_path.is_some() {
                "FromFieldPath"
            } else {
                "FromConnectionSecretKey"
            }
            .to_owned();
        }
        if out.kind == "FromConnectionSecretKey"
            && out.name.as_deref().unwrap_or("").is_empty()
            && let Some(k) = &out.from_connection_secret_key
        {
            out.name = Some(k.clone());
        }
    }
    Ok(out)
}

fn limit(n: usize, at: &At<'_>) -> Result<()> {
    if n > MAX_ITEMS {
        return Err(crate::model::limits::too_many(at));
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Shape checking.

/// A member; JSON `null` counts as absent, as Go's decoder treats it for pointers.
#[inline(never)]
pub(crate) fn member<'a>(m: &'a Map, key: &str) -> Option<&'a Value> {
    m.get(key).filter(|v| !v.is_null())
}

/// Typed access that fails with the field path and the Go type found.
#[derive(Clone, Copy)]
pub(crate) struct Dec(pub(crate) ErrorKind);

impl Dec {
    fn mismatch(self, at: &dyn std::fmt::Display, want: &str, got: &Value) -> Error {
        let path = at.to_string();
        Error::new(
            self.0,
            format!("{path}: expected {want}, got {}", got.go_type()),
        )
        .with_field_path(path)
    }

    pub(crate) fn object<'v>(self, v: &'v Value, at: &dyn std::fmt::Display) -> Result<&'v Map> {
        v.as_object().ok_or_else(|| self.mismatch(at, "object", v))
    }

    pub(crate) fn string<'v>(self, v: &'v Value, at: &dyn std::fmt::Display) -> Result<&'v str> {
        v.as_str().ok_or_else(|| self.mismatch(at, "string", v))
    }

    #[inline(never)]
    pub(crate) fn opt_str<'v>(self, m: &'v Map, key: &str, at: &At<'_>) -> Result<Option<&'v str>> {
        self.str_of(member(m, key), key, at)
    }

    /// Member `key`'s value `v` (absent or null: `None`), as a string.
    fn str_of<'v>(self, v: Option<&'v Value>, key: &str, at: &At<'_>) -> Result<Option<&'v str>> {
        match v {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(v) => Err(self.mismatch(&At::Key(at, key), "string", v)),
        }
    }

    #[inline(never)]
    pub(crate) fn opt_bool(self, m: &Map, key: &str, at: &At<'_>) -> Result<Option<bool>> {
        match member(m, key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(v) => Err(self.mismatch(&At::Key(at, key), "bool", v)),
        }
    }

    pub(crate) fn opt_i64(self, m: &Map, key: &str, at: &At<'_>) -> Result<Option<i64>> {
        match member(m, key) {
            None => Ok(None),
            Some(Value::Int(i)) => Ok(Some(*i)),
            Some(v) => Err(self.mismatch(&At::Key(at, key), "int64", v)),
        }
    }

    /// An optional `connectionDetails` object of base64 strings, decoded in key order.
    pub(crate) fn opt_details(self, m: &Map, at: &At<'_>) -> Result<Vec<(String, Vec<u8>)>> {
        let mut out = Vec::new();
        if let Some(cd) = self.opt_obj(m, "connectionDetails", at)? {
            let cdat = At::Key(at, "connectionDetails");
            for (k, b64) in cd {
                let kat = At::Key(&cdat, k);
                let text = self.string(b64, &kat)?;
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(text)
                    .map_err(|e| {
                        Error::new(
                            ErrorKind::InvalidRequest,
                            format!("{kat}: invalid base64: {e}"),
                        )
                        .with_field_path(kat.to_string())
                    })?;
                out.push((k.clone(), bytes));
            }
        }
        Ok(out)
    }

    /// A resource entry's required `resource` object.
    pub(crate) fn resource_of(self, entry: &Map, at: &At<'_>) -> Result<()> {
        let resource = member(entry, "resource").ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidRequest,
                format!("{at}.resource: required value"),
            )
        })?;
        self.object(resource, &At::Key(at, "resource"))?;
        Ok(())
    }

    #[inline(never)]
    pub(crate) fn opt_obj<'v>(self, m: &'v Map, key: &str, at: &At<'_>) -> Result<Option<&'v Map>> {
        self.obj_of(member(m, key), key, at)
    }

    fn obj_of<'v>(self, v: Option<&'v Value>, key: &str, at: &At<'_>) -> Result<Option<&'v Map>> {
        match v {
            None => Ok(None),
            Some(Value::Object(o)) => Ok(Some(o)),
            Some(v) => Err(self.mismatch(&At::Key(at, key), "object", v)),
        }
    }

    #[inline(never)]
    pub(crate) fn opt_array<'v>(
        self,
        m: &'v Map,
        key: &str,
        at: &At<'_>,
    ) -> Result<Option<&'v [Value]>> {
        self.array_of(member(m, key), key, at)
    }

    fn array_of<'v>(
        self,
        v: Option<&'v Value>,
        key: &str,
        at: &At<'_>,
    ) -> Result<Option<&'v [Value]>> {
        match v {
            None => Ok(None),
            Some(Value::Array(a)) => Ok(Some(a)),
            Some(v) => Err(self.mismatch(&At::Key(at, key), "array", v)),
        }
    }
}
