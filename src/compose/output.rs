//! The render Output and its JSON form (resources in Composition order).

use base64::Engine as _;

use crate::connection::Details;
use crate::value::Value;

/// How serious a result is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Severity {
    Normal,
    Warning,
    Fatal,
}

impl Severity {
    fn as_str(self) -> &'static str {
        match self {
            Self::Normal => "Normal",
            Self::Warning => "Warning",
            Self::Fatal => "Fatal",
        }
    }
}

/// A result (Crossplane event / function result).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Message {
    pub(crate) severity: Severity,
    pub(crate) message: String,
    pub(crate) resource: Option<String>,
    /// The patch (index, type) a Fatal result of a failed native reconcile names.
    pub(crate) patch: Option<(usize, String)>,
    /// The field path such a result names.
    pub(crate) field_path: Option<String>,
    /// Where such a result's patch (or template) is written in the Composition.
    pub(crate) source: Option<String>,
    /// The pipeline step that produced it.
    pub(crate) step: Option<String>,
}

impl Message {
    /// A result as an Output document carries it (the inverse of `write_json`).
    #[cfg(feature = "serde")]
    fn from_value(r: &Value) -> Message {
        let severity = match r.get("severity").and_then(Value::as_str) {
            Some("Fatal") => Severity::Fatal,
            Some("Warning") => Severity::Warning,
            _ => Severity::Normal,
        };
        let text = |k: &str| r.get(k).and_then(Value::as_str).map(str::to_owned);
        Message {
            severity,
            message: text("message").unwrap_or_default(),
            resource: text("resource"),
            patch: match (
                r.get("patchIndex"),
                r.get("patchType").and_then(Value::as_str),
            ) {
                (Some(Value::Int(i)), Some(t)) => {
                    usize::try_from(*i).ok().map(|i| (i, t.to_owned()))
                }
                _ => None,
            },
            field_path: text("fieldPath"),
            source: text("source"),
            step: text("step"),
        }
    }

    /// The result as the Output's JSON writes it; `steps`: whether to name the step.
    fn write_json(&self, out: &mut String, steps: bool) {
        out.push_str("{\"severity\":");
        json_string(out, self.severity.as_str());
        out.push_str(",\"message\":");
        json_string(out, &self.message);
        if let Some(r) = &self.resource {
            out.push_str(",\"resource\":");
            json_string(out, r);
        }
        if let Some((i, t)) = &self.patch {
            out.push_str(",\"patchIndex\":");
            out.push_str(&i.to_string());
            out.push_str(",\"patchType\":");
            json_string(out, t);
        }
        if let Some(p) = &self.field_path {
            out.push_str(",\"fieldPath\":");
            json_string(out, p);
        }
        if let Some(s) = &self.source {
            out.push_str(",\"source\":");
            json_string(out, s);
        }
        if let (true, Some(s)) = (steps, &self.step) {
            out.push_str(",\"step\":");
            json_string(out, s);
        }
        out.push('}');
    }
}

/// One desired composed resource.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Rendered {
    pub(crate) name: String,
    pub(crate) resource: Value,
    pub(crate) ready: bool,
}

/// The desired state a render produced.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    pub(crate) composite: Value,
    pub(crate) resources: Vec<Rendered>,
    pub(crate) connection_details: Details,
    pub(crate) ready: bool,
    pub(crate) results: Vec<Message>,
    pub(crate) trace: Option<Vec<crate::trace::Entry>>,
    /// The environment a function step leaves (`options.output: function`).
    pub(crate) environment: Option<Value>,
    /// The Function context the pipeline ended with (`options.includeContext`).
    pub(crate) context: Option<Value>,
    /// Results carry their step (`options.resultSteps`).
    pub(crate) result_steps: bool,
    /// What a documents request chose (`inputs`); `None` for a request of the parts.
    pub(crate) inputs: Option<Value>,
    /// A function step's explicit word on the XR's readiness (`compositeReady`):
    /// function-patch-and-transform marks it unready when it held a resource back.
    pub(crate) composite_ready: Option<bool>,
    /// The renders of the nested XRs among the resources, by template name (a documents
    /// request that gives their Compositions).
    pub(crate) nested: Vec<(String, Output)>,
    /// What each render of `options.iterations`/`options.untilReady` changed.
    pub(crate) iterations: Option<Value>,
    /// The desired state after each pipeline step (`options.steps`).
    pub(crate) steps: Option<Value>,
}

