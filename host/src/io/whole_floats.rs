//! Numbers as the API server stores them: Kubernetes decodes JSON with Go's json.Marshal
//! rules, so a whole float comes back as an integer.

use serde_json::{Number, Value};

/// json.Marshal then Kubernetes' JSON decoding: whole floats Go prints without a fraction
/// or exponent (|f| < 1e21) come back as integers when they fit an int64.
pub(super) fn float_to_json(f: f64) -> Result<Value, String> {
    if !f.is_finite() {
        let shown = if f.is_nan() {
            "NaN"
        } else if f > 0.0 {
            "+Inf"
        } else {
            "-Inf"
        };
        return Err(format!("json: unsupported value: {shown}"));
    }
    // 2^63 is exact as a float; integers in [-2^63, 2^63) fit an int64.
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    #[allow(clippy::cast_possible_truncation)]
    if f.fract() == 0.0 && f.abs() < 1e21 && (-TWO_63..TWO_63).contains(&f) {
        return Ok(Value::from(f as i64));
    }
    Ok(Number::from_f64(f).map_or(Value::Null, Value::Number))
}

/// What the API server stores: whole floats written `1.0` come back as the integer 1.
pub(super) fn whole_floats_to_ints(v: &mut Value) {
    match v {
        Value::Number(n) if n.is_f64() => {
            if let Some(Ok(int)) = n.as_f64().map(float_to_json) {
                *v = int;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(whole_floats_to_ints),
        Value::Object(m) => m.values_mut().for_each(whole_floats_to_ints),
        _ => {}
    }
}
