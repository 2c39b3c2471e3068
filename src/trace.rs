//! The explain trace: what every patch read, how each transform changed it, and what it wrote.
//!
//! One entry per patch, in the order patches ran. The JSON shape is documented
//! in `docs/render.md`; keys are stable and values are the engine's own.

use crate::error::Error;
use crate::fieldpath::MergeOptions;
#[cfg(test)]
use crate::value::Map;
use crate::value::{Value, json};

/// One entry of an Output's `trace`: as this render recorded it (written without building a
/// [`Value`]), or as read from an Output document.
#[derive(Clone, Debug)]
pub(crate) enum Entry {
    Recorded(Box<PatchTrace>),
    /// Read back from an Output document (the `serde` feature).
    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    Read(Value),
}

impl Entry {
    pub(crate) fn recorded(t: PatchTrace) -> Entry {
        Entry::Recorded(Box::new(t))
    }

    pub(crate) fn write_json(&self, out: &mut String) {
        match self {
            Entry::Recorded(t) => t.write_json(out),
            Entry::Read(v) => v.write_json(out),
        }
    }

    fn json(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }
}

/// Entries are equal when they write the same JSON, however each came to be: a value's JSON
/// is canonical (sorted keys, Go's numbers).
impl PartialEq for Entry {
    fn eq(&self, other: &Entry) -> bool {
        match (self, other) {
            (Entry::Recorded(a), Entry::Recorded(b)) => a == b,
            (Entry::Read(a), Entry::Read(b)) => a == b,
            _ => self.json() == other.json(),
        }
    }
}

/// What happened to a patch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum Outcome {
    /// Written to the target.
    #[default]
    Applied,
    /// Not applied, and not an error (missing Optional source, resource not observed, ...).
    Skipped,
    /// Failed; `reason` says what the engine did about it.
    Failed,
    /// Never ran (an earlier failure ended the resource, or it was not rendered).
    NotRun,
}

impl Outcome {
    fn as_str(self) -> &'static str {
        match self {
            Self::Applied => "applied",
            Self::Skipped => "skipped",
            Self::Failed => "failed",
            Self::NotRun => "not-run",
        }
    }
}

/// One source field read.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Read {
    pub(crate) path: String,
    pub(crate) value: Option<Value>,
    pub(crate) missing: bool,
    pub(crate) error: Option<String>,
}

/// One transform run.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TransformStep {
    pub(crate) kind: String,
    pub(crate) input: Value,
    pub(crate) output: Option<Value>,
    pub(crate) error: Option<String>,
}

/// One target field written.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Write {
    pub(crate) path: String,
    pub(crate) value: Value,
    /// The target's value after a merging write, when it differs from `value`.
    pub(crate) result: Option<Value>,
}

/// The trace of one patch.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct PatchTrace {
    pub(crate) step: Option<String>,
    /// The composed resource (template name); `None` for environment patches.
    pub(crate) resource: Option<String>,
    pub(crate) index: usize,
    /// Where the patch is written in the Composition (`spec.resources[2].patches[1]`).
    pub(crate) source: String,
    pub(crate) kind: String,
    pub(crate) from_object: &'static str,
    pub(crate) to_object: &'static str,
    pub(crate) from_policy: String,
    pub(crate) to_policy: String,
    pub(crate) reads: Vec<Read>,
    pub(crate) combined: Option<String>,
    pub(crate) transforms: Vec<TransformStep>,
    pub(crate) writes: Vec<Write>,
    pub(crate) outcome: Outcome,
    pub(crate) reason: Option<String>,
}

impl PatchTrace {
    pub(crate) fn read(&mut self, path: &str, value: &Value) {
        self.reads.push(Read {
            path: path.to_owned(),
            value: Some(value.clone()),
            missing: false,
            error: None,
        });
    }

    pub(crate) fn read_failed(&mut self, path: &str, e: &Error) {
        self.reads.push(Read {
            path: path.to_owned(),
            value: None,
            missing: e.is_not_found(),
            error: Some(e.message().to_owned()),
        });
    }

    pub(crate) fn wrote(
        &mut self,
        path: &str,
        value: Value,
        after: Option<Value>,
        opts: Option<MergeOptions>,
    ) {
        let result = match (opts, after) {
            (Some(_), Some(a)) if a != value => Some(a),
            _ => None,
        };
        self.writes.push(Write {
            path: path.to_owned(),
            value,
            result,
        });
    }

    /// Marks the patch skipped or failed with a human reason.
    pub(crate) fn finish(&mut self, outcome: Outcome, reason: impl Into<String>) {
        self.outcome = outcome;
        self.reason = Some(reason.into());
    }

