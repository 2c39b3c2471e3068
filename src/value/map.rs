//! JSON object members in one sorted vector.
//!
//! Kubernetes objects are many small maps that are read, cloned and dropped far
//! more often than they grow. A sorted vector holds each in one allocation (a
//! B-tree spends a whole node on two keys), clones and drops it in one pass,
//! and iterates in Go's key order for free; lookups are binary searches.

use std::fmt;
use std::iter::FusedIterator;
use std::slice;
use std::vec;

use super::Value;

/// The members of a JSON object, sorted by key as Go's `encoding/json` writes them.
#[derive(Clone, Default, PartialEq)]
pub struct Map {
    entries: Vec<(String, Value)>,
}

impl Map {
    /// An empty map.
    #[must_use]
    pub const fn new() -> Map {
        Map {
            entries: Vec::new(),
        }
    }

    /// The number of members.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the map has no members.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The index of `key`, or where it would be inserted.
    #[inline(always)]
    fn find(&self, key: &str) -> Result<usize, usize> {
        // A hand-written binary search: the module is built for size, which
        // would leave the comparison closure of `binary_search_by` a call.
        let key = key.as_bytes();
        let (mut lo, mut hi) = (0, self.entries.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match crate::bytes::order_of(self.entries[mid].0.as_bytes(), key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Ok(mid),
            }
        }
        Err(lo)
    }

    /// The value of `key`.
    ///
    /// One call for every reader: inlined into each of them, the search cost
    /// the module tens of kilobytes and saved no instructions.
    #[must_use]
    #[inline(never)]
    pub fn get(&self, key: &str) -> Option<&Value> {
        // A small object is scanned: most of its keys differ from `key` in
        // length, which rejects them without a byte compare (the bytes are
        // compared only for keys of its length), where a binary search
        // compares bytes at every step.
        if self.entries.len() <= 8 {
            let key = key.as_bytes();
            let found = self
                .entries
                .iter()
                .find(|(k, _)| crate::bytes::same(k.as_bytes(), key));
            return found.map(|(_, v)| v);
        }
        self.find(key).ok().map(|i| &self.entries[i].1)
    }

