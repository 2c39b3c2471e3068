//! Pairing observed composed resources with the Composition's templates, and reading their
//! connection Secrets.
//!
//! An observed resource belongs to the template its `crossplane.io/composition-resource-name`
//! annotation names (an anonymous template: by its position in the XR's `spec.resourceRefs`).
//! Its connection details are the data of the Secret its `spec.writeConnectionSecretToRef` names.
//! When two resources name the same template, the first in document order is paired (a host
//! gives them in the XR's `spec.resourceRefs` order, as Crossplane associates them) and the
//! other is reported unused.

use base64::Engine as _;

use super::ANNOTATION_RESOURCE_NAME;
use crate::connection::Details;
use crate::error::Result;
use crate::value::{Map, Value};

use super::classify::{
    Catalog, Role, annotation, at, display, is_crossplane_api, kind, name_of, str_at,
};
use super::invalid;

/// Observed resources by template name, and what was paired with what.
pub(crate) struct Paired {
    pub(crate) resources: Vec<(String, Value, Details)>,
    /// Template name → `KIND/NAME` of its observed resource.
    pub(crate) report: Map,
    /// Template name → `Secret/NAME` of its connection Secret.
    pub(crate) secrets: Map,
    /// Template name → the paired document's index.
    pub(crate) indexes: Vec<(String, usize)>,
}

pub(crate) fn pair(cat: &mut Catalog<'_>, xr: &Value, composition: &Value) -> Result<Paired> {
    let anonymous = has_anonymous_template(composition);
    let mut out = Paired {
        resources: Vec::new(),
        report: Map::new(),
        secrets: Map::new(),
        indexes: Vec::new(),
    };
    // A Usage is a Crossplane object that Compositions compose like any other resource.
    let free = |cat: &Catalog<'_>, i: usize| {
        let d = &cat.docs[i];
        matches!(cat.roles[i], Role::Unused(None))
            && (!is_crossplane_api(d) || matches!(kind(d), "Usage" | "ClusterUsage"))
    };
    let named: Vec<(usize, String)> = (0..cat.docs.len())
        .filter(|&i| free(cat, i))
        .filter_map(|i| template_name(&cat.docs[i], xr, anonymous).map(|n| (i, n)))
        .collect();
    let refs: Vec<(&str, Option<&str>)> = named
        .iter()
        .filter_map(|(i, _)| secret_ref(&cat.docs[*i]))
        .collect();
    let connection: Vec<usize> = cat
        .secrets()
        .into_iter()
        .filter(|&s| refs.iter().any(|r| is_ref_to(&cat.docs[s], *r)))
        .collect();
    for (i, name) in named {
        if connection.contains(&i) {
            continue;
        }
        if let Some(first) = out.report.get(&name).and_then(Value::as_str) {
            // Crossplane associates the first resource naming a template and garbage-collects
            // any later one, so the later one is no input to the render.
            let why = format!(
                "{first} is annotated {ANNOTATION_RESOURCE_NAME}: {name} before it; \
                 Crossplane associates the first and deletes this one"
            );
            cat.skip(i, why);
            continue;
        }
        let mut details = Details::new();
        if let Some(r) = secret_ref(&cat.docs[i])
            && let Some(s) = connection
                .iter()
                .copied()
                .find(|&s| is_ref_to(&cat.docs[s], r))
        {
            details = secret_data(&cat.docs[s], s)?;
            cat.roles[s] = Role::ConnectionSecret;
            out.secrets
                .insert(name.clone(), display(&cat.docs[s]).into());
        }
        cat.roles[i] = Role::Observed;
        out.report
            .insert(name.clone(), display(&cat.docs[i]).into());
        out.indexes.push((name.clone(), i));
        out.resources
            .push((name, Value::clone(&cat.docs[i]), details));
    }
    for s in cat.secrets() {
        cat.skip(s, "no observed resource writes its connection secret to it");
    }
    Ok(out)
}

/// The template an observed resource belongs to.
fn template_name(d: &Value, xr: &Value, anonymous: bool) -> Option<String> {
    let a = annotation(d);
    if !a.is_empty() {
        return Some(a.to_owned());
    }
    if !anonymous {
        return None;
    }
    let refs = at(xr, &["spec", "resourceRefs"])?.as_array()?;
    let pos = refs.iter().position(|r| {
        str_at(r, &["apiVersion"]) == str_at(d, &["apiVersion"])
            && str_at(r, &["kind"]) == Some(kind(d))
            && str_at(r, &["name"]) == Some(name_of(d))
    })?;
    Some(format!("resource {}", pos + 1))
}

fn has_anonymous_template(composition: &Value) -> bool {
    let unnamed = |list: Option<&Value>| {
        list.and_then(Value::as_array)
            .into_iter()
            .flatten()
            .any(|t| str_at(t, &["name"]).is_none_or(str::is_empty))
    };
    unnamed(at(composition, &["spec", "resources"]))
        || at(composition, &["spec", "pipeline"])
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .any(|s| unnamed(at(s, &["input", "resources"])))
}

/// `spec.writeConnectionSecretToRef`: name and namespace.
fn secret_ref(d: &Value) -> Option<(&str, Option<&str>)> {
    let name = str_at(d, &["spec", "writeConnectionSecretToRef", "name"])?;
    Some((
        name,
        str_at(d, &["spec", "writeConnectionSecretToRef", "namespace"]),
    ))
}

fn is_ref_to(secret: &Value, (name, ns): (&str, Option<&str>)) -> bool {
    name_of(secret) == name
        && ns.is_none_or(|ns| str_at(secret, &["metadata", "namespace"]).is_none_or(|n| n == ns))
}

/// A Secret's `data` (base64, checked) with its `stringData` over it, in key order.
fn secret_data(secret: &Value, i: usize) -> Result<Details> {
    let b64 = base64::engine::general_purpose::STANDARD;
    let at_doc = format!("documents[{i}] ({})", display(secret));
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    let mut put = |k: &str, v: Vec<u8>| match out.iter_mut().find(|(x, _)| x == k) {
        Some(e) => e.1 = v,
        None => out.push((k.to_owned(), v)),
    };
    for (k, v) in at(secret, &["data"])
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let s = v.as_str().ok_or_else(|| {
            invalid(format!("{at_doc}: data.{k} must be a base64 string"))
                .with_field_path(format!("documents[{i}].data.{k}"))
        })?;
        let bytes = b64.decode(s).map_err(|e| {
            invalid(format!("{at_doc}: data.{k} is not base64: {e}"))
                .with_field_path(format!("documents[{i}].data.{k}"))
        })?;
        put(k, bytes);
    }
    for (k, v) in at(secret, &["stringData"])
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let s = v.as_str().ok_or_else(|| {
            invalid(format!("{at_doc}: stringData.{k} must be a string"))
                .with_field_path(format!("documents[{i}].stringData.{k}"))
        })?;
        put(k, s.as_bytes().to_vec());
    }
    crate::sort::sort_by(&mut out, |a, b| a.0.cmp(&b.0));
    Ok(out)
}