    /// The entry as a value: what [`PatchTrace::write_json`] writes, built member by member.
    #[cfg(test)]
    fn to_value(&self) -> Value {
        let mut m = Map::new();
        if let Some(s) = &self.step {
            m.insert("step".into(), s.as_str().into());
        }
        match &self.resource {
            Some(r) => m.insert("resource".into(), r.as_str().into()),
            None => m.insert("environment".into(), Value::Bool(true)),
        };
        m.insert("patch".into(), Value::Int(to_i64(self.index)));
        m.insert("source".into(), self.source.as_str().into());
        m.insert("type".into(), self.kind.as_str().into());
        if self.outcome != Outcome::NotRun {
            m.insert(
                "direction".into(),
                format!("{} -> {}", self.from_object, self.to_object).into(),
            );
        }
        let mut policy = Map::new();
        policy.insert("fromFieldPath".into(), self.from_policy.as_str().into());
        policy.insert("write".into(), self.to_policy.as_str().into());
        m.insert("policy".into(), Value::Object(policy));
        let from: Vec<Value> = self.reads.iter().map(read_value).collect();
        m.insert("from".into(), Value::Array(from));
        if let Some(c) = &self.combined {
            m.insert("combined".into(), c.as_str().into());
        }
        if !self.transforms.is_empty() {
            let steps = self
                .transforms
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let mut s = Map::new();
                    s.insert("index".into(), Value::Int(to_i64(i)));
                    s.insert("type".into(), t.kind.as_str().into());
                    s.insert("input".into(), t.input.clone());
                    if let Some(o) = &t.output {
                        s.insert("output".into(), o.clone());
                    }
                    if let Some(e) = &t.error {
                        s.insert("error".into(), e.as_str().into());
                    }
                    Value::Object(s)
                })
                .collect();
            m.insert("transforms".into(), Value::Array(steps));
        }
        let to: Vec<Value> = self
            .writes
            .iter()
            .map(|w| {
                let mut o = Map::new();
                o.insert("path".into(), w.path.as_str().into());
                o.insert("value".into(), w.value.clone());
                if let Some(r) = &w.result {
                    o.insert("result".into(), r.clone());
                }
                Value::Object(o)
            })
            .collect();
        m.insert("to".into(), Value::Array(to));
        m.insert("outcome".into(), self.outcome.as_str().into());
        if let Some(r) = &self.reason {
            m.insert("reason".into(), r.as_str().into());
        }
        m.insert("summary".into(), self.summary().into());
        Value::Object(m)
    }

    /// Appends the entry's JSON: what `to_value` gives, written in one pass without building
    /// it (a trace is most of a traced render's Output). Keys in sorted order, as a
    /// [`Value`] object writes them.
    pub(crate) fn write_json(&self, out: &mut String) {
        let mut w = Members::new(out);
        if let Some(c) = &self.combined {
            w.string("combined", c);
        }
        if self.outcome != Outcome::NotRun {
            let direction = format!("{} -> {}", self.from_object, self.to_object);
            w.string("direction", &direction);
        }
        if self.resource.is_none() {
            w.raw("environment", "true");
        }
        w.key("from");
        w.out.push('[');
        for (i, r) in self.reads.iter().enumerate() {
            if i > 0 {
                w.out.push(',');
            }
            let mut o = Members::new(w.out);
            if let Some(e) = &r.error {
                o.string("error", e);
            }
            if r.missing {
                o.raw("missing", "true");
            }
            o.string("path", &r.path);
            if let Some(v) = &r.value {
                o.value("value", v);
            }
            o.end();
        }
        w.out.push(']');
        w.string("outcome", self.outcome.as_str());
        w.key("patch");
        json::write_int(w.out, to_i64(self.index));
        w.key("policy");
        let mut p = Members::new(w.out);
        p.string("fromFieldPath", &self.from_policy);
        p.string("write", &self.to_policy);
        p.end();
        if let Some(r) = &self.reason {
            w.string("reason", r);
        }
        if let Some(r) = &self.resource {
            w.string("resource", r);
        }
        w.string("source", &self.source);
        if let Some(s) = &self.step {
            w.string("step", s);
        }
        w.string("summary", &self.summary());
        w.key("to");
        w.out.push('[');
        for (i, t) in self.writes.iter().enumerate() {
            if i > 0 {
                w.out.push(',');
            }
            let mut o = Members::new(w.out);
            o.string("path", &t.path);
            if let Some(r) = &t.result {
                o.value("result", r);
            }
            o.value("value", &t.value);
            o.end();
        }
        w.out.push(']');
        if !self.transforms.is_empty() {
            w.key("transforms");
            w.out.push('[');
            for (i, t) in self.transforms.iter().enumerate() {
                if i > 0 {
                    w.out.push(',');
                }
                let mut o = Members::new(w.out);
                if let Some(e) = &t.error {
                    o.string("error", e);
                }
                o.key("index");
                json::write_int(o.out, to_i64(i));
                o.value("input", &t.input);
                if let Some(v) = &t.output {
                    o.value("output", v);
                }
                o.string("type", &t.kind);
                o.end();
            }
            w.out.push(']');
        }
        w.string("type", &self.kind);
        w.end();
    }

    /// One line for humans: `spec.region "us-east-1" → map "East US" → spec.x`.
    fn summary(&self) -> String {
        if self.reads.is_empty() {
            return match &self.reason {
                Some(r) => format!("{}: {r}", self.outcome.as_str()),
                None => self.outcome.as_str().to_owned(),
            };
        }
        let mut out = String::new();
        let reads: Vec<String> = self
            .reads
            .iter()
            .map(|r| match (&r.value, r.missing) {
                (Some(v), _) => format!("{} {}", r.path, short(v)),
                (None, true) => format!("{} (missing)", r.path),
                (None, false) => format!("{} (unreadable)", r.path),
            })
            .collect();
        out.push_str(&reads.join(", "));
        if let Some(c) = &self.combined {
            out.push_str(" → ");
            out.push_str(&short(&Value::String(c.clone())));
        }
        for t in &self.transforms {
            out.push_str(" → ");
            out.push_str(&t.kind);
            match &t.output {
                Some(o) => {
                    out.push(' ');
                    out.push_str(&short(o));
                }
                None => out.push_str(" (error)"),
            }
        }
        for w in &self.writes {
            out.push_str(" → ");
            out.push_str(&w.path);
        }
        if self.outcome != Outcome::Applied {
            out.push_str(": ");
            out.push_str(self.outcome.as_str());
        }
        out
    }
}