impl Output {
    /// The Output document's members in the order `to_json` writes them.
    #[cfg(feature = "serde")]
    pub(crate) fn member_order(&self) -> [&'static str; 9] {
        [
            "composite",
            "resources",
            "connectionDetails",
            "ready",
            "results",
            "trace",
            "steps",
            "iterations",
            "inputs",
        ]
    }

    /// The composed resources' template names, in Composition order.
    #[cfg(feature = "serde")]
    pub(crate) fn resource_names(&self) -> Vec<&str> {
        self.resources.iter().map(|r| r.name.as_str()).collect()
    }

    /// An Output from its document's members (`resources` as `[{"name", "entry"}]` in order).
    #[cfg(feature = "serde")]
    pub(crate) fn from_members(members: Vec<(String, Value)>) -> crate::Result<Output> {
        let mut out = Output {
            composite: Value::Null,
            resources: Vec::new(),
            connection_details: Details::new(),
            ready: false,
            results: Vec::new(),
            trace: None,
            environment: None,
            context: None,
            result_steps: false,
            inputs: None,
            composite_ready: None,
            nested: Vec::new(),
            iterations: None,
            steps: None,
        };
        for (k, v) in members {
            match (k.as_str(), v) {
                ("composite", v) => out.composite = v,
                ("resources", Value::Array(rs)) => {
                    for r in rs {
                        let name = r.get("name").and_then(Value::as_str).unwrap_or_default();
                        let entry = r.get("entry").cloned().unwrap_or_default();
                        if let Some(Value::Object(child)) = entry.get("nested") {
                            out.nested
                                .push((name.to_owned(), Output::from_document(child.clone())?));
                        }
                        out.resources.push(Rendered {
                            name: name.to_owned(),
                            ready: entry.get("ready") == Some(&Value::Bool(true)),
                            resource: entry.get("resource").cloned().unwrap_or_default(),
                        });
                    }
                }
                ("connectionDetails", Value::Object(m)) => {
                    for (key, b64) in m {
                        let text = b64.as_str().ok_or_else(|| {
                            invalid(format!("connectionDetails.{key}: expected string"))
                        })?;
                        let bytes = base64::engine::general_purpose::STANDARD
                            .decode(text)
                            .map_err(|e| {
                                invalid(format!("connectionDetails.{key}: invalid base64: {e}"))
                            })?;
                        out.connection_details.push((key, bytes));
                    }
                }
                ("ready", Value::Bool(b)) => out.ready = b,
                ("compositeReady", Value::Bool(b)) => out.composite_ready = Some(b),
                ("results", Value::Array(rs)) => {
                    for r in rs {
                        out.results.push(Message::from_value(&r));
                        out.result_steps |= r.get("step").is_some();
                    }
                }
                ("trace", Value::Array(t)) => {
                    out.trace = Some(t.into_iter().map(crate::trace::Entry::Read).collect());
                }
                ("environment", v) => out.environment = Some(v),
                ("context", v) => out.context = Some(v),
                ("inputs", v) => out.inputs = Some(v),
                ("iterations", v) => out.iterations = Some(v),
                ("steps", v) => out.steps = Some(v),
                (other, v) => {
                    return Err(invalid(format!(
                        "{other}: unexpected {} in an Output",
                        v.go_type()
                    )));
                }
            }
        }
        Ok(out)
    }

