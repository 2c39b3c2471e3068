//! Sorting the documents by what they are, and the report of those left unused.

use std::borrow::{Borrow, Cow};

use super::ANNOTATION_RESOURCE_NAME;
use crate::error::Result;
use crate::value::{Map, Value};

use super::invalid;

const CROSSPLANE_GROUP: &str = "apiextensions.crossplane.io";

/// What a document turned out to be for this render.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Role {
    /// Not (yet) used; the reason it is not, once one is known.
    Unused(Option<String>),
    Xr,
    Claim,
    Xrd,
    Composition,
    Observed,
    ConnectionSecret,
    Environment,
    /// Belongs to another level of the tree (a nested XR's observed resources, or the
    /// parent's): not seen by this render at all.
    Elsewhere,
}

/// The documents and the role each plays. A document is the request's own, borrowed, unless
/// this level changed it (the XR a claim stands for, a nested XR with its parent's desires).
pub(crate) struct Catalog<'a> {
    pub(crate) docs: Vec<Cow<'a, Value>>,
    pub(crate) roles: Vec<Role>,
    pub(crate) claim: Option<usize>,
}

/// The indexes below `n` that `keep` accepts, in order: one copy of the collecting code
/// for every filter over the documents, where each closure would bring its own.
pub(crate) fn indexes(n: usize, keep: &mut dyn FnMut(usize) -> bool) -> Vec<usize> {
    (0..n).filter(|&i| keep(i)).collect()
}

impl<'a> Catalog<'a> {
    /// Marks a document as the Composition in use.
    pub(crate) fn mark_composition(&mut self, i: usize) {
        self.roles[i] = Role::Composition;
    }

