//! Reading the user's input files: documents with where they came from, size limits, and JSON
//! streams. JSON files get the whole-float rule of YAML ones (see `yaml_read`), since
//! Crossplane reads every object back from the API server.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

use super::MAX_DEPTH;
use super::whole_floats::whole_floats_to_ints;
use super::yaml_read::parse_yaml_stream;

/// A problem with the user's input files: exit code 2.
#[derive(Debug)]
pub(crate) struct InputError(pub(crate) String);

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}

macro_rules! input_error {
    ($($arg:tt)*) => { $crate::io::InputError(format!($($arg)*)) };
}
pub(crate) use input_error;

/// One document read from a file, with where it came from.
#[derive(Clone, Debug)]
pub(crate) struct Doc {
    pub(crate) value: Value,
    pub(crate) path: PathBuf,
    /// 1-based position of the document in its file.
    pub(crate) index: usize,
}

impl Doc {
    /// `file` or `file (document N)`, for messages.
    pub(crate) fn origin(&self) -> String {
        if self.index > 1 {
            format!("{} (document {})", self.path.display(), self.index)
        } else {
            self.path.display().to_string()
        }
    }

    pub(crate) fn str_at(&self, path: &[&str]) -> Option<&str> {
        lookup(&self.value, path).and_then(Value::as_str)
    }

    pub(crate) fn kind(&self) -> &str {
        self.str_at(&["kind"]).unwrap_or("")
    }

    pub(crate) fn name(&self) -> &str {
        self.str_at(&["metadata", "name"]).unwrap_or("")
    }

    /// `Kind/name` (or `Kind` when unnamed), for messages.
    pub(crate) fn display_name(&self) -> String {
        match (self.kind(), self.name()) {
            ("", "") => "a document without kind or name".into(),
            (k, "") => k.into(),
            (k, n) => format!("{k}/{n}"),
        }
    }
}

/// Looks up nested object members.
pub(crate) fn lookup<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, k| v.as_object()?.get(*k))
}

/// Reads every document of a file, or of every `.yaml`/`.yml`/`.json` file of a directory
/// (in name order). Empty documents are skipped.
pub(crate) fn read_docs(path: &Path) -> Result<Vec<Doc>, InputError> {
    let meta = std::fs::metadata(path)
        .map_err(|e| input_error!("cannot read {}: {}", path.display(), io_reason(&e)))?;
    if !meta.is_dir() {
        return read_file(path);
    }
    let mut files = Vec::new();
    let entries = std::fs::read_dir(path).map_err(|e| {
        input_error!(
            "cannot read directory {}: {}",
            path.display(),
            io_reason(&e)
        )
    })?;
    for entry in entries {
        let entry = entry.map_err(|e| {
            input_error!(
                "cannot read directory {}: {}",
                path.display(),
                io_reason(&e)
            )
        })?;
        let p = entry.path();
        let is_doc = p
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| matches!(e, "yaml" | "yml" | "json"));
        if is_doc && p.is_file() {
            files.push(p);
        }
    }
    files.sort();
    let mut docs = Vec::new();
    for f in files {
        docs.extend(read_file(&f)?);
    }
    Ok(docs)
}

/// Reads exactly one document (the XR, an environment).
pub(crate) fn read_single(path: &Path, what: &str) -> Result<Doc, InputError> {
    let mut docs = read_file(path)?;
    match docs.len() {
        1 => Ok(docs.remove(0)),
        0 => Err(input_error!(
            "{}: no {what} in the file (it is empty)",
            path.display()
        )),
        n => Err(input_error!(
            "{}: expected one {what}, found {n} documents",
            path.display()
        )),
    }
}

/// The largest input file (and render request) read: `--max-request-size`.
static MAX_INPUT_SIZE: AtomicUsize = AtomicUsize::new(crate::runtime::DEFAULT_MAX_REQUEST_SIZE);

/// Sets the largest input file (and render request) the process reads.
pub(crate) fn set_max_input_size(bytes: usize) {
    MAX_INPUT_SIZE.store(bytes, Ordering::Relaxed);
}

