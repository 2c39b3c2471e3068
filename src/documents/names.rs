//! Names the API server would generate, made reproducible.

/// The characters of a generated name's suffix (Kubernetes' `SimpleNameGenerator`: no vowels,
/// no look-alike digits).
const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// `prefix` and five characters, as `metadata.generateName` gets from the API server; the API
/// server draws them at random, here they are drawn from `seed` (FNV-1a), so the same inputs
/// give the same name.
pub(crate) fn generated(prefix: &str, seed: &str) -> String {
    let mut h = fnv(seed);
    let mut out = String::with_capacity(prefix.len() + 5);
    out.push_str(prefix);
    for _ in 0..5 {
        let n = ALPHABET.len() as u64;
        let i = usize::try_from(h % n).unwrap_or(0);
        out.push(char::from(ALPHABET[i]));
        h /= n;
    }
    out
}

/// A uid in the API server's form (8-4-4-4-12 hexadecimal digits) drawn from `seed`.
pub(crate) fn uid(seed: &str) -> String {
    let a = fnv(seed);
    let b = fnv(&format!("{seed}#uid"));
    let hex = format!("{a:016x}{b:016x}");
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

fn fnv(seed: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in seed.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    #[test]
    fn five_characters_of_the_alphabet_from_the_seed() {
        let a = super::generated("db-", "team/db");
        assert_eq!(a.len(), 8);
        assert!(a.starts_with("db-"));
        assert!(a[3..].bytes().all(|b| super::ALPHABET.contains(&b)));
        assert_eq!(a, super::generated("db-", "team/db"));
        assert_ne!(a, super::generated("db-", "team/db2"));
    }
}
