//! The engine's JSON reader against serde_json, the reference parser: both accept the same
//! texts and read the same values, except for the deliberate differences below, which
//! follow Go's `encoding/json` and Kubernetes' decoder (docs/security.md lists them):
//!
//! 1. Lone or reversed UTF-16 surrogate escapes (`"\ud800"`): Go decodes them to U+FFFD;
//!    serde_json refuses the text.
//! 2. Nesting: the engine refuses more than 1000 levels; serde_json (without its recursion
//!    limit) accepts any.
//! 3. Numbers beyond `float64` (`1e400`): both refuse, so no difference; integers beyond
//!    `int64` are floats in the engine (Kubernetes) and `u64` or floats in serde_json:
//!    values are compared as numbers.
//! 4. `-0` is the integer 0 in the engine (Kubernetes reads integers into `int64`) and the
//!    float -0.0 in serde_json: equal as numbers.
//!
//! Duplicate keys: both keep the last (as Go does).

use serde::Deserialize as _;
use serde_json::Value as Json;
use xprender::Value;

/// How the two readers disagree on `text`, or `None` when they agree.
pub(crate) fn difference(text: &str) -> Option<String> {
    let engine = Value::from_json(text);
    let reference = reference(text);
    match (engine, reference) {
        (Ok(e), Ok(r)) => {
            (!same(&e, &r)).then(|| format!("values differ: engine {e:?}, serde_json {r}"))
        }
        (Err(_), Err(_)) => None,
        (Ok(e), Err(r)) => {
            if has_lone_surrogate(text) {
                return None; // difference 1
            }
            Some(format!("engine accepts ({e:?}), serde_json refuses: {r}"))
        }
        (Err(e), Ok(r)) => {
            if depth(&r) > 1000 {
                return None; // difference 2
            }
            Some(format!("engine refuses ({e}), serde_json accepts: {r}"))
        }
    }
}

fn reference(text: &str) -> serde_json::Result<Json> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let v = Json::deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

/// Equal values: numbers by value, objects by members.
pub(crate) fn same(e: &Value, r: &Json) -> bool {
    match (e, r) {
        (Value::Null, Json::Null) => true,
        (Value::Bool(a), Json::Bool(b)) => a == b,
        (Value::Int(a), Json::Number(n)) => match (n.as_i64(), n.as_u64()) {
            (Some(b), _) => *a == b,
            (None, Some(_)) => false,
            // -0.0 and friends: compare as floats.
            #[allow(clippy::cast_precision_loss)]
            (None, None) => n.as_f64() == Some(*a as f64),
        },
        (Value::Float(a), Json::Number(n)) => n.as_f64() == Some(*a),
        (Value::String(a), Json::String(b)) => a == b,
        (Value::Array(a), Json::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
        }
        (Value::Object(a), Json::Object(b)) => {
            a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| same(v, w)))
        }
        _ => false,
    }
}

fn depth(v: &Json) -> usize {
    // Iterative: the reference value may nest deeply.
    let mut max = 0;
    let mut stack = vec![(v, 1usize)];
    while let Some((v, d)) = stack.pop() {
        max = max.max(d);
        match v {
            Json::Array(a) => stack.extend(a.iter().map(|x| (x, d + 1))),
            Json::Object(m) => stack.extend(m.values().map(|x| (x, d + 1))),
            _ => {}
        }
    }
    max
}

/// Whether a `\uXXXX` escape is a surrogate not in a high-then-low pair.
fn has_lone_surrogate(text: &str) -> bool {
    let b = text.as_bytes();
    let hex = |i: usize| {
        b.get(i..i + 4)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u16::from_str_radix(h, 16).ok())
    };
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i] == b'\\' {
            if b[i + 1] == b'u'
                && let Some(u) = hex(i + 2)
            {
                if (0xD800..0xDC00).contains(&u) {
                    let low = (b.get(i + 6) == Some(&b'\\') && b.get(i + 7) == Some(&b'u'))
                        .then(|| hex(i + 8))
                        .flatten();
                    if !low.is_some_and(|l| (0xDC00..0xE000).contains(&l)) {
                        return true;
                    }
                    i += 12;
                    continue;
                }
                if (0xDC00..0xE000).contains(&u) {
                    return true;
                }
            }
            i += 2;
            continue;
        }
        i += 1;
    }
    false
}
