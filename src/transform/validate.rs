//! Up-front validation of one transform: function-patch-and-transform's
//! `ValidateTransform` and the native engine's Composition validation (v1.12+).

use super::convert;
use super::regex::Regexps;
use crate::error::{Error, ErrorKind, Result};
use crate::semantics::Semantics;
use crate::value::{Map, Value};

/// function-patch-and-transform's `ValidateTransform` for the transform at
/// `path` (e.g. `resources[0].patches[1].transforms[2]`).
///
/// # Errors
/// `InvalidComposition`: `<path>.<field>: Required value: …` or `… Invalid value: …`.
pub(crate) fn validate_function(transform: &Value, path: &str) -> Result<()> {
    check(transform, Semantics::Function, &Regexps::default()).map_err(|e| e.into_error(path))
}

/// The native engine's validation of one transform (Crossplane v1.12+, with
/// the CRD defaults applied: an absent `string.type` is Format, an absent
/// `math.type` Multiply, an absent pattern type literal).
///
/// # Errors
/// As [`validate_function`].
pub(crate) fn validate_native(transform: &Value, path: &str) -> Result<()> {
    check(transform, Semantics::Native, &Regexps::default()).map_err(|e| e.into_error(path))
}

/// A `field.Error` of apimachinery: a relative field path and its body.
struct FieldError {
    field: String,
    body: String,
}

impl FieldError {
    fn required(field: &str, detail: &str) -> Self {
        Self {
            field: field.to_owned(),
            body: format!("Required value: {detail}"),
        }
    }

    fn invalid(field: &str, value: &str, detail: &str) -> Self {
        Self {
            field: field.to_owned(),
            body: format!("Invalid value: {}: {detail}", crate::go::quote(value)),
        }
    }

    fn under(mut self, parent: &str) -> Self {
        self.field = format!("{parent}.{}", self.field);
        self
    }

    fn into_error(self, path: &str) -> Error {
        let field = if path.is_empty() {
            self.field
        } else {
            format!("{path}.{}", self.field)
        };
        Error::new(
            ErrorKind::InvalidComposition,
            format!("{field}: {}", self.body),
        )
        .with_field_path(field)
    }
}

type Check = std::result::Result<(), FieldError>;

fn str_field<'a>(m: &'a Map, f: &str) -> Option<&'a str> {
    m.get(f).and_then(Value::as_str)
}

fn present(m: &Map, f: &str) -> bool {
    m.get(f).is_some_and(|v| !v.is_null())
}

/// Whether a transform of a known `kind` whose config block `cfg` is an
/// object passes the validation for `sem` (natively also Crossplane v1.14's
/// refusal of the `Join` string type): the decoder asks this where it has
/// both in hand, so a plan's validation need not look them up again.
pub(crate) fn passes(kind: &str, cfg: &Map, sem: Semantics, regexps: &Regexps) -> bool {
    if sem == Semantics::Native && kind == "string" && str_field(cfg, "type") == Some("Join") {
        return false;
    }
    config(kind, cfg, sem, regexps).is_ok()
}

fn check(t: &Value, sem: Semantics, regexps: &Regexps) -> Check {
    let obj = t.as_object();
    let kind = obj.and_then(|o| str_field(o, "type")).unwrap_or("");
    let cfg = |name: &str| -> std::result::Result<&Map, FieldError> {
        obj.and_then(|o| o.get(name))
            .and_then(Value::as_object)
            .ok_or_else(|| {
                FieldError::required(
                    name,
                    &format!("given transform type {name} requires configuration"),
                )
            })
    };
    match kind {
        "math" | "map" | "match" | "string" | "convert" => config(kind, cfg(kind)?, sem, regexps),
        other => Err(FieldError::invalid("type", other, "unknown transform type")),
    }
}

/// The checks of a known transform type's config block.
fn config(kind: &str, c: &Map, sem: Semantics, regexps: &Regexps) -> Check {
    match kind {
        "math" => math(c, sem).map_err(|e| e.under("math")),
        "map" => {
            if c.is_empty() {
                return Err(FieldError::required(
                    "pairs",
                    "at least one pair must be specified if a map transform is specified",
                )
                .under("map"));
            }
            Ok(())
        }
        "match" => matches(c, sem, regexps).map_err(|e| e.under("match")),
        "string" => string(c, sem, regexps).map_err(|e| e.under("string")),
        _ => {
            let to = str_field(c, "toType").unwrap_or("");
            let format = str_field(c, "format");
            match convert::check(to, format) {
                Ok(()) => Ok(()),
                Err(_) if format.is_some_and(|f| !matches!(f, "none" | "quantity" | "json")) => {
                    Err(
                        FieldError::invalid("format", format.unwrap_or(""), "invalid format")
                            .under("convert"),
                    )
                }
                Err(_) => Err(FieldError::invalid("toType", to, "invalid type").under("convert")),
            }
        }
    }
}

