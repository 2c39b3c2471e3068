//! Nested XRs: every composed resource of an XR type is rendered with its own Composition,
//! as the XR controller would compose it, down to the leaves.

use std::sync::Arc;

use crate::compose::{Documents, Level, Message, Output, Request, Severity, Top};
use crate::documents::levels;
use crate::error::{Error, ErrorKind, Result};
use crate::transform::Regexps;
use crate::value::Value;

/// What the walk down the tree carries: the way from the top, and what every level used.
struct Walk {
    /// `KIND/NAME (Composition NAME)` of each XR from the top to the current one.
    path: Vec<String>,
    /// The Compositions on the way (a nested XR whose Composition is one of them is a cycle).
    compositions: Vec<String>,
    /// Every document some level used.
    used: Vec<usize>,
    /// The nested XRs rendered (their document indexes).
    rendered: Vec<usize>,
    /// Documents a nested level saw and left unused, as its `inputs.unused` lists them.
    unused: Vec<Value>,
    /// The template names from the top XR to the current level.
    names: Vec<String>,
    /// Every level rendered, top first.
    visited: Vec<Visited>,
}

/// A level of the tree that was rendered.
pub(crate) struct Visited {
    /// The template names from the top XR down to this level's XR (empty: the top).
    pub(crate) path: Vec<String>,
    /// The XR's document index (past the documents: a nested XR not observed yet).
    pub(crate) xr_index: usize,
    /// Template name → the observed document paired with it.
    pub(crate) observed_docs: Vec<(String, usize)>,
    /// What the names the simulation generates below this level are drawn from.
    pub(crate) seed: String,
}

/// Renders a documents request's XR and, below it, every nested XR it composes.
pub(crate) fn render(request: &Request, regexps: &Regexps) -> Result<Output> {
    render_levels(request, regexps).map(|(out, _)| out)
}

/// [`render`], and the levels it rendered.
pub(crate) fn render_levels(
    request: &Request,
    regexps: &Regexps,
) -> Result<(Output, Vec<Visited>)> {
    let mut out = crate::compose::render_with(request, regexps)?;
    let Some(level) = &request.tree else {
        return Ok((out, Vec::new()));
    };
    let mut walk = Walk {
        path: vec![describe(request)],
        compositions: vec![composition_of(request)],
        used: level.used.clone(),
        rendered: vec![level.xr_index],
        unused: Vec::new(),
        names: Vec::new(),
        visited: vec![Visited {
            path: Vec::new(),
            xr_index: level.xr_index,
            observed_docs: level.observed_docs.clone(),
            seed: levels::name_or_generated(&request.xr),
        }],
    };
    descend(&mut out, level, regexps, &mut walk, 1)?;
    // Without nested levels the top level's report is already the whole tree's.
    if !out.nested.is_empty() || has_nested_docs(level) {
        report_unused(&mut out, &level.documents, &walk);
    }
    Ok((out, walk.visited))
}

fn has_nested_docs(level: &Level) -> bool {
    level.documents.owners.iter().any(Option::is_some)
}

/// Renders the nested XRs among `out`'s resources, and theirs.
fn descend(
    out: &mut Output,
    level: &Level,
    regexps: &Regexps,
    walk: &mut Walk,
    depth: usize,
) -> Result<()> {
    let shared = &level.documents;
    let candidates: Vec<(String, Value)> = out
        .resources
        .iter()
        .filter(|r| is_xr_type(&shared.documents, &r.resource))
        .map(|r| (r.name.clone(), r.resource.clone()))
        .collect();
    for (name, desired) in candidates {
        let observed = level
            .observed_docs
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, i)| *i);
        let label = display(&desired, observed.map(|i| &shared.documents[i]));
        if !has_composition(&shared.documents, &desired) {
            out.results.push(warning(
                format!(
                    "cannot render nested composite resource {label}: no Composition for its type \
                     ({}) was given, so its composed resources are not rendered",
                    type_of(&desired)
                ),
                &name,
            ));
            continue;
        }
        if depth >= shared.tree.depth_limit {
            return Err(Error::new(
                ErrorKind::Limit,
                format!(
                    "nested composite resources go deeper than options.depthLimit ({}): {} -> {label}",
                    shared.tree.depth_limit,
                    walk.path.join(" -> ")
                ),
            )
            .with_resource(name.clone()));
        }
        let child = render_child(level, &name, &desired, observed, &label)?;
        let composition = composition_of(&child);
        if let Some(at) = walk.compositions.iter().position(|c| *c == composition) {
            let mut cycle: Vec<String> = walk.path[at..].to_vec();
            cycle.push(format!("{label} (Composition {composition})"));
            return Err(Error::new(
                ErrorKind::InvalidComposition,
                format!(
                    "composition cycle: Composition {} composes itself again through nested \
                     composite resources: {}",
                    crate::go::quote(&composition),
                    cycle.join(" -> ")
                ),
            )
            .with_resource(name.clone()));
        }
        let mut child_out = crate::compose::render_with(&child, regexps)
            .map_err(|e| e.wrap(format!("cannot render nested composite resource {label}")))?;
        let Some(child_level) = &child.tree else {
            continue;
        };
        walk.used.extend(child_level.used.iter().copied());
        walk.rendered.push(child_level.xr_index);
        collect_unused(&mut child_out, shared, child_level.xr_index, walk);
        walk.path.push(describe(&child));
        walk.compositions.push(composition);
        walk.names.push(name.clone());
        walk.visited.push(Visited {
            path: walk.names.clone(),
            xr_index: child_level.xr_index,
            observed_docs: child_level.observed_docs.clone(),
            seed: format!("{}/{}", walk.visited[0].seed, walk.names.join("/")),
        });
        descend(&mut child_out, child_level, regexps, walk, depth + 1)?;
        walk.path.pop();
        walk.compositions.pop();
        walk.names.pop();
        out.nested.push((name, child_out));
    }
    Ok(())
}

