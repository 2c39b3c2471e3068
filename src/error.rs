//! The engine's one error type: a kind to classify by, Crossplane's message text, and context.

use std::fmt;

/// What went wrong, for callers that must decide what to do about it.
///
/// Control flow never inspects message text: a missing field is `NotFound`
/// however deeply it was wrapped, as `fieldpath.IsNotFound` works upstream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A field path read found nothing (`no such field`, `no such element`).
    NotFound,
    /// The request document is not JSON, or not of the expected shape.
    InvalidRequest,
    /// The Composition (or Function input) is invalid.
    InvalidComposition,
    /// A patch, transform, readiness check or connection detail failed.
    Render,
    /// A value exceeded one of the engine's safety limits.
    Limit,
}

impl ErrorKind {
    /// The stable name of the kind, as written in error documents.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NotFound => "NotFound",
            Self::InvalidRequest => "InvalidRequest",
            Self::InvalidComposition => "InvalidComposition",
            Self::Render => "Render",
            Self::Limit => "Limit",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where an error happened, as far as the engine knows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Context {
    /// The composed resource (template name) being rendered.
    pub resource: Option<String>,
    /// The patch index and type.
    pub patch: Option<(usize, String)>,
    /// The transform index and type.
    pub transform: Option<(usize, String)>,
    /// The field path involved.
    pub field_path: Option<String>,
    /// Where the failing part is written in the Composition: a patch
    /// (`spec.resources[2].patches[1]`, `spec.patchSets[0].patches[1]`) or a template.
    pub source: Option<String>,
}

impl Context {
    fn is_empty(&self) -> bool {
        self.resource.is_none()
            && self.patch.is_none()
            && self.transform.is_none()
            && self.field_path.is_none()
            && self.source.is_none()
    }
}

/// An error with Crossplane's message text.
///
/// `Display` prints the message exactly as Crossplane would (wrapping is
/// `outer: inner`); the alternate form `{:#}` adds the structured context.
#[derive(Clone, PartialEq, Eq)]
pub struct Error(Box<Repr>);

#[derive(Clone, Debug, PartialEq, Eq)]
struct Repr {
    kind: ErrorKind,
    message: String,
    context: Context,
}

impl Error {
    /// A new error of `kind` with the given message.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self(Box::new(Repr {
            kind,
            message: message.into(),
            context: Context::default(),
        }))
    }

    /// The kind of this error.
    #[must_use]
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// Crossplane's message text.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The structured context.
    #[must_use]
    pub fn context(&self) -> &Context {
        &self.0.context
    }

    /// Whether this is a field-not-found error (survives wrapping).
    #[must_use]
    pub fn is_not_found(&self) -> bool {
        self.0.kind == ErrorKind::NotFound
    }

    /// Wraps the message as Go's `errors.Wrap(err, prefix)` does: `prefix: message`.
    #[must_use]
    pub fn wrap(mut self, prefix: impl AsRef<str>) -> Self {
        let prefix = prefix.as_ref();
        let mut message = String::with_capacity(prefix.len() + 2 + self.0.message.len());
        message.push_str(prefix);
        message.push_str(": ");
        message.push_str(&self.0.message);
        self.0.message = message;
        self
    }

    /// Replaces the kind, keeping message and context.
    #[must_use]
    pub fn with_kind(mut self, kind: ErrorKind) -> Self {
        self.0.kind = kind;
        self
    }

    /// Records the composed resource, unless an inner frame already did.
    #[must_use]
    pub fn with_resource(mut self, name: impl Into<String>) -> Self {
        self.0.context.resource.get_or_insert_with(|| name.into());
        self
    }

    /// Records the patch index and type, unless an inner frame already did.
    #[must_use]
    pub fn with_patch(mut self, index: usize, kind: impl Into<String>) -> Self {
        self.0
            .context
            .patch
            .get_or_insert_with(|| (index, kind.into()));
        self
    }

    /// Records the transform index and type, unless an inner frame already did.
    #[must_use]
    pub fn with_transform(mut self, index: usize, kind: impl Into<String>) -> Self {
        self.0
            .context
            .transform
            .get_or_insert_with(|| (index, kind.into()));
        self
    }

    /// Records the field path, unless an inner frame already did.
    #[must_use]
    pub fn with_field_path(mut self, path: impl Into<String>) -> Self {
        self.0.context.field_path.get_or_insert_with(|| path.into());
        self
    }

    /// Records where the failing part is written in the Composition, unless an inner
    /// frame already did.
    #[must_use]
    pub fn with_source(mut self, path: impl Into<String>) -> Self {
        self.0.context.source.get_or_insert_with(|| path.into());
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message)?;
        if f.alternate() && !self.0.context.is_empty() {
            let c = &self.0.context;
            if let Some(r) = &c.resource {
                write!(f, "\n  resource:   {r}")?;
            }
            if let Some((i, t)) = &c.patch {
                write!(f, "\n  patch:      #{i} ({t})")?;
            }
            if let Some((i, t)) = &c.transform {
                write!(f, "\n  transform:  #{i} ({t})")?;
            }
            if let Some(p) = &c.field_path {
                write!(f, "\n  field path: {p}")?;
            }
            if let Some(s) = &c.source {
                write!(f, "\n  source:     {s}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.0.kind)
            .field("message", &self.0.message)
            .field("context", &self.0.context)
            .finish()
    }
}

impl std::error::Error for Error {}

/// Shorthand for results of the engine.
pub type Result<T, E = Error> = std::result::Result<T, E>;
