//! Decoding the render request: XR, Composition (classic or Pipeline), observed state and options.
//!
//! Shape errors name the document and field path (`composition.spec.resources[2].patches[0].fromFieldPath:
//! expected string, got int64`). Native decoding applies the Composition CRD defaults the API
//! server would have applied; function decoding keeps the input exactly as written.

use std::collections::BTreeMap;

use base64::Engine as _;

use crate::connection::{Detail, Details};
use crate::error::{Error, ErrorKind, Result};
use crate::fieldpath::MergeOptions;
use crate::patch::patchset::PatchSet;
use crate::patch::{Combine, Patch, PatchType, Policy};
use crate::readiness::Check;
use crate::semantics::Semantics;
use crate::value::{Map, Value};

/// Largest number of templates, patches or steps accepted in one list.
const MAX_ITEMS: usize = 100_000;

/// A render request: the render contract's JSON document, decoded.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub(crate) xr: Value,
    pub(crate) composition: Value,
    pub(crate) observed: Observed,
    pub(crate) options: Options,
}

/// `options`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Options {
    pub(crate) semantics: Option<Semantics>,
    pub(crate) trace: bool,
    pub(crate) connection_secret_keys: Option<Vec<String>>,
    pub(crate) now: Option<String>,
}

/// One observed composed resource.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ObservedResource {
    pub(crate) resource: Value,
    pub(crate) connection_details: Details,
}

/// `observed`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Observed {
    pub(crate) resources: BTreeMap<String, ObservedResource>,
    pub(crate) environment: Option<Value>,
}

impl Request {
    /// Decodes a request document.
    ///
    /// # Errors
    /// `ErrorKind::InvalidRequest` when the text is not JSON or not of the contract's shape.
    pub fn from_json(text: &str) -> Result<Request> {
        let doc = Value::from_json(text).map_err(|e| {
            Error::new(
                ErrorKind::InvalidRequest,
                format!("cannot parse request: {e}"),
            )
        })?;
        Self::from_value(doc)
    }

    fn from_value(doc: Value) -> Result<Request> {
        let d = Dec(ErrorKind::InvalidRequest);
        let Value::Object(mut root) = doc else {
            return Err(Error::new(
                ErrorKind::InvalidRequest,
                format!("request: expected object, got {}", doc.go_type()),
            ));
        };
        let observed = match member(&root, "observed") {
            Some(v) => decode_observed(d, v)?,
            None => Observed::default(),
        };
        let options = match member(&root, "options") {
            Some(v) => decode_options(d, v)?,
            None => Options::default(),
        };
        // `observed.composite` stands in for `xr` when only it is given.
        let xr = match root.remove("xr").filter(|v| !v.is_null()) {
            Some(v) => v,
            None => root
                .get("observed")
                .and_then(|o| o.get("composite"))
                .filter(|v| !v.is_null())
                .cloned()
                .ok_or_else(|| {
                    Error::new(ErrorKind::InvalidRequest, "xr: required value")
                        .with_field_path("xr")
                })?,
        };
        d.object(&xr, "xr")?;
        let composition = root
            .remove("composition")
            .filter(|v| !v.is_null())
            .ok_or_else(|| {
                Error::new(ErrorKind::InvalidRequest, "composition: required value")
                    .with_field_path("composition")
            })?;
        d.object(&composition, "composition")?;
        Ok(Request {
            xr,
            composition,
            observed,
            options,
        })
    }
}

fn decode_options(d: Dec, v: &Value) -> Result<Options> {
    let m = d.object(v, "options")?;
    let semantics = match d.opt_str(m, "semantics", "options")? {
        None => None,
        Some(s) => Some(Semantics::parse(&s).ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidRequest,
                format!(
                    "options.semantics: unsupported value {} (want \"native\" or \"function\")",
                    crate::fmt::quote(&s)
                ),
            )
            .with_field_path("options.semantics")
        })?),
    };
    let trace = d.opt_bool(m, "trace", "options")?.unwrap_or(false);
    let connection_secret_keys = match d.opt_array(m, "connectionSecretKeys", "options")? {
        None => None,
        Some(a) => Some(
            a.iter()
                .enumerate()
                .map(|(i, k)| {
                    d.string(k, &format!("options.connectionSecretKeys[{i}]"))
                        .map(str::to_owned)
                })
                .collect::<Result<Vec<_>>>()?,
        ),
    };
    let now = d.opt_str(m, "now", "options")?;
    Ok(Options {
        semantics,
        trace,
        connection_secret_keys,
        now,
    })
}

