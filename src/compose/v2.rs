//! The Output of Crossplane v2's `crossplane render` (`cmd/crank/render`): the XR is the
//! pipeline's desired XR with its identity and a Ready condition put back, and each composed
//! resource gets v2's metadata: the observed resource's identity, a `generateName` only when it
//! has no name, the namespace of a namespaced XR, the composite label, claim labels only for a
//! claim's XR, and the controller reference.

use crate::error::Result;
use crate::go::quote;
use crate::readiness;
use crate::value::Value;

use super::metadata::{
    self, LABEL_CLAIM_NAME, LABEL_CLAIM_NAMESPACE, LABEL_COMPOSITE, meta_entry, meta_str,
};
use super::output::Output;
use super::{State, composite_readiness, finished};

pub(super) fn finish(mut st: State<'_>, input_xr: &Value) -> Result<Output> {
    let mut composite = desired_composite(&st.function.desired_xr, input_xr);
    if st.request.options.pipeline.include_full_xr {
        // `-x`: the input XR's spec and metadata (as defaulted), copied as they are.
        for k in ["spec", "metadata"] {
            if let (Some(v), Value::Object(m)) = (input_xr.get(k), &mut composite) {
                m.set(k, v.clone());
            }
        }
    }
    let (ready, message) = composite_readiness(&st);
    // A function that marks the XR unready (function-patch-and-transform does when it held a
    // resource back) gives `Creating` without a message; otherwise unready resources are named.
    let message = if st.function.held_back { None } else { message };
    if composite
        .get("status")
        .is_none_or(|s| s.is_null() || s.as_object().is_some())
    {
        readiness::set_ready_condition(
            &mut composite,
            ready,
            message,
            st.request.options.now.as_deref(),
        );
    }
    let observed = &st.request.observed.resources;
    for r in &mut st.resources {
        let o = observed.get(&r.name).map(|o| &o.resource);
        composed_metadata(&mut r.resource, input_xr, &r.name, o).map_err(|e| {
            e.wrap(format!(
                "cannot render composed resource {} metadata",
                quote(&r.name)
            ))
            .wrap("cannot render composite resource")
            .with_resource(r.name.as_str())
        })?;
    }
    Ok(finished(st, composite, ready))
}

/// The desired XR as `crossplane render` prints it: what the functions desired (through
/// JSON, as Crossplane reads a Struct), with the input XR's apiVersion, kind, name and
/// namespace.
fn desired_composite(desired: &Value, input: &Value) -> Value {
    let mut xr = desired
        .clone()
        .normalize()
        .unwrap_or_else(|_| desired.clone());
    if !matches!(xr, Value::Object(_)) {
        xr = Value::Object(crate::value::Map::new());
    }
    if let Value::Object(m) = &mut xr {
        for k in ["apiVersion", "kind"] {
            match input
                .get(k)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
            {
                Some(v) => m.set(k, v.into()),
                None => {
                    m.remove(k);
                }
            }
        }
    }
    metadata::set_name_and_namespace(
        &mut xr,
        meta_str(input, "name"),
        meta_str(input, "namespace"),
    );
    xr
}

/// `SetComposedResourceMetadata` of v2's render, after the observed resource's namespace,
/// name and generateName are copied over the desired one's.
fn composed_metadata(
    cd: &mut Value,
    xr: &Value,
    name: &str,
    observed: Option<&Value>,
) -> Result<()> {
    if let Some(o) = observed {
        metadata::set_name_and_namespace(cd, meta_str(o, "name"), meta_str(o, "namespace"));
        metadata::set_meta_str(cd, "generateName", meta_str(o, "generateName"));
    }
    // A nested XR carries its root's composite label; a root XR is its own prefix.
    let prefix = match meta_entry(xr, "labels", LABEL_COMPOSITE) {
        "" => meta_str(xr, "name"),
        label => label,
    };
    if meta_str(cd, "name").is_empty() && meta_str(cd, "generateName").is_empty() {
        metadata::set_meta_str(cd, "generateName", &format!("{prefix}-"));
    }
    let namespace = meta_str(xr, "namespace");
    if !namespace.is_empty() {
        metadata::set_meta_str(cd, "namespace", namespace);
    }
    metadata::add_entries(
        cd,
        "annotations",
        &[(crate::documents::ANNOTATION_RESOURCE_NAME, name)],
    );
    let mut labels = vec![(LABEL_COMPOSITE, prefix)];
    let (claim_name, claim_namespace) = (
        meta_entry(xr, "labels", LABEL_CLAIM_NAME),
        meta_entry(xr, "labels", LABEL_CLAIM_NAMESPACE),
    );
    let claim_ref = xr.get("spec").and_then(|s| s.get("claimRef"));
    let text = |k: &str| {
        claim_ref
            .and_then(|r| r.get(k))
            .and_then(Value::as_str)
            .unwrap_or("")
    };
    if !claim_name.is_empty() && !claim_namespace.is_empty() {
        labels.push((LABEL_CLAIM_NAMESPACE, claim_namespace));
        labels.push((LABEL_CLAIM_NAME, claim_name));
    } else if claim_ref.is_some_and(|r| r.as_object().is_some()) {
        labels.push((LABEL_CLAIM_NAMESPACE, text("namespace")));
        labels.push((LABEL_CLAIM_NAME, text("name")));
    }
    metadata::add_entries(cd, "labels", &labels);
    metadata::add_controller_reference_to(cd, &metadata::Owner::of(xr)).map_err(|e| {
        e.wrap(format!(
            "cannot set composite resource {} as controller ref of composed resource",
            quote(meta_str(xr, "name"))
        ))
    })
}
