//! Composed-resource metadata: names, the composite and claim labels, the
//! composition-resource-name annotation and the controller reference.

use crate::documents::ANNOTATION_RESOURCE_NAME;
use crate::error::{Error, ErrorKind, Result};
use crate::value::{Map, Value};

pub(crate) const LABEL_COMPOSITE: &str = "crossplane.io/composite";
pub(crate) const LABEL_CLAIM_NAME: &str = "crossplane.io/claim-name";
pub(crate) const LABEL_CLAIM_NAMESPACE: &str = "crossplane.io/claim-namespace";
pub(crate) const ANNOTATION_PAUSED: &str = "crossplane.io/paused";

/// `metadata.<key>` as a string ("" when absent or not a string).
pub(crate) fn meta_str<'a>(obj: &'a Value, key: &str) -> &'a str {
    obj.get("metadata")
        .and_then(|m| m.get(key))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// `metadata.labels[key]` / `metadata.annotations[key]` ("" when absent).
pub(crate) fn meta_entry<'a>(obj: &'a Value, map: &str, key: &str) -> &'a str {
    obj.get("metadata")
        .and_then(|m| m.get(map))
        .and_then(|m| m.get(key))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// The `metadata` object, created when absent. A present `metadata` that is
/// not an object (`metadata: null` in a base) gives `None`: unstructured's
/// setters fail on it and their callers ignore the failure, so every write
/// into it silently does nothing.
fn metadata_mut(obj: &mut Value) -> Option<&mut Map> {
    let Value::Object(root) = obj else {
        return None;
    };
    // Room for what a composed resource's metadata is given: name,
    // generateName, labels, annotations and ownerReferences.
    root.get_or_insert_with("metadata", || {
        Value::Object(Map::from_sorted(Vec::with_capacity(6)))
    })
    .as_object_mut()
}

/// Sets `metadata.<key>`; an empty value removes the field (`SetName("")`), and removing
/// creates no `metadata` (`unstructured.RemoveNestedField`).
pub(crate) fn set_meta_str(obj: &mut Value, key: &str, value: &str) {
    if value.is_empty() {
        if let Value::Object(root) = obj
            && let Some(Value::Object(m)) = root.get_mut("metadata")
        {
            m.remove(key);
        }
        return;
    }
    if let Some(m) = metadata_mut(obj) {
        set_str(m, key, value);
    }
}

/// Sets `metadata.name` and `metadata.namespace`, as [`set_meta_str`] each.
pub(crate) fn set_name_and_namespace(obj: &mut Value, name: &str, namespace: &str) {
    if name.is_empty() && namespace.is_empty() {
        set_meta_str(obj, "name", name);
        set_meta_str(obj, "namespace", namespace);
    } else if let Some(m) = metadata_mut(obj) {
        set_str(m, "name", name);
        set_str(m, "namespace", namespace);
    }
}

fn set_str(m: &mut Map, key: &str, value: &str) {
    if value.is_empty() {
        m.remove(key);
    } else {
        m.set(key, value.into());
    }
}

/// Merges string entries into `metadata.labels` / `metadata.annotations`.
pub(crate) fn add_entries(obj: &mut Value, map: &str, entries: &[(&str, &str)]) {
    if let Some(m) = metadata_mut(obj) {
        add_to(m, map, entries);
    }
}

/// [`add_entries`] into a `metadata` object already found.
fn add_to(m: &mut Map, map: &str, entries: &[(&str, &str)]) {
    let target = m.get_or_insert_with(map, || Value::Object(Map::new()));
    if !matches!(target, Value::Object(_)) {
        *target = Value::Object(Map::new());
    }
    if let Value::Object(t) = target {
        for (k, v) in entries {
            t.set(k, (*v).into());
        }
    }
}

/// The XR controller labels an XR with its own name when it has no composite label.
pub(crate) fn ensure_composite_label(xr: &mut Value) {
    if meta_entry(xr, "labels", LABEL_COMPOSITE).is_empty() {
        let name = meta_str(xr, "name").to_owned();
        if !name.is_empty() {
            add_entries(xr, "labels", &[(LABEL_COMPOSITE, &name)]);
        }
    }
}

/// The XR configurator's default connection secret reference: when the
/// Composition names `writeConnectionSecretsToNamespace` and the XR has no
/// `spec.writeConnectionSecretToRef`, the XR gets `{name: <uid>, namespace}`.
pub(crate) fn default_connection_secret_ref(xr: &mut Value, composition: &Value) -> Result<()> {
    let ns = match composition
        .get("spec")
        .and_then(|s| s.get("writeConnectionSecretsToNamespace"))
    {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::String(ns)) if ns.is_empty() => return Ok(()),
        Some(Value::String(ns)) => ns.clone(),
        Some(other) => {
            return Err(Error::new(
                ErrorKind::InvalidComposition,
                format!(
                    "composition.spec.writeConnectionSecretsToNamespace: expected string, got {}",
                    other.go_type()
                ),
            ));
        }
    };
    let uid = meta_str(xr, "uid").to_owned();
    let Value::Object(root) = xr else {
        return Ok(());
    };
    let spec = root.get_or_insert_with("spec", || Value::Object(Map::new()));
    let Value::Object(spec) = spec else {
        return Ok(());
    };
    if spec
        .get("writeConnectionSecretToRef")
        .is_some_and(|r| !r.is_null())
    {
        return Ok(());
    }
    let mut r = Map::new();
    r.insert("name".into(), uid.into());
    r.insert("namespace".into(), ns.into());
    spec.insert("writeConnectionSecretToRef".into(), Value::Object(r));
    Ok(())
}

