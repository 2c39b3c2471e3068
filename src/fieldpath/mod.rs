//! Crossplane field paths (crossplane-runtime `fieldpath`): parsing, reading, writing, merging.
//!
//! Paths such as `spec.containers[0].name` or `metadata.annotations[a.b/c]` are
//! parsed exactly as crossplane-runtime does, and read and written with its
//! error texts. Errors for which `fieldpath.IsNotFound` holds upstream carry
//! [`ErrorKind::NotFound`](crate::error::ErrorKind::NotFound); that kind
//! survives wrapping, so callers decide on it rather than on message text.

mod merge;
mod parse;
mod paved;
mod wildcard;

use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;
use std::sync::OnceLock;

use crate::error::Result;
use crate::semantics::Semantics;
use crate::value::Value;

pub(crate) use merge::{MergeOptions, merge_options_for_policy};
pub(crate) use parse::{MAX_PATH_BYTES, MAX_SEGMENTS};
pub(crate) use paved::MAX_INDEX;
pub(crate) use wildcard::MAX_EXPANSIONS;

/// One step of a field path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    /// An object member (`*` is the wildcard).
    Field(String),
    /// An array index.
    Index(u32),
}

impl Segment {
    /// Whether this is the wildcard `*` (written `[*]` or `.*`).
    pub fn is_wildcard(&self) -> bool {
        matches!(self, Segment::Field(f) if f == parse::WILDCARD)
    }
}

/// A parsed field path.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(crate) struct FieldPath {
    segments: Vec<Segment>,
    /// Whether the text parsed holds `[*]`, which makes a write expand.
    index_wildcard: bool,
}

impl FieldPath {
    /// Parses a path; errors read `cannot parse path "<path>": <reason>`.
    ///
    /// The empty path parses to no segments. Paths longer than
    /// [`MAX_PATH_BYTES`] or with more than [`MAX_SEGMENTS`] segments are
    /// refused with [`ErrorKind::Limit`](crate::error::ErrorKind::Limit).
    pub(crate) fn parse(path: &str) -> Result<FieldPath> {
        parse::parse(path)
    }

    /// The segments, in order.
    pub(crate) fn segments(&self) -> &[Segment] {
        &self.segments
    }
}

/// The canonical form (Go's `Segments.String()`): fields holding `.` and the
/// wildcard are bracketed, quotes are not re-added.
impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&parse::segments_string(&self.segments))
    }
}

/// A field path as a Composition writes it, parsed on first use and kept
/// with it: a kept plan parses each of its paths once. It reads as its text.
#[derive(Clone, Debug, Default)]
pub(crate) struct Path<'a> {
    text: Cow<'a, str>,
    parsed: OnceLock<Result<FieldPath>>,
}

impl<'a> Path<'a> {
    pub(crate) fn new(text: &'a str) -> Path<'a> {
        Path {
            text: Cow::Borrowed(text),
            parsed: OnceLock::new(),
        }
    }

    /// A path that owns `text`.
    pub(crate) fn owned(text: String) -> Path<'static> {
        Path {
            text: Cow::Owned(text),
            parsed: OnceLock::new(),
        }
    }

    /// The path owning its text, to be kept with its Composition.
    pub(crate) fn into_owned(self) -> Path<'static> {
        Path {
            text: Cow::Owned(self.text.into_owned()),
            parsed: self.parsed,
        }
    }

    /// Whether the text holds `[*]` ([`has_index_wildcard`]), known from the
    /// parse a kept path keeps: every patch asks this of its target.
    pub(crate) fn has_index_wildcard(&self) -> bool {
        match self.parsed.get_or_init(|| FieldPath::parse(&self.text)) {
            Ok(fp) => fp.index_wildcard,
            Err(_) => has_index_wildcard(&self.text),
        }
    }

    /// The parsed path, or the error parsing it gives.
    fn parsed(&self) -> Result<&FieldPath> {
        self.parsed
            .get_or_init(|| FieldPath::parse(&self.text))
            .as_ref()
            .map_err(Clone::clone)
    }
}

impl Deref for Path<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text
    }
}