fn decode_observed(d: Dec, v: &Value) -> Result<Observed> {
    let m = d.object(v, "observed")?;
    if let Some(c) = member(m, "composite") {
        d.object(c, "observed.composite")?;
    }
    let environment = match member(m, "environment") {
        Some(e) => {
            d.object(e, "observed.environment")?;
            Some(e.clone())
        }
        None => None,
    };
    let mut resources = BTreeMap::new();
    if let Some(rs) = d.opt_obj(m, "resources", "observed")? {
        for (name, r) in rs {
            let path = format!("observed.resources.{name}");
            let rm = d.object(r, &path)?;
            let resource = member(rm, "resource").ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidRequest,
                    format!("{path}.resource: required value"),
                )
            })?;
            d.object(resource, &format!("{path}.resource"))?;
            let mut connection_details = Details::new();
            if let Some(cd) = d.opt_obj(rm, "connectionDetails", &path)? {
                for (k, b64) in cd {
                    let p = format!("{path}.connectionDetails.{k}");
                    let s = d.string(b64, &p)?;
                    let bytes = base64::engine::general_purpose::STANDARD
                        .decode(s)
                        .map_err(|e| {
                            Error::new(
                                ErrorKind::InvalidRequest,
                                format!("{p}: invalid base64: {e}"),
                            )
                            .with_field_path(p.as_str())
                        })?;
                    connection_details.push((k.clone(), bytes));
                }
            }
            resources.insert(
                name.clone(),
                ObservedResource {
                    resource: resource.clone(),
                    connection_details,
                },
            );
        }
    }
    Ok(Observed {
        resources,
        environment,
    })
}

// ---------------------------------------------------------------------------
// Compositions.

/// What a Composition asks for.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Plan {
    /// Classic `spec.resources` (mode Resources).
    Resources(PtInput),
    /// `spec.mode: Pipeline`.
    Pipeline(Vec<Step>),
}

/// One pipeline step.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Step {
    pub(crate) name: String,
    pub(crate) function: String,
    /// The decoded function-patch-and-transform input, if the step is one.
    pub(crate) input: Option<PtInput>,
}

/// Resource templates, patch sets and environment patches: a classic
/// Composition's spec, or a function-patch-and-transform `Resources` input.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct PtInput {
    /// Where this lives, for validation messages (`spec` natively, empty for FN input).
    pub(crate) base_path: String,
    pub(crate) resources: Vec<Template>,
    pub(crate) patch_sets: Vec<PatchSet>,
    pub(crate) environment_patches: Vec<Patch>,
    pub(crate) default_data: Option<Value>,
    /// The Composition's `spec.mode` as written, for native validation.
    pub(crate) mode_resources: bool,
}

/// One resource template.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Template {
    /// The template name, or `resource <i+1>` for anonymous templates.
    pub(crate) name: String,
    pub(crate) named: bool,
    pub(crate) base: Option<Value>,
    pub(crate) patches: Vec<Patch>,
    pub(crate) readiness_checks: Vec<Check>,
    pub(crate) connection_details: Vec<Detail>,
}

/// The P&T input `apiVersion`/`kind` that marks a function-patch-and-transform step.
pub(crate) const PT_API_VERSION: &str = "pt.fn.crossplane.io/v1beta1";