    /// The value of `key`, mutably.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        match self.find(key) {
            Ok(i) => Some(&mut self.entries[i].1),
            Err(_) => None,
        }
    }

    /// Whether `key` is a member.
    #[must_use]
    pub fn contains_key(&self, key: &str) -> bool {
        self.find(key).is_ok()
    }

    /// Sets `key` to `value`, returning the value it replaces.
    pub fn insert(&mut self, key: String, value: Value) -> Option<Value> {
        match self.find(&key) {
            Ok(i) => Some(std::mem::replace(&mut self.entries[i].1, value)),
            Err(i) => {
                self.entries.insert(i, (key, value));
                None
            }
        }
    }

    /// Sets `key` to `value`; the key is copied only when it is new.
    pub(crate) fn set(&mut self, key: &str, value: Value) {
        match self.find(key) {
            Ok(i) => self.entries[i].1 = value,
            Err(i) => self.entries.insert(i, (key.to_owned(), value)),
        }
    }

    /// The value of `key`, inserting `make()` first if missing; the key is
    /// copied only when it is new.
    pub(crate) fn get_or_insert_with(
        &mut self,
        key: &str,
        make: impl FnOnce() -> Value,
    ) -> &mut Value {
        let i = match self.find(key) {
            Ok(i) => i,
            Err(i) => {
                self.entries.insert(i, (key.to_owned(), make()));
                i
            }
        };
        &mut self.entries[i].1
    }

    /// Removes `key`, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        self.find(key).ok().map(|i| self.entries.remove(i).1)
    }

    /// The slot of `key`, to read or fill in place.
    pub fn entry(&mut self, key: String) -> Entry<'_> {
        match self.find(&key) {
            Ok(index) => Entry::Occupied(OccupiedEntry { map: self, index }),
            Err(index) => Entry::Vacant(VacantEntry {
                map: self,
                index,
                key,
            }),
        }
    }

    /// Keeps only the members for which `keep` is true.
    pub fn retain(&mut self, mut keep: impl FnMut(&String, &mut Value) -> bool) {
        self.entries.retain_mut(|(k, v)| keep(k, v));
    }

    /// The members in key order.
    pub fn iter(&self) -> Iter<'_> {
        Iter(self.entries.iter())
    }

    /// The members in key order, values mutable.
    pub fn iter_mut(&mut self) -> IterMut<'_> {
        IterMut(self.entries.iter_mut())
    }

    /// The keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &String> + ExactSizeIterator {
        self.entries.iter().map(|(k, _)| k)
    }

    /// The values in key order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator {
        self.entries.iter().map(|(_, v)| v)
    }

    /// The values in key order, mutable.
    pub fn values_mut(
        &mut self,
    ) -> impl DoubleEndedIterator<Item = &mut Value> + ExactSizeIterator {
        self.entries.iter_mut().map(|(_, v)| v)
    }

    /// A map of `entries` already in strictly increasing key order.
    pub(crate) fn from_sorted(entries: Vec<(String, Value)>) -> Map {
        debug_assert!(entries.windows(2).all(|w| w[0].0 < w[1].0));
        Map { entries }
    }

    /// A map of `entries` in any order; of repeated keys the last one wins, as in
    /// Go's `json.Unmarshal`.
    pub(crate) fn from_unsorted(mut entries: Vec<(String, Value)>) -> Map {
        // Most objects arrive sorted (Go and kubectl write them so): one pass
        // of comparisons that mostly end at the first byte, without a call.
        if entries.windows(2).all(|w| key_less(&w[0].0, &w[1].0)) {
            return Map { entries };
        }
        // Stable, so repeated keys stay in document order; of each run of
        // repeats the last is kept, in place (`dedup_by` keeps the earlier
        // slot, so the later member is swapped into it first).
        // The browser build, generated for download size, uses the engine's one shared
        // sort rather than a copy of std's for this element type.
        let order = |a: &(String, Value), b: &(String, Value)| {
            crate::bytes::order_of(a.0.as_bytes(), b.0.as_bytes())
        };
        if cfg!(feature = "web") {
            crate::sort::sort_by(&mut entries, order);
        } else {
            entries.sort_by(order);
        }
        entries.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                std::mem::swap(later, kept);
            }
            same
        });
        Map { entries }
    }
}

/// `a < b` bytewise, as `str`'s order, with the first bytes compared inline.
#[inline(always)]
fn key_less(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    match (a.first(), b.first()) {
        (Some(x), Some(y)) if x != y => x < y,
        _ => crate::bytes::order_of(a, b).is_lt(),
    }
}

/// A slot of a [`Map`], from [`Map::entry`].
pub enum Entry<'m> {
    /// The key is a member.
    Occupied(OccupiedEntry<'m>),
    /// The key is not a member.
    Vacant(VacantEntry<'m>),
}

/// A member found by [`Map::entry`].
pub struct OccupiedEntry<'m> {
    map: &'m mut Map,
    index: usize,
}

/// A missing key's place, from [`Map::entry`].
pub struct VacantEntry<'m> {
    map: &'m mut Map,
    index: usize,
    key: String,
}

impl<'m> Entry<'m> {
    /// The member's value, inserting `value` first if missing.
    pub fn or_insert(self, value: Value) -> &'m mut Value {
        self.or_insert_with(|| value)
    }

    /// The member's value, inserting `make()` first if missing.
    pub fn or_insert_with(self, make: impl FnOnce() -> Value) -> &'m mut Value {
        match self {
            Entry::Occupied(e) => &mut e.map.entries[e.index].1,
            Entry::Vacant(e) => {
                e.map.entries.insert(e.index, (e.key, make()));
                &mut e.map.entries[e.index].1
            }
        }
    }

    /// The member's value, inserting `null` first if missing.
    pub fn or_default(self) -> &'m mut Value {
        self.or_insert_with(Value::default)
    }
}

impl fmt::Debug for Map {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl FromIterator<(String, Value)> for Map {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Map {
        Map::from_unsorted(iter.into_iter().collect())
    }
}

impl Extend<(String, Value)> for Map {
    fn extend<I: IntoIterator<Item = (String, Value)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

/// Borrowing iterator over a [`Map`]'s members in key order.
#[derive(Clone)]
pub struct Iter<'m>(slice::Iter<'m, (String, Value)>);

impl<'m> Iterator for Iter<'m> {
    type Item = (&'m String, &'m Value);

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (k, v))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(k, v)| (k, v))
    }
}