/// Refuses `len` bytes of `what` over the limit.
pub(crate) fn check_input_size(len: usize, what: &str) -> Result<(), InputError> {
    let max = MAX_INPUT_SIZE.load(Ordering::Relaxed);
    if len > max {
        return Err(input_error!(
            "{what} is larger than --max-request-size ({} bytes > {max}): refused unread",
            if len == usize::MAX {
                "more".to_string()
            } else {
                len.to_string()
            }
        ));
    }
    Ok(())
}

/// Reads all of `reader` up to the size limit; stops at the first byte over it.
pub(crate) fn read_limited(reader: impl std::io::Read, what: &str) -> Result<Vec<u8>, InputError> {
    use std::io::Read as _;
    let max = MAX_INPUT_SIZE.load(Ordering::Relaxed);
    let mut buf = Vec::new();
    reader
        .take(u64::try_from(max).unwrap_or(u64::MAX).saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(|e| input_error!("cannot read {what}: {}", io_reason(&e)))?;
    if buf.len() > max {
        check_input_size(usize::MAX, what)?;
    }
    Ok(buf)
}

/// Reads a whole file, refusing one over the size limit before reading it.
pub(crate) fn read_file_limited(path: &Path) -> Result<Vec<u8>, InputError> {
    let cannot =
        |e: &std::io::Error| input_error!("cannot read {}: {}", path.display(), io_reason(e));
    let file = std::fs::File::open(path).map_err(|e| cannot(&e))?;
    let meta = file.metadata().map_err(|e| cannot(&e))?;
    if meta.is_dir() {
        return Err(input_error!(
            "{} is a directory, expected a file",
            path.display()
        ));
    }
    check_input_size(
        usize::try_from(meta.len()).unwrap_or(usize::MAX),
        &path.display().to_string(),
    )?;
    // A file that grows while read (a pipe, /dev/zero) is still cut at the limit.
    read_limited(file, &path.display().to_string())
}

fn read_file(path: &Path) -> Result<Vec<Doc>, InputError> {
    let bytes = read_file_limited(path)?;
    let text = String::from_utf8(bytes).map_err(|_| {
        input_error!(
            "cannot read {}: stream did not contain valid UTF-8",
            path.display()
        )
    })?;
    let is_json = path.extension().is_some_and(|e| e == "json");
    let values = if is_json {
        parse_json_stream(&text).map_err(|e| input_error!("{}:{e}", path.display()))?
    } else {
        parse_yaml_stream(&text).map_err(|e| input_error!("{}:{e}", path.display()))?
    };
    Ok(into_docs(values, path))
}

/// The non-empty documents of a stream read from `path`, numbered from 1.
pub(crate) fn into_docs(values: Vec<Value>, path: &Path) -> Vec<Doc> {
    values
        .into_iter()
        .enumerate()
        .filter(|(_, v)| !v.is_null())
        .map(|(i, value)| Doc {
            value,
            path: path.to_path_buf(),
            index: i + 1,
        })
        .collect()
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// Parses a stream of JSON values (one or more, whitespace separated). Errors read `line:column: message`.
/// Values nest up to [`MAX_DEPTH`] levels, as YAML files and the engine's requests do.
pub(crate) fn parse_json_stream(text: &str) -> Result<Vec<Value>, String> {
    if let Some(at) = too_deep(text.as_bytes()) {
        let before = &text.as_bytes()[..at];
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
        let column = at
            - before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1)
            + 1;
        return Err(format!("{line}:{column}: recursion limit exceeded"));
    }
    let mut de = serde_json::Deserializer::from_str(text);
    // serde_json stops at 128 levels; the depth is bounded above, and the command runs
    // on a deep stack.
    de.disable_recursion_limit();
    let mut out = Vec::new();
    for v in de.into_iter::<Value>() {
        let mut v = v.map_err(|e| format!("{}:{}: {}", e.line(), e.column(), json_reason(&e)))?;
        whole_floats_to_ints(&mut v);
        out.push(v);
    }
    Ok(out)
}

/// The offset of the first `[` or `{` that opens a level past [`MAX_DEPTH`], strings
/// skipped; in malformed text, wherever the count passes it.
fn too_deep(text: &[u8]) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, &b) in text.iter().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Some(i);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

fn json_reason(e: &serde_json::Error) -> String {
    // serde_json appends " at line L column C"; the position is already in front.
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}
