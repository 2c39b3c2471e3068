//! Readiness checks of composed resources and the composite's Ready condition.

use crate::error::{Error, ErrorKind, Result};
use crate::fieldpath;
use crate::semantics::Semantics;
use crate::value::{Map, Value};

/// One readiness check, decoded (native's "empty means unset" already applied).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Check {
    pub(crate) kind: String,
    pub(crate) field_path: Option<String>,
    pub(crate) match_string: Option<String>,
    pub(crate) match_integer: Option<i64>,
    /// `matchCondition` `(type, status)`.
    pub(crate) match_condition: Option<(String, String)>,
}

/// Whether `obj` is ready under `checks` (AND-ed in order). No checks means
/// the Ready condition must be True, which is also the CRD default list.
pub(crate) fn is_ready(obj: &Value, checks: &[Check], sem: Semantics) -> Result<bool> {
    if checks.is_empty() {
        return Ok(condition_status(obj, "Ready") == "True");
    }
    for (i, c) in checks.iter().enumerate() {
        let ready = check(obj, c, sem)
            .map_err(|e| e.wrap(format!("cannot run readiness check at index {i}")))?;
        if !ready {
            return Ok(false);
        }
    }
    Ok(true)
}

fn check(obj: &Value, c: &Check, sem: Semantics) -> Result<bool> {
    validate_at_run(c).map_err(|e| e.wrap("invalid"))?;
    let path = c.field_path.as_deref().unwrap_or("");
    // A missing field is "not ready"; any other read error is an error.
    let read = |sem| match fieldpath::get_value(obj, path, sem) {
        Ok(v) => Ok(Some(v)),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(e),
    };
    Ok(match c.kind.as_str() {
        "None" => true,
        "NonEmpty" => read(sem)?.is_some(),
        "MatchString" => match read(sem)? {
            None => false,
            Some(Value::String(s)) => Some(s) == c.match_string.as_ref(),
            Some(_) => return Err(typed(path, "not a string")),
        },
        "MatchInteger" => match read(sem)? {
            None => false,
            Some(Value::Int(i)) => Some(*i) == c.match_integer,
            Some(_) => return Err(typed(path, "not a (int64) number")),
        },
        "MatchTrue" | "MatchFalse" => match read(sem)? {
            None => false,
            Some(Value::Bool(b)) => *b == (c.kind == "MatchTrue"),
            Some(_) => return Err(typed(path, "not a bool")),
        },
        "MatchCondition" => match &c.match_condition {
            Some((t, s)) => condition_status(obj, t) == s,
            None => condition_status(obj, "Ready") == "True",
        },
        _ => false,
    })
}

/// The engine's own check-time validation (`ReadinessCheck.Validate` in ready.go).
fn validate_at_run(c: &Check) -> Result<()> {
    let kind = &c.kind;
    let msg = match kind.as_str() {
        "None" => return Ok(()),
        "NonEmpty" | "MatchTrue" | "MatchFalse" => None,
        "MatchString" if c.match_string.is_none() => Some("requires a match string"),
        "MatchInteger" if c.match_integer.is_none() => Some("requires a match integer"),
        "MatchString" | "MatchInteger" => None,
        "MatchCondition" if c.match_condition.is_none() => Some("requires a valid match condition"),
        "MatchCondition" => return Ok(()),
        _ => {
            return Err(Error::new(
                ErrorKind::Render,
                format!("unknown type {}", crate::go::quote(kind)),
            ));
        }
    };
    let msg = msg.or(c.field_path.is_none().then_some("requires a field path"));
    match msg {
        Some(m) => Err(Error::new(
            ErrorKind::Render,
            format!("type {} {m}", crate::go::quote(kind)),
        )),
        None => Ok(()),
    }
}

fn typed(path: &str, what: &str) -> Error {
    Error::new(ErrorKind::Render, format!("{path}: {what}")).with_field_path(path)
}

/// `GetCondition(t).Status`: `""` when `status` is missing or not decodable,
/// `Unknown` when no condition of that type exists.
pub(crate) fn condition_status<'a>(obj: &'a Value, t: &str) -> &'a str {
    let Some(status) = obj.get("status") else {
        return "";
    };
    let Some(st) = status.as_object() else {
        return "";
    };
    let conds = match st.get("conditions") {
        None | Some(Value::Null) => return "Unknown",
        Some(Value::Array(a)) => a,
        Some(_) => return "",
    };
    if !conds.iter().all(decodable) {
        return "";
    }
    for c in conds {
        if c.get("type").and_then(Value::as_str) == Some(t) {
            return c.get("status").and_then(Value::as_str).unwrap_or("");
        }
    }
    "Unknown"
}

