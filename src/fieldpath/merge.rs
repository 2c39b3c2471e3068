//! `MergeValue` with mergo v1 semantics, and function-patch-and-transform's `toFieldPath` policies.

use super::Segment;
use super::paved;
use crate::error::{Error, ErrorKind, Result};
use crate::semantics::Semantics;
use crate::value::Value;

/// Deepest object nesting a merge descends into.
const MAX_MERGE_DEPTH: usize = 512;

/// Merge behaviour of a write (`mergo` options).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct MergeOptions {
    /// Do not overwrite existing non-empty values (mergo without `WithOverride`).
    pub(crate) keep_map_values: bool,
    /// Append arrays instead of replacing them (mergo `WithAppendSlice`).
    pub(crate) append_slice: bool,
}

/// The merge options of a function-patch-and-transform `policy.toFieldPath`
/// (`toMergeOption`): `None` (or `Replace`) replaces the destination.
///
/// # Errors
/// `invalid patch policy <policy>` for any other value. There is no
/// `ForceAppendArray`: upstream only knows the names below.
pub(crate) fn merge_options_for_policy(policy: Option<&str>) -> Result<Option<MergeOptions>> {
    let (keep_map_values, append_slice) = match policy {
        None | Some("Replace") => return Ok(None),
        Some("MergeObjects" | "MergeObject") => (true, false),
        Some("MergeObjectsAppendArrays") => (true, true),
        Some("ForceMergeObjects") => (false, false),
        Some("ForceMergeObjectsAppendArrays" | "AppendArray") => (false, true),
        Some(other) => {
            return Err(Error::new(
                ErrorKind::InvalidComposition,
                format!("invalid patch policy {other}"),
            ));
        }
    };
    Ok(Some(MergeOptions {
        keep_map_values,
        append_slice,
    }))
}

/// `MergeValue` by segments.
pub(super) fn merge_value(
    obj: &mut Value,
    segments: &[Segment],
    mut src: Value,
    opts: Option<MergeOptions>,
    sem: Semantics,
) -> Result<()> {
    let Some(opts) = opts else {
        return paved::set(obj, segments, src, sem);
    };
    let dst = match paved::get(obj, segments, sem) {
        Ok(v) => v,
        Err(e) if e.is_not_found() => &paved::NULL,
        Err(e) => return Err(e),
    };
    if dst.is_null() || src.is_null() {
        return paved::set(obj, segments, src, sem);
    }
    if opts.append_slice
        && let (Value::Array(d), Value::Array(s)) = (dst, &mut src)
    {
        // `removeSourceDuplicates`: only the top level, compared by type and value.
        s.retain(|item| !d.contains(item));
        // The rebuilt list is a nil slice when empty; merged onto an empty
        // array it survives as `null`.
        if s.is_empty() && d.is_empty() {
            return paved::set(obj, segments, Value::Null, sem);
        }
    }
    check(dst, &src, opts, 0).map_err(|e| e.wrap("failed to merge values"))?;
    if src.check_finite().is_err() {
        // Rare: whether NaN survives the merge decides the error, so merge a copy.
        let mut merged = dst.clone();
        merge_into(&mut merged, src, opts);
        return paved::set(obj, segments, merged, sem);
    }
    paved::check_indexes(segments)?;
    let slot = paved::get_mut(obj, segments, sem)?;
    merge_into(slot, src, opts);
    paved::to_valid_json(slot)
}

/// mergo's `isEmptyValue` on a dereferenced interface.
fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Int(i) => *i == 0,
        Value::Float(f) => *f == 0.0,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(m) => m.is_empty(),
    }
}