    /// Checks that every document is an object with a kind.
    pub(crate) fn new(docs: Vec<Cow<'a, Value>>) -> Result<Catalog<'a>> {
        for (i, d) in docs.iter().enumerate() {
            if d.as_object().is_none() {
                return Err(invalid(format!(
                    "documents[{i}]: expected object, got {}",
                    d.go_type()
                ))
                .with_field_path(format!("documents[{i}]")));
            }
            if kind(d).is_empty() {
                return Err(invalid(format!("documents[{i}]: kind: required value"))
                    .with_field_path(format!("documents[{i}].kind")));
            }
        }
        let roles = vec![Role::Unused(None); docs.len()];
        Ok(Catalog {
            docs,
            roles,
            claim: None,
        })
    }

    /// The indexes of documents of a Crossplane kind (`Composition`, `EnvironmentConfig`, ...).
    pub(crate) fn crossplane(&self, kind_name: &str) -> Vec<usize> {
        indexes(self.docs.len(), &mut |i| {
            is_crossplane(&self.docs[i], kind_name)
        })
    }

    /// The indexes of `v1` Secrets.
    pub(crate) fn secrets(&self) -> Vec<usize> {
        indexes(self.docs.len(), &mut |i| is_secret(&self.docs[i]))
    }

    /// Whether document `i` is none of the kinds Crossplane itself defines, nor a Secret, and
    /// belongs to this level of the tree.
    fn is_plain(&self, i: usize) -> bool {
        let d = &self.docs[i];
        !is_secret(d) && !is_crossplane_api(d) && self.roles[i] != Role::Elsewhere
    }

    /// Hides the documents of other levels of the tree (`hidden[i]`).
    pub(crate) fn hide(&mut self, hidden: &[bool]) {
        for (role, &h) in self.roles.iter_mut().zip(hidden) {
            if h {
                *role = Role::Elsewhere;
            }
        }
    }

    /// The indexes of the documents this render used (not unused, not elsewhere).
    pub(crate) fn used(&self) -> Vec<usize> {
        indexes(self.docs.len(), &mut |i| {
            !matches!(self.roles[i], Role::Unused(_) | Role::Elsewhere)
        })
    }

    /// The XR: the one `options.xr` names, else the only object of a type a Composition or the
    /// XRD composes, else the only plain object that is not an observed resource or a claim.
    pub(crate) fn choose_xr(&mut self, named: Option<&str>) -> Result<usize> {
        let chosen = match named {
            Some(n) => self.named_xr(n)?,
            None => self.only_xr()?,
        };
        for other in self.candidates() {
            let why = format!(
                "another candidate for the composite resource; options.xr chose {}",
                display(&self.docs[chosen])
            );
            self.skip(other, why);
        }
        self.roles[chosen] = Role::Xr;
        Ok(chosen)
    }

    fn named_xr(&self, named: &str) -> Result<usize> {
        let Some((k, name)) = named.split_once('/') else {
            return Err(invalid(format!(
                "options.xr: {} is not KIND/NAME",
                crate::go::quote(named)
            ))
            .with_field_path("options.xr"));
        };
        let found = indexes(self.docs.len(), &mut |i| {
            self.is_plain(i) && kind(&self.docs[i]) == k && name_of(&self.docs[i]) == name
        });
        match found.as_slice() {
            [one] => Ok(*one),
            [] => Err(invalid(format!(
                "options.xr: no document is {named} (candidates: {})",
                self.list(&self.candidates())
            ))
            .with_field_path("options.xr")),
            many => Err(invalid(format!(
                "options.xr: {} documents are {named}: {}",
                many.len(),
                self.list(many)
            ))
            .with_field_path("options.xr")),
        }
    }

    fn only_xr(&self) -> Result<usize> {
        let candidates = self.candidates();
        match candidates.as_slice() {
            [one] => Ok(*one),
            [] => Err(invalid(
                "no composite resource among the documents: give the XR (an object that is not \
                 a Crossplane package object, a Secret or an annotated composed resource)",
            )),
            many => Err(invalid(format!(
                "{} documents could be the composite resource: {}; name one with options.xr \
                 (KIND/NAME)",
                many.len(),
                self.list(many)
            ))),
        }
    }

    /// The objects that could be the XR, most likely first: of a composite type, else any
    /// unannotated plain object that does not point at another (a claim).
    pub(crate) fn candidates(&self) -> Vec<usize> {
        let types = self.composite_types();
        let annotated = |i: usize| !annotation(&self.docs[i]).is_empty();
        let typed = indexes(self.docs.len(), &mut |i| {
            let d = &self.docs[i];
            self.is_plain(i) && types.iter().any(|(g, k)| *g == group(d) && *k == kind(d))
        });
        let unannotated: Vec<usize> = typed.iter().copied().filter(|&i| !annotated(i)).collect();
        if !unannotated.is_empty() {
            return unannotated;
        }
        // A claim of a type an XRD given offers stands for the composite it will have.
        let claims = indexes(self.docs.len(), &mut |i| {
            self.is_plain(i) && !annotated(i) && is_claim(&self.docs, &self.docs[i])
        });
        if !claims.is_empty() {
            return claims;
        }
        if !typed.is_empty() {
            return typed;
        }
        indexes(self.docs.len(), &mut |i| {
            self.is_plain(i)
                && !annotated(i)
                && at(&self.docs[i], &["spec", "resourceRef"]).is_none()
        })
    }

    /// (group, kind) of every type a Composition, CompositionRevision or XRD here composes.
    fn composite_types(&self) -> Vec<(&str, &str)> {
        composite_types(&self.docs)
    }

    /// The XRD defining the XR's kind (the first, if several do).
    pub(crate) fn find_xrd(&mut self, xr: usize) -> Option<usize> {
        let (g, k) = (group(&self.docs[xr]), kind(&self.docs[xr]));
        let xrds = self.crossplane("CompositeResourceDefinition");
        let found = xrds.iter().copied().find(|&i| {
            let d = &self.docs[i];
            str_at(d, &["spec", "group"]) == Some(g)
                && str_at(d, &["spec", "names", "kind"]) == Some(k)
        });
        for i in xrds {
            if Some(i) != found {
                self.roles[i] = Role::Unused(Some(format!(
                    "defines {}, not the XR's kind",
                    defined(&self.docs[i])
                )));
            }
        }
        found
    }

    /// A claim bound to the XR (its `spec.resourceRef` names the XR) is used with it.
    pub(crate) fn mark_claim(&mut self, xr: usize) {
        let (k, n) = (kind(&self.docs[xr]), name_of(&self.docs[xr]));
        let claim = (0..self.docs.len()).find(|&i| {
            self.is_plain(i)
                && i != xr
                && str_at(&self.docs[i], &["spec", "resourceRef", "kind"]) == Some(k)
                && str_at(&self.docs[i], &["spec", "resourceRef", "name"]) == Some(n)
        });
        if let Some(i) = claim {
            self.roles[i] = Role::Claim;
            self.claim = Some(i);
        }
    }

    /// Marks a document unused for `why` unless it is already used.
    pub(crate) fn skip(&mut self, i: usize, why: impl Into<String>) {
        if let Role::Unused(r) = &mut self.roles[i] {
            r.get_or_insert_with(|| why.into());
        }
    }

    /// `"NAME" (documents[i])`, comma-separated.
    pub(crate) fn list(&self, indexes: &[usize]) -> String {
        if indexes.is_empty() {
            return "none".into();
        }
        indexes
            .iter()
            .map(|&i| format!("{} (documents[{i}])", display(&self.docs[i])))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// `[{"document", "kind", "name", "why"}]` for every document the render does not use.
    pub(crate) fn unused(&self) -> Vec<Value> {
        let mut out = Vec::new();
        for (i, (d, role)) in self.docs.iter().zip(&self.roles).enumerate() {
            let Role::Unused(why) = role else { continue };
            let mut m = Map::new();
            m.insert(
                "document".into(),
                Value::Int(i64::try_from(i).unwrap_or(i64::MAX)),
            );
            m.insert("kind".into(), kind(d).into());
            m.insert("name".into(), name_of(d).into());
            let why = why.clone().unwrap_or_else(|| default_reason(d));
            m.insert("why".into(), why.into());
            out.push(Value::Object(m));
        }
        out
    }
}

/// Whether `d` is a claim of a type an XRD among `docs` offers.
pub(crate) fn is_claim<D: Borrow<Value>>(docs: &[D], d: &Value) -> bool {
    xrd_for(docs, d).is_some()
}

/// The XRD whose `spec.claimNames.kind` (in its group) is `claim`'s type.
pub(crate) fn xrd_for<'a, D: Borrow<Value>>(docs: &'a [D], claim: &Value) -> Option<&'a Value> {
    docs.iter().map(Borrow::borrow).find(|x| {
        is_crossplane(x, "CompositeResourceDefinition")
            && str_at(x, &["spec", "group"]) == Some(group(claim))
            && str_at(x, &["spec", "claimNames", "kind"]) == Some(kind(claim))
    })
}

