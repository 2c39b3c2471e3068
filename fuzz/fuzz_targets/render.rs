//! Whole renders from structure-aware mutations of the golden fixtures: the fuzz input picks
//! a fixture request and a list of edits on its JSON tree (delete, replace with an
//! interesting scalar, duplicate, splice a subtree from another fixture, ...). Every
//! render must answer JSON that reads back (an Output or an error document), the same
//! bytes twice, and never panic.
#![no_main]

use std::sync::OnceLock;

use serde_json::Value as Json;

#[path = "../../tests/support/fixtures.rs"]
mod fixture_files;

/// Every fixture render's request: a case run under each semantics gives one per semantics.
fn fixtures() -> &'static [Json] {
    static FIXTURES: OnceLock<Vec<Json>> = OnceLock::new();
    FIXTURES.get_or_init(|| {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
        let out: Vec<Json> = fixture_files::renders(&root)
            .into_iter()
            .filter_map(|r| serde_json::from_str(&r.request).ok())
            .collect();
        assert!(!out.is_empty(), "no fixtures found");
        out
    })
}

const SCALARS: &[&str] = &[
    "null",
    "true",
    "false",
    "0",
    "-1",
    "1e308",
    "-0",
    "9223372036854775807",
    "1.5",
    "\"\"",
    "\"%v %s %d\"",
    "\"spec.a[0].b\"",
    "\"metadata.labels[crossplane.io/x]\"",
    "\"a.b[*].c\"",
    "\"Fatal\"",
    "\"Ready\"",
    "\"[\"",
    "\"\\u0000\"",
    "{}",
    "[]",
    "\"é\"",
    "\"FromCompositeFieldPath\"",
    "\"ToCompositeFieldPath\"",
    "\"CombineFromComposite\"",
    "\"string\"",
    "\"math\"",
    "\"map\"",
    "\"match\"",
    "\"convert\"",
    "\"Optional\"",
    "\"Required\"",
    "\"MatchString\"",
];

/// JSON pointers of every node of `v`, in preorder.
fn pointers(v: &Json) -> Vec<String> {
    fn go(v: &Json, at: &str, out: &mut Vec<String>) {
        out.push(at.to_owned());
        match v {
            Json::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    go(x, &format!("{at}/{i}"), out);
                }
            }
            Json::Object(m) => {
                for (k, x) in m {
                    go(
                        x,
                        &format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                        out,
                    );
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    go(v, "", &mut out);
    out
}

fn mutate(doc: &mut Json, ops: &[u8]) {
    let fixtures = fixtures();
    for op in ops.chunks_exact(4) {
        let all = pointers(doc);
        let at = &all[usize::from(u16::from_le_bytes([op[1], op[2]])) % all.len()];
        let arg = usize::from(op[3]);
        let node = doc.pointer_mut(at).expect("a pointer of the document");
        match op[0] % 8 {
            0 => *node = Json::Null,
            1 => *node = serde_json::from_str(SCALARS[arg % SCALARS.len()]).unwrap(),
            2 => match node {
                Json::Array(a) if !a.is_empty() => {
                    let x = a[arg % a.len()].clone();
                    a.push(x);
                }
                Json::Object(m) if !m.is_empty() => {
                    let k = m.keys().nth(arg % m.len()).unwrap().clone();
                    m.remove(&k);
                }
                _ => {}
            },
            3 => {
                let other = &fixtures[arg % fixtures.len()];
                let theirs = pointers(other);
                let pick = &theirs[usize::from(op[1]) * 7 % theirs.len()];
                *node = other.pointer(pick).cloned().unwrap_or_default();
            }
            4 => *node = Json::Array(vec![node.take()]),
            5 => {
                if let Json::Object(m) = node {
                    m.insert(
                        SCALARS[arg % SCALARS.len()].trim_matches('"').to_owned(),
                        Json::from(arg),
                    );
                }
            }
            6 => {
                if let Json::String(s) = node {
                    let mut at = s.len() / 2;
                    while !s.is_char_boundary(at) {
                        at -= 1;
                    }
                    s.insert(at, char::from(op[3] % 0x60 + 0x20));
                }
            }
            _ => {
                if let Json::Number(_) = node {
                    *node = Json::from(i64::from(op[3] as i8) * 1_000_003);
                }
            }
        }
    }
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&pick, ops)) = data.split_first() else {
        return;
    };
    let fixtures = fixtures();
    let mut doc = fixtures[usize::from(pick) % fixtures.len()].clone();
    mutate(&mut doc, &ops[..ops.len().min(64)]);
    let request = doc.to_string();
    // The second render reads the Composition the engine kept from the first.
    let mut engine = xprender::Engine::new();
    let a = engine.render_json(&request);
    let b = engine.render_json(&request);
    assert_eq!(a, b, "not deterministic");
    let v = xprender::Value::from_json(&a).expect("the answer is JSON");
    assert!(
        v.get("error").is_some() || v.get("composite").is_some() || v.get("resources").is_some(),
        "neither an Output nor an error document: {a}"
    );
});
