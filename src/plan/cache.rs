//! The Compositions a live instance has read, most recently used last.
//!
//! State of the instance (the core module's memory between calls, a worker's
//! module), never of a render: an entry is the Composition's exact text and the
//! value read from it, so a hit gives what reading the text again would.

use std::cell::RefCell;
use std::sync::Arc;

use crate::value::Value;

/// Compositions kept; the least recently used is forgotten first.
const MAX_ENTRIES: usize = 64;
/// Bytes of Composition text kept in all (the values read from it take a small multiple).
const MAX_TEXT_BYTES: usize = 8 << 20;
/// A Composition larger than this is read for its render and not kept.
const MAX_ENTRY_BYTES: usize = 1 << 20;

struct Entry {
    text: Box<str>,
    composition: Arc<Value>,
}

struct Lru {
    entries: Vec<Entry>,
    text_bytes: usize,
}

impl Lru {
    const fn new() -> Lru {
        Lru {
            entries: Vec::new(),
            text_bytes: 0,
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
pub(crate) fn get_at(text: &str) -> Option<(usize, Arc<Value>)> {
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        let i = c
            .entries
            .iter()
            .rposition(|e| text.as_bytes().starts_with(e.text.as_bytes()))?;
        let e = c.entries.remove(i);
        let found = (e.text.len(), Arc::clone(&e.composition));
        c.entries.push(e);
        Some(found)
    })
}

/// Keeps `composition`, read from `text`, as the most recent entry.
pub(crate) fn put(text: &str, composition: Arc<Value>) {
    if text.len() > MAX_ENTRY_BYTES {
        return;
    }
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        while c.entries.len() >= MAX_ENTRIES || c.text_bytes + text.len() > MAX_TEXT_BYTES {
            if c.entries.is_empty() {
                break;
            }
            let old = c.entries.remove(0);
            c.text_bytes -= old.text.len();
        }
        c.text_bytes += text.len();
        c.entries.push(Entry {
            text: text.into(),
            composition,
        });
    });
}

/// How many Compositions are kept, and their bytes of text.
pub(crate) fn footprint() -> (usize, usize) {
    CACHE.with(|c| {
        let c = c.borrow();
        (c.entries.len(), c.text_bytes)
    })
}

/// Forgets every Composition.
pub(crate) fn clear() {
    CACHE.with(|c| *c.borrow_mut() = Lru::new());
}
