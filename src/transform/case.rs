//! Go's `strings.ToUpper`/`ToLower`: per-rune simple case mapping (`unicode.ToUpper`).
//!
//! The mappings are tables of runs rather than std's `char::to_uppercase`, whose
//! full-mapping tables are 24 KB of the module. They were generated from std's
//! mappings (Rust 1.95, Unicode 16) with the simple-mapping corrections below, and the
//! test `tables_are_std_simple_mappings` checks every code point against them.

/// `strings.ToUpper`.
pub(crate) fn to_upper(s: &str) -> String {
    s.chars().map(upper_char).collect()
}

/// `strings.ToLower`.
pub(crate) fn to_lower(s: &str) -> String {
    s.chars().map(lower_char).collect()
}

/// `unicode.ToUpper`.
pub(crate) fn upper_char(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_uppercase();
    }
    map(&UPPER, c)
}

/// `unicode.ToLower`.
pub(crate) fn lower_char(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_lowercase();
    }
    map(&LOWER, c)
}

/// `c` through a table of runs: the run starting at or before `c` maps `c` by its delta
/// when `c` is one of its code points.
fn map(table: &[(u32, i32)], c: char) -> char {
    let cp = u32::from(c);
    let i = table.partition_point(|&(key, _)| key >> 8 <= cp);
    let Some(&(key, delta)) = i.checked_sub(1).and_then(|i| table.get(i)) else {
        return c;
    };
    let (lo, count, stride) = (key >> 8, (key >> 1) & 0x7F, 1 + (key & 1));
    let off = cp - lo;
    if off > count * stride || off % stride != 0 {
        return c;
    }
    cp.checked_add_signed(delta)
        .and_then(char::from_u32)
        .unwrap_or(c)
}

