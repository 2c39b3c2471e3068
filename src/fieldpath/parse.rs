//! The field path lexer: crossplane-runtime's `Parse` state machine, positions and all.

use std::fmt::Write as _;

use super::{FieldPath, Segment};
use crate::error::{Error, ErrorKind, Result};
use crate::value::scan;

/// Longest path accepted, in bytes; far beyond any real Kubernetes field.
pub(crate) const MAX_PATH_BYTES: usize = 16 * 1024;
/// Most segments accepted: bounds the depth a write can create.
pub(crate) const MAX_SEGMENTS: usize = 512;

/// The bytes that end a field.
const DELIMITERS: [bool; 256] = scan::byte_set(false, b".[]");

/// The field name that stands for every member or element.
pub(crate) const WILDCARD: &str = "*";

/// Parses `path`; errors read `cannot parse path "<path>": <reason>`.
pub(super) fn parse(path: &str) -> Result<FieldPath> {
    if path.len() > MAX_PATH_BYTES {
        return Err(Error::new(
            ErrorKind::Limit,
            format!(
                "cannot parse path of {} bytes: longer than the limit of {MAX_PATH_BYTES} bytes",
                path.len()
            ),
        ));
    }
    lex(path)
        .map(|(segments, index_wildcard)| FieldPath {
            segments,
            index_wildcard,
        })
        .map_err(|e| {
            let prefix = format!("cannot parse path {}", crate::go::quote(path));
            match e {
                LexError::Syntax(msg) => Error::new(ErrorKind::Render, msg).wrap(prefix),
                LexError::TooManySegments => Error::new(
                    ErrorKind::Limit,
                    format!("more than the limit of {MAX_SEGMENTS} segments"),
                )
                .wrap(prefix),
            }
        })
}

enum LexError {
    Syntax(String),
    TooManySegments,
}

fn unexpected(c: char, pos: usize) -> LexError {
    LexError::Syntax(format!("unexpected '{c}' at position {pos}"))
}

/// Go's `strings.Trim(s, "'\"")`: every leading and trailing quote goes, paired or not.
fn trim_quotes(s: &str) -> &str {
    let quote = |b: Option<&u8>| matches!(b, Some(b'\'' | b'"'));
    let b = s.as_bytes();
    // Most names have no quotes at either end: no trimming to do.
    if !quote(b.first()) && !quote(b.last()) {
        return s;
    }
    s.trim_matches(|c| c == '\'' || c == '"')
}

/// Go's `FieldOrIndex`: `strconv.ParseUint(s, 10, 32)` decides.
fn field_or_index(s: &str) -> Segment {
    if !s.is_empty()
        && s.bytes().all(|b| b.is_ascii_digit())
        && let Ok(i) = s.parse::<u32>()
    {
        return Segment::Index(i);
    }
    field(s)
}

/// Go's `Field`: always a member name, quotes trimmed.
pub(super) fn field(s: &str) -> Segment {
    Segment::Field(trim_quotes(s).to_owned())
}

/// The lexer of `fieldpath.go`: field, period and bracket states, emitting
/// only non-empty text. Positions are byte offsets, as Go reports them.
///
/// Also says whether the text holds `[*]`: in a path that lexes, every `[`
/// opens a bracket, so that is a bracket holding exactly `*`.
fn lex(input: &str) -> Result<(Vec<Segment>, bool), LexError> {
    let bytes = input.as_bytes();
    let len = bytes.len();
    // Room for the segments most paths have, taken at once rather than by
    // the first push's growth.
    let mut segments = if len == 0 {
        Vec::new()
    } else {
        Vec::with_capacity(4)
    };
    let push = |segments: &mut Vec<Segment>, s: Segment| {
        if segments.len() >= MAX_SEGMENTS {
            return Err(LexError::TooManySegments);
        }
        segments.push(s);
        Ok(())
    };
    let mut pos = 0;
    let mut index_wildcard = false;
    loop {
        // Field state: scan to the next delimiter.
        let start = pos;
        // A word at a time: fields run for several bytes between delimiters.
        let at = scan::find(bytes, pos, &DELIMITERS, |w| {
            scan::eq(w, b'.') | scan::eq(w, b'[') | scan::eq(w, b']')
        })
        .unwrap_or(len);
        if at == len {
            if start < len {
                push(&mut segments, field(&input[start..]))?;
            }
            return Ok((segments, index_wildcard));
        };
        if at > start {
            push(&mut segments, field(&input[start..at]))?;
        }
        pos = at;
        match bytes[at] {
            b']' => return Err(unexpected(']', at)),
            b'.' => {
                // Period state: never first or last, never before '.' or '['.
                if pos == 0 || pos == len - 1 {
                    return Err(unexpected('.', pos));
                }
                pos += 1;
                match bytes.get(pos) {
                    Some(b'.') => return Err(unexpected('.', pos)),
                    Some(b'[') => return Err(unexpected('[', pos)),
                    _ => {}
                }
            }
            _ => {
                // Bracket state: the content runs to the first ']'.
                let Some(rbi) = bytes[pos..].iter().position(|&b| b == b']') else {
                    return Err(LexError::Syntax(format!(
                        "unterminated '[' at position {pos}"
                    )));
                };
                pos += 1;
                let rbi = rbi - 1;
                if rbi == 0 {
                    return Err(unexpected(']', pos));
                }
                let content = &input[pos..pos + rbi];
                if let Some(lbi) = content.bytes().position(|b| b == b'[') {
                    return Err(unexpected('[', pos + lbi));
                }
                index_wildcard |= content == WILDCARD;
                push(&mut segments, field_or_index(content))?;
                pos += rbi + 1;
            }
        }
    }
}

/// Go's `Segments.String()`: `.name`, `[name]` for names holding '.' or the
/// wildcard, `[n]` for indexes, then one leading '.' dropped.
pub(super) fn write_segments(out: &mut String, segments: &[Segment]) {
    let start = out.len();
    for s in segments {
        match s {
            Segment::Field(name) if name == WILDCARD || name.contains('.') => {
                out.push('[');
                out.push_str(name);
                out.push(']');
            }
            Segment::Field(name) => {
                out.push('.');
                out.push_str(name);
            }
            Segment::Index(i) => {
                let _ = write!(out, "[{i}]");
            }
        }
    }
    if out[start..].starts_with('.') {
        out.remove(start);
    }
}

/// The canonical form of `segments` as a new string.
pub(super) fn segments_string(segments: &[Segment]) -> String {
    let mut s = String::new();
    write_segments(&mut s, segments);
    s
}
