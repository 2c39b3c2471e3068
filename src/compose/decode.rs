//! Decoding a Composition into its [`Composition`] form.
//!
//! Shape errors name the document and field path (`composition.spec.resources[2].patches[0].fromFieldPath:
//! expected string, got int64`). Native decoding applies the Composition CRD defaults the API
//! server would have applied; function decoding keeps the input exactly as written.

use std::borrow::Cow;

use crate::connection::Detail;
use crate::error::{Error, ErrorKind, Result};
use crate::fieldpath::{MergeOptions, Path};
use crate::patch::patchset::PatchSet;
use crate::patch::{Combine, Patch, PatchList, PatchType, Policy, Source};
use crate::readiness::Check;
use crate::semantics::Semantics;
use crate::transform::{self, Regexps};
use crate::value::{Map, Value};

use super::composition::{Composition, PtInput, SecretRef, Step, Template};
use super::shape::{At, Dec, limit, member};

pub(crate) use crate::model::pt::API_VERSION as PT_API_VERSION;

/// Decodes a Composition for `sem`, its patterns compiled through `regexps`.
pub(crate) fn composition<'a>(
    comp: &'a Value,
    sem: Semantics,
    regexps: &Regexps,
) -> Result<Composition<'a>> {
    let d = Dec(ErrorKind::InvalidComposition);
    let root_at = At::Root("composition");
    let root = d.object(comp, &root_at)?;
    let empty: &'static Map = empty_map();
    let spec = d.opt_obj(root, "spec", &root_at)?.unwrap_or(empty);
    let spec_at = At::Key(&root_at, "spec");
    let mode = d.opt_str(spec, "mode", &spec_at)?;
    if mode == Some("Pipeline") {
        return pipeline(d, spec, &spec_at, (sem, regexps)).map(Composition::Pipeline);
    }
    if let Some(m) = mode
        && m != "Resources"
    {
        return Err(Error::new(
            ErrorKind::InvalidComposition,
            format!(
                "composition.spec.mode: unsupported value {} (want \"Resources\" or \"Pipeline\")",
                crate::go::quote(m)
            ),
        ));
    }
    let base = match sem {
        Semantics::Native => "spec".to_owned(),
        Semantics::Function => String::new(),
    };
    let decoded = decode_pt(d, spec, &spec_at, base, (sem, regexps), None);
    let mut input = match sem {
        Semantics::Native => decoded?,
        Semantics::Function => function_input(
            decoded,
            super::members::check_classic(spec, &spec_at.to_string()),
        )?,
    };
    input.mode_resources = true;
    Ok(Composition::Resources(Box::new(input)))
}

/// The steps of a Pipeline Composition, each function-patch-and-transform input decoded.
fn pipeline<'a>(
    d: Dec,
    spec: &'a Map,
    spec_at: &At<'_>,
    (sem, regexps): (Semantics, &Regexps),
) -> Result<Vec<Step<'a>>> {
    let steps = d.opt_array(spec, "pipeline", spec_at)?.unwrap_or(&[]);
    limit(steps.len(), &At::Key(spec_at, "pipeline"))?;
    let mut out = Vec::with_capacity(steps.len());
    for (i, s) in steps.iter().enumerate() {
        let at = At::Item(spec_at, "pipeline", i);
        let sm = d.object(s, &at)?;
        let name = d.opt_str(sm, "step", &at)?.unwrap_or("");
        let function = match d.opt_obj(sm, "functionRef", &at)? {
            Some(f) => d
                .opt_str(f, "name", &At::Key(&at, "functionRef"))?
                .unwrap_or(""),
            None => "",
        };
        let input = match d.opt_obj(sm, "input", &at)? {
            Some(inp)
                if inp.get("apiVersion").and_then(Value::as_str) == Some(PT_API_VERSION)
                    && inp.get("kind").and_then(Value::as_str) == Some("Resources") =>
            {
                let iat = At::Key(&at, "input");
                Some(match sem {
                    Semantics::Native => {
                        let base = format!("spec.pipeline[{i}].input");
                        decode_pt(d, inp, &iat, base, (sem, regexps), Some(to_u32(i)))?
                    }
                    Semantics::Function => {
                        let undecodable = super::members::check_input(inp, &iat.to_string());
                        function_input(
                            decode_pt(d, inp, &iat, String::new(), (sem, regexps), Some(to_u32(i))),
                            undecodable,
                        )?
                    }
                })
            }
            _ => None,
        };
        out.push(Step {
            name: name.to_owned(),
            function: function.to_owned(),
            input,
            raw_input: member(sm, "input").map(Cow::Borrowed),
        });
    }
    Ok(out)
}

