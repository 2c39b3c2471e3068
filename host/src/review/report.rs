//! What a review found, per XR: the resources added, changed and removed, warnings and errors.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

/// A resource's change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ChangeType {
    Added,
    Modified,
    Removed,
}

impl ChangeType {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ChangeType::Added => "added",
            ChangeType::Modified => "modified",
            ChangeType::Removed => "removed",
        }
    }
}

/// What the desired state was compared as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Compared {
    /// The API server's answer to a server-side dry-run apply (or create).
    DryRun,
    /// The render merged over the live object with its CRD's defaults applied, predicted here.
    CrdDefaults,
}

impl Compared {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Compared::DryRun => "dry-run",
            Compared::CrdDefaults => "crd-defaults",
        }
    }
}

/// apiVersion, kind, namespace and name of an object.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Default)]
pub(crate) struct Identity {
    pub(crate) api_version: String,
    pub(crate) kind: String,
    pub(crate) namespace: String,
    pub(crate) name: String,
}

impl Identity {
    pub(crate) fn of(obj: &Value) -> Identity {
        let s = |p: &str| crate::cluster::str_at(obj, p).to_string();
        let mut name = s("/metadata/name");
        if name.is_empty() {
            let generate = s("/metadata/generateName");
            if !generate.is_empty() {
                name = format!("{generate}(generated)");
            }
        }
        Identity {
            api_version: s("/apiVersion"),
            kind: s("/kind"),
            namespace: s("/metadata/namespace"),
            name,
        }
    }

    /// `Kind/name`, as crossplane-diff names a resource.
    pub(crate) fn label(&self) -> String {
        format!("{}/{}", self.kind, self.name)
    }

    /// Group, kind, namespace and name: the same object at any version.
    pub(crate) fn key(&self) -> (String, String, String, String) {
        let group = self.api_version.rsplit_once('/').map_or("", |(g, _)| g);
        (
            group.to_string(),
            self.kind.clone(),
            self.namespace.clone(),
            self.name.clone(),
        )
    }

    pub(crate) fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("apiVersion".into(), json!(self.api_version));
        m.insert("kind".into(), json!(self.kind));
        m.insert("name".into(), json!(self.name));
        if !self.namespace.is_empty() {
            m.insert("namespace".into(), json!(self.namespace));
        }
        Value::Object(m)
    }
}

/// One resource that would change.
#[derive(Debug, Clone)]
pub(crate) struct ResourceChange {
    pub(crate) change: ChangeType,
    pub(crate) id: Identity,
    /// Template names from the top XR (`network/vpc`); empty for the XR or claim itself.
    pub(crate) resource: String,
    /// The object as it is, as compared (none when added).
    pub(crate) before: Option<Value>,
    /// The object as it would be, as compared (none when removed).
    pub(crate) after: Option<Value>,
    /// How `after` was obtained (none when removed).
    pub(crate) compared: Option<Compared>,
}

/// A warning: a message and what it is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Warning {
    pub(crate) message: String,
    pub(crate) context: BTreeMap<String, String>,
}

impl Warning {
    pub(crate) fn new(message: impl Into<String>, context: &[(&str, &str)]) -> Warning {
        Warning {
            message: message.into(),
            context: context
                .iter()
                .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
                .collect(),
        }
    }

    /// `message (k=v, ...)`, as printed on stderr.
    pub(crate) fn line(&self) -> String {
        if self.context.is_empty() {
            return self.message.clone();
        }
        let ctx: Vec<String> = self
            .context
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        format!("{} ({})", self.message, ctx.join(", "))
    }
}

/// The review of one XR or claim.
#[derive(Debug, Clone, Default)]
pub(crate) struct XrReview {
    /// The XR or claim reviewed.
    pub(crate) xr: Identity,
    /// Where it was read from (a file, the cluster).
    pub(crate) origin: String,
    /// Changes, in tree order: the claim, the XR, then composed resources; removals last.
    pub(crate) changes: Vec<ResourceChange>,
    /// Resources compared and found unchanged.
    pub(crate) unchanged: usize,
    pub(crate) warnings: Vec<Warning>,
    pub(crate) errors: Vec<String>,
}

/// Counts of added, modified and removed resources.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Summary {
    pub(crate) added: usize,
    pub(crate) modified: usize,
    pub(crate) removed: usize,
}

impl Summary {
    pub(crate) fn of<'a>(changes: impl IntoIterator<Item = &'a ResourceChange>) -> Summary {
        let mut s = Summary::default();
        for c in changes {
            match c.change {
                ChangeType::Added => s.added += 1,
                ChangeType::Modified => s.modified += 1,
                ChangeType::Removed => s.removed += 1,
            }
        }
        s
    }

    pub(crate) fn total(self) -> usize {
        self.added + self.modified + self.removed
    }

    pub(crate) fn add(self, o: Summary) -> Summary {
        Summary {
            added: self.added + o.added,
            modified: self.modified + o.modified,
            removed: self.removed + o.removed,
        }
    }

    /// `1 added, 2 modified` (only what is not zero), or `no changes`.
    pub(crate) fn text(self) -> String {
        let parts: Vec<String> = [
            (self.added, "added"),
            (self.modified, "modified"),
            (self.removed, "removed"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, w)| format!("{n} {w}"))
        .collect();
        if parts.is_empty() {
            "no changes".into()
        } else {
            parts.join(", ")
        }
    }

    pub(crate) fn to_json(self) -> Value {
        json!({"added": self.added, "modified": self.modified, "removed": self.removed})
    }
}

impl XrReview {
    pub(crate) fn summary(&self) -> Summary {
        Summary::of(&self.changes)
    }

    /// `changed`, `unchanged` or `error`.
    pub(crate) fn status(&self) -> &'static str {
        if !self.errors.is_empty() {
            "error"
        } else if self.changes.is_empty() {
            "unchanged"
        } else {
            "changed"
        }
    }
}
