//! Go's `base64.StdEncoding.EncodeToString`: the standard alphabet, padded.
//!
//! The base64 crate's encoder is 3 KB of the module for what is a small loop;
//! its decoder stays, for the texts of its errors.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `src` in standard base64 with `=` padding.
pub(crate) fn encode(src: impl AsRef<[u8]>) -> String {
    let src = src.as_ref();
    let mut out = String::with_capacity(src.len().div_ceil(3) * 4);
    for chunk in src.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use base64::Engine as _;

    #[test]
    fn encodes_as_the_base64_crate() {
        let mut x: u32 = 0x1234_5678;
        let mut bytes = Vec::new();
        for len in 0..300 {
            assert_eq!(
                super::encode(&bytes),
                base64::engine::general_purpose::STANDARD.encode(&bytes),
                "{len} bytes"
            );
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            bytes.push(x.to_le_bytes()[0]);
        }
        assert_eq!(super::encode("foobar"), "Zm9vYmFy");
        assert_eq!(super::encode("fooba"), "Zm9vYmE=");
    }
}
