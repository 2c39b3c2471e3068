//! Reading a request around the Composition an engine keeps.
//!
//! Control planes and function servers render the same Composition for many
//! XRs. `Engine::render_json` finds the request's `composition` member in the text and,
//! when the engine has read that exact text before, takes the value it read
//! then instead of reading it again; only the rest of the request (XR, observed
//! state, options) is read per render. From its second render on, the decodings
//! made from a kept Composition are kept with it (`compose::decodings`),
//! so a Composition seen once costs no more than a one-off request. Whatever
//! this path cannot vouch for (invalid JSON, a documents request, repeated or
//! escaped keys, a Composition that is not an object, the number `-0`, whose
//! reading depends on the semantics) is read as a whole by
//! `Request::from_json`, so errors keep their exact text and position.

use std::str::Utf8Error;
use std::sync::Arc;

use crate::compose::Request;
use crate::error::Result;
use crate::value::MAX_DEPTH;
use crate::value::read::{self, Bytes, Checked, Member, Numbers, Source};

use super::compositions::Compositions;

/// Reads a request, reusing the engine's reading of its Composition.
pub(crate) fn read_request(kept: &mut Compositions, text: &str) -> Result<Request> {
    match with_kept_composition(kept, Checked(text)) {
        Some(request) => request,
        None => Request::from_json(text),
    }
}

/// [`read_request`] of a request handed over as bytes (the core module's ABI),
/// or why they are not UTF-8.
///
/// A kept Composition's bytes are compared with its text, which was UTF-8 when
/// it was kept, and not checked again: on its renders only the rest of the
/// request (XR and observed resources, a few percent of it) is checked, string
/// by string as it is read. Anything else (a Composition not kept yet, bytes
/// that do not read) stops that reading; the request is then checked whole and
/// read as [`read_request`] reads it, so every error keeps its text.
pub(crate) fn read_request_bytes(
    kept: &mut Compositions,
    b: &[u8],
) -> std::result::Result<Result<Request>, Utf8Error> {
    // An engine that keeps no Composition yet has nothing to compare with.
    if kept.footprint().0 > 0
        && let Some(request) = with_kept_composition(kept, Bytes::new(b))
    {
        return Ok(request);
    }
    Ok(read_request(kept, std::str::from_utf8(b)?))
}

/// The request read around its Composition (see [`read::read_around`]).
fn with_kept_composition<'t, S: Source<'t>>(
    compositions: &mut Compositions,
    source: S,
) -> Option<Result<Request>> {
    // A kept Composition is recognised by its text where the member's value
    // starts, so its span is never walked; one seen first is read there, so
    // its text is walked once. The rest of the request is read in the same
    // pass, as if the Composition were `null`.
    let mut kept = None;
    let mut known = |at: &'t [u8]| {
        if let Some((len, c)) = compositions.get_at(at) {
            kept = Some((c.0, Some(c.1)));
            return Some(len);
        }
        // Not kept: read where it starts when the request's text is checked.
        let rest = source.text_from(source.bytes().len() - at.len())?;
        // One level down in the request: the same depth limit as reading it whole.
        let (v, len, minus_zero) =
            read::read_prefix(rest, Numbers::Kubernetes, MAX_DEPTH - 1).ok()?;
        // Read for function semantics, a `-0` reads otherwise (`Request::from_json`).
        if minus_zero {
            return None;
        }
        v.as_object()?;
        kept = Some((Arc::new(v), None));
        Some(len)
    };
    let (doc, member, minus_zero) =
        read::read_around(source, Numbers::Kubernetes, MAX_DEPTH, &mut known).ok()?;
    let Member::At(span) = member else {
        return None;
    };
    if minus_zero {
        return None;
    }
    // Seen before: this render makes the decoding to keep, or runs the kept one.
    // First sight: the render decodes its own, as a one-off request's does.
    let kept = kept?;
    if kept.1.is_none() {
        // First sight happens only in checked text (`known` reads nothing else).
        let text = source.text_from(span.start)?.get(..span.len())?;
        compositions.put(text, (Arc::clone(&kept.0), Arc::default()));
    }
    Some(Request::from_value_with(doc, Some(kept)))
}

#[cfg(test)]
mod tests {
    use crate::value::MAX_DEPTH;
    use crate::value::read::{Bytes, Checked, Member, Numbers, read, read_around, read_prefix};

