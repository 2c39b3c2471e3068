//! Change review: what applying an XR or claim (or rendering a live one with another
//! Composition) would change in the objects it composes, read from a live cluster or from
//! exported objects ([`objects`]).
//!
//! [`review`] takes one XR or claim and returns its [`XrReview`]: the XR (and claim) and every
//! composed resource of the whole tree, nested XRs' included under their own names, as added,
//! modified or removed, compared as the API server would store them ([`stored`]). It never
//! fails: a problem with one XR is in its `errors`, so a caller reviews many XRs in turn.

pub(crate) mod ignore;
pub(crate) mod objects;
pub(crate) mod owned;
pub(crate) mod report;
pub(crate) mod stored;
pub(crate) mod tree;
pub(crate) mod write;

use std::collections::BTreeSet;

use anyhow::{anyhow, bail};
use serde_json::{Value, json};

pub(crate) use ignore::IgnorePaths;
pub(crate) use objects::Objects;
pub(crate) use report::XrReview;

use objects::Definitions;
use report::{ChangeType, Compared, Identity, ResourceChange, Warning};
use stored::DryRun;
use tree::{Observed, RenderInputs};

use crate::cluster::str_at;

/// How to review.
#[derive(Debug, Clone)]
pub(crate) struct ReviewOptions {
    /// A Composition to render the XR with instead of the one the cluster chooses.
    pub(crate) composition: Option<Value>,
    /// How deep nested XRs are followed (the top XR is level 1).
    pub(crate) depth_limit: u32,
    pub(crate) ignore: IgnorePaths,
    /// Ask a live API server for the stored form (server-side dry run).
    pub(crate) dry_run: bool,
}

/// Reviews one XR or claim (`input`: as a file gives it, or a live object). `origin` names
/// where it came from in the report.
pub(crate) async fn review(
    objects: &mut Objects,
    input: &Value,
    origin: &str,
    opts: &ReviewOptions,
) -> XrReview {
    prepare(objects, input, origin, opts).await.finish().await
}

/// A review up to its server-side dry runs: everything read and rendered, the dry runs still to
/// send. A caller reviewing many XRs prepares them in turn (they share the object source) and
/// finishes many at once, so their dry runs travel together instead of one round trip after
/// another.
pub(crate) struct Prepared {
    r: XrReview,
    targets: Vec<Target>,
    removed: Vec<ResourceChange>,
    ignore: IgnorePaths,
}

/// A desired object, its live counterpart and how the server's stored form is to be learnt.
struct Target {
    id: Identity,
    resource: String,
    live: Option<Value>,
    dry_run: Option<DryRun>,
    /// The prediction, used when there is no dry run or the server cannot answer it.
    predicted: Value,
}

/// Prepares the review of one XR or claim (see [`review`]).
pub(crate) async fn prepare(
    objects: &mut Objects,
    input: &Value,
    origin: &str,
    opts: &ReviewOptions,
) -> Prepared {
    let mut p = Prepared {
        r: XrReview {
            xr: Identity::of(input),
            origin: origin.to_string(),
            ..XrReview::default()
        },
        targets: Vec::new(),
        removed: Vec::new(),
        ignore: opts.ignore.clone(),
    };
    if let Err(e) = review_into(objects, input, opts, &mut p).await {
        p.fail(&e);
    }
    p
}

impl Prepared {
    /// A failed XR's diffs are withheld: they may be incomplete.
    fn fail(&mut self, e: &anyhow::Error) {
        self.r.errors.push(format!("{e:#}"));
        self.r.changes.clear();
        self.r.unchanged = 0;
        self.targets.clear();
        self.removed.clear();
    }

    /// Sends the dry runs (together) and compares every desired object in its stored form.
    pub(crate) async fn finish(mut self) -> XrReview {
        let runs = self.targets.iter_mut().map(|t| t.dry_run.take());
        let answers = futures::future::join_all(runs.map(|d| async move {
            match d {
                Some(d) => d.run().await,
                None => Ok(None),
            }
        }))
        .await;
        let targets = std::mem::take(&mut self.targets);
        for (t, answer) in targets.into_iter().zip(answers) {
            let (after, how) = match answer {
                Ok(Some(v)) => (v, Compared::DryRun),
                Ok(None) => (t.predicted, Compared::CrdDefaults),
                Err(e) => {
                    self.fail(&e);
                    return self.r;
                }
            };
            self.compare(t.id, t.resource, t.live.as_ref(), &after, how);
        }
        self.r.changes.append(&mut self.removed);
        self.r
    }

