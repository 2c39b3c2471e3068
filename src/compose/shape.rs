//! Reading the request's JSON by the shape Go's decoder expects: typed members that fail
//! with the field path and the Go type found.

use base64::Engine as _;

use crate::error::{Error, ErrorKind, Result};
use crate::model::limits::MAX_ITEMS;
use crate::value::{Map, Value};

/// A field path in the request, built only when an error needs it.
#[derive(Clone, Copy)]
pub(crate) enum At<'p> {
    Root(&'p str),
    Key(&'p At<'p>, &'p str),
    Item(&'p At<'p>, &'p str, usize),
}

impl std::fmt::Display for At<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            At::Root(s) => f.write_str(s),
            At::Key(p, k) => write!(f, "{p}.{k}"),
            At::Item(p, k, i) => write!(f, "{p}.{k}[{i}]"),
        }
    }
}
pub(crate) fn limit(n: usize, at: &At<'_>) -> Result<()> {
    if n > MAX_ITEMS {
        return Err(crate::model::limits::too_many(at));
    }
    Ok(())
}

/// A member; JSON `null` counts as absent, as Go's decoder treats it for pointers.
#[inline(never)]
pub(crate) fn member<'a>(m: &'a Map, key: &str) -> Option<&'a Value> {
    m.get(key).filter(|v| !v.is_null())
}

/// Typed access that fails with the field path and the Go type found.
#[derive(Clone, Copy)]
pub(crate) struct Dec(pub(crate) ErrorKind);

impl Dec {
    pub(crate) fn mismatch(self, at: &dyn std::fmt::Display, want: &str, got: &Value) -> Error {
        let path = at.to_string();
        Error::new(
            self.0,
            format!("{path}: expected {want}, got {}", got.go_type()),
        )
        .with_field_path(path)
    }

    pub(crate) fn object<'v>(self, v: &'v Value, at: &dyn std::fmt::Display) -> Result<&'v Map> {
        v.as_object().ok_or_else(|| self.mismatch(at, "object", v))
    }

    pub(crate) fn string<'v>(self, v: &'v Value, at: &dyn std::fmt::Display) -> Result<&'v str> {
        v.as_str().ok_or_else(|| self.mismatch(at, "string", v))
    }

    #[inline(never)]
    pub(crate) fn opt_str<'v>(self, m: &'v Map, key: &str, at: &At<'_>) -> Result<Option<&'v str>> {
        self.str_of(member(m, key), key, at)
    }

    /// Member `key`'s value `v` (absent or null: `None`), as a string.
    pub(crate) fn str_of<'v>(
        self,
        v: Option<&'v Value>,
        key: &str,
        at: &At<'_>,
    ) -> Result<Option<&'v str>> {
        match v {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(v) => Err(self.mismatch(&At::Key(at, key), "string", v)),
        }
    }

    #[inline(never)]
    pub(crate) fn opt_bool(self, m: &Map, key: &str, at: &At<'_>) -> Result<Option<bool>> {
        match member(m, key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(v) => Err(self.mismatch(&At::Key(at, key), "bool", v)),
        }
    }

    pub(crate) fn opt_i64(self, m: &Map, key: &str, at: &At<'_>) -> Result<Option<i64>> {
        match member(m, key) {
            None => Ok(None),
            Some(Value::Int(i)) => Ok(Some(*i)),
            Some(v) => Err(self.mismatch(&At::Key(at, key), "int64", v)),
        }
    }

    /// An optional `connectionDetails` object of base64 strings, decoded in key order.
    pub(crate) fn opt_details(self, m: &Map, at: &At<'_>) -> Result<Vec<(String, Vec<u8>)>> {
        let mut out = Vec::new();
        if let Some(cd) = self.opt_obj(m, "connectionDetails", at)? {
            let cdat = At::Key(at, "connectionDetails");
            for (k, b64) in cd {
                let kat = At::Key(&cdat, k);
                let text = self.string(b64, &kat)?;
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(text)
                    .map_err(|e| {
                        Error::new(
                            ErrorKind::InvalidRequest,
                            format!("{kat}: invalid base64: {e}"),
                        )
                        .with_field_path(kat.to_string())
                    })?;
                out.push((k.clone(), bytes));
            }
        }
        Ok(out)
    }

    /// A resource entry's required `resource` object.
    pub(crate) fn resource_of(self, entry: &Map, at: &At<'_>) -> Result<()> {
        let resource = member(entry, "resource").ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidRequest,
                format!("{at}.resource: required value"),
            )
        })?;
        self.object(resource, &At::Key(at, "resource"))?;
        Ok(())
    }

    #[inline(never)]
    pub(crate) fn opt_obj<'v>(self, m: &'v Map, key: &str, at: &At<'_>) -> Result<Option<&'v Map>> {
        self.obj_of(member(m, key), key, at)
    }

    pub(crate) fn obj_of<'v>(
        self,
        v: Option<&'v Value>,
        key: &str,
        at: &At<'_>,
    ) -> Result<Option<&'v Map>> {
        match v {
            None => Ok(None),
            Some(Value::Object(o)) => Ok(Some(o)),
            Some(v) => Err(self.mismatch(&At::Key(at, key), "object", v)),
        }
    }

    #[inline(never)]
    pub(crate) fn opt_array<'v>(
        self,
        m: &'v Map,
        key: &str,
        at: &At<'_>,
    ) -> Result<Option<&'v [Value]>> {
        self.array_of(member(m, key), key, at)
    }

    pub(crate) fn array_of<'v>(
        self,
        v: Option<&'v Value>,
        key: &str,
        at: &At<'_>,
    ) -> Result<Option<&'v [Value]>> {
        match v {
            None => Ok(None),
            Some(Value::Array(a)) => Ok(Some(a)),
            Some(v) => Err(self.mismatch(&At::Key(at, key), "array", v)),
        }
    }
}
