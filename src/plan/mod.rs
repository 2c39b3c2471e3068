//! Compositions read once per live instance.
//!
//! Control planes and function servers render the same Composition for many
//! XRs. `render_json` finds the request's `composition` member in the text and,
//! when an instance has read that exact text before, takes the value it read
//! then instead of reading it again; only the rest of the request (XR, observed
//! state, options) is read per render. From its second render on, the plans
//! compiled from a kept Composition are kept with it (`compose::compiled`),
//! so a Composition seen once costs no more than a one-off request. Whatever this path cannot vouch for
//! (invalid JSON, a documents request, repeated or escaped keys, a Composition
//! that is not an object) is read as a whole by `Request::from_json`, so errors
//! keep their exact text and position.

mod cache;
mod locate;

use std::sync::Arc;

use crate::compose::Request;
use crate::error::Result;
use crate::value::read::{self, Numbers};
use crate::value::{MAX_DEPTH, Value};

pub(crate) use cache::{clear, footprint, plans};

/// Reads a request, reusing the instance's reading of its Composition.
pub(crate) fn read_request(text: &str) -> Result<Request> {
    match with_kept_composition(text) {
        Some(request) => request,
        None => Request::from_json(text),
    }
}

fn with_kept_composition(text: &str) -> Option<Result<Request>> {
    let span = locate::composition(text)?;
    let composition_text = text.get(span.clone())?;
    let kept = match cache::get(composition_text) {
        // Seen before: this render compiles the plan to keep, or runs the kept one.
        Some((composition, compiled)) => (composition, Some(compiled)),
        // First sight: the render decodes its own plan, as a one-off request's does.
        None => {
            // One level down in the request: the same depth limit as reading it whole.
            let v = read::read(composition_text, Numbers::Kubernetes, MAX_DEPTH - 1).ok()?;
            v.as_object()?;
            let v = Arc::new(v);
            cache::put(composition_text, (Arc::clone(&v), Arc::default()));
            (v, None)
        }
    };
    let mut rest = String::with_capacity(text.len() - composition_text.len() + 4);
    rest.push_str(text.get(..span.start)?);
    rest.push_str("null");
    rest.push_str(text.get(span.end..)?);
    let doc = Value::from_json(&rest).ok()?;
    Some(Request::from_value_with(doc, Some(kept)))
}
