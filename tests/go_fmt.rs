//! Differential test: the engine's Go `fmt`, `json.Marshal` and `strconv` emulation against Go itself.
//!
//! Builds `tests/go/fmt` with `$GO` (set by `scripts/lib.sh`'s `need_go`), sends it every
//! case, and prints every disagreement. Cases: `tests/data/fmt.json` (whose expectations
//! must also be Go's), a grid of verbs × flags × widths × precisions × operands, random
//! floats, quoted code points, random format strings, JSON texts and shortest 'f' floats.

// The test runs Go and reads its data files; the I/O ban is for the engine.
#![allow(clippy::disallowed_methods, clippy::print_stdout)]

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use xprender::Value;
use xprender::testing::fmt as engine;

/// One Sprintf case: format, typed operands (as sent to Go) and decoded operands.
struct Case {
    origin: String,
    format: String,
    typed: Vec<Value>,
    args: Vec<Value>,
    want: Option<String>,
}

/// A small deterministic generator (xorshift64*), so runs are reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % (n as u64)).unwrap()
    }
}

fn obj(pairs: &[(&str, Value)]) -> Value {
    Value::Object(
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect(),
    )
}

fn t_nil() -> Value {
    obj(&[("t", "nil".into())])
}
fn t_bool(b: bool) -> Value {
    obj(&[("t", "bool".into()), ("v", b.into())])
}
fn t_str(s: &str) -> Value {
    obj(&[("t", "string".into()), ("v", s.into())])
}
fn t_int(i: i64) -> Value {
    obj(&[("t", "int64".into()), ("v", i.to_string().into())])
}
fn t_float(f: f64) -> Value {
    let text = if f.is_nan() {
        "NaN".to_owned()
    } else if f.is_infinite() {
        if f > 0.0 { "+Inf" } else { "-Inf" }.to_owned()
    } else {
        // Rust's `{:e}` round-trips exactly and Go parses it.
        format!("{f:e}")
    };
    obj(&[("t", "float64".into()), ("v", text.into())])
}
fn t_map(pairs: &[(&str, Value)]) -> Value {
    obj(&[("t", "map".into()), ("v", obj(pairs))])
}
fn t_slice(items: Vec<Value>) -> Value {
    obj(&[("t", "slice".into()), ("v", Value::Array(items))])
}

fn case(origin: &str, format: &str, typed: Vec<Value>, want: Option<String>) -> Case {
    let args = typed
        .iter()
        .map(|t| engine::typed(t).unwrap_or_else(|e| panic!("{origin}: {e}")))
        .collect();
    Case {
        origin: origin.to_owned(),
        format: format.to_owned(),
        typed,
        args,
        want,
    }
}

