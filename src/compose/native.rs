//! Crossplane v1.14's built-in patch-and-transform engine (`PTComposer`).

use std::borrow::Cow;
use std::ops::Range;

use crate::connection;
use crate::error::{Error, Result};
use crate::go::quote;
use crate::patch::environment::{self, Side};
use crate::patch::{self, Patch, patchset};
use crate::readiness;
use crate::semantics::Semantics;
use crate::trace::Outcome;
use crate::value::{Map, Value};

use super::composition::{PtInput, Template};
use super::output::Rendered;
use super::request::{ObservedResource, Request};
use super::{State, applied_view, fatal, metadata, validate};

const SEM: Semantics = Semantics::Native;

/// Renders `input`'s templates natively.
pub(super) fn run(st: &mut State<'_>, input: &PtInput) -> Result<()> {
    input.validate(validate::native)?;
    let (all, spans) = inline_patch_sets(input)?;
    let templates = |ti: usize| {
        let span = spans.get(ti)?.clone();
        Some((input.resources.get(ti)?, all.get(span)?))
    };
    for (i, p) in input.environment_patches.iter().enumerate() {
        environment_patch(st, i, p)?;
    }

    // Render every template: FromComposite patches, then environment patches, then metadata.
    let owner = metadata::Owner::of(&st.xr);
    let mut rendered = Vec::with_capacity(input.resources.len());
    for ti in 0..spans.len() {
        let Some((t, patches)) = templates(ti) else {
            continue;
        };
        let found = observed_by_name(st.request, t);
        if let Some(desired) = render_template(st, t, ti, patches, &owner, found)? {
            rendered.push((ti, desired, found));
        } else {
            st.native.unrendered.push(t.name.clone());
            trace_to_composite_not_run(st, t, patches, "the composed resource was not rendered");
        }
    }

    // Crossplane applies every rendered resource here. What follows runs on
    // the applied objects, and its first error ends the reconcile: the
    // resources stay applied and the Output shows them with a Fatal result.
    let mut rendered = rendered.into_iter();
    while let Some((ti, desired, found)) = rendered.next() {
        let Some((t, patches)) = templates(ti) else {
            continue;
        };
        match after_apply(st, t, ti, patches, &desired, found) {
            Ok(ready) => st.put_resource(Rendered {
                name: t.name.clone(),
                resource: desired,
                ready,
            }),
            Err(e) => {
                st.put_resource(Rendered {
                    name: t.name.clone(),
                    resource: desired,
                    ready: false,
                });
                for (tj, desired, _) in rendered.by_ref() {
                    let Some((t, patches)) = templates(tj) else {
                        continue;
                    };
                    trace_to_composite_not_run(
                        st,
                        t,
                        patches,
                        "the reconcile failed at an earlier composed resource",
                    );
                    st.put_resource(Rendered {
                        name: t.name.clone(),
                        resource: desired,
                        ready: false,
                    });
                }
                st.fail_after_apply(&e);
                return Ok(());
            }
        }
    }
    Ok(())
}

/// Every template's patches with PatchSets inlined, in one list: each
/// template's are the range of it at the template's index.
fn inline_patch_sets<'p, 'a>(
    input: &'p PtInput<'a>,
) -> Result<(Vec<&'p Patch<'a>>, Vec<Range<usize>>)> {
    let wrap = |e: Error| e.wrap("cannot inline Composition patch sets");
    patchset::check_sets(&input.patch_sets).map_err(wrap)?;
    let mut all = Vec::with_capacity(input.resources.iter().map(|t| t.patches.len()).sum());
    let mut spans = Vec::with_capacity(input.resources.len());
    for t in &input.resources {
        let start = all.len();
        patchset::inline_into(&mut all, &input.patch_sets, &t.patches).map_err(wrap)?;
        spans.push(start..all.len());
    }
    Ok((all, spans))
}

/// Traces a template's ToComposite patches as not run, for `reason`.
fn trace_to_composite_not_run(st: &mut State<'_>, t: &Template, patches: &[&Patch], reason: &str) {
    let to_xr = patches
        .iter()
        .enumerate()
        .filter(|(_, p)| p.kind.writes_composite());
    st.trace_not_run(Some(&t.name), to_xr, reason);
}

