//! What validation finds: a severity, the field path at fault and a message.

use std::fmt;

/// One step of a path into an object.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Seg {
    /// A property declared by the schema (shown `a.b`).
    Field(String),
    /// A key of a map (`additionalProperties`), shown `a[key]` as the API server does.
    Key(String),
    /// A list index, shown `a[3]`.
    Index(usize),
}

/// A path into an object, from its root.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Path(pub Vec<Seg>);

impl Path {
    pub fn root() -> Self {
        Self(Vec::new())
    }

    /// This path with one more step.
    #[must_use]
    pub fn child(&self, seg: Seg) -> Self {
        let mut v = self.0.clone();
        v.push(seg);
        Self(v)
    }

    #[must_use]
    pub fn field(&self, name: &str) -> Self {
        self.child(Seg::Field(name.to_owned()))
    }

    #[must_use]
    pub fn index(&self, i: usize) -> Self {
        self.child(Seg::Index(i))
    }

    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("<root>");
        }
        for (i, s) in self.0.iter().enumerate() {
            match s {
                Seg::Field(n) if i == 0 => f.write_str(n)?,
                Seg::Field(n) => write!(f, ".{n}")?,
                Seg::Key(k) => write!(f, "[{k}]")?,
                Seg::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// Which text of the node at a problem's path a [`Suggestion`] replaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// The member's key (a misspelt field name).
    Key,
    /// Within the member's value (a misspelt enum value, or a step of a field path).
    Value,
}

impl Target {
    pub fn as_str(self) -> &'static str {
        match self {
            Target::Key => "key",
            Target::Value => "value",
        }
    }
}

/// The "did you mean" of a problem as data, so an editor can apply it: `wrong` is the
/// misspelt word in the key or value at the problem's path, `right` what to write instead.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Suggestion {
    pub target: Target,
    pub wrong: String,
    pub right: String,
}

/// One finding about one object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub severity: Severity,
    pub path: Path,
    pub message: String,
    /// The fix of a misspelling, when the message suggests one.
    pub suggestion: Option<Suggestion>,
}

impl Problem {
    pub fn error(path: &Path, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Error,
            path: path.clone(),
            message: message.into(),
            suggestion: None,
        }
    }

    pub fn warning(path: &Path, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Warning,
            path: path.clone(),
            message: message.into(),
            suggestion: None,
        }
    }
}

impl Problem {
    /// This problem with a suggestion to replace `wrong` with `right` in its key or value.
    #[must_use]
    pub fn suggesting(mut self, target: Target, wrong: &str, right: &str) -> Self {
        self.suggestion = Some(Suggestion {
            target,
            wrong: wrong.to_owned(),
            right: right.to_owned(),
        });
        self
    }
}

impl fmt::Display for Problem {
    /// `field.path: message`, with `warning: ` before a warning's message.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.severity {
            Severity::Error => write!(f, "{}: {}", self.path, self.message),
            Severity::Warning => write!(f, "{}: warning: {}", self.path, self.message),
        }
    }
}