fn data(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Value::from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The curated cases of `tests/data/fmt.json` that have an expected output.
fn data_cases(out: &mut Vec<Case>) {
    let cases = data("fmt.json");
    for (i, c) in cases
        .as_array()
        .expect("fmt.json is an array")
        .iter()
        .enumerate()
    {
        if c.get("error").is_some() {
            continue; // Limit errors: Go has no limit.
        }
        let format = c.get("format").and_then(Value::as_str).expect("format");
        let typed = c
            .get("args")
            .and_then(Value::as_array)
            .unwrap_or_default()
            .to_vec();
        let want = c.get("want").and_then(Value::as_str).map(str::to_owned);
        out.push(case(&format!("fmt.json #{i}"), format, typed, want));
    }
}

fn scalar_operands() -> Vec<Value> {
    vec![
        t_nil(),
        t_bool(true),
        t_bool(false),
        t_str(""),
        t_str("héllo"),
        t_str("a\"b\n\\c\u{1}"),
        t_str("日本語 ☺ \u{2028}\u{1F600}"),
        t_str("tab\tback`quote"),
        t_int(0),
        t_int(42),
        t_int(-7),
        t_int(65),
        t_int(0x1F600),
        t_int(i64::MIN),
        t_int(i64::MAX),
        t_int(0xD800),
        t_int(0x7f),
        t_float(0.0),
        t_float(-0.0),
        t_float(2.5),
        t_float(-1.005),
        t_float(42.0),
        t_float(1e6),
        t_float(123_456_789.0),
        t_float(1e-7),
        t_float(0.000_1),
        t_float(1e21),
        t_float(1e20),
        t_float(0.1),
        t_float(-3.125_59),
        t_float(5e-324),
        t_float(f64::MAX),
        t_float(2_067_776_186_925_270.2),
        t_float(f64::NAN),
        t_float(f64::INFINITY),
        t_float(f64::NEG_INFINITY),
    ]
}

fn container_operands() -> Vec<Value> {
    vec![
        t_map(&[
            ("b", t_slice(vec![t_str("x"), t_str("y")])),
            ("a", t_int(1)),
            ("c", t_bool(true)),
            ("d", t_map(&[("z", t_nil())])),
            ("e", t_float(1e6)),
        ]),
        t_map(&[]),
        t_slice(vec![]),
        t_slice(vec![
            t_str("a"),
            t_int(-1),
            t_nil(),
            t_bool(false),
            t_float(1.5),
            t_slice(vec![t_nil()]),
        ]),
        t_slice(vec![t_nil()]),
    ]
}

/// Verbs × flags/width/precision × operands.
fn grid_cases(out: &mut Vec<Case>) {
    let verbs = "vsdfFeEgGtqxXoObcUTzw!";
    let specs = [
        "", "5", "-5", "05", "-05", "+", " ", "#", "+#", "# ", ".0", ".2", "8.3", "-8.3", "+08.3",
        "010.4", "# 12", ".10",
    ];
    let mut operands = scalar_operands();
    operands.extend(container_operands());
    for spec in specs {
        for verb in verbs.chars() {
            for op in &operands {
                out.push(case(
                    "grid",
                    &format!("%{spec}{verb}"),
                    vec![op.clone()],
                    None,
                ));
            }
        }
    }
    // %p only for scalars: Go prints the address of maps and slices.
    for op in scalar_operands() {
        out.push(case("grid", "%p|%5p", vec![op.clone(), op], None));
    }
}

/// Random floats (bit patterns and decimal-ish values) under the float verbs.
fn float_cases(out: &mut Vec<Case>) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let formats = [
        "%v", "%e", "%.3e", "%g", "%.5g", "%.17g", "%f", "%.10f", "%.0f", "%x", "%.3X", "%b",
        "%#g", "%#.3x", "%+.1e",
    ];
    let all = formats.join("|");
    for i in 0..600 {
        let f = match i % 4 {
            0 => f64::from_bits(rng.next()),
            3 => {
                // Large values with few fractional bits: shortest digits often tie.
                #[allow(clippy::cast_precision_loss)]
                let n = (rng.next() >> 9) as f64;
                n / f64::from(1u32 << rng.below(6))
            }
            1 => {
                let mant = i64::try_from(rng.next() % 2_000_001).unwrap() - 1_000_000;
                let exp = i32::try_from(rng.below(40)).unwrap() - 20;
                #[allow(clippy::cast_precision_loss)]
                let m = mant as f64;
                m * 10f64.powi(exp)
            }
            _ => {
                // Ties and near-ties at a few digits.
                #[allow(clippy::cast_precision_loss)]
                let n = (rng.next() % 100_000) as f64;
                n / 8.0
            }
        };
        out.push(case("float", &all, vec![t_float(f); formats.len()], None));
    }
}

/// `%q` / `%+q` / `%#q` / `%c` / `%U` over a spread of code points.
fn quote_cases(out: &mut Vec<Case>) {
    let mut points: Vec<u32> = (0..0x300).collect();
    points.extend((0x300..0x3_0000).step_by(97));
    // Not U+10FF80 to U+10FFFF: the engine carries bytes that are not UTF-8 as those
    // (`go::bytestr`); the code point just below them stands in for the top of Unicode.
    points.extend([
        0x2028, 0x2029, 0xFEFF, 0xFFFD, 0xFFFE, 0xFFFF, 0xE000, 0x1_0000, 0x1F600, 0xE_0001,
        0x10_FF7F, 0xAD, 0x600,
    ]);
    for chunk in points.chunks(16) {
        let s: String = chunk.iter().filter_map(|&p| char::from_u32(p)).collect();
        out.push(case("quote", "%q|%+q|%#q|%x", vec![t_str(&s); 4], None));
    }
    for &p in points.iter().step_by(7) {
        let i = i64::from(p);
        out.push(case("quote", "%c|%q|%+q|%U|%#U", vec![t_int(i); 5], None));
    }
}