/// The steps v1.14 runs for one applied resource: ToComposite patches,
/// connection details, readiness. Returns whether the resource is ready; an
/// error fails the reconcile.
fn after_apply(
    st: &mut State<'_>,
    t: &Template,
    ti: usize,
    patches: &[&Patch],
    desired: &Value,
    found: Option<Option<&ObservedResource>>,
) -> Result<bool> {
    let request = st.request;
    let observed_entry = found.unwrap_or_else(|| observed_for(request, &st.xr, t, ti));
    let observed = observed_entry.map(|o| &o.resource);
    // Without an observed resource the applied one is the desired one, whatever is read.
    let read = observed.and_then(|_| applied_reads(t, patches));
    let live = applied_view(observed, desired, read.as_deref());
    for (i, p) in patches.iter().enumerate() {
        if !p.kind.writes_composite() {
            continue;
        }
        let mut tr = st.start_trace(Some(&t.name), i, p, "composed (applied)", "composite");
        let res = patch::apply(p, &live, &mut st.xr, SEM, tr.as_mut());
        if let Err(e) = res {
            if e.is_not_found() && p.policy.optional() {
                if let Some(t) = tr.as_mut() {
                    t.finish(Outcome::Skipped, skip_reason(&e));
                }
                st.end_trace(tr);
                continue;
            }
            if let Some(t) = tr.as_mut() {
                t.finish(
                    Outcome::Failed,
                    "the reconcile fails after the apply: ToComposite patch errors are fatal",
                );
            }
            st.end_trace(tr);
            let rest = patches
                .iter()
                .enumerate()
                .skip(i + 1)
                .filter(|(_, q)| q.kind.writes_composite());
            st.trace_not_run(Some(&t.name), rest, "an earlier patch failed");
            return Err(fatal(
                e.wrap(format!(
                    "cannot apply the {} patch at index {i}",
                    quote(p.kind.as_str())
                ))
                .wrap(format!(
                    "cannot render ToComposite patches for composed resource {}",
                    quote(&t.name)
                ))
                .with_resource(t.name.as_str())
                .with_patch(i, p.kind.as_str())
                .with_source(p.source.to_string()),
            ));
        }
        st.end_trace(tr);
    }
    let empty = connection::Details::new();
    let secret = observed_entry.map_or(&empty, |o| &o.connection_details);
    let details = connection::extract(&live, secret, &t.connection_details, SEM).map_err(|e| {
        e.wrap(format!(
            "cannot extract composite resource connection details from composed resource {}",
            quote(&t.name)
        ))
        .with_resource(t.name.as_str())
        .with_source(t.source.owner().to_string())
    })?;
    st.add_details(details);
    readiness::is_ready(&live, &t.readiness_checks, SEM).map_err(|e| {
        e.wrap(format!(
            "cannot check whether composed resource {} is ready",
            quote(&t.name)
        ))
        .with_resource(t.name.as_str())
        .with_source(t.source.owner().to_string())
    })
}

/// The top-level members of the applied resource that its ToComposite
/// patches, connection details and readiness checks can read: the first
/// segment of each path they read, and `status` for conditions, each named
/// once. `None` (all of them) when a path does not start with a member name.
fn applied_reads<'t>(t: &'t Template, patches: &[&'t Patch]) -> Option<Cow<'t, [&'t str]>> {
    // Most read only `status`: that list is not built.
    let mut keys = Cow::Borrowed(&["status"][..]);
    let mut add = |path: &'t str| {
        let k = first_member(path)?;
        if !keys.contains(&k) {
            keys.to_mut().push(k);
        }
        Some(())
    };
    for p in patches.iter().filter(|p| p.kind.writes_composite()) {
        if let Some(from) = &p.from_field_path {
            add(from)?;
        }
        for v in p.combine.iter().flat_map(|c| &c.variables) {
            add(v)?;
        }
    }
    for d in &t.connection_details {
        if let Some(path) = &d.from_field_path {
            add(path)?;
        }
    }
    for c in &t.readiness_checks {
        if let Some(path) = &c.field_path {
            add(path)?;
        }
    }
    Some(keys)
}

/// The member a field path reads first, as the lexer reads it: the text up
/// to the first delimiter, quotes trimmed; `None` when that text is empty.
fn first_member(path: &str) -> Option<&str> {
    // Bytewise: the delimiters are ASCII, never part of another character.
    let end = path
        .bytes()
        .position(|b| matches!(b, b'.' | b'[' | b']'))
        .unwrap_or(path.len());
    let field = path.get(..end).filter(|f| !f.is_empty())?;
    Some(field.trim_matches(['\'', '"']))
}

