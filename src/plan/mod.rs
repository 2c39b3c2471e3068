//! Compositions read once per live instance.
//!
//! Control planes and function servers render the same Composition for many
//! XRs. `render_json` finds the request's `composition` member in the text and,
//! when an instance has read that exact text before, takes the value it read
//! then instead of reading it again; only the rest of the request (XR, observed
//! state, options) is read per render. From its second render on, the plans
//! compiled from a kept Composition are kept with it (`compose::compiled`),
//! so a Composition seen once costs no more than a one-off request. Whatever
//! this path cannot vouch for (invalid JSON, a documents request, repeated or
//! escaped keys, a Composition that is not an object) is read as a whole by
//! `Request::from_json`, so errors keep their exact text and position.

mod cache;
mod locate;

use std::sync::Arc;

use crate::compose::Request;
use crate::error::Result;
use crate::value::MAX_DEPTH;
use crate::value::read::{self, Numbers};

pub(crate) use cache::{clear, footprint, plans};

/// Reads a request, reusing the instance's reading of its Composition.
pub(crate) fn read_request(text: &str) -> Result<Request> {
    match with_kept_composition(text) {
        Some(request) => request,
        None => Request::from_json(text),
    }
}

fn with_kept_composition(text: &str) -> Option<Result<Request>> {
    // A kept Composition is recognised by its text where the member's value
    // starts, so its span is never walked; one seen first is read there, so
    // its text is walked once.
    let mut kept = None;
    let span = locate::composition(text, |at| {
        if let Some((len, c)) = cache::get_at(at) {
            kept = Some((c.0, Some(c.1)));
            return Some(len);
        }
        // One level down in the request: the same depth limit as reading it whole.
        let (v, len) = read::read_prefix(at, Numbers::Kubernetes, MAX_DEPTH - 1).ok()?;
        v.as_object()?;
        kept = Some((Arc::new(v), None));
        Some(len)
    })?;
    // Seen before: this render compiles the plan to keep, or runs the kept one.
    // First sight: the render decodes its own plan, as a one-off request's does.
    let kept = kept?;
    if kept.1.is_none() {
        cache::put(
            text.get(span.clone())?,
            (Arc::clone(&kept.0), Arc::default()),
        );
    }
    // The rest of the request, read around the Composition's span as if it were `null`.
    let doc = read::read_skipping(text, Numbers::Kubernetes, MAX_DEPTH, span).ok()?;
    Some(Request::from_value_with(doc, Some(kept)))
}

#[cfg(test)]
mod tests {
    use super::locate;
    use crate::value::MAX_DEPTH;
    use crate::value::read::{Numbers, read, read_skipping};

    /// Reading around the Composition reads what the text with `null` in its place reads.
    #[test]
    fn the_rest_reads_as_if_the_composition_were_null() {
        for text in [
            r#"{"composition":{"a":[1,"}"]},"xr":{"b":"\u00e9"}}"#,
            r#" { "xr" : 1 , "composition" : [ ] , "z" : null } "#,
            r#"{"composition":"x"}"#,
            r#"{"composition":{},"xr":tru}"#,
            r#"{"a":{"composition":{}},"composition":7}"#,
        ] {
            let span = locate::composition(text, |_| None).expect("a composition member");
            let rest = format!("{}null{}", &text[..span.start], &text[span.end..]);
            assert_eq!(
                read_skipping(text, Numbers::Kubernetes, MAX_DEPTH, span).ok(),
                read(&rest, Numbers::Kubernetes, MAX_DEPTH).ok(),
                "{text}"
            );
        }
    }
}