/// Decodes a Composition.
pub(crate) fn decode_composition(comp: &Value, sem: Semantics) -> Result<Plan> {
    let d = Dec(ErrorKind::InvalidComposition);
    let root = d.object(comp, "composition")?;
    let spec = d.opt_obj(root, "spec", "composition")?;
    let empty = Map::new();
    let spec = spec.unwrap_or(&empty);
    let mode = d.opt_str(spec, "mode", "composition.spec")?;
    if mode.as_deref() == Some("Pipeline") {
        let steps = d
            .opt_array(spec, "pipeline", "composition.spec")?
            .unwrap_or(&[]);
        limit(steps.len(), "composition.spec.pipeline")?;
        let mut out = Vec::with_capacity(steps.len());
        for (i, s) in steps.iter().enumerate() {
            let path = format!("composition.spec.pipeline[{i}]");
            let sm = d.object(s, &path)?;
            let name = d.opt_str(sm, "step", &path)?.unwrap_or_default();
            let function = match d.opt_obj(sm, "functionRef", &path)? {
                Some(f) => d
                    .opt_str(f, "name", &format!("{path}.functionRef"))?
                    .unwrap_or_default(),
                None => String::new(),
            };
            let input = match d.opt_obj(sm, "input", &path)? {
                Some(inp)
                    if inp.get("apiVersion").and_then(Value::as_str) == Some(PT_API_VERSION)
                        && inp.get("kind").and_then(Value::as_str) == Some("Resources") =>
                {
                    let ipath = format!("{path}.input");
                    let base = match sem {
                        Semantics::Native => format!("spec.pipeline[{i}].input"),
                        Semantics::Function => String::new(),
                    };
                    Some(decode_pt(d, inp, &ipath, base, sem, false)?)
                }
                _ => None,
            };
            out.push(Step {
                name,
                function,
                input,
            });
        }
        return Ok(Plan::Pipeline(out));
    }
    if let Some(m) = &mode
        && m != "Resources"
    {
        return Err(Error::new(
            ErrorKind::InvalidComposition,
            format!(
                "composition.spec.mode: unsupported value {} (want \"Resources\" or \"Pipeline\")",
                crate::fmt::quote(m)
            ),
        ));
    }
    let base = match sem {
        Semantics::Native => "spec".to_owned(),
        Semantics::Function => String::new(),
    };
    let mut input = decode_pt(d, spec, "composition.spec", base, sem, true)?;
    input.mode_resources = true;
    Ok(Plan::Resources(input))
}

fn decode_pt(
    d: Dec,
    m: &Map,
    path: &str,
    base_path: String,
    sem: Semantics,
    classic: bool,
) -> Result<PtInput> {
    let mut patch_sets = Vec::new();
    if let Some(sets) = d.opt_array(m, "patchSets", path)? {
        limit(sets.len(), path)?;
        for (i, s) in sets.iter().enumerate() {
            let sp = format!("{path}.patchSets[{i}]");
            let sm = d.object(s, &sp)?;
            let name = d.opt_str(sm, "name", &sp)?.unwrap_or_default();
            let patches = decode_patches(d, sm, &sp, sem)?;
            patch_sets.push(PatchSet { name, patches });
        }
    }
    let mut resources = Vec::new();
    if let Some(rs) = d.opt_array(m, "resources", path)? {
        limit(rs.len(), path)?;
        for (i, r) in rs.iter().enumerate() {
            let rp = format!("{path}.resources[{i}]");
            resources.push(decode_template(d, r, &rp, i, sem)?);
        }
    }
    let mut environment_patches = Vec::new();
    let mut default_data = None;
    if let Some(env) = d.opt_obj(m, "environment", path)? {
        let ep = format!("{path}.environment");
        environment_patches = decode_patches(d, env, &ep, sem)?;
        if classic && let Some(dd) = d.opt_obj(env, "defaultData", &ep)? {
            default_data = Some(Value::Object(dd.clone()));
        }
    }
    Ok(PtInput {
        base_path,
        resources,
        patch_sets,
        environment_patches,
        default_data,
        mode_resources: false,
    })
}

