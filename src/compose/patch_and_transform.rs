//! function-patch-and-transform v0.10 (`RunFunction` of fn.go) over one `Resources` input.

use crate::connection;
use crate::error::{Error, ErrorKind, Result};
use crate::go::quote;
use crate::patch::environment::{self, Side};
use crate::patch::{self, Patch, PatchType, patchset};
use crate::readiness;
use crate::semantics::Semantics;
use crate::trace::{Outcome, PatchTrace};
use crate::value::{Map, Value};

use base64::Engine as _;

use super::composition::{PtInput, SecretRef, Template};
use super::native::skip_reason;
use super::output::Rendered;
use super::{State, fatal, metadata, validate, wire};

const SEM: Semantics = Semantics::Function;

/// Runs one function-patch-and-transform input.
pub(super) fn run(st: &mut State<'_>, input: &PtInput) -> Result<()> {
    if let Some(e) = &input.undecodable {
        return Err(e.clone());
    }
    receive(st);
    input.validate(validate::function)?;
    patchset::check_sets(&input.patch_sets).map_err(|e| e.wrap("cannot resolve PatchSets"))?;
    let mut templates = Vec::with_capacity(input.resources.len());
    for t in &input.resources {
        let patches = patchset::inline(&input.patch_sets, &t.patches)
            .map_err(|e| e.wrap("cannot resolve PatchSets"))?;
        templates.push((t, patches));
    }
    for (i, p) in input.environment_patches.iter().enumerate() {
        environment_patch(st, i, p)?;
    }
    for (t, patches) in &templates {
        template(st, t, patches)?;
    }
    connection_secret(st, input.connection_secret_ref.as_ref())
}

/// What a step reads from the request: the environment from the context (a
/// `Struct`, so all floats, given the internal GVK when it has none) and the
/// desired XR, whose apiVersion and kind are set to the observed XR's.
fn receive(st: &mut State<'_>) {
    st.env = wire::structured(&st.env);
    environment::default_gvk(&mut st.env, SEM);
    for k in ["apiVersion", "kind"] {
        let v = st
            .xr
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        if let Value::Object(m) = &mut st.function.desired_xr {
            m.insert(k.to_owned(), v.into());
        }
    }
}

/// v0.10: a Crossplane v2 XR (one with `spec.crossplane`) has no connection
/// details of its own, so the function composes a Secret holding them.
fn connection_secret(st: &mut State<'_>, input: Option<&SecretRef>) -> Result<()> {
    let v2 = st
        .xr
        .get("spec")
        .and_then(|s| s.get("crossplane"))
        .is_some();
    if !v2 || st.details.is_empty() {
        return Ok(());
    }
    let xr_name = metadata::meta_str(&st.xr, "name").to_owned();
    let (name, namespace) = secret_ref(st, input).map_err(|e| {
        e.wrap("cannot generate connection secret reference")
            .wrap("cannot compose connection secret")
    })?;
    let mut data = Map::new();
    for (k, v) in &st.details {
        data.insert(
            k.clone(),
            base64::engine::general_purpose::STANDARD.encode(v).into(),
        );
    }
    let mut secret = Map::new();
    secret.insert("apiVersion".into(), "v1".into());
    secret.insert("kind".into(), "Secret".into());
    secret.insert("data".into(), Value::Object(data));
    secret.insert("type".into(), "connection.crossplane.io/v1alpha1".into());
    let mut secret = Value::Object(secret);
    metadata::set_meta_str(&mut secret, "name", &name);
    metadata::set_meta_str(&mut secret, "namespace", &namespace);
    st.put_resource(Rendered {
        name: format!("{xr_name}-connection-secret"),
        resource: secret,
        ready: true,
    });
    Ok(())
}