/// A function input as the engine decoded it and as function-patch-and-transform's
/// Go types take it. When those reject it the step fails on that alone, whatever
/// the engine made of the input: an input it cannot read is then an empty one.
fn function_input<'a>(decoded: Result<PtInput<'a>>, go: Result<()>) -> Result<PtInput<'a>> {
    let mut input = match (decoded, &go) {
        (Ok(input), _) => input,
        (Err(_), Err(_)) => PtInput::empty(String::new()),
        (Err(e), Ok(())) => return Err(e),
    };
    input.undecodable = go.err();
    Ok(input)
}

fn empty_map() -> &'static Map {
    static EMPTY: Map = Map::new();
    &EMPTY
}

fn decode_pt<'a>(
    d: Dec,
    m: &'a Map,
    at: &At<'_>,
    base_path: String,
    (sem, regexps): (Semantics, &Regexps),
    step: Option<u32>,
) -> Result<PtInput<'a>> {
    let classic = step.is_none();
    let source = |list| Source {
        step,
        list,
        index: 0,
    };
    let patch_sets = decode_patch_sets(d, m, at, (sem, regexps), step)?;
    let mut resources = Vec::new();
    if let Some(rs) = d.opt_array(m, "resources", at)? {
        limit(rs.len(), at)?;
        for (i, r) in rs.iter().enumerate() {
            resources.push(decode_template(
                d,
                r,
                &At::Item(at, "resources", i),
                i,
                (sem, regexps),
                source(PatchList::Resource(to_u32(i))),
            )?);
        }
    }
    let connection_secret_ref = match d.opt_obj(m, "writeConnectionSecretToRef", at)? {
        Some(r) if !classic => {
            let rat = At::Key(at, "writeConnectionSecretToRef");
            Some(SecretRef {
                name: d.opt_str(r, "name", &rat)?.unwrap_or("").to_owned(),
                namespace: d.opt_str(r, "namespace", &rat)?.unwrap_or("").to_owned(),
                patches: decode_patches(
                    d,
                    r,
                    &rat,
                    (sem, regexps),
                    source(PatchList::ConnectionSecret),
                )?,
            })
        }
        _ => None,
    };
    let mut environment_patches = Vec::new();
    let mut default_data = None;
    if let Some(env) = d.opt_obj(m, "environment", at)? {
        let eat = At::Key(at, "environment");
        environment_patches =
            decode_patches(d, env, &eat, (sem, regexps), source(PatchList::Environment))?;
        if classic && let Some(dd) = member(env, "defaultData") {
            d.object(dd, &At::Key(&eat, "defaultData"))?;
            default_data = Some(Cow::Borrowed(dd));
        }
    }
    Ok(PtInput {
        resources,
        patch_sets,
        environment_patches,
        default_data,
        connection_secret_ref,
        ..PtInput::empty(base_path)
    })
}

