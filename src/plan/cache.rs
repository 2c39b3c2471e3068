//! The Compositions a live instance has read, most recently used last.
//!
//! State of the instance (the core module's memory between calls, a worker's
//! module), never of a render: an entry is the Composition's exact text, the
//! value read from it and the plans compiled from that value, so a hit gives
//! what reading and compiling the text again would.

use std::cell::RefCell;
use std::sync::Arc;

use crate::compose::Compiled;
use crate::value::Value;

/// Compositions kept; the least recently used is forgotten first.
const MAX_ENTRIES: usize = 64;
/// Bytes charged for all entries: each is charged its text twice, once for
/// the value read from it and once for its plans (owned copies of the same
/// bases, patches and transforms), both a small multiple of the text.
const MAX_BYTES: usize = 16 << 20;
/// What an entry is charged per byte of text.
const BYTES_PER_TEXT_BYTE: usize = 2;
/// A Composition larger than this is read for its render and not kept.
const MAX_ENTRY_BYTES: usize = 1 << 20;

struct Entry {
    text: Box<str>,
    composition: Arc<Value>,
    compiled: Arc<Compiled>,
}

/// A kept Composition: the value read and the plans compiled from it.
pub(crate) type Kept = (Arc<Value>, Arc<Compiled>);

fn charge(text: &str) -> usize {
    text.len() * BYTES_PER_TEXT_BYTE
}

struct Lru {
    entries: Vec<Entry>,
    /// Bytes charged for the entries (`charge`).
    bytes: usize,
}

impl Lru {
    const fn new() -> Lru {
        Lru {
            entries: Vec::new(),
            bytes: 0,
        }
    }
}

thread_local! {
    static CACHE: RefCell<Lru> = const { RefCell::new(Lru::new()) };
}

/// The kept Composition whose text `text` starts with, and that text's
/// length; it becomes the most recent.
///
/// A kept text is one whole JSON object, which ends at its own closing brace:
/// when `text` starts with it, the value at the start of `text` is exactly it.
pub(crate) fn get_at(text: &[u8]) -> Option<(usize, Kept)> {
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        let i = c
            .entries
            .iter()
            .rposition(|e| crate::bytes::starts_with(text, e.text.as_bytes()))?;
        let e = c.entries.remove(i);
        let found = (
            e.text.len(),
            (Arc::clone(&e.composition), Arc::clone(&e.compiled)),
        );
        c.entries.push(e);
        Some(found)
    })
}

/// Keeps `kept`, read from `text`, as the most recent entry.
pub(crate) fn put(text: &str, (composition, compiled): Kept) {
    if text.len() > MAX_ENTRY_BYTES {
        return;
    }
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        while c.entries.len() >= MAX_ENTRIES || c.bytes + charge(text) > MAX_BYTES {
            if c.entries.is_empty() {
                break;
            }
            let old = c.entries.remove(0);
            c.bytes -= charge(&old.text);
        }
        c.bytes += charge(text);
        c.entries.push(Entry {
            text: text.into(),
            composition,
            compiled,
        });
    });
}

/// How many Compositions are kept, and their bytes of text.
pub(crate) fn footprint() -> (usize, usize) {
    CACHE.with(|c| {
        let c = c.borrow();
        (c.entries.len(), c.bytes / BYTES_PER_TEXT_BYTE)
    })
}

/// How many plans the kept Compositions hold.
pub(crate) fn plans() -> usize {
    CACHE.with(|c| c.borrow().entries.iter().map(|e| e.compiled.count()).sum())
}

/// Forgets every Composition.
pub(crate) fn clear() {
    CACHE.with(|c| *c.borrow_mut() = Lru::new());
}
