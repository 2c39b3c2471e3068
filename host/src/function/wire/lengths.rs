//! Length-delimited fields written before their length is known.

use prost::encoding::{WireType, encode_key, encode_varint};

/// Message levels from which a length is written five bytes wide. A length is written when
/// its message is closed, in the one byte kept for it, which holds most; a longer one moves the
/// message to make room, and over a chain of nested messages that moves the deepest one's bytes
/// once per level. Real documents nest less deep than this; a deeper one takes four bytes more
/// per message instead of moving it again and again.
const MOVED_LEVELS: usize = 48;

/// A length-delimited field whose length is written when it is closed.
#[derive(Clone, Copy)]
pub(super) struct Open {
    start: usize,
    wide: bool,
}

pub(super) fn open(out: &mut Vec<u8>, tag: u32, depth: usize) -> Open {
    encode_key(tag, WireType::LengthDelimited, out);
    let wide = depth >= MOVED_LEVELS;
    out.extend_from_slice(if wide { &[0; 5] } else { &[0] });
    Open {
        start: out.len(),
        wide,
    }
}

/// Drops a field opened for a member that turned out not to be there.
pub(super) fn cancel(out: &mut Vec<u8>, open: Open) {
    // The key of every field opened here is one byte (tags below 16).
    out.truncate(open.start - if open.wide { 6 } else { 2 });
}

#[allow(clippy::cast_possible_truncation)]
pub(super) fn close(out: &mut Vec<u8>, open: Open) {
    let len = out.len() - open.start;
    let kept = if open.wide { 5 } else { 1 };
    if open.wide && len < 1 << 35 {
        // A varint padded to five bytes: protobuf's readers take it as the same number.
        for i in 0..5 {
            let b = ((len >> (7 * i)) & 0x7f) as u8;
            out[open.start - 5 + i] = if i < 4 { b | 0x80 } else { b };
        }
        return;
    }
    let mut varint = [0u8; 10];
    let n = prost::encoding::encoded_len_varint(len as u64);
    encode_varint(len as u64, &mut &mut varint[..]);
    let (first, rest) = varint[..n].split_at(kept.min(n));
    out[open.start - kept..open.start - kept + first.len()].copy_from_slice(first);
    if first.len() < kept {
        out.drain(open.start - kept + first.len()..open.start);
    } else if !rest.is_empty() {
        out.splice(open.start..open.start, rest.iter().copied());
    }
}