fn decode_template(
    d: Dec,
    v: &Value,
    path: &str,
    index: usize,
    sem: Semantics,
) -> Result<Template> {
    let m = d.object(v, path)?;
    let name = d.opt_str(m, "name", path)?;
    let base = match member(m, "base") {
        None => None,
        Some(b) => {
            d.object(b, &format!("{path}.base"))?;
            Some(b.clone())
        }
    };
    let patches = decode_patches(d, m, path, sem)?;
    let mut readiness_checks = Vec::new();
    if let Some(rcs) = d.opt_array(m, "readinessChecks", path)? {
        limit(rcs.len(), path)?;
        for (i, rc) in rcs.iter().enumerate() {
            let p = format!("{path}.readinessChecks[{i}]");
            readiness_checks.push(decode_check(d, rc, &p, sem)?);
        }
    }
    let mut connection_details = Vec::new();
    if let Some(cds) = d.opt_array(m, "connectionDetails", path)? {
        limit(cds.len(), path)?;
        for (i, cd) in cds.iter().enumerate() {
            let p = format!("{path}.connectionDetails[{i}]");
            connection_details.push(decode_detail(d, cd, &p, sem)?);
        }
    }
    let named = name.as_deref().is_some_and(|n| !n.is_empty());
    Ok(Template {
        name: match name {
            Some(n) if !n.is_empty() => n,
            _ => format!("resource {}", index + 1),
        },
        named,
        base,
        patches,
        readiness_checks,
        connection_details,
    })
}

fn decode_patches(d: Dec, m: &Map, path: &str, sem: Semantics) -> Result<Vec<Patch>> {
    let Some(ps) = d.opt_array(m, "patches", path)? else {
        return Ok(Vec::new());
    };
    limit(ps.len(), path)?;
    ps.iter()
        .enumerate()
        .map(|(i, p)| decode_patch(d, p, &format!("{path}.patches[{i}]"), sem))
        .collect()
}

