//! Up-front validation as each engine does it: native v1.12+ refuses an invalid
//! Composition; function-patch-and-transform rejects invalid input with a Fatal result.
//!
//! Messages are Kubernetes `field.Error` texts (`<path>: Required value: <detail>`,
//! `<path>: Invalid value: "<v>": <detail>`), as both engines produce them.

use std::fmt::Display;

use crate::error::{Error, ErrorKind, Result};
use crate::go::quote;
use crate::patch::policy::valid_to_field_path;
use crate::patch::{Patch, PatchType};
use crate::readiness::Check;
use crate::semantics::Semantics;
use crate::sort::repeats;
use crate::value::Value;

use super::composition::{PtInput, Template};

/// A Kubernetes `field.Error` of the kinds these validations report.
#[derive(Clone, Debug, PartialEq, Eq)]
enum FieldError {
    Required {
        path: String,
        detail: String,
    },
    Invalid {
        path: String,
        value: String,
        detail: String,
    },
    Duplicate {
        path: String,
        value: String,
    },
    /// A transform's own field error, as the transform module words it.
    Transform(Error),
}

impl Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Required { path, detail } => write!(f, "{path}: Required value: {detail}"),
            Self::Invalid {
                path,
                value,
                detail,
            } => write!(f, "{path}: Invalid value: {}: {detail}", quote(value)),
            Self::Duplicate { path, value } => {
                write!(f, "{path}: Duplicate value: {}", quote(value))
            }
            Self::Transform(e) => f.write_str(e.message()),
        }
    }
}

fn required(path: &str, detail: &str) -> FieldError {
    FieldError::Required {
        path: path.to_owned(),
        detail: detail.to_owned(),
    }
}

fn invalid(path: &str, value: &str, detail: &str) -> FieldError {
    FieldError::Invalid {
        path: path.to_owned(),
        value: value.to_owned(),
        detail: detail.to_owned(),
    }
}

/// `<prefix>.<key>[<index>]` (`<key>[<index>]` at the root), written only
/// when an error needs it.
#[derive(Clone, Copy)]
struct Item<'a> {
    prefix: &'a str,
    key: &'static str,
    index: usize,
}

impl Display for Item<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.prefix.is_empty() {
            write!(f, "{}.", self.prefix)?;
        }
        write!(f, "{}[{}]", self.key, self.index)
    }
}

/// `<parent>.<key>[<index>]`, written only when an error needs it.
struct Under<'a> {
    parent: &'a dyn Display,
    key: &'static str,
    index: usize,
}

impl Display for Under<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}[{}]", self.parent, self.key, self.index)
    }
}

fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// Kubernetes' `utilerrors.NewAggregate(...).Error()`: one message as is,
/// several de-duplicated in a bracketed, comma-separated list.
fn aggregate(errs: &[FieldError]) -> String {
    let texts: Vec<String> = errs.iter().map(ToString::to_string).collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let uniq: Vec<&str> = texts
        .iter()
        .zip(repeats(&texts))
        .filter(|(_, repeated)| !repeated)
        .map(|(t, _)| *t)
        .collect();
    match uniq.as_slice() {
        [one] => (*one).to_owned(),
        many => format!("[{}]", many.join(", ")),
    }
}

/// Native (v1.14) runtime validation of a Composition's resources.
pub(crate) fn native(input: &PtInput) -> Result<()> {
    let mut errs = Vec::new();
    let base = input.base_path.as_str();
    if input.mode_resources && input.resources.is_empty() {
        errs.push(required(
            &child(base, "resources"),
            "an array of resources is required in Resources mode (the default if no mode is specified)",
        ));
    }
    patch_set_errors(input, base, &mut errs);
    patch_set_name_errors(input, base, &mut errs);
    name_errors(input, base, &mut errs);
    resource_errors(input, base, &mut errs);
    if errs.is_empty() {
        return Ok(());
    }
    Err(Error::new(
        ErrorKind::InvalidComposition,
        format!("refusing to use invalid Composition: {}", aggregate(&errs)),
    ))
}

