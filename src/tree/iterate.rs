//! The eventual state: render, let the simulated providers act on what was desired, observe
//! it, and render again, until the desired state stops changing (`options.iterations`,
//! `options.untilReady`). A state seen before that is not the one just before is an
//! oscillation: an error naming the fields that flip and the patches that write them.

use crate::compose::{Output, Request, Severity, UNTIL_READY_ITERATIONS};
use crate::error::{Error, ErrorKind, Result};
use crate::transform::Regexps;
use crate::value::{Map, Value};

use super::changes::{self, Object};
use super::nest::{self, Visited};
use super::simulate;

pub(crate) fn run(request: &Request, regexps: &Regexps) -> Result<Output> {
    let Some(level) = &request.tree else {
        return crate::compose::render_with(request, regexps);
    };
    let first = &level.documents;
    let opts = first.tree.clone();
    let max = opts.iterations.unwrap_or(UNTIL_READY_ITERATIONS);
    let rules = simulate::rules(&first.documents)?;
    let now = request.options.now.clone();
    let mut current = request.clone();
    let mut states: Vec<Vec<Object>> = Vec::new();
    let mut entries: Vec<Value> = Vec::new();
    for i in 1..=max {
        let (mut out, visited) = nest::render_levels(&current, regexps)?;
        simulations_used(&mut out);
        let objects = changes::flatten(&out);
        let changed = states.last().map(|prev| changes::between(prev, &objects));
        entries.push(entry(i, &out, changed.as_deref(), opts.keep_iterations));
        let seen = states.iter().position(|s| *s == objects);
        let fatal = out.results.iter().any(|r| r.severity == Severity::Fatal);
        match seen {
            // Nothing changed: this is where the tree settles.
            Some(j) if j + 1 == states.len() => {
                out.iterations = Some(Value::Array(entries));
                if opts.until_ready && !out.ready {
                    return Err(not_ready(i, &out));
                }
                return Ok(out);
            }
            Some(j) => {
                let flips = changes::between(&states[j], &states[j + 1]);
                return Err(oscillation(i, j + 1, &flips, &current, &out));
            }
            None => {}
        }
        if fatal || i == max {
            out.iterations = Some(Value::Array(entries));
            if opts.until_ready && !fatal {
                return Err(Error::new(
                    ErrorKind::Render,
                    format!(
                        "the composition did not settle within {max} iterations (options.iterations); \
                         the last one still changed {} fields",
                        changed.map_or(0, |c| c.len())
                    ),
                ));
            }
            return Ok(out);
        }
        states.push(objects);
        let docs = next_documents(&current, &out, &visited, &rules, now.as_deref())?;
        let options = current
            .tree
            .as_ref()
            .map(|l| l.documents.options.clone())
            .unwrap_or_default();
        let mut next = Request::from_documents(docs, options)?;
        next.with_inputs(first.context.clone(), first.extra_resources.clone());
        current = next;
    }
    Err(Error::new(ErrorKind::Render, "no iteration ran"))
}

/// The Simulation documents are read by the iterations: they are no unused documents.
fn simulations_used(out: &mut Output) {
    let Some(Value::Object(inputs)) = &mut out.inputs else {
        return;
    };
    if let Some(Value::Array(unused)) = inputs.get_mut("unused") {
        unused.retain(|u| {
            !(u.get("kind").and_then(Value::as_str) == Some(simulate::KIND)
                && u.get("why")
                    .and_then(Value::as_str)
                    .is_some_and(|w| w.starts_with("a Simulation")))
        });
    }
}

/// One entry of the Output's `iterations`.
fn entry(i: usize, out: &Output, changed: Option<&[Value]>, keep: bool) -> Value {
    let mut m = Map::new();
    m.insert(
        "iteration".into(),
        Value::Int(i64::try_from(i).unwrap_or(i64::MAX)),
    );
    m.insert("ready".into(), Value::Bool(out.ready));
    let changes = match changed {
        Some(c) => c.to_vec(),
        // The first render creates everything it desires.
        None => changes::between(&[], &changes::flatten(out)),
    };
    m.insert("changes".into(), Value::Array(changes));
    if keep {
        let doc = Value::from_json(&out.to_json()).unwrap_or_default();
        m.insert("output".into(), doc);
    }
    Value::Object(m)
}

fn not_ready(i: usize, out: &Output) -> Error {
    let why = changes::ready_message(&out.composite);
    Error::new(
        ErrorKind::Render,
        format!("the composition settled after {i} iterations but is not ready: {why}"),
    )
}

/// The error of a tree that comes back to an earlier state.
fn oscillation(i: usize, j: usize, flips: &[Value], request: &Request, out: &Output) -> Error {
    let docs = request
        .tree
        .as_ref()
        .map(|l| l.documents.documents.as_slice())
        .unwrap_or_default();
    let fields: Vec<String> = flips
        .iter()
        .map(|f| super::writers::describe_flip(f, docs, out))
        .collect();
    Error::new(
        ErrorKind::Render,
        format!(
            "the composition does not settle: iteration {i} desires what iteration {j} desired, \
             so it flips between {} states; fields that flip: {}",
            i - j,
            fields.join("; ")
        ),
    )
}

