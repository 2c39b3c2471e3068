//! JSON text read in place: a lazy view of the engine's answer (and of a raw request), so that
//! the host never builds a tree of a whole document.
//!
//! A `serde_json::Value` of many small objects takes 10 to 100 times its text; the host's
//! memory must stay a small multiple of the request instead. The text is checked once
//! (`Json::parse`, iterative, so any nesting is fine), then members and items are found by
//! skipping over values, and only the small parts the host reads (errors, results, names)
//! are decoded.

use std::borrow::Cow;

/// One JSON value's text, already checked to be well formed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Json<'a>(&'a [u8]);

/// Where and why a text is not JSON.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Malformed {
    /// Byte offset of the fault.
    pub(crate) offset: usize,
}

impl std::fmt::Display for Malformed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "not JSON at byte {}", self.offset)
    }
}

impl std::error::Error for Malformed {}

impl<'a> Json<'a> {
    /// Checks that `text` is exactly one JSON value (surrounding whitespace allowed).
    ///
    /// # Errors
    /// The offset of the first byte that breaks JSON's grammar.
    pub(crate) fn parse(text: &'a [u8]) -> Result<Json<'a>, Malformed> {
        let start = skip_ws(text, 0);
        let end = check_value(text, start)?;
        if skip_ws(text, end) != text.len() {
            return Err(Malformed { offset: end });
        }
        Ok(Json(&text[start..end]))
    }

    /// The value's text.
    pub(crate) fn text(self) -> &'a [u8] {
        self.0
    }

    pub(crate) fn is_object(self) -> bool {
        self.0.first() == Some(&b'{')
    }

    pub(crate) fn is_array(self) -> bool {
        self.0.first() == Some(&b'[')
    }

    pub(crate) fn is_string(self) -> bool {
        self.0.first() == Some(&b'"')
    }

    /// Whether an object or array has no members.
    pub(crate) fn is_empty_container(self) -> bool {
        skip_ws(self.0, 1) == self.0.len() - 1
    }

    /// An object's members in text order (duplicates included); nothing for other values.
    pub(crate) fn members(self) -> Members<'a> {
        Members {
            text: if self.is_object() { self.0 } else { b"{}" },
            at: 1,
        }
    }

    /// An array's items; nothing for other values.
    pub(crate) fn items(self) -> Items<'a> {
        Items {
            text: if self.is_array() { self.0 } else { b"[]" },
            at: 1,
        }
    }

    /// An object's member (the last one of that name, as JSON decoders keep).
    pub(crate) fn get(self, key: &str) -> Option<Json<'a>> {
        self.members().filter(|(k, _)| k == key).last().map(|m| m.1)
    }

    /// Nested object members.
    pub(crate) fn lookup(self, path: &[&str]) -> Option<Json<'a>> {
        path.iter().try_fold(self, |v, k| v.get(k))
    }

    /// A string's contents, unescaped.
    pub(crate) fn as_str(self) -> Option<Cow<'a, str>> {
        self.is_string().then(|| unescape(self.0))
    }

    /// The value decoded (for the small parts of a document the host reads).
    pub(crate) fn to_value(self) -> serde_json::Value {
        use serde::Deserialize as _;
        let mut de = serde_json::Deserializer::from_slice(self.0);
        de.disable_recursion_limit();
        serde_json::Value::deserialize(&mut de).unwrap_or(serde_json::Value::Null)
    }

    /// Whether two values are equal as JSON decoders see them: object members in any order
    /// (the last of duplicate keys counts), numbers by value, strings unescaped.
    pub(crate) fn same(self, other: Json<'_>) -> bool {
        match (self.0[0], other.0[0]) {
            (b'{', b'{') => {
                let (a, b) = (sorted_members(self), sorted_members(other));
                a.len() == b.len()
                    && a.iter()
                        .zip(&b)
                        .all(|((ka, va), (kb, vb))| ka == kb && va.same(*vb))
            }
            (b'[', b'[') => {
                let (mut a, mut b) = (self.items(), other.items());
                loop {
                    match (a.next(), b.next()) {
                        (None, None) => return true,
                        (Some(x), Some(y)) if x.same(y) => {}
                        _ => return false,
                    }
                }
            }
            (b'"', b'"') => unescape(self.0) == unescape(other.0),
            (b'{' | b'[' | b'"', _) | (_, b'{' | b'[' | b'"') => false,
            (b't' | b'f' | b'n', _) | (_, b't' | b'f' | b'n') => self.0 == other.0,
            _ => number(self.0) == number(other.0),
        }
    }
}

/// Members sorted by key, the last of duplicates kept.
pub(crate) fn sorted_members(v: Json<'_>) -> Vec<(Cow<'_, str>, Json<'_>)> {
    let mut members: Vec<_> = v.members().collect();
    // A stable sort keeps duplicates in text order; keep the last of each run.
    members.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out: Vec<(Cow<'_, str>, Json<'_>)> = Vec::with_capacity(members.len());
    for m in members {
        match out.last_mut() {
            Some(last) if last.0 == m.0 => *last = m,
            _ => out.push(m),
        }
    }
    out
}

