//! Field ownership as server-side apply records it (`metadata.managedFields`): which manager
//! Crossplane applies a composed resource with, and what an apply by that manager removes.
//!
//! Crossplane applies composed resources (nested XRs included) server-side as
//! `apiextensions.crossplane.io/composed/<sha256 of the XR's name and Kind.group>` (function
//! pipelines since v1.14, and every Composition in v2); an apply by that manager removes the
//! fields it set before and sets no longer, unless another manager owns them too. Classic
//! Compositions in v1 patch client-side (manager `crossplane`, operation `Update`): a field
//! the render drops stays, and no apply entry of Crossplane's is found.

use serde_json::{Map, Value};

/// The prefix of the managers Crossplane applies composed resources with.
pub(crate) const COMPOSED_MANAGER_PREFIX: &str = "apiextensions.crossplane.io/composed";

/// The manager Crossplane applies this object with, if it has applied it: an `Apply` entry of
/// `managed` (the object's `managedFields`) whose manager has the composed prefix.
pub(crate) fn crossplane_manager(managed: &Value) -> Option<&str> {
    entries(managed)
        .filter(|e| str_of(e, "operation") == "Apply")
        .map(|e| str_of(e, "manager"))
        .find(|m| m.starts_with(COMPOSED_MANAGER_PREFIX))
}

/// Removes from `merged` (the desired object over the live one) what an apply of `desired` by
/// `manager` removes: the fields its entry owns that `desired` leaves out and no other entry
/// owns. Lists are left as they are (the merge already replaced those `desired` sets).
pub(crate) fn prune(merged: &mut Value, desired: &Value, managed: &Value, manager: &str) {
    let mut mine = None;
    let mut others = Vec::new();
    for e in entries(managed) {
        let Some(f) = e.get("fieldsV1").and_then(Value::as_object) else {
            continue;
        };
        if str_of(e, "manager") == manager && str_of(e, "operation") == "Apply" {
            mine = Some(f);
        } else if e.get("subresource").is_none_or(|s| s == "") {
            others.push(f);
        }
    }
    if let Some(mine) = mine {
        prune_at(merged, Some(desired), mine, &others);
    }
}

fn prune_at(
    merged: &mut Value,
    desired: Option<&Value>,
    mine: &Map<String, Value>,
    others: &[&Map<String, Value>],
) {
    let Some(obj) = merged.as_object_mut() else {
        return;
    };
    for (key, sub) in mine {
        let Some(field) = key.strip_prefix("f:") else {
            continue; // "." and list members (k:, v:, i:)
        };
        let wanted = desired.and_then(|d| d.get(field));
        let theirs: Vec<&Map<String, Value>> = others
            .iter()
            .filter_map(|o| o.get(key).and_then(Value::as_object))
            .collect();
        match wanted {
            None if theirs.is_empty() => {
                obj.remove(field);
            }
            Some(w) if !w.is_object() => {}
            _ => {
                if let (Some(child), Some(sub)) = (obj.get_mut(field), sub.as_object()) {
                    prune_at(child, wanted, sub, &theirs);
                }
            }
        }
    }
}

fn entries(managed: &Value) -> impl Iterator<Item = &Value> {
    managed.as_array().into_iter().flatten()
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const MANAGER: &str = "apiextensions.crossplane.io/composed/95c79c26";

    fn managed() -> Value {
        json!([
            {"manager": "kubectl", "operation": "Update",
             "fieldsV1": {"f:data": {"f:shared": {}}}},
            {"manager": MANAGER, "operation": "Apply",
             "fieldsV1": {"f:data": {".": {}, "f:size": {}, "f:legacy": {}, "f:shared": {}},
                          "f:metadata": {"f:labels": {"f:old": {}}}}},
            {"manager": "provider", "operation": "Update", "subresource": "status",
             "fieldsV1": {"f:data": {"f:legacy": {}}}}
        ])
    }

    #[test]
    fn crossplanes_apply_entry_names_the_manager() {
        assert_eq!(crossplane_manager(&managed()), Some(MANAGER));
        let update_only = json!([{"manager": "crossplane", "operation": "Update"}]);
        assert_eq!(crossplane_manager(&update_only), None);
        assert_eq!(crossplane_manager(&Value::Null), None);
    }

    #[test]
    fn fields_only_crossplane_owned_and_no_longer_desired_are_removed() {
        let live = json!({"data": {"size": "s", "legacy": "x", "shared": "y", "mine": "z"},
                          "metadata": {"labels": {"old": "1", "keep": "2"}}});
        let desired = json!({"data": {"size": "l"}, "metadata": {"labels": {}}});
        let mut merged = crate::review::tree::merge(&live, &desired);
        prune(&mut merged, &desired, &managed(), MANAGER);
        // `shared` is kubectl's too, `mine` never Crossplane's; the status entry owns nothing here.
        assert_eq!(
            merged,
            json!({"data": {"size": "l", "shared": "y", "mine": "z"},
                   "metadata": {"labels": {"keep": "2"}}})
        );
    }
}
