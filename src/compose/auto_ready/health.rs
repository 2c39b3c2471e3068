//! function-auto-ready's built-in health checks (`healthchecks/` at v0.7.0),
//! one per Kubernetes kind, found by the observed object's group, version and kind.
//!
//! The function reads observed resources from a protobuf `Struct`, so every
//! number is a `float64`; these checks read them through `unstructured` accessors.

use crate::value::Value;

use super::typed;

/// Runs the check registered for `obj`'s GVK (`healthchecks.GetHealthCheck`):
/// `None` when the kind has none.
pub(super) fn check(obj: &Value) -> Option<bool> {
    let (group, version) = group_version(member_str(obj, "apiVersion"))?;
    let check: fn(&Value) -> bool = match (group, version, member_str(obj, "kind")) {
        ("", "v1", "ConfigMap" | "Namespace" | "Secret" | "ServiceAccount") => |_| true,
        ("", "v1", "Service") => service,
        ("", "v1", "Pod") => typed::pod,
        ("", "v1", "PersistentVolumeClaim") => typed::persistent_volume_claim,
        ("apps", "v1", "Deployment") => deployment,
        ("apps", "v1", "StatefulSet") => stateful_set,
        ("apps", "v1", "DaemonSet") => daemon_set,
        ("apps", "v1", "ReplicaSet") => typed::replica_set,
        ("batch", "v1", "Job") => typed::job,
        ("batch", "v1", "CronJob") => typed::cron_job,
        ("autoscaling", "v2", "HorizontalPodAutoscaler") => typed::horizontal_pod_autoscaler,
        ("networking.k8s.io", "v1", "Ingress") => ingress,
        _ => return None,
    };
    Some(check(obj))
}

/// `schema.ParseGroupVersion`; `None` where `GroupVersionKind()` keeps no
/// version (no check is registered without one).
fn group_version(api_version: &str) -> Option<(&str, &str)> {
    match api_version.split_once('/') {
        None => Some(("", api_version)),
        Some((group, version)) if !version.contains('/') => Some((group, version)),
        Some(_) => None,
    }
}

/// `NestedString` of a top-level member: the string, or empty.
fn member_str<'v>(obj: &'v Value, key: &str) -> &'v str {
    obj.get(key).and_then(Value::as_str).unwrap_or("")
}

/// `unstructured.NestedFieldNoCopy`: `None` when a step is missing or null, or
/// not an object (Go's accessor error, which every caller treats as missing).
fn nested<'v>(obj: &'v Value, path: &[&str]) -> Option<&'v Value> {
    path.iter().try_fold(obj, |v, k| v.as_object()?.get(k))
}

/// `getInt64Field`: a number, converted as Go converts a `float64` to `int64`.
fn int(obj: &Value, path: &[&str]) -> Option<i64> {
    match nested(obj, path)? {
        // The Struct carried it as a float64.
        Value::Int(i) => Some(*i as f64 as i64),
        Value::Float(f) => Some(*f as i64),
        _ => None,
    }
}

/// `unstructured.NestedString`.
fn string<'v>(obj: &'v Value, path: &[&str]) -> Option<&'v str> {
    nested(obj, path)?.as_str()
}

/// `unstructured.NestedSlice`.
fn slice<'v>(obj: &'v Value, path: &[&str]) -> Option<&'v [Value]> {
    nested(obj, path)?.as_array()
}

/// Desired replicas equal updated and available replicas, and a condition
/// `Available` is `True` (`checkDeploymentHealth`).
fn deployment(obj: &Value) -> bool {
    let replicas = int(obj, &["spec", "replicas"]).unwrap_or(1);
    let (Some(updated), Some(available)) = (
        int(obj, &["status", "updatedReplicas"]),
        int(obj, &["status", "availableReplicas"]),
    ) else {
        return false;
    };
    replicas == updated
        && replicas == available
        && slice(obj, &["status", "conditions"]).is_some_and(|conditions| {
            conditions.iter().any(|c| {
                c.get("type").and_then(Value::as_str) == Some("Available")
                    && c.get("status").and_then(Value::as_str) == Some("True")
            })
        })
}

/// Desired replicas equal ready and current replicas, and the current
/// revision is the update revision (`checkStatefulSetHealth`).
fn stateful_set(obj: &Value) -> bool {
    let replicas = int(obj, &["spec", "replicas"]).unwrap_or(1);
    let (Some(ready), Some(current)) = (
        int(obj, &["status", "readyReplicas"]),
        int(obj, &["status", "currentReplicas"]),
    ) else {
        return false;
    };
    if replicas != ready || replicas != current {
        return false;
    }
    match (
        string(obj, &["status", "currentRevision"]),
        string(obj, &["status", "updateRevision"]),
    ) {
        (Some(current), Some(update)) => current == update,
        _ => false,
    }
}

/// Every desired pod is ready, updated and available (`checkDaemonSetHealth`).
fn daemon_set(obj: &Value) -> bool {
    let field = |name| int(obj, &["status", name]);
    match (
        field("desiredNumberScheduled"),
        field("numberReady"),
        field("updatedNumberScheduled"),
        field("numberAvailable"),
    ) {
        (Some(desired), Some(ready), Some(updated), Some(available)) => {
            desired == ready && updated == desired && available == desired
        }
        _ => false,
    }
}