    /// Compares one desired object, in its stored form, with its live counterpart.
    fn compare(
        &mut self,
        id: Identity,
        resource: String,
        live: Option<&Value>,
        after: &Value,
        how: Compared,
    ) {
        let after = self.ignore.normalize(after);
        let before = live.map(|l| self.ignore.normalize(l));
        let change = match &before {
            None => ChangeType::Added,
            Some(b) if *b == after => {
                self.r.unchanged += 1;
                return;
            }
            Some(_) => ChangeType::Modified,
        };
        self.r.changes.push(ResourceChange {
            change,
            id,
            resource,
            before,
            after: Some(after),
            compared: Some(how),
        });
    }
}

/// What is rendered for the input, and the live objects it is compared with.
struct Top {
    /// The XR (or a claim without a live XR) sent to the engine.
    render: Value,
    xr_option: Option<String>,
    live_xr: Option<Value>,
    /// The claim: as given, and as it is.
    claim: Option<(Value, Option<Value>)>,
}

async fn review_into(
    objects: &mut Objects,
    input: &Value,
    opts: &ReviewOptions,
    p: &mut Prepared,
) -> anyhow::Result<()> {
    let r = &mut p.r;
    let defs = objects.definitions().await?;
    let top = resolve(objects, &defs, input, &mut r.warnings).await?;
    let observed = match &top.live_xr {
        Some(x) => tree::observe(objects, &defs, x, opts.depth_limit, &mut r.warnings).await?,
        None => Vec::new(),
    };
    let secrets = tree::connection_secrets(objects, &observed).await?;
    let request = tree::request(&RenderInputs {
        top: &top.render,
        xr_option: top.xr_option.clone(),
        defs: &defs,
        composition: opts.composition.as_ref(),
        observed: &observed,
        secrets: &secrets,
        depth_limit: opts.depth_limit,
    });
    let output = crate::cluster::render::render(&request)?;
    if let Some(e) = output.get("error") {
        bail!("render failed: {}", str_at(e, "/message"));
    }
    for res in output
        .get("results")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let msg = str_at(res, "/message");
        match str_at(res, "/severity") {
            "Fatal" => bail!("render failed: {msg}"),
            "Warning" => {
                let on = str_at(res, "/resource");
                r.warnings
                    .push(Warning::new(format!("render: {msg}"), &[("resource", on)]));
            }
            _ => {}
        }
    }

    let mut targets: Vec<Desired> = Vec::new();
    if let Some((claim, live)) = &top.claim {
        targets.push(Desired {
            object: claim.clone(),
            live: live.clone(),
            resource: String::new(),
            owner: None,
        });
    }
    let composite = output
        .get("composite")
        .filter(|c| c.is_object())
        .ok_or_else(|| anyhow!("the render returned no composite resource"))?;
    targets.push(Desired {
        object: composite.clone(),
        live: top.live_xr.clone(),
        resource: String::new(),
        owner: None,
    });
    collect_desired(&output, "", composite, &mut targets, &observed);

    let mut seen = BTreeSet::new();
    for t in &mut targets {
        if let Some(m) = t.object.as_object_mut() {
            m.remove("status");
        }
        let id = Identity::of(&t.object);
        seen.insert(id.key());
        if t.live.is_none() && !str_at(&t.object, "/metadata/name").is_empty() {
            let ns = Some(id.namespace.as_str()).filter(|n| !n.is_empty());
            t.live = objects.get(&id.api_version, &id.kind, ns, &id.name).await?;
        }
        if let (Some(live), Some(owner)) = (&t.live, &t.owner) {
            check_owner(live, &t.object, owner, &id, &mut r.warnings);
        }
        let (dry_run, predicted) =
            stored::plan(objects, &defs, t.live.as_ref(), &t.object, opts.dry_run).await?;
        p.targets.push(Target {
            predicted,
            id,
            resource: std::mem::take(&mut t.resource),
            live: t.live.take(),
            dry_run,
        });
    }
    for o in observed {
        let id = Identity::of(&o.object);
        if !seen.contains(&id.key()) {
            p.removed.push(ResourceChange {
                change: ChangeType::Removed,
                id,
                resource: String::new(),
                before: Some(opts.ignore.normalize(&o.object)),
                after: None,
                compared: None,
            });
        }
    }
    Ok(())
}

/// An object the render desires, where it is in the tree, and its live counterpart.
struct Desired {
    object: Value,
    live: Option<Value>,
    /// Template names from the top XR.
    resource: String,
    /// The XR that composes it (none for the top XR and claim).
    owner: Option<Identity>,
}

