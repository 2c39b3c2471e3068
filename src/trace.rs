//! The explain trace: what every patch read, how each transform changed it, and what it wrote.
//!
//! One entry per patch, in the order patches ran. The JSON shape is documented
//! in `docs/render.md`; keys are stable and values are the engine's own.

use crate::error::Error;
use crate::fieldpath::MergeOptions;
use crate::value::{Map, Value};

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

    /// The entry as written in the output's `trace` array.
    pub(crate) fn to_value(&self) -> Value {
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

fn to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}