/// Paths are equal as written.
impl PartialEq for Path<'_> {
    fn eq(&self, other: &Path<'_>) -> bool {
        self.text == other.text
    }
}

/// The value at a kept path, or `None` where [`get_value_at`] would fail.
pub(crate) fn find_at<'a>(obj: &'a Value, path: &Path<'_>, sem: Semantics) -> Option<&'a Value> {
    paved::find(obj, path.parsed().ok()?.segments(), sem)
}

/// `GetValue` at a kept path: as [`get_value`].
pub(crate) fn get_value_at<'a>(
    obj: &'a Value,
    path: &Path<'_>,
    sem: Semantics,
) -> Result<&'a Value> {
    paved::get(obj, path.parsed()?.segments(), sem).map_err(|e| e.with_field_path(&*path.text))
}

/// As [`get_value_at`], but a missing value is a `NotFound` error without a
/// message or path, for a patch that skips a miss unseen (Optional, untraced):
/// a status not yet observed is missed on every render until it is.
pub(crate) fn get_value_at_quiet<'a>(
    obj: &'a Value,
    path: &Path<'_>,
    sem: Semantics,
) -> Result<&'a Value> {
    paved::get_quiet(obj, path.parsed()?.segments(), sem).map_err(|e| {
        if e.is_not_found() {
            e
        } else {
            e.with_field_path(&*path.text)
        }
    })
}

/// `MergeValue` at a kept path: as [`merge_value`].
pub(crate) fn merge_value_at(
    obj: &mut Value,
    path: &Path<'_>,
    value: Value,
    opts: Option<MergeOptions>,
    sem: Semantics,
) -> Result<()> {
    path.parsed()
        .and_then(|fp| merge::merge_value(obj, fp.segments(), value, opts, sem))
        .map_err(|e| e.with_field_path(&*path.text))
}

/// `GetValue`: the value at `path`. The empty path yields `null`.
///
/// Errors from the string-path functions carry `path` as their field-path context.
pub(crate) fn get_value<'a>(obj: &'a Value, path: &str, sem: Semantics) -> Result<&'a Value> {
    paved::get(obj, FieldPath::parse(path)?.segments(), sem).map_err(|e| e.with_field_path(path))
}

/// `GetString`: errors `<path>: not a string` for other types.
pub(crate) fn get_string<'a>(obj: &'a Value, path: &str, sem: Semantics) -> Result<&'a str> {
    paved::get_string(obj, path, sem).map_err(|e| e.with_field_path(path))
}

/// `GetBool`: errors `<path>: not a bool` for other types.
pub(crate) fn get_bool(obj: &Value, path: &str, sem: Semantics) -> Result<bool> {
    paved::get_bool(obj, path, sem).map_err(|e| e.with_field_path(path))
}

/// `GetInteger`: errors `<path>: not a (int64) number` for anything but an
/// `int64`, integral floats included.
pub(crate) fn get_integer(obj: &Value, path: &str, sem: Semantics) -> Result<i64> {
    paved::get_integer(obj, path, sem).map_err(|e| e.with_field_path(path))
}

/// `SetValue` on an already parsed path.
#[cfg(test)]
pub(crate) fn set_value_at(
    obj: &mut Value,
    path: &FieldPath,
    value: Value,
    sem: Semantics,
) -> Result<()> {
    paved::set(obj, path.segments(), value, sem)
}

/// `MergeValue`: writes `value` at `path`, merging per `opts` (`None` replaces).
pub(crate) fn merge_value(
    obj: &mut Value,
    path: &str,
    value: Value,
    opts: Option<MergeOptions>,
    sem: Semantics,
) -> Result<()> {
    FieldPath::parse(path)
        .and_then(|fp| merge::merge_value(obj, fp.segments(), value, opts, sem))
        .map_err(|e| e.with_field_path(path))
}

