//! The protobuf wire format read field by field, over borrowed bytes.

use prost::encoding::decode_varint;

/// A field as read from the wire.
pub(super) enum Field<'a> {
    Varint(u64),
    Fixed64(u64),
    Fixed32,
    Bytes(&'a [u8]),
}

/// The fields of a message's bytes in order; reading stops at bytes that are not a field
/// (or a group, which no message here has), with `Err`.
pub(super) struct Fields<'a> {
    rest: &'a [u8],
}

pub(super) fn fields(bytes: &[u8]) -> Fields<'_> {
    Fields { rest: bytes }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<(u32, Field<'a>), ()>;

    // Inlined where fields are read, the field is returned in registers rather than memory.
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let field = self.read();
        if field.is_err() {
            self.rest = &[];
        }
        Some(field)
    }
}

impl<'a> Fields<'a> {
    #[inline(always)]
    fn read(&mut self) -> Result<(u32, Field<'a>), ()> {
        // prost refuses a key past 32 bits, whatever its field.
        let key = u32::try_from(varint(&mut self.rest)?).map_err(|_| ())?;
        let tag = key >> 3;
        if tag == 0 {
            return Err(());
        }
        let field = match key & 7 {
            0 => Field::Varint(varint(&mut self.rest)?),
            1 => {
                let (bits, rest) = self.rest.split_first_chunk::<8>().ok_or(())?;
                self.rest = rest;
                Field::Fixed64(u64::from_le_bytes(*bits))
            }
            5 => {
                let (_, rest) = self.rest.split_first_chunk::<4>().ok_or(())?;
                self.rest = rest;
                Field::Fixed32
            }
            2 => {
                let len = usize::try_from(varint(&mut self.rest)?).map_err(|_| ())?;
                if len > self.rest.len() {
                    return Err(());
                }
                let (bytes, rest) = self.rest.split_at(len);
                self.rest = rest;
                Field::Bytes(bytes)
            }
            _ => return Err(()),
        };
        Ok((tag, field))
    }
}

/// A varint: one byte for most keys and lengths, read here; longer ones by prost.
#[inline]
fn varint(bytes: &mut &[u8]) -> Result<u64, ()> {
    match bytes.split_first() {
        Some((&b, rest)) if b < 0x80 => {
            *bytes = rest;
            Ok(u64::from(b))
        }
        _ => decode_varint(bytes).map_err(|_| ()),
    }
}