impl ExactSizeIterator for Iter<'_> {}
impl FusedIterator for Iter<'_> {}

/// Iterator over a [`Map`]'s members in key order, values mutable.
pub struct IterMut<'m>(slice::IterMut<'m, (String, Value)>);

impl<'m> Iterator for IterMut<'m> {
    type Item = (&'m String, &'m mut Value);

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (&*k, v))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl ExactSizeIterator for IterMut<'_> {}
impl FusedIterator for IterMut<'_> {}

/// Owning iterator over a [`Map`]'s members in key order.
pub struct IntoIter(vec::IntoIter<(String, Value)>);

impl Iterator for IntoIter {
    type Item = (String, Value);

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for IntoIter {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back()
    }
}

impl ExactSizeIterator for IntoIter {}
impl FusedIterator for IntoIter {}

impl IntoIterator for Map {
    type Item = (String, Value);
    type IntoIter = IntoIter;

    fn into_iter(self) -> IntoIter {
        IntoIter(self.entries.into_iter())
    }
}

impl<'m> IntoIterator for &'m Map {
    type Item = (&'m String, &'m Value);
    type IntoIter = Iter<'m>;

    fn into_iter(self) -> Iter<'m> {
        self.iter()
    }
}

impl<'m> IntoIterator for &'m mut Map {
    type Item = (&'m String, &'m mut Value);
    type IntoIter = IterMut<'m>;

    fn into_iter(self) -> IterMut<'m> {
        self.iter_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(m: &Map) -> Vec<&str> {
        m.keys().map(String::as_str).collect()
    }

    #[test]
    fn members_stay_sorted_whatever_the_insertion_order() {
        let mut m = Map::new();
        for k in ["b", "a", "c", "aa"] {
            assert_eq!(m.insert(k.to_owned(), Value::Int(1)), None);
        }
        assert_eq!(m.insert("a".to_owned(), Value::Int(2)), Some(Value::Int(1)));
        assert_eq!(keys(&m), ["a", "aa", "b", "c"]);
        assert_eq!(m.get("a"), Some(&Value::Int(2)));
        assert_eq!(m.remove("aa"), Some(Value::Int(1)));
        assert_eq!(m.remove("zz"), None);
        *m.entry("0".to_owned()).or_default() = Value::Bool(true);
        *m.entry("b".to_owned()).or_insert(Value::Null) = Value::Int(7);
        assert_eq!(keys(&m), ["0", "a", "b", "c"]);
        assert_eq!(m.get("b"), Some(&Value::Int(7)));
        m.retain(|k, _| k != "c");
        assert_eq!(keys(&m), ["0", "a", "b"]);
    }

    #[test]
    fn repeated_keys_keep_the_last_value() {
        let m: Map = [("b", 1), ("a", 2), ("b", 3), ("a", 4), ("c", 5)]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), Value::Int(v)))
            .collect();
        let got: Vec<_> = m.into_iter().collect();
        assert_eq!(
            got,
            [("a", 4), ("b", 3), ("c", 5)].map(|(k, v)| (k.to_owned(), Value::Int(v)))
        );
        // Runs of three repeats, sorted input with a repeat, and keys that
        // share or lack a first byte.
        let m: Map = [("b", 1), ("", 2), ("b", 3), ("ab", 4), ("b", 5), ("a", 6)]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), Value::Int(v)))
            .collect();
        let got: Vec<_> = m.into_iter().collect();
        assert_eq!(
            got,
            [("", 2), ("a", 6), ("ab", 4), ("b", 5)].map(|(k, v)| (k.to_owned(), Value::Int(v)))
        );
        let m: Map = [("a", 1), ("a", 2), ("b", 3)]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), Value::Int(v)))
            .collect();
        assert_eq!(keys(&m), ["a", "b"]);
        assert_eq!(m.get("a"), Some(&Value::Int(2)));
        for (a, b) in [("", "a"), ("a", "ab"), ("ab", "b"), ("é", "z"), ("a", "a")] {
            assert_eq!(key_less(a, b), a < b, "{a:?} {b:?}");
            assert_eq!(key_less(b, a), b < a, "{b:?} {a:?}");
        }
    }
}