/// A number literal as serde_json reads it (the host's reference for numbers).
pub(crate) fn number(text: &[u8]) -> Option<serde_json::Number> {
    serde_json::from_slice(text).ok()
}

/// An object's members.
pub(crate) struct Members<'a> {
    text: &'a [u8],
    at: usize,
}

impl<'a> Iterator for Members<'a> {
    type Item = (Cow<'a, str>, Json<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        let i = skip_ws(self.text, self.at);
        let i = if self.text[i] == b',' {
            skip_ws(self.text, i + 1)
        } else {
            i
        };
        if self.text[i] != b'"' {
            return None;
        }
        let key_end = skip_string(self.text, i);
        let key = unescape(&self.text[i..key_end]);
        let colon = skip_ws(self.text, key_end);
        let start = skip_ws(self.text, colon + 1);
        let end = skip_value(self.text, start);
        self.at = end;
        Some((key, Json(&self.text[start..end])))
    }
}

/// An array's items.
pub(crate) struct Items<'a> {
    text: &'a [u8],
    at: usize,
}

impl<'a> Iterator for Items<'a> {
    type Item = Json<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        let i = skip_ws(self.text, self.at);
        let i = if self.text[i] == b',' {
            skip_ws(self.text, i + 1)
        } else {
            i
        };
        if self.text[i] == b']' {
            return None;
        }
        let end = skip_value(self.text, i);
        self.at = end;
        Some(Json(&self.text[i..end]))
    }
}

