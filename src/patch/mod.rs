//! Patches: the nine patch types, their sources and targets, and how one patch is applied.

pub(crate) mod combine;
pub(crate) mod environment;
pub(crate) mod patchset;
pub(crate) mod policy;

use std::borrow::Cow;

use crate::error::{Error, ErrorKind, Result};
use crate::fieldpath::{self, MergeOptions, Path};
use crate::semantics::Semantics;
use crate::trace::{PatchTrace, TransformStep};
use crate::transform::{self, Transform};
use crate::value::Value;

pub(crate) use policy::Policy;

/// A patch `type`, with the Crossplane name kept verbatim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PatchType {
    FromCompositeFieldPath,
    ToCompositeFieldPath,
    CombineFromComposite,
    CombineToComposite,
    FromEnvironmentFieldPath,
    ToEnvironmentFieldPath,
    CombineFromEnvironment,
    CombineToEnvironment,
    PatchSet,
    /// A type no engine knows; kept so validation can name it.
    Unknown(String),
}

impl PatchType {
    /// Parses a `type`; the empty string is the CRD default `FromCompositeFieldPath`.
    pub(crate) fn parse(s: &str) -> PatchType {
        match s {
            "" | "FromCompositeFieldPath" => Self::FromCompositeFieldPath,
            "ToCompositeFieldPath" => Self::ToCompositeFieldPath,
            "CombineFromComposite" => Self::CombineFromComposite,
            "CombineToComposite" => Self::CombineToComposite,
            "FromEnvironmentFieldPath" => Self::FromEnvironmentFieldPath,
            "ToEnvironmentFieldPath" => Self::ToEnvironmentFieldPath,
            "CombineFromEnvironment" => Self::CombineFromEnvironment,
            "CombineToEnvironment" => Self::CombineToEnvironment,
            "PatchSet" => Self::PatchSet,
            other => Self::Unknown(other.to_owned()),
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        match self {
            Self::FromCompositeFieldPath => "FromCompositeFieldPath",
            Self::ToCompositeFieldPath => "ToCompositeFieldPath",
            Self::CombineFromComposite => "CombineFromComposite",
            Self::CombineToComposite => "CombineToComposite",
            Self::FromEnvironmentFieldPath => "FromEnvironmentFieldPath",
            Self::ToEnvironmentFieldPath => "ToEnvironmentFieldPath",
            Self::CombineFromEnvironment => "CombineFromEnvironment",
            Self::CombineToEnvironment => "CombineToEnvironment",
            Self::PatchSet => "PatchSet",
            Self::Unknown(s) => s,
        }
    }

    /// Combine patches format several variables into one string.
    pub(crate) fn is_combine(&self) -> bool {
        matches!(
            self,
            Self::CombineFromComposite
                | Self::CombineToComposite
                | Self::CombineFromEnvironment
                | Self::CombineToEnvironment
        )
    }

    /// Patches that write the desired composed resource (FN's `ToComposedResource`).
    pub(crate) fn writes_composed(&self) -> bool {
        matches!(
            self,
            Self::FromCompositeFieldPath
                | Self::CombineFromComposite
                | Self::FromEnvironmentFieldPath
                | Self::CombineFromEnvironment
        )
    }

    /// Patches that read the composite and write the composed resource.
    pub(crate) fn reads_composite(&self) -> bool {
        matches!(
            self,
            Self::FromCompositeFieldPath | Self::CombineFromComposite
        )
    }

    /// Patches that read the composed resource and write the composite.
    pub(crate) fn writes_composite(&self) -> bool {
        matches!(self, Self::ToCompositeFieldPath | Self::CombineToComposite)
    }

    /// Patches between the composed resource and the environment.
    pub(crate) fn environment(&self) -> bool {
        matches!(
            self,
            Self::FromEnvironmentFieldPath
                | Self::ToEnvironmentFieldPath
                | Self::CombineFromEnvironment
                | Self::CombineToEnvironment
        )
    }

    /// Patches that write the environment.
    pub(crate) fn writes_environment(&self) -> bool {
        matches!(
            self,
            Self::ToEnvironmentFieldPath | Self::CombineToEnvironment
        )
    }
}

/// A patch's `combine` block.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Combine<'a> {
    /// Each variable's `fromFieldPath` (empty when unset).
    pub(crate) variables: Vec<Path<'a>>,
    /// `strategy` as written (empty when unset).
    pub(crate) strategy: String,
    /// `string.fmt`, when the `string` block is present.
    pub(crate) string_fmt: Option<String>,
}