/// The documents the next iteration observes: the XR as this render left it, and every
/// desired object as the simulated providers leave it, in the places of those they replace.
fn next_documents(
    request: &Request,
    out: &Output,
    visited: &[Visited],
    rules: &[simulate::Rule],
    now: Option<&str>,
) -> Result<Vec<Value>> {
    let Some(level) = &request.tree else {
        return Ok(Vec::new());
    };
    let mut docs = level.documents.documents.clone();
    let root = visited.first().map_or(level.xr_index, |v| v.xr_index);
    let root_xr = super::merge::over(&request.xr, &out.composite);
    // A claim stays what the user gave, bound to its composite, which is observed from now on.
    let root = if crate::documents::is_claim(&docs, &docs[root]) {
        bind_claim(&mut docs[root], &root_xr);
        docs.push(root_xr);
        docs.len() - 1
    } else {
        docs[root] = root_xr;
        root
    };
    // Where each nested XR's object is put, by its place: its level's XR from then on.
    let mut placed: Vec<(Vec<String>, usize)> = Vec::new();
    for v in visited {
        let Some(level_out) = changes::output_at(out, &v.path) else {
            continue;
        };
        let xr_index = if v.path.is_empty() {
            root
        } else {
            match placed.iter().find(|(p, _)| *p == v.path) {
                Some((_, i)) => *i,
                None => continue,
            }
        };
        let mut refs = Vec::new();
        for r in &level_out.resources {
            let observed = v
                .observed_docs
                .iter()
                .find(|(n, _)| *n == r.name)
                .map(|(_, i)| *i);
            let seed = format!("{}/{}", v.seed, r.name);
            let object = match level_out.nested.iter().find(|(n, _)| *n == r.name) {
                Some((_, child)) => {
                    let mut x = child.composite.clone();
                    simulate::identify(&mut x, &seed);
                    x
                }
                None => {
                    simulate::provider(rules, observed.map(|i| &docs[i]), &r.resource, &seed, now)?
                }
            };
            refs.push(reference(&object));
            if let Some(secret) = simulate::connection_secret(rules, &object) {
                put_secret(&mut docs, secret);
            }
            let at = match observed {
                Some(i) => {
                    docs[i] = object;
                    i
                }
                None => {
                    docs.push(object);
                    docs.len() - 1
                }
            };
            let mut place = v.path.clone();
            place.push(r.name.clone());
            placed.push((place, at));
        }
        if let Some(xr) = docs.get_mut(xr_index) {
            set_refs(xr, refs);
        }
    }
    Ok(docs)
}

/// A claim bound to its composite (`spec.resourceRef`), as the claim controller leaves it.
fn bind_claim(claim: &mut Value, xr: &Value) {
    let Some(Value::Object(spec)) = claim
        .as_object_mut()
        .map(|m| m.get_or_insert_with("spec", || Value::Object(Map::new())))
    else {
        return;
    };
    spec.insert("resourceRef".into(), reference(xr));
}

/// `{apiVersion, kind, name}` of an object, as a resource reference.
fn reference(d: &Value) -> Value {
    let mut m = Map::new();
    for k in ["apiVersion", "kind"] {
        m.insert(k.into(), d.get(k).cloned().unwrap_or_default());
    }
    m.insert(
        "name".into(),
        d.get("metadata")
            .and_then(|m| m.get("name"))
            .cloned()
            .unwrap_or_default(),
    );
    Value::Object(m)
}

/// The XR's resource references (`spec.crossplane.resourceRefs` for a v2 XR).
fn set_refs(xr: &mut Value, refs: Vec<Value>) {
    let Some(root) = xr.as_object_mut() else {
        return;
    };
    let Value::Object(spec) = root.get_or_insert_with("spec", || Value::Object(Map::new())) else {
        return;
    };
    match spec.get_mut("crossplane") {
        Some(Value::Object(c)) => {
            c.insert("resourceRefs".into(), Value::Array(refs));
        }
        _ => {
            spec.insert("resourceRefs".into(), Value::Array(refs));
        }
    }
}

/// Puts a connection Secret in place of the one of its name, or after the documents.
fn put_secret(docs: &mut Vec<Value>, secret: Value) {
    let id = |d: &Value| {
        (
            d.get("apiVersion").cloned(),
            d.get("kind").cloned(),
            d.get("metadata").and_then(|m| m.get("name")).cloned(),
            d.get("metadata").and_then(|m| m.get("namespace")).cloned(),
        )
    };
    let want = id(&secret);
    match docs.iter().position(|d| id(d) == want) {
        Some(i) => docs[i] = secret,
        None => docs.push(secret),
    }
}
