//! The Compositions an engine has read, most recently used last.
//!
//! State of the engine (the core module's memory between calls, a worker's
//! module), never of a render: an entry is the Composition's exact text, the
//! value read from it and the decodings made from that value, so a hit gives
//! what reading and decoding the text again would.

use std::sync::Arc;

use crate::compose::Decodings;
use crate::value::Value;

/// Compositions kept; the least recently used is forgotten first.
const MAX_ENTRIES: usize = 64;
/// Bytes charged for all entries: each is charged its text twice, once for
/// the value read from it and once for its decodings (owned copies of the same
/// bases, patches and transforms), both a small multiple of the text.
const MAX_BYTES: usize = 16 << 20;
/// What an entry is charged per byte of text.
const BYTES_PER_TEXT_BYTE: usize = 2;
/// A Composition larger than this is read for its render and not kept.
const MAX_ENTRY_BYTES: usize = 1 << 20;

struct Entry {
    text: Box<str>,
    composition: Arc<Value>,
    decodings: Arc<Decodings>,
}

/// A kept Composition: the value read and the decodings made from it.
pub(crate) type Kept = (Arc<Value>, Arc<Decodings>);

fn charge(text: &str) -> usize {
    text.len() * BYTES_PER_TEXT_BYTE
}

/// The kept Compositions, bounded in count and bytes.
#[derive(Default)]
pub(crate) struct Compositions {
    entries: Vec<Entry>,
    /// Bytes charged for the entries (`charge`).
    bytes: usize,
}

impl Compositions {
    pub(crate) const fn new() -> Compositions {
        Compositions {
            entries: Vec::new(),
            bytes: 0,
        }
    }

    /// The kept Composition whose text `text` starts with, and that text's
    /// length; it becomes the most recent.
    ///
    /// A kept text is one whole JSON object, which ends at its own closing brace:
    /// when `text` starts with it, the value at the start of `text` is exactly it.
    pub(crate) fn get_at(&mut self, text: &[u8]) -> Option<(usize, Kept)> {
        let i = self
            .entries
            .iter()
            .rposition(|e| crate::bytes::starts_with(text, e.text.as_bytes()))?;
        let e = self.entries.remove(i);
        let found = (
            e.text.len(),
            (Arc::clone(&e.composition), Arc::clone(&e.decodings)),
        );
        self.entries.push(e);
        Some(found)
    }

    /// Keeps `kept`, read from `text`, as the most recent entry.
    pub(crate) fn put(&mut self, text: &str, (composition, decodings): Kept) {
        if text.len() > MAX_ENTRY_BYTES {
            return;
        }
        while self.entries.len() >= MAX_ENTRIES || self.bytes + charge(text) > MAX_BYTES {
            if self.entries.is_empty() {
                break;
            }
            let old = self.entries.remove(0);
            self.bytes -= charge(&old.text);
        }
        self.bytes += charge(text);
        self.entries.push(Entry {
            text: text.into(),
            composition,
            decodings,
        });
    }

    /// How many Compositions are kept, and their bytes of text.
    pub(crate) fn footprint(&self) -> (usize, usize) {
        (self.entries.len(), self.bytes / BYTES_PER_TEXT_BYTE)
    }

    /// How many decodings the kept Compositions hold.
    pub(crate) fn decodings(&self) -> usize {
        self.entries.iter().map(|e| e.decodings.count()).sum()
    }
}
