//! `desired` in the request: the desired state earlier steps of a pipeline left.

use crate::connection::Details;
use crate::error::Result;
use crate::value::Value;

use super::output::Rendered;
use super::shape::{At, Dec};

/// `desired`: what earlier steps of a pipeline desired.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Desired {
    pub(crate) composite: Option<Value>,
    pub(crate) connection_details: Details,
    pub(crate) resources: Vec<Rendered>,
}

/// Decodes `desired`, taken apart rather than copied.
pub(crate) fn decode(d: Dec, v: Value) -> Result<Desired> {
    let at = At::Root("desired");
    d.object(&v, &at)?;
    let Value::Object(mut m) = v else {
        return Ok(Desired::default());
    };
    let composite = match m.remove("composite").filter(|c| !c.is_null()) {
        Some(c) => {
            d.object(&c, &At::Key(&at, "composite"))?;
            Some(c)
        }
        None => None,
    };
    // The keys of one object: unique already.
    let connection_details: Details = d.opt_details(&m, &at)?;
    let mut resources = Vec::new();
    d.opt_obj(&m, "resources", &at)?;
    if let Some(Value::Object(rs)) = m.remove("resources") {
        let rsat = At::Key(&at, "resources");
        for (name, r) in rs {
            let rat = At::Key(&rsat, &name);
            let rm = d.object(&r, &rat)?;
            d.resource_of(rm, &rat)?;
            let ready = d.opt_bool(rm, "ready", &rat)?.unwrap_or(false);
            let Value::Object(mut rm) = r else {
                continue;
            };
            resources.push(Rendered {
                name,
                resource: rm.remove("resource").unwrap_or_default(),
                ready,
            });
        }
    }
    Ok(Desired {
        composite,
        connection_details,
        resources,
    })
}
