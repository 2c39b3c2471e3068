//! Whether a binary can run alone in an image with no libraries: a static 64-bit ELF executable.

use anyhow::{Result, bail};

/// `PT_INTERP`: the program header naming the dynamic loader.
const PT_INTERP: u32 = 3;

/// Succeeds for a 64-bit little-endian ELF executable without a dynamic loader.
pub(crate) fn check_static(bytes: &[u8]) -> Result<()> {
    if bytes.len() < 64 || &bytes[..4] != b"\x7fELF" {
        bail!("not an ELF executable");
    }
    if bytes[4] != 2 || bytes[5] != 1 {
        bail!("not a 64-bit little-endian ELF executable");
    }
    let u16_at = |o: usize| {
        bytes
            .get(o..o + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
    };
    let u64_at = |o: usize| {
        bytes
            .get(o..o + 8)
            .and_then(|b| b.try_into().ok())
            .map(u64::from_le_bytes)
    };
    let (Some(phoff), Some(phentsize), Some(phnum)) = (u64_at(0x20), u16_at(0x36), u16_at(0x38))
    else {
        bail!("truncated ELF header");
    };
    let phoff = usize::try_from(phoff)?;
    for i in 0..usize::from(phnum) {
        let at = phoff + i * usize::from(phentsize);
        let Some(t) = bytes.get(at..at + 4) else {
            bail!("truncated ELF program headers");
        };
        if u32::from_le_bytes([t[0], t[1], t[2], t[3]]) == PT_INTERP {
            bail!("it is dynamically linked (it names a dynamic loader)");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check_static;

    /// A minimal ELF64 header with the given program header types.
    pub(crate) fn elf(types: &[u32]) -> Vec<u8> {
        let mut b = vec![0u8; 64];
        b[..4].copy_from_slice(b"\x7fELF");
        b[4] = 2;
        b[5] = 1;
        b[0x20..0x28].copy_from_slice(&64u64.to_le_bytes());
        b[0x36..0x38].copy_from_slice(&56u16.to_le_bytes());
        b[0x38..0x3a].copy_from_slice(&u16::try_from(types.len()).unwrap().to_le_bytes());
        for t in types {
            let mut ph = vec![0u8; 56];
            ph[..4].copy_from_slice(&t.to_le_bytes());
            b.extend(ph);
        }
        b
    }

    #[test]
    fn static_dynamic_and_not_elf() {
        assert!(check_static(&elf(&[1, 1])).is_ok());
        assert_eq!(
            check_static(&elf(&[6, 3, 1])).unwrap_err().to_string(),
            "it is dynamically linked (it names a dynamic loader)"
        );
        assert_eq!(
            check_static(b"#!/bin/sh\necho hi\n")
                .unwrap_err()
                .to_string(),
            "not an ELF executable"
        );
    }
}
