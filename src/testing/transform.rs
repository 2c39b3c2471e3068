//! Test entry points for `transform`.

use crate::error::Result;
use crate::semantics::Semantics;
use crate::transform;
use crate::value::Value;

/// Runs a transform pipeline (`transforms` is the patch's list, as written).
///
/// # Errors
/// Crossplane's error for the first failing transform.
pub fn run(transforms: &[Value], input: Value, sem: Semantics) -> Result<Value> {
    transform::run(
        &transform::decode_all(transforms, sem, &transform::Regexps::default()),
        &input,
        sem,
        None,
    )
}

/// A string value's bytes as Go holds them (a byte that is not valid UTF-8 as itself); `None`
/// for other values.
#[must_use]
pub fn go_bytes(v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::String(s) => Some(crate::go::bytestr::to_bytes(s).into_owned()),
        _ => None,
    }
}

/// Runs a pipeline and returns each transform's (type, output).
///
/// # Errors
/// As [`run`].
pub fn run_traced(
    transforms: &[Value],
    input: Value,
    sem: Semantics,
) -> Result<(Value, Vec<(String, Value)>)> {
    let mut steps = Vec::new();
    let decoded = transform::decode_all(transforms, sem, &transform::Regexps::default());
    let out = transform::run(&decoded, &input, sem, Some(&mut steps))?;
    Ok((out, steps.into_iter().map(|s| (s.kind, s.output)).collect()))
}

/// The up-front validation of one transform at `path` for `sem`.
///
/// # Errors
/// The field error, as function-patch-and-transform or Crossplane word it.
pub fn validate(t: &Value, path: &str, sem: Semantics) -> Result<()> {
    match sem {
        Semantics::Function => transform::validate_function(t, path),
        Semantics::Native => transform::validate_native(t, path),
    }
}

/// Go `regexp.Compile(p)` then `FindStringSubmatch(s)`: `Ok(None)` for no
/// match, groups that did not take part as `""`.
///
/// # Errors
/// Go's compile error text.
pub fn regexp_find_submatch(
    pattern: &str,
    s: &str,
    sem: Semantics,
) -> Result<Option<Vec<String>>, String> {
    let re = transform::Regexps::default()
        .compile(pattern, sem)
        .map_err(|e| e.to_string())?;
    Ok(re.captures(s).map(|c| {
        c.iter()
            .map(|m| m.map_or(String::new(), |m| m.as_str().to_owned()))
            .collect()
    }))
}

/// The regex-lite pattern a Go pattern is translated to.
///
/// # Errors
/// Go's compile error text.
pub fn regexp_translate(pattern: &str, sem: Semantics) -> Result<String, String> {
    transform::regex::translate(pattern, sem).map_err(|e| e.to_string())
}

/// `strconv.ParseInt(s, 10, 64)`.
///
/// # Errors
/// Go's error text.
pub fn parse_int(s: &str) -> Result<i64, String> {
    crate::go::strconv::parse_int(s).map_err(|e| e.to_string())
}

/// `strconv.ParseBool(s)`.
///
/// # Errors
/// Go's error text.
pub fn parse_bool(s: &str) -> Result<bool, String> {
    crate::go::strconv::parse_bool(s).map_err(|e| e.to_string())
}

/// `strconv.ParseFloat(s, 64)`.
///
/// # Errors
/// Go's error text.
pub fn parse_float(s: &str) -> Result<f64, String> {
    crate::go::strconv::parse_float(s).map_err(|e| e.to_string())
}

/// `strconv.FormatFloat(f, 'f', -1, 64)`.
#[must_use]
pub fn format_float_f(f: f64) -> String {
    crate::value::go_format_float_f(f)
}

/// `base64.StdEncoding.DecodeString(s)` as a string, written as Go's JSON writes it (invalid
/// UTF-8 → U+FFFD).
///
/// # Errors
/// Go's `illegal base64 data at input byte N`.
pub fn base64_decode(s: &str) -> Result<String, String> {
    transform::string::go_base64_decode(s.as_bytes())
        .map(|b| crate::go::bytestr::to_valid(&transform::string::go_string(b)).into_owned())
        .map_err(|at| format!("illegal base64 data at input byte {at}"))
}

/// `strings.ToUpper`.
#[must_use]
pub fn to_upper(s: &str) -> String {
    transform::case::to_upper(s)
}

/// `strings.ToLower`.
#[must_use]
pub fn to_lower(s: &str) -> String {
    transform::case::to_lower(s)
}

/// `resource.MustParse(s).AsApproximateFloat64()`, or the parse error.
///
/// # Errors
/// apimachinery's parse error.
pub fn quantity(s: &str) -> Result<f64, String> {
    transform::quantity::parse_approximate_f64(s).map_err(str::to_owned)
}

/// `json.Unmarshal` of `s` into a map (`object`) or a slice (`array`).
///
/// # Errors
/// Go's error text.
pub fn json_unmarshal(s: &str, object: bool) -> Result<Value, String> {
    let target = if object {
        transform::gojson::Target::Object
    } else {
        transform::gojson::Target::Array
    };
    transform::gojson::unmarshal(s, target).map_err(|e| e.to_string())
}
