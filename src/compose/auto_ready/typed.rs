//! The health checks that first decode the object into its `k8s.io/api` type
//! (`runtime.DefaultUnstructuredConverter.FromUnstructured`): a member of the
//! wrong type fails the decode, and with it the check.
//!
//! Go decodes the whole object; here the object metadata and the members each
//! check reads are decoded, which is what a mistake in a hand-written observed
//! resource usually touches.

use crate::go::rfc3339;
use crate::value::{Map, Value};

/// The object does not decode into its Go type.
struct Mistyped;

type Decoded<T> = Result<T, Mistyped>;

/// Seconds since the epoch and nanoseconds, ordered as `time.Time` compares.
type Instant = (i64, u32);

/// Phase `Succeeded`, or phase `Running` with restart policy `Always` and a
/// condition `Ready: True` (`checkPodHealth`; the container states it looks
/// at afterwards all answer "not ready").
pub(super) fn pod(obj: &Value) -> bool {
    let decoded = || -> Decoded<bool> {
        let (spec, status) = parts(obj)?;
        let phase = string(member(status, "phase"))?;
        let restart_policy = string(member(spec, "restartPolicy"))?;
        let conditions = conditions(status, &["lastProbeTime", "lastTransitionTime"])?;
        Ok(match phase {
            "Succeeded" => true,
            "Running" => restart_policy == "Always" && has(&conditions, "Ready"),
            _ => false,
        })
    };
    decoded().unwrap_or(false)
}

/// Phase `Bound` (`checkPersistentVolumeClaimHealth`).
pub(super) fn persistent_volume_claim(obj: &Value) -> bool {
    let decoded = || -> Decoded<bool> {
        let (_, status) = parts(obj)?;
        Ok(string(member(status, "phase"))? == "Bound")
    };
    decoded().unwrap_or(false)
}

/// The observed generation is current, no `ReplicaFailure` is `True`, and
/// the available replicas reach the desired ones, 1 by default
/// (`checkReplicaSetHealth`).
pub(super) fn replica_set(obj: &Value) -> bool {
    let decoded = || -> Decoded<bool> {
        let generation = int(member(object(obj.get("metadata"))?, "generation"))?;
        let (spec, status) = parts(obj)?;
        let observed_generation = int(member(status, "observedGeneration"))?;
        let conditions = conditions(status, &["lastTransitionTime"])?;
        let replicas = match member(spec, "replicas") {
            None | Some(Value::Null) => 1,
            v => int(v)?,
        };
        let available = int(member(status, "availableReplicas"))?;
        Ok(observed_generation >= generation
            && !has(&conditions, "ReplicaFailure")
            && available >= replicas)
    };
    decoded().unwrap_or(false)
}

/// The first condition that is `True` among `Failed`, `Suspended` and
/// `Complete` decides: ready only if it is `Complete` (`checkJobHealth`).
pub(super) fn job(obj: &Value) -> bool {
    let decoded = || -> Decoded<bool> {
        let (_, status) = parts(obj)?;
        let conditions = conditions(status, &["lastProbeTime", "lastTransitionTime"])?;
        Ok(first_true(&conditions, &["Failed", "Suspended", "Complete"]) == Some("Complete"))
    };
    decoded().unwrap_or(false)
}

/// Suspended; or scheduled at least once and either running a job or
/// successful at or after the last schedule (`checkCronJobHealth`).
pub(super) fn cron_job(obj: &Value) -> bool {
    let decoded = || -> Decoded<bool> {
        let (spec, status) = parts(obj)?;
        let suspend = match member(spec, "suspend") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err(Mistyped),
        };
        let scheduled = time(member(status, "lastScheduleTime"))?;
        let active = list(member(status, "active"))?;
        for reference in active {
            object_reference(reference)?;
        }
        let succeeded = time(member(status, "lastSuccessfulTime"))?;
        Ok(match (suspend, scheduled, succeeded) {
            (true, ..) => true,
            (false, None, _) => false,
            _ if !active.is_empty() => true,
            (false, Some(scheduled), Some(succeeded)) => succeeded >= scheduled,
            (false, Some(_), None) => false,
        })
    };
    decoded().unwrap_or(false)
}