/// `validatePatchSets`: no patch set nests another; each patch is valid.
fn patch_set_errors(input: &PtInput, base: &str, errs: &mut Vec<FieldError>) {
    for (i, s) in input.patch_sets.iter().enumerate() {
        let sp = format!("{}[{i}]", child(base, "patchSets"));
        for (j, p) in s.patches.iter().enumerate() {
            let pp = Item {
                prefix: &sp,
                key: "patches",
                index: j,
            };
            if p.kind == PatchType::PatchSet {
                errs.push(invalid(
                    &format!("{pp}.type"),
                    "PatchSet",
                    "cannot use patches within patches",
                ));
                continue;
            }
            if let Err(e) = native_patch(p, &pp) {
                errs.push(e);
            }
        }
    }
}

/// Every PatchSet patch names a declared patch set.
fn patch_set_name_errors(input: &PtInput, base: &str, errs: &mut Vec<FieldError>) {
    for (i, r) in input.resources.iter().enumerate() {
        for (j, p) in r.patches.iter().enumerate() {
            if p.kind != PatchType::PatchSet {
                continue;
            }
            // Written only for an error.
            let pp = || {
                format!(
                    "{}[{i}].patches[{j}].patchSetName",
                    child(base, "resources")
                )
            };
            match &p.patch_set_name {
                None => errs.push(required(&pp(), "must be specified when type is patchSet")),
                Some(n) if !input.patch_sets.iter().any(|s| &s.name == n) => errs.push(invalid(
                    &pp(),
                    n,
                    "patchSetName must be the name of a declared patchSet",
                )),
                Some(_) => {}
            }
        }
    }
}

/// `validateResources`: names are unique, and all resources are named or none.
fn name_errors(input: &PtInput, base: &str, errs: &mut Vec<FieldError>) {
    // Upstream keeps a set of the names accepted so far. The first resource decides:
    // when it is named, every later named resource is accepted or a duplicate of one
    // that was, and every anonymous one is refused; when it is not, the set stays
    // empty and every named one is refused.
    let first_named = input.resources.first().is_some_and(|r| r.named);
    let named: Vec<&str> = input
        .resources
        .iter()
        .filter(|r| r.named)
        .map(|r| r.name.as_str())
        .collect();
    let mut repeated = repeats(&named).into_iter();
    for (i, r) in input.resources.iter().enumerate() {
        // Written only for an error.
        let np = || format!("{}[{i}].name", child(base, "resources"));
        if !r.named {
            if i != 0 && first_named {
                errs.push(required(
                    &np(),
                    "cannot mix named and anonymous resources, all resources must have a name or none must have a name",
                ));
            }
            continue;
        }
        let seen_before = repeated.next().unwrap_or(false);
        if first_named && seen_before {
            errs.push(FieldError::Duplicate {
                path: np(),
                value: r.name.clone(),
            });
            continue;
        }
        if i != 0 && !first_named {
            errs.push(invalid(
                &np(),
                &r.name,
                "cannot mix named and anonymous resources, all resources must have a name or none must have a name",
            ));
        }
    }
}

/// `validateResources`: each resource's patches and readiness checks.
fn resource_errors(input: &PtInput, base: &str, errs: &mut Vec<FieldError>) {
    for (i, r) in input.resources.iter().enumerate() {
        let rp = Item {
            prefix: base,
            key: "resources",
            index: i,
        };
        for (j, p) in r.patches.iter().enumerate() {
            let pp = Under {
                parent: &rp,
                key: "patches",
                index: j,
            };
            if let Err(e) = native_patch(p, &pp) {
                errs.push(e);
            }
        }
        for (j, c) in r.readiness_checks.iter().enumerate() {
            let cp = Under {
                parent: &rp,
                key: "readinessChecks",
                index: j,
            };
            if let Err(e) = native_check(c, &cp) {
                errs.push(e);
            }
        }
    }
}