/// What composed-resource metadata takes from the XR, read once for all of
/// a render's composed resources (no template's patches write the XR while
/// the templates render).
pub(crate) struct Owner {
    /// The composite label; composed resources' names are generated from it.
    prefix: String,
    generate_name: String,
    claim_name: String,
    claim_namespace: String,
    uid: String,
    /// The controller reference to the XR.
    reference: Value,
}

impl Owner {
    pub(crate) fn of(xr: &Value) -> Owner {
        let prefix = meta_entry(xr, "labels", LABEL_COMPOSITE);
        let mut generate_name = String::with_capacity(prefix.len() + 1);
        generate_name.push_str(prefix);
        generate_name.push('-');
        let text = |s: &str| Value::String(s.to_owned());
        let uid = meta_str(xr, "uid");
        // Members in key order.
        let reference = Value::Object(Map::from_sorted(vec![
            (
                "apiVersion".to_owned(),
                text(xr.get("apiVersion").and_then(Value::as_str).unwrap_or("")),
            ),
            ("blockOwnerDeletion".to_owned(), Value::Bool(true)),
            ("controller".to_owned(), Value::Bool(true)),
            (
                "kind".to_owned(),
                text(xr.get("kind").and_then(Value::as_str).unwrap_or("")),
            ),
            ("name".to_owned(), text(meta_str(xr, "name"))),
            ("uid".to_owned(), text(uid)),
        ]));
        Owner {
            prefix: prefix.to_owned(),
            generate_name,
            claim_name: meta_entry(xr, "labels", LABEL_CLAIM_NAME).to_owned(),
            claim_namespace: meta_entry(xr, "labels", LABEL_CLAIM_NAMESPACE).to_owned(),
            uid: uid.to_owned(),
            reference,
        }
    }
}

/// `RenderComposedResourceMetadata` (v1.14, and function pipelines up to
/// v1.20), with the XR read into `owner`.
pub(crate) fn render(cd: &mut Value, owner: &Owner, name: Option<&str>) -> Result<()> {
    if owner.prefix.is_empty() {
        return Err(Error::new(
            ErrorKind::Render,
            format!(
                "cannot find top-level composite resource name label {} in composite resource metadata",
                crate::go::quote(LABEL_COMPOSITE)
            ),
        ));
    }
    // One lookup of `metadata` for every write below (a `metadata` that is
    // not an object takes none of them).
    let Some(m) = metadata_mut(cd) else {
        return Ok(());
    };
    // Never empty: the prefix is not, and a '-' follows it.
    m.set("generateName", owner.generate_name.as_str().into());
    if let Some(n) = name {
        add_to(m, "annotations", &[(ANNOTATION_RESOURCE_NAME, n)]);
    }
    add_to(
        m,
        "labels",
        &[
            (LABEL_COMPOSITE, &owner.prefix),
            (LABEL_CLAIM_NAME, &owner.claim_name),
            (LABEL_CLAIM_NAMESPACE, &owner.claim_namespace),
        ],
    );
    add_controller_reference(m, owner).map_err(|e| e.wrap("cannot set controller reference"))
}

/// `meta.AddControllerReference` with a reference to the XR (nothing is written into a
/// `metadata` that is not an object).
pub(crate) fn add_controller_reference_to(cd: &mut Value, owner: &Owner) -> Result<()> {
    match metadata_mut(cd) {
        Some(m) => add_controller_reference(m, owner),
        None => Ok(()),
    }
}

/// `meta.AddControllerReference` with a reference to the XR, into the
/// resource's `metadata`.
fn add_controller_reference(m: &mut Map, owner: &Owner) -> Result<()> {
    let field = |v: &'_ Value, k: &str| -> String {
        v.get(k).and_then(Value::as_str).unwrap_or("").to_owned()
    };
    let uid_of = |v: &Value| v.get("uid").and_then(Value::as_str).unwrap_or("") == owner.uid;
    // Another controller is refused before anything is written.
    if let Some(Value::Array(list)) = m.get("ownerReferences")
        && let Some(c) = list
            .iter()
            .find(|o| o.get("controller") == Some(&Value::Bool(true)))
        && !uid_of(c)
    {
        let name = m.get("name").and_then(Value::as_str).unwrap_or("");
        return Err(Error::new(
            ErrorKind::Render,
            format!(
                "{name} is already controlled by {} {} (UID {})",
                field(c, "kind"),
                field(c, "name"),
                field(c, "uid")
            ),
        ));
    }
    // Room for the reference about to be pushed.
    let refs = m.get_or_insert_with("ownerReferences", || Value::Array(Vec::with_capacity(1)));
    if !matches!(refs, Value::Array(_)) {
        *refs = Value::Array(Vec::with_capacity(1));
    }
    let Value::Array(list) = refs else {
        return Ok(());
    };
    let new = owner.reference.clone();
    match list.iter_mut().find(|o| uid_of(o)) {
        Some(existing) => *existing = new,
        None => list.push(new),
    }
    Ok(())
}