/// `patchSets`: each named list of patches.
fn decode_patch_sets<'a>(
    d: Dec,
    m: &'a Map,
    at: &At<'_>,
    sem: (Semantics, &Regexps),
    step: Option<u32>,
) -> Result<Vec<PatchSet<'a>>> {
    let mut patch_sets = Vec::new();
    if let Some(sets) = d.opt_array(m, "patchSets", at)? {
        limit(sets.len(), at)?;
        for (i, s) in sets.iter().enumerate() {
            let sat = At::Item(at, "patchSets", i);
            let sm = d.object(s, &sat)?;
            let name = d.opt_str(sm, "name", &sat)?.unwrap_or("");
            let patches = decode_patches(
                d,
                sm,
                &sat,
                sem,
                Source {
                    step,
                    list: PatchList::PatchSet(to_u32(i)),
                    index: 0,
                },
            )?;
            patch_sets.push(PatchSet {
                name: name.to_owned(),
                patches,
            });
        }
    }
    Ok(patch_sets)
}

fn decode_template<'a>(
    d: Dec,
    v: &'a Value,
    at: &At<'_>,
    index: usize,
    (sem, regexps): (Semantics, &Regexps),
    source: Source,
) -> Result<Template<'a>> {
    let m = d.object(v, at)?;
    let name = d.opt_str(m, "name", at)?;
    let base = match member(m, "base") {
        None => None,
        Some(b) => {
            d.object(b, &At::Key(at, "base"))?;
            Some(Cow::Borrowed(b))
        }
    };
    let patches = decode_patches(d, m, at, (sem, regexps), source)?;
    let mut readiness_checks = Vec::new();
    if let Some(rcs) = d.opt_array(m, "readinessChecks", at)? {
        limit(rcs.len(), at)?;
        for (i, rc) in rcs.iter().enumerate() {
            readiness_checks.push(decode_check(
                d,
                rc,
                &At::Item(at, "readinessChecks", i),
                sem,
            )?);
        }
    }
    let mut connection_details = Vec::new();
    if let Some(cds) = d.opt_array(m, "connectionDetails", at)? {
        limit(cds.len(), at)?;
        for (i, cd) in cds.iter().enumerate() {
            connection_details.push(decode_detail(
                d,
                cd,
                &At::Item(at, "connectionDetails", i),
                sem,
            )?);
        }
    }
    let named = name.is_some_and(|n| !n.is_empty());
    Ok(Template {
        name: match name {
            Some(n) if !n.is_empty() => n.to_owned(),
            _ => format!("resource {}", index + 1),
        },
        named,
        base,
        patches,
        readiness_checks,
        connection_details,
        source,
    })
}

fn decode_patches<'a>(
    d: Dec,
    m: &'a Map,
    at: &At<'_>,
    sem: (Semantics, &Regexps),
    source: Source,
) -> Result<Vec<Patch<'a>>> {
    let Some(ps) = d.opt_array(m, "patches", at)? else {
        return Ok(Vec::new());
    };
    limit(ps.len(), at)?;
    // At its final size: collecting results would grow it, moving every patch.
    let mut out = Vec::with_capacity(ps.len());
    for (i, p) in ps.iter().enumerate() {
        let mut patch = decode_patch(d, p, &At::Item(at, "patches", i), sem)?;
        patch.source = Source {
            index: to_u32(i),
            ..source
        };
        out.push(patch);
    }
    Ok(out)
}

/// The members of a patch that its decoding reads.
const PATCH_FIELDS: [&str; 7] = [
    "type",
    "fromFieldPath",
    "toFieldPath",
    "patchSetName",
    "combine",
    "transforms",
    "policy",
];