fn skip_ws(text: &[u8], mut i: usize) -> usize {
    while i < text.len() && matches!(text[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// The end of the (checked) string starting at `i`.
fn skip_string(text: &[u8], mut i: usize) -> usize {
    i += 1;
    while text[i] != b'"' {
        i += if text[i] == b'\\' { 2 } else { 1 };
    }
    i + 1
}

/// The end of the (checked) value starting at `i`.
fn skip_value(text: &[u8], i: usize) -> usize {
    match text[i] {
        b'"' => skip_string(text, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match text[j] {
                    b'"' => {
                        j = skip_string(text, j);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return j + 1;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let mut j = i;
            while j < text.len()
                && !matches!(text[j], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            {
                j += 1;
            }
            j
        }
    }
}

/// A checked string literal's contents.
fn unescape(lit: &[u8]) -> Cow<'_, str> {
    let inner = &lit[1..lit.len() - 1];
    if !inner.contains(&b'\\') {
        // Checked as UTF-8 by `check_string`.
        return String::from_utf8_lossy(inner);
    }
    Cow::Owned(serde_json::from_slice::<String>(lit).unwrap_or_default())
}

/// Checks one value starting at `start` without recursion; returns its end.
fn check_value(text: &[u8], start: usize) -> Result<usize, Malformed> {
    // Open containers: true for an object. After a value inside an object comes `,` or `}`.
    let mut stack: Vec<bool> = Vec::new();
    let mut i = start;
    let bad = |offset| Err(Malformed { offset });
    loop {
        // A value.
        i = skip_ws(text, i);
        match text.get(i) {
            Some(b'{') => {
                let j = skip_ws(text, i + 1);
                if text.get(j) == Some(&b'}') {
                    i = j + 1;
                } else {
                    stack.push(true);
                    i = check_key(text, j)?;
                    continue;
                }
            }
            Some(b'[') => {
                let j = skip_ws(text, i + 1);
                if text.get(j) == Some(&b']') {
                    i = j + 1;
                } else {
                    stack.push(false);
                    i = j;
                    continue;
                }
            }
            Some(b'"') => i = check_string(text, i)?,
            Some(b't') if text[i..].starts_with(b"true") => i += 4,
            Some(b'f') if text[i..].starts_with(b"false") => i += 5,
            Some(b'n') if text[i..].starts_with(b"null") => i += 4,
            Some(b'-' | b'0'..=b'9') => i = check_number(text, i)?,
            _ => return bad(i),
        }
        // After a value: close containers or move to the next member or item.
        loop {
            let Some(&is_object) = stack.last() else {
                return Ok(i);
            };
            let j = skip_ws(text, i);
            match (text.get(j), is_object) {
                (Some(b','), true) => {
                    i = check_key(text, skip_ws(text, j + 1))?;
                    break;
                }
                (Some(b','), false) => {
                    i = j + 1;
                    break;
                }
                (Some(b'}'), true) | (Some(b']'), false) => {
                    stack.pop();
                    i = j + 1;
                }
                _ => return bad(j),
            }
        }
    }
}

/// A member's key and colon; returns where its value starts.
fn check_key(text: &[u8], i: usize) -> Result<usize, Malformed> {
    if text.get(i) != Some(&b'"') {
        return Err(Malformed { offset: i });
    }
    let j = skip_ws(text, check_string(text, i)?);
    if text.get(j) != Some(&b':') {
        return Err(Malformed { offset: j });
    }
    Ok(j + 1)
}

fn check_string(text: &[u8], start: usize) -> Result<usize, Malformed> {
    let mut i = start + 1;
    loop {
        match text.get(i) {
            None => return Err(Malformed { offset: i }),
            Some(b'"') => break,
            Some(b'\\') => match text.get(i + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
                Some(b'u')
                    if text
                        .get(i + 2..i + 6)
                        .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) =>
                {
                    i += 6;
                }
                _ => return Err(Malformed { offset: i }),
            },
            Some(c) if *c < 0x20 => return Err(Malformed { offset: i }),
            Some(_) => i += 1,
        }
    }
    std::str::from_utf8(&text[start..i]).map_err(|e| Malformed {
        offset: start + e.valid_up_to(),
    })?;
    Ok(i + 1)
}

fn check_number(text: &[u8], start: usize) -> Result<usize, Malformed> {
    let digits = |mut i: usize| {
        let from = i;
        while text.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        (i, i > from)
    };
    let mut i = start;
    if text[i] == b'-' {
        i += 1;
    }
    match text.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = digits(i).0,
        _ => return Err(Malformed { offset: i }),
    }
    if text.get(i) == Some(&b'.') {
        let (j, any) = digits(i + 1);
        if !any {
            return Err(Malformed { offset: j });
        }
        i = j;
    }
    if matches!(text.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(text.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let (j, any) = digits(i);
        if !any {
            return Err(Malformed { offset: j });
        }
        i = j;
    }
    Ok(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_what_serde_json_accepts() {
        for text in [
            "{}",
            "[]",
            "0",
            "-0",
            "1.5e-3",
            "\"a\\u00e9\\n\"",
            " {\"a\" : [1, {\"b\": null}] } ",
            "[[[[]]]]",
            "{\"a\":{},\"b\":[]}",
            "true",
            "\"\u{e9}\"",
        ] {
            assert!(Json::parse(text.as_bytes()).is_ok(), "{text}");
            assert!(
                serde_json::from_str::<serde_json::Value>(text).is_ok(),
                "{text}"
            );
        }
    }

    #[test]
    fn refuses_what_serde_json_refuses() {
        for text in [
            "",
            "{",
            "[1,]",
            "{\"a\":1,}",
            "01",
            "1.",
            "1e",
            "-",
            "\"\\x\"",
            "\"\u{1}\"",
            "tru",
            "{\"a\" 1}",
            "{1:2}",
            "[1 2]",
            "1 2",
            "\"\\u12\"",
            "]",
            "{\"a\":1]",
        ] {
            assert!(Json::parse(text.as_bytes()).is_err(), "{text:?}");
            assert!(
                serde_json::from_str::<serde_json::Value>(text).is_err(),
                "{text:?}"
            );
        }
    }

    #[test]
    fn deep_nesting_needs_no_stack() {
        let text = format!("{}{}", "[".repeat(1_000_000), "]".repeat(1_000_000));
        let v = Json::parse(text.as_bytes()).unwrap();
        assert_eq!(v.items().count(), 1);
    }

    #[test]
    fn navigation() {
        let text = br#"{"a": {"b": "x\"y"}, "c": [1, "two", {}], "a2": 1, "d": 1, "d": 2}"#;
        let v = Json::parse(text).unwrap();
        assert_eq!(v.lookup(&["a", "b"]).unwrap().as_str().unwrap(), "x\"y");
        assert_eq!(v.get("c").unwrap().items().count(), 3);
        assert_eq!(v.get("d").unwrap().text(), b"2");
        assert!(v.get("e").is_none());
        assert!(
            v.get("c")
                .unwrap()
                .items()
                .nth(2)
                .unwrap()
                .is_empty_container()
        );
    }

    #[test]
    fn equality_as_decoders_see_it() {
        let same = |a: &str, b: &str| {
            Json::parse(a.as_bytes())
                .unwrap()
                .same(Json::parse(b.as_bytes()).unwrap())
        };
        assert!(
            same(
                r#"{"a":1,"b":[true,"\u0041"]}"#,
                r#"{"b":[true,"A"],"a":1.0e0}"#
            ) == same_by_serde(
                r#"{"a":1,"b":[true,"\u0041"]}"#,
                r#"{"b":[true,"A"],"a":1.0e0}"#
            )
        );
        assert!(same(r#"{"a":1,"a":2}"#, r#"{"a":2}"#));
        assert!(!same(r#"{"a":1}"#, r#"{"a":1,"b":2}"#));
        assert!(!same("[1,2]", "[1]"));
        assert!(!same("\"1\"", "1"));
        assert!(same("1e2", "100.0"));
    }

    fn same_by_serde(a: &str, b: &str) -> bool {
        serde_json::from_str::<serde_json::Value>(a).unwrap()
            == serde_json::from_str::<serde_json::Value>(b).unwrap()
    }
}