fn math(m: &Map, sem: Semantics) -> Check {
    let kind = match str_field(m, "type") {
        None | Some("") if sem == Semantics::Native => "Multiply",
        None => "",
        Some(k) => k,
    };
    let need = |field: &str, what: &str| {
        if present(m, field) {
            Ok(())
        } else {
            Err(FieldError::required(
                field,
                &format!("must specify a value if a {what} math transform is specified"),
            ))
        }
    };
    match kind {
        "" => Err(FieldError::required(
            "type",
            "math transform type is required",
        )),
        "Multiply" => need("multiply", "multiply"),
        "ClampMin" => need("clampMin", "clamp min"),
        "ClampMax" => need("clampMax", "clamp max"),
        other => Err(FieldError::invalid(
            "type",
            other,
            "unknown math transform type",
        )),
    }
}

fn matches(m: &Map, sem: Semantics, regexps: &Regexps) -> Check {
    let patterns = m
        .get("patterns")
        .and_then(Value::as_array)
        .unwrap_or_default();
    if patterns.is_empty() {
        return Err(FieldError::required(
            "patterns",
            "at least one pattern must be specified if a match transform is specified",
        ));
    }
    for (i, p) in patterns.iter().enumerate() {
        let empty = Map::new();
        let p = p.as_object().unwrap_or(&empty);
        // Written only for an error.
        let at = || format!("patterns[{i}]");
        match str_field(p, "type").unwrap_or("") {
            "literal" | "" => {
                if !present(p, "literal") {
                    return Err(FieldError::required(
                        "literal",
                        "literal pattern type requires a literal",
                    )
                    .under(&at()));
                }
            }
            "regexp" => {
                let Some(re) = str_field(p, "regexp") else {
                    return Err(FieldError::required(
                        "regexp",
                        "regexp pattern type requires a regexp",
                    )
                    .under(&at()));
                };
                // Compiled as the match transform compiles it: once for both.
                if regexps.compile_test(re, sem).is_err() {
                    return Err(FieldError::invalid("regexp", re, "invalid regexp").under(&at()));
                }
            }
            other => {
                return Err(FieldError::invalid("type", other, "unknown pattern type").under(&at()));
            }
        }
    }
    Ok(())
}

fn string(s: &Map, sem: Semantics, regexps: &Regexps) -> Check {
    let kind = match str_field(s, "type") {
        None | Some("") if sem == Semantics::Native => "Format",
        None => "",
        Some(k) => k,
    };
    let need = |field: &str, detail: &str| {
        if present(s, field) {
            Ok(())
        } else {
            Err(FieldError::required(field, detail))
        }
    };
    match kind {
        "" => Err(FieldError::required(
            "type",
            "string transform type is required",
        )),
        "Format" => need("fmt", "format transform requires a format"),
        "Convert" => need("convert", "convert transform requires a conversion type"),
        "TrimPrefix" | "TrimSuffix" => need("trim", "trim transform requires a trim value"),
        "Regexp" => {
            need("regexp", "regexp transform requires a regexp")?;
            let r = s.get("regexp").and_then(Value::as_object);
            let re = r.and_then(|r| str_field(r, "match")).unwrap_or("");
            if re.is_empty() {
                return Err(FieldError::required(
                    "regexp.match",
                    "regexp transform requires a match",
                ));
            }
            if regexps.compile(re, sem).is_err() {
                return Err(FieldError::invalid("regexp.match", re, "invalid regexp"));
            }
            Ok(())
        }
        "Join" => need("join", "join transform requires a join"),
        "Replace" if sem == Semantics::Function => {
            need("replace", "replace transform requires a replace")?;
            let r = s.get("replace").and_then(Value::as_object);
            if r.and_then(|r| str_field(r, "search"))
                .unwrap_or("")
                .is_empty()
            {
                return Err(FieldError::required(
                    "replace.search",
                    "replace transform requires a search",
                ));
            }
            Ok(())
        }
        other => Err(FieldError::invalid(
            "type",
            other,
            "unknown string transform type",
        )),
    }
}
