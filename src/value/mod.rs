//! JSON values with Go's dynamic types: `int64` and `float64` are kept apart.
//!
//! Crossplane works on `map[string]interface{}` trees whose leaves are `nil`,
//! `bool`, `string`, `int64` or `float64`. Which numbers are integers depends on
//! the decoder that produced them, so the distinction is data, not formatting.

pub(crate) mod json;
pub mod map;
pub(crate) mod read;
pub(crate) mod scan;
pub(crate) mod unstructured;

pub use json::ParseError;
pub(crate) use json::write_string as write_json_string;
pub use map::Map;

/// How deep containers may nest in any JSON the engine reads: the recursive
/// code that later walks values must not exhaust a wasm stack.
pub(crate) const MAX_DEPTH: usize = 1000;

/// A JSON value as Crossplane sees it.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Value {
    /// `null` (Go `nil`).
    #[default]
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// An integer (Go `int64`).
    Int(i64),
    /// A floating-point number (Go `float64`).
    Float(f64),
    /// A string.
    String(String),
    /// An array (Go `[]interface {}`).
    Array(Vec<Value>),
    /// An object (Go `map[string]interface {}`).
    Object(Map),
}

impl Value {
    /// Parses JSON as Kubernetes' decoder does: a number literal without `.`
    /// or exponent that fits in `int64` is an `Int`, every other number a `Float`.
    ///
    /// # Errors
    /// Invalid JSON, or a number outside the range of `float64`.
    pub fn from_json(text: &str) -> Result<Value, ParseError> {
        json::parse(text)
    }

    /// [`Value::from_json`] with the typing `numbers`, also saying whether the
    /// text holds the integer literal `-0` (see [`read::Numbers::Struct`]).
    pub(crate) fn from_json_with(
        text: &str,
        numbers: read::Numbers,
    ) -> Result<(Value, bool), ParseError> {
        json::parse_with(text, numbers)
    }

    /// Serialises as Go's `json.Marshal` does: keys sorted, no spaces,
    /// `<`, `>`, `&`, U+2028 and U+2029 escaped, floats in Go's form.
    ///
    /// Non-finite floats (which Go refuses to marshal) are written as `null`;
    /// callers that must fail on them check [`Value::check_finite`] first.
    #[must_use]
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        json::write(&mut out, self);
        out
    }

    /// Appends the Go JSON form of this value to `out`.
    pub fn write_json(&self, out: &mut String) {
        json::write(out, self);
    }

    /// Go's `%T` name of the value's dynamic type.
    #[must_use]
    pub fn go_type(&self) -> &'static str {
        match self {
            Value::Null => "<nil>",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int64",
            Value::Float(_) => "float64",
            Value::String(_) => "string",
            Value::Array(_) => "[]interface {}",
            Value::Object(_) => "map[string]interface {}",
        }
    }

    /// `encoding/json`'s name of the value's JSON kind, as its type errors
    /// word it (`cannot unmarshal string into ...`).
    #[must_use]
    pub(crate) fn json_kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "bool",
            Value::Int(_) | Value::Float(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }

    /// Go's `reflect.Kind` name, used by the oldest convert errors.
    #[must_use]
    pub fn go_kind(&self) -> &'static str {
        match self {
            Value::Null => "invalid",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int64",
            Value::Float(_) => "float64",
            Value::String(_) => "string",
            Value::Array(_) => "slice",
            Value::Object(_) => "map",
        }
    }

    /// The value as a string slice, if it is one.
    #[must_use]
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The value as an object, if it is one.
    #[must_use]
    pub fn as_object(&self) -> Option<&Map> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    /// The value as a mutable object, if it is one.
    pub fn as_object_mut(&mut self) -> Option<&mut Map> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    /// The value as an array, if it is one.
    #[must_use]
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// Whether the value is `null`.
    #[must_use]
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// Member `key` of an object; `None` for absent members and non-objects.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_object().and_then(|m| m.get(key))
    }

    /// Turns every number into a `Float`, as protobuf's `Struct` does for the
    /// inputs of function-patch-and-transform.
    pub fn floats_everywhere(&mut self) {
        match self {
            Value::Int(i) => {
                #[allow(clippy::cast_precision_loss)] // Go's float64(int64) rounds the same way
                let f = *i as f64;
                *self = Value::Float(f);
            }
            Value::Array(a) => a.iter_mut().for_each(Value::floats_everywhere),
            Value::Object(m) => m.values_mut().for_each(Value::floats_everywhere),
            _ => {}
        }
    }

    /// Fails on NaN or infinities anywhere in the value, with Go's marshal error.
    ///
    /// # Errors
    /// A `Render` error, `json: unsupported value: NaN` (or `+Inf`, `-Inf`).
    pub fn check_finite(&self) -> crate::Result<()> {
        match self {
            Value::Float(f) if !f.is_finite() => Err(crate::Error::new(
                crate::ErrorKind::Render,
                format!("json: unsupported value: {}", json::go_nonfinite(*f)),
            )),
            Value::Array(a) => a.iter().try_for_each(Value::check_finite),
            Value::Object(m) => m.values().try_for_each(Value::check_finite),
            _ => Ok(()),
        }
    }

    /// The JSON round trip every field-path write performs (Go `json.Marshal`,
    /// then Kubernetes' decoder): whole floats whose Go JSON text is an integer
    /// literal that fits in `int64` become `Int`.
    ///
    /// # Errors
    /// Go's marshal error for NaN or infinities (see [`Value::check_finite`]).
    pub fn normalize(self) -> crate::Result<Value> {
        self.check_finite()?;
        Ok(self.normalized())
    }

    fn normalized(mut self) -> Value {
        self.normalize_in_place();
        self
    }

    /// [`Value::normalize`] in place, without the check: only whole floats
    /// change (NaN and infinities stay as they are), so no array or object is
    /// rebuilt. Function semantics runs this over the whole composed resource
    /// after every patch.
    pub(crate) fn normalize_in_place(&mut self) {
        match self {
            Value::Float(f) => {
                if let Some(i) = json::float_as_int(*f) {
                    *self = Value::Int(i);
                }
            }
            Value::Array(a) => a.iter_mut().for_each(Value::normalize_in_place),
            Value::Object(m) => m.values_mut().for_each(Value::normalize_in_place),
            _ => {}
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.to_owned())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s)
    }
}

impl From<i64> for Value {
    fn from(i: i64) -> Self {
        Value::Int(i)
    }
}

impl From<f64> for Value {
    fn from(f: f64) -> Self {
        Value::Float(f)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

impl From<Map> for Value {
    fn from(m: Map) -> Self {
        Value::Object(m)
    }
}

impl From<Vec<Value>> for Value {
    fn from(a: Vec<Value>) -> Self {
        Value::Array(a)
    }
}

/// Go's `encoding/json` text of a float64 (shortest digits; exponent form
/// below 1e-6 and from 1e21 on, with a signed exponent).
#[must_use]
pub(crate) fn go_json_float(f: f64) -> String {
    let mut s = String::new();
    json::write_float(&mut s, f);
    s
}

/// Go's `strconv.FormatFloat(f, 'f', -1, 64)`: shortest digits, never an exponent.
#[must_use]
pub(crate) fn go_format_float_f(f: f64) -> String {
    // Not Rust's `{}`: its shortest digits break exact ties upwards, Go's to even.
    let mut s = String::new();
    crate::go::strconv::append_float(&mut s, f, b'f', -1);
    s
}