/// One patch, decoded; it borrows from the request's Composition, or owns
/// its transforms when a live instance keeps it (`into_owned`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Patch<'a> {
    pub(crate) kind: PatchType,
    pub(crate) from_field_path: Option<Path<'a>>,
    pub(crate) to_field_path: Option<Path<'a>>,
    pub(crate) combine: Option<Combine<'a>>,
    pub(crate) patch_set_name: Option<String>,
    /// The transforms as written, with native CRD defaults applied (for validation).
    pub(crate) transforms: Cow<'a, [Value]>,
    /// The same transforms decoded, as `transform::run` runs them.
    pub(crate) pipeline: Vec<Transform>,
    pub(crate) policy: Policy,
    /// Where the patch is written in the Composition.
    pub(crate) source: Source,
}

/// Where a patch is written in the Composition: its list and index there, inside a pipeline
/// step's input or the classic spec. Kept as numbers; written out only for a trace.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Source {
    /// The pipeline step whose input holds the patch; `None` for a classic spec.
    pub(crate) step: Option<u32>,
    pub(crate) list: PatchList,
    pub(crate) index: u32,
}

/// The list a patch is in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum PatchList {
    #[default]
    Environment,
    /// A resource template's, by the template's index.
    Resource(u32),
    /// A patch set's, by the set's index.
    PatchSet(u32),
    /// An input's `writeConnectionSecretToRef`.
    ConnectionSecret,
}

impl Source {
    /// The path of what holds the patch's list: its template (`spec.resources[2]`), set,
    /// environment or connection Secret reference.
    pub(crate) fn owner(self) -> impl std::fmt::Display {
        Owner(self)
    }
}

struct Owner(Source);

impl std::fmt::Display for Owner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("spec.")?;
        if let Some(step) = self.0.step {
            write!(f, "pipeline[{step}].input.")?;
        }
        match self.0.list {
            PatchList::Environment => f.write_str("environment"),
            PatchList::Resource(i) => write!(f, "resources[{i}]"),
            PatchList::PatchSet(i) => write!(f, "patchSets[{i}]"),
            PatchList::ConnectionSecret => f.write_str("writeConnectionSecretToRef"),
        }
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.patches[{}]", self.owner(), self.index)
    }
}

impl Patch<'_> {
    /// The patch owning what it borrowed, to be kept with its Composition.
    pub(crate) fn into_owned(self) -> Patch<'static> {
        Patch {
            kind: self.kind,
            from_field_path: self.from_field_path.map(Path::into_owned),
            to_field_path: self.to_field_path.map(Path::into_owned),
            combine: self.combine.map(|c| Combine {
                variables: c.variables.into_iter().map(Path::into_owned).collect(),
                strategy: c.strategy,
                string_fmt: c.string_fmt,
            }),
            patch_set_name: self.patch_set_name,
            transforms: Cow::Owned(self.transforms.into_owned()),
            pipeline: self.pipeline,
            policy: self.policy,
            source: self.source,
        }
    }
}

