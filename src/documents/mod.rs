//! The documents request: Kubernetes objects as a host has them, turned into a render request.
//!
//! A host hands over whatever it holds for one XR (the XR or its claim, Compositions,
//! CompositionRevisions, the XRD, observed composed resources, their connection Secrets,
//! EnvironmentConfigs, anything else) in any order. This module does what Crossplane v1.14 does
//! before it composes: it classifies the objects, chooses the Composition (or revision), pairs
//! observed resources with templates, reads connection Secrets, selects and merges
//! EnvironmentConfigs and applies the XRD's schema defaults and connection-secret keys. What it
//! chose is reported in the Output's `inputs`.

mod claim;
mod classify;
pub(crate) mod defaults;
mod environment;
pub(crate) mod levels;
pub(crate) mod names;
mod observed;
mod revision;
mod select;

use std::borrow::Cow;

use crate::error::{Error, ErrorKind, Result};
use crate::value::{Map, Value};

use classify::{Catalog, Role};
pub(crate) use classify::{composite_types, composition_types};

/// Whether `d` is a claim of a type an XRD among `docs` offers.
pub(crate) fn is_claim(docs: &[Value], d: &Value) -> bool {
    classify::is_claim(docs, d)
}

/// The annotation that names the template an observed composed resource came from.
pub(crate) const ANNOTATION_RESOURCE_NAME: &str = "crossplane.io/composition-resource-name";

/// The `options` a documents request adds to the render options.
#[derive(Clone, Debug, Default)]
pub(crate) struct Choices {
    /// `options.xr`: `KIND/NAME` of the XR among several candidates.
    pub(crate) xr: Option<String>,
    /// `options.compositionName`: the Composition to use, as the CLI's `--composition-name`.
    /// It wins over every selection rule and is rendered as given (no revision is applied).
    pub(crate) composition_name: Option<String>,
    /// `options.environmentConfigs: "selected"`: the EnvironmentConfigs given are a pool the
    /// Composition selects from, so a Composition that selects none gets no environment (as
    /// Crossplane on a cluster). The default, `"all"`, merges every one given then (as the CLI's
    /// `--environment`).
    pub(crate) environment_pool: bool,
    /// `options.localCompositions`: the Compositions given are local candidates for a live XR
    /// (the CLI's `--composition`/`--package` with `--cluster`). The XR's and the XRD's
    /// references name the cluster's Compositions and revisions, so when only one Composition
    /// given suits the XR's type it is used whatever they name, and no revision is applied.
    pub(crate) local_compositions: bool,
    /// `options.crossplane: "v2"`: the checks and defaults of Crossplane v2's `crossplane
    /// render` (its Composition checks and texts, the XRD's default update policy, an XR
    /// version the XRD lacks is an error, a Pipeline's `spec.environment` is not read).
    pub(crate) crossplane_v2: bool,
    /// The documents of other levels of the XR tree, not seen by this render.
    pub(crate) hidden: Vec<bool>,
    /// The XR of a nested level: its document, already merged with what its parent desires.
    pub(crate) forced_xr: Option<usize>,
}

/// What the documents resolved to: the classic request's parts and the `inputs` report.
pub(crate) struct Resolved {
    pub(crate) xr: Value,
    pub(crate) composition: Value,
    pub(crate) resources: Vec<(String, Value, crate::connection::Details)>,
    pub(crate) environment: Option<Value>,
    /// EnvironmentConfigs a pipeline's function-environment-configs step selects from.
    pub(crate) extra_resources: Vec<Value>,
    pub(crate) connection_secret_keys: Option<Vec<String>>,
    pub(crate) inputs: Value,
    /// Template name → index of the observed document paired with it.
    pub(crate) observed_docs: Vec<(String, usize)>,
    /// The documents the render used.
    pub(crate) used: Vec<usize>,
    /// The XR's index among the documents.
    pub(crate) xr_index: usize,
}

