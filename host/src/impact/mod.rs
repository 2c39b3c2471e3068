//! Composition impact analysis: which composite resources a new or changed Composition reaches
//! once applied ([`adopt`]), narrowed as the user asks ([`scope`]), and what rendering each with
//! it would change (the per-XR review), summed up in one report ([`report`]).
//!
//! Reads are batched by the object source: the XRs, their claims and every composed kind are
//! listed once each, however many XRs there are; renders run on one kept engine instance.

pub(crate) mod adopt;
pub(crate) mod report;
pub(crate) mod scope;

use anyhow::bail;
use futures::StreamExt as _;
use serde_json::Value;

use crate::cluster::str_at;
use crate::review::{Objects, ReviewOptions, XrReview};
use adopt::{Adoption, Context, LeftOut, Verdict};
use scope::{Composite, ObjectRef, Scope};

/// What to analyse.
pub(crate) struct ImpactOptions {
    /// The Composition as it will be applied.
    pub(crate) composition: Value,
    pub(crate) scope: Scope,
    pub(crate) include_manual: bool,
    /// How each adopting XR is reviewed; its `composition` is set to the one analysed.
    pub(crate) review: ReviewOptions,
}

/// A composite that renders with the Composition, and its review.
pub(crate) struct Analysed {
    pub(crate) xr: ObjectRef,
    pub(crate) claim: Option<ObjectRef>,
    pub(crate) why: Adoption,
    /// Only --include-manual put it here: Crossplane keeps it on its pinned revision.
    pub(crate) manual: bool,
    pub(crate) review: XrReview,
}

/// A composite that does not render with the Composition.
pub(crate) struct Skipped {
    pub(crate) xr: Option<ObjectRef>,
    pub(crate) claim: Option<ObjectRef>,
    pub(crate) why: LeftOut,
}

/// The whole analysis.
pub(crate) struct Impact {
    /// The Composition's name.
    pub(crate) composition: String,
    /// Where the objects were read.
    pub(crate) origin: String,
    pub(crate) analysed: Vec<Analysed>,
    pub(crate) left_out: Vec<Skipped>,
}

/// Reviews whose dry runs are sent at once.
const IN_FLIGHT: usize = 16;

/// Finds the composites of the Composition's type, decides which adopt it and reviews those;
/// `progress(done, total)` is called before the first review and after each.
///
/// # Errors
/// The Composition has no `compositeTypeRef`; the objects cannot be read; a `--resource` names
/// no composite. A failed review is not an error: it is in that XR's review.
pub(crate) async fn analyse(
    objects: &mut Objects,
    opts: &ImpactOptions,
    mut progress: impl FnMut(usize, usize),
) -> anyhow::Result<Impact> {
    let comp = &opts.composition;
    let (api_version, kind) = (
        str_at(comp, "/spec/compositeTypeRef/apiVersion"),
        str_at(comp, "/spec/compositeTypeRef/kind"),
    );
    if api_version.is_empty() || kind.is_empty() {
        bail!(
            "Composition {:?} has no spec.compositeTypeRef.apiVersion and kind: which XRs it composes is unknown",
            str_at(comp, "/metadata/name")
        );
    }
    let defs = objects.definitions().await?;
    let xrd = defs.xrd_of(api_version, kind, false).cloned();
    let xrs = objects.list(api_version, kind, None).await?;
    let claim_kind = xrd
        .as_ref()
        .map(|x| str_at(x, "/spec/claimNames/kind"))
        .unwrap_or("");
    let claims = match claim_kind {
        "" => Vec::new(),
        k => objects.list(api_version, k, None).await?,
    };
    let composites = opts
        .scope
        .narrow(scope::composites(xrs, claims))
        .map_err(|e| crate::io::input_error!("{e}"))?;
    let cx = Context {
        composition: comp,
        compositions: &defs.compositions,
        xrd: xrd.as_ref(),
        include_manual: opts.include_manual,
    };
    let mut todo = Vec::new();
    let mut left_out = Vec::new();
    for c in composites {
        match adopt::composite_verdict(&cx, &c) {
            Verdict::Adopts { why, manual } => todo.push((c, why, manual)),
            Verdict::LeftOut(why) => left_out.push(skipped(&c, why)),
        }
    }
    let review = ReviewOptions {
        composition: Some(comp.clone()),
        ..opts.review.clone()
    };
    let total = todo.len();
    progress(0, total);
    // Renders run in turn (they read the shared object source); the dry runs of up to
    // IN_FLIGHT reviews travel together, so a thousand XRs do not wait for three thousand round
    // trips one after another.
    let mut pending = Vec::with_capacity(total);
    for (c, why, manual) in todo {
        let Some(xr) = &c.xr else { continue };
        let xr_ref = ObjectRef::of(xr);
        let origin = format!("the cluster's {}", xr_ref);
        let prepared = crate::review::prepare(objects, xr, &origin, &review).await;
        let claim = c.claim.as_ref().map(ObjectRef::of);
        pending.push(async move {
            let review = prepared.finish().await;
            Analysed {
                xr: xr_ref,
                claim,
                why,
                manual,
                review,
            }
        });
    }
    let total = pending.len();
    let mut finished = futures::stream::iter(pending).buffered(IN_FLIGHT);
    let mut analysed = Vec::with_capacity(total);
    while let Some(a) = finished.next().await {
        analysed.push(a);
        progress(analysed.len(), total);
    }
    Ok(Impact {
        composition: str_at(comp, "/metadata/name").into(),
        origin: objects.origin(),
        analysed,
        left_out,
    })
}

fn skipped(c: &Composite, why: LeftOut) -> Skipped {
    Skipped {
        xr: c.xr.as_ref().map(ObjectRef::of),
        claim: c.claim.as_ref().map(ObjectRef::of),
        why,
    }
}
