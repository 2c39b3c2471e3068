//! go-json-experiment's unmarshal errors, as its releases before the 2025 redesign word them.
//!
//! function-sdk-go decodes a function's input with this package. Its `SemanticError` then named
//! the JSON kind and the Go type only, never where in the input the value was. Each rendering
//! starts "cannot" or "unable to" at random (the package's "Hyrum-proofing"); "cannot" is written
//! here.

use super::quote;

/// `SemanticError.Error()` of a failed unmarshal: `json: cannot unmarshal JSON <kind> into Go
/// value of type <type>`, then `: <cause>` if there is one.
///
/// `json_kind` is `encoding/json`'s name of the value's kind (`string`, `number`, `bool`, `array`,
/// `object`); `None` leaves the kind out, as for an unknown member.
pub(crate) fn unmarshal_error(
    json_kind: Option<&str>,
    go_type: &str,
    cause: Option<&str>,
) -> String {
    let mut s = String::from("json: cannot unmarshal");
    if let Some(kind) = json_kind {
        s.push_str(" JSON ");
        s.push_str(if kind == "bool" { "boolean" } else { kind });
        s.push_str(" into");
    }
    s.push_str(" Go value of type ");
    s.push_str(go_type);
    if let Some(cause) = cause {
        s.push_str(": ");
        s.push_str(cause);
    }
    s
}

/// Why a JSON number's text does not unmarshal into a 64-bit signed integer, if it does not:
/// the integer unmarshaler reads the text itself (`jsonwire.ParseUint` after an optional `-`), so
/// a fraction or an exponent is a syntax error and a whole number past int64 a range error.
pub(crate) fn int_cause(text: &str) -> Option<String> {
    let (neg, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let syntax = digits.is_empty()
        || !digits.bytes().all(|c| c.is_ascii_digit())
        || (digits.starts_with('0') && digits != "0");
    let fault = if syntax {
        "invalid syntax"
    } else {
        // Up to 20 digits fit a u128; more never fit an int64.
        let max = if neg { 1u128 << 63 } else { (1u128 << 63) - 1 };
        match digits.parse::<u128>() {
            Ok(n) if digits.len() <= 20 && n <= max => return None,
            _ => "value out of range",
        }
    };
    Some(format!(
        "cannot parse {} as signed integer: {fault}",
        quote(text)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn semantic_errors() {
        assert_eq!(
            unmarshal_error(Some("string"), "int64", None),
            "json: cannot unmarshal JSON string into Go value of type int64"
        );
        assert_eq!(
            unmarshal_error(Some("bool"), "v1beta1.PatchType", None),
            "json: cannot unmarshal JSON boolean into Go value of type v1beta1.PatchType"
        );
        assert_eq!(
            unmarshal_error(None, "v1beta1.PatchSetPatch", Some("unknown name \"x\"")),
            "json: cannot unmarshal Go value of type v1beta1.PatchSetPatch: unknown name \"x\""
        );
    }

    #[test]
    fn integers() {
        for ok in [
            "0",
            "-0",
            "7",
            "-42",
            "9223372036854775807",
            "-9223372036854775808",
        ] {
            assert_eq!(int_cause(ok), None, "{ok}");
        }
        assert_eq!(
            int_cause("1.5").as_deref(),
            Some("cannot parse \"1.5\" as signed integer: invalid syntax")
        );
        assert_eq!(
            int_cause("1e+21").as_deref(),
            Some("cannot parse \"1e+21\" as signed integer: invalid syntax")
        );
        assert_eq!(
            int_cause("9223372036854775808").as_deref(),
            Some("cannot parse \"9223372036854775808\" as signed integer: value out of range")
        );
        assert_eq!(
            int_cause("-9223372036854775809").as_deref(),
            Some("cannot parse \"-9223372036854775809\" as signed integer: value out of range")
        );
        assert_eq!(
            int_cause("100000000000000000000").as_deref(),
            Some("cannot parse \"100000000000000000000\" as signed integer: value out of range")
        );
    }
}
