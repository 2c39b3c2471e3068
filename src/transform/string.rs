//! The `string` transform: Format, Convert, TrimPrefix/TrimSuffix, Regexp, Join and Replace.

use super::pattern::Pattern;
use super::regex::Regexps;
use super::{MAX_OUTPUT_BYTES, again, case, fail, invalid, opt_int, opt_str, sprint_v};
use crate::error::{Error, ErrorKind, Result};
use crate::go::bytestr;
use crate::semantics::Semantics;
use crate::value::{Map, Value};
use sha1::Digest as _;

/// A string transform's sub-type with its settings, or the error reading
/// them (raised when the transform runs, before it reads the input).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Config(Result<Op>);

#[derive(Clone, Debug, PartialEq)]
enum Op {
    Format(String),
    Convert(Convert),
    /// TrimPrefix, or TrimSuffix when `suffix`.
    Trim {
        trim: String,
        suffix: bool,
    },
    Regexp {
        pattern: Pattern,
        group: i64,
    },
    Join(String),
    Replace {
        search: String,
        with: String,
    },
}

/// `stringConvertTransform`'s conversions.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Convert {
    ToUpper,
    ToLower,
    ToBase64,
    FromBase64,
    ToJson,
    ToSha1,
    ToSha256,
    ToSha512,
    ToAdler32,
}

impl Config {
    pub(super) fn decode(cfg: &Map, sem: Semantics, regexps: &Regexps) -> Config {
        Config(decode(cfg, sem, regexps))
    }
}

/// `ResolveString`'s reading of the config, up to where it needs the input.
fn decode(cfg: &Map, sem: Semantics, regexps: &Regexps) -> Result<Op> {
    let kind = match opt_str(cfg, "type", "StringTransform")? {
        // The CRD defaults an absent type to Format (the v1.10 form);
        // function inputs are never defaulted.
        None if sem == Semantics::Native => "Format",
        None => "",
        Some(k) => k,
    };
    let unset = |what: &str| fail(format!("string transform of type {kind} {what} is not set"));
    let text = |field: &str| -> Result<String> {
        let s = opt_str(cfg, field, "StringTransform")?.ok_or_else(|| unset(field))?;
        Ok(s.to_owned())
    };
    Ok(match kind {
        "Format" => Op::Format(text("fmt")?),
        "Convert" => Op::Convert(convert_kind(&text("convert")?)?),
        "TrimPrefix" | "TrimSuffix" => Op::Trim {
            trim: text("trim")?,
            suffix: kind == "TrimSuffix",
        },
        "Regexp" => {
            let r = sub_object(cfg, "regexp")?.ok_or_else(|| unset("regexp"))?;
            let pattern = opt_str(r, "match", "StringTransformRegexp")?.unwrap_or("");
            let group = opt_int(r, "group", "StringTransformRegexp")?.unwrap_or(0);
            Op::Regexp {
                pattern: Pattern::new(pattern, sem, regexps),
                group,
            }
        }
        "Join" => {
            let j = sub_object(cfg, "join")?.ok_or_else(|| unset("join"))?;
            let sep = opt_str(j, "separator", "StringTransformJoin")?.unwrap_or("");
            Op::Join(sep.to_owned())
        }
        "Replace" if sem == Semantics::Function => {
            let r = sub_object(cfg, "replace")?.ok_or_else(|| unset("replace"))?;
            let search = opt_str(r, "search", "StringTransformReplace")?.unwrap_or("");
            let with = opt_str(r, "replace", "StringTransformReplace")?.unwrap_or("");
            Op::Replace {
                search: search.to_owned(),
                with: with.to_owned(),
            }
        }
        other => {
            return Err(fail(format!(
                "type {other} is not supported for string transform type"
            )));
        }
    })
}

/// `ResolveString`: every sub-type returns a string.
pub(super) fn resolve(cfg: &Config, input: &Value, sem: Semantics) -> Result<Value> {
    let op = cfg.0.as_ref().map_err(again)?;
    let out = match op {
        Op::Format(f) => crate::fmt::sprintf(f, std::slice::from_ref(input))?,
        Op::Convert(c) => convert(*c, input)?,
        Op::Trim { trim, suffix } => {
            // `%v` of a string is the string: read it in place.
            let s = match input {
                Value::String(s) => std::borrow::Cow::Borrowed(s.as_str()),
                other => std::borrow::Cow::Owned(sprint_v(other)),
            };
            let trimmed = if *suffix {
                s.strip_suffix(trim.as_str())
            } else {
                s.strip_prefix(trim.as_str())
            };
            match trimmed {
                Some(t) => t.to_owned(),
                None => s.into_owned(),
            }
        }
        Op::Regexp { pattern, group } => regexp(pattern, *group, input)?,
        Op::Join(sep) => join(sep, input, sem)?,
        Op::Replace { search, with } => replace_all(&sprint_v(input), search, with)?,
    };
    Ok(Value::String(out))
}