    /// An Output from its document (a nested one: its resources in name order).
    #[cfg(feature = "serde")]
    fn from_document(doc: crate::value::Map) -> crate::Result<Output> {
        let members = doc
            .into_iter()
            .map(|(k, v)| match (k.as_str(), v) {
                ("resources", Value::Object(rs)) => {
                    let list = rs
                        .into_iter()
                        .map(|(name, entry)| {
                            let mut m = crate::value::Map::new();
                            m.insert("name".into(), Value::String(name));
                            m.insert("entry".into(), entry);
                            Value::Object(m)
                        })
                        .collect();
                    (k, Value::Array(list))
                }
                (_, v) => (k, v),
            })
            .collect();
        Output::from_members(members)
    }

    /// The Output document as compact JSON: `composite`, `resources` (in
    /// Composition order), `connectionDetails` (sorted, base64), `ready`,
    /// `results`, and `trace` and `context` when asked for. Results name their
    /// step when the request sets `options.resultSteps`.
    #[must_use]
    pub fn to_json(&self) -> String {
        let steps = self.result_steps;
        let mut out = String::with_capacity(4096);
        out.push_str("{\"composite\":");
        self.composite.write_json(&mut out);
        out.push_str(",\"resources\":{");
        for (i, r) in self.resources.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            json_string(&mut out, &r.name);
            out.push_str(":{\"resource\":");
            r.resource.write_json(&mut out);
            out.push_str(",\"ready\":");
            out.push_str(if r.ready { "true" } else { "false" });
            if let Some((_, child)) = self.nested.iter().find(|(n, _)| *n == r.name) {
                out.push_str(",\"nested\":");
                out.push_str(&child.to_json());
            }
            out.push('}');
        }
        out.push_str("},\"connectionDetails\":{");
        let mut details: Vec<&(String, Vec<u8>)> = self.connection_details.iter().collect();
        crate::sort::sort_by(&mut details, |a, b| a.0.cmp(&b.0));
        for (i, (k, v)) in details.into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            json_string(&mut out, k);
            out.push(':');
            json_string(
                &mut out,
                &base64::engine::general_purpose::STANDARD.encode(v),
            );
        }
        out.push_str("},\"ready\":");
        out.push_str(if self.ready { "true" } else { "false" });
        if let Some(r) = self.composite_ready {
            out.push_str(",\"compositeReady\":");
            out.push_str(if r { "true" } else { "false" });
        }
        out.push_str(",\"results\":[");
        for (i, m) in self.results.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            m.write_json(&mut out, steps);
        }
        out.push(']');
        self.write_optional(&mut out);
        out.push('}');
        out
    }

    /// The members a render writes only when asked for or when it has them.
    fn write_optional(&self, out: &mut String) {
        if let Some(env) = &self.environment {
            out.push_str(",\"environment\":");
            env.write_json(out);
        }
        if let Some(t) = &self.trace {
            out.push_str(",\"trace\":");
            out.push('[');
            for (i, e) in t.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                e.write_json(out);
            }
            out.push(']');
        }
        if let Some(s) = &self.steps {
            out.push_str(",\"steps\":");
            s.write_json(out);
        }
        if let Some(c) = &self.context {
            out.push_str(",\"context\":");
            c.write_json(out);
        }
        if let Some(it) = &self.iterations {
            out.push_str(",\"iterations\":");
            it.write_json(out);
        }
        if let Some(inputs) = &self.inputs {
            out.push_str(",\"inputs\":");
            inputs.write_json(out);
        }
    }
}

/// Results as the Output's JSON writes them, as a value (a pipeline step's, `options.steps`).
pub(crate) fn results_value(results: &[Message], steps: bool) -> Value {
    let mut out = String::from("[");
    for (i, m) in results.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        m.write_json(&mut out, steps);
    }
    out.push(']');
    Value::from_json(&out).unwrap_or_default()
}

/// A JSON string literal in Go's form.
fn json_string(out: &mut String, s: &str) {
    crate::value::write_json_string(out, s);
}

/// An Output document that does not decode.
#[cfg(feature = "serde")]
fn invalid(message: String) -> crate::Error {
    crate::Error::new(crate::ErrorKind::InvalidRequest, message)
}