/// The composed resources of `output` (and of its nested XRs), each paired with the observed
/// object of the same identity.
fn collect_desired(
    output: &Value,
    prefix: &str,
    composite: &Value,
    out: &mut Vec<Desired>,
    observed: &[Observed],
) {
    let owner = Identity::of(composite);
    let Some(resources) = output.get("resources").and_then(Value::as_object) else {
        return;
    };
    for (name, entry) in resources {
        let Some(obj) = entry.get("resource").filter(|r| r.is_object()) else {
            continue;
        };
        let path = format!("{prefix}{name}");
        let key = Identity::of(obj).key();
        let live = observed
            .iter()
            .find(|o| Identity::of(&o.object).key() == key)
            .map(|o| o.object.clone());
        out.push(Desired {
            object: obj.clone(),
            live,
            resource: path.clone(),
            owner: Some(owner.clone()),
        });
        if let Some(nested) = entry.get("nested") {
            collect_desired(nested, &format!("{path}/"), obj, out, observed);
        }
    }
}

/// Finds what the input stands for: an XR (as it is in the cluster, if it is), or a claim and
/// the XR it is bound to.
async fn resolve(
    objects: &mut Objects,
    defs: &Definitions,
    input: &Value,
    warnings: &mut Vec<Warning>,
) -> anyhow::Result<Top> {
    let id = Identity::of(input);
    if id.api_version.is_empty() || id.kind.is_empty() {
        bail!("the input has no apiVersion or kind");
    }
    let name = str_at(input, "/metadata/name");
    let ns = Some(id.namespace.as_str()).filter(|n| !n.is_empty());
    let live = match name {
        "" => None,
        n => objects.get(&id.api_version, &id.kind, ns, n).await?,
    };
    if let Some(l) = &live
        && l.pointer("/metadata/deletionTimestamp").is_some()
    {
        warnings.push(Warning::new(
            "The live object is being deleted; the diff compares with an object that is going away",
            &[("resource", &id.label())],
        ));
    }
    let is_claim = defs.xrd_of(&id.api_version, &id.kind, true).is_some()
        && defs.xrd_of(&id.api_version, &id.kind, false).is_none();
    if !is_claim {
        let render = match &live {
            Some(l) => tree::merge(l, input),
            None => input.clone(),
        };
        let xr_option = (!name.is_empty()).then(|| format!("{}/{name}", id.kind));
        return Ok(Top {
            render,
            xr_option,
            live_xr: live,
            claim: None,
        });
    }
    let claim = match &live {
        Some(l) => tree::merge(l, input),
        None => input.clone(),
    };
    let reference = claim.pointer("/spec/resourceRef").cloned();
    let live_xr = match &reference {
        Some(r) => {
            let (av, kind, xr_name) = (
                str_at(r, "/apiVersion"),
                str_at(r, "/kind"),
                str_at(r, "/name"),
            );
            let found = objects.get(av, kind, None, xr_name).await?;
            if found.is_none() {
                warnings.push(Warning::new(
                    "The claim's composite resource does not exist; it is diffed as though Crossplane will create it",
                    &[("claim", &id.label()), ("xr", &format!("{kind}/{xr_name}"))],
                ));
            }
            found
        }
        None => None,
    };
    let (render, xr_option) = match &live_xr {
        Some(x) => (
            tree::sync_claim(x, &claim),
            Some(format!(
                "{}/{}",
                str_at(x, "/kind"),
                str_at(x, "/metadata/name")
            )),
        ),
        // The engine renders a claim without its XR as the composite it gets.
        None => (claim.clone(), None),
    };
    Ok(Top {
        render,
        xr_option,
        live_xr,
        claim: Some((input.clone(), live)),
    })
}

/// Warns when a live object belongs to another XR than the one that would compose it: by its
/// controller reference, else by its `crossplane.io/composite` label (which names the top XR).
fn check_owner(
    live: &Value,
    desired: &Value,
    owner: &Identity,
    id: &Identity,
    warnings: &mut Vec<Warning>,
) {
    let controller = live
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|o| o.get("controller") == Some(&json!(true)));
    const LABEL: &str = "/metadata/labels/crossplane.io~1composite";
    let (current, new) = match controller {
        Some(c) => {
            let current = (str_at(c, "/kind"), str_at(c, "/name"));
            if current == (owner.kind.as_str(), owner.name.as_str()) {
                return;
            }
            (format!("{}/{}", current.0, current.1), owner.label())
        }
        None => match (str_at(live, LABEL), str_at(desired, LABEL)) {
            ("", _) | (_, "") => return,
            (a, b) if a == b => return,
            (a, b) => (a.to_string(), b.to_string()),
        },
    };
    warnings.push(Warning::new(
        "Resource already belongs to another composite. Applying this diff will assume ownership!",
        &[
            ("currentOwner", &current),
            ("newOwner", &new),
            ("resource", &id.label()),
        ],
    ));
}
