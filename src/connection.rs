//! Connection details: extraction from composed resources and aggregation for the composite.

use crate::error::{Error, ErrorKind, Result};
use crate::fieldpath::{self, Path};
use crate::semantics::Semantics;
use crate::value::Value;

/// Connection details: key → raw bytes, kept in insertion order of first appearance.
pub(crate) type Details = Vec<(String, Vec<u8>)>;

/// One connection detail entry, with its type resolved.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Detail {
    /// `FromConnectionSecretKey`, `FromFieldPath`, `FromValue` or anything else as written.
    pub(crate) kind: String,
    pub(crate) name: Option<String>,
    pub(crate) from_connection_secret_key: Option<String>,
    pub(crate) from_field_path: Option<Path<'static>>,
    pub(crate) value: Option<String>,
}

/// Inserts or overwrites `key` (later entries win).
pub(crate) fn put(details: &mut Details, key: &str, value: Vec<u8>) {
    match details.iter_mut().find(|(k, _)| k == key) {
        Some((_, v)) => *v = value,
        None => details.push((key.to_owned(), value)),
    }
}

/// `ExtractConnectionDetails`: the details one composed resource contributes.
pub(crate) fn extract(
    obj: &Value,
    secret: &Details,
    entries: &[Detail],
    sem: Semantics,
) -> Result<Details> {
    let mut out = Details::new();
    for d in entries {
        let Some(name) = d.name.as_deref().filter(|n| !n.is_empty()) else {
            return Err(Error::new(
                ErrorKind::Render,
                "connection detail is missing name",
            ));
        };
        let kind = d.kind.as_str();
        match kind {
            "FromValue" => {
                let Some(v) = &d.value else {
                    return Err(not_set(kind, "value"));
                };
                put(&mut out, name, v.as_bytes().to_vec());
            }
            "FromConnectionSecretKey" => {
                let Some(key) = &d.from_connection_secret_key else {
                    return Err(not_set(kind, "key"));
                };
                if let Some((_, v)) = secret.iter().find(|(k, _)| k == key) {
                    put(&mut out, name, v.clone());
                }
            }
            "FromFieldPath" => {
                let Some(path) = &d.from_field_path else {
                    return Err(not_set(kind, "fromFieldPath"));
                };
                // Missing or unreadable fields are skipped silently.
                if let Some(v) = fieldpath::find_at(obj, path, sem) {
                    if v.check_finite().is_err() {
                        continue;
                    }
                    let bytes = match v {
                        Value::String(s) => s.as_bytes().to_vec(),
                        other => other.to_json().into_bytes(),
                    };
                    put(&mut out, name, bytes);
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

fn not_set(kind: &str, what: &str) -> Error {
    Error::new(
        ErrorKind::Render,
        format!(
            "connection detail of type {} {what} is not set",
            crate::go::quote(kind)
        ),
    )
}