    /// The member's span, reading its value to find its length.
    fn around(text: &str) -> Option<(crate::value::Value, Member)> {
        let mut length = |at: &[u8]| {
            read_prefix(
                std::str::from_utf8(at).ok()?,
                Numbers::Kubernetes,
                MAX_DEPTH,
            )
            .ok()
            .map(|(_, n, _)| n)
        };
        read_around(Checked(text), Numbers::Kubernetes, MAX_DEPTH, &mut length)
            .ok()
            .map(|(v, member, _)| (v, member))
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
        let mut known = |at: &[u8]| at.starts_with(br#"{"a":"b"}"#).then_some(9);
        let around = |t: &'static str, known: &mut dyn FnMut(&'static [u8]) -> Option<usize>| {
            read_around(Checked(t), Numbers::Kubernetes, MAX_DEPTH, known)
        };
        let t = r#"{"xr":{},"composition":{"a":"b"} ,"o":1}"#;
        let read = around(t, &mut known);
        assert!(matches!(read, Ok((_, Member::At(ref s), _)) if &t[s.clone()] == r#"{"a":"b"}"#));
        // What `known` vouches for is not read: an invalid value there goes unseen.
        let t = r#"{"composition":{"a":"b"}}"#;
        let mut short = |_: &[u8]| Some(1);
        assert!(around(t, &mut short).is_err());
        // Unsure (a second member, one `known` does not know): the reading stops.
        let twice = r#"{"composition":{"a":"b"},"composition":{"a":"b"}}"#;
        assert!(around(twice, &mut known).is_err());
        let unknown = r#"{"composition":{"c":1}}"#;
        assert!(around(unknown, &mut known).is_err());
    }

    /// A documents request is read whole by the caller: the reading around stops at its
    /// key, whatever follows.
    #[test]
    fn a_documents_request_stops_at_its_key() {
        let mut known = |_: &[u8]| None;
        let mut around = |t: &'static str| {
            read_around(Checked(t), Numbers::Kubernetes, MAX_DEPTH, &mut known)
                .err()
                .map(|e| format!("{e:?}"))
        };
        let valid = around(r#"{"documents":[{"kind":"X"}],"options":{}}"#);
        assert!(valid.is_some());
        assert_eq!(around(r#"{"documents":[tru"#), valid);
    }

    /// A request with the literal `-0` is read whole (`Request::from_json`), where the
    /// semantics decides how: its Composition is not kept either.
    #[test]
    fn a_minus_zero_is_read_whole() {
        let mut kept = super::Compositions::default();
        for t in [
            r#"{"xr":{"a":-0},"composition":{}}"#,
            r#"{"xr":{},"composition":{"a":[-0]}}"#,
        ] {
            assert!(
                super::with_kept_composition(&mut kept, Checked(t)).is_none(),
                "{t}"
            );
        }
        assert_eq!(kept.footprint().0, 0);
        let t = r#"{"xr":{"a":-0.0},"composition":{"a":[-0.0]}}"#;
        assert!(super::with_kept_composition(&mut kept, Checked(t)).is_some());
    }

    /// Bytes not known to be UTF-8 read as their checked text does, strings checked one by
    /// one; where the reading becomes unsure, it stops.
    #[test]
    fn bytes_read_as_their_text_and_stop_where_unsure() {
        let mut known = |at: &[u8]| at.starts_with(br#"{"a":"b"}"#).then_some(9);
        let bytes = |b: &'static [u8], known: &mut dyn FnMut(&'static [u8]) -> Option<usize>| {
            read_around(Bytes::new(b), Numbers::Kubernetes, MAX_DEPTH, known)
        };
        let t = "{\"x\u{e9}\":\"d\u{e9}j\u{e0} \\u00e9 \u{1F600}\",\"composition\":{\"a\":\"b\"},\"n\":[1.5,true,null]}";
        let checked = read_around(Checked(t), Numbers::Kubernetes, MAX_DEPTH, &mut known);
        let read = bytes(t.as_bytes(), &mut known);
        assert!(matches!(read, Ok((_, Member::At(_), _))));
        assert_eq!(read.map(|(v, ..)| v), checked.map(|(v, ..)| v));
        for b in [
            // Not UTF-8 in a key, a value, after an escape, and outside any string.
            &b"{\"\xff\":1,\"composition\":{\"a\":\"b\"}}"[..],
            b"{\"x\":\"\xc3\",\"composition\":{\"a\":\"b\"}}",
            b"{\"x\":\"\\n\xe2\x80\",\"composition\":{\"a\":\"b\"}}",
            b"{\"composition\":{\"a\":\"b\"},\xa0\"x\":1}",
            // Unsure: the reading stops, as the checked reading does.
            br#"{"composition":{"a":"b"},"composition":{"a":"b"}}"#,
            br#"{"composition":{"c":1}}"#,
            br#"{"documents":[]}"#,
            br#"{"x\u0041":1,"composition":{"a":"b"}}"#,
        ] {
            assert!(
                bytes(b, &mut known).is_err(),
                "{}",
                String::from_utf8_lossy(b)
            );
        }
    }
}
