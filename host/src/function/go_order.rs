//! Protobuf bytes as Go's protobuf writes them by default: every map's entries in an order of
//! its own, different from one marshal to the next. Crossplane's requests come so; prost
//! writes maps in key order.

use prost::Message as _;
use prost::encoding::{WireType, encode_key, encode_varint};
use prost_types::value::Kind;

/// A deterministic stream of numbers for the orderings.
pub struct Rng(pub u64);

impl Rng {
    pub fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        usize::try_from(self.0 >> 33).unwrap_or_default() % n
    }

    /// The entries in a random order (Fisher-Yates), concatenated.
    pub fn shuffled(&mut self, mut entries: Vec<Vec<u8>>) -> Vec<u8> {
        for i in (1..entries.len()).rev() {
            entries.swap(i, self.below(i + 1));
        }
        entries.concat()
    }
}

/// Appends a length-delimited field.
pub fn field(out: &mut Vec<u8>, tag: u32, bytes: &[u8]) {
    encode_key(tag, WireType::LengthDelimited, out);
    encode_varint(bytes.len() as u64, out);
    out.extend_from_slice(bytes);
}

/// A length-delimited field on its own.
pub fn nested(tag: u32, bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    field(&mut out, tag, bytes);
    out
}

/// A map entry of a string key (field 1) and a message or bytes value (field 2), as the map's
/// field `tag`.
pub fn entry(tag: u32, key: &str, value: &[u8]) -> Vec<u8> {
    let mut e = nested(1, key.as_bytes());
    field(&mut e, 2, value);
    nested(tag, &e)
}

/// A Struct's bytes, its entries in a random order at every level.
pub fn go_struct(s: &prost_types::Struct, rng: &mut Rng) -> Vec<u8> {
    let entries = s
        .fields
        .iter()
        .map(|(k, v)| entry(1, k, &go_value(v, rng)))
        .collect();
    rng.shuffled(entries)
}

fn go_value(v: &prost_types::Value, rng: &mut Rng) -> Vec<u8> {
    match &v.kind {
        Some(Kind::StructValue(s)) => nested(5, &go_struct(s, rng)),
        Some(Kind::ListValue(l)) => {
            let items: Vec<u8> = l
                .values
                .iter()
                .flat_map(|item| nested(1, &go_value(item, rng)))
                .collect();
            nested(6, &items)
        }
        _ => v.encode_to_vec(),
    }
}