fn decode_patch(d: Dec, v: &Value, path: &str, sem: Semantics) -> Result<Patch> {
    let m = d.object(v, path)?;
    let kind = PatchType::parse(&d.opt_str(m, "type", path)?.unwrap_or_default());
    let from_field_path = d.opt_str(m, "fromFieldPath", path)?;
    let to_field_path = d.opt_str(m, "toFieldPath", path)?;
    let patch_set_name = d.opt_str(m, "patchSetName", path)?;
    let combine = match d.opt_obj(m, "combine", path)? {
        None => None,
        Some(c) => {
            let cp = format!("{path}.combine");
            let mut variables = Vec::new();
            if let Some(vars) = d.opt_array(c, "variables", &cp)? {
                limit(vars.len(), &cp)?;
                for (i, var) in vars.iter().enumerate() {
                    let vp = format!("{cp}.variables[{i}]");
                    let vm = d.object(var, &vp)?;
                    variables.push(d.opt_str(vm, "fromFieldPath", &vp)?.unwrap_or_default());
                }
            }
            let strategy = d.opt_str(c, "strategy", &cp)?.unwrap_or_default();
            let string_fmt = match d.opt_obj(c, "string", &cp)? {
                None => None,
                Some(s) => Some(
                    d.opt_str(s, "fmt", &format!("{cp}.string"))?
                        .unwrap_or_default(),
                ),
            };
            Some(Combine {
                variables,
                strategy,
                string_fmt,
            })
        }
    };
    let mut transforms = Vec::new();
    if let Some(ts) = d.opt_array(m, "transforms", path)? {
        limit(ts.len(), path)?;
        for (i, t) in ts.iter().enumerate() {
            let tp = format!("{path}.transforms[{i}]");
            d.object(t, &tp)?;
            let mut t = t.clone();
            if sem == Semantics::Native {
                transform_defaults(&mut t);
            }
            transforms.push(t);
        }
    }
    let policy = match d.opt_obj(m, "policy", path)? {
        None => Policy::default(),
        Some(p) => {
            let pp = format!("{path}.policy");
            let merge_options = match d.opt_obj(p, "mergeOptions", &pp)? {
                None => None,
                Some(mo) => {
                    let mp = format!("{pp}.mergeOptions");
                    Some(MergeOptions {
                        keep_map_values: d.opt_bool(mo, "keepMapValues", &mp)?.unwrap_or(false),
                        append_slice: d.opt_bool(mo, "appendSlice", &mp)?.unwrap_or(false),
                    })
                }
            };
            Policy {
                from_field_path: d.opt_str(p, "fromFieldPath", &pp)?,
                merge_options,
                to_field_path: d.opt_str(p, "toFieldPath", &pp)?,
            }
        }
    };
    Ok(Patch {
        kind,
        from_field_path,
        to_field_path,
        combine,
        patch_set_name,
        transforms,
        policy,
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

fn decode_check(d: Dec, v: &Value, path: &str, sem: Semantics) -> Result<Check> {
    let m = d.object(v, path)?;
    let kind = d.opt_str(m, "type", path)?.unwrap_or_default();
    let mut field_path = d.opt_str(m, "fieldPath", path)?;
    let mut match_string = d.opt_str(m, "matchString", path)?;
    let mut match_integer = d.opt_i64(m, "matchInteger", path)?;
    let mut match_condition = match d.opt_obj(m, "matchCondition", path)? {
        None => None,
        Some(c) => {
            let cp = format!("{path}.matchCondition");
            Some((
                d.opt_str(c, "type", &cp)?.unwrap_or_default(),
                d.opt_str(c, "status", &cp)?.unwrap_or_default(),
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

fn decode_detail(d: Dec, v: &Value, path: &str, sem: Semantics) -> Result<Detail> {
    let m = d.object(v, path)?;
    let mut out = Detail {
        kind: d.opt_str(m, "type", path)?.unwrap_or_default(),
        name: d.opt_str(m, "name", path)?,
        from_connection_secret_key: d.opt_str(m, "fromConnectionSecretKey", path)?,
        from_field_path: d.opt_str(m, "fromFieldPath", path)?,
        value: d.opt_str(m, "value", path)?,
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

fn limit(n: usize, path: &str) -> Result<()> {
    if n > MAX_ITEMS {
        return Err(Error::new(
            ErrorKind::Limit,
            format!("{path}: more than {MAX_ITEMS} entries"),
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Shape checking.

/// A member; JSON `null` counts as absent, as Go's decoder treats it for pointers.
pub(crate) fn member<'a>(m: &'a Map, key: &str) -> Option<&'a Value> {
    m.get(key).filter(|v| !v.is_null())
}

/// Typed access that fails with the field path and the Go type found.
#[derive(Clone, Copy)]
pub(crate) struct Dec(pub(crate) ErrorKind);

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

impl Dec {
    fn mismatch(self, path: &str, want: &str, got: &Value) -> Error {
        Error::new(
            self.0,
            format!("{path}: expected {want}, got {}", got.go_type()),
        )
        .with_field_path(path)
    }

    pub(crate) fn object<'a>(self, v: &'a Value, path: &str) -> Result<&'a Map> {
        v.as_object()
            .ok_or_else(|| self.mismatch(path, "object", v))
    }

    pub(crate) fn string<'a>(self, v: &'a Value, path: &str) -> Result<&'a str> {
        v.as_str().ok_or_else(|| self.mismatch(path, "string", v))
    }

    pub(crate) fn opt_str(self, m: &Map, key: &str, path: &str) -> Result<Option<String>> {
        member(m, key)
            .map(|v| self.string(v, &join(path, key)).map(str::to_owned))
            .transpose()
    }

    pub(crate) fn opt_bool(self, m: &Map, key: &str, path: &str) -> Result<Option<bool>> {
        match member(m, key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(v) => Err(self.mismatch(&join(path, key), "bool", v)),
        }
    }

    pub(crate) fn opt_i64(self, m: &Map, key: &str, path: &str) -> Result<Option<i64>> {
        match member(m, key) {
            None => Ok(None),
            Some(Value::Int(i)) => Ok(Some(*i)),
            Some(v) => Err(self.mismatch(&join(path, key), "int64", v)),
        }
    }

    pub(crate) fn opt_obj<'a>(self, m: &'a Map, key: &str, path: &str) -> Result<Option<&'a Map>> {
        member(m, key)
            .map(|v| self.object(v, &join(path, key)))
            .transpose()
    }

    pub(crate) fn opt_array<'a>(
        self,
        m: &'a Map,
        key: &str,
        path: &str,
    ) -> Result<Option<&'a [Value]>> {
        match member(m, key) {
            None => Ok(None),
            Some(Value::Array(a)) => Ok(Some(a)),
            Some(v) => Err(self.mismatch(&join(path, key), "array", v)),
        }
    }
}