fn decode_patch<'a>(
    d: Dec,
    v: &'a Value,
    at: &At<'_>,
    (sem, regexps): (Semantics, &Regexps),
) -> Result<Patch<'a>> {
    let m = d.object(v, at)?;
    // One pass over the few members a patch has, instead of a search per
    // field; they are checked below in the order they always were.
    let mut f = [None; PATCH_FIELDS.len()];
    for (k, v) in m {
        if let Some(i) = PATCH_FIELDS.iter().position(|name| name == k) {
            f[i] = Some(v).filter(|v| !v.is_null());
        }
    }
    let [ty, from, to, set, comb, ts, pol] = f;
    let kind = PatchType::parse(d.str_of(ty, "type", at)?.unwrap_or(""));
    let from_field_path = d.str_of(from, "fromFieldPath", at)?;
    let to_field_path = d.str_of(to, "toFieldPath", at)?;
    let patch_set_name = d.str_of(set, "patchSetName", at)?;
    let combine = match d.obj_of(comb, "combine", at)? {
        None => None,
        Some(c) => Some(decode_combine(d, c, &At::Key(at, "combine"))?),
    };
    // Decoded from the list as written: the CRD defaults are the ones each
    // transform applies natively when its type is unset. Decoding says
    // whether the list validated needs them.
    let (transforms, pipeline): (Cow<'a, [Value]>, _) = match d.array_of(ts, "transforms", at)? {
        None => (Cow::Borrowed(&[]), Vec::new()),
        Some(ts) => {
            limit(ts.len(), at)?;
            for (i, t) in ts.iter().enumerate() {
                d.object(t, &At::Item(at, "transforms", i))?;
            }
            let (pipeline, lacks_defaults) = transform::decode_list(ts, sem, regexps);
            if lacks_defaults {
                let mut owned = ts.to_vec();
                owned.iter_mut().for_each(transform_defaults);
                (Cow::Owned(owned), pipeline)
            } else {
                (Cow::Borrowed(ts), pipeline)
            }
        }
    };
    let policy = match d.obj_of(pol, "policy", at)? {
        None => Policy::default(),
        Some(p) => {
            let pat = At::Key(at, "policy");
            let merge_options = match d.opt_obj(p, "mergeOptions", &pat)? {
                None => None,
                Some(mo) => {
                    let mat = At::Key(&pat, "mergeOptions");
                    Some(MergeOptions {
                        keep_map_values: d.opt_bool(mo, "keepMapValues", &mat)?.unwrap_or(false),
                        append_slice: d.opt_bool(mo, "appendSlice", &mat)?.unwrap_or(false),
                    })
                }
            };
            Policy {
                from_field_path: d.opt_str(p, "fromFieldPath", &pat)?.map(str::to_owned),
                merge_options,
                to_field_path: d.opt_str(p, "toFieldPath", &pat)?.map(str::to_owned),
            }
        }
    };
    Ok(Patch {
        kind,
        from_field_path: from_field_path.map(Path::new),
        to_field_path: to_field_path.map(Path::new),
        combine,
        patch_set_name: patch_set_name.map(str::to_owned),
        transforms,
        pipeline,
        policy,
        source: Source::default(),
    })
}

