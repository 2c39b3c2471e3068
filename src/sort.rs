//! A stable sort for the engine's cold paths that costs one copy of std's sort in the wasm
//! module instead of one per element type and comparator.
//!
//! `slice::sort_by` is monomorphised for each (element, closure) pair, and each copy of its
//! driftsort is 5 to 15 KB of wasm at `opt-level = 3`. Here only a permutation of indices is
//! sorted, through one comparator type, and the elements are then moved into place by swaps.
//! Hot paths (the JSON reader's objects) keep `slice::sort_by`.

use std::cmp::Ordering;

/// Sorts `items` stably by `cmp`: the same order as `items.sort_by(cmp)`.
pub(crate) fn sort_by<T>(items: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    if items.len() < 2 {
        return;
    }
    let mut order = {
        let items = &*items;
        sorted_indices(items.len(), &mut |a, b| cmp(&items[a], &items[b]))
    };
    permute(items, &mut order);
}

/// `0..n` stably sorted by `cmp` on indices: a bottom-up merge sort, a fraction of the size
/// of std's driftsort (nothing hot sorts through here), that only copies runs already in order.
fn sorted_indices(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut merged = order.clone();
    let mut width = 1;
    while width < n {
        for lo in (0..n).step_by(2 * width) {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            merge(&order[lo..hi], mid - lo, &mut merged[lo..hi], cmp);
        }
        std::mem::swap(&mut order, &mut merged);
        width *= 2;
    }
    order
}

/// Merges the sorted runs `run[..mid]` and `run[mid..]` into `out`, the left run first among
/// equals.
fn merge(
    run: &[usize],
    mid: usize,
    out: &mut [usize],
    cmp: &mut dyn FnMut(usize, usize) -> Ordering,
) {
    let (left, right) = run.split_at(mid);
    let in_order = match (left.last(), right.first()) {
        (Some(&l), Some(&r)) => cmp(r, l) != Ordering::Less,
        _ => true,
    };
    if in_order {
        out.copy_from_slice(run);
        return;
    }
    let (mut l, mut r) = (left.iter().peekable(), right.iter().peekable());
    for slot in out {
        let take_right = match (l.peek(), r.peek()) {
            (Some(&&a), Some(&&b)) => cmp(b, a) == Ordering::Less,
            (None, _) => true,
            (_, None) => false,
        };
        let next = if take_right { r.next() } else { l.next() };
        *slot = next.copied().unwrap_or_default();
    }
}

/// Rearranges `items` so that position `i` holds what was at `order[i]`, one cycle of the
/// permutation at a time; `order` is left as the identity.
fn permute<T>(items: &mut [T], order: &mut [usize]) {
    for start in 0..order.len() {
        let mut i = start;
        loop {
            let j = order[i];
            order[i] = i;
            if j == start || j == i {
                break;
            }
            items.swap(i, j);
            i = j;
        }
    }
}

/// For each string, whether an equal one comes before it: one stable sort of the
/// strings' positions, then a pass over equal neighbours. A set grown one string at a
/// time would be a B-tree (another copy of its code in the modules) or a sorted vector
/// (half of it moved per insert, quadratic in the number of names).
pub(crate) fn repeats(strings: &[&str]) -> Vec<bool> {
    let order = sorted_indices(strings.len(), &mut |a, b| strings[a].cmp(strings[b]));
    let mut repeated = vec![false; strings.len()];
    for pair in order.windows(2) {
        if let [a, b] = *pair
            && strings[a] == strings[b]
        {
            // Stable: among equal strings the earlier position sorts first.
            repeated[b] = true;
        }
    }
    repeated
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_std_stable_sort() {
        // Keys with many repeats, so stability shows; a payload tells equal keys apart.
        let mut seed = 7u32;
        for len in 0..200 {
            let mut v: Vec<(u32, usize)> = (0..len)
                .map(|i| {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    ((seed >> 16) % 9, i)
                })
                .collect();
            let mut want = v.clone();
            want.sort_by_key(|a| a.0);
            sort_by(&mut v, |a, b| a.0.cmp(&b.0));
            assert_eq!(v, want, "length {len}");
        }
    }

    #[test]
    fn repeats_are_the_strings_seen_before() {
        let strings = [
            "b", "a", "b", "c", "a", "a", "", "", "r10", "r1", "r2", "r1",
        ];
        let mut seen = std::collections::BTreeSet::new();
        let want: Vec<bool> = strings.iter().map(|s| !seen.insert(*s)).collect();
        assert_eq!(repeats(&strings), want);
        assert!(repeats(&[]).is_empty());
        assert_eq!(repeats(&["x"]), [false]);
    }

    #[test]
    fn permutes_by_cycles() {
        let mut v = vec!['a', 'b', 'c', 'd', 'e'];
        let mut order = vec![3, 0, 4, 1, 2];
        permute(&mut v, &mut order);
        assert_eq!(v, ['d', 'a', 'e', 'b', 'c']);
        assert_eq!(order, [0, 1, 2, 3, 4]);
    }
}