/// `spec.environment.patches[i]`: XR → environment or environment → XR, fatal on error.
fn environment_patch(st: &mut State<'_>, i: usize, p: &Patch) -> Result<()> {
    let Some((from, to)) = environment::direction(&p.kind, SEM) else {
        return Ok(());
    };
    let mut tr = st.start_trace(None, i, p, side_name(from), side_name(to));
    let res = match (from, to) {
        (Side::Composite, Side::Environment) => {
            patch::apply(p, &st.xr, &mut st.env, SEM, tr.as_mut())
        }
        _ => patch::apply(p, &st.env, &mut st.xr, SEM, tr.as_mut()),
    };
    match res {
        Err(e) if e.is_not_found() && p.policy.optional() => {
            if let Some(t) = tr.as_mut() {
                t.finish(Outcome::Skipped, skip_reason(&e));
            }
            st.end_trace(tr);
            Ok(())
        }
        Err(e) => {
            if let Some(t) = tr.as_mut() {
                t.finish(
                    Outcome::Failed,
                    "the render fails: environment patch errors are fatal",
                );
            }
            st.end_trace(tr);
            Err(fatal(
                e.wrap(format!("cannot apply environment patch at index {i}"))
                    .with_patch(i, p.kind.as_str())
                    .with_source(p.source.to_string()),
            ))
        }
        Ok(()) => {
            st.end_trace(tr);
            Ok(())
        }
    }
}

fn side_name(s: Side) -> &'static str {
    match s {
        Side::Composite | Side::DesiredComposite => "composite",
        Side::Environment => "environment",
    }
}

/// Renders one template; `None` when it could not be rendered (a Warning says why).
fn render_template(
    st: &mut State<'_>,
    t: &Template,
    index: usize,
    patches: &[&Patch],
    owner: &metadata::Owner,
    found: Option<Option<&ObservedResource>>,
) -> Result<Option<Value>> {
    let name = t.name.as_str();
    let request = st.request;
    let observed = found
        .unwrap_or_else(|| observed_for(request, &st.xr, t, index))
        .map(|o| &o.resource);
    let mut desired = base(t, observed).map_err(|e| e.with_source(t.source.owner().to_string()))?;
    // Base name and namespace are replaced by the observed ones (or dropped).
    let (oname, ons) = match observed {
        Some(o) => (
            metadata::meta_str(o, "name"),
            metadata::meta_str(o, "namespace"),
        ),
        None => ("", ""),
    };
    metadata::set_name_and_namespace(&mut desired, oname, ons);

    // v1.14: every XR-sourced patch first, then every environment patch.
    let mut rendered = patch_group(st, name, patches, true, &mut desired);
    rendered &= patch_group(st, name, patches, false, &mut desired);
    // Metadata is rendered even after a patch failed, so both can warn.
    let tname = t.named.then_some(name);
    if let Err(e) = metadata::render(&mut desired, owner, tname) {
        st.warn(
            e.wrap(format!(
                "cannot render metadata for composed resource {}",
                quote(name)
            ))
            .message()
            .to_owned(),
            Some(name),
        );
        rendered = false;
    }
    Ok(rendered.then_some(desired))
}

/// The template's base, which may not change the kind of what is observed.
fn base(t: &Template, observed: Option<&Value>) -> Result<Value> {
    let name = t.name.as_str();
    let Some(base) = &t.base else {
        return Err(Error::new(
            crate::error::ErrorKind::InvalidComposition,
            format!(
                "cannot parse base template of composed resource {}: unexpected end of JSON input",
                quote(name)
            ),
        )
        .with_resource(name));
    };
    if let Some(o) = observed {
        let text =
            |(group, version, kind): (&str, &str, &str)| format!("{group}/{version}, Kind={kind}");
        let ((was, was_empty), (now, _)) = (gvk(o), gvk(base));
        // Equal parts write equal texts; only differing ones are written to compare.
        if !was_empty && was != now && text(was) != text(now) {
            return Err(Error::new(
                crate::error::ErrorKind::Render,
                format!(
                    "cannot parse base template of composed resource {}: cannot change the kind of a composed resource from {} to {} (possible composed resource template mismatch)",
                    quote(name),
                    text(was),
                    text(now)
                ),
            )
            .with_resource(name));
        }
    }
    // A copy with room for the `metadata` every composed resource is given.
    Ok(match &**base {
        Value::Object(m) if m.get("metadata").is_none() => {
            let mut members = Vec::with_capacity(m.len() + 1);
            members.extend(m.iter().map(|(k, v)| (k.clone(), v.clone())));
            Value::Object(Map::from_sorted(members))
        }
        other => other.clone(),
    })
}

/// An object's group, version and kind, and whether it names neither an
/// apiVersion nor a kind.
fn gvk(v: &Value) -> ((&str, &str, &str), bool) {
    let api = v.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = v.get("kind").and_then(Value::as_str).unwrap_or("");
    let (group, version) = api.rsplit_once('/').unwrap_or(("", api));
    ((group, version, kind), api.is_empty() && kind.is_empty())
}

