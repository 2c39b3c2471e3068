//! The composition environment: its initial contents and where environment patches read and write.

use crate::semantics::Semantics;
use crate::value::{Map, Value};

use super::PatchType;

/// The object a patch reads from or writes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    /// The composite resource (observed in FN, in-memory natively).
    Composite,
    /// The desired composite resource (FN's writes to the XR).
    DesiredComposite,
    /// The environment.
    Environment,
}

/// Source and target of a patch in `environment.patches`, or `None` for types
/// the engine ignores there (native ignores them silently; FN validation rejects them).
pub(crate) fn direction(kind: &PatchType, sem: Semantics) -> Option<(Side, Side)> {
    let to_xr = match sem {
        Semantics::Native => Side::Composite,
        Semantics::Function => Side::DesiredComposite,
    };
    match kind {
        PatchType::FromCompositeFieldPath | PatchType::CombineFromComposite => {
            Some((Side::Composite, Side::Environment))
        }
        PatchType::ToEnvironmentFieldPath if sem == Semantics::Function => {
            Some((Side::Composite, Side::Environment))
        }
        PatchType::ToCompositeFieldPath | PatchType::CombineToComposite => {
            Some((Side::Environment, to_xr))
        }
        PatchType::FromEnvironmentFieldPath if sem == Semantics::Function => {
            Some((Side::Environment, to_xr))
        }
        _ => None,
    }
}

/// The environment a render starts from: `defaultData` deep-merged with the
/// supplied environment, numbers as `encoding/json` / protobuf give them
/// (all floats), and the internal GVK when none is set.
pub(crate) fn initial(
    default_data: Option<&Value>,
    supplied: Option<&Value>,
    sem: Semantics,
) -> Value {
    let mut env = Value::Object(Map::new());
    for src in [default_data, supplied].into_iter().flatten() {
        deep_merge(&mut env, src);
    }
    env.floats_everywhere();
    default_gvk(&mut env, sem);
    env
}

/// Sets the internal GVK on an environment that has none. FN asks Kubernetes
/// whether the GVK is empty, so an `apiVersion` that does not parse counts as none.
pub(crate) fn default_gvk(env: &mut Value, sem: Semantics) {
    let empty = match sem {
        Semantics::Native => {
            let unset = |k: &str| env.get(k).and_then(Value::as_str).unwrap_or("").is_empty();
            unset("apiVersion") && unset("kind")
        }
        Semantics::Function => crate::value::unstructured::gvk_is_empty(env),
    };
    if let (true, Value::Object(m)) = (empty, env) {
        m.insert(
            "apiVersion".into(),
            "internal.crossplane.io/v1alpha1".into(),
        );
        m.insert("kind".into(), "Environment".into());
    }
}

/// Nested objects merge; everything else is replaced by the later source.
pub(crate) fn deep_merge(dst: &mut Value, src: &Value) {
    match (dst, src) {
        (Value::Object(d), Value::Object(s)) => {
            for (k, v) in s {
                match d.get_mut(k) {
                    Some(existing) => deep_merge(existing, v),
                    None => {
                        d.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (d, s) => *d = s.clone(),
    }
}