/// Whether `path`'s text holds `[*]` (`strings.Contains(path, "[*]")`),
/// found from its `*` bytes: a substring search sets up a searcher per call,
/// and every patch asks this of its target path.
pub(crate) fn has_index_wildcard(path: &str) -> bool {
    let b = path.as_bytes();
    // Nearly every path holds no `*`: one `memchr` settles those.
    if !b.contains(&b'*') {
        return false;
    }
    b.iter()
        .enumerate()
        .any(|(i, &c)| c == b'*' && i > 0 && b[i - 1] == b'[' && b.get(i + 1) == Some(&b']'))
}

/// `ExpandWildcards`: the concrete paths a `[*]` path addresses in `obj`, as
/// canonical strings (arrays by index, objects by sorted key).
pub(crate) fn expand_wildcards(obj: &Value, path: &str, sem: Semantics) -> Result<Vec<String>> {
    wildcard::expand(obj, path, sem).map_err(|e| e.with_field_path(path))
}

/// `DeleteField`: removes the member or element at `path`.
pub(crate) fn delete_field(obj: &mut Value, path: &str) -> Result<()> {
    FieldPath::parse(path)
        .and_then(|fp| paved::delete(obj, fp.segments()))
        .map_err(|e| e.with_field_path(path))
}

/// The JSON round trip of every write (`toValidJSON`): whole floats become
/// integers; NaN and infinities fail with
/// `cannot marshal value to JSON: json: unsupported value: NaN`.
/// function-patch-and-transform applies it to a patch's output before merging.
pub(crate) fn to_valid_json(mut value: Value) -> Result<Value> {
    paved::to_valid_json(&mut value)?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    #[test]
    fn index_wildcards_are_found_as_substrings() {
        for p in [
            "a[*]",
            "[*]",
            "a[*].b",
            "*",
            "[*",
            "*]",
            "a.*",
            "a[b]*]",
            "[[*]]",
            "a[0]",
            "",
            "a..b[*]",
            "a[*]]",
            "a[0][*].b",
        ] {
            assert_eq!(super::has_index_wildcard(p), p.contains("[*]"), "{p}");
            // A kept path knows it from its parse, or from its text when it does not parse.
            assert_eq!(
                super::Path::new(p).has_index_wildcard(),
                p.contains("[*]"),
                "{p}"
            );
        }
    }

    use super::*;
    use crate::error::ErrorKind;

    #[test]
    fn errors_carry_the_path_as_context() {
        let obj = Value::Object(crate::value::Map::new());
        let e = get_value(&obj, "spec.x", Semantics::Native).expect_err("missing");
        assert_eq!(e.kind(), ErrorKind::NotFound);
        assert_eq!(e.context().field_path.as_deref(), Some("spec.x"));
        let mut obj = obj;
        let e =
            merge_value(&mut obj, "a..b", Value::Null, None, Semantics::Function).expect_err("bad");
        assert_eq!(e.context().field_path.as_deref(), Some("a..b"));
        assert_eq!(
            format!("{e:#}"),
            "cannot parse path \"a..b\": unexpected '.' at position 2\n  field path: a..b"
        );
    }

    /// The quiet and error-free readers find what `get_value_at` finds and
    /// fail where it fails; only a miss loses its message.
    #[test]
    fn quiet_reads_agree_with_the_full_read() {
        let obj = Value::from_json(r#"{"a":{"b":[1,{"c":null}],"n":null,"s":"x"}}"#).unwrap();
        for sem in [Semantics::Native, Semantics::Function] {
            for text in [
                "a.b[1].c",
                "a.b[0]",
                "a.b[2]",
                "a.x",
                "a.s.t",
                "a.s[0]",
                "a.n.x",
                "a.b.c",
                "",
                "a..b",
                "a.b[1].c.d",
            ] {
                let path = Path::new(text);
                let full = get_value_at(&obj, &path, sem);
                let quiet = get_value_at_quiet(&obj, &path, sem);
                assert_eq!(
                    find_at(&obj, &path, sem),
                    full.as_ref().ok().copied(),
                    "{text}"
                );
                match (&full, &quiet) {
                    (Err(f), Err(q)) if f.is_not_found() => {
                        assert!(q.is_not_found(), "{text}");
                        assert_eq!(q.message(), "", "{text}");
                    }
                    _ => assert_eq!(full, quiet, "{text}"),
                }
            }
        }
    }
}
