//! Kubernetes' `unstructured.Unstructured` decoding, which function-patch-and-transform's targets go through after every write.

use super::Value;

/// `runtime.DefaultUnstructuredConverter.FromUnstructured` into an
/// `Unstructured`: the whole object is marshalled to JSON and decoded again
/// with Kubernetes' decoder (every whole number that fits becomes an `int64`,
/// written or not), and the decoded object must name a kind.
///
/// # Errors
/// A `Render` error, `Object 'Kind' is missing in '<object JSON>'`, when `kind`
/// is not a non-empty string or `apiVersion` does not parse as a group/version.
pub(crate) fn round_trip(obj: &mut Value) -> crate::Result<()> {
    // Every value reached the object through a checked write or a decoder, so
    // nothing here is NaN or infinite (one would be left as it is): one walk,
    // without a check before it.
    obj.normalize_in_place();
    check_kind(obj)
}

/// The check [`round_trip`] ends with: the decoded object must name a kind.
///
/// # Errors
/// As for [`round_trip`].
pub(crate) fn check_kind(obj: &Value) -> crate::Result<()> {
    if kind_is_missing(obj) {
        return Err(crate::Error::new(
            crate::ErrorKind::Render,
            format!("Object 'Kind' is missing in '{}'", obj.to_json()),
        ));
    }
    Ok(())
}

/// `GroupVersionKind()` has no kind: `kind` is absent, not a string or empty,
/// or `apiVersion` holds more than one `/` (then the whole GVK is empty).
fn kind_is_missing(obj: &Value) -> bool {
    string_member(obj, "kind").is_empty() || !version_parses(string_member(obj, "apiVersion"))
}

/// `GroupVersionKind().Empty()`: no group, version or kind.
pub(crate) fn gvk_is_empty(obj: &Value) -> bool {
    let api_version = string_member(obj, "apiVersion");
    !version_parses(api_version)
        || (matches!(api_version, "" | "/") && string_member(obj, "kind").is_empty())
}

/// `schema.ParseGroupVersion` accepts `version` and `group/version` only.
fn version_parses(api_version: &str) -> bool {
    api_version.bytes().filter(|&b| b == b'/').count() <= 1 || api_version == "/"
}

/// `NestedString`: the member when it is a string, else empty.
fn string_member<'v>(obj: &'v Value, key: &str) -> &'v str {
    obj.get(key).and_then(Value::as_str).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::{gvk_is_empty, round_trip};
    use crate::value::Value;

    fn v(s: &str) -> Value {
        Value::from_json(s).expect("valid JSON")
    }

    #[test]
    fn whole_numbers_anywhere_become_integers() {
        let mut obj = v(r#"{"apiVersion":"v1","kind":"K","n":3.0,"a":[2.0,2.5]}"#);
        obj.floats_everywhere();
        round_trip(&mut obj).expect("has a kind");
        assert_eq!(
            obj,
            v(r#"{"apiVersion":"v1","kind":"K","n":3,"a":[2,2.5]}"#)
        );
    }

    #[test]
    fn an_unparseable_api_version_loses_the_kind() {
        for doc in [
            r#"{"apiVersion":"a/b/c","kind":"Environment"}"#,
            r#"{"apiVersion":"v1","kind":""}"#,
            r#"{"apiVersion":"v1","kind":5}"#,
            r#"{"apiVersion":"v1"}"#,
        ] {
            let mut obj = v(doc);
            let e = round_trip(&mut obj).expect_err(doc);
            assert_eq!(
                e.message(),
                format!("Object 'Kind' is missing in '{}'", v(doc).to_json())
            );
        }
        round_trip(&mut v(r#"{"apiVersion":"/","kind":"K"}"#)).expect("a GVK with a kind");
        round_trip(&mut v(r#"{"kind":"K"}"#)).expect("a GVK with a kind");
    }

    #[test]
    fn empty_gvks() {
        assert!(gvk_is_empty(&v("{}")));
        assert!(gvk_is_empty(&v(r#"{"apiVersion":"a/b/c","kind":"K"}"#)));
        assert!(gvk_is_empty(&v(r#"{"apiVersion":"/","kind":3}"#)));
        assert!(!gvk_is_empty(&v(r#"{"apiVersion":"v1"}"#)));
        assert!(!gvk_is_empty(&v(r#"{"kind":"K"}"#)));
    }
}