/// The nested XR's own render request: its observed object with what its parent desires
/// applied over it, and the documents of its level.
fn render_child(
    level: &Level,
    name: &str,
    desired: &Value,
    observed: Option<usize>,
    label: &str,
) -> Result<Request> {
    let shared = &level.documents;
    let xr = match observed {
        Some(i) => super::merge::over(&shared.documents[i], desired),
        None => desired.clone(),
    };
    let index = observed.unwrap_or(shared.documents.len());
    let hidden = hidden_for(shared, index);
    let mut child = Request::from_level(Arc::clone(shared), hidden, Top::Nested(index, xr))
        .map_err(|e| {
            e.wrap(format!("cannot render nested composite resource {label}"))
                .with_resource(name.to_owned())
        })?;
    child.with_inputs(shared.context.clone(), shared.extra_resources.clone());
    Ok(child)
}

/// The documents a nested XR's level does not see: the other levels' (Crossplane's own objects
/// and Secrets are every level's).
fn hidden_for(shared: &Documents, xr: usize) -> Vec<bool> {
    shared
        .documents
        .iter()
        .zip(&shared.owners)
        .map(|(d, owner)| match owner {
            Some(o) => *o != xr,
            None => !levels::is_shared(d),
        })
        .collect()
}

/// Moves a nested level's `inputs.unused` out of its Output: the documents of its own that it
/// left unused are reported once, at the top.
fn collect_unused(out: &mut Output, shared: &Documents, xr: usize, walk: &mut Walk) {
    let Some(Value::Object(inputs)) = &mut out.inputs else {
        return;
    };
    let Some(Value::Array(unused)) = inputs.remove("unused") else {
        return;
    };
    for u in unused {
        let own = doc_index(&u).is_some_and(|i| shared.owners.get(i) == Some(&Some(xr)));
        if own {
            walk.unused.push(u);
        }
    }
}

/// The top level's `inputs.unused` less what a nested level used, with the nested levels' own
/// unused documents, and those of nested XRs that were not rendered.
fn report_unused(out: &mut Output, shared: &Documents, walk: &Walk) {
    let Some(Value::Object(inputs)) = &mut out.inputs else {
        return;
    };
    let index = doc_index;
    let mut unused: Vec<Value> = match inputs.remove("unused") {
        Some(Value::Array(a)) => a,
        _ => Vec::new(),
    };
    unused.retain(|u| index(u).is_none_or(|i| !walk.used.contains(&i)));
    unused.extend(walk.unused.iter().cloned());
    for (i, owner) in shared.owners.iter().enumerate() {
        if let Some(x) = owner
            && !walk.rendered.contains(x)
            && !walk.used.contains(&i)
        {
            unused.push(levels::unused_entry(&shared.documents, i, *x));
        }
    }
    crate::sort::sort_by(&mut unused, |a, b| index(a).cmp(&index(b)));
    inputs.insert("unused".into(), Value::Array(unused));
}

/// The `document` index of an `inputs.unused` entry.
fn doc_index(u: &Value) -> Option<usize> {
    match u.get("document") {
        Some(Value::Int(i)) => usize::try_from(*i).ok(),
        _ => None,
    }
}

fn warning(message: String, resource: &str) -> Message {
    Message {
        severity: Severity::Warning,
        message,
        resource: Some(resource.to_owned()),
        patch: None,
        field_path: None,
        source: None,
        step: None,
    }
}

/// Whether the object is of a type a Composition, revision or XRD given composes.
fn is_xr_type(docs: &[Value], d: &Value) -> bool {
    let (g, k) = (levels::group_of(d), levels::kind_of(d));
    crate::documents::composite_types(docs)
        .iter()
        .any(|(tg, tk)| *tg == g && *tk == k)
}

/// Whether a Composition or revision given composes the object's type.
fn has_composition(docs: &[Value], d: &Value) -> bool {
    let (g, k) = (levels::group_of(d), levels::kind_of(d));
    crate::documents::composition_types(docs)
        .iter()
        .any(|(tg, tk)| *tg == g && *tk == k)
}

fn type_of(d: &Value) -> String {
    format!("{}.{}", levels::kind_of(d), levels::group_of(d))
}

/// `"template" (KIND/NAME)`: the observed name when there is one, else what it will be generated from.
fn display(desired: &Value, observed: Option<&Value>) -> String {
    let d = observed.unwrap_or(desired);
    let name = levels::name_or_generated(d);
    format!("{}/{name}", levels::kind_of(d))
}

/// `KIND/NAME (Composition NAME)` of a level's XR.
fn describe(request: &Request) -> String {
    format!(
        "{}/{} (Composition {})",
        levels::kind_of(&request.xr),
        levels::name_or_generated(&request.xr),
        composition_of(request)
    )
}

/// The name of the Composition (or revision) the request renders.
fn composition_of(request: &Request) -> String {
    request
        .inputs
        .as_ref()
        .and_then(|i| i.get("composition"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}
