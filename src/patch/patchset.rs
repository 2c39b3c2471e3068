//! PatchSets: named patch lists inlined into each resource's patches before anything runs.

use crate::error::{Error, ErrorKind, Result};

use super::{Patch, PatchType};

/// A named, reusable list of patches.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PatchSet<'a> {
    pub(crate) name: String,
    pub(crate) patches: Vec<Patch<'a>>,
}

impl PatchSet<'_> {
    pub(crate) fn into_owned(self) -> PatchSet<'static> {
        PatchSet {
            name: self.name,
            patches: super::owned(self.patches),
        }
    }
}

/// Checks that no set nests another (`ComposedTemplates` does this before inlining).
pub(crate) fn check_sets(sets: &[PatchSet]) -> Result<()> {
    if sets
        .iter()
        .flat_map(|s| &s.patches)
        .any(|p| p.kind == PatchType::PatchSet)
    {
        return Err(Error::new(
            ErrorKind::InvalidComposition,
            "a patch in a PatchSet cannot be of type PatchSet",
        ));
    }
    Ok(())
}

/// Replaces every `PatchSet` patch by the referenced set's patches, in place.
/// Duplicate set names: the last definition wins, as a Go map built in order does.
pub(crate) fn inline<'p, 'a>(
    sets: &'p [PatchSet<'a>],
    patches: &'p [Patch<'a>],
) -> Result<Vec<&'p Patch<'a>>> {
    let mut out = Vec::with_capacity(patches.len());
    inline_into(&mut out, sets, patches)?;
    Ok(out)
}

/// [`inline`], appending to `out`: the patches of many templates in one list.
pub(crate) fn inline_into<'p, 'a>(
    out: &mut Vec<&'p Patch<'a>>,
    sets: &'p [PatchSet<'a>],
    patches: &'p [Patch<'a>],
) -> Result<()> {
    for p in patches {
        if p.kind != PatchType::PatchSet {
            out.push(p);
            continue;
        }
        let Some(name) = &p.patch_set_name else {
            return Err(Error::new(
                ErrorKind::InvalidComposition,
                "PatchSetName is required by type PatchSet",
            ));
        };
        let Some((_, set)) = crate::model::patch_sets::named(sets, name, |s| &s.name) else {
            return Err(Error::new(
                ErrorKind::InvalidComposition,
                format!("cannot find PatchSet by name {name}"),
            ));
        };
        out.extend(set.patches.iter());
    }
    Ok(())
}
