//! YAML read the way kubectl reads it.
//!
//! kubectl decodes YAML with go-yaml v2, i.e. YAML 1.1 scalars (`yes`/`no`/`on`/`off`/`y`/`n`
//! are booleans, `0777` is octal, `1_000` is 1000), then turns the tree into JSON: a whole
//! float such as `1e3` or `2.0` becomes an integer, non-string map keys become strings, and
//! `.inf`/`.nan` are rejected. Unquoted timestamps stay strings.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::MAX_DEPTH;
use super::go_yaml::format_float;
use super::whole_floats::float_to_json;

/// serde-saphyr's limits for a text of `len` bytes.
///
/// Its defaults refuse real inputs: a provider's package or a stream of its CRDs passes
/// 250,000 nodes, 1,000,000 events and 1,024 documents, a CRD's schema can nest past 64
/// levels, and a Composition may alias one anchor (a shared patch, say) more than ten times
/// over. Here the counts grow with the text, so that only aliases can reach them: a text
/// without aliases has fewer nodes and events than twice its bytes, while an alias bomb
/// still stops at the replay and count limits. kubectl's go-yaml likewise refuses aliasing
/// only in proportion to a large document's size, never by the number of anchors.
fn budget(len: usize) -> serde_saphyr::Budget {
    let mut budget = serde_saphyr::Budget::default();
    let twice = len.saturating_mul(2).saturating_add(64);
    budget.max_events = budget.max_events.max(twice);
    budget.max_nodes = budget.max_nodes.max(twice);
    budget.max_documents = budget.max_documents.max(len);
    budget.max_total_scalar_bytes = budget.max_total_scalar_bytes.max(len);
    budget.max_depth = MAX_DEPTH;
    budget.flow_nesting_limit = MAX_DEPTH;
    budget.enforce_alias_anchor_ratio = false;
    budget
}

/// serde-saphyr's options for reading `text`, every reader's: its defaults with [`budget`].
pub(crate) fn options_for(text: &str) -> serde_saphyr::Options {
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget(text.len()));
    options
}

/// Parses a YAML stream the way kubectl does. Errors read `line:column: message`.
pub(crate) fn parse_yaml_stream(text: &str) -> Result<Vec<Value>, String> {
    let mut options = options_for(text);
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

/// What `e` says is wrong, without its position and source snippet.
pub(crate) fn yaml_reason(e: &serde_saphyr::Error) -> String {
    if let Some(reason) = budget_reason(e) {
        return reason;
    }
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

/// A limit of [`budget`] in words (serde-saphyr names the breach in Rust's debug form). Past
/// those limits a text nests too deep, or aliases expand it.
fn budget_reason(e: &serde_saphyr::Error) -> Option<String> {
    use serde_saphyr::Error;
    use serde_saphyr::budget::BudgetBreach as Breach;
    let mut e = e;
    while let Error::WithSnippet { error, .. } | Error::AliasError { error, .. } = e {
        e = error;
    }
    let Error::Budget { breach, .. } = e else {
        return None;
    };
    let expanded = |what: String| format!("aliases expand the YAML past {what}");
    Some(match breach {
        Breach::Depth { .. } => format!("nested more than {MAX_DEPTH} levels deep"),
        Breach::Nodes { nodes } => expanded(format!("{} nodes", nodes.saturating_sub(1))),
        Breach::Events { events } => {
            expanded(format!("{} parser events", events.saturating_sub(1)))
        }
        Breach::RecordedAnchorEvents {
            recorded_anchor_events,
        } => expanded(format!(
            "{} replayed events",
            recorded_anchor_events.saturating_sub(1)
        )),
        Breach::RecordedAnchorBytes {
            recorded_anchor_bytes,
        } => expanded(format!(
            "{} replayed bytes",
            recorded_anchor_bytes.saturating_sub(1)
        )),
        Breach::ScalarBytes { total_scalar_bytes } => expanded(format!(
            "{} bytes of scalars",
            total_scalar_bytes.saturating_sub(1)
        )),
        other => format!("beyond the YAML reader's limits: {other:?}"),
    })
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
            Node::Float(f) => format_float(f),
            Node::Seq(_) | Node::Map(_) => {
                return Err(
                    "a sequence or mapping cannot be a mapping key in Kubernetes YAML".into(),
                );
            }
        })
    }
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