/// v1 `Patch.Validate`.
fn native_patch(p: &Patch, path: &dyn Display) -> Result<(), FieldError> {
    let t = p.kind.as_str();
    match &p.kind {
        PatchType::FromCompositeFieldPath
        | PatchType::ToCompositeFieldPath
        | PatchType::FromEnvironmentFieldPath
        | PatchType::ToEnvironmentFieldPath => {
            if p.from_field_path.is_none() {
                return Err(required(
                    &format!("{path}.fromFieldPath"),
                    &format!("fromFieldPath must be set for patch type {t}"),
                ));
            }
        }
        PatchType::PatchSet => {
            if p.patch_set_name.is_none() {
                return Err(required(
                    &format!("{path}.patchSetName"),
                    &format!("patchSetName must be set for patch type {t}"),
                ));
            }
        }
        PatchType::CombineFromComposite
        | PatchType::CombineToComposite
        | PatchType::CombineFromEnvironment
        | PatchType::CombineToEnvironment => {
            if p.combine.is_none() {
                return Err(required(
                    &format!("{path}.combine"),
                    &format!("combine must be set for patch type {t}"),
                ));
            }
            if p.to_field_path.is_none() {
                return Err(required(
                    &format!("{path}.toFieldPath"),
                    &format!("toFieldPath must be set for patch type {t}"),
                ));
            }
        }
        PatchType::Unknown(_) => {
            return Err(invalid(&format!("{path}.type"), t, "unknown patch type"));
        }
    }
    // Read again from the list, for their errors, only when decoding found
    // a transform that fails (or a list it did not decode one for one).
    if sound(p, Semantics::Native) {
        return Ok(());
    }
    native_string_types(&p.transforms, path)?;
    transforms(&p.transforms, path, true)
}

/// Whether decoding `p` for `sem` found each of its transforms to pass
/// `sem`'s validation. The decoded transforms are those written and the
/// validated ones carry the CRD defaults, which native validation assumes
/// anyway: its verdict is the same on both.
fn sound(p: &Patch, sem: Semantics) -> bool {
    p.pipeline.len() == p.transforms.len() && p.pipeline.iter().all(|t| t.passes(sem))
}

/// Crossplane v1.14 knows five string transform types; `Join` (v1.15) and
/// `Replace` (function-patch-and-transform only) are unknown to its validation.
fn native_string_types(ts: &[Value], path: &dyn Display) -> Result<(), FieldError> {
    for (i, t) in ts.iter().enumerate() {
        if t.get("type").and_then(Value::as_str) != Some("string") {
            continue;
        }
        let kind = t
            .get("string")
            .and_then(|s| s.get("type"))
            .and_then(Value::as_str)
            .unwrap_or("");
        if matches!(kind, "Join" | "Replace") {
            return Err(invalid(
                &format!("{path}.transforms[{i}].string.type"),
                kind,
                "unknown string transform type",
            ));
        }
    }
    Ok(())
}

fn transforms(ts: &[Value], path: &dyn Display, native: bool) -> Result<(), FieldError> {
    let check = |t: &Value, at: &str| {
        if native {
            crate::transform::validate_native(t, at)
        } else {
            crate::transform::validate_function(t, at)
        }
    };
    for (i, t) in ts.iter().enumerate() {
        // The path is only written out for a transform that is invalid.
        if check(t, "").is_err() {
            check(t, &format!("{path}.transforms[{i}]")).map_err(FieldError::Transform)?;
        }
    }
    Ok(())
}

/// v1 `ReadinessCheck.Validate` (zero values already read as unset).
fn native_check(c: &Check, path: &dyn Display) -> Result<(), FieldError> {
    check(
        c,
        path,
        "cannot be empty for type MatchString",
        "cannot be 0 for type MatchInteger",
    )
}

/// FN's readiness check validation: the same rules, with pointers ("nil") for unset values.
fn fn_check(c: &Check, path: &dyn Display) -> Result<(), FieldError> {
    check(
        c,
        path,
        "cannot be nil for type MatchString",
        "cannot be nil for type MatchInteger",
    )
}

fn check(
    c: &Check,
    path: &dyn Display,
    no_string: &str,
    no_integer: &str,
) -> Result<(), FieldError> {
    match c.kind.as_str() {
        "None" => return Ok(()),
        "MatchString" if c.match_string.is_none() => {
            return Err(required(&format!("{path}.matchString"), no_string));
        }
        "MatchInteger" if c.match_integer.is_none() => {
            return Err(required(&format!("{path}.matchInteger"), no_integer));
        }
        "MatchCondition" => return match_condition(c, path),
        "MatchString" | "MatchInteger" | "NonEmpty" | "MatchTrue" | "MatchFalse" => {}
        other => {
            return Err(invalid(
                &format!("{path}.type"),
                other,
                "unknown readiness check type",
            ));
        }
    }
    if c.field_path.is_none() {
        return Err(required(&format!("{path}.fieldPath"), "cannot be empty"));
    }
    Ok(())
}