/// Runs one group of a template's patches in order: those reading the XR
/// (`from_composite`), or the environment ones. The first failure is a
/// warning and stops the group; returns whether none failed.
fn patch_group(
    st: &mut State<'_>,
    name: &str,
    patches: &[&Patch],
    from_composite: bool,
    desired: &mut Value,
) -> bool {
    let label = if from_composite {
        "FromComposite"
    } else {
        "FromEnvironment"
    };
    let in_group = |p: &Patch| {
        if from_composite {
            p.kind.reads_composite()
        } else {
            p.kind.environment()
        }
    };
    for (i, p) in patches.iter().enumerate() {
        if !in_group(p) {
            continue;
        }
        let to_env = p.kind.writes_environment();
        let (from_name, to_name) = match (from_composite, to_env) {
            (true, _) => ("composite", "composed"),
            (false, false) => ("environment", "composed"),
            (false, true) => ("composed", "environment"),
        };
        let mut tr = st.start_trace(Some(name), i, p, from_name, to_name);
        let res = if from_composite {
            patch::apply(p, &st.xr, desired, SEM, tr.as_mut())
        } else if to_env {
            patch::apply(p, desired, &mut st.env, SEM, tr.as_mut())
        } else {
            patch::apply(p, &st.env, desired, SEM, tr.as_mut())
        };
        match res {
            Ok(()) => st.end_trace(tr),
            Err(e) if e.is_not_found() && p.policy.optional() => {
                if let Some(t) = tr.as_mut() {
                    t.finish(Outcome::Skipped, skip_reason(&e));
                }
                st.end_trace(tr);
            }
            Err(e) => {
                if let Some(t) = tr.as_mut() {
                    let why = if e.is_not_found() {
                        "the source is missing and policy.fromFieldPath is Required: the resource is not rendered"
                    } else {
                        "the resource is not rendered"
                    };
                    t.finish(Outcome::Failed, why);
                }
                st.end_trace(tr);
                let msg = e
                    .wrap(format!(
                        "cannot apply the {} patch at index {i}",
                        quote(p.kind.as_str())
                    ))
                    .wrap(format!(
                        "cannot render {label} patches for composed resource {}",
                        quote(name)
                    ));
                st.warn(msg.message().to_owned(), Some(name));
                let rest = patches.iter().enumerate().skip(i + 1);
                st.trace_not_run(
                    Some(name),
                    rest.filter(|(_, q)| in_group(q)),
                    "an earlier patch failed",
                );
                return false;
            }
        }
    }
    true
}

/// Why a patch with a missing Optional source was skipped.
pub(super) fn skip_reason(e: &Error) -> String {
    format!(
        "the source is missing and policy.fromFieldPath is Optional: the patch is skipped ({})",
        e.message()
    )
}

/// The observed resource of a template when its name settles it (found by
/// name, or not observed and named); `None` when it depends on the XR's
/// resource references, which ToComposite patches may change.
fn observed_by_name<'r>(
    request: &'r Request,
    t: &Template,
) -> Option<Option<&'r ObservedResource>> {
    match request.observed.resources.get(&t.name) {
        Some(o) => Some(Some(o)),
        None if t.named => Some(None),
        None => None,
    }
}

/// The observed resource of a template: by template name; for anonymous
/// templates also by position, through the XR's `spec.resourceRefs` (the
/// resource whose apiVersion, kind and name match the reference).
fn observed_for<'r>(
    request: &'r Request,
    xr: &Value,
    t: &Template,
    index: usize,
) -> Option<&'r ObservedResource> {
    if let Some(found) = observed_by_name(request, t) {
        return found;
    }
    let r = xr
        .get("spec")?
        .get("resourceRefs")?
        .as_array()?
        .get(index)?;
    let field = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    let name = field(r, "name");
    if name.is_empty() {
        return None;
    }
    request.observed.resources.values().find(|o| {
        metadata::meta_str(&o.resource, "name") == name
            && field(&o.resource, "kind") == field(r, "kind")
            && field(&o.resource, "apiVersion") == field(r, "apiVersion")
    })
}

#[cfg(test)]
mod tests {
    use super::first_member;
    use crate::fieldpath::{FieldPath, Segment};

    /// The member named first is the field path parser's first segment.
    #[test]
    fn first_member_is_the_first_parsed_segment() {
        for p in [
            "status.atProvider.id",
            "status",
            "spec[a.b]",
            "'spec'.x",
            "\"spec\"[0]",
            "''.x",
            "a'b.c",
            "*.x",
            "0.x",
            "[status].x",
            ".x",
            "",
            "]x",
        ] {
            let parsed = FieldPath::parse(p).ok();
            let first = parsed.as_ref().and_then(|f| f.segments().first());
            match first_member(p) {
                Some(m) => {
                    if let Some(s) = first {
                        assert_eq!(s, &Segment::Field(m.to_owned()), "{p}");
                    }
                }
                // Only paths that do not start with a field fall back.
                None => assert!(
                    !matches!(first, Some(Segment::Field(_))) || p.starts_with('['),
                    "{p}"
                ),
            }
        }
    }
}