/// A list index as a patch's source keeps it (lists hold at most `MAX_ITEMS`).
fn to_u32(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

fn decode_combine<'a>(d: Dec, c: &'a Map, cat: &At<'_>) -> Result<Combine<'a>> {
    let mut variables = Vec::new();
    if let Some(vars) = d.opt_array(c, "variables", cat)? {
        limit(vars.len(), cat)?;
        for (i, var) in vars.iter().enumerate() {
            let vat = At::Item(cat, "variables", i);
            let vm = d.object(var, &vat)?;
            variables.push(Path::new(
                d.opt_str(vm, "fromFieldPath", &vat)?.unwrap_or(""),
            ));
        }
    }
    let strategy = d.opt_str(c, "strategy", cat)?.unwrap_or("").to_owned();
    let string_fmt = match d.opt_obj(c, "string", cat)? {
        None => None,
        Some(s) => Some(
            d.opt_str(s, "fmt", &At::Key(cat, "string"))?
                .unwrap_or("")
                .to_owned(),
        ),
    };
    Ok(Combine {
        variables,
        strategy,
        string_fmt,
    })
}

/// The Composition CRD's transform defaults (`string.type: Format`,
/// `math.type: Multiply`, match pattern `type: literal`), which only
/// API-server-defaulted native Compositions get.
fn transform_defaults(t: &mut Value) {
    let kind = t
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let Value::Object(m) = t else { return };
    let set_default = |block: &mut Value, key: &str, value: &str| {
        if let Value::Object(b) = block
            && b.get(key).is_none_or(Value::is_null)
        {
            b.insert(key.to_owned(), value.into());
        }
    };
    match kind.as_str() {
        "string" => {
            if let Some(b) = m.get_mut("string") {
                set_default(b, "type", "Format");
            }
        }
        "math" => {
            if let Some(b) = m.get_mut("math") {
                set_default(b, "type", "Multiply");
            }
        }
        "match" => {
            if let Some(Value::Object(b)) = m.get_mut("match")
                && let Some(Value::Array(ps)) = b.get_mut("patterns")
            {
                for p in ps {
                    set_default(p, "type", "literal");
                }
            }
        }
        _ => {}
    }
}

fn decode_check(d: Dec, v: &Value, at: &At<'_>, sem: Semantics) -> Result<Check> {
    let m = d.object(v, at)?;
    let own = |s: Option<&str>| s.map(str::to_owned);
    let kind = d.opt_str(m, "type", at)?.unwrap_or("").to_owned();
    let mut field_path = own(d.opt_str(m, "fieldPath", at)?);
    let mut match_string = own(d.opt_str(m, "matchString", at)?);
    let mut match_integer = match member(m, "matchInteger") {
        // The function's input keeps the wire's -0 (`wire::input`): int64 0 to Go.
        Some(Value::Float(f)) if sem == Semantics::Function && *f == 0.0 => Some(0),
        _ => d.opt_i64(m, "matchInteger", at)?,
    };
    let mut match_condition = match d.opt_obj(m, "matchCondition", at)? {
        None => None,
        Some(c) => {
            let cat = At::Key(at, "matchCondition");
            Some((
                d.opt_str(c, "type", &cat)?.unwrap_or("").to_owned(),
                d.opt_str(c, "status", &cat)?.unwrap_or("").to_owned(),
            ))
        }
    };
    match sem {
        Semantics::Native => {
            // Plain (non-pointer) fields in v1: the zero value means unset.
            field_path = field_path.filter(|s| !s.is_empty());
            match_string = match_string.filter(|s| !s.is_empty());
            match_integer = match_integer.filter(|i| *i != 0);
        }
        Semantics::Function => {
            if kind == "MatchCondition" && match_condition.is_none() {
                match_condition = Some(("Ready".to_owned(), "True".to_owned()));
            }
        }
    }
    Ok(Check {
        kind,
        field_path,
        match_string,
        match_integer,
        match_condition,
    })
}

fn decode_detail(d: Dec, v: &Value, at: &At<'_>, sem: Semantics) -> Result<Detail> {
    let m = d.object(v, at)?;
    let own = |s: Option<&str>| s.map(str::to_owned);
    let mut out = Detail {
        kind: d.opt_str(m, "type", at)?.unwrap_or("").to_owned(),
        name: own(d.opt_str(m, "name", at)?),
        from_connection_secret_key: own(d.opt_str(m, "fromConnectionSecretKey", at)?),
        from_field_path: own(d.opt_str(m, "fromFieldPath", at)?).map(Path::owned),
        value: own(d.opt_str(m, "value", at)?),
    };
    if sem == Semantics::Native {
        // v1.11+ type inference for entries without `type`.
        if out.kind.is_empty() {
            out.kind = if out.value.is_some() {
                "FromValue"
            } else if out.from_connection_secret_key.is_some() {
                "FromConnectionSecretKey"
            } else if out.from_field_path.is_some() {
                "FromFieldPath"
            } else {
                "FromConnectionSecretKey"
            }
            .to_owned();
        }
        if out.kind == "FromConnectionSecretKey"
            && out.name.as_deref().unwrap_or("").is_empty()
            && let Some(k) = &out.from_connection_secret_key
        {
            out.name = Some(k.clone());
        }
    }
    Ok(out)
}
