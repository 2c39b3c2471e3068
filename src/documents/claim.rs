//! A claim given as the XR: the composite resource Crossplane's claim controller creates for it
//! (Crossplane v1's legacy XRDs with `spec.claimNames`), which is then rendered.

use crate::value::{Map, Value};

use super::classify::{at, kind, name_of, str_at};

/// The claim's fields that configure the claim itself and are not copied to the composite.
const CLAIM_ONLY: [&str; 2] = ["resourceRef", "writeConnectionSecretToRef"];

/// The composite the claim controller configures for `claim`: named after the claim's
/// `spec.resourceRef` when it is bound, else `<claim>-<suffix>` (the API server draws the
/// suffix at random; here it comes from the claim's namespace and name, so renders repeat);
/// the claim's labels and annotations (less Kubernetes' reserved ones) with the claim-name and
/// claim-namespace labels; the claim's spec less its own fields; and `spec.claimRef`.
pub(crate) fn composite(claim: &Value, xrd: &Value) -> Value {
    let namespace = str_at(claim, &["metadata", "namespace"]).unwrap_or("");
    let name = name_of(claim);
    let xr_name = str_at(claim, &["spec", "resourceRef", "name"]).map_or_else(
        || super::names::generated(&format!("{name}-"), &format!("{namespace}/{name}")),
        str::to_owned,
    );
    let mut labels = unreserved(at(claim, &["metadata", "labels"]));
    labels.insert("crossplane.io/claim-name".into(), name.into());
    labels.insert("crossplane.io/claim-namespace".into(), namespace.into());
    let annotations = unreserved(at(claim, &["metadata", "annotations"]));
    let mut metadata = Map::new();
    metadata.insert("name".into(), xr_name.into());
    if !annotations.is_empty() {
        metadata.insert("annotations".into(), Value::Object(annotations));
    }
    metadata.insert("labels".into(), Value::Object(labels));

    let mut spec = at(claim, &["spec"])
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    for k in CLAIM_ONLY {
        spec.remove(k);
    }
    // Under the Automatic policy the revision follows the Composition, so a pinned one is not
    // carried over.
    if str_at(claim, &["spec", "compositionUpdatePolicy"]) == Some("Automatic") {
        spec.remove("compositionRevisionRef");
    }
    let mut claim_ref = Map::new();
    claim_ref.insert(
        "apiVersion".into(),
        str_at(claim, &["apiVersion"]).unwrap_or("").into(),
    );
    claim_ref.insert("kind".into(), kind(claim).into());
    claim_ref.insert("name".into(), name.into());
    claim_ref.insert("namespace".into(), namespace.into());
    spec.insert("claimRef".into(), Value::Object(claim_ref));

    let mut xr = Map::new();
    xr.insert(
        "apiVersion".into(),
        str_at(claim, &["apiVersion"]).unwrap_or("").into(),
    );
    xr.insert(
        "kind".into(),
        str_at(xrd, &["spec", "names", "kind"]).unwrap_or("").into(),
    );
    xr.insert("metadata".into(), Value::Object(metadata));
    xr.insert("spec".into(), Value::Object(spec));
    Value::Object(xr)
}

/// Labels or annotations without Kubernetes' reserved keys (`*.kubernetes.io/`, `*.k8s.io/`),
/// which describe the claim (kubectl's last-applied configuration), not its composite.
fn unreserved(m: Option<&Value>) -> Map {
    let mut out = Map::new();
    for (k, v) in m.and_then(Value::as_object).into_iter().flatten() {
        let domain = k.split_once('/').map_or("", |(d, _)| d);
        let reserved = ["kubernetes.io", "k8s.io"]
            .iter()
            .any(|r| domain == *r || domain.ends_with(&format!(".{r}")));
        if !reserved {
            out.insert(k.clone(), v.clone());
        }
    }
    out
}
