//! Combine patches: several source fields formatted into one string (`strategy: string`).

use std::borrow::Cow;

use crate::error::{Error, ErrorKind, Result};
use crate::fieldpath;
use crate::fmt;
use crate::semantics::Semantics;
use crate::trace::PatchTrace;
use crate::value::Value;

use super::{Patch, Reread, reread, run_transforms, write};

/// Applies a combine patch reading `from` and writing `to`.
pub(super) fn apply(
    p: &Patch,
    from: &Value,
    to: &mut Value,
    sem: Semantics,
    mut trace: Option<&mut PatchTrace>,
    reread_as: Reread,
) -> Result<()> {
    let kind = p.kind.as_str();
    let Some(c) = &p.combine else {
        return Err(render(format!("Combine is required by type {kind}")));
    };
    let Some(to_path) = &p.to_field_path else {
        return Err(render(format!("ToFieldPath is required by type {kind}")));
    };
    if c.variables.is_empty() {
        return Err(render("combine patch types require at least one variable"));
    }
    let mut vars = Vec::with_capacity(c.variables.len());
    let quiet = super::quiet_miss(p, trace.as_deref());
    for path in &c.variables {
        let read = if quiet {
            fieldpath::get_value_at_quiet(from, path, sem)
        } else {
            fieldpath::get_value_at(from, path, sem)
        };
        match read {
            Ok(v) => {
                if let Some(t) = trace.as_deref_mut() {
                    t.read(path, v);
                }
                vars.push(v.clone());
            }
            Err(e) if quiet && e.is_not_found() => return Err(e),
            Err(e) => {
                // One missing variable skips (or fails) the whole patch: no partial formatting.
                if let Some(t) = trace.as_deref_mut() {
                    t.read_failed(path, &e);
                }
                return Err(e.with_field_path(&**path));
            }
        }
    }
    let combined = match c.strategy.as_str() {
        "string" => match c.string_fmt.as_deref() {
            Some(f) => fmt::sprintf(f, &vars)?,
            None => {
                return Err(render(format!(
                    "given combine strategy {} requires configuration",
                    c.strategy
                )));
            }
        },
        other => {
            return Err(render(format!("combine strategy {other} is not supported")));
        }
    };
    if let Some(t) = trace.as_deref_mut() {
        t.combined = Some(combined.clone());
    }
    let out = run_transforms(
        p,
        Cow::Owned(Value::String(combined)),
        sem,
        trace.as_deref_mut(),
    )?;
    // Native combine patches always replace; FN honours toFieldPath policies (v0.8.0+).
    let opts = match sem {
        Semantics::Native => None,
        Semantics::Function => p.policy.merge_options(sem)?,
    };
    let reread_as = reread_as.for_write(opts);
    let out = reread_as.prepare(out);
    let res = write(to, to_path, out, opts, sem, trace).and_then(|()| reread(to, sem, reread_as));
    if sem == Semantics::Function {
        res.map_err(|e| e.wrap("cannot patch to object"))
    } else {
        res
    }
}

fn render(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::Render, msg)
}
