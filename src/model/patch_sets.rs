//! PatchSets: a template's patches with each `PatchSet` patch replaced by the patches of the
//! set it names, one level deep, before anything runs.

use crate::value::Value;

/// Where one patch a template applies is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The template's own patch at this index.
    Template(usize),
    /// Patch `patch` of the input's patch set `set`, through a `PatchSet` patch.
    Set { set: usize, patch: usize },
    /// The template's `PatchSet` patch at this index names no set: the engine refuses it.
    Unresolved(usize),
}

/// The set named `name`: the last of that name, as a Go map built in order keeps it.
pub fn named<'s, S>(
    sets: &'s [S],
    name: &str,
    name_of: impl Fn(&S) -> &str,
) -> Option<(usize, &'s S)> {
    sets.iter()
        .enumerate()
        .rev()
        .find(|(_, s)| name_of(s) == name)
}

/// The patches a template applies, in order, by where each is written: `patches` is the
/// template's `patches`, `sets` the input's `patchSets`.
#[must_use]
pub fn expand(patches: &[Value], sets: &[Value]) -> Vec<Source> {
    let mut out = Vec::with_capacity(patches.len());
    for (i, p) in patches.iter().enumerate() {
        if name(p, "type") != Some("PatchSet") {
            out.push(Source::Template(i));
            continue;
        }
        let set = name(p, "patchSetName")
            .and_then(|n| named(sets, n, |s| name(s, "name").unwrap_or_default()));
        match set {
            Some((k, s)) => {
                let inner = s
                    .get("patches")
                    .and_then(Value::as_array)
                    .unwrap_or_default();
                out.extend((0..inner.len()).map(|patch| Source::Set { set: k, patch }));
            }
            None => out.push(Source::Unresolved(i)),
        }
    }
    out
}

fn name<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_expand_to_the_last_set_of_their_name() {
        let v = |s: &str| Value::from_json(s).expect("JSON");
        let sets = v(r#"[{"name":"a","patches":[{}]},{"name":"a","patches":[{},{}]}]"#);
        let patches = v(
            r#"[{},{"type":"PatchSet","patchSetName":"a"},{"type":"PatchSet","patchSetName":"b"}]"#,
        );
        assert_eq!(
            expand(patches.as_array().unwrap(), sets.as_array().unwrap()),
            [
                Source::Template(0),
                Source::Set { set: 1, patch: 0 },
                Source::Set { set: 1, patch: 1 },
                Source::Unresolved(2),
            ]
        );
    }
}