/// The first condition that is `True` among the failure conditions and
/// `ScalingActive`/`ScalingLimited` decides: ready unless it is a failure
/// (`checkHorizontalPodAutoscalerHealth`).
pub(super) fn horizontal_pod_autoscaler(obj: &Value) -> bool {
    let decoded = || -> Decoded<bool> {
        let (_, status) = parts(obj)?;
        let conditions = conditions(status, &["lastTransitionTime"])?;
        let deciding = [
            "FailedGetScale",
            "FailedUpdateScale",
            "FailedGetResourceMetric",
            "InvalidSelector",
            "ScalingActive",
            "ScalingLimited",
        ];
        Ok(matches!(
            first_true(&conditions, &deciding),
            Some("ScalingActive" | "ScalingLimited")
        ))
    };
    decoded().unwrap_or(false)
}

/// The object's `spec` and `status`, once its metadata decodes into `ObjectMeta`.
fn parts(obj: &Value) -> Decoded<(Option<&Map>, Option<&Map>)> {
    let meta = object(obj.get("metadata"))?;
    for key in [
        "name",
        "generateName",
        "namespace",
        "selfLink",
        "uid",
        "resourceVersion",
    ] {
        string(member(meta, key))?;
    }
    int(member(meta, "generation"))?;
    int(member(meta, "deletionGracePeriodSeconds"))?;
    time(member(meta, "creationTimestamp"))?;
    time(member(meta, "deletionTimestamp"))?;
    for key in ["labels", "annotations"] {
        for v in object(member(meta, key))?.into_iter().flat_map(Map::values) {
            string(Some(v))?;
        }
    }
    for f in list(member(meta, "finalizers"))? {
        string(Some(f))?;
    }
    Ok((object(obj.get("spec"))?, object(obj.get("status"))?))
}

/// The `type` and `status` of each condition in `status.conditions`, once each
/// decodes: string `reason` and `message`, and times for `time_keys`.
fn conditions<'v>(status: Option<&'v Map>, time_keys: &[&str]) -> Decoded<Vec<(&'v str, &'v str)>> {
    let mut out = Vec::new();
    for c in list(member(status, "conditions"))? {
        let c = object(Some(c))?;
        for key in ["reason", "message"] {
            string(member(c, key))?;
        }
        for key in time_keys {
            time(member(c, key))?;
        }
        out.push((string(member(c, "type"))?, string(member(c, "status"))?));
    }
    Ok(out)
}

/// Whether a condition of type `t` is `True`.
fn has(conditions: &[(&str, &str)], t: &str) -> bool {
    conditions.iter().any(|&(ct, s)| ct == t && s == "True")
}

/// The type of the first condition among `types` that is `True`.
fn first_true<'v>(conditions: &[(&'v str, &str)], types: &[&str]) -> Option<&'v str> {
    conditions
        .iter()
        .find(|&&(t, s)| s == "True" && types.contains(&t))
        .map(|&(t, _)| t)
}

/// A `corev1.ObjectReference` (every member a string).
fn object_reference(v: &Value) -> Decoded<()> {
    let r = object(Some(v))?;
    for key in [
        "kind",
        "namespace",
        "name",
        "uid",
        "apiVersion",
        "resourceVersion",
        "fieldPath",
    ] {
        string(member(r, key))?;
    }
    Ok(())
}

fn member<'v>(m: Option<&'v Map>, key: &str) -> Option<&'v Value> {
    m.and_then(|m| m.get(key))
}

/// A struct: an object, or absent or null (the zero struct).
fn object(v: Option<&Value>) -> Decoded<Option<&Map>> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(m)) => Ok(Some(m)),
        Some(_) => Err(Mistyped),
    }
}

