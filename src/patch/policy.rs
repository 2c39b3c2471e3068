//! Patch policies: `fromFieldPath` Optional/Required, native `mergeOptions`, FN `toFieldPath`.

use crate::error::{ErrorKind, Result};
use crate::fieldpath::{self, MergeOptions};
use crate::semantics::Semantics;

/// A patch's `policy` block.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Policy {
    /// `policy.fromFieldPath` as written (`Optional` when unset).
    pub(crate) from_field_path: Option<String>,
    /// Native `policy.mergeOptions` (present-but-empty differs from absent).
    pub(crate) merge_options: Option<MergeOptions>,
    /// FN `policy.toFieldPath` as written (`Replace` when unset).
    pub(crate) to_field_path: Option<String>,
}

impl Policy {
    /// Whether a missing source skips the patch silently. Any value other
    /// than `Optional` counts as required, as `IsOptionalFieldPathNotFound` does.
    pub(crate) fn optional(&self) -> bool {
        matches!(self.from_field_path.as_deref(), None | Some("Optional"))
    }

    /// Whether the policy is `Required` (FN's drop-or-warn handling keys off this exact value).
    pub(crate) fn required(&self) -> bool {
        self.from_field_path.as_deref() == Some("Required")
    }

    /// The merge behaviour of writes: native `mergeOptions`, FN `toFieldPath`.
    pub(crate) fn merge_options(&self, sem: Semantics) -> Result<Option<MergeOptions>> {
        match sem {
            Semantics::Native => Ok(self.merge_options),
            Semantics::Function => to_field_path_options(self.to_field_path.as_deref()),
        }
    }

    /// The name of the write policy, for the trace.
    pub(crate) fn describe(&self, sem: Semantics) -> String {
        match sem {
            Semantics::Function => self
                .to_field_path
                .as_deref()
                .unwrap_or("Replace")
                .to_owned(),
            Semantics::Native => match self.merge_options {
                None => "Replace".to_owned(),
                Some(m) => format!(
                    "mergeOptions{{keepMapValues: {}, appendSlice: {}}}",
                    m.keep_map_values, m.append_slice
                ),
            },
        }
    }
}

/// FN's `toMergeOption`.
fn to_field_path_options(policy: Option<&str>) -> Result<Option<MergeOptions>> {
    fieldpath::merge_options_for_policy(policy).map_err(|e| e.with_kind(ErrorKind::Render))
}

/// Whether `policy` is one of FN's `toFieldPath` values.
pub(crate) fn valid_to_field_path(policy: &str) -> bool {
    to_field_path_options(Some(policy)).is_ok()
}

#[cfg(test)]
mod tests {
    use super::super::PatchType;
    use crate::fieldpath::merge_options_for_policy;
    use crate::model::pt::values;

    #[test]
    fn the_input_model_names_what_the_engine_reads() {
        for t in values("v1beta1.PatchType") {
            assert_eq!(PatchType::parse(t).as_str(), *t);
        }
        for p in values("v1beta1.ToFieldPathPolicy") {
            assert!(merge_options_for_policy(Some(p)).is_ok(), "{p}");
        }
        assert!(merge_options_for_policy(Some("ForceMergeObject")).is_err());
    }
}