/// Whether a condition decodes into Crossplane's `Condition` type: string
/// fields, and a `lastTransitionTime` that is RFC 3339 (or null).
fn decodable(c: &Value) -> bool {
    let Some(m) = c.as_object() else {
        return c.is_null();
    };
    let strings_ok = ["type", "status", "reason", "message"]
        .iter()
        .all(|k| matches!(m.get(k), None | Some(Value::Null | Value::String(_))));
    let time_ok = match m.get("lastTransitionTime") {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => crate::go::rfc3339::is_valid(s),
        Some(_) => false,
    };
    strings_ok && time_ok
}

/// Crossplane's "Unready resources" list: sorted, at most three named.
pub(crate) fn unready_message(names: &mut [String]) -> String {
    crate::sort::sort_by(names, Ord::cmp);
    let list = match names {
        [] => String::new(),
        [a] => a.clone(),
        [a, b] => format!("{a}, {b}"),
        [a, b, c] => format!("{a}, {b}, and {c}"),
        [a, b, c, rest @ ..] => format!("{a}, {b}, {c}, and {} more", rest.len()),
    };
    format!("Unready resources: {list}")
}

/// Sets the composite's Ready condition (replacing one of the same type).
pub(crate) fn set_ready_condition(
    xr: &mut Value,
    ready: bool,
    message: Option<String>,
    now: Option<&str>,
) {
    let mut c = Map::new();
    c.insert("type".into(), "Ready".into());
    c.insert("status".into(), if ready { "True" } else { "False" }.into());
    c.insert(
        "reason".into(),
        if ready { "Available" } else { "Creating" }.into(),
    );
    if let Some(m) = message {
        c.insert("message".into(), m.into());
    }
    if let Some(t) = now {
        c.insert("lastTransitionTime".into(), t.into());
    }
    let Value::Object(root) = xr else { return };
    let status = root.get_or_insert_with("status", || Value::Object(Map::new()));
    if !matches!(status, Value::Object(_)) {
        *status = Value::Object(Map::new());
    }
    let Value::Object(st) = status else { return };
    let conds = st.get_or_insert_with("conditions", || Value::Array(Vec::new()));
    if !matches!(conds, Value::Array(_)) {
        *conds = Value::Array(Vec::new());
    }
    let Value::Array(list) = conds else { return };
    let new = Value::Object(c);
    // `SetConditions`: an equal condition (type, status, reason, message) is
    // kept as it is, timestamp included; a different one is replaced.
    let same = |a: &Value, b: &Value| {
        ["type", "status", "reason", "message"]
            .iter()
            .all(|k| a.get(k) == b.get(k))
    };
    match list
        .iter_mut()
        .find(|x| x.get("type").and_then(Value::as_str) == Some("Ready"))
    {
        Some(existing) if same(existing, &new) => {}
        Some(existing) => *existing = new,
        None => list.push(new),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unready_lists_three_names_and_counts_the_rest() {
        let names = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        for (input, want) in [
            (vec!["b"], "Unready resources: b"),
            (vec!["b", "a"], "Unready resources: a, b"),
            (vec!["c", "a", "b"], "Unready resources: a, b, and c"),
            (
                vec!["d", "c", "a", "b"],
                "Unready resources: a, b, c, and 1 more",
            ),
            (
                vec!["e", "d", "c", "a", "b"],
                "Unready resources: a, b, c, and 2 more",
            ),
        ] {
            assert_eq!(unready_message(&mut names(&input)), want);
        }
    }

    #[test]
    fn condition_status_follows_get_condition() {
        for (obj, want) in [
            (r#"{}"#, ""),
            (r#"{"status":"x"}"#, ""),
            (r#"{"status":{}}"#, "Unknown"),
            (
                r#"{"status":{"conditions":[{"type":"Synced","status":"True"}]}}"#,
                "Unknown",
            ),
            (
                r#"{"status":{"conditions":[{"type":"Ready","status":"False"}]}}"#,
                "False",
            ),
        ] {
            let v = Value::from_json(obj).expect("valid JSON");
            assert_eq!(condition_status(&v, "Ready"), want, "{obj}");
        }
    }
}