/// Random format strings with random operands: parsing edge cases.
fn random_format_cases(out: &mut Vec<Case>) {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let alphabet: Vec<char> = "%%%%-+# 0123456789.*[]vdsxqTfgeEbcoU!é ".chars().collect();
    let operands = {
        let mut o = scalar_operands();
        o.extend(container_operands());
        o.retain(|v| {
            // No NaN/-0 surprises needed here; keep the operand list short.
            v.get("t").and_then(Value::as_str) != Some("float64") || rng.below(2) == 0
        });
        o
    };
    for _ in 0..1500 {
        let len = 1 + rng.below(12);
        let format: String = (0..len)
            .map(|_| alphabet[rng.below(alphabet.len())])
            .collect();
        if format.contains('p') {
            continue;
        }
        let n = rng.below(4);
        let args = (0..n)
            .map(|_| operands[rng.below(operands.len())].clone())
            .collect();
        out.push(case("random", &format, args, None));
    }
}

fn json_values() -> Vec<Value> {
    let mut v = vec![
        t_nil(),
        t_bool(true),
        t_str("a<b>&c\"d\\e\n\r\t\u{1}\u{1f}\u{7f}\u{2028}\u{2029}é\u{1F600}"),
        t_str(""),
        t_int(-42),
        t_int(i64::MIN),
        t_map(&[
            ("z", t_int(1)),
            ("a", t_map(&[("<", t_slice(vec![t_float(1.5), t_nil()]))])),
            ("é", t_str("x")),
        ]),
        t_slice(vec![]),
        t_map(&[]),
    ];
    let floats = [
        0.0,
        -0.0,
        1.0,
        1e-6,
        9.999_999e-7,
        1e-7,
        1e20,
        1e21,
        9.99e20,
        123_456_789.123,
        1e100,
        5e-324,
        f64::MAX,
        0.1,
        -2.5e-8,
        2_067_776_186_925_270.2,
        199_336_259_030_200.12,
        1.5e300,
        2.5e-300,
    ];
    v.extend(floats.iter().map(|&f| t_float(f)));
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    for _ in 0..300 {
        let f = f64::from_bits(rng.next());
        if f.is_finite() {
            v.push(t_float(f));
        }
    }
    v
}

fn ffloat_values() -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        1.0,
        1e21,
        1e22,
        1e-7,
        5e-324,
        f64::MAX,
        0.1,
        123.456,
        -1e100,
        2.5,
        2_067_776_186_925_270.2,
        199_336_259_030_200.12,
    ];
    let mut rng = Rng(0x0F0F_1234_ABCD_0001);
    for i in 0..600 {
        #[allow(clippy::cast_precision_loss)]
        let f = if i % 2 == 0 {
            f64::from_bits(rng.next())
        } else {
            (rng.next() >> 9) as f64 / 4.0
        };
        if f.is_finite() {
            v.push(f);
        }
    }
    v
}

fn go_text(f: f64) -> String {
    let Value::Object(m) = t_float(f) else {
        unreachable!()
    };
    m.get("v").and_then(Value::as_str).unwrap().to_owned()
}

fn build_oracle() -> PathBuf {
    let go = std::env::var("GO").unwrap_or_else(|_| {
        panic!("GO is not set: run scripts/test, or `source scripts/lib.sh && need_go` first")
    });
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/go/fmt");
    let bin = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fmtoracle");
    let status = Command::new(&go)
        .args(["build", "-o"])
        .arg(&bin)
        .arg(".")
        .current_dir(&dir)
        .env("GOTOOLCHAIN", "local")
        .env("GOPROXY", "off")
        .env("GOFLAGS", "-mod=mod")
        .status()
        .unwrap_or_else(|e| panic!("running {go}: {e}"));
    assert!(status.success(), "go build of {} failed", dir.display());
    bin
}

