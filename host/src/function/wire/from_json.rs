//! JSON text to a Struct's bytes, written as the text is read (the engine's answer).

use std::fmt;

use prost::bytes::BufMut;
use prost::encoding::{WireType, encode_key, encode_varint};
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};

use super::lengths::{cancel, close, open};
use super::{Struct, Written};

impl<'de> Deserialize<'de> for Struct {
    /// A JSON object as a Struct; any other value as an empty one.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut bytes = Vec::new();
        d.deserialize_any(Top(&mut bytes))?;
        Ok(Struct {
            bytes,
            written: Written::default(),
        })
    }
}

/// The top-level value: an object's entries, nothing for anything else.
struct Top<'o>(&'o mut Vec<u8>);

impl<'de> Visitor<'de> for Top<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        write_entries(self.0, map, 0)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
}

/// An object's members as `fields` entries.
fn write_entries<'de, A: MapAccess<'de>>(
    out: &mut Vec<u8>,
    mut map: A,
    depth: usize,
) -> Result<(), A::Error> {
    loop {
        let entry = open(out, 1, depth);
        if map.next_key_seed(Key(out))?.is_none() {
            cancel(out, entry);
            return Ok(());
        }
        let value = open(out, 2, depth + 1);
        map.next_value_seed(ValueSeed(out, depth + 2))?;
        close(out, value);
        close(out, entry);
    }
}

/// A member's key, written as the entry's field 1.
struct Key<'o>(&'o mut Vec<u8>);

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<(), E> {
        encode_key(1, WireType::LengthDelimited, self.0);
        encode_varint(s.len() as u64, self.0);
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// A JSON value written as a `google.protobuf.Value`'s fields, this many messages deep.
struct ValueSeed<'o>(&'o mut Vec<u8>, usize);

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl ValueSeed<'_> {
    fn number(self, n: f64) {
        encode_key(2, WireType::SixtyFourBit, self.0);
        self.0.put_f64_le(n);
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.0.extend_from_slice(&[0x08, 0x00]);
        Ok(())
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.visit_unit()
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<(), E> {
        self.0.extend_from_slice(&[0x20, u8::from(b)]);
        Ok(())
    }

    #[allow(clippy::cast_precision_loss)]
    fn visit_i64<E: de::Error>(self, n: i64) -> Result<(), E> {
        self.number(n as f64);
        Ok(())
    }

    #[allow(clippy::cast_precision_loss)]
    fn visit_u64<E: de::Error>(self, n: u64) -> Result<(), E> {
        self.number(n as f64);
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<(), E> {
        self.number(n);
        Ok(())
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<(), E> {
        encode_key(3, WireType::LengthDelimited, self.0);
        encode_varint(s.len() as u64, self.0);
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        let s = open(self.0, 5, self.1);
        write_entries(self.0, map, self.1 + 1)?;
        close(self.0, s);
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let list = open(self.0, 6, self.1);
        loop {
            let item = open(self.0, 1, self.1 + 1);
            if seq
                .next_element_seed(ValueSeed(self.0, self.1 + 2))?
                .is_none()
            {
                cancel(self.0, item);
                break;
            }
            close(self.0, item);
        }
        close(self.0, list);
        Ok(())
    }
}