/// Resolves the documents of a request.
///
/// # Errors
/// `InvalidRequest` naming the document at fault: no XR or several without `options.xr`, no
/// Composition for it, an observed-resource conflict, a Secret that is not base64, and so on.
///
/// `selects_environment` says whether the chosen Composition's pipeline runs a step that selects
/// EnvironmentConfigs itself (which then receives them as extra resources); the caller answers
/// it, because which function a step runs is the pipeline's knowledge, not the documents'.
pub(crate) fn resolve(
    documents: Vec<Cow<'_, Value>>,
    choices: &Choices,
    selects_environment: impl Fn(&Value) -> bool,
) -> Result<Resolved> {
    let mut cat = Catalog::new(documents)?;
    cat.hide(&choices.hidden);
    select::require_any(&cat)?;
    let xr_index = match choices.forced_xr {
        Some(i) => {
            cat.roles[i] = Role::Xr;
            i
        }
        None => cat.choose_xr(choices.xr.as_deref())?,
    };
    // A claim given as the XR is rendered as the composite the claim controller creates.
    let claim = classify::xrd_for(&cat.docs, &cat.docs[xr_index])
        .map(|xrd| claim::composite(&cat.docs[xr_index], xrd));
    let claim_doc = claim.map(|xr| std::mem::replace(&mut cat.docs[xr_index], Cow::Owned(xr)));
    let xrd_index = cat.find_xrd(xr_index);
    if claim_doc.is_none() {
        cat.mark_claim(xr_index);
    }
    let mut xr = Value::clone(&cat.docs[xr_index]);
    // `crossplane render` renders Pipelines only: classic Compositions keep v1's behaviour.
    let v2 = choices.crossplane_v2 && {
        let compositions = cat.crossplane("Composition");
        !compositions.is_empty() && compositions.iter().all(|&i| is_pipeline(&cat.docs[i]))
    };
    if v2 {
        select::crossplane_checks(&cat, &xr)?;
    }
    if let Some(i) = xrd_index {
        if v2 {
            defaults::apply_v2(&mut xr, &cat.docs[i])?;
        } else {
            defaults::apply(&mut xr, &cat.docs[i]);
        }
        cat.roles[i] = Role::Xrd;
    }
    let chosen = select::choose(&mut cat, &xr, xrd_index, choices)?;
    let composition = chosen.composition;
    let to_pipeline = selects_environment(&composition);
    let (environment, extra_resources) = if to_pipeline {
        (None, environment::for_pipeline(&mut cat))
    } else if v2 {
        // Crossplane v2 does not read a Pipeline's `spec.environment` (selecting
        // EnvironmentConfigs is function-environment-configs' job): the EnvironmentConfigs given
        // are the environment as they are.
        let mut bare = composition.clone();
        if let Some(Value::Object(spec)) = bare.as_object_mut().and_then(|m| m.get_mut("spec")) {
            spec.remove("environment");
        }
        (
            environment::select(&mut cat, &bare, &xr, choices.environment_pool)?,
            Vec::new(),
        )
    } else {
        (
            environment::select(&mut cat, &composition, &xr, choices.environment_pool)?,
            Vec::new(),
        )
    };
    let observed = observed::pair(&mut cat, &xr, &composition)?;
    let connection_secret_keys = xrd_index.and_then(|i| connection_secret_keys(&cat.docs[i]));

    let mut inputs = Map::new();
    inputs.insert("xr".into(), classify::display(&cat.docs[xr_index]).into());
    if let Some(c) = &claim_doc {
        inputs.insert("claim".into(), classify::display(c).into());
    } else if let Some(i) = cat.claim {
        inputs.insert("claim".into(), classify::display(&cat.docs[i]).into());
    }
    inputs.insert("composition".into(), chosen.name.into());
    inputs.insert("compositionReason".into(), chosen.reason.into());
    if let Some(i) = xrd_index {
        inputs.insert(
            "xrd".into(),
            classify::str_at(&cat.docs[i], &["metadata", "name"])
                .unwrap_or("")
                .into(),
        );
    }
    inputs.insert("observed".into(), Value::Object(observed.report));
    if !observed.secrets.is_empty() {
        inputs.insert("connectionSecrets".into(), Value::Object(observed.secrets));
    }
    if let Some(env) = &environment {
        inputs.insert(
            "environment".into(),
            Value::Array(env.names.iter().map(|n| n.as_str().into()).collect()),
        );
    }
    if !extra_resources.is_empty() {
        inputs.insert(
            "extraResources".into(),
            Value::Array(
                extra_resources
                    .iter()
                    .map(|r| classify::name_of(r).into())
                    .collect(),
            ),
        );
    }
    inputs.insert("unused".into(), Value::Array(cat.unused()));
    let used = cat.used();
    Ok(Resolved {
        observed_docs: observed.indexes,
        used,
        xr_index,
        xr,
        composition,
        resources: observed.resources,
        environment: environment.map(|e| e.value),
        extra_resources,
        connection_secret_keys,
        inputs: Value::Object(inputs),
    })
}

fn is_pipeline(composition: &Value) -> bool {
    classify::str_at(composition, &["spec", "mode"]) == Some("Pipeline")
}

/// The XRD's `spec.connectionSecretKeys`, when it lists any.
fn connection_secret_keys(xrd: &Value) -> Option<Vec<String>> {
    let keys = classify::at(xrd, &["spec", "connectionSecretKeys"])?.as_array()?;
    if keys.is_empty() {
        return None;
    }
    Some(
        keys.iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
    )
}

/// An input error about the documents.
pub(crate) fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidRequest, message)
}
