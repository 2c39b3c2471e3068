//! Field paths: parsing never panics, the canonical form parses to the same segments, and
//! reading, writing, merging and deleting at any path on any object never panic.
#![no_main]

use xprender::testing::fieldpath as fp;

const OBJECT: &str = r#"{"a":{"b":[1,{"c":"d"}],"e.f":{"g":null}},"h":[[0]],"i":"s"}"#;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // `path` alone, or `path\nobject\nvalue`.
    let mut parts = text.splitn(3, '\n');
    let path = parts.next().unwrap_or("");
    let obj = parts
        .next()
        .filter(|o| fp::value(o).is_ok())
        .unwrap_or(OBJECT);
    let value = parts
        .next()
        .filter(|v| fp::value(v).is_ok())
        .unwrap_or("\"x\"");

    // The canonical form is Go's `Segments.String()`, which neither re-adds quotes nor
    // writes empty fields: `a."` (fields `a` and ``) prints as `a.`, which does not parse,
    // and `'[b.c]` (fields `` and `b.c`) as `[b.c]`, which parses as one field, both as in
    // Go. Paths whose fields are non-empty and free of quotes and brackets round-trip.
    if let Ok(segments) = fp::parse(path) {
        let canonical = fp::canonical(path).expect("a parsed path has a canonical form");
        let plain = segments.iter().all(|s| {
            s.strip_prefix("field:")
                .is_none_or(|f| !f.is_empty() && !f.contains(['\'', '"', '[', ']']))
        });
        if plain {
            assert_eq!(
                fp::parse(&canonical).as_ref(),
                Ok(&segments),
                "{path:?} -> {canonical:?}"
            );
        }
    }
    for sem in ["native", "function"] {
        let _ = fp::get(obj, path, sem);
        let _ = fp::get_typed(obj, path, "string", sem);
        let _ = fp::get_typed(obj, path, "integer", sem);
        let _ = fp::set(obj, path, value, sem);
        let _ = fp::merge(obj, path, value, Some((true, true)), sem);
        let _ = fp::expand(obj, path, sem);
    }
    let _ = fp::delete(obj, path);
});
