//! Writing documents as `crossplane render` prints them: sigs.k8s.io/yaml's bytes (go-yaml v2
//! block style, sequences not indented under their key, keys in go-yaml's order).
//!
//! serde-saphyr's serializer writes the document structure. Each scalar whose bytes go-yaml
//! spells differently (its quoting choice, folding at 80 columns, `|` blocks, Go's float
//! format) reaches the serializer as a placeholder that the output stream replaces with
//! go-yaml's text for it, at the column the serializer put it (see `go_yaml`). Documents are
//! read in place and written as they are walked: no tree of the engine's answer is built.
//!
//! Not reproduced: a mapping or sequence as the value of a `? ` key (a key over 128 bytes or
//! with a line break), which go-yaml starts on the `:` line; scalar values of such keys are.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt;
use std::io::Write;

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;

use super::go_yaml::{self, Style};
use crate::runtime::json::Json;

/// Writes `v` as a YAML block document the way sigs.k8s.io/yaml does, ending with a newline.
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
    /// a Go map (and a `serde_json::Map`) is read in. The writer puts them in go-yaml's order.
    pub(crate) fn members(json: Json<'a>) -> Vec<(Cow<'a, str>, YamlNode<'a>)> {
        crate::runtime::json::sorted_members(json)
            .into_iter()
            .map(|(k, v)| (k, YamlNode::Json(v)))
            .collect()
    }
}

/// Writes `node` as a YAML block document the way sigs.k8s.io/yaml does, ending with a
/// newline, without building a tree of it. Nesting costs stack: the command runs under
/// [`with_deep_stack`].
///
/// # Errors
/// Writing to `out` failed.
pub(crate) fn write_yaml(out: &mut dyn Write, node: YamlNode<'_>) -> std::io::Result<()> {
    let pending = RefCell::new(None);
    let mut stream = Stream {
        out,
        column: 0,
        pending: &pending,
        error: None,
    };
    let options = serde_saphyr::ser_options! {
        indent_step: 2,
        compact_list_indent: true,
        prefer_block_scalars: false,
    };
    let doc = Node {
        node: &node,
        pending: &pending,
        column: 0,
        indent: 2,
    };
    let result = serde_saphyr::to_fmt_writer_with_options(&mut stream, &doc, options);
    if let Some(e) = stream.error {
        return Err(e);
    }
    result.map_err(std::io::Error::other)
}

/// Runs `f` on a thread with a stack for any nesting the engine can answer with (field
/// paths may nest deeper than requests); only the pages used count as memory. `main` runs
/// every command so.
pub(crate) fn with_deep_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn_scoped(s, f)
            .expect("cannot start the command's thread")
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e))
    })
}

/// What the serializer writes where go-yaml's text for a scalar goes: a private-use
/// character it writes plain, in one piece, as a key or a value.
const PLACEHOLDER: &str = "\u{E000}";

/// go-yaml's text for the next placeholder.
enum Scalar {
    /// A value: continuation lines (and `|` block lines) are indented by `indent`.
    Value { text: String, indent: usize },
    /// A mapping key at column `column`.
    Key { text: String, column: usize },
    /// Written as it is.
    Raw(String),
}

type Pending = RefCell<Option<Scalar>>;

/// The output: tracks the column go-yaml folds by and puts the pending scalar in place of the
/// placeholder.
struct Stream<'o> {
    out: &'o mut dyn Write,
    column: usize,
    pending: &'o Pending,
    error: Option<std::io::Error>,
}

impl Stream<'_> {
    /// go-yaml's text for `scalar`, written from the current column.
    fn scalar_text(&self, scalar: Scalar) -> String {
        let mut out = String::new();
        match scalar {
            Scalar::Raw(text) => out = text,
            Scalar::Value { text, indent } => value(&mut out, &text, self.column, indent),
            Scalar::Key { text, .. } if go_yaml::is_simple_key(&text) => {
                let style = go_yaml::style(&text, true);
                go_yaml::write_scalar(&mut out, &text, style, self.column, 0, true);
            }
            Scalar::Key { text, column } => {
                // `? key`, then `:` on its own line, where the serializer writes it.
                out.push_str("? ");
                value(&mut out, &text, self.column + 2, column + 2);
                out.push('\n');
                out.extend(std::iter::repeat_n(' ', column));
            }
        }
        out
    }
}

