//! Which function a pipeline step's `functionRef` runs.
//!
//! Crossplane runs a step's `functionRef.name` as the Function of that name;
//! its package says what the function is. Without a FUNCTIONS map the step's
//! input kind (or, for input-less steps, the function name) identifies it.

use crate::error::{Error, ErrorKind};
use crate::go::quote;
use crate::value::Value;

use super::composition::StepRef;
use super::decode::PT_API_VERSION;

/// The function-patch-and-transform package name.
pub(crate) const PATCH_AND_TRANSFORM: &str = "function-patch-and-transform";
/// xprender's own Function package (`host/package`), a drop-in for function-patch-and-transform.
pub(crate) const XPRENDER: &str = "function-xprender";
/// The function-environment-configs package name.
pub(crate) const ENVIRONMENT_CONFIGS: &str = "function-environment-configs";
/// The function-auto-ready package name.
pub(crate) const AUTO_READY: &str = "function-auto-ready";

/// A function the engine emulates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Implementation {
    PatchAndTransform,
    EnvironmentConfigs,
    AutoReady,
}

/// The package name in a package reference: registry, repository path, tag and
/// digest removed (`xpkg.example.org/org/function-auto-ready:v0.2.1` →
/// `function-auto-ready`).
fn package_name(package: &str) -> &str {
    let no_digest = package.split('@').next().unwrap_or(package);
    let last = no_digest.rsplit('/').next().unwrap_or(no_digest);
    last.split(':').next().unwrap_or(last)
}

fn by_package(name: &str) -> Option<Implementation> {
    match name {
        // xprender's own Function package answers as function-patch-and-transform.
        PATCH_AND_TRANSFORM | XPRENDER => Some(Implementation::PatchAndTransform),
        ENVIRONMENT_CONFIGS => Some(Implementation::EnvironmentConfigs),
        AUTO_READY => Some(Implementation::AutoReady),
        _ => None,
    }
}

/// Why a step cannot run.
pub(crate) enum Unsupported {
    /// A FUNCTIONS map was given and lacks the step's function: always an error.
    Unknown(Error),
    /// The function is not one the engine emulates.
    NotEmulated { what: String },
}

/// The function a step runs.
pub(crate) fn resolve(
    step: StepRef<'_>,
    functions: &Value,
) -> std::result::Result<Implementation, Unsupported> {
    if functions.as_object().is_some_and(|f| !f.is_empty()) {
        let Some(package) = functions.get(step.function).and_then(Value::as_str) else {
            return Err(Unsupported::Unknown(Error::new(
                ErrorKind::Render,
                format!(
                    "cannot run pipeline step {}: unknown Function {} - does it exist in your Functions file?",
                    quote(step.name),
                    quote(step.function)
                ),
            )));
        };
        return by_package(package_name(package)).ok_or_else(|| Unsupported::NotEmulated {
            what: format!(
                "function {} from package {}",
                quote(step.function),
                quote(package)
            ),
        });
    }
    let group = step
        .raw_input
        .and_then(|i| i.get("apiVersion"))
        .and_then(Value::as_str)
        .map(|a| a.split('/').next().unwrap_or(a));
    let by_input = match group {
        Some(g) if Some(g) == PT_API_VERSION.split('/').next() => {
            Some(Implementation::PatchAndTransform)
        }
        Some("environmentconfigs.fn.crossplane.io") => Some(Implementation::EnvironmentConfigs),
        Some("autoready.fn.crossplane.io") => Some(Implementation::AutoReady),
        _ => None,
    };
    if let Some(i) = by_input {
        return Ok(i);
    }
    // Function objects are named after their package, often with the organisation
    // in front (`crossplane-contrib-function-auto-ready`).
    [PATCH_AND_TRANSFORM, ENVIRONMENT_CONFIGS, AUTO_READY]
        .into_iter()
        .find(|p| step.function == *p || step.function.ends_with(&format!("-{p}")))
        .and_then(by_package)
        .ok_or_else(|| Unsupported::NotEmulated {
            what: format!("function {}", quote(step.function)),
        })
}

/// Whether a Pipeline Composition runs function-environment-configs in one of its steps (then
/// EnvironmentConfigs are that step's extra resources, as `crossplane render -e` gives them).
pub(crate) fn runs_environment_configs(composition: &Value, functions: &Value) -> bool {
    let spec = composition.get("spec");
    if spec.and_then(|s| s.get("mode")).and_then(Value::as_str) != Some("Pipeline") {
        return false;
    }
    spec.and_then(|s| s.get("pipeline"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|s| {
            let field = |k: &str| s.get(k);
            let step = StepRef {
                name: field("step").and_then(Value::as_str).unwrap_or(""),
                function: field("functionRef")
                    .and_then(|f| f.get("name"))
                    .and_then(Value::as_str)
                    .unwrap_or(""),
                raw_input: field("input"),
            };
            matches!(
                resolve(step, functions),
                Ok(Implementation::EnvironmentConfigs)
            )
        })
}

#[cfg(test)]
mod tests {
    use super::package_name;

    #[test]
    fn package_names_drop_registry_path_tag_and_digest() {
        for (reference, want) in [
            (
                "xpkg.upbound.io/crossplane-contrib/function-patch-and-transform:v0.8.2",
                "function-patch-and-transform",
            ),
            ("function-auto-ready", "function-auto-ready"),
            (
                "registry.example.org:5000/fns/function-environment-configs@sha256:abc",
                "function-environment-configs",
            ),
        ] {
            assert_eq!(package_name(reference), want, "{reference}");
        }
    }
}
