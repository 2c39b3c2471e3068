//! The two engines whose behaviour differs: Crossplane's native one and function-patch-and-transform.

/// Which engine's behaviour a render reproduces.
///
/// `Native` is Crossplane's built-in patch-and-transform engine (v1.14, with
/// crossplane-runtime v1.14); `Function` is function-patch-and-transform
/// (v0.10, crossplane-runtime v1.16 and later).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Semantics {
    /// Crossplane's built-in engine (`spec.resources` Compositions).
    #[default]
    Native,
    /// function-patch-and-transform (`spec.mode: Pipeline` Compositions).
    Function,
}

impl Semantics {
    /// The name used in requests: `native` or `function`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Native => "native",
            Self::Function => "function",
        }
    }

    /// Parses `native` or `function`.
    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "native" => Some(Self::Native),
            "function" => Some(Self::Function),
            _ => None,
        }
    }

    /// crossplane-runtime v1.16+: a field read through a `null` member is
    /// NotFound (`expected map, got nil`) instead of `not an object`.
    pub(crate) fn null_intermediate_not_found(self) -> bool {
        self == Self::Function
    }

    /// crossplane-runtime v1.15+: a wildcard over `null` is NotFound.
    pub(crate) fn wildcard_null_not_found(self) -> bool {
        self == Self::Function
    }
}
