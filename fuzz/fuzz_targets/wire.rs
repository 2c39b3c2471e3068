//! The function server's protobuf `Struct` (host/src/function/wire/) against prost's: any bytes
//! are accepted or refused by both, with the same error, and an accepted Struct is the same
//! JSON document (prost's read through the host's client conversion, host/src/function/
//! structs.rs). JSON, the fuzz input's own when it is JSON and the document just read,
//! written as a Struct's bytes is the Struct prost builds from that JSON.
#![no_main]

// The host's files themselves: the crate as a dependency would build wasmtime and the rest of
// the CLI under instrumentation for two modules that need only prost and serde.
#[allow(dead_code, unused_imports, unreachable_pub)]
#[path = "../../host/src/function/wire/mod.rs"]
mod wire;

#[allow(dead_code, unreachable_pub)]
#[path = "../../host/src/function/structs.rs"]
mod structs;

use prost::Message as _;
use serde_json::Value as Json;

/// JSON text read with no nesting limit: the Structs read here nest as deep as their bytes.
fn parse<'a, T: serde::Deserialize<'a>>(text: &'a [u8]) -> serde_json::Result<T> {
    let mut de = serde_json::Deserializer::from_slice(text);
    de.disable_recursion_limit();
    let v = T::deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

/// What the server writes for a held Struct, read back.
fn written(s: &wire::Struct) -> Result<Json, String> {
    let mut out = Vec::new();
    s.write_json(&mut out, &[]).map_err(|e| e.to_string())?;
    // A copy keeps the bytes only and writes its JSON again: the same text.
    let mut again = Vec::new();
    let _ = s.clone().write_json(&mut again, &[]);
    assert_eq!(out, again, "a copy writes other text");
    Ok(parse(&out).expect("the server's JSON reads back"))
}

/// `text` (the JSON of `doc`) written as Struct bytes by the server, read by prost.
fn encodes_as_prost(text: &[u8], doc: &Json) {
    let ours: wire::Struct = parse(text).expect("JSON serde_json read");
    let bytes = ours.encode_to_vec();
    let back = prost_types::Struct::decode(bytes.as_slice()).expect("prost reads the bytes");
    assert_eq!(back, structs::from_json(doc), "{doc}");
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let theirs = prost_types::Struct::decode(data)
        .map_err(|e| e.to_string())
        .and_then(|s| structs::to_json(&s));
    let ours = wire::Struct::decode(data)
        .map_err(|e| e.to_string())
        .and_then(|s| written(&s));
    assert_eq!(ours, theirs, "{data:?}");
    if let Ok(doc) = &theirs {
        encodes_as_prost(doc.to_string().as_bytes(), doc);
    }
    if let Ok(doc) = parse::<Json>(data) {
        encodes_as_prost(data, &doc);
    }
});