/// A slice: an array, or absent or null (empty).
fn list(v: Option<&Value>) -> Decoded<&[Value]> {
    match v {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(_) => Err(Mistyped),
    }
}

fn string(v: Option<&Value>) -> Decoded<&str> {
    match v {
        None | Some(Value::Null) => Ok(""),
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(Mistyped),
    }
}

/// An integer field, from the `float64` the Struct carried: whole numbers only.
fn int(v: Option<&Value>) -> Decoded<i64> {
    let f = match v {
        None | Some(Value::Null) => return Ok(0),
        Some(Value::Int(i)) => *i as f64,
        Some(Value::Float(f)) => *f,
        Some(_) => return Err(Mistyped),
    };
    if f.trunc() == f {
        Ok(f as i64)
    } else {
        Err(Mistyped)
    }
}

/// A `metav1.Time`: RFC 3339 text, or absent or null (no time).
fn time(v: Option<&Value>) -> Decoded<Option<Instant>> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => rfc3339::instant(s).map(Some).ok_or(Mistyped),
        Some(_) => Err(Mistyped),
    }
}

#[cfg(test)]
mod tests {
    use super::{
        cron_job, horizontal_pod_autoscaler, job, persistent_volume_claim, pod, replica_set,
    };
    use crate::value::Value;

    fn v(json: &str) -> Value {
        Value::from_json(json).expect("valid JSON")
    }