fn match_condition(c: &Check, path: &dyn Display) -> Result<(), FieldError> {
    match &c.match_condition {
        Some((t, _)) if t.is_empty() => Err(required(
            &format!("{path}.matchCondition.type"),
            "cannot be empty for type MatchCondition",
        )),
        Some((_, s)) if s.is_empty() => Err(required(
            &format!("{path}.matchCondition.status"),
            "cannot be empty for type MatchCondition",
        )),
        _ => Ok(()),
    }
}

/// function-patch-and-transform's `ValidateResources`: the first problem only.
pub(crate) fn function(input: &PtInput) -> Result<()> {
    fn_resources(input).map_err(|m| {
        Error::new(
            ErrorKind::InvalidComposition,
            format!("invalid Function input: {m}"),
        )
    })
}

fn fn_resources(input: &PtInput) -> Result<(), FieldError> {
    for s in &input.patch_sets {
        // ValidatePatchSet's errors are not prefixed with the set's index.
        if s.name.is_empty() {
            return Err(required("name", "name is required"));
        }
        for (i, p) in s.patches.iter().enumerate() {
            let pp = Item {
                prefix: "",
                key: "patches",
                index: i,
            };
            fn_patch(p, &pp, true)?;
        }
    }
    if input.resources.is_empty() && input.environment_patches.is_empty() {
        return Err(required(
            "resources",
            "resources or environment patches are required",
        ));
    }
    for (i, r) in input.resources.iter().enumerate() {
        fn_template(r, &format!("resources[{i}]"))?;
    }
    for (i, p) in input.environment_patches.iter().enumerate() {
        match p.kind {
            PatchType::FromCompositeFieldPath
            | PatchType::ToCompositeFieldPath
            | PatchType::CombineFromComposite
            | PatchType::CombineToComposite
            | PatchType::FromEnvironmentFieldPath
            | PatchType::ToEnvironmentFieldPath => {}
            _ => {
                return Err(invalid(
                    &format!("environment.patches[{i}][type]"),
                    p.kind.as_str(),
                    "invalid environment patch type",
                ));
            }
        }
        let pp = Item {
            prefix: "environment",
            key: "patches",
            index: i,
        };
        fn_patch(p, &pp, false)?;
    }
    Ok(())
}

fn fn_template(t: &Template, path: &str) -> Result<(), FieldError> {
    if !t.named {
        return Err(required(&format!("{path}.name"), "name is required"));
    }
    for (i, p) in t.patches.iter().enumerate() {
        let pp = Item {
            prefix: path,
            key: "patches",
            index: i,
        };
        fn_patch(p, &pp, false)?;
    }
    for (i, d) in t.connection_details.iter().enumerate() {
        let dp = format!("{path}.connectionDetails[{i}]");
        if d.kind.is_empty() {
            return Err(required(
                &format!("{dp}.type"),
                "connection detail type is required",
            ));
        }
        let (field, detail) = match d.kind.as_str() {
            "FromValue" => (
                d.value.is_none(),
                ("value", "value connection detail requires a value"),
            ),
            "FromConnectionSecretKey" => (
                d.from_connection_secret_key.is_none(),
                (
                    "fromConnectionSecretKey",
                    "from connection secret key connection detail requires a key",
                ),
            ),
            "FromFieldPath" => (
                d.from_field_path.is_none(),
                (
                    "fromFieldPath",
                    "from field path connection detail requires a field path",
                ),
            ),
            other => {
                return Err(invalid(
                    &format!("{dp}.type"),
                    other,
                    "unknown connection detail type",
                ));
            }
        };
        if d.name.as_deref().unwrap_or("").is_empty() {
            return Err(required(&format!("{dp}.name"), "name is required"));
        }
        if field {
            return Err(required(&format!("{dp}.{}", detail.0), detail.1));
        }
    }
    for (i, c) in t.readiness_checks.iter().enumerate() {
        fn_check(c, &format!("{path}.readinessChecks[{i}]"))?;
    }
    Ok(())
}

