//! The function service's gRPC codec: prost's, with Go's nesting limit.
//!
//! Crossplane and function-patch-and-transform decode with Go's protobuf, which reads messages
//! nested 10,000 levels deep. prost stops at 100, and a `google.protobuf.Struct` spends three
//! levels per JSON object: its limit refused an XR whose spec nests 31 objects deep. prost's
//! limit is off (its `no-recursion-limit` feature), and this decoder counts the nesting of the
//! bytes first, without recursion, and refuses a message past Go's limit before prost's
//! recursive decoding sees it. The function server's threads have the stack for that depth.

use std::marker::PhantomData;

use prost::Message;
use prost::bytes::Buf as _;
use tonic::Status;
use tonic::codec::{Codec, DecodeBuf, Decoder};
use tonic_prost::ProstEncoder;

/// Go's protobuf `RecursionLimit`.
pub(crate) const MAX_NESTING: usize = 10_000;

/// prost's codec with the nesting checked before decoding.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BoundedCodec<T, U>(PhantomData<(T, U)>);

impl<T, U> Default for BoundedCodec<T, U> {
    fn default() -> Self {
        Self(PhantomData)
    }
}

impl<T, U> Codec for BoundedCodec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = BoundedDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        ProstEncoder::default()
    }

    fn decoder(&mut self) -> Self::Decoder {
        BoundedDecoder(PhantomData)
    }
}

/// Decodes `U` once its bytes are known to nest no deeper than [`MAX_NESTING`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct BoundedDecoder<U>(PhantomData<U>);

impl<U: Message + Default> Decoder for BoundedDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        let bytes = buf.copy_to_bytes(buf.remaining());
        if nests_deeper(&bytes, MAX_NESTING) {
            return Err(Status::internal(format!(
                "failed to decode Protobuf message: nested more than {MAX_NESTING} levels deep"
            )));
        }
        U::decode(bytes)
            .map(Some)
            .map_err(|e| Status::internal(format!("failed to decode Protobuf message: {e}")))
    }
}

/// Whether `message` holds more than `limit` levels of nested messages.
///
/// The wire format does not say which length-delimited fields are messages, so each is read
/// as one until its bytes fail to parse as fields; then it was a string or bytes, and reading
/// goes on after it. One pass, each byte read at most once. A string whose bytes happen to
/// parse as fields can only add levels, never hide one, so a message this passes is no deeper
/// than `limit`; malformed bytes are left to the decoder to report. A level takes two bytes
/// at least (a key and a length), so a field too short to reach past `limit` is skipped
/// unread: a request of ordinary depth costs a look at its outer fields.
pub(crate) fn nests_deeper(message: &[u8], limit: usize) -> bool {
    if message.len() / 2 <= limit {
        return false;
    }
    // The end of each length-delimited field being read as a message, innermost last.
    let mut open: Vec<usize> = Vec::new();
    let mut at = 0;
    loop {
        let end = open.last().copied().unwrap_or(message.len());
        if at == end {
            if open.pop().is_none() {
                return false;
            }
            continue;
        }
        match field(message, at, end) {
            Some(Field::Skip(next)) => at = next,
            Some(Field::Delimited(start, len)) if open.len() + 1 + len / 2 <= limit => {
                at = start + len;
            }
            Some(Field::Delimited(start, len)) => {
                at = start;
                open.push(start + len);
                if open.len() > limit {
                    return true;
                }
            }
            // Not fields after all: the innermost was a string or bytes.
            None => match open.pop() {
                Some(after) => at = after,
                None => return false,
            },
        }
    }
}

/// One field of the wire format, by what reading it takes.
enum Field {
    /// A scalar: reading goes on at this offset.
    Skip(usize),
    /// A length-delimited field: its bytes start at `.0` and are `.1` long.
    Delimited(usize, usize),
}