    #[test]
    fn a_pod_is_ready_when_succeeded_or_running_and_ready() {
        let p = |spec: &str, status: &str| {
            pod(&v(&format!(
                r#"{{"apiVersion":"v1","kind":"Pod","spec":{spec},"status":{status}}}"#
            )))
        };
        let ready =
            r#"[{"type":"Ready","status":"True","lastTransitionTime":"2024-01-01T00:00:00Z"}]"#;
        assert!(p("{}", r#"{"phase":"Succeeded"}"#));
        assert!(p(
            r#"{"restartPolicy":"Always"}"#,
            &format!(r#"{{"phase":"Running","conditions":{ready}}}"#)
        ));
        assert!(!p(
            r#"{"restartPolicy":"OnFailure"}"#,
            &format!(r#"{{"phase":"Running","conditions":{ready}}}"#)
        ));
        assert!(!p(
            "{}",
            &format!(r#"{{"phase":"Running","conditions":{ready}}}"#)
        ));
        assert!(!p(
            r#"{"restartPolicy":"Always"}"#,
            r#"{"phase":"Pending"}"#
        ));
        // Mistyped members fail the decode, and the check.
        assert!(!p(r#"{"restartPolicy":1}"#, r#"{"phase":"Succeeded"}"#));
        assert!(!p(
            "{}",
            r#"{"phase":"Succeeded","conditions":[{"type":"Ready","lastProbeTime":"yesterday"}]}"#
        ));
        assert!(!pod(&v(
            r#"{"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"a":1}},"status":{"phase":"Succeeded"}}"#
        )));
        assert!(!pod(&v(
            r#"{"apiVersion":"v1","kind":"Pod","status":"Succeeded"}"#
        )));
    }

    #[test]
    fn a_claim_is_ready_when_bound() {
        let c = |status: &str| {
            persistent_volume_claim(&v(&format!(
                r#"{{"apiVersion":"v1","kind":"PersistentVolumeClaim","status":{status}}}"#
            )))
        };
        assert!(c(r#"{"phase":"Bound"}"#));
        assert!(!c(r#"{"phase":"Pending"}"#));
        assert!(!c("null"));
    }

    #[test]
    fn a_replica_set_needs_its_generation_and_replicas() {
        let rs = |meta: &str, spec: &str, status: &str| {
            replica_set(&v(&format!(
                r#"{{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{meta},"spec":{spec},"status":{status}}}"#
            )))
        };
        assert!(rs("{}", "{}", r#"{"availableReplicas":1}"#));
        assert!(!rs("{}", "{}", "{}"));
        assert!(rs(
            "{}",
            r#"{"replicas":null}"#,
            r#"{"availableReplicas":1.0}"#
        ));
        assert!(rs("{}", r#"{"replicas":0}"#, "{}"));
        assert!(!rs(
            r#"{"generation":2}"#,
            "{}",
            r#"{"observedGeneration":1,"availableReplicas":1}"#
        ));
        assert!(rs(
            r#"{"generation":2}"#,
            "{}",
            r#"{"observedGeneration":2,"availableReplicas":1}"#
        ));
        assert!(!rs(
            "{}",
            "{}",
            r#"{"availableReplicas":1,"conditions":[{"type":"ReplicaFailure","status":"True"}]}"#
        ));
        // A fraction does not decode into an int32.
        assert!(!rs("{}", "{}", r#"{"availableReplicas":1.5}"#));
    }

    #[test]
    fn a_job_is_ready_when_complete_before_any_failure() {
        let j = |conditions: &str| {
            job(&v(&format!(
                r#"{{"apiVersion":"batch/v1","kind":"Job","status":{{"conditions":{conditions}}}}}"#
            )))
        };
        assert!(j(r#"[{"type":"Complete","status":"True"}]"#));
        assert!(!j(
            r#"[{"type":"Failed","status":"True"},{"type":"Complete","status":"True"}]"#
        ));
        assert!(j(
            r#"[{"type":"Complete","status":"True"},{"type":"Failed","status":"True"}]"#
        ));
        assert!(j(
            r#"[{"type":"Failed","status":"False"},{"type":"Complete","status":"True"}]"#
        ));
        assert!(!j(r#"[{"type":"Suspended","status":"True"}]"#));
        assert!(!j("[]"));
    }

    #[test]
    fn a_cron_job_is_ready_when_suspended_active_or_last_run_succeeded() {
        let cj = |spec: &str, status: &str| {
            cron_job(&v(&format!(
                r#"{{"apiVersion":"batch/v1","kind":"CronJob","spec":{spec},"status":{status}}}"#
            )))
        };
        assert!(cj(r#"{"suspend":true}"#, "{}"));
        assert!(!cj("{}", "{}"));
        assert!(cj(
            "{}",
            r#"{"lastScheduleTime":"2024-01-01T00:00:00Z","active":[{"name":"j-1"}]}"#
        ));
        assert!(!cj("{}", r#"{"active":[{"name":"j-1"}]}"#));
        assert!(cj(
            "{}",
            r#"{"lastScheduleTime":"2024-01-01T00:00:00Z","lastSuccessfulTime":"2024-01-01T01:00:00+01:00"}"#
        ));
        assert!(!cj(
            "{}",
            r#"{"lastScheduleTime":"2024-01-01T00:00:00.5Z","lastSuccessfulTime":"2024-01-01T00:00:00Z"}"#
        ));
        assert!(!cj(r#"{"suspend":"true"}"#, "{}"));
        assert!(!cj(r#"{"suspend":true}"#, r#"{"lastScheduleTime":"soon"}"#));
    }

    #[test]
    fn an_autoscaler_is_ready_when_scaling_before_any_failure() {
        let hpa = |conditions: &str| {
            horizontal_pod_autoscaler(&v(&format!(
                r#"{{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","status":{{"conditions":{conditions}}}}}"#
            )))
        };
        assert!(hpa(
            r#"[{"type":"AbleToScale","status":"True"},{"type":"ScalingActive","status":"True"}]"#
        ));
        assert!(hpa(r#"[{"type":"ScalingLimited","status":"True"}]"#));
        assert!(!hpa(
            r#"[{"type":"FailedGetScale","status":"True"},{"type":"ScalingActive","status":"True"}]"#
        ));
        assert!(!hpa(r#"[{"type":"ScalingActive","status":"False"}]"#));
    }
}
