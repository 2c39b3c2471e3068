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
            .rposition(|e| starts_with(text, e.text.as_bytes()))?;
        let e = c.entries.remove(i);
        let found = (
            e.text.len(),
            (Arc::clone(&e.composition), Arc::clone(&e.compiled)),
        );
        c.entries.push(e);
        Some(found)
    })
}

/// Whether `text` starts with `prefix`, compared 32 bytes per step: a kept
/// Composition's text is compared whole on every render of it, where `memcmp`
/// takes a word per loop turn. Four words are folded into one test,
/// so the loop's branch (and the host's interruption check on each turn of a
/// loop) is paid once per 32 bytes.
fn starts_with(text: &[u8], prefix: &[u8]) -> bool {
    let Some(head) = text.get(..prefix.len()) else {
        return false;
    };
    let (a, b) = (head.chunks_exact(32), prefix.chunks_exact(32));
    let (ra, rb) = (a.remainder(), b.remainder());
    let differs = |x: &[u8], y: &[u8], at: usize| word(&x[at..]) ^ word(&y[at..]);
    a.zip(b).all(|(x, y)| {
        (differs(x, y, 0) | differs(x, y, 8) | differs(x, y, 16) | differs(x, y, 24)) == 0
    }) && ra == rb
}

/// The first eight bytes of `b` as a word.
fn word(b: &[u8]) -> u64 {
    let mut w = [0; 8];
    w.copy_from_slice(&b[..8]);
    u64::from_ne_bytes(w)
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

#[cfg(test)]
mod tests {
    use super::starts_with;

    #[test]
    fn starts_with_agrees_with_the_slice_method() {
        let text: Vec<u8> = (0..100u8).collect();
        for len in 0..=text.len() {
            for at in 0..len.max(1) {
                let mut prefix = text[..len].to_vec();
                assert!(starts_with(&text, &prefix));
                if let Some(b) = prefix.get_mut(at) {
                    *b ^= 1;
                    assert!(!starts_with(&text, &prefix), "{len} {at}");
                }
            }
        }
        assert!(!starts_with(&text[..5], &text[..6]));
    }
}
