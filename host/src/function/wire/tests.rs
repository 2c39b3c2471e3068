//! The held Struct against prost: the same documents read and written, the same errors.

use prost::Message as _;
use prost_types::value::Kind as PKind;
use serde::Deserialize as _;
use serde_json::{Value as Json, json};

use super::super::{go_order, structs};
use super::escape::escaped_from;
use super::order::key_order;
use super::*;

/// A deterministic stream of numbers for random documents.
struct Rng(go_order::Rng);

impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        let n = usize::try_from(n).unwrap();
        self.0.below(n) as u64
    }

    fn text(&mut self) -> String {
        const PARTS: [&str; 13] = [
            "a", "spec", "é", "\"", "\\", "\n", "日本", "😀", "x.y", "0", "\u{1}", "\u{7f}", "\t\r",
        ];
        (0..self.next(4))
            .map(|_| PARTS[self.next(13) as usize])
            .collect()
    }

    fn value(&mut self, depth: u32) -> Json {
        match self.next(if depth == 0 { 5 } else { 7 }) {
            0 => Json::Null,
            1 => json!(self.next(2) == 1),
            2 => json!(self.text()),
            3 => {
                let numbers = [
                    0.0,
                    -0.0,
                    1.0,
                    -3.0,
                    2.5,
                    1e21,
                    9_007_199_254_740_993.0,
                    1e-7,
                    9.3e18,
                    -1e300,
                ];
                json!(numbers[self.next(10) as usize])
            }
            4 => json!(self.next(1 << 40) as i64 - (1 << 39)),
            5 => Json::Array((0..self.next(4)).map(|_| self.value(depth - 1)).collect()),
            _ => self.object(depth - 1),
        }
    }

    fn object(&mut self, depth: u32) -> Json {
        Json::Object(
            (0..self.next(5))
                .map(|_| (self.text(), self.value(depth)))
                .collect(),
        )
    }
}

fn ours_json(s: &Struct) -> Json {
    let mut out = Vec::new();
    s.write_json(&mut out, &[]).unwrap();
    serde_json::from_slice(&out).unwrap()
}

/// What a prost server made of the same bytes, and what this type makes of them.
fn both(bytes: &[u8]) -> (Result<Json, String>, Result<Json, String>) {
    let prost = prost_types::Struct::decode(bytes)
        .map_err(|e| e.to_string())
        .and_then(|s| structs::to_json(&s));
    let ours = Struct::decode(bytes)
        .map_err(|e| e.to_string())
        .and_then(|s| {
            let mut out = Vec::new();
            s.write_json(&mut out, &[]).map_err(|e| e.to_string())?;
            Ok(serde_json::from_slice(&out).unwrap())
        });
    (prost, ours)
}

#[test]
fn documents_read_and_written_as_prost_reads_and_writes_them() {
    let mut rng = Rng(go_order::Rng(7));
    for _ in 0..2000 {
        let doc = rng.object(4);
        let prost = structs::from_json(&doc);
        let bytes = prost.encode_to_vec();
        // Read: the JSON a prost server writes.
        let (theirs, ours) = both(&bytes);
        assert_eq!(ours, theirs, "{doc}");
        // A copy (which keeps only the bytes) writes the same text.
        let decoded = Struct::decode(bytes.as_slice()).unwrap();
        let (mut text, mut copied) = (Vec::new(), Vec::new());
        let _ = decoded.write_json(&mut text, &[]);
        let _ = decoded.clone().write_json(&mut copied, &[]);
        assert_eq!(text, copied);
        // Written: bytes prost reads back as the document.
        let written = Struct::deserialize(&doc).unwrap();
        assert_eq!(
            prost_types::Struct::decode(written.encode_to_vec().as_slice()).unwrap(),
            prost,
            "{doc}"
        );
        assert_eq!(ours_json(&written), theirs.unwrap());
        // Two messages given one after the other merge: entries of both, the later winning.
        let other = structs::from_json(&rng.object(3)).encode_to_vec();
        let merged = [bytes.as_slice(), &other].concat();
        let (theirs, ours) = both(&merged);
        assert_eq!(ours, theirs, "{doc}");
    }
}

