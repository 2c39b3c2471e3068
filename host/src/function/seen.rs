//! What was worked out from a run of bytes, kept for the runs used lately and found again by
//! comparing bytes: a comparison of lengths and one `memcmp` where working it out again walks
//! every field. Only the bytes are the key, so what is found is exactly what working it out
//! again would give. Bounded in runs and in bytes.

use std::sync::{Arc, Mutex, PoisonError};

/// Shorter runs are worked out every time: the lookup would cost about as much.
const MIN_BYTES: usize = 1 << 10;
/// Runs kept at most.
const MAX_KEPT: usize = 64;
/// Bytes kept at most, with what was worked out from them: a longer run is never kept.
const MAX_WEIGHT: usize = 16 << 20;

/// Runs of bytes with what was worked out from each.
pub(crate) struct Seen<V> {
    state: Mutex<State<V>>,
}

struct State<V> {
    /// The last used last, with the weight each was put with.
    kept: Vec<(Arc<[u8]>, V, usize)>,
    weight: usize,
}

impl<V: Clone> Seen<V> {
    pub(crate) const fn new() -> Self {
        Seen {
            state: Mutex::new(State {
                kept: Vec::new(),
                weight: 0,
            }),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State<V>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// What was kept for exactly these bytes.
    pub(crate) fn get(&self, bytes: &[u8]) -> Option<V> {
        if bytes.len() < MIN_BYTES {
            return None;
        }
        let mut state = self.state();
        let at = state.kept.iter().rposition(|(k, ..)| **k == *bytes)?;
        let hit = state.kept.remove(at);
        let value = hit.1.clone();
        state.kept.push(hit);
        Some(value)
    }

    /// Keeps `value` for `bytes`; `extra` is what the value holds beyond them, in bytes. The
    /// runs used longest ago make room.
    pub(crate) fn put(&self, bytes: &[u8], value: V, extra: usize) {
        let weight = bytes.len().saturating_add(extra);
        if bytes.len() < MIN_BYTES || weight > MAX_WEIGHT {
            return;
        }
        let mut state = self.state();
        // Two requests with the same bytes may both have missed; keep one.
        if state.kept.iter().any(|(k, ..)| **k == *bytes) {
            return;
        }
        while state.kept.len() >= MAX_KEPT || state.weight + weight > MAX_WEIGHT {
            let (.., w) = state.kept.remove(0);
            state.weight -= w;
        }
        state.weight += weight;
        state.kept.push((Arc::from(bytes), value, weight));
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.state().kept.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(fill: usize, len: usize) -> Vec<u8> {
        let mut r = vec![0; len];
        r[..8].copy_from_slice(&(fill as u64).to_le_bytes());
        r
    }

    #[test]
    fn only_the_same_bytes_find_a_value() {
        let seen = Seen::new();
        let a = run(1, 4096);
        seen.put(&a, 'a', 0);
        assert_eq!(seen.get(&a), Some('a'));
        let mut b = a.clone();
        b[4095] = 2;
        assert_eq!(seen.get(&b), None, "one byte differs");
        assert_eq!(seen.get(&a[..4095]), None, "a prefix");
        seen.put(&b, 'b', 0);
        assert_eq!((seen.get(&a), seen.get(&b)), (Some('a'), Some('b')));
        // Kept once however often it is put.
        seen.put(&a, 'x', 0);
        assert_eq!((seen.get(&a), seen.len()), (Some('a'), 2));
    }

    #[test]
    fn short_and_heavy_runs_are_not_kept() {
        let seen = Seen::new();
        let short = run(3, MIN_BYTES - 1);
        seen.put(&short, 1, 0);
        assert_eq!(seen.get(&short), None);
        let heavy = run(4, MIN_BYTES);
        seen.put(&heavy, 2, MAX_WEIGHT);
        assert_eq!(seen.get(&heavy), None);
        assert_eq!(seen.len(), 0);
        seen.put(&heavy, 3, MAX_WEIGHT - MIN_BYTES);
        assert_eq!(seen.get(&heavy), Some(3));
    }

    #[test]
    fn the_runs_used_longest_ago_make_room() {
        let seen = Seen::new();
        let runs: Vec<Vec<u8>> = (0..=MAX_KEPT).map(|i| run(i, 2048)).collect();
        for (i, r) in runs.iter().take(MAX_KEPT).enumerate() {
            seen.put(r, i, 0);
        }
        // The first is used again, so the second is the one that makes room.
        assert_eq!(seen.get(&runs[0]), Some(0));
        seen.put(&runs[MAX_KEPT], MAX_KEPT, 0);
        assert_eq!(seen.len(), MAX_KEPT);
        assert_eq!(seen.get(&runs[1]), None);
        for i in [0, 2, MAX_KEPT] {
            assert_eq!(seen.get(&runs[i]), Some(i));
        }
        // By weight: one run heavy enough to need the room of all others but one.
        let heavy = run(1000, 4096);
        seen.put(&heavy, 1000, MAX_WEIGHT - 4096 - 2048);
        assert_eq!(seen.len(), 2);
        assert_eq!(seen.get(&runs[MAX_KEPT]), Some(MAX_KEPT));
        assert_eq!(seen.get(&heavy), Some(1000));
    }
}