fn sub_object<'a>(cfg: &'a Map, field: &str) -> Result<Option<&'a Map>> {
    match cfg.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(m)) => Ok(Some(m)),
        Some(other) => Err(invalid(format!(
            "json: cannot unmarshal {} into Go struct field StringTransform.{field} of type object",
            other.json_kind()
        ))),
    }
}

/// The conversion a `convert` names.
fn convert_kind(kind: &str) -> Result<Convert> {
    Ok(match kind {
        "ToUpper" => Convert::ToUpper,
        "ToLower" => Convert::ToLower,
        "ToBase64" => Convert::ToBase64,
        "FromBase64" => Convert::FromBase64,
        "ToJson" => Convert::ToJson,
        "ToSha1" => Convert::ToSha1,
        "ToSha256" => Convert::ToSha256,
        "ToSha512" => Convert::ToSha512,
        "ToAdler32" => Convert::ToAdler32,
        other => {
            return Err(fail(format!(
                "type {other} is not supported for string convert"
            )));
        }
    })
}

/// `stringConvertTransform`.
fn convert(kind: Convert, input: &Value) -> Result<String> {
    let s = || sprint_v(input);
    // Case mapping re-encodes a raw byte as U+FFFD (`strings.Map`); base64 sees the bytes.
    Ok(match kind {
        Convert::ToUpper => case::to_upper(&bytestr::to_valid(&s())),
        Convert::ToLower => case::to_lower(&bytestr::to_valid(&s())),
        Convert::ToBase64 => {
            use base64::Engine as _;
            base64::engine::general_purpose::STANDARD.encode(bytestr::to_bytes(&s()))
        }
        Convert::FromBase64 => match go_base64_decode(&bytestr::to_bytes(&s())) {
            Ok(bytes) => go_string(bytes),
            Err(at) => {
                return Err(fail(format!(
                    "string is not valid base64: illegal base64 data at input byte {at}"
                )));
            }
        },
        Convert::ToJson => {
            input
                .check_finite()
                .map_err(|e| e.wrap("cannot marshal to JSON"))?;
            input.to_json()
        }
        Convert::ToSha1 => hex(&sha1::Sha1::digest(hash_input(
            input,
            "cannot generate hash",
        )?)),
        Convert::ToSha256 => hex(&sha2::Sha256::digest(hash_input(
            input,
            "cannot generate hash",
        )?)),
        Convert::ToSha512 => hex(&sha2::Sha512::digest(hash_input(
            input,
            "cannot generate hash",
        )?)),
        Convert::ToAdler32 => {
            let bytes = hash_input(input, "unable to generate Adler checksum")?;
            let mut a = adler2::Adler32::new();
            a.write_slice(&bytes);
            a.checksum().to_string()
        }
    })
}