#[test]
fn damaged_bytes_read_as_prost_reads_them() {
    // Valid documents, in Go's order, with a byte changed, dropped or added: whatever
    // prost makes of them (a document, or its error), this type makes the same.
    let mut rng = Rng(go_order::Rng(13));
    let mut go = go_order::Rng(17);
    let (mut taken, mut refused) = (0, 0);
    for _ in 0..6000 {
        let doc = rng.object(3);
        let mut bytes = go_order::go_struct(&structs::from_json(&doc), &mut go);
        if bytes.is_empty() {
            continue;
        }
        for _ in 0..=rng.next(2) {
            let at = rng.next(bytes.len() as u64) as usize;
            let byte = u8::try_from(rng.next(256)).unwrap();
            match rng.next(3) {
                0 => bytes[at] = byte,
                1 => drop(bytes.remove(at)),
                _ => bytes.insert(at, byte),
            }
        }
        let (theirs, ours) = both(&bytes);
        assert_eq!(ours, theirs, "{doc} {bytes:?}");
        match ours {
            Ok(_) => taken += 1,
            Err(_) => refused += 1,
        }
    }
    // Both outcomes are well represented.
    assert!(taken > 250 && refused > 250, "{taken} {refused}");
}

#[test]
fn the_same_content_in_any_order_is_the_same_text() {
    let mut rng = Rng(go_order::Rng(11));
    let mut go = go_order::Rng(5);
    for _ in 0..500 {
        let doc = rng.object(4);
        let prost = structs::from_json(&doc);
        let mut sorted = Vec::new();
        Struct::decode(prost.encode_to_vec().as_slice())
            .unwrap()
            .write_json(&mut sorted, &[("kind", "K")])
            .unwrap();
        for _ in 0..3 {
            let bytes = go_order::go_struct(&prost, &mut go);
            assert_eq!(
                prost_types::Struct::decode(bytes.as_slice()).unwrap(),
                prost
            );
            let mut text = Vec::new();
            Struct::decode(bytes.as_slice())
                .unwrap()
                .write_json(&mut text, &[("kind", "K")])
                .unwrap();
            assert_eq!(
                String::from_utf8(text).unwrap(),
                String::from_utf8(sorted.clone()).unwrap()
            );
        }
    }
    // Entries of one key keep their order, so the last still wins.
    let dup = [
        entry("b", &[value_bytes(PKind::BoolValue(true))]),
        entry("a", &[value_bytes(PKind::NumberValue(1.0))]),
        entry("b", &[value_bytes(PKind::StringValue("last".into()))]),
    ]
    .concat();
    let mut text = Vec::new();
    Struct::decode(dup.as_slice())
        .unwrap()
        .write_json(&mut text, &[])
        .unwrap();
    assert_eq!(text, br#"{"a":1,"b":true,"b":"last"}"#);
    let (theirs, ours) = both(&dup);
    assert_eq!(ours, theirs);
}

#[test]
fn bytes_to_escape_are_found_at_every_offset() {
    let naive = |s: &[u8], from: usize| {
        s[from..]
            .iter()
            .position(|&b| b < 0x20 || b == b'"' || b == b'\\')
            .map(|p| from + p)
    };
    let mut rng = Rng(go_order::Rng(3));
    let alphabet = b"ab\"\\\n\x00\x1f\x20\x7f\x80\xc3\xa9!~";
    for _ in 0..5000 {
        let len = rng.next(40) as usize;
        let s: Vec<u8> = (0..len)
            .map(|_| {
                if rng.next(4) == 0 {
                    alphabet[rng.next(alphabet.len() as u64) as usize]
                } else {
                    b'x'
                }
            })
            .collect();
        for from in 0..=len {
            assert_eq!(escaped_from(&s, from), naive(&s, from), "{s:?} {from}");
        }
    }
}

#[test]
fn keys_are_ordered_as_bytes_are() {
    let mut rng = Rng(go_order::Rng(19));
    let alphabet = b"aab\x00\x7f\x80\xff";
    let mut key = || -> Vec<u8> {
        (0..rng.next(20))
            .map(|_| alphabet[rng.next(alphabet.len() as u64) as usize])
            .collect()
    };
    for _ in 0..20_000 {
        let (a, b) = (key(), key());
        // Often one the other's prefix, or the same up to a late byte.
        let c: Vec<u8> = a.iter().chain(&b).copied().collect();
        for (x, y) in [(&a, &b), (&a, &c), (&c, &a), (&a, &a)] {
            assert_eq!(
                key_order(x, y),
                x.as_slice().cmp(y.as_slice()),
                "{x:?} {y:?}"
            );
        }
    }
}

#[test]
fn deep_documents_are_written_with_wide_lengths_prost_reads() {
    // Lengths over a byte at every level, past the levels where lengths are moved.
    let mut doc = json!("x".repeat(300));
    for i in 0..100 {
        doc = if i % 2 == 0 {
            json!({"next": doc, "pad": "p".repeat(i)})
        } else {
            json!([doc, i, null])
        };
    }
    let doc = json!({"top": doc});
    let written = Struct::deserialize(&doc).unwrap();
    let bytes = written.encode_to_vec();
    assert_eq!(
        prost_types::Struct::decode(bytes.as_slice()).unwrap(),
        structs::from_json(&doc)
    );
    assert_eq!(ours_json(&Struct::decode(bytes.as_slice()).unwrap()), doc);
    // Four bytes more per message past those levels: not a multiple of the size.
    let canonical = structs::from_json(&doc).encode_to_vec();
    assert!(
        bytes.len() < canonical.len() * 2,
        "{} {}",
        bytes.len(),
        canonical.len()
    );
}

fn value_bytes(kind: PKind) -> Vec<u8> {
    prost_types::Value { kind: Some(kind) }.encode_to_vec()
}

fn entry(key: &str, value_pieces: &[Vec<u8>]) -> Vec<u8> {
    let mut e = Vec::new();
    encode_key(1, WireType::LengthDelimited, &mut e);
    encode_varint(key.len() as u64, &mut e);
    e.extend_from_slice(key.as_bytes());
    for v in value_pieces {
        encode_key(2, WireType::LengthDelimited, &mut e);
        encode_varint(v.len() as u64, &mut e);
        e.extend_from_slice(v);
    }
    let mut out = Vec::new();
    encode_key(1, WireType::LengthDelimited, &mut out);
    encode_varint(e.len() as u64, &mut out);
    out.extend_from_slice(&e);
    out
}

#[test]
fn a_value_given_in_pieces_reads_as_prost_merges_it() {
    let kinds = || {
        vec![
            PKind::NullValue(0),
            PKind::NumberValue(2.5),
            PKind::NumberValue(f64::NAN),
            PKind::StringValue("s".into()),
            PKind::BoolValue(true),
            PKind::StructValue(structs::from_json(&json!({"a": 1, "b": {"c": [1]}}))),
            PKind::StructValue(structs::from_json(&json!({"b": {"d": 2}, "e": null}))),
            PKind::ListValue(prost_types::ListValue {
                values: vec![prost_types::Value {
                    kind: Some(PKind::BoolValue(false)),
                }],
            }),
            PKind::ListValue(prost_types::ListValue::default()),
        ]
    };
    for a in kinds() {
        for b in kinds() {
            for c in [None, Some(PKind::StringValue("last".into()))] {
                let mut pieces = vec![value_bytes(a.clone()), value_bytes(b.clone())];
                pieces.extend(c.map(value_bytes));
                // The same pieces as one value message and as repeated value fields.
                let joined = [entry("k", &[pieces.concat()]), entry("k", &pieces)];
                for bytes in joined {
                    let (theirs, ours) = both(&bytes);
                    assert_eq!(ours, theirs, "{a:?} {b:?}");
                }
            }
        }
    }
    // A value with no member is null; members of no known number are skipped.
    let (theirs, ours) = both(&entry("k", &[vec![], vec![0x48, 0x01]]));
    assert_eq!(ours, theirs);
    assert_eq!(ours.unwrap(), json!({"k": null}));
}

#[test]
fn faults_are_named_in_key_order_and_bad_bytes_fail_as_in_prost() {
    let nan = |path: &[&str]| {
        let mut v = prost_types::Value {
            kind: Some(PKind::NumberValue(f64::NAN)),
        };
        for k in path.iter().rev() {
            v = prost_types::Value {
                kind: Some(PKind::StructValue(prost_types::Struct {
                    fields: std::collections::BTreeMap::from([((*k).to_owned(), v)]),
                })),
            };
        }
        v
    };
    let mut s = structs::from_json(&json!({"b": [1, {"c": 2}], "a": {}}));
    s.fields.insert("z".into(), nan(&[]));
    s.fields.insert("b".into(), nan(&["y", "x"]));
    s.fields.insert("m".into(), nan(&["k"]));
    // Written in the reverse of key order: the fault named is still the first by key.
    let mut bytes = Vec::new();
    for (k, v) in s.fields.iter().rev() {
        let e = entry(k, &[v.encode_to_vec()]);
        bytes.extend_from_slice(&e);
    }
    let (theirs, ours) = both(&bytes);
    assert_eq!(ours, theirs);
    assert_eq!(
        ours.unwrap_err(),
        "b.y.x: invalid number NaN: JSON has no NaN or infinity"
    );
    let list = structs::from_json(&json!({"l": [1, 2]}));
    let mut l = list.clone();
    if let Some(PKind::ListValue(items)) = l.fields.get_mut("l").and_then(|v| v.kind.as_mut()) {
        items.values.push(nan(&["q"]));
    }
    let (theirs, ours) = both(&l.encode_to_vec());
    assert_eq!(ours, theirs);
    assert_eq!(
        ours.unwrap_err(),
        "l[2].q: invalid number NaN: JSON has no NaN or infinity"
    );
    // The empty key is a step of the path like any other: `.x` under the key "", `a..x` under
    // the key "" of `a` (a fuzzed input once named the first `x`).
    for (path, named) in [(&["", "x"][..], ".x"), (&["a", "", "x"][..], "a..x")] {
        let mut e = prost_types::Struct::default();
        e.fields.insert(path[0].to_owned(), nan(&path[1..]));
        let (theirs, ours) = both(&e.encode_to_vec());
        assert_eq!(ours, theirs);
        assert_eq!(
            ours.unwrap_err(),
            format!("{named}: invalid number NaN: JSON has no NaN or infinity")
        );
    }

    for bad in [
        entry("k\u{e9}", &[])
            .iter()
            .map(|&b| if b == 0xc3 { 0xff } else { b })
            .collect::<Vec<u8>>(),
        entry("k", &[vec![0x1a, 0x02, 0xff, 0xfe]]),
        entry("k", &[vec![0x11, 0x01]]),
        entry("k", &[vec![0x10, 0x01]]),
        entry("k", &[vec![0x2a, 0x05, 0x0a]]),
        vec![0x0a, 0x05, 0x0a],
        vec![0x08, 0x01],
        // Bad bytes in a member a later one replaces: prost read them all the same.
        entry("k", &[vec![0x1a, 0x02, 0xff, 0xfe, 0x08, 0x00]]),
        entry(
            "k",
            &[vec![
                0x2a, 0x05, 0x0a, 0x03, 0x0a, 0x01, 0xff, 0x1a, 0x01, b's',
            ]],
        ),
        entry("k", &[vec![0x32, 0x04, 0x0a, 0x02, 0x10, 0x01, 0x08, 0x00]]),
        // Deep in a list, in an object.
        entry(
            "k",
            &[vec![
                0x32, 0x09, 0x0a, 0x07, 0x2a, 0x05, 0x0a, 0x03, 0x0a, 0x01, 0xff,
            ]],
        ),
    ] {
        let (theirs, ours) = both(&bad);
        assert!(theirs.is_err(), "{bad:?}");
        assert_eq!(ours, theirs, "{bad:?}");
    }
    // Groups in an unknown field: prost skips them, and so does this type.
    let mut grouped = entry("k", &[value_bytes(PKind::BoolValue(true))]);
    grouped.splice(2..2, [0x1b, 0x08, 0x01, 0x1c]);
    let len = grouped.len() - 2;
    grouped[1] = u8::try_from(len).unwrap();
    let (theirs, ours) = both(&grouped);
    assert_eq!(ours, theirs);
    assert_eq!(ours.unwrap(), json!({"k": true}));
}

#[test]
fn a_member_is_replaced_and_read() {
    let ctx: Struct =
        serde_json::from_value(json!({"env": {"old": 1}, "other": [1, 2, 3]})).unwrap();
    let env: Struct = serde_json::from_value(json!({"new": {"x": true}})).unwrap();
    let ctx = ctx.with_member("env", &env);
    assert_eq!(
        ours_json(&ctx),
        json!({"env": {"new": {"x": true}}, "other": [1, 2, 3]})
    );
    let mut out = Vec::new();
    ctx.write_member_json("env", &mut out).unwrap().unwrap();
    assert_eq!(
        serde_json::from_slice::<Json>(&out).unwrap(),
        json!({"new": {"x": true}})
    );
    assert!(ctx.write_member_json("other", &mut out).is_none());
    assert!(ctx.write_member_json("none", &mut out).is_none());
    assert_eq!(ctx.list_len("other"), Some(3));
    assert_eq!(ctx.list_len("env"), None);
    // Anything but an object reads as an empty Struct.
    for v in [json!(null), json!([1, {"a": 2}]), json!("s"), json!(3)] {
        assert_eq!(
            serde_json::from_value::<Struct>(v).unwrap(),
            Struct::default()
        );
    }
    // Keys JSON must escape, and a key written with escapes.
    let s: Struct = serde_json::from_str(r#"{"a\"b\\c\u00e9": "\ud83d\ude00"}"#).unwrap();
    assert_eq!(ours_json(&s), json!({"a\"b\\cé": "😀"}));
}

#[test]
fn fixed_members_replace_the_given_ones() {
    let s: Struct =
        serde_json::from_value(json!({"apiVersion": "x/v1", "kind": "K", "resources": []}))
            .unwrap();
    let mut out = Vec::new();
    s.write_json(&mut out, &[("apiVersion", "a/v1"), ("kind", "R")])
        .unwrap();
    assert_eq!(
        std::str::from_utf8(&out).unwrap(),
        r#"{"apiVersion":"a/v1","kind":"R","resources":[]}"#
    );
}

#[test]
fn a_key_past_32_bits_is_refused_as_prost_refuses_it() {
    // An entry with an unknown field whose key takes 35 bits: prost refuses it, the entry's
    // error and not what follows.
    let long_key = [0x0a, 0x07, 0xa0, 0x97, 0xff, 0xff, 0x69, 0xff, 0x00];
    let (theirs, ours) = both(&long_key);
    assert!(theirs.is_err());
    assert_eq!(ours, theirs);
    let (theirs, ours) = both(&[long_key.as_slice(), &[0x00, 0x2b, 0x00, 0x00]].concat());
    assert_eq!(ours, theirs);
}

#[test]
fn an_overridden_entry_holds_no_fault() {
    // prost keeps a key's last entry: a NaN in an earlier one is not in the document, at the
    // top or further down.
    let nan = value_bytes(PKind::NumberValue(f64::NAN));
    let fine = value_bytes(PKind::StringValue("x".into()));
    let top = [
        entry("b", std::slice::from_ref(&nan)),
        entry("a", std::slice::from_ref(&fine)),
        entry("b", std::slice::from_ref(&fine)),
    ]
    .concat();
    let nested = entry("o", &[go_order::nested(5, &top)]);
    // The last entry's NaN is one.
    let last = [entry("b", &[fine]), entry("b", &[nan])].concat();
    for bytes in [top, nested, last] {
        let (theirs, ours) = both(&bytes);
        assert_eq!(ours, theirs);
    }
}