/// Patches owning what they borrowed.
pub(crate) fn owned(patches: Vec<Patch<'_>>) -> Vec<Patch<'static>> {
    patches.into_iter().map(Patch::into_owned).collect()
}

/// Applies `p` reading `from` and writing `to`.
///
/// Missing sources are reported, never swallowed: the error is `NotFound`,
/// and the caller decides from the policy and semantics whether that skips
/// the patch, the resource or the render.
pub(crate) fn apply(
    p: &Patch,
    from: &Value,
    to: &mut Value,
    sem: Semantics,
    trace: Option<&mut PatchTrace>,
) -> Result<()> {
    apply_as(p, from, to, sem, trace, Reread::Whole)
}

/// [`apply`] under function semantics to a target a patch applied before left
/// re-decoded (every whole float an integer): the written value is normalized
/// before it is written, and the walk of the whole target after it is left out.
/// The result is the same; a target with many patches is not walked for each.
pub(crate) fn apply_to_reread(
    p: &Patch,
    from: &Value,
    to: &mut Value,
    trace: Option<&mut PatchTrace>,
) -> Result<()> {
    apply_as(p, from, to, Semantics::Function, trace, Reread::Written)
}

fn apply_as(
    p: &Patch,
    from: &Value,
    to: &mut Value,
    sem: Semantics,
    trace: Option<&mut PatchTrace>,
    reread: Reread,
) -> Result<()> {
    if p.kind.is_combine() {
        combine::apply(p, from, to, sem, trace, reread)
    } else {
        apply_field_path(p, from, to, sem, trace, reread)
    }
}

/// What function semantics re-decodes after a write.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reread {
    /// The whole target.
    Whole,
    /// The written value only: the rest of the target was re-decoded before.
    Written,
}

impl Reread {
    /// What a write with these merge options re-decodes: a merge compares the
    /// value with what it lands on (`removeSourceDuplicates` tells `3.0` from
    /// `3`), so the value must be merged as it is and the whole target
    /// re-decoded after; a plain write may be normalized first.
    pub(crate) fn for_write(self, opts: Option<fieldpath::MergeOptions>) -> Reread {
        if opts.is_some() { Reread::Whole } else { self }
    }

    /// The value to write, normalized first when only it is re-decoded.
    pub(crate) fn prepare(self, mut out: Value) -> Value {
        if self == Reread::Written {
            out.normalize_in_place();
        }
        out
    }
}

/// Whether a missing source may be reported without its message: every
/// caller skips an Optional patch's miss, and only a trace reads why.
fn quiet_miss(p: &Patch, trace: Option<&PatchTrace>) -> bool {
    trace.is_none() && p.policy.optional()
}

/// The FromFieldPath-style algorithm shared by the four field-path types.
fn apply_field_path(
    p: &Patch,
    from_obj: &Value,
    to_obj: &mut Value,
    sem: Semantics,
    mut trace: Option<&mut PatchTrace>,
    reread_as: Reread,
) -> Result<()> {
    let kind = p.kind.as_str();
    let Some(from) = &p.from_field_path else {
        // Validation catches this first in both engines; kept for direct callers.
        return Err(Error::new(
            ErrorKind::Render,
            format!("FromFieldPath is required by type {kind}"),
        ));
    };
    let from_path: &str = from;
    let to = p.to_field_path.as_ref().unwrap_or(from);
    let to_path: &str = to;
    let quiet = quiet_miss(p, trace.as_deref());
    let read = if quiet {
        fieldpath::get_value_at_quiet(from_obj, from, sem)
    } else {
        fieldpath::get_value_at(from_obj, from, sem)
    };
    let input = match read {
        Ok(v) => v,
        Err(e) if quiet && e.is_not_found() => return Err(e),
        Err(e) => {
            if let Some(t) = trace.as_deref_mut() {
                t.read_failed(from_path, &e);
            }
            return Err(e.with_field_path(from_path));
        }
    };
    if let Some(t) = trace.as_deref_mut() {
        t.read(from_path, input);
    }
    let out = run_transforms(p, Cow::Borrowed(input), sem, trace.as_deref_mut())?;
    let out = if sem == Semantics::Function {
        // FN round-trips the pipeline output through JSON before merging (`toValidJSON`).
        fieldpath::to_valid_json(out)?
    } else {
        out
    };
    let opts = p.policy.merge_options(sem)?;
    let reread_as = reread_as.for_write(opts);
    let out = reread_as.prepare(out);
    if to.has_index_wildcard() {
        let paths = fieldpath::expand_wildcards(to_obj, to_path, sem)
            .map_err(|e| e.with_field_path(to_path))?;
        if paths.is_empty() {
            return Err(Error::new(
                ErrorKind::Render,
                format!("cannot expand ToFieldPath {to_path}"),
            )
            .with_field_path(to_path));
        }
        for q in &paths {
            write(
                to_obj,
                &Path::new(q.as_str()),
                out.clone(),
                opts,
                sem,
                trace.as_deref_mut(),
            )?;
        }
        return reread(to_obj, sem, reread_as);
    }
    let res =
        write(to_obj, to, out, opts, sem, trace).and_then(|()| reread(to_obj, sem, reread_as));
    if sem == Semantics::Function {
        res.map_err(|e| e.wrap("cannot patch to object"))
    } else {
        res
    }
}