/// A value scalar in go-yaml's style for it, from `column`.
fn value(out: &mut String, text: &str, column: usize, indent: usize) {
    match go_yaml::style(text, false) {
        Style::Literal => literal(out, text, indent),
        style => {
            go_yaml::write_scalar(out, text, style, column, indent, false);
        }
    }
}

impl fmt::Write for Stream<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let scalar = if s == PLACEHOLDER {
            self.pending.borrow_mut().take()
        } else {
            None
        };
        let text = match scalar {
            None => Cow::Borrowed(s),
            Some(scalar) => Cow::Owned(self.scalar_text(scalar)),
        };
        match text.rfind(['\n', '\r', '\u{85}', '\u{2028}', '\u{2029}']) {
            Some(i) => {
                let after = text[i..].chars().next().map_or(1, char::len_utf8);
                self.column = text[i + after..].chars().count();
            }
            None => self.column += text.chars().count(),
        }
        self.out.write_all(text.as_bytes()).map_err(|e| {
            self.error = Some(e);
            fmt::Error
        })
    }
}

/// A `|` block as go-yaml writes it, without the line break the serializer puts after every
/// value: an indentation digit when the text starts with a space or line break, `-` without a
/// final line break, `+` with more than one.
fn literal(out: &mut String, text: &str, indent: usize) {
    out.push('|');
    if text.starts_with([' ', '\n']) {
        out.push('2');
    }
    let body = text.strip_suffix('\n');
    match body {
        None => out.push('-'),
        Some(b) if b.is_empty() || b.ends_with('\n') => out.push('+'),
        Some(_) => {}
    }
    for line in body.unwrap_or(text).split('\n') {
        out.push('\n');
        if !line.is_empty() {
            out.extend(std::iter::repeat_n(' ', indent));
            out.push_str(line);
        }
    }
}

/// A node to serialize. `column` is where its keys or dashes go if it is a mapping or a
/// sequence; `indent`, where its lines continue if it is a scalar.
struct Node<'n, 'a> {
    node: &'n YamlNode<'a>,
    pending: &'n Pending,
    column: usize,
    indent: usize,
}

impl Node<'_, '_> {
    /// Serializes the placeholder, to be replaced by `scalar`.
    fn placeholder<S: Serializer>(&self, s: S, scalar: Scalar) -> Result<S::Ok, S::Error> {
        *self.pending.borrow_mut() = Some(scalar);
        s.serialize_str(PLACEHOLDER)
    }

    fn string<S: Serializer>(&self, s: S, text: String) -> Result<S::Ok, S::Error> {
        let indent = self.indent;
        self.placeholder(s, Scalar::Value { text, indent })
    }

