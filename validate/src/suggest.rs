//! "Did you mean" suggestions for misspelt field names.

/// The candidate closest to `word` by edit distance, when it is close enough to be a typo:
/// at most a third of the word's length (and at least one edit) away.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .filter(|c| *c != word)
        .map(|c| (distance(&word.to_lowercase(), &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| (*d, *c))
        .map(|(_, c)| c)
}

/// Levenshtein distance with adjacent transpositions counted as one edit.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev2 = vec![0usize; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                cur[j] = cur[j].min(prev2[j - 2] + 1);
            }
        }
        prev2 = std::mem::replace(&mut prev, cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_find_their_field() {
        let fields = ["fromFieldPath", "toFieldPath", "transforms", "type"];
        assert_eq!(closest("fromFieldPth", fields), Some("fromFieldPath"));
        assert_eq!(closest("toFeildPath", fields), Some("toFieldPath"));
        assert_eq!(closest("regoin", ["region", "engine"]), Some("region"));
        assert_eq!(closest("zzzzzz", fields), None);
    }
}