#[test]
#[ignore = "needs Go; scripts/test runs it"]
fn engine_matches_go() {
    let mut cases = Vec::new();
    data_cases(&mut cases);
    let curated = cases.len();
    grid_cases(&mut cases);
    float_cases(&mut cases);
    quote_cases(&mut cases);
    random_format_cases(&mut cases);
    let mut json = json_values();
    let mut ffloat = ffloat_values();
    // The expectations of tests/data/fmt_json.json must be Go's too.
    let mut json_wants = vec![None; json.len()];
    let mut ffloat_wants = vec![None; ffloat.len()];
    let extra = data("fmt_json.json");
    for c in extra
        .get("json")
        .and_then(Value::as_array)
        .expect("json cases")
    {
        json.push(c.get("value").expect("value").clone());
        json_wants.push(c.get("want").and_then(Value::as_str).map(str::to_owned));
    }
    for c in extra
        .get("format_float_f")
        .and_then(Value::as_array)
        .expect("float cases")
    {
        let text = c.get("float").and_then(Value::as_str).expect("float");
        let Ok(Value::Float(f)) =
            engine::typed(&obj(&[("t", "float64".into()), ("v", text.into())]))
        else {
            panic!("{text} is not a float");
        };
        ffloat.push(f);
        ffloat_wants.push(c.get("want").and_then(Value::as_str).map(str::to_owned));
    }

    let request = obj(&[
        (
            "fmt",
            Value::Array(
                cases
                    .iter()
                    .map(|c| {
                        obj(&[
                            ("format", c.format.as_str().into()),
                            ("args", Value::Array(c.typed.clone())),
                        ])
                    })
                    .collect(),
            ),
        ),
        ("json", Value::Array(json.clone())),
        (
            "ffloat",
            Value::Array(ffloat.iter().map(|&f| go_text(f).into()).collect()),
        ),
    ]);

    let oracle = build_oracle();
    let mut child = Command::new(&oracle)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("running the oracle");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(request.to_json().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "oracle failed");
    let answer =
        Value::from_json(std::str::from_utf8(&output.stdout).unwrap()).expect("oracle output");
    let strings = |key: &str| -> Vec<String> {
        answer
            .get(key)
            .and_then(Value::as_array)
            .unwrap_or_else(|| panic!("oracle output lacks {key}"))
            .iter()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect()
    };

    let mut report = String::new();
    let mut failures = 0;

    let go_fmt = strings("fmt");
    assert_eq!(go_fmt.len(), cases.len());
    for (c, go) in cases.iter().zip(&go_fmt) {
        let ours = engine::sprintf(&c.format, &c.args);
        let ours_text = match &ours {
            Ok(s) => s.clone(),
            Err(e) => format!("<error {}: {e}>", e.kind()),
        };
        if &ours_text != go {
            failures += 1;
            let args: Vec<String> = c.typed.iter().map(Value::to_json).collect();
            let _ = writeln!(
                report,
                "[{}] Sprintf({:?}, {})\n    go:     {go:?}\n    engine: {ours_text:?}",
                c.origin,
                c.format,
                args.join(", ")
            );
        }
        if let Some(want) = &c.want
            && want != go
        {
            failures += 1;
            let _ = writeln!(
                report,
                "[{}] {:?}: expectation {want:?} is not Go's {go:?}",
                c.origin, c.format
            );
        }
    }

    for ((t, go), want) in json.iter().zip(strings("json")).zip(&json_wants) {
        let ours = engine::typed(t).unwrap().to_json();
        if ours != go || want.as_ref().is_some_and(|w| *w != go) {
            failures += 1;
            let _ = writeln!(
                report,
                "[json] {}\n    go:     {go}\n    engine: {ours}\n    data:   {want:?}",
                t.to_json()
            );
        }
    }

    for ((f, go), want) in ffloat.iter().zip(strings("ffloat")).zip(&ffloat_wants) {
        let ours = engine::format_float_f(*f);
        if ours != go || want.as_ref().is_some_and(|w| *w != go) {
            failures += 1;
            let _ = writeln!(
                report,
                "[ffloat] {f:e}\n    go:     {go}\n    engine: {ours}\n    data:   {want:?}"
            );
        }
    }

    // strconv.IsPrint over every code point.
    let ranges: Vec<(u32, u32)> = answer
        .get("printable")
        .and_then(Value::as_array)
        .expect("printable ranges")
        .iter()
        .map(|r| match r.as_array() {
            Some([Value::Int(lo), Value::Int(hi)]) => {
                (u32::try_from(*lo).unwrap(), u32::try_from(*hi).unwrap())
            }
            _ => panic!("bad range {}", r.to_json()),
        })
        .collect();
    let mut go_print = vec![false; 0x11_0000];
    for (lo, hi) in ranges {
        for p in lo..=hi {
            go_print[p as usize] = true;
        }
    }
    let mut print_mismatches = 0;
    for (p, &go) in go_print.iter().enumerate() {
        if let Some(c) = char::from_u32(u32::try_from(p).unwrap())
            && engine::is_print(c) != go
        {
            print_mismatches += 1;
            if print_mismatches <= 20 {
                let _ = writeln!(report, "[isprint] U+{p:04X}: go {go}, engine {}", !go);
            }
        }
    }
    failures += print_mismatches;

    println!(
        "{} Sprintf cases ({curated} curated), {} JSON texts, {} 'f' floats, all code points for IsPrint",
        cases.len(),
        json.len(),
        ffloat.len()
    );
    assert!(failures == 0, "{failures} disagreements with Go:\n{report}");
}