/// Finds the one way a merge can fail before anything is changed: appending
/// an array onto a value that is neither an array nor `null`.
fn check(dst: &Value, src: &Value, opts: MergeOptions, depth: usize) -> Result<()> {
    match (dst, src) {
        (Value::Object(d), Value::Object(s)) if !d.is_empty() => {
            if depth >= MAX_MERGE_DEPTH {
                return Err(Error::new(
                    ErrorKind::Limit,
                    format!("values nested deeper than {MAX_MERGE_DEPTH} levels"),
                ));
            }
            for (k, sv) in s {
                if let Some(dv) = d.get(k) {
                    check(dv, sv, opts, depth + 1)?;
                }
            }
            Ok(())
        }
        (Value::Null | Value::Array(_), Value::Array(_)) => Ok(()),
        (d, Value::Array(_)) if opts.append_slice => Err(Error::new(
            ErrorKind::Render,
            format!(
                "cannot append two slices with different type ([]interface {{}}, {})",
                d.go_type()
            ),
        )),
        _ => Ok(()),
    }
}

/// Merges `src` into the present destination `dst` (mergo's map-entry rules,
/// which also govern the top level through crossplane-runtime's wrapper map).
/// [`check`] has ruled out every error.
fn merge_into(dst: &mut Value, src: Value, opts: MergeOptions) {
    let overwrite = !opts.keep_map_values;
    match src {
        Value::Null => {
            if overwrite {
                *dst = Value::Null;
            }
        }
        Value::Object(s) => match &mut *dst {
            // mergo merges into an empty map in place and then replaces it by
            // the source only if it is still empty: kept-away nulls vanish
            // unless nothing else arrived.
            Value::Object(d) if d.is_empty() => {
                if overwrite || s.values().all(Value::is_null) {
                    *d = s;
                } else {
                    *d = s.into_iter().filter(|(_, v)| !v.is_null()).collect();
                }
            }
            Value::Object(d) => {
                for (k, sv) in s {
                    match d.get_mut(&k) {
                        Some(dv) => merge_into(dv, sv, opts),
                        // An absent member takes the source, except a kept-away null.
                        None if sv.is_null() && !overwrite => {}
                        None => {
                            d.insert(k, sv);
                        }
                    }
                }
            }
            // mergo ≥ 1.0 replaces a non-empty non-map only when overriding.
            _ => {
                if overwrite || is_empty(dst) {
                    *dst = Value::Object(s);
                }
            }
        },
        Value::Array(s) => {
            if opts.append_slice {
                match dst {
                    Value::Array(d) => d.extend(s),
                    _ => *dst = Value::Array(s),
                }
            } else if overwrite || is_empty(dst) {
                *dst = Value::Array(s);
            }
        }
        scalar => {
            if overwrite || is_empty(dst) {
                *dst = scalar;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fieldpath::FieldPath;
    use crate::value::Map;

    fn nest(depth: usize) -> Value {
        let mut v = Value::Int(1);
        for _ in 0..depth {
            let mut m = Map::new();
            m.insert("k".to_owned(), v);
            v = Value::Object(m);
        }
        v
    }

    /// Values built in memory can nest deeper than any JSON input; the merge
    /// refuses them instead of exhausting the stack.
    #[test]
    fn merge_depth_is_bounded() {
        let mut obj = Value::Object(Map::new());
        let path = FieldPath::parse("x").expect("valid");
        let opts = Some(MergeOptions {
            keep_map_values: true,
            append_slice: false,
        });
        crate::fieldpath::set_value_at(&mut obj, &path, nest(600), Semantics::Native).expect("set");
        let err = merge_value(
            &mut obj,
            path.segments(),
            nest(600),
            opts,
            Semantics::Native,
        )
        .expect_err("too deep");
        assert_eq!(err.kind(), ErrorKind::Limit);
        assert_eq!(
            err.message(),
            "failed to merge values: values nested deeper than 512 levels"
        );
        let shallow = nest(100);
        let mut obj2 = Value::Object(Map::new());
        crate::fieldpath::set_value_at(&mut obj2, &path, shallow.clone(), Semantics::Native)
            .expect("set");
        merge_value(
            &mut obj2,
            path.segments(),
            shallow.clone(),
            opts,
            Semantics::Native,
        )
        .expect("merges");
        assert_eq!(obj2.get("x"), Some(&shallow));
    }
}
