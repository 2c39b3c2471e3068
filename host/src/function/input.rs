//! The function inputs a server was sent lately, decoded once and written as JSON once.
//!
//! Crossplane sends a step's input, the Composition's templates and patches, with every XR it
//! composes: for the medium workload (twenty resources) 38 of the request's 43 kilobytes are
//! the same bytes every time. The server checked every field of them on decoding and walked
//! every field again to write the engine's request. A request whose input's bytes are those of
//! one decoded lately now takes that input as it was decoded, and an input written lately is
//! copied as it was written. What the rest of the request holds is decoded as before.

use std::ops::Range;
use std::sync::Arc;

use prost::bytes::Bytes;
use prost::encoding::{WireType, decode_varint};
use prost::{DecodeError, Message};

use super::codec::FromWire;
use super::proto::v1;
use super::seen::Seen;
use super::wire::{Fault, Struct};

/// `RunFunctionRequest.input`.
const INPUT_TAG: u64 = 4;

/// An input's JSON as [`write_json`] wrote it, and whether it held a fault.
type Written = Arc<(Vec<u8>, Result<(), Fault>)>;

static DECODED: Seen<Struct> = Seen::new();
static WRITTEN: Seen<Written> = Seen::new();

/// Decodes a request whose field [`INPUT_TAG`] is `input`, the input taken as decoded before
/// when its bytes are those of one decoded lately.
///
/// Decoding a message's bytes in parts split between its fields is decoding the whole (protobuf
/// merges them). When the input is the request's one field of its number, the parts before and
/// after it are decoded and the kept input set: a request has no oneof at its top, so which
/// comes first does not matter. Errors are prost's, in the order prost meets them: the parts
/// before the input, then (never, its bytes decoded before) the input, then the parts after.
///
/// # Errors
/// prost's, as [`Message::decode`] gives them for the whole.
pub(crate) fn decode_request<M: Message + Default>(
    bytes: Bytes,
    input: fn(&mut M) -> &mut Option<Struct>,
) -> Result<M, DecodeError> {
    let Some((field, content)) = lone_field(&bytes, INPUT_TAG) else {
        return M::decode(bytes);
    };
    if let Some(kept) = DECODED.get(&bytes[content.clone()]) {
        let mut m = M::default();
        m.merge(bytes.slice(..field.start))?;
        m.merge(bytes.slice(field.end..))?;
        *input(&mut m) = Some(kept);
        return Ok(m);
    }
    let mut m = M::decode(bytes.clone())?;
    if let Some(decoded) = input(&mut m) {
        let extra = decoded.as_bytes().len();
        DECODED.put(&bytes[content], decoded.clone(), extra);
    }
    Ok(m)
}

/// The one length-delimited field numbered `tag` at the top of `message`: its whole (key,
/// length and content) and its content. `None` when there is no such field, more than one, a
/// field of that number of another wire type, or bytes that are not fields (prost then
/// decodes as ever, and reports them).
fn lone_field(message: &[u8], tag: u64) -> Option<(Range<usize>, Range<usize>)> {
    let mut rest = message;
    let mut found = None;
    while !rest.is_empty() {
        let start = message.len() - rest.len();
        let key = decode_varint(&mut rest).ok()?;
        let wire = WireType::try_from(key & 7).ok()?;
        let taken = match wire {
            WireType::Varint => decode_varint(&mut rest).map(|_| 0).ok()?,
            WireType::SixtyFourBit => 8,
            WireType::ThirtyTwoBit => 4,
            WireType::LengthDelimited => usize::try_from(decode_varint(&mut rest).ok()?).ok()?,
            WireType::StartGroup | WireType::EndGroup => return None,
        };
        let at = message.len() - rest.len();
        rest = rest.get(taken..)?;
        if key >> 3 == tag {
            if wire != WireType::LengthDelimited || found.is_some() {
                return None;
            }
            found = Some((start..at + taken, at..at + taken));
        }
    }
    found
}

/// function-patch-and-transform decodes its input whatever apiVersion and kind it names: the
/// engine is handed these.
const FIXED: [(&str, &str); 2] = [
    ("apiVersion", "pt.fn.crossplane.io/v1beta1"),
    ("kind", "Resources"),
];

/// Writes the input as [`Struct::write_json`] does with [`FIXED`] members, copying what it
/// wrote for the same bytes lately.
///
/// # Errors
/// As [`Struct::write_json`].
pub(crate) fn write_json(input: &Struct, out: &mut Vec<u8>) -> Result<(), Fault> {
    let bytes = input.as_bytes();
    if let Some(written) = WRITTEN.get(bytes) {
        let (json, result) = &*written;
        out.extend_from_slice(json);
        return result.clone();
    }
    let mark = out.len();
    let result = input.write_json(out, &FIXED);
    let json = out.get(mark..).unwrap_or_default().to_vec();
    let extra = json.len();
    WRITTEN.put(bytes, Arc::new((json, result.clone())), extra);
    result
}

// v1beta1's service takes v1's messages.
impl FromWire for v1::RunFunctionRequest {
    fn from_wire(bytes: Bytes) -> Result<Self, DecodeError> {
        decode_request(bytes, |r| &mut r.input)
    }
}

#[cfg(test)]
mod tests {
    use prost::Message as _;
    use prost::encoding::{encode_key, encode_varint};
    use serde_json::json;

    use super::*;
    use crate::function::proto::v1::{RequestMeta, Resource, RunFunctionRequest, State};

    fn doc(v: serde_json::Value) -> Struct {
        serde_json::from_value(v).unwrap()
    }

