//! Reading Kubernetes documents (YAML the way kubectl reads it, or JSON) and writing YAML.
//!
//! kubectl decodes YAML with go-yaml v2, i.e. YAML 1.1 scalars (`yes`/`no`/`on`/`off`/`y`/`n`
//! are booleans, `0777` is octal, `1_000` is 1000), then turns the tree into JSON: a whole
//! float such as `1e3` or `2.0` becomes an integer, non-string map keys become strings, and
//! `.inf`/`.nan` are rejected. Unquoted timestamps stay strings. JSON files get the same
//! whole-float rule, since Crossplane reads every object back from the API server.

use std::borrow::Cow;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use crate::runtime::json::Json;

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
pub(crate) fn parse_json_stream(text: &str) -> Result<Vec<Value>, String> {
    let mut out = Vec::new();
    for v in serde_json::Deserializer::from_str(text).into_iter::<Value>() {
        let mut v = v.map_err(|e| format!("{}:{}: {}", e.line(), e.column(), json_reason(&e)))?;
        whole_floats_to_ints(&mut v);
        out.push(v);
    }
    Ok(out)
}

/// What the API server stores: whole floats written `1.0` come back as the integer 1.
fn whole_floats_to_ints(v: &mut Value) {
    match v {
        Value::Number(n) if n.is_f64() => {
            if let Some(Ok(int)) = n.as_f64().map(float_to_json) {
                *v = int;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(whole_floats_to_ints),
        Value::Object(m) => m.values_mut().for_each(whole_floats_to_ints),
        _ => {}
    }
}

fn json_reason(e: &serde_json::Error) -> String {
    // serde_json appends " at line L column C"; the position is already in front.
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// Parses a YAML stream the way kubectl does. Errors read `line:column: message`.
pub(crate) fn parse_yaml_stream(text: &str) -> Result<Vec<Value>, String> {
    let mut options = serde_saphyr::Options::default();
    options.legacy_octal_numbers = true;
    options.strict_booleans = false;
    options.duplicate_keys = serde_saphyr::options::DuplicateKeyPolicy::LastWins;
    let nodes: Vec<Node> =
        serde_saphyr::from_multiple_with_options(text, options).map_err(|e| {
            let (line, col) = e.location().map_or((1, 1), |l| (l.line(), l.column()));
            format!("{line}:{col}: {}", yaml_reason(&e))
        })?;
    nodes
        .into_iter()
        .enumerate()
        .map(|(i, n)| {
            n.into_json()
                .map_err(|e| format!(" document {}: {e}", i + 1))
        })
        .collect()
}

fn yaml_reason(e: &serde_saphyr::Error) -> String {
    // The message proper is the first line; later lines draw a source snippet.
    let s = e.to_string();
    let first = s.lines().next().unwrap_or("").trim();
    let first = first.strip_prefix("error: ").unwrap_or(first);
    let first = match first.rfind(" at line ") {
        Some(i) => &first[..i],
        None => first,
    };
    // The position is already in front: drop a leading `line L column C: `.
    match first.strip_prefix("line ").and_then(|r| r.split_once(": ")) {
        Some((pos, rest)) if pos.contains(" column ") => rest.to_string(),
        _ => first.to_string(),
    }
}

/// A YAML node as go-yaml v2 resolves it, before kubectl's conversion to JSON.
enum Node {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

impl Node {
    fn into_json(self) -> Result<Value, String> {
        Ok(match self {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(b),
            Node::Int(i) => Value::from(i),
            Node::UInt(u) => Value::from(u),
            Node::Float(f) => float_to_json(f)?,
            Node::Str(s) => Value::String(s),
            Node::Seq(items) => Value::Array(
                items
                    .into_iter()
                    .map(Node::into_json)
                    .collect::<Result<_, _>>()?,
            ),
            Node::Map(entries) => {
                let mut m = Map::new();
                for (k, v) in entries {
                    m.insert(k.into_key()?, v.into_json()?);
                }
                Value::Object(m)
            }
        })
    }

    /// sigs.k8s.io/yaml turns scalar keys into strings (bools, ints, floats with 'g').
    fn into_key(self) -> Result<String, String> {
        Ok(match self {
            Node::Str(s) => s,
            Node::Null => "null".into(),
            Node::Bool(b) => b.to_string(),
            Node::Int(i) => i.to_string(),
            Node::UInt(u) => u.to_string(),
            Node::Float(f) => go_format_g(f),
            Node::Seq(_) | Node::Map(_) => {
                return Err(
                    "a sequence or mapping cannot be a mapping key in Kubernetes YAML".into(),
                );
            }
        })
    }
}

/// json.Marshal then Kubernetes' JSON decoding: whole floats Go prints without a fraction
/// or exponent (|f| < 1e21) come back as integers when they fit an int64.
fn float_to_json(f: f64) -> Result<Value, String> {
    if !f.is_finite() {
        let shown = if f.is_nan() {
            "NaN"
        } else if f > 0.0 {
            "+Inf"
        } else {
            "-Inf"
        };
        return Err(format!("json: unsupported value: {shown}"));
    }
    // 2^63 is exact as a float; integers in [-2^63, 2^63) fit an int64.
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    #[allow(clippy::cast_possible_truncation)]
    if f.fract() == 0.0 && f.abs() < 1e21 && (-TWO_63..TWO_63).contains(&f) {
        return Ok(Value::from(f as i64));
    }
    Ok(Number::from_f64(f).map_or(Value::Null, Value::Number))
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)`.
fn go_format_g(f: f64) -> String {
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    if !f.is_finite() {
        return if f.is_nan() {
            "NaN".into()
        } else if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    // Rust's `{:e}` gives the shortest round-trip digits, like Go's shortest mode.
    let e = format!("{:e}", f.abs());
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if f < 0.0 { "-" } else { "" };
    if !(-4..6).contains(&exp) {
        let (head, tail) = digits.split_at(1);
        let frac = if tail.is_empty() {
            String::new()
        } else {
            format!(".{tail}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{head}{frac}e{esign}{:02}", exp.abs());
    }
    let s = if exp < 0 {
        format!(
            "0.{}{digits}",
            "0".repeat(usize::try_from(-exp - 1).unwrap_or(0))
        )
    } else {
        let point = usize::try_from(exp + 1).unwrap_or(0);
        if digits.len() <= point {
            format!("{digits}{}", "0".repeat(point - digits.len()))
        } else {
            format!("{}.{}", &digits[..point], &digits[point..])
        }
    };
    format!("{sign}{s}")
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a YAML value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
        Node::deserialize(d)
    }
    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Node, E> {
        Ok(Node::Bool(b))
    }
    fn visit_i64<E: de::Error>(self, i: i64) -> Result<Node, E> {
        Ok(Node::Int(i))
    }
    fn visit_u64<E: de::Error>(self, u: u64) -> Result<Node, E> {
        Ok(i64::try_from(u).map_or(Node::UInt(u), Node::Int))
    }
    fn visit_i128<E: de::Error>(self, i: i128) -> Result<Node, E> {
        #[allow(clippy::cast_precision_loss)]
        Ok(i64::try_from(i).map_or(Node::Float(i as f64), Node::Int))
    }
    fn visit_u128<E: de::Error>(self, u: u128) -> Result<Node, E> {
        #[allow(clippy::cast_precision_loss)]
        Ok(u64::try_from(u).map_or(Node::Float(u as f64), |u| {
            i64::try_from(u).map_or(Node::UInt(u), Node::Int)
        }))
    }
    fn visit_f64<E: de::Error>(self, f: f64) -> Result<Node, E> {
        Ok(Node::Float(f))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Node, E> {
        Ok(Node::Str(s.to_owned()))
    }
    fn visit_string<E: de::Error>(self, s: String) -> Result<Node, E> {
        Ok(Node::Str(s))
    }
    fn visit_bytes<E: de::Error>(self, b: &[u8]) -> Result<Node, E> {
        Ok(Node::Str(String::from_utf8_lossy(b).into_owned()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Node>()? {
            items.push(item);
        }
        Ok(Node::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries = Vec::new();
        while let Some((k, v)) = map.next_entry::<Node, Node>()? {
            entries.push((k, v));
        }
        Ok(Node::Map(entries))
    }
}

/// Writes `v` as a YAML block document the way sigs.k8s.io/yaml does (keys sorted),
/// ending with a newline.
pub(crate) fn to_yaml(v: &Value) -> String {
    let text = serde_json::to_vec(v).unwrap_or_default();
    let mut out = Vec::new();
    if let Ok(json) = Json::parse(&text) {
        let _ = write_yaml(&mut out, YamlNode::Json(json));
    }
    String::from_utf8(out).unwrap_or_default()
}

/// A document to write as YAML: JSON text (the engine's answer, read in place), or members
/// the host picks or adds around it.
pub(crate) enum YamlNode<'a> {
    Json(Json<'a>),
    Str(String),
    /// Members sorted by key.
    Map(Vec<(Cow<'a, str>, YamlNode<'a>)>),
}

impl<'a> YamlNode<'a> {
    /// An object's members as nodes, sorted by key (the last of duplicates kept): the order
    /// a Go map (and a `serde_json::Map`) writes them in.
    pub(crate) fn members(json: Json<'a>) -> Vec<(Cow<'a, str>, YamlNode<'a>)> {
        crate::runtime::json::sorted_members(json)
            .into_iter()
            .map(|(k, v)| (k, YamlNode::Json(v)))
            .collect()
    }
}

/// Writes `node` as a YAML block document the way sigs.k8s.io/yaml does, ending with a
/// newline, without building a tree of it. Nesting costs stack: run it under
/// [`with_deep_stack`] for documents of unknown depth.
///
/// # Errors
/// Writing to `out` failed.
pub(crate) fn write_yaml(out: &mut dyn Write, node: YamlNode<'_>) -> std::io::Result<()> {
    match node {
        YamlNode::Map(m) if !m.is_empty() => write_map(out, m, 0),
        YamlNode::Json(j) if j.is_object() && !j.is_empty_container() => {
            write_map(out, YamlNode::members(j), 0)
        }
        YamlNode::Json(j) if j.is_array() && !j.is_empty_container() => write_seq(out, j, 0),
        scalar => {
            write_scalar(out, &scalar)?;
            out.write_all(b"\n")
        }
    }
}

/// Runs `f` on a thread with a stack for any nesting the engine can answer with (field
/// paths may nest deeper than requests); only the pages used count as memory.
pub(crate) fn with_deep_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn_scoped(s, f)
            .expect("cannot start the output thread")
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e))
    })
}

fn indent_to(out: &mut dyn Write, indent: usize) -> std::io::Result<()> {
    const SPACES: &[u8; 64] = &[b' '; 64];
    let mut left = indent;
    while left > 0 {
        let n = left.min(SPACES.len());
        out.write_all(&SPACES[..n])?;
        left -= n;
    }
    Ok(())
}

fn write_map(
    out: &mut dyn Write,
    m: Vec<(Cow<'_, str>, YamlNode<'_>)>,
    indent: usize,
) -> std::io::Result<()> {
    for (k, v) in m {
        indent_to(out, indent)?;
        out.write_all(yaml_string(&k).as_bytes())?;
        out.write_all(b":")?;
        write_child(out, v, indent, false)?;
    }
    Ok(())
}

fn write_seq(out: &mut dyn Write, a: Json<'_>, indent: usize) -> std::io::Result<()> {
    for v in a.items() {
        indent_to(out, indent)?;
        out.write_all(b"-")?;
        write_child(out, YamlNode::Json(v), indent, true)?;
    }
    Ok(())
}

/// The value after `key:` or `-`. Nested maps go on the next line indented by two, nested
/// sequences under a key at the same indentation (go-yaml's style); items of a sequence
/// start on the dash line.
fn write_child(
    out: &mut dyn Write,
    v: YamlNode<'_>,
    indent: usize,
    in_seq: bool,
) -> std::io::Result<()> {
    let map = match v {
        YamlNode::Map(m) if !m.is_empty() => m,
        YamlNode::Json(j) if j.is_object() && !j.is_empty_container() => YamlNode::members(j),
        YamlNode::Json(j) if j.is_array() && !j.is_empty_container() => {
            out.write_all(b"\n")?;
            return write_seq(out, j, if in_seq { indent + 2 } else { indent });
        }
        scalar => {
            out.write_all(b" ")?;
            write_scalar(out, &scalar)?;
            return out.write_all(b"\n");
        }
    };
    if !in_seq {
        out.write_all(b"\n")?;
        return write_map(out, map, indent + 2);
    }
    out.write_all(b" ")?;
    let mut first = true;
    for (k, val) in map {
        if !first {
            indent_to(out, indent + 2)?;
        }
        first = false;
        out.write_all(yaml_string(&k).as_bytes())?;
        out.write_all(b":")?;
        write_child(out, val, indent + 2, false)?;
    }
    Ok(())
}

fn write_scalar(out: &mut dyn Write, v: &YamlNode<'_>) -> std::io::Result<()> {
    let json = match v {
        YamlNode::Str(s) => return out.write_all(yaml_string(s).as_bytes()),
        YamlNode::Map(_) => return out.write_all(b"{}"),
        YamlNode::Json(j) => *j,
    };
    if json.is_object() {
        out.write_all(b"{}")
    } else if json.is_array() {
        out.write_all(b"[]")
    } else if let Some(s) = json.as_str() {
        out.write_all(yaml_string(&s).as_bytes())
    } else if matches!(json.text().first(), Some(b'-' | b'0'..=b'9')) {
        // serde_json's reading and printing of numbers (shortest float that round-trips).
        match crate::runtime::json::number(json.text()) {
            Some(n) => out.write_all(n.to_string().as_bytes()),
            None => out.write_all(json.text()),
        }
    } else {
        out.write_all(json.text())
    }
}

/// A string as YAML: plain when that reads back as the same string under YAML 1.1 rules,
/// else double-quoted with JSON escapes (valid YAML).
fn yaml_string(s: &str) -> String {
    if plain_is_safe(s) {
        s.to_owned()
    } else {
        serde_json::to_string(s).unwrap_or_else(|_| format!("{s:?}"))
    }
}

fn plain_is_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if s.trim() != s || s.contains(": ") || s.contains(" #") || s.ends_with(':') {
        return false;
    }
    // Indicators can't start a plain scalar; a lone dash-word such as `-x` can.
    let dash_word = first == '-' && s.len() > 1 && !s.starts_with("- ") && !s.starts_with("---");
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) && !dash_word {
        return false;
    }
    if s.chars()
        .any(|c| c.is_control() || matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{feff}'))
    {
        return false;
    }
    if matches!(
        s.to_ascii_lowercase().as_str(),
        "y" | "n" | "yes" | "no" | "on" | "off" | "true" | "false" | "null" | "~" | "<<"
    ) {
        return false;
    }
    if !(first.is_ascii_digit() || matches!(first, '+' | '-' | '.')) {
        return true;
    }
    if is_go_yaml_timestamp(s) {
        return false;
    }
    // Number-like text: quote anything a YAML 1.1 reader would not read back as this string.
    match parse_yaml_stream(s) {
        Ok(v) => v.len() == 1 && v[0].as_str() == Some(s),
        Err(_) => false,
    }
}

/// Whether go-yaml (which `crossplane render` and kubectl write with) reads `s` as a
/// timestamp, and so quotes it: `2006-1-2`, `2006-1-2T15:4:5[.9]Z07:00` (`t` too) or
/// `2006-1-2 15:4:5[.9]`.
fn is_go_yaml_timestamp(s: &str) -> bool {
    fn digits(s: &str, min: usize, max: usize) -> Option<&str> {
        let n = s.bytes().take_while(u8::is_ascii_digit).count();
        (min..=max).contains(&n).then(|| &s[n..])
    }
    let date = || -> Option<&str> {
        let r = digits(s, 4, 4)?.strip_prefix('-')?;
        let r = digits(r, 1, 2)?.strip_prefix('-')?;
        digits(r, 1, 2)
    };
    let Some(rest) = date() else { return false };
    if rest.is_empty() {
        return true;
    }
    let (zoned, rest) = match rest.as_bytes()[0] {
        b'T' | b't' => (true, &rest[1..]),
        b' ' => (false, &rest[1..]),
        _ => return false,
    };
    let time = || -> Option<&str> {
        let r = digits(rest, 1, 2)?.strip_prefix(':')?;
        let r = digits(r, 1, 2)?.strip_prefix(':')?;
        let r = digits(r, 1, 2)?;
        match r.strip_prefix('.') {
            Some(f) => digits(f, 1, 9),
            None => Some(r),
        }
    };
    let Some(zone) = time() else { return false };
    if !zoned {
        return zone.is_empty();
    }
    if zone == "Z" {
        return true;
    }
    let Some(offset) = zone.strip_prefix(['+', '-']) else {
        return false;
    };
    digits(offset, 2, 2)
        .and_then(|r| r.strip_prefix(':'))
        .and_then(|r| digits(r, 2, 2))
        .is_some_and(str::is_empty)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_quoted_as_go_yaml_quotes_them() {
        for (s, quoted) in [
            ("2024-01-01T00:00:00Z", true),
            ("2024-1-2", true),
            ("2024-01-01t10:00:00.5+02:00", true),
            ("2024-01-01 10:00:00", true),
            ("2024-01-01T10:00:00", false),
            ("2024-01-01x", false),
            ("20240101", true),
        ] {
            let text = to_yaml(&serde_json::json!({ "t": s }));
            assert_eq!(text.contains('"'), quoted, "{s}: {text}");
        }
    }

    #[test]
    fn go_g_format() {
        for (f, want) in [
            (1.0, "1"),
            (1.5, "1.5"),
            (100_000.0, "100000"),
            (1e6, "1e+06"),
            (1_234_567.0, "1.234567e+06"),
            (0.0001, "0.0001"),
            (0.000_01, "1e-05"),
            (-2.5, "-2.5"),
        ] {
            assert_eq!(go_format_g(f), want, "{f}");
        }
    }

    #[test]
    fn yaml_writer_round_trips() {
        let v: Value = serde_json::json!({
            "a": {"b": [1, {"c": "yes", "d": [true, null]}, []], "e": {}},
            "f": "two words", "g": "0777", "h": "", "i": "x: y", "j": "-", "k": "-x",
            "l": "line\nbreak", "m": 1.5, "n": ["- a", "#", "~"]
        });
        let text = to_yaml(&v);
        let back = parse_yaml_stream(&text).unwrap();
        assert_eq!(back, vec![v], "{text}");
    }
}