/// The bytes the hashes digest: a string's own bytes, anything else as JSON.
fn hash_input(input: &Value, wrap: &str) -> Result<Vec<u8>> {
    match input {
        Value::String(s) => Ok(bytestr::to_bytes(s).into_owned()),
        other => {
            other
                .check_finite()
                .map_err(|e| e.wrap("cannot marshal to JSON").wrap(wrap))?;
            Ok(other.to_json().into_bytes())
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// `stringRegexpTransform`: group `group` of the first match.
fn regexp(pattern: &Pattern, group: i64, input: &Value) -> Result<String> {
    let re = pattern
        .matcher()
        .map_err(|e| fail(e.to_string()).wrap("could not compile regexp"))?;
    let s = sprint_v(input);
    let no_match = || {
        fail(format!(
            "regexp {} had no matches for group {group}",
            crate::go::quote(pattern.as_str())
        ))
    };
    let caps = re.captures(&s).ok_or_else(no_match)?;
    // Go indexes a slice of every group (a negative index would crash it).
    let g = usize::try_from(group).map_err(|_| no_match())?;
    if g >= caps.len() {
        return Err(no_match());
    }
    // A group that exists but did not take part in the match is "" in Go.
    Ok(caps.get(g).map_or("", |m| m.as_str()).to_owned())
}

/// `stringJoinTransform`: native v1.15 joins properly; function-patch-and-transform
/// appends the separator to every element and then drops only the last byte.
fn join(sep: &str, input: &Value, sem: Semantics) -> Result<String> {
    let Value::Array(items) = input else {
        return Err(fail("could not parse input array"));
    };
    let mut out: Vec<u8> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        if sem == Semantics::Native && i > 0 {
            out.extend_from_slice(sep.as_bytes());
        }
        out.extend_from_slice(&bytestr::to_bytes(&sprint_v(item)));
        if sem == Semantics::Function {
            out.extend_from_slice(sep.as_bytes());
        }
        if out.len() > MAX_OUTPUT_BYTES {
            return Err(too_large("Join"));
        }
    }
    if sem == Semantics::Function && !out.is_empty() && !sep.is_empty() {
        out.pop();
    }
    Ok(go_string(out))
}

/// `strings.ReplaceAll`, refusing outputs beyond the engine's size limit.
fn replace_all(s: &str, search: &str, with: &str) -> Result<String> {
    let count = if search.is_empty() {
        s.chars().count() + 1
    } else {
        s.matches(search).count()
    };
    let size = s.len() - count.saturating_mul(search.len()).min(s.len())
        + count.saturating_mul(with.len());
    if size > MAX_OUTPUT_BYTES {
        return Err(too_large("Replace"));
    }
    Ok(s.replace(search, with))
}

fn too_large(what: &str) -> Error {
    Error::new(
        ErrorKind::Limit,
        format!("the result of {what} exceeds the engine's limit of {MAX_OUTPUT_BYTES} bytes"),
    )
}

/// A Go string of `bytes` (invalid UTF-8 kept as raw-byte characters: `go::bytestr`).
pub(crate) fn go_string(bytes: Vec<u8>) -> String {
    crate::go::bytestr::from_bytes(bytes)
}

/// Go's `base64.StdEncoding.DecodeString`: `\r` and `\n` are skipped
/// anywhere; the error is the offset Go's `CorruptInputError` reports.
pub(crate) fn go_base64_decode(src: &[u8]) -> Result<Vec<u8>, usize> {
    let mut out = Vec::with_capacity(src.len() / 4 * 3);
    let mut si = 0;
    while si < src.len() {
        let (next, chunk) = quantum(src, si)?;
        out.extend_from_slice(&chunk);
        si = next;
    }
    Ok(out)
}

fn decode_char(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// One 4-character quantum (`decodeQuantum`).
fn quantum(src: &[u8], mut si: usize) -> Result<(usize, Vec<u8>), usize> {
    let newline = |c: u8| c == b'\n' || c == b'\r';
    let mut dbuf = [0u8; 4];
    let mut dlen = 4;
    let mut trailing: Option<usize> = None;
    let mut j = 0;
    while j < 4 {
        if src.len() == si {
            if j == 0 {
                return Ok((si, Vec::new()));
            }
            return Err(si - j);
        }
        let c = src[si];
        si += 1;
        if let Some(v) = decode_char(c) {
            dbuf[j] = v;
            j += 1;
            continue;
        }
        if newline(c) {
            continue;
        }
        if c != b'=' {
            return Err(si - 1);
        }
        match j {
            0 | 1 => return Err(si - 1),
            2 => {
                while si < src.len() && newline(src[si]) {
                    si += 1;
                }
                if si == src.len() {
                    return Err(src.len());
                }
                if src[si] != b'=' {
                    return Err(si - 1);
                }
                si += 1;
            }
            _ => {}
        }
        while si < src.len() && newline(src[si]) {
            si += 1;
        }
        if si < src.len() {
            trailing = Some(si);
        }
        dlen = j;
        break;
    }
    let val = u32::from(dbuf[0]) << 18
        | u32::from(dbuf[1]) << 12
        | u32::from(dbuf[2]) << 6
        | u32::from(dbuf[3]);
    let bytes = val.to_be_bytes();
    let n = dlen - 1;
    if let Some(at) = trailing {
        return Err(at);
    }
    Ok((si, bytes[1..=n].to_vec()))
}