/// Any type but `LoadBalancer` (the default being `ClusterIP`) is ready; a
/// load balancer once it has an ingress point (`checkServiceHealth`).
fn service(obj: &Value) -> bool {
    string(obj, &["spec", "type"]) != Some("LoadBalancer") || ingress(obj)
}

/// At least one load-balancer ingress point (`checkIngressHealth`).
fn ingress(obj: &Value) -> bool {
    slice(obj, &["status", "loadBalancer", "ingress"]).is_some_and(|i| !i.is_empty())
}

#[cfg(test)]
mod tests {
    use super::check;
    use crate::value::Value;

    fn run(json: &str) -> Option<bool> {
        check(&Value::from_json(json).expect("valid JSON"))
    }

    #[test]
    fn only_the_registered_group_version_and_kind_have_a_check() {
        assert_eq!(run(r#"{"apiVersion":"v1","kind":"ConfigMap"}"#), Some(true));
        // `/v1` parses as the core group's v1.
        assert_eq!(run(r#"{"apiVersion":"/v1","kind":"Secret"}"#), Some(true));
        for doc in [
            r#"{"apiVersion":"example.org/v1","kind":"ConfigMap"}"#,
            r#"{"apiVersion":"apps/v1beta1","kind":"Deployment"}"#,
            r#"{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler"}"#,
            r#"{"apiVersion":"a/b/v1","kind":"ConfigMap"}"#,
            r#"{"apiVersion":"v1","kind":"Endpoints"}"#,
            r#"{"kind":"ConfigMap"}"#,
        ] {
            assert_eq!(run(doc), None, "{doc}");
        }
    }

    #[test]
    fn deployment_counts_are_truncated_floats_and_replicas_default_to_one() {
        let doc = |spec: &str, status: &str| {
            format!(
                r#"{{"apiVersion":"apps/v1","kind":"Deployment","spec":{spec},"status":{status}}}"#
            )
        };
        let available = r#"[{"type":"Available","status":"True"}]"#;
        for (spec, status, want) in [
            (
                "{}",
                format!(r#"{{"updatedReplicas":1,"availableReplicas":1,"conditions":{available}}}"#),
                true,
            ),
            (
                r#"{"replicas":2}"#,
                format!(r#"{{"updatedReplicas":2.7,"availableReplicas":2,"conditions":{available}}}"#),
                true,
            ),
            (
                r#"{"replicas":"2"}"#,
                format!(r#"{{"updatedReplicas":1,"availableReplicas":1,"conditions":{available}}}"#),
                true,
            ),
            (
                "{}",
                r#"{"updatedReplicas":1,"availableReplicas":1,"conditions":[{"type":"Available","status":"False"}]}"#.to_owned(),
                false,
            ),
            (
                "{}",
                format!(r#"{{"updatedReplicas":1,"conditions":{available}}}"#),
                false,
            ),
            (
                r#"{"replicas":0}"#,
                r#"{"updatedReplicas":0,"availableReplicas":0}"#.to_owned(),
                false,
            ),
        ] {
            assert_eq!(run(&doc(spec, &status)), Some(want), "{spec} {status}");
        }
    }

    #[test]
    fn a_service_waits_only_for_a_load_balancer() {
        let svc = |spec: &str, status: &str| {
            run(&format!(
                r#"{{"apiVersion":"v1","kind":"Service","spec":{spec},"status":{status}}}"#
            ))
        };
        assert_eq!(svc("{}", "{}"), Some(true));
        assert_eq!(svc(r#"{"type":"NodePort"}"#, "{}"), Some(true));
        assert_eq!(svc(r#"{"type":"LoadBalancer"}"#, "{}"), Some(false));
        assert_eq!(
            svc(
                r#"{"type":"LoadBalancer"}"#,
                r#"{"loadBalancer":{"ingress":[]}}"#
            ),
            Some(false)
        );
        assert_eq!(
            svc(
                r#"{"type":"LoadBalancer"}"#,
                r#"{"loadBalancer":{"ingress":[{"ip":"10.0.0.1"}]}}"#
            ),
            Some(true)
        );
    }

    #[test]
    fn stateful_and_daemon_sets_need_every_count() {
        assert_eq!(
            run(
                r#"{"apiVersion":"apps/v1","kind":"StatefulSet","spec":{"replicas":2},"status":{"readyReplicas":2,"currentReplicas":2,"currentRevision":"r1","updateRevision":"r1"}}"#
            ),
            Some(true)
        );
        assert_eq!(
            run(
                r#"{"apiVersion":"apps/v1","kind":"StatefulSet","spec":{"replicas":2},"status":{"readyReplicas":2,"currentReplicas":2,"currentRevision":"r1","updateRevision":"r2"}}"#
            ),
            Some(false)
        );
        assert_eq!(
            run(
                r#"{"apiVersion":"apps/v1","kind":"DaemonSet","status":{"desiredNumberScheduled":3,"numberReady":3,"updatedNumberScheduled":3,"numberAvailable":3}}"#
            ),
            Some(true)
        );
        assert_eq!(
            run(
                r#"{"apiVersion":"apps/v1","kind":"DaemonSet","status":{"desiredNumberScheduled":3,"numberReady":3,"updatedNumberScheduled":3}}"#
            ),
            Some(false)
        );
    }
}