    fn json<S: Serializer>(&self, s: S, json: Json<'_>) -> Result<S::Ok, S::Error> {
        match json.text().first() {
            Some(b'{') => {
                let members = YamlNode::members(json);
                self.map(s, members.iter().map(|(k, v)| (k.as_ref(), v)).collect())
            }
            Some(b'[') => {
                let items: Vec<Json<'_>> = json.items().collect();
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    let node = YamlNode::Json(item);
                    // An item's keys, dashes and continued lines go two columns past its dash.
                    seq.serialize_element(&Node {
                        node: &node,
                        pending: self.pending,
                        column: self.column + 2,
                        indent: self.column + 2,
                    })?;
                }
                seq.end()
            }
            Some(b'"') => self.string(s, json.as_str().unwrap_or_default().into_owned()),
            Some(b't') => s.serialize_bool(true),
            Some(b'f') => s.serialize_bool(false),
            Some(b'n') | None => s.serialize_unit(),
            Some(_) => {
                let text = String::from_utf8_lossy(json.text());
                self.placeholder(s, Scalar::Raw(go_yaml::number_text(&text)))
            }
        }
    }

    fn map<S: Serializer>(
        &self,
        s: S,
        mut members: Vec<(&str, &YamlNode<'_>)>,
    ) -> Result<S::Ok, S::Error> {
        members.sort_by(|a, b| go_yaml::key_order(a.0, b.0));
        let mut map = s.serialize_map(Some(members.len()))?;
        for (key, value) in members {
            map.serialize_key(&Key {
                text: key,
                pending: self.pending,
                column: self.column,
            })?;
            // A sequence under a key is not indented (go-yaml's style); anything else is.
            let seq = matches!(value, YamlNode::Json(j) if j.is_array());
            map.serialize_value(&Node {
                node: value,
                pending: self.pending,
                column: if seq { self.column } else { self.column + 2 },
                indent: self.column + 2,
            })?;
        }
        map.end()
    }
}

impl Serialize for Node<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.node {
            YamlNode::Json(json) => self.json(s, *json),
            YamlNode::Str(text) => self.string(s, text.clone()),
            YamlNode::Map(members) => {
                self.map(s, members.iter().map(|(k, v)| (k.as_ref(), v)).collect())
            }
        }
    }
}

/// A mapping key whose keys sit at `column`.
struct Key<'k> {
    text: &'k str,
    pending: &'k Pending,
    column: usize,
}

impl Serialize for Key<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        *self.pending.borrow_mut() = Some(Scalar::Key {
            text: self.text.to_owned(),
            column: self.column,
        });
        s.serialize_str(PLACEHOLDER)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every document of `host/tests/data/yaml/cases.json`, written as `crossplane render`
    /// writes one (`---` then the document), matches `cases.yaml`: sigs.k8s.io/yaml's output
    /// for the same stream (`scripts/suites/20-go-diff.sh` checks it against Go).
    #[test]
    fn writes_what_sigs_k8s_io_yaml_writes() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/yaml");
        let input = std::fs::read_to_string(format!("{dir}/cases.json")).unwrap();
        let want = std::fs::read_to_string(format!("{dir}/cases.yaml")).unwrap();
        let mut got = Vec::new();
        for line in input.lines() {
            got.extend_from_slice(b"---\n");
            write_yaml(
                &mut got,
                YamlNode::Json(Json::parse(line.as_bytes()).unwrap()),
            )
            .unwrap();
        }
        let got = String::from_utf8(got).unwrap();
        if got != want {
            std::fs::write(std::env::temp_dir().join("xprender-yaml-cases.yaml"), &got).unwrap();
        }
        assert!(
            got == want,
            "differs from cases.yaml: see {}",
            std::env::temp_dir()
                .join("xprender-yaml-cases.yaml")
                .display()
        );
    }

    #[test]
    fn reads_back_as_written() {
        let v: Value = serde_json::json!({
            "a": {"b": [1, {"c": "yes", "d": [true, null]}, []], "e": {}},
            "f": "two words", "g": "0777", "h": "", "i": "x: y", "j": "-", "k": "-x",
            "l": "line\nbreak", "m": 1.5, "n": ["- a", "#", "~"], "o": "word ".repeat(40)
        });
        let text = to_yaml(&v);
        let back = super::super::parse_yaml_stream(&text).unwrap();
        assert_eq!(back, vec![v], "{text}");
    }

    #[test]
    fn host_members_are_written_in_go_yaml_order() {
        let node = YamlNode::Map(vec![
            ("a10".into(), YamlNode::Str("x: y".into())),
            ("a9".into(), YamlNode::Map(Vec::new())),
        ]);
        let mut out = Vec::new();
        write_yaml(&mut out, node).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "a9: {}\na10: 'x: y'\n");
    }
}