/// (group, kind) of every type a Composition, CompositionRevision or XRD among `docs` composes.
pub(crate) fn composite_types<D: Borrow<Value>>(docs: &[D]) -> Vec<(&str, &str)> {
    let mut out = composition_types(docs);
    for d in docs.iter().map(Borrow::borrow) {
        if is_crossplane(d, "CompositeResourceDefinition") {
            let g = str_at(d, &["spec", "group"]).unwrap_or("");
            out.push((g, str_at(d, &["spec", "names", "kind"]).unwrap_or("")));
        }
    }
    out
}

/// (group, kind) of every type a Composition or CompositionRevision among `docs` composes.
pub(crate) fn composition_types<D: Borrow<Value>>(docs: &[D]) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    for d in docs.iter().map(Borrow::borrow) {
        if is_crossplane(d, "Composition") || is_crossplane(d, "CompositionRevision") {
            let av = str_at(d, &["spec", "compositeTypeRef", "apiVersion"]).unwrap_or("");
            let k = str_at(d, &["spec", "compositeTypeRef", "kind"]).unwrap_or("");
            out.push((av.split('/').next().unwrap_or(""), k));
        }
    }
    out
}

/// Why a document of this kind was not used, when no step said more.
fn default_reason(d: &Value) -> String {
    if group(d) == "pkg.crossplane.io" {
        return "a package object: its Functions are not run, patch and transform is built in"
            .into();
    }
    if group(d) == TOOL_GROUP && kind(d) == "Simulation" {
        return "a Simulation is read only when the render iterates (options.iterations, \
                options.untilReady)"
            .into();
    }
    if is_crossplane_api(d) {
        return format!("a {} is not read by a render", kind(d));
    }
    format!("no {ANNOTATION_RESOURCE_NAME} annotation, so it is no observed composed resource")
}

/// `KIND/NAME`.
pub(crate) fn display(d: &Value) -> String {
    format!("{}/{}", kind(d), name_of(d))
}

fn defined(xrd: &Value) -> String {
    format!(
        "{}.{}",
        str_at(xrd, &["spec", "names", "kind"]).unwrap_or(""),
        str_at(xrd, &["spec", "group"]).unwrap_or("")
    )
}

pub(crate) fn is_crossplane(d: &Value, kind_name: &str) -> bool {
    group(d) == CROSSPLANE_GROUP && kind(d) == kind_name
}

/// An object of Crossplane's own APIs (not a provider's, which may be `*.crossplane.io` too,
/// as provider-kubernetes' `kubernetes.crossplane.io` Objects are), or of xprender's own
/// (`Simulation`): never a composite or composed resource.
pub(crate) fn is_crossplane_api(d: &Value) -> bool {
    matches!(
        group(d),
        CROSSPLANE_GROUP | "pkg.crossplane.io" | "internal.crossplane.io" | TOOL_GROUP
    )
}

/// The API group of xprender's own documents.
pub(crate) const TOOL_GROUP: &str = "xprender.dev";

fn is_secret(d: &Value) -> bool {
    str_at(d, &["apiVersion"]) == Some("v1") && kind(d) == "Secret"
}

pub(crate) fn kind(d: &Value) -> &str {
    str_at(d, &["kind"]).unwrap_or("")
}

/// The API group of the object's apiVersion ("" for the core group).
pub(crate) fn group(d: &Value) -> &str {
    match str_at(d, &["apiVersion"]).unwrap_or("").split_once('/') {
        Some((g, _)) => g,
        None => "",
    }
}

pub(crate) fn name_of(d: &Value) -> &str {
    str_at(d, &["metadata", "name"]).unwrap_or("")
}

pub(crate) fn annotation(d: &Value) -> &str {
    str_at(d, &["metadata", "annotations", ANNOTATION_RESOURCE_NAME]).unwrap_or("")
}

/// The value at a path of object keys.
pub(crate) fn at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, k| v.get(k))
}

pub(crate) fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    at(v, path)?.as_str()
}

/// The Composition selection fields of a v1 XR (`spec.X`) or a v2 XR (`spec.crossplane.X`).
pub(crate) fn xr_field<'a>(xr: &'a Value, path: &[&str]) -> Option<&'a Value> {
    let spec = xr.get("spec")?;
    at(spec, path).or_else(|| at(spec.get("crossplane")?, path))
}