/// The field at `at`, within `..end`; `None` when the bytes there are not a field.
fn field(bytes: &[u8], at: usize, end: usize) -> Option<Field> {
    let (key, at) = varint(bytes, at, end)?;
    if key >> 3 == 0 {
        return None;
    }
    let fixed = |n: usize| (at + n <= end).then_some(Field::Skip(at + n));
    match key & 7 {
        0 => varint(bytes, at, end).map(|(_, next)| Field::Skip(next)),
        1 => fixed(8),
        5 => fixed(4),
        2 => {
            let (len, at) = varint(bytes, at, end)?;
            let len = usize::try_from(len).ok()?;
            (len <= end - at).then_some(Field::Delimited(at, len))
        }
        // Groups (3, 4) appear in none of the function protocol's messages.
        _ => None,
    }
}

/// The varint at `at`, within `..end`, and the offset after it.
fn varint(bytes: &[u8], mut at: usize, end: usize) -> Option<(u64, usize)> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        if at >= end {
            return None;
        }
        let b = bytes[at];
        at += 1;
        value |= u64::from(b & 0x7F) << shift;
        if b < 0x80 {
            return Some((value, at));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A field `n` holding `inner` as a message, `levels` times over.
    fn nested(levels: usize, inner: Vec<u8>) -> Vec<u8> {
        let mut m = inner;
        for _ in 0..levels {
            let mut outer = vec![0x0A]; // field 1, length-delimited
            let mut len = m.len();
            while len >= 0x80 {
                outer.push((len as u8) | 0x80);
                len >>= 7;
            }
            outer.push(len as u8);
            outer.extend(m);
            m = outer;
        }
        m
    }

    #[test]
    fn counts_message_levels() {
        let leaf = vec![0x08, 0x96, 0x01]; // field 1 = 150
        assert!(!nests_deeper(&nested(10, leaf.clone()), 10));
        assert!(nests_deeper(&nested(11, leaf.clone()), 10));
        assert!(!nests_deeper(&[], 0));
        assert!(!nests_deeper(&leaf, 0));
    }

    #[test]
    fn strings_and_malformed_bytes_are_not_levels() {
        // "hello" does not parse as fields: one level, not two.
        let s = nested(1, b"hello".to_vec());
        assert!(!nests_deeper(&s, 1));
        // Fields after a string are still read.
        let mut two = s.clone();
        two.extend(nested(3, vec![]));
        assert!(nests_deeper(&two, 2));
        assert!(!nests_deeper(&two, 3));
        // Truncated or overlong lengths end the reading without a verdict of depth.
        assert!(!nests_deeper(&[0x0A, 0x05, 0x01], 0));
        assert!(!nests_deeper(&[0xFF; 11], 0));
    }

    #[test]
    fn long_fields_beside_a_deep_one() {
        let mut m = Vec::new();
        for _ in 0..1000 {
            m.extend(nested(1, vec![b'x'; 1000]));
        }
        m.extend(nested(50, vec![]));
        assert!(!nests_deeper(&m, 50));
        assert!(nests_deeper(&m, 49));
        // 30,000 levels, past Go's limit.
        assert!(nests_deeper(&nested(30_000, vec![]), MAX_NESTING));
    }

    #[test]
    fn real_structs_nest_three_levels_per_object() {
        let mut v = prost_types::Value {
            kind: Some(prost_types::value::Kind::StringValue("leaf".into())),
        };
        for _ in 0..40 {
            let fields = [("a".to_owned(), v)].into_iter().collect();
            v = prost_types::Value {
                kind: Some(prost_types::value::Kind::StructValue(prost_types::Struct {
                    fields,
                })),
            };
        }
        let bytes = v.encode_to_vec();
        // Struct, map entry and Value per object: 120 levels under the top, and the leaf's
        // string read as a 121st until its bytes fail to parse.
        assert!(!nests_deeper(&bytes, 121));
        assert!(nests_deeper(&bytes, 120));
        assert_eq!(prost_types::Value::decode(bytes.as_slice()).unwrap(), v);
    }
}