    /// An input of some kilobytes, told apart by `n`.
    fn big_input(n: usize) -> Struct {
        let resources: Vec<_> = (0..40)
            .map(|i| json!({"name": format!("r{i}"), "base": {"kind": "Bucket", "n": n},
                "patches": [{"fromFieldPath": "spec.region", "toFieldPath": "spec.forProvider.region"}]}))
            .collect();
        doc(
            json!({"apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources", "resources": resources}),
        )
    }

    fn request(input: Option<Struct>, xr: &str) -> RunFunctionRequest {
        RunFunctionRequest {
            meta: Some(RequestMeta { tag: xr.into() }),
            observed: Some(State {
                composite: Some(Resource {
                    resource: Some(doc(json!({"metadata": {"name": xr}}))),
                    ..Resource::default()
                }),
                ..State::default()
            }),
            input,
            context: Some(doc(json!({"k": xr}))),
            ..RunFunctionRequest::default()
        }
    }

    /// The request's bytes decoded by prost and by [`FromWire`]: the same message or error.
    fn same(bytes: &[u8]) -> Result<RunFunctionRequest, String> {
        let theirs = RunFunctionRequest::decode(bytes).map_err(|e| e.to_string());
        let ours =
            RunFunctionRequest::from_wire(Bytes::copy_from_slice(bytes)).map_err(|e| e.to_string());
        assert_eq!(ours, theirs);
        ours
    }

    #[test]
    fn a_request_decodes_as_prost_decodes_it_with_its_input_kept_or_not() {
        let input = big_input(1);
        assert!(input.as_bytes().len() > 2048);
        for xr in ["a", "b", "c"] {
            let req = request(Some(input.clone()), xr);
            assert_eq!(same(&req.encode_to_vec()).unwrap(), req);
        }
        assert!(DECODED.get(&input.encode_to_vec()).is_some());
        // Another input of the same length is not taken for it.
        let other = big_input(2);
        assert_eq!(other.as_bytes().len(), input.as_bytes().len());
        let req = request(Some(other), "a");
        assert_eq!(same(&req.encode_to_vec()).unwrap(), req);
        // No input, a small one, the input first or last.
        for req in [request(None, "d"), request(Some(doc(json!({"x": 1}))), "e")] {
            assert_eq!(same(&req.encode_to_vec()).unwrap(), req);
        }
        let bytes = request(Some(input.clone()), "f").encode_to_vec();
        let (field, _) = lone_field(&bytes, INPUT_TAG).unwrap();
        let mut moved = bytes[field.clone()].to_vec();
        moved.extend_from_slice(&bytes[..field.start]);
        moved.extend_from_slice(&bytes[field.end..]);
        same(&moved).unwrap();
        let mut moved = bytes[..field.start].to_vec();
        moved.extend_from_slice(&bytes[field.end..]);
        moved.extend_from_slice(&bytes[field]);
        same(&moved).unwrap();
    }

    #[test]
    fn an_input_given_twice_merges_and_bad_bytes_fail_as_in_prost() {
        let input = big_input(3);
        let bytes = request(Some(input.clone()), "a").encode_to_vec();
        same(&bytes).unwrap();
        same(&bytes).unwrap();
        // Given again: the two merge (the later entry of a key wins), as prost merges them.
        let mut twice = bytes.clone();
        let later = doc(json!({"kind": "Other"}));
        encode_key(4, WireType::LengthDelimited, &mut twice);
        encode_varint(later.as_bytes().len() as u64, &mut twice);
        twice.extend_from_slice(later.as_bytes());
        let merged = same(&twice).unwrap();
        assert_ne!(merged.input, Some(input.clone()));
        // Bad bytes before the kept input, after it, and in place of a field's length.
        let (field, _) = lone_field(&bytes, INPUT_TAG).unwrap();
        let bad_string = [0x0a, 0x02, 0x0a, 0x02, 0xff, 0xfe];
        for (at, bad) in [
            (0, &bad_string[..]),
            (bytes.len(), &bad_string[..]),
            (field.end, &[0x2a, 0x05, 0x0a][..]),
            (field.end, &[0x00, 0x01][..]),
            (field.start, &[0x08][..]),
        ] {
            let mut broken = bytes.clone();
            broken.splice(at..at, bad.iter().copied());
            assert!(same(&broken).is_err(), "{at} {bad:?}");
        }
        // The input given with another wire type: not a lone message field.
        let mut varint = bytes.clone();
        varint.extend_from_slice(&[0x20, 0x01]);
        assert!(same(&varint).is_err());
    }

    #[test]
    fn an_input_is_written_as_before_and_its_fault_found_again() {
        let input = big_input(4);
        let mut want = Vec::new();
        input.write_json(&mut want, &FIXED).unwrap();
        for _ in 0..3 {
            let mut out = b"[".to_vec();
            write_json(&input, &mut out).unwrap();
            assert_eq!(out[1..], want);
        }
        let mut faulty = prost_types::Struct::decode(input.encode_to_vec().as_slice()).unwrap();
        faulty.fields.insert(
            "z".into(),
            prost_types::Value {
                kind: Some(prost_types::value::Kind::NumberValue(f64::NAN)),
            },
        );
        let faulty = Struct::decode(faulty.encode_to_vec().as_slice()).unwrap();
        let mut want = Vec::new();
        let fault = faulty.write_json(&mut want, &FIXED).unwrap_err();
        for _ in 0..3 {
            let mut out = Vec::new();
            assert_eq!(write_json(&faulty, &mut out), Err(fault.clone()));
            assert_eq!(out, want);
        }
    }
}