/// A value's JSON, cut to a readable length on a character boundary.
fn short(v: &Value) -> String {
    const MAX: usize = 60;
    let s = v.to_json();
    if s.len() <= MAX {
        return s;
    }
    let mut end = MAX;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

#[cfg(test)]
fn read_value(r: &Read) -> Value {
    let mut o = Map::new();
    o.insert("path".into(), r.path.as_str().into());
    if let Some(v) = &r.value {
        o.insert("value".into(), v.clone());
    }
    if r.missing {
        o.insert("missing".into(), Value::Bool(true));
    }
    if let Some(e) = &r.error {
        o.insert("error".into(), e.as_str().into());
    }
    Value::Object(o)
}

/// A JSON object written member by member; the caller gives the keys in sorted order.
struct Members<'o> {
    out: &'o mut String,
    first: bool,
}

impl<'o> Members<'o> {
    fn new(out: &'o mut String) -> Members<'o> {
        out.push('{');
        Members { out, first: true }
    }

    /// `key` is one of the entry's own names: plain ASCII, nothing to escape.
    fn key(&mut self, key: &'static str) {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        self.out.push('"');
        self.out.push_str(key);
        self.out.push_str("\":");
    }

    fn raw(&mut self, key: &'static str, json: &str) {
        self.key(key);
        self.out.push_str(json);
    }

    fn string(&mut self, key: &'static str, s: &str) {
        self.key(key);
        json::write_string(self.out, s);
    }

    fn value(&mut self, key: &'static str, v: &Value) {
        self.key(key);
        v.write_json(self.out);
    }

    fn end(self) {
        self.out.push('}');
    }
}

fn to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> Value {
        Value::String(v.to_owned())
    }

    /// Every member an entry can have, and none of the optional ones.
    fn entries() -> Vec<PatchTrace> {
        let full = PatchTrace {
            step: Some("patch-<and>".into()),
            resource: Some("bucket \"b\"".into()),
            index: 3,
            source: "spec.resources[0].patches[3]".into(),
            kind: "CombineFromComposite".into(),
            from_object: "composite",
            to_object: "resource",
            from_policy: "Required".into(),
            to_policy: "MergeObjects".into(),
            reads: vec![
                Read {
                    path: "spec.a".into(),
                    value: Some(s("é & <x>")),
                    missing: false,
                    error: None,
                },
                Read {
                    path: "spec.b".into(),
                    value: None,
                    missing: true,
                    error: Some("spec.b: no such field".into()),
                },
            ],
            combined: Some("a-b".into()),
            transforms: vec![
                TransformStep {
                    kind: "string".into(),
                    input: s("a-b"),
                    output: Some(Value::Int(-7)),
                    error: None,
                },
                TransformStep {
                    kind: "math".into(),
                    input: Value::Float(0.5),
                    output: None,
                    error: Some("bad \"input\"".into()),
                },
            ],
            writes: vec![Write {
                path: "spec.x".into(),
                value: Value::Array(vec![Value::Bool(true), Value::Null]),
                result: Some(s("merged")),
            }],
            outcome: Outcome::Failed,
            reason: Some("the patch failed\nhere".into()),
        };
        let bare = PatchTrace {
            outcome: Outcome::NotRun,
            ..PatchTrace::default()
        };
        let environment = PatchTrace {
            index: 1,
            kind: "FromCompositeFieldPath".into(),
            from_object: "composite",
            to_object: "environment",
            outcome: Outcome::Skipped,
            ..PatchTrace::default()
        };
        vec![full, bare, environment]
    }

    /// The entry written in one pass is byte for byte the JSON of the entry's value.
    #[test]
    fn written_as_its_value_writes() {
        for t in entries() {
            let mut out = String::new();
            t.write_json(&mut out);
            assert_eq!(out, t.to_value().to_json());
            assert_eq!(Entry::recorded(t.clone()), Entry::Read(t.to_value()));
        }
    }
}
