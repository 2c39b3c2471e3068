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

use std::sync::Arc;

use crate::compose::Request;
use crate::error::Result;
use crate::value::MAX_DEPTH;
use crate::value::read::{self, Member, Numbers};

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
    // its text is walked once. The rest of the request is read in the same
    // pass, as if the Composition were `null`.
    let mut kept = None;
    let mut known = |at: &str| {
        if let Some((len, c)) = cache::get_at(at) {
            kept = Some((c.0, Some(c.1)));
            return Some(len);
        }
        // One level down in the request: the same depth limit as reading it whole.
        let (v, len) = read::read_prefix(at, Numbers::Kubernetes, MAX_DEPTH - 1).ok()?;
        v.as_object()?;
        kept = Some((Arc::new(v), None));
        Some(len)
    };
    let (doc, member) = read::read_around(text, Numbers::Kubernetes, MAX_DEPTH, &mut known).ok()?;
    let Member::At(span) = member else {
        return None;
    };
    // Seen before: this render compiles the plan to keep, or runs the kept one.
    // First sight: the render decodes its own plan, as a one-off request's does.
    let kept = kept?;
    if kept.1.is_none() {
        cache::put(text.get(span)?, (Arc::clone(&kept.0), Arc::default()));
    }
    Some(Request::from_value_with(doc, Some(kept)))
}

#[cfg(test)]
mod tests {
    use crate::value::MAX_DEPTH;
    use crate::value::read::{Member, Numbers, read, read_around, read_prefix};

    /// The member's span, reading its value to find its length.
    fn around(text: &str) -> Option<(crate::value::Value, Member)> {
        let mut length = |at: &str| {
            read_prefix(at, Numbers::Kubernetes, MAX_DEPTH)
                .ok()
                .map(|(_, n)| n)
        };
        read_around(text, Numbers::Kubernetes, MAX_DEPTH, &mut length).ok()
    }

    fn span(text: &str) -> Option<&str> {
        match around(text)? {
            (_, Member::At(span)) => text.get(span),
            _ => None,
        }
    }

    /// Reading around the Composition reads what the text with `null` in its place reads.
    #[test]
    fn the_rest_reads_as_if_the_composition_were_null() {
        for text in [
            r#"{"composition":{"a":[1,"}"]},"xr":{"b":"\u00e9"}}"#,
            r#" { "xr" : 1 , "composition" : [ ] , "z" : null } "#,
            r#"{"composition":"x"}"#,
            r#"{"a":{"composition":{}},"composition":7}"#,
        ] {
            let Some((v, Member::At(span))) = around(text) else {
                panic!("no composition member in {text}");
            };
            let rest = format!("{}null{}", &text[..span.start], &text[span.end..]);
            assert_eq!(Ok(v), read(&rest, Numbers::Kubernetes, MAX_DEPTH), "{text}");
        }
        assert!(around(r#"{"composition":{},"xr":tru}"#).is_none());
    }

    #[test]
    fn finds_the_top_level_member() {
        let t = r#" { "xr": {"composition": 1, "s": "}\"{"}, "composition" : {"a": [1, {"b": "]"}]} , "n": -1.5e3 }"#;
        assert_eq!(span(t), Some(r#"{"a": [1, {"b": "]"}]}"#));
        assert_eq!(span(r#"{"composition":null}"#), Some("null"));
        assert_eq!(span(r#"{"composition":12,"x":true}"#), Some("12"));
    }

    #[test]
    fn gives_up_where_the_whole_request_must_be_read() {
        for t in [
            r#"{"composition":{},"composition":{}}"#,
            r#"{"compos\u0069tion":{},"composition":{}}"#,
            r#"{"composition":{},"x\u0041":1}"#,
            r#"{"documents":[],"composition":{}}"#,
            r#"{"composition":{},"documents":[]}"#,
            r#"{"xr":{}}"#,
            r#"{"composition":{"a":1}"#,
            r#"{"composition":{"a":1}]}"#,
            r#"[{"composition":{}}]"#,
            r#"{"composition":"unterminated}"#,
            "{}",
            "",
        ] {
            assert_eq!(span(t), None, "{t}");
        }
    }

    #[test]
    fn structure_is_found_at_every_position_of_a_word() {
        for pad in 0..20 {
            let x = "x".repeat(pad);
            let t = format!(r#"{{"{x}":"{x}\"{x}","composition":["{x}1",{{"{x}":2}}],"z":"{x}"}}"#);
            let want = format!(r#"["{x}1",{{"{x}":2}}]"#);
            assert_eq!(span(&t), Some(want.as_str()), "{t}");
        }
    }

    #[test]
    fn a_known_value_is_not_walked() {
        let mut known = |at: &str| at.starts_with(r#"{"a":"b"}"#).then_some(9);
        let t = r#"{"xr":{},"composition":{"a":"b"} ,"o":1}"#;
        let read = read_around(t, Numbers::Kubernetes, MAX_DEPTH, &mut known);
        assert!(matches!(read, Ok((_, Member::At(ref s))) if &t[s.clone()] == r#"{"a":"b"}"#));
        // What `known` vouches for is not read: an invalid value there goes unseen.
        let t = r#"{"composition":{"a":"b"}}"#;
        let mut short = |_: &str| Some(1);
        assert!(read_around(t, Numbers::Kubernetes, MAX_DEPTH, &mut short).is_err());
        let twice = r#"{"composition":{"a":"b"},"composition":{"a":"b"}}"#;
        let read = read_around(twice, Numbers::Kubernetes, MAX_DEPTH, &mut known);
        assert!(matches!(read, Ok((_, Member::Unsure))));
        let unknown = r#"{"composition":{"c":1}}"#;
        let read = read_around(unknown, Numbers::Kubernetes, MAX_DEPTH, &mut known);
        assert!(matches!(read, Ok((_, Member::Unsure))));
    }
}