/// FN `ValidatePatch`; `in_set` marks a patch of a PatchSet (which cannot reference sets).
fn fn_patch(p: &Patch, path: &dyn Display, in_set: bool) -> Result<(), FieldError> {
    let t = p.kind.as_str();
    match &p.kind {
        PatchType::FromCompositeFieldPath
        | PatchType::ToCompositeFieldPath
        | PatchType::FromEnvironmentFieldPath
        | PatchType::ToEnvironmentFieldPath => {
            if p.from_field_path.as_deref().unwrap_or("").is_empty() {
                return Err(required(
                    &format!("{path}.fromFieldPath"),
                    &format!("fromFieldPath must be set for patch type {t}"),
                ));
            }
        }
        PatchType::PatchSet => {
            if in_set {
                return Err(invalid(
                    &format!("{path}.type"),
                    t,
                    "patch type *v1beta1.PatchSetPatch does not support patch of type PatchSet",
                ));
            }
            if p.patch_set_name.as_deref().unwrap_or("").is_empty() {
                return Err(required(
                    &format!("{path}.patchSetName"),
                    &format!("patchSetName must be set for patch type {t}"),
                ));
            }
        }
        PatchType::CombineFromComposite
        | PatchType::CombineToComposite
        | PatchType::CombineFromEnvironment
        | PatchType::CombineToEnvironment => {
            // Combine patches return here: transforms and policy go unchecked.
            return fn_combine(p, path);
        }
        PatchType::Unknown(_) => {
            return Err(invalid(&format!("{path}.type"), t, "unknown patch type"));
        }
    }
    if !sound(p, Semantics::Function) {
        transforms(&p.transforms, path, false)?;
    }
    if let Some(tp) = &p.policy.to_field_path
        && !valid_to_field_path(tp)
    {
        return Err(invalid(
            &format!("{path}.policy.toFieldPathPolicy"),
            tp,
            "unknown toFieldPathPolicy",
        ));
    }
    if let Some(fp) = &p.policy.from_field_path
        && *fp != "Optional"
        && *fp != "Required"
    {
        return Err(invalid(
            &format!("{path}.policy.fromFieldPathPolicy"),
            fp,
            "unknown fromFieldPathPolicy",
        ));
    }
    Ok(())
}

/// A function Combine patch: its combine block and target.
fn fn_combine(p: &Patch, path: &dyn Display) -> Result<(), FieldError> {
    let t = p.kind.as_str();
    let Some(c) = &p.combine else {
        return Err(required(
            &format!("{path}.combine"),
            &format!("combine must be set for patch type {t}"),
        ));
    };
    if p.to_field_path.as_deref().unwrap_or("").is_empty() {
        return Err(required(
            &format!("{path}.toFieldPath"),
            &format!("toFieldPath must be set for patch type {t}"),
        ));
    }
    let cp = format!("{path}.combine");
    match c.strategy.as_str() {
        "string" if c.string_fmt.is_none() => {
            return Err(required(
                &format!("{cp}.string"),
                "string must be set for combine strategy string",
            ));
        }
        "string" => {}
        "" => {
            return Err(required(
                &format!("{cp}.strategy"),
                "a combine strategy must be provided",
            ));
        }
        other => {
            return Err(invalid(
                &format!("{cp}.strategy"),
                other,
                "unknown strategy type",
            ));
        }
    }
    if c.variables.is_empty() {
        return Err(required(
            &format!("{cp}.variables"),
            "at least one variable must be provided",
        ));
    }
    if let Some(i) = c.variables.iter().position(|v| v.is_empty()) {
        return Err(required(
            &format!("{cp}.variables[{i}].fromFieldPath"),
            "fromFieldPath must be set for each combine variable",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{aggregate, invalid, required};

    #[test]
    fn aggregate_is_kubernetes_aggregate_text() {
        let a = required("a", "x");
        let b = invalid("b", "v", "y");
        let (ta, tb) = ("a: Required value: x", "b: Invalid value: \"v\": y");
        assert_eq!(aggregate(std::slice::from_ref(&a)), ta);
        assert_eq!(aggregate(&[a.clone(), b.clone()]), format!("[{ta}, {tb}]"));
        assert_eq!(aggregate(&[a.clone(), a.clone()]), ta);
        assert_eq!(aggregate(&[a.clone(), b, a]), format!("[{ta}, {tb}]"));
    }
}