/// `getConnectionSecretRef`: the XR's own reference, else the input's (when
/// it names anything), else `<xr>-connection` in the XR's namespace; then
/// the input's patches from the XR.
fn secret_ref(st: &State<'_>, input: Option<&SecretRef>) -> Result<(String, String)> {
    let field = |v: Option<&Value>, k: &str| {
        v.and_then(|r| r.get(k))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let xr_ref = st
        .xr
        .get("spec")
        .and_then(|s| s.get("writeConnectionSecretToRef"))
        .filter(|r| r.as_object().is_some());
    let (name, namespace) = match (xr_ref, input) {
        (Some(r), _) => (field(Some(r), "name"), field(Some(r), "namespace")),
        (None, Some(i)) if !i.name.is_empty() || !i.namespace.is_empty() => {
            (i.name.to_owned(), i.namespace.to_owned())
        }
        _ => (
            format!("{}-connection", metadata::meta_str(&st.xr, "name")),
            metadata::meta_str(&st.xr, "namespace").to_owned(),
        ),
    };
    let Some(input) = input.filter(|i| !i.patches.is_empty()) else {
        return Ok((name, namespace));
    };
    let mut obj = Map::new();
    obj.insert("apiVersion".into(), "v1".into());
    obj.insert("kind".into(), "SecretReference".into());
    obj.insert("name".into(), name.into());
    obj.insert("namespace".into(), namespace.into());
    let mut obj = Value::Object(obj);
    for (i, p) in input.patches.iter().enumerate() {
        let res = match p.kind {
            PatchType::FromCompositeFieldPath => {
                match patch::apply(p, &st.xr, &mut obj, SEM, None) {
                    // Any failure of an Optional patch skips it.
                    Err(_) if p.policy.optional() => continue,
                    r => r,
                }
            }
            PatchType::CombineFromComposite => patch::apply(p, &st.xr, &mut obj, SEM, None),
            _ => {
                return Err(Error::new(
                    ErrorKind::Render,
                    format!("unsupported patch type {} at index {i}", p.kind.as_str()),
                )
                .wrap("cannot apply connection secret patches"));
            }
        };
        res.map_err(|e| {
            e.wrap(format!(
                "cannot apply patch type {} at index {i}",
                p.kind.as_str()
            ))
            .wrap("cannot apply connection secret patches")
        })?;
    }
    Ok((field(Some(&obj), "name"), field(Some(&obj), "namespace")))
}

/// Environment patches: observed XR → environment, environment → desired XR.
fn environment_patch(st: &mut State<'_>, i: usize, p: &Patch) -> Result<()> {
    let Some((from, to)) = environment::direction(&p.kind, SEM) else {
        return Ok(());
    };
    let names = |s: Side| match s {
        Side::Composite => "composite (observed)",
        Side::DesiredComposite => "composite (desired)",
        Side::Environment => "environment",
    };
    let mut tr = st.start_trace(None, i, p, names(from), names(to));
    let res = if to == Side::Environment {
        patch::apply(p, &st.xr, &mut st.env, SEM, tr.as_mut())
    } else {
        patch::apply(p, &st.env, &mut st.function.desired_xr, SEM, tr.as_mut())
    };
    match res {
        Ok(()) => {
            st.end_trace(tr);
            Ok(())
        }
        Err(e) if e.is_not_found() && p.policy.optional() => {
            if let Some(t) = tr.as_mut() {
                t.finish(Outcome::Skipped, skip_reason(&e));
            }
            st.end_trace(tr);
            Ok(())
        }
        Err(e) => {
            if let Some(t) = tr.as_mut() {
                t.finish(Outcome::Failed, "the render fails (Fatal result)");
            }
            st.end_trace(tr);
            Err(fatal(
                e.wrap(format!(
                    "cannot apply the {} environment patch at index {i}",
                    quote(p.kind.as_str())
                ))
                .with_patch(i, p.kind.as_str()),
            ))
        }
    }
}

/// One resource template.
fn template(st: &mut State<'_>, t: &Template, patches: &[&Patch]) -> Result<()> {
    // Lend the observed resource out of the state instead of copying it; its slot
    // stays (nothing else reads it meanwhile), so no member of the map moves.
    let name = t.name.as_str();
    let observed = st.function.observed.get_mut(name).map(std::mem::take);
    let res = template_with(st, t, patches, observed.as_ref());
    if let (Some(o), Some(slot)) = (observed, st.function.observed.get_mut(name)) {
        *slot = o;
    }
    res
}

fn template_with(
    st: &mut State<'_>,
    t: &Template,
    patches: &[&Patch],
    observed: Option<&Value>,
) -> Result<()> {
    let name = t.name.as_str();
    let mut desired = base(st, t)?;
    let ready = match observed {
        Some(o) => observe(st, t, o, &mut desired),
        None => false,
    };
    // Whether a patch has left `desired` re-decoded (see `patch::apply_to_reread`).
    let mut reread = false;
    for (i, p) in patches.iter().enumerate() {
        let (from, to) = endpoints(&p.kind);
        let mut tr = st.start_trace(Some(name), i, p, from, to);
        let res = match (observed, &p.kind) {
            (None, k) if !k.writes_composed() => {
                // Nothing to patch from until the composed resource exists.
                if let Some(t) = tr.as_mut() {
                    t.finish(
                        Outcome::Skipped,
                        "the composed resource is not observed yet: patches from it wait for it to exist",
                    );
                }
                st.end_trace(tr);
                continue;
            }
            (Some(o), PatchType::ToCompositeFieldPath | PatchType::CombineToComposite) => {
                patch::apply(p, o, &mut st.function.desired_xr, SEM, tr.as_mut())
            }
            (Some(o), PatchType::ToEnvironmentFieldPath | PatchType::CombineToEnvironment) => {
                patch::apply(p, o, &mut st.env, SEM, tr.as_mut())
            }
            (_, PatchType::FromCompositeFieldPath | PatchType::CombineFromComposite) => {
                patch_desired(p, &st.xr, &mut desired, &mut reread, tr.as_mut())
            }
            (_, PatchType::FromEnvironmentFieldPath | PatchType::CombineFromEnvironment) => {
                patch_desired(p, &st.env, &mut desired, &mut reread, tr.as_mut())
            }
            _ => Ok(()),
        };
        let Err(e) = res else {
            st.end_trace(tr);
            continue;
        };
        match patch_failed(st, name, i, p, e, tr, observed.is_some())? {
            AfterFailure::NextPatch => {}
            AfterFailure::HeldBack => {
                st.trace_not_run(
                    Some(name),
                    patches.iter().enumerate().skip(i + 1),
                    "the resource was left out of the desired state",
                );
                return Ok(());
            }
        }
    }
    st.put_resource(Rendered {
        name: name.to_owned(),
        resource: desired,
        ready,
    });
    Ok(())
}

/// A patch of the composed resource: after the first that succeeds, the
/// resource is re-decoded, and later patches re-decode only what they write.
fn patch_desired(
    p: &Patch,
    from: &Value,
    desired: &mut Value,
    reread: &mut bool,
    trace: Option<&mut PatchTrace>,
) -> Result<()> {
    if *reread {
        return patch::apply_to_reread(p, from, desired, trace);
    }
    let res = patch::apply(p, from, desired, SEM, trace);
    *reread = res.is_ok();
    res
}

/// The template's starting point: its base, or what a previous step produced.
fn base(st: &State<'_>, t: &Template) -> Result<Value> {
    let name = t.name.as_str();
    match &t.base {
        // The base decodes into an `Unstructured`, which needs a kind.
        Some(b) => {
            let mut d = Value::clone(b);
            crate::value::unstructured::round_trip(&mut d).map_err(|e| {
                e.wrap(format!(
                    "cannot parse base template of composed resource {}",
                    quote(name)
                ))
                .with_resource(name)
            })?;
            Ok(d)
        }
        None => match st.resource(name) {
            Some(r) => Ok(wire::structured(&r.resource)),
            None => Err(Error::new(
                ErrorKind::Render,
                format!(
                    "composed resource {} has no base template, and was not produced by a previous Function in the pipeline",
                    quote(name)
                ),
            )
            .with_resource(name)),
        },
    }
}

/// What an observed composed resource gives its desired state: its name and
/// namespace, connection details and readiness (failures are warnings).
fn observe(st: &mut State<'_>, t: &Template, o: &Value, desired: &mut Value) -> bool {
    let name = t.name.as_str();
    metadata::set_meta_str(desired, "namespace", metadata::meta_str(o, "namespace"));
    metadata::set_meta_str(desired, "name", metadata::meta_str(o, "name"));
    let empty = connection::Details::new();
    let secret = st
        .request
        .observed
        .resources
        .get(name)
        .map_or(&empty, |r| &r.connection_details);
    match connection::extract(o, secret, &t.connection_details, SEM) {
        Ok(d) => st.add_details(d),
        Err(e) => st.warn(
            e.wrap(format!(
                "cannot extract composite resource connection details from composed resource {}",
                quote(name)
            ))
            .message()
            .to_owned(),
            Some(name),
        ),
    }
    match readiness::is_ready(o, &t.readiness_checks, SEM) {
        Ok(r) => r,
        Err(e) => {
            st.warn(
                e.wrap(format!(
                    "cannot check readiness of composed resource {}",
                    quote(name)
                ))
                .message()
                .to_owned(),
                Some(name),
            );
            false
        }
    }
}

/// How a template goes on after one of its patches failed.
enum AfterFailure {
    NextPatch,
    /// A new resource is left out of the desired state.
    HeldBack,
}

/// A failed patch: a missing source is skipped (or holds a new resource back
/// when Required); anything else is a Fatal result.
fn patch_failed(
    st: &mut State<'_>,
    name: &str,
    i: usize,
    p: &Patch,
    e: Error,
    mut tr: Option<PatchTrace>,
    exists: bool,
) -> Result<AfterFailure> {
    if !e.is_not_found() {
        if let Some(t) = tr.as_mut() {
            t.finish(Outcome::Failed, "the render fails (Fatal result)");
        }
        st.end_trace(tr);
        return Err(fatal(
            e.wrap(format!(
                "cannot render composed resource {} {} patch at index {i}",
                quote(name),
                quote(p.kind.as_str())
            ))
            .with_resource(name)
            .with_patch(i, p.kind.as_str()),
        ));
    }
    if !p.policy.required() {
        if let Some(t) = tr.as_mut() {
            t.finish(Outcome::Skipped, skip_reason(&e));
        }
        st.end_trace(tr);
        return Ok(AfterFailure::NextPatch);
    }
    if p.kind.writes_composed() && !exists {
        if let Some(t) = tr.as_mut() {
            t.finish(
                Outcome::Failed,
                "the source is missing and policy.fromFieldPath is Required: the new resource is left out of the desired state",
            );
        }
        st.end_trace(tr);
        st.warn(
            e.wrap(format!(
                "not adding new composed resource {} to desired state because {} patch at index {i} has 'policy.fromFieldPath: Required'",
                quote(name),
                quote(p.kind.as_str())
            ))
            .message()
            .to_owned(),
            Some(name),
        );
        st.function.held_back = true;
        return Ok(AfterFailure::HeldBack);
    }
    if let Some(t) = tr.as_mut() {
        t.finish(
            Outcome::Skipped,
            "the source is missing and policy.fromFieldPath is Required, but the resource already exists: the patch is skipped with a warning",
        );
    }
    st.end_trace(tr);
    st.warn(
        e.wrap(format!(
            "cannot render composed resource {} {} patch at index {i}: ignoring 'policy.fromFieldPath: Required' because 'to' resource already exists",
            quote(name),
            quote(p.kind.as_str())
        ))
        .message()
        .to_owned(),
        Some(name),
    );
    Ok(AfterFailure::NextPatch)
}

fn endpoints(kind: &PatchType) -> (&'static str, &'static str) {
    match kind {
        PatchType::ToCompositeFieldPath | PatchType::CombineToComposite => {
            ("composed (observed)", "composite (desired)")
        }
        PatchType::ToEnvironmentFieldPath | PatchType::CombineToEnvironment => {
            ("composed (observed)", "environment")
        }
        PatchType::FromEnvironmentFieldPath | PatchType::CombineFromEnvironment => {
            ("environment", "composed (desired)")
        }
        _ => ("composite (observed)", "composed (desired)"),
    }
}