// One run per entry: `(lo << 8 | count << 1 | every_other, delta)` maps the code points
// lo, lo + step, ..., lo + count * step (step 2 when every_other) to themselves plus delta.
#[rustfmt::skip]
static UPPER: [(u32, i32); 203] = [
    (0xB500, 743), (0xE02C, -32), (0xF80C, -32), (0xFF00, 121), (0x1012F, -1), (0x13100, -232),
    (0x13305, -1), (0x13A0F, -1), (0x14B2D, -1), (0x17A05, -1), (0x17F00, -300), (0x18000, 195),
    (0x18303, -1), (0x18800, -1), (0x18C00, -1), (0x19200, -1), (0x19500, 97), (0x19900, -1),
    (0x19A00, 163), (0x19B00, 42561), (0x19E00, 130), (0x1A105, -1), (0x1A800, -1), (0x1AD00, -1),
    (0x1B000, -1), (0x1B403, -1), (0x1B900, -1), (0x1BD00, -1), (0x1BF00, 56), (0x1C500, -1),
    (0x1C600, -2), (0x1C800, -1), (0x1C900, -2), (0x1CB00, -1), (0x1CC00, -2), (0x1CE0F, -1),
    (0x1DD00, -79), (0x1DF11, -1), (0x1F200, -1), (0x1F300, -2), (0x1F500, -1), (0x1F927, -1),
    (0x22311, -1), (0x23C00, -1), (0x23F02, 10815), (0x24200, -1), (0x24709, -1), (0x25000, 10783),
    (0x25100, 10780), (0x25200, 10782), (0x25300, -210), (0x25400, -206), (0x25602, -205),
    (0x25900, -202), (0x25B00, -203), (0x25C00, 42319), (0x26000, -205), (0x26100, 42315),
    (0x26300, -207), (0x26400, 42343), (0x26500, 42280), (0x26600, 42308), (0x26800, -209),
    (0x26900, -211), (0x26A00, 42308), (0x26B00, 10743), (0x26C00, 42305), (0x26F00, -211),
    (0x27100, 10749), (0x27200, -213), (0x27500, -214), (0x27D00, 10727), (0x28000, -218),
    (0x28200, 42307), (0x28300, -218), (0x28700, 42282), (0x28800, -218), (0x28900, -69),
    (0x28A02, -217), (0x28C00, -71), (0x29200, -219), (0x29D00, 42261), (0x29E00, 42258),
    (0x34500, 84), (0x37103, -1), (0x37700, -1), (0x37B04, 130), (0x3AC00, -38), (0x3AD04, -37),
    (0x3B120, -32), (0x3C200, -31), (0x3C310, -32), (0x3CC00, -64), (0x3CD02, -63), (0x3D000, -62),
    (0x3D100, -57), (0x3D500, -47), (0x3D600, -54), (0x3D700, -8), (0x3D917, -1), (0x3F000, -86),
    (0x3F100, -80), (0x3F200, 7), (0x3F300, -116), (0x3F500, -96), (0x3F800, -1), (0x3FB00, -1),
    (0x4303E, -32), (0x4501E, -80), (0x46121, -1), (0x48B35, -1), (0x4C20D, -1), (0x4CF00, -15),
    (0x4D15F, -1), (0x5614A, -48), (0x10D054, 3008), (0x10FD04, 3008), (0x13F80A, -8),
    (0x1C8000, -6254), (0x1C8100, -6253), (0x1C8200, -6244), (0x1C8302, -6242), (0x1C8500, -6243),
    (0x1C8600, -6236), (0x1C8700, -6181), (0x1C8800, 35266), (0x1C8A00, -1), (0x1D7900, 35332),
    (0x1D7D00, 3814), (0x1D8E00, 35384), (0x1E0195, -1), (0x1E9B00, -59), (0x1EA15F, -1),
    (0x1F000E, 8), (0x1F100A, 8), (0x1F200E, 8), (0x1F300E, 8), (0x1F400A, 8), (0x1F5107, 8),
    (0x1F600E, 8), (0x1F7002, 74), (0x1F7206, 86), (0x1F7602, 100), (0x1F7802, 128),
    (0x1F7A02, 112), (0x1F7C02, 126), (0x1F800E, 8), (0x1F900E, 8), (0x1FA00E, 8), (0x1FB002, 8),
    (0x1FB300, 9), (0x1FBE00, -7205), (0x1FC300, 9), (0x1FD002, 8), (0x1FE002, 8), (0x1FE500, 7),
    (0x1FF300, 9), (0x214E00, -28), (0x21701E, -16), (0x218400, -1), (0x24D032, -26),
    (0x2C305E, -48), (0x2C6100, -1), (0x2C6500, -10795), (0x2C6600, -10792), (0x2C6805, -1),
    (0x2C7300, -1), (0x2C7600, -1), (0x2C8163, -1), (0x2CEC03, -1), (0x2CF300, -1),
    (0x2D004A, -7264), (0x2D2700, -7264), (0x2D2D00, -7264), (0xA6412D, -1), (0xA6811B, -1),
    (0xA7230D, -1), (0xA7333D, -1), (0xA77A03, -1), (0xA77F09, -1), (0xA78C00, -1), (0xA79103, -1),
    (0xA79400, 48), (0xA79713, -1), (0xA7B50F, -1), (0xA7C803, -1), (0xA7CD0F, -1), (0xA7F600, -1),
    (0xAB5300, -928), (0xAB709E, -38864), (0xFF4132, -32), (0x104284E, -40), (0x104D846, -40),
    (0x1059714, -39), (0x105A31C, -39), (0x105B30C, -39), (0x105BB02, -39), (0x10CC064, -64),
    (0x10D702A, -32), (0x118C03E, -32), (0x16E603E, -32), (0x16EBB30, -27), (0x1E92242, -34),
];
#[rustfmt::skip]
static LOWER: [(u32, i32); 185] = [
    (0xC02C, 32), (0xD80C, 32), (0x1002F, 1), (0x13000, -199), (0x13205, 1), (0x1390F, 1),
    (0x14A2D, 1), (0x17800, -121), (0x17905, 1), (0x18100, 210), (0x18203, 1), (0x18600, 206),
    (0x18700, 1), (0x18902, 205), (0x18B00, 1), (0x18E00, 79), (0x18F00, 202), (0x19000, 203),
    (0x19100, 1), (0x19300, 205), (0x19400, 207), (0x19600, 211), (0x19700, 209), (0x19800, 1),
    (0x19C00, 211), (0x19D00, 213), (0x19F00, 214), (0x1A005, 1), (0x1A600, 218), (0x1A700, 1),
    (0x1A900, 218), (0x1AC00, 1), (0x1AE00, 218), (0x1AF00, 1), (0x1B102, 217), (0x1B303, 1),
    (0x1B700, 219), (0x1B800, 1), (0x1BC00, 1), (0x1C400, 2), (0x1C500, 1), (0x1C700, 2),
    (0x1C800, 1), (0x1CA00, 2), (0x1CB11, 1), (0x1DE11, 1), (0x1F100, 2), (0x1F203, 1),
    (0x1F600, -97), (0x1F700, -56), (0x1F827, 1), (0x22000, -130), (0x22211, 1), (0x23A00, 10795),
    (0x23B00, 1), (0x23D00, -163), (0x23E00, 10792), (0x24100, 1), (0x24300, -195), (0x24400, 69),
    (0x24500, 71), (0x24609, 1), (0x37003, 1), (0x37600, 1), (0x37F00, 116), (0x38600, 38),
    (0x38804, 37), (0x38C00, 64), (0x38E02, 63), (0x39120, 32), (0x3A310, 32), (0x3CF00, 8),
    (0x3D817, 1), (0x3F400, -60), (0x3F700, 1), (0x3F900, -7), (0x3FA00, 1), (0x3FD04, -130),
    (0x4001E, 80), (0x4103E, 32), (0x46021, 1), (0x48A35, 1), (0x4C000, 15), (0x4C10D, 1),
    (0x4D05F, 1), (0x5314A, 48), (0x10A04A, 7264), (0x10C700, 7264), (0x10CD00, 7264),
    (0x13A09E, 38864), (0x13F00A, 8), (0x1C8900, 1), (0x1C9054, -3008), (0x1CBD04, -3008),
    (0x1E0095, 1), (0x1E9E00, -7615), (0x1EA05F, 1), (0x1F080E, -8), (0x1F180A, -8), (0x1F280E, -8),
    (0x1F380E, -8), (0x1F480A, -8), (0x1F5907, -8), (0x1F680E, -8), (0x1F880E, -8), (0x1F980E, -8),
    (0x1FA80E, -8), (0x1FB802, -8), (0x1FBA02, -74), (0x1FBC00, -9), (0x1FC806, -86),
    (0x1FCC00, -9), (0x1FD802, -8), (0x1FDA02, -100), (0x1FE802, -8), (0x1FEA02, -112),
    (0x1FEC00, -7), (0x1FF802, -128), (0x1FFA02, -126), (0x1FFC00, -9), (0x212600, -7517),
    (0x212A00, -8383), (0x212B00, -8262), (0x213200, 28), (0x21601E, 16), (0x218300, 1),
    (0x24B632, 26), (0x2C005E, 48), (0x2C6000, 1), (0x2C6200, -10743), (0x2C6300, -3814),
    (0x2C6400, -10727), (0x2C6705, 1), (0x2C6D00, -10780), (0x2C6E00, -10749), (0x2C6F00, -10783),
    (0x2C7000, -10782), (0x2C7200, 1), (0x2C7500, 1), (0x2C7E02, -10815), (0x2C8063, 1),
    (0x2CEB03, 1), (0x2CF200, 1), (0xA6402D, 1), (0xA6801B, 1), (0xA7220D, 1), (0xA7323D, 1),
    (0xA77903, 1), (0xA77D00, -35332), (0xA77E09, 1), (0xA78B00, 1), (0xA78D00, -42280),
    (0xA79003, 1), (0xA79613, 1), (0xA7AA00, -42308), (0xA7AB00, -42319), (0xA7AC00, -42315),
    (0xA7AD00, -42305), (0xA7AE00, -42308), (0xA7B000, -42258), (0xA7B100, -42282),
    (0xA7B200, -42261), (0xA7B300, 928), (0xA7B40F, 1), (0xA7C400, -48), (0xA7C500, -42307),
    (0xA7C600, -35384), (0xA7C703, 1), (0xA7CB00, -42343), (0xA7CC0F, 1), (0xA7DC00, -42561),
    (0xA7F500, 1), (0xFF2132, 32), (0x104004E, 40), (0x104B046, 40), (0x1057014, 39),
    (0x1057C1C, 39), (0x1058C0C, 39), (0x1059402, 39), (0x10C8064, 64), (0x10D502A, 32),
    (0x118A03E, 32), (0x16E403E, 32), (0x16EA030, 27), (0x1E90042, 34),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_mappings() {
        assert_eq!(to_upper("straße ǅ ᾳ ﬀ"), "STRAßE Ǆ ᾼ ﬀ");
        assert_eq!(to_lower("İSTANBUL ΣΑΣ ǅ K"), "istanbul σασ ǆ k");
    }

    /// `unicode.ToUpper` from std: the full mapping where it is one rune (then it is
    /// the simple mapping); otherwise the simple mapping of UnicodeData.txt.
    fn std_upper(c: char) -> char {
        let mut it = c.to_uppercase();
        if let (Some(u), None) = (it.next(), it.next()) {
            return u;
        }
        let cp = u32::from(c);
        let simple = match cp {
            // Greek with ypogegrammeni: the simple uppercase is the titlecase form.
            0x1F80..=0x1F87 | 0x1F90..=0x1F97 | 0x1FA0..=0x1FA7 => cp + 8,
            0x1FB3 => 0x1FBC,
            0x1FC3 => 0x1FCC,
            0x1FF3 => 0x1FFC,
            // ß, ŉ, ǰ, ΐ, ΰ, և, ẖ…ẚ, ligatures and the rest: no simple mapping.
            _ => cp,
        };
        char::from_u32(simple).unwrap_or(c)
    }

    /// `unicode.ToLower` from std.
    fn std_lower(c: char) -> char {
        let mut it = c.to_lowercase();
        if let (Some(l), None) = (it.next(), it.next()) {
            return l;
        }
        // Only U+0130 (İ) lowercases to more than one rune; its simple mapping is `i`.
        if c == '\u{130}' { 'i' } else { c }
    }

    /// The table of `f`'s runs over the non-ASCII code points, as Rust source.
    fn generate(name: &str, f: fn(char) -> char) -> String {
        let mut runs: Vec<(u32, u32, i64, u32)> = Vec::new(); // lo, hi, delta, step
        for c in (0x80..=0x10_FFFF).filter_map(char::from_u32) {
            let (cp, m) = (u32::from(c), u32::from(f(c)));
            if m == cp {
                continue;
            }
            let delta = i64::from(m) - i64::from(cp);
            if let Some(r) = runs.last_mut()
                && r.2 == delta
                && r.1 - r.0 < 127 * r.3
            {
                let gap = cp - r.1;
                if r.0 == r.1 && (gap == 1 || gap == 2) {
                    (r.1, r.3) = (cp, gap);
                    continue;
                }
                if r.0 != r.1 && gap == r.3 {
                    r.1 = cp;
                    continue;
                }
            }
            runs.push((cp, cp, delta, 1));
        }
        let mut out = format!(
            "#[rustfmt::skip]\nstatic {name}: [(u32, i32); {}] = [\n",
            runs.len()
        );
        let mut line = String::from("   ");
        for (lo, hi, delta, step) in runs {
            let key = lo << 8 | ((hi - lo) / step) << 1 | u32::from(step == 2);
            let item = format!(" (0x{key:X}, {delta}),");
            if line.len() + item.len() > 100 {
                out.push_str(&line);
                out.push('\n');
                line = String::from("   ");
            }
            line.push_str(&item);
        }
        out.push_str(&line);
        out.push_str("\n];\n");
        out
    }

    #[test]
    fn tables_are_std_simple_mappings() {
        for c in (0..=0x10_FFFF).filter_map(char::from_u32) {
            assert_eq!(
                upper_char(c),
                std_upper(c),
                "ToUpper U+{:04X}",
                u32::from(c)
            );
            assert_eq!(
                lower_char(c),
                std_lower(c),
                "ToLower U+{:04X}",
                u32::from(c)
            );
        }
        // The tables as this module writes them (regenerate by pasting on a change).
        let source = include_str!("case.rs");
        for (name, f) in [
            ("UPPER", std_upper as fn(char) -> char),
            ("LOWER", std_lower),
        ] {
            let table = generate(name, f);
            assert!(source.contains(&table), "{table}");
        }
    }
}
