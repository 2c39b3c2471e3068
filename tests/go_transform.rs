//! Differential test: Go's standard library (the oracle program in
//! `tests/go/transform/`) against the engine, for every Go-backed part of the
//! transforms: strconv, regexp, base64, hashes of JSON, case mapping, strings,
//! encoding/json errors, and the JSON round trip of a field-path write; and
//! the regexp Unicode tables against what `tests/go/unicode` generates.
//!
//! Needs `$GO` (scripts/lib.sh `need_go` sets it); `scripts/test` runs it.
//! Crossplane v1.14 and function-patch-and-transform v0.10 were built with Go
//! releases whose `encoding/json` is the original implementation, so the
//! oracle runs with `GOEXPERIMENT=nojsonv2` (newer Go releases word some JSON
//! errors differently).

// The test drives the Go toolchain: it reads the environment and starts processes.
#![allow(clippy::disallowed_methods)]

use serde_json::{Value as Json, json};
use std::io::Write as _;
use std::process::{Command, Stdio};
use xprender::testing::transform as t;
use xprender::{Semantics, Value};

fn cases() -> Vec<Json> {
    let mut c = Vec::new();
    let ints = [
        "0",
        "42",
        "-42",
        "+7",
        "007",
        "-0",
        "9223372036854775807",
        "-9223372036854775808",
        "9223372036854775808",
        "-9223372036854775809",
        "99999999999999999999x",
        "4.2",
        "1e3",
        "",
        "+",
        "-",
        " 1",
        "1 ",
        "1_000",
        "0x1F",
        "0b1",
        "١",
        "12a",
        "--1",
    ];
    for a in ints {
        c.push(json!({"op": "parse_int", "a": a}));
    }
    let bools = [
        "1", "t", "T", "TRUE", "true", "True", "0", "f", "F", "FALSE", "false", "False", "yes",
        "tRuE", "", "on", " true",
    ];
    for a in bools {
        c.push(json!({"op": "parse_bool", "a": a}));
    }
    let floats = [
        "0",
        "-0",
        "2.5",
        "2.50",
        ".5",
        "5.",
        "1e3",
        "1E-3",
        "+1.5",
        "1e308",
        "1.7976931348623157e308",
        "1.7976931348623159e308",
        "1e400",
        "-1e400",
        "4.9e-324",
        "1e-400",
        "0.1",
        "123456789012345678901234567890",
        "0x1p-2",
        "0X1P+3",
        "0x1.8p1",
        "-0x1.fffffffffffffp1023",
        "-0.0",
        "-0e0",
        "-0x0p0",
        "-1e-400",
        "0x1p1024",
        "0x1.00000000000008p0",
        "0x1.000000000000081p0",
        "0x.01p0",
        "0x_1p0",
        "0x1",
        "0x",
        "0xp1",
        "1_000.5",
        "1__0",
        "_1",
        "1_",
        "1e1_0",
        "inf",
        "+Inf",
        "-inf",
        "INFINITY",
        "-Infinity",
        "infin",
        "nan",
        "NaN",
        "+nan",
        "-nan",
        "1,5",
        "",
        ".",
        "e5",
        "1e",
        "1e+",
        " 1",
        "1 ",
        "1.2.3",
        "0.000001",
        "1e21",
        "9007199254740993",
        "2.2250738585072011e-308",
        "0.30000000000000004",
        "1d",
        "١",
    ];
    for a in floats {
        c.push(json!({"op": "parse_float", "a": a}));
    }
    let fmts = [
        "0",
        "-0",
        "2.5",
        "1e21",
        "1e-7",
        "123456789.123",
        "1e300",
        "5e-324",
        "0.1",
        "100",
        "3000000",
        "1.7976931348623157e308",
        "-1.5e-10",
        "0.30000000000000004",
        "-0.0",
        "-1e-400",
    ];
    for a in fmts {
        c.push(json!({"op": "format_float", "a": a}));
    }
    // Field-path writes: whole floats come back as the integer Go's shortest
    // JSON digits spell, when that fits int64.
    let writes: [f64; 18] = [
        3.0,
        -0.0,
        0.5,
        1e-7,
        1e20,
        1e21,
        1_152_921_504_606_846_976.0,
        -9_223_372_036_854_775_808.0,
        9_223_372_036_854_775_808.0,
        9_223_372_036_854_774_784.0,
        -9_223_372_036_854_774_784.0,
        4_611_686_018_427_387_904.0,
        9_007_199_254_740_993.0,
        9_007_199_254_740_995.0,
        123_456_789_012_345_680_000.0,
        1.234_567_890_123_456_7e18,
        -1.5e18,
        999_999_999_999_999_900_000.0,
    ];
    for f in writes {
        c.push(json!({"op": "write_round_trip", "a": format!("{:x}", f.to_bits())}));
    }
    // How each decoder types a number literal: the sign of zero is where they part.
    let numbers = [
        "-0",
        "0",
        "-0.0",
        "-0e0",
        "-0E+0",
        "-0e-5",
        "0.0",
        "-1",
        "-0.5",
        "1e2",
        "-1e-400",
        "-9223372036854775808",
        "-9223372036854775809",
        "9223372036854775807",
    ];
    for a in numbers {
        c.push(json!({"op": "kubernetes_number", "a": a}));
        c.push(json!({"op": "struct_number", "a": a}));
    }
    let regexps: &[(&str, &[&str])] = &[
        (
            r"arn:aws:iam::(\d+):.*",
            &["arn:aws:iam::123456789012:role/x", "arn:aws:iam::x:"],
        ),
        (r"x(y)?", &["x", "xy"]),
        (r"(a)|(b)", &["b", "c"]),
        (r"a|ab", &["ab"]),
        (r"(a+?)(b*)", &["aaabbb"]),
        (r"\d+", &["a٣123", "٣"]),
        (r"\w+", &["éa_1b"]),
        (r"\s", &["\u{b}", "\t", "\u{a0}"]),
        (r"\S+", &["\u{b}x"]),
        (r"[[:space:]]", &["\u{b}"]),
        (r"[[:^alpha:]]+", &["ab12cd"]),
        (r"[[:word:]]+", &["a_1-"]),
        (r"[[:foo:]]", &["a"]),
        (r"\bfoo\b", &["a foo b", "éfooé", "afoo"]),
        (r"\Bo\B", &["foo"]),
        (r"\Qa.b\E", &["a.b", "axb"]),
        (r"\Qa.b", &["a.b"]),
        (r"x\Q\E*", &["xxx"]),
        (r"\101\x42\x{43}", &["ABC"]),
        (r"\0", &["\0"]),
        (r"\8", &["8"]),
        (r"\1", &["1"]),
        (r"\x{110000}", &["a"]),
        (r"\x4", &["a"]),
        (r"\xZZ", &["a"]),
        (r"[a&&b]+", &["a&&b"]),
        (r"[a-c--b]+", &["a-c"]),
        (r"[[a]]", &["[a]"]),
        (r"[]a]+", &["]a]"]),
        (r"[^]a]+", &["bc]"]),
        (r"[a-]+", &["a-"]),
        (r"[\d-z]+", &["1-z"]),
        (r"[z-a]", &["a"]),
        (r"[a", &["a"]),
        (r"[\w\s]+", &["a b"]),
        (r"[^\n]+", &["a\nb"]),
        (r"(?i)k", &["K", "\u{212a}"]),
        (r"(?i)straße", &["STRASSE", "STRAẞE"]),
        (r"(?i)[k]", &["\u{212a}"]),
        (r"(?i)σ", &["Σ", "ς"]),
        (r"(?i)İ", &["i", "I", "İ", "ı"]),
        (r"(?i)ı", &["i", "I", "ı"]),
        (r"(?i)[a-z]+", &["ABC\u{212a}ſ"]),
        (r"(?i)\w+", &["\u{212a}ſ"]),
        (r"(?i)[^k]", &["\u{212a}K"]),
        (r"(?i)ǅ", &["Ǆ", "ǆ"]),
        (r"(?i)µ", &["Μ", "μ"]),
        (r"(?i)ß", &["ẞ"]),
        (r"(?i)(?-i:a)A", &["aA", "AA"]),
        (r"(?i:a)b", &["Ab", "AB"]),
        (r"(?i)a(?-i)b", &["AB", "Ab"]),
        (r"(?s).", &["\n"]),
        (r".", &["\n"]),
        (r"(?m)^b$", &["a\nb\nc"]),
        (r"^b$", &["a\nb"]),
        (r"(?U)a+", &["aaa"]),
        (r"(?U)a+?", &["aaa"]),
        (r"(?x) a", &["a"]),
        (r"(?i-)a", &["a"]),
        (r"(?)a", &["a"]),
        (r"(?", &["a"]),
        (r"(?=a)", &["a"]),
        (r"(?!a)", &["a"]),
        (r"(?<=a)b", &["ab"]),
        (r"(?P<name>a)(?P<name>b)", &["ab"]),
        (r"(?<name>a)", &["a"]),
        (r"(?P<>a)", &["a"]),
        (r"(?P<n-1>a)", &["a"]),
        (r"(?P<name", &["a"]),
        (r"(?P=name)", &["a"]),
        (r"a**", &["a"]),
        (r"a*?*", &["a"]),
        (r"a++", &["a"]),
        (r"a{2}{3}", &["a"]),
        (r"a*+", &["a"]),
        (r"*a", &["a"]),
        (r"(*)", &["a"]),
        (r"a|*", &["a"]),
        (r"^*a", &["a"]),
        (r"a{1001}", &["a"]),
        (r"a{1000}", &["b"]),
        (r"a{2,1}", &["a"]),
        (r"a{,2}", &["a{,2}"]),
        (r"a{02}", &["a{02}"]),
        (r"a{2", &["a{2"]),
        (r"{2}", &["a"]),
        (r"x{2}{", &["xx{"]),
        (r"(a{500}){3}", &["a"]),
        (r"(a{10}){100}", &["b"]),
        (r"((a{10}){10}){11}", &["b"]),
        (r"(a{2}|b{600}){2}", &["b"]),
        (r"a{0}{2000}", &["a"]),
        (r"(a", &["a"]),
        (r"a)", &["a"]),
        (r"a\", &["a"]),
        (r"\Z", &["a"]),
        (r"\C", &["a"]),
        (r"\z", &["a"]),
        (r"\Aa", &["ba", "ab"]),
        (r"a\z", &["ab", "ba"]),
        (r"\e", &["a"]),
        (r"\_\-\ \!", &["_- !"]),
        (r"\é", &["é"]),
        (r"\pL", &["a", "1", "é", "中"]),
        (r"\pL+", &["12abc34"]),
        (r"\p{Greek}", &["α"]),
        (r"\p{Greek}+", &["abγδεf"]),
        (r"\PL+", &["ab12;c"]),
        (r"\P{Greek}+", &["αβabc"]),
        (r"\p{^Greek}+", &["αβabc"]),
        (r"\P{^Greek}+", &["abαβc"]),
        (r"[\p{Lu}]", &["A", "a"]),
        (r"[\p{Lu}]+", &["abCDÉe"]),
        (r"[^\p{Lu}]+", &["ABcdE"]),
        (r"[\P{Lu}]+", &["ABcdE"]),
        (r"[^\P{L}]+", &["12ab3"]),
        (r"[\p{Greek}\d]+", &["xαβ12y"]),
        (r"[\p{^Greek}]+", &["αβab"]),
        (r"[\pL\pN]{2,5}", &["!!ab٣4Ⅻxyz"]),
        (r"[\pL-z]+", &["a-z"]),
        (r"[a-\pL]", &["a"]),
        (r"\pN+", &["x٣4Ⅻ½y"]),
        (r"\p{Nd}+", &["a١٢٣4"]),
        (r"\p{Zs}", &["a\u{a0}b"]),
        (r"\pZ", &["a\u{2028}"]),
        (r"\p{Han}+", &["x中文y"]),
        (r"\p{Cyrillic}+", &["абвgd"]),
        (r"\p{Common}+", &["a1 !b"]),
        (r"\p{Inherited}", &["e\u{301}"]),
        (r"\p{Any}+", &["a\nb"]),
        (r"\P{Any}", &["a"]),
        (r"[^\p{Any}]", &["a"]),
        (r"\p{Cs}", &["a\u{d7ff}"]),
        (r"\p{Co}", &["a\u{e000}"]),
        (r"\p{Cc}+", &["a\t\n\u{7f}"]),
        (r"\p{Cn}", &["a\u{378}"]),
        (r"\pC", &["a\u{378}", "a\u{ad}"]),
        (r"\p{LC}+", &["ªaǅB1"]),
        (r"\p{Lt}", &["Dǅ"]),
        (r"\p{Letter}+", &["1ab2"]),
        (r"\p{letter}", &["a"]),
        (r"\pl", &["a"]),
        (r"\p{lu}", &["A"]),
        (r"\p{Uppercase_Letter}+", &["aBC"]),
        (r"\p{uppercase letter}", &["aB"]),
        (r"\p{greek}", &["α"]),
        (r"\p{GREEK}", &["α"]),
        (r"\p{Old_Italic}", &["\u{10300}"]),
        (r"\p{old italic}", &["\u{10300}"]),
        (r"\p{Old-Italic}", &["\u{10300}"]),
        (r"\p{SignWriting}", &["\u{1D800}"]),
        (r"\p{ASCII}+", &["éabc"]),
        (r"\P{ASCII}+", &["abcéü"]),
        (r"\p{Assigned}+", &["\u{378}ab"]),
        (r"\p{^Assigned}", &["a\u{378}"]),
        (r"\P{Assigned}", &["a\u{378}"]),
        (r"\p{Other}", &["a\u{378}"]),
        (r"\p{Foo}", &["a"]),
        (r"\pX", &["a"]),
        (r"\pé", &["a"]),
        (r"\p{", &["a"]),
        (r"\p{Greek", &["a"]),
        (r"\p{Greek}\p{Foo", &["a"]),
        (r"\p", &["a"]),
        (r"\P", &["a"]),
        (r"a\p}", &["a"]),
        (r"\p^", &["a"]),
        (r"\p{^}", &["a"]),
        (r"\p{}", &["a"]),
        (r"\p{^Foo}", &["a"]),
        (r"\P{Foo}", &["a"]),
        (r"[\p{Foo}]", &["a"]),
        (r"[\p]", &["a"]),
        (r"[a\p{Greek]", &["a"]),
        (r"(?i)\p{Lu}+", &["abcK\u{212a}1"]),
        (r"(?i)\P{Lu}", &["a1"]),
        (r"(?i)[\p{Lu}]", &["a"]),
        (r"(?i)[^\p{Lu}]", &["aB1"]),
        (r"(?i)\p{Ll}", &["\u{345}"]),
        (r"(?i)\p{LC}", &["\u{345}"]),
        (r"(?i)\p{Greek}", &["µ"]),
        (r"(?i)\p{Nd}", &["a1"]),
        (r"(?i)\p{ASCII}+", &["é\u{212a}ſk"]),
        (r"(?i)\P{ASCII}+", &["\u{212a}ſé"]),
        (r"(?i)\p{Assigned}", &["\u{378}a"]),
        (r"(?i)\p{Any}", &["a"]),
        (r"(?i)[\W]", &["\u{212a}", "k!"]),
        (r"(?i)\W", &["\u{212a}k!"]),
        (r"(?i)[\D]", &["\u{212a}"]),
        (r"(?i)[[:^lower:]]", &["A\u{212a}1"]),
        (r"(?i)[[:upper:]]+", &["abſ\u{212a}1"]),
        (r"(?i)ς+", &["ΣσςX"]),
        (r"(?i)θ+", &["ϑϴΘθ!"]),
        (r"(?i)ǈ+", &["ǇǈǉX"]),
        (r"(?i)[ǅ]+", &["ǄǅǆX"]),
        (r"(?i)ſ+", &["sSſ!"]),
        (r"(?i)[à-ÿ]+", &["ÀÉŸ!"]),
        (r"(?i)в+", &["Вв\u{1c80}!"]),
        (r"(?i)\x{ab70}", &["\u{13a0}"]),
        (r"(?i)\x{10400}", &["\u{10428}"]),
        (r"(?i)[\x{10400}-\x{10427}]+", &["\u{10428}\u{10429}"]),
        (r"(?i)\x{1e900}", &["\u{1e922}"]),
        (r"(?i)ẞ", &["ß"]),
        (r"(?i)ﬀ", &["FF", "ﬀ"]),
        (r"(?i)[^ι]", &["\u{345}\u{1fbe}Ι!"]),
        (r"", &["abc"]),
        (r"()", &["abc"]),
        (r"(|a)+", &["aa"]),
        (r"(a*)*", &["b"]),
        (r"(a*)+$", &["aab"]),
        (r"é+", &["ééa"]),
        (r"[é-ë]+", &["êéx"]),
        (r"[^a-z]+", &["ABCdef"]),
        (r"\.\*\+\?\(\)\[\]\{\}\|\^\$", &[".*+?()[]{}|^$"]),
        (r"[\[\]]+", &["[]"]),
        (r"a.c", &["a\u{1F600}c"]),
        (r"[\x{1F600}-\x{1F64F}]", &["x\u{1F601}"]),
        (r"<b>(.*?)</b>", &["<b>x</b><b>y</b>"]),
        (r"(\w+)@(\w+)\.com", &["mail bob@example.com now"]),
        (r"a*", &["baaa", ""]),
        (r"(a*)(b?)", &["bbb"]),
        (r"(?m)$", &["a\nb"]),
        (r"(?m)^$", &["a\n\nb"]),
        (r"\b", &["", "  "]),
        (r"(a|b)*c", &["ababc"]),
        (r"(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)(k)", &["abcdefghijk"]),
        (r"[^\x00-\x{10FFFF}]", &["a"]),
        (r"[^\x00-\x{10FFFF}]*", &["a"]),
        (r"\x{D800}", &["a"]),
        (r"[\x{D7FF}-\x{E000}]", &["\u{d7ff}\u{e000}"]),
        (r"(?i)ΣΑΣ", &["σας", "ΣΑΣ"]),
        (r"(?i)[α-ω]+", &["ΑΒΓ"]),
        (r"(?i)\x{212a}", &["k", "K"]),
        (r"(?s)a.b", &["a\nb"]),
        (r"(?ms)^a.b$", &["x\na\nb\ny"]),
        (r"(?i:K)k", &["kK", "Kk"]),
        (r"a{0}", &["a"]),
        (r"(?:a{2}){0,3}?b", &["aaaab"]),
        (r"[[:alpha:][:digit:]]+", &["ab12!"]),
        (r"[^[:alpha:]]+", &["ab12!"]),
        (r"[a-z&&[^aeiou]]+", &["bcd&&[^"]),
        (r"[\d-]+", &["1-2"]),
        (r"[-a]+", &["-a"]),
        (r"[a-\d]", &["a"]),
        (r"\Q\E", &["a"]),
        (r"\Qab", &["xab"]),
        (r"(?i)\Qab\E", &["AB"]),
    ];
    for (p, inputs) in regexps {
        for s in *inputs {
            c.push(json!({"op": "regexp", "a": p, "b": s}));
        }
    }
    let b64 = [
        "aGVsbG8=",
        "aGVsbG8",
        "aGVsbG8==",
        "aGk=",
        "aGk=x",
        "aGk",
        "a",
        "ab",
        "abc",
        "abcd",
        "",
        "aGVs\nbG8=",
        "aGVs\r\nbG8=\n",
        "\naGk=",
        "aGk=\n\n",
        "aG\nk=",
        "aGk\n=",
        "a!==",
        "a===",
        "====",
        "=",
        "aGVsbG8=aGk=",
        "/w==",
        "/+8=",
        "-_8=",
        "aGk=\r",
        "YQ",
        "YQ=",
        "YQ==",
        "YWI=",
        "YWJj",
        "Y Q==",
    ];
    for a in b64 {
        c.push(json!({"op": "base64", "a": a}));
    }
    // Strings that are not valid UTF-8 (Go strings are bytes): hashed, encoded, case-mapped,
    // marshalled, formatted, trimmed and replaced as Go does it to the bytes.
    let raw = [
        "/w==",     // ff
        "YcNi",     // a c3 b
        "4oKs4g==", // € then a lone e2
        "8J+YgA==", // a valid emoji
        "7aCA",     // a UTF-16 surrogate's bytes
        "wMHC",     // c0 c1 c2
        "",
    ];
    for a in raw {
        for op in [
            "sha1", "sha256", "sha512", "adler32", "tobase64", "upper", "lower", "json",
        ] {
            c.push(json!({"op": "bytes", "a": a, "b": op}));
        }
        for f in [
            "%s", "%q", "%+q", "%#q", "%x", "% X", "%.1s", "%.2s", "[%6s]", "[%-6s]", "%v", "%5.1q",
        ] {
            c.push(json!({"op": "bytes", "a": a, "b": "format", "c": f}));
        }
        c.push(json!({"op": "bytes", "a": a, "b": "trim_prefix", "c": "a"}));
        c.push(json!({"op": "bytes", "a": a, "b": "replace", "c": ""}));
    }
    let values = [
        json!("hello"),
        json!(""),
        json!("ünïcödé"),
        json!(5),
        json!(2.5),
        json!(1e21),
        json!(1e-7),
        json!(0.000001),
        json!(true),
        json!(null),
        json!({"b": [1, 2.5, "<x>"], "a": null}),
        json!(["a", {"z": 1, "y": "&"}, [], {}]),
        json!("\u{2028}\u{2029}<>&"),
        json!({"é": 1, "e": 2, "E": 3}),
        json!(123_456_789),
        json!(-0.0),
        json!([-0.0, 0, {"z": -0.0}]),
        json!("-0"),
    ];
    for op in ["sha1", "sha256", "sha512", "adler32", "to_json"] {
        for v in &values {
            c.push(json!({"op": op, "v": v}));
        }
    }
    let words = [
        "hello",
        "straße",
        "İstanbul",
        "ΣΑΣ σας",
        "ǅǄǆ",
        "\u{212a}elvin",
        "ſ",
        "ﬀ",
        "ᾳ ᾼ ᾀ ᾈ",
        "ŉ ǰ ΐ",
        "µ",
        "ÿ Ÿ",
        "ı i I",
        "Ǳ ǲ ǳ",
        "ͅ",
        "ẞ",
        "Ⅻ ⅻ",
        "ⓐ Ⓐ",
        "𐐨 𐐀",
        "ꭰ Ꭰ",
        "ᲀ",
        "\u{10d0}",
        "abc-ÉÀ",
        "Ω ω Ω",
    ];
    for w in words {
        c.push(json!({"op": "upper", "a": w}));
        c.push(json!({"op": "lower", "a": w}));
    }
    let strs = [
        ("foo-foo-bar", "foo-", "x"),
        ("abc", "", "-"),
        ("abc", "abc", ""),
        ("aaa", "aa", "b"),
        ("héllo", "é", "e"),
        ("100", "0", "1"),
        ("", "", "x"),
        ("a.b.c", ".", ""),
    ];
    for (a, b, cc) in strs {
        c.push(json!({"op": "trim_prefix", "a": a, "b": b}));
        c.push(json!({"op": "trim_suffix", "a": a, "b": b}));
        c.push(json!({"op": "replace", "a": a, "b": b, "c": cc}));
    }
    let jsons = [
        r#"{"a":1,"b":[true,null,"x"]}"#,
        "{}",
        "null",
        " null ",
        "[1]",
        "12",
        "\"s\"",
        "true",
        "{} x",
        "{",
        "",
        " ",
        "-",
        "1.",
        "1e",
        "1e+",
        "01",
        "-01",
        "tru",
        "nul",
        "falsy",
        r#"{"a" 1}"#,
        r#"{"a":1,}"#,
        r#"{"a":1 "b":2}"#,
        r#"{a:1}"#,
        "[1,]",
        "[1 2]",
        "]",
        r#"{"a":"\x"}"#,
        r#"{"a":"\u12"}"#,
        "{\"a\":\"\u{1}\"}",
        r#"{"a":1e400}"#,
        r#"[1e400]"#,
        r#"{"a":"\ud800"}"#,
        r#"{"a":"\ud83d\ude00"}"#,
        r#"{"a":"\ud83dx"}"#,
        r#"{"a":1,"a":2}"#,
        r#"{"a":{"b":{"c":[[[]]]}}}"#,
        "{\"a\":1}\u{a0}",
        "\u{feff}{}",
        "[]",
        "[[1],[2]]",
        r#"{"x":-0.0,"y":1E2,"z":123456789012345678901234567890}"#,
        r#"{"a":-0,"b":-0e0,"c":0,"d":[-0,-0.0]}"#,
        "[-0,-0.0,-0E-3,0,-1e-400]",
    ];
    for a in jsons {
        c.push(json!({"op": "json_object", "a": a}));
        c.push(json!({"op": "json_array", "a": a}));
    }
    c
}

/// The engine's answer, in the oracle's shape.
fn engine(case: &Json) -> Json {
    let a = case["a"].as_str().unwrap_or("");
    let b = case["b"].as_str().unwrap_or("");
    let cc = case["c"].as_str().unwrap_or("");
    let result: Result<Json, String> = match case["op"].as_str().unwrap_or("") {
        "parse_int" => t::parse_int(a).map(|n| json!(n.to_string())),
        "parse_bool" => t::parse_bool(a).map(|v| json!(v)),
        "parse_float" => t::parse_float(a).map(|f| json!(float_key(f))),
        "format_float" => t::parse_float(a).map(|f| json!(t::format_float_f(f))),
        "regexp" => t::regexp_find_submatch(a, b, Semantics::Function).map(|g| json!(g)),
        "base64" => t::base64_decode(a).map(|s| json!(s)),
        "bytes" => raw_bytes_op(a, b, cc),
        op @ ("sha1" | "sha256" | "sha512" | "adler32" | "to_json") => {
            let convert = match op {
                "sha1" => "ToSha1",
                "sha256" => "ToSha256",
                "sha512" => "ToSha512",
                "adler32" => "ToAdler32",
                _ => "ToJson",
            };
            let mut input = Value::from_json(&case["v"].to_string()).expect("value");
            input.floats_everywhere();
            string_transform(json!({"type": "Convert", "convert": convert}), input)
        }
        "upper" => Ok(json!(t::to_upper(a))),
        "lower" => Ok(json!(t::to_lower(a))),
        "trim_prefix" => string_transform(json!({"type": "TrimPrefix", "trim": b}), a.into()),
        "trim_suffix" => string_transform(json!({"type": "TrimSuffix", "trim": b}), a.into()),
        "replace" => string_transform(
            json!({"type": "Replace", "replace": {"search": b, "replace": cc}}),
            a.into(),
        ),
        "write_round_trip" => {
            let f = f64::from_bits(u64::from_str_radix(a, 16).expect("hex bits"));
            match Value::Float(f).normalize() {
                Ok(Value::Int(n)) => Ok(json!(format!("int:{n}"))),
                Ok(Value::Float(g)) => Ok(json!(format!("float:{:x}", g.to_bits()))),
                Ok(other) => Err(format!("not a number: {other:?}")),
                Err(e) => Err(e.to_string()),
            }
        }
        "kubernetes_number" => Value::from_json(a)
            .map_err(|e| e.to_string())
            .and_then(|v| number_key(&v)),
        "struct_number" => xprender::testing::struct_reading(a).and_then(|v| number_key(&v)),
        "json_object" | "json_array" => t::json_unmarshal(a, case["op"] == "json_object")
            .map(|v| serde_json::from_str(&v.to_json()).expect("engine JSON")),
        op => panic!("unknown op {op}"),
    };
    match result {
        Ok(v) => json!({"ok": v}),
        Err(e) => json!({"ok": null, "err": e}),
    }
}

/// The `bytes` op: the string FromBase64 makes of `a`, then `op` by the transforms, as the
/// hex of the result's bytes (hashes: of the digest's).
fn raw_bytes_op(a: &str, op: &str, arg: &str) -> Result<Json, String> {
    let convert = |c: &str| json!({"type": "string", "string": {"type": "Convert", "convert": c}});
    let second = match op {
        "sha1" => convert("ToSha1"),
        "sha256" => convert("ToSha256"),
        "sha512" => convert("ToSha512"),
        "adler32" => convert("ToAdler32"),
        "tobase64" => convert("ToBase64"),
        "upper" => convert("ToUpper"),
        "lower" => convert("ToLower"),
        "json" => convert("ToJson"),
        "format" => json!({"type": "string", "string": {"type": "Format", "fmt": arg}}),
        "trim_prefix" => json!({"type": "string", "string": {"type": "TrimPrefix", "trim": arg}}),
        "replace" => json!({"type": "string", "string": {"type": "Replace",
                            "replace": {"search": arg, "replace": "-"}}}),
        other => return Err(format!("unknown bytes op {other}")),
    };
    let transforms: Vec<Value> = [convert("FromBase64"), second]
        .iter()
        .map(|j| Value::from_json(&j.to_string()).expect("transform"))
        .collect();
    let out = t::run(&transforms, a.into(), Semantics::Function).map_err(|e| e.to_string())?;
    let bytes = t::go_bytes(&out).ok_or_else(|| format!("not a string: {out:?}"))?;
    // The hashes print their digest in hex; Go's side hexes the digest's bytes.
    let bytes = if op.starts_with("sha") {
        (0..bytes.len() / 2)
            .map(|i| u8::from_str_radix(&String::from_utf8_lossy(&bytes[2 * i..2 * i + 2]), 16))
            .collect::<Result<Vec<u8>, _>>()
            .map_err(|e| e.to_string())?
    } else {
        bytes
    };
    Ok(json!(
        bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
    ))
}

fn string_transform(cfg: Json, input: Value) -> Result<Json, String> {
    let tr = Value::from_json(&json!({"type": "string", "string": cfg}).to_string()).expect("cfg");
    match t::run(&[tr], input, Semantics::Function) {
        Ok(Value::String(s)) => Ok(json!(s)),
        Ok(other) => Err(format!("not a string: {other:?}")),
        Err(e) => Err(e.to_string()),
    }
}

/// A number's type and value as the oracle spells them: `int:<n>` or `float:<bits>`.
fn number_key(v: &Value) -> Result<Json, String> {
    match v {
        Value::Int(n) => Ok(json!(format!("int:{n}"))),
        Value::Float(f) => Ok(json!(format!("float:{:x}", f.to_bits()))),
        other => Err(format!("not a number: {other:?}")),
    }
}

/// Float results compare by bits, every NaN alike.
fn float_key(f: f64) -> String {
    if f.is_nan() {
        "nan".to_owned()
    } else {
        format!("{:x}", f.to_bits())
    }
}

/// Go's answer normalised like [`engine`]'s.
fn normalise(case: &Json, mut answer: Json) -> Json {
    if case["op"] == "parse_float"
        && let Some(bits) = answer["ok"].as_str()
    {
        let f = f64::from_bits(u64::from_str_radix(bits, 16).expect("hex bits"));
        answer["ok"] = json!(float_key(f));
    }
    if answer.get("err").is_some() {
        answer["ok"] = Json::Null;
    }
    answer
}

#[test]
#[ignore = "needs Go; scripts/test runs it"]
fn engine_agrees_with_go() {
    let go = std::env::var("GO").expect("GO is not set: run via scripts/test (lib.sh need_go)");
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/go/transform");
    let cases = cases();
    let mut child = Command::new(go)
        .args(["run", "."])
        .current_dir(dir)
        .env("GOEXPERIMENT", "nojsonv2")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("cannot start go");
    let input = serde_json::to_vec(&cases).expect("cases");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&input)
        .expect("write cases");
    let out = child.wait_with_output().expect("go run");
    assert!(out.status.success(), "the Go oracle failed: {}", out.status);
    let answers: Vec<Json> = serde_json::from_slice(&out.stdout).expect("Go answers are JSON");
    assert_eq!(answers.len(), cases.len());
    let mut failures = Vec::new();
    for (case, answer) in cases.iter().zip(answers) {
        let want = normalise(case, answer);
        let got = engine(case);
        if got != want {
            failures.push(format!("{case}\n    go:     {want}\n    engine: {got}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from Go:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// `src/transform/unicode_tables.rs` is what `tests/go/unicode` prints with this Go.
#[test]
#[ignore = "needs Go; scripts/test runs it"]
fn unicode_tables_are_current() {
    let go = std::env::var("GO").expect("GO is not set: run via scripts/test (lib.sh need_go)");
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new(go)
        .args(["run", "."])
        .current_dir(format!("{root}/tests/go/unicode"))
        .stderr(Stdio::inherit())
        .output()
        .expect("cannot start go");
    assert!(out.status.success(), "the generator failed: {}", out.status);
    let committed = std::fs::read_to_string(format!("{root}/src/transform/unicode_tables.rs"))
        .expect("src/transform/unicode_tables.rs");
    assert!(
        String::from_utf8_lossy(&out.stdout) == committed,
        "src/transform/unicode_tables.rs is stale: regenerate it as its header says"
    );
}
