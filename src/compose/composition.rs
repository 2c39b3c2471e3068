//! A Composition decoded: the resource templates of a classic Composition or of a
//! function-patch-and-transform input, or the steps of a Pipeline.

use std::borrow::Cow;
use std::sync::OnceLock;

use crate::connection::Detail;
use crate::error::{Error, Result};
use crate::patch::patchset::PatchSet;
use crate::patch::{self, Patch, Source};
use crate::readiness::Check;
use crate::value::Value;

/// A Composition decoded: what it asks for.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Composition<'a> {
    /// Classic `spec.resources` (mode Resources).
    Resources(Box<PtInput<'a>>),
    /// `spec.mode: Pipeline`.
    Pipeline(Vec<Step<'a>>),
}

/// A decoded Composition borrows from the one it was decoded from; an engine
/// keeps an owned copy (`crate::compose::decodings`).
impl Composition<'_> {
    pub(crate) fn into_owned(self) -> Composition<'static> {
        match self {
            Composition::Resources(input) => Composition::Resources(Box::new(input.into_owned())),
            Composition::Pipeline(steps) => {
                Composition::Pipeline(steps.into_iter().map(Step::into_owned).collect())
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

/// What `function_ref::resolve` reads of a step.
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
    pub(crate) fn empty(base_path: String) -> Self {
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