/// FN converts the patched target back into its `Unstructured` after every
/// write, which re-decodes the whole object and requires it to name a kind.
pub(crate) fn reread(to: &mut Value, sem: Semantics, what: Reread) -> Result<()> {
    if sem != Semantics::Function {
        return Ok(());
    }
    match what {
        Reread::Whole => crate::value::unstructured::round_trip(to),
        Reread::Written => crate::value::unstructured::check_kind(to),
    }
}

/// Runs the patch's transforms, recording each step for the trace.
///
/// `input` is copied only when no transform replaces it.
pub(crate) fn run_transforms(
    p: &Patch,
    input: Cow<'_, Value>,
    sem: Semantics,
    trace: Option<&mut PatchTrace>,
) -> Result<Value> {
    if p.pipeline.is_empty() {
        return Ok(input.into_owned());
    }
    let Some(t) = trace else {
        return transform::run(&p.pipeline, &input, sem, None);
    };
    let mut steps = Vec::new();
    let res = transform::run(&p.pipeline, &input, sem, Some(&mut steps));
    let mut prev = input.into_owned();
    for s in steps {
        let output = s.output;
        t.transforms.push(TransformStep {
            kind: s.kind,
            input: std::mem::replace(&mut prev, output.clone()),
            output: Some(output),
            error: None,
        });
    }
    if let Err(e) = &res {
        let idx = t.transforms.len();
        let kind = p.pipeline.get(idx).map_or("", Transform::kind).to_owned();
        t.transforms.push(TransformStep {
            kind,
            input: prev,
            output: None,
            error: Some(e.message().to_owned()),
        });
    }
    res
}

/// One `MergeValue` write, traced.
pub(crate) fn write(
    to: &mut Value,
    path: &Path<'_>,
    value: Value,
    opts: Option<MergeOptions>,
    sem: Semantics,
    trace: Option<&mut PatchTrace>,
) -> Result<()> {
    // The write goes through Go's JSON text: a byte that is not valid UTF-8 (a transform's
    // output) is U+FFFD from here on.
    let value = match value {
        Value::String(s) if crate::go::bytestr::has_raw(&s) => {
            Value::String(crate::go::bytestr::to_valid(&s).into_owned())
        }
        v => v,
    };
    match trace {
        None => fieldpath::merge_value_at(to, path, value, opts, sem),
        Some(t) => {
            let shown = fieldpath::to_valid_json(value.clone()).unwrap_or_else(|_| value.clone());
            fieldpath::merge_value_at(to, path, value, opts, sem)
                .map_err(|e| e.with_field_path(&**path))?;
            // What the target holds afterwards (a merge may differ from the value).
            let after = fieldpath::get_value_at(to, path, sem).ok().cloned();
            t.wrote(path, shown, after, opts);
            Ok(())
        }
    }
    .map_err(|e| e.with_field_path(&**path))
}

#[cfg(test)]
mod tests {
    use super::{PatchList, Source};

    #[test]
    fn a_source_reads_as_the_path_of_the_patch() {
        let at = |step, list, index| Source { step, list, index }.to_string();
        assert_eq!(
            at(Some(0), PatchList::Resource(2), 1),
            "spec.pipeline[0].input.resources[2].patches[1]"
        );
        assert_eq!(
            at(None, PatchList::PatchSet(3), 0),
            "spec.patchSets[3].patches[0]"
        );
        assert_eq!(
            at(Some(1), PatchList::Environment, 4),
            "spec.pipeline[1].input.environment.patches[4]"
        );
        let template = Source {
            step: None,
            list: PatchList::Resource(2),
            index: 0,
        };
        assert_eq!(template.owner().to_string(), "spec.resources[2]");
    }
}
