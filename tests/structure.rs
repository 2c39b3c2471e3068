//! The engine's own structure: its top-level modules form no cycle, and no
//! function in `src/compose` grows past [`MAX_COMPOSE_FN_LINES`] lines.
//!
//! Both checks read the sources as text: a `crate::<module>` path (or a
//! `use crate::{...}` group) in any file under `src/<module>` is an edge from
//! that module. Comments are ignored.

#![allow(clippy::disallowed_methods)] // a test of the sources reads them

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The longest a function in `src/compose` may be, counted from its `fn` line
/// to its closing brace.
const MAX_COMPOSE_FN_LINES: usize = 80;

type Graph = BTreeMap<String, BTreeSet<String>>;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// A line without its `//` comment (a `//` inside a string literal is rare
/// enough in `src/` that cutting there only drops text, never adds an edge).
fn code(line: &str) -> &str {
    line.find("//").map_or(line, |i| &line[..i])
}

fn ident_at(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The crate-level names a source text refers to through `crate::`.
fn crate_refs(text: &str) -> BTreeSet<String> {
    let mut refs = BTreeSet::new();
    let code: String = text.lines().map(code).collect::<Vec<_>>().join("\n");
    let mut rest = code.as_str();
    while let Some(i) = rest.find("crate::") {
        let preceded_by_ident = rest[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        rest = &rest[i + "crate::".len()..];
        if preceded_by_ident {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            // `crate::{a, b::c, d::{e, f}}`: the first segment of each top-level entry.
            let mut depth = 0usize;
            let mut at_entry = true;
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => at_entry = true,
                    c if at_entry && !c.is_whitespace() => {
                        at_entry = false;
                        refs.insert(ident_at(&group[j..]).to_owned());
                    }
                    _ => {}
                }
            }
        } else {
            refs.insert(ident_at(rest).to_owned());
        }
    }
    refs
}

/// Top-level module → the other top-level modules it refers to.
fn module_graph(src: &Path) -> Graph {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let module_of = |p: &Path| -> Option<String> {
        let rel = p.strip_prefix(src).ok()?;
        let first = rel.components().next()?.as_os_str().to_str()?;
        let name = first.strip_suffix(".rs").unwrap_or(first);
        (name != "lib").then(|| name.to_owned())
    };
    let modules: BTreeSet<String> = files.iter().filter_map(|p| module_of(p)).collect();
    let mut graph: Graph = modules
        .iter()
        .map(|m| (m.clone(), BTreeSet::new()))
        .collect();
    for p in &files {
        let Some(from) = module_of(p) else { continue };
        let text = fs::read_to_string(p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()));
        for to in crate_refs(&text) {
            if to != from && modules.contains(&to) {
                graph.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    graph
}

/// A cycle in `graph` as the list of modules around it (first repeated last),
/// or `None` when the graph is acyclic.
fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    fn visit(
        n: &str,
        graph: &Graph,
        marks: &mut BTreeMap<String, Mark>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        marks.insert(n.to_owned(), Mark::Open);
        path.push(n.to_owned());
        for m in graph.get(n).into_iter().flatten() {
            match marks.get(m).copied().unwrap_or(Mark::New) {
                Mark::Open => {
                    let start = path
                        .iter()
                        .position(|p| p == m)
                        .expect("open node is on the path");
                    let mut cycle = path[start..].to_vec();
                    cycle.push(m.clone());
                    return Some(cycle);
                }
                Mark::New => {
                    if let Some(c) = visit(m, graph, marks, path) {
                        return Some(c);
                    }
                }
                Mark::Done => {}
            }
        }
        path.pop();
        marks.insert(n.to_owned(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    for n in graph.keys() {
        if marks.get(n).copied().unwrap_or(Mark::New) == Mark::New
            && let Some(c) = visit(n, graph, &mut marks, &mut Vec::new())
        {
            return Some(c);
        }
    }
    None
}

#[test]
fn top_level_modules_form_no_cycle() {
    let graph = module_graph(&src());
    assert!(
        graph.contains_key("compose") && graph.contains_key("go"),
        "{graph:?}"
    );
    if let Some(cycle) = find_cycle(&graph) {
        panic!("module cycle in src/: {}", cycle.join(" -> "));
    }
}

#[test]
fn the_go_runtime_module_depends_on_nothing_else() {
    let graph = module_graph(&src());
    assert_eq!(graph.get("go"), Some(&BTreeSet::new()), "{graph:?}");
}

fn graph_of(edges: &[(&str, &str)]) -> Graph {
    let mut g = Graph::new();
    for (a, b) in edges {
        g.entry((*a).to_owned())
            .or_default()
            .insert((*b).to_owned());
        g.entry((*b).to_owned()).or_default();
    }
    g
}

#[test]
fn the_cycle_check_finds_a_cycle_and_names_it() {
    let g = graph_of(&[("a", "b"), ("b", "c"), ("c", "d"), ("d", "b"), ("a", "e")]);
    assert_eq!(
        find_cycle(&g),
        Some(vec![
            "b".to_owned(),
            "c".to_owned(),
            "d".to_owned(),
            "b".to_owned()
        ])
    );
    let acyclic = graph_of(&[("a", "b"), ("b", "c"), ("a", "c"), ("d", "a")]);
    assert_eq!(find_cycle(&acyclic), None);
}

#[test]
fn crate_references_are_read_from_paths_and_use_groups() {
    let text = "use crate::fmt::quote;\n\
                use crate::{error::{Error, Result}, value::Value,\n    go};\n\
                // crate::compose is only mentioned in a comment\n\
                let x = crate::fieldpath::get(v); // and crate::trace here\n\
                let y = subcrate::patch::x;\n";
    let got: Vec<String> = crate_refs(text).into_iter().collect();
    assert_eq!(got, ["error", "fieldpath", "fmt", "go", "value"]);
}

/// Each `fn` in `text` with the number of lines from its signature to its
/// closing brace (the brace at the signature's own indentation).
fn function_lengths(text: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let sig = trimmed
            .strip_prefix("pub(crate) ")
            .or_else(|| trimmed.strip_prefix("pub(super) "))
            .or_else(|| trimmed.strip_prefix("pub "))
            .unwrap_or(trimmed);
        let sig = sig.strip_prefix("const ").unwrap_or(sig);
        let Some(after) = sig.strip_prefix("fn ") else {
            continue;
        };
        // A signature without a body (a trait item) ends with `;` before any `{`.
        let body_start = lines[i..].iter().position(|l| {
            let c = code(l);
            c.contains('{') || c.trim_end().ends_with(';')
        });
        let Some(b) = body_start else { continue };
        let opening = code(lines[i + b]);
        if !opening.contains('{') {
            continue;
        }
        // rustfmt puts a closing brace on the signature's indentation, or
        // keeps a short body on the line that opens it.
        if opening.trim_end().ends_with('}') {
            out.push((ident_at(after).to_owned(), i + 1, b + 1));
            continue;
        }
        let close = " ".repeat(indent) + "}";
        let Some(end) = lines[i..]
            .iter()
            .position(|l| l.starts_with(&close) && l[indent..].starts_with('}'))
        else {
            continue;
        };
        out.push((ident_at(after).to_owned(), i + 1, end + 1));
    }
    out
}

#[test]
fn no_compose_function_is_longer_than_the_limit() {
    let mut files = Vec::new();
    rust_files(&src().join("compose"), &mut files);
    let mut long = Vec::new();
    for p in &files {
        let text = fs::read_to_string(p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()));
        for (name, line, len) in function_lengths(&text) {
            if len > MAX_COMPOSE_FN_LINES {
                long.push(format!("{}:{line} fn {name}: {len} lines", p.display()));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions in src/compose over {MAX_COMPOSE_FN_LINES} lines:\n{}",
        long.join("\n")
    );
}

#[test]
fn function_lengths_count_from_signature_to_closing_brace() {
    let text = "fn short() {\n    1\n}\n\
                pub(crate) fn spans(\n    a: u8,\n) -> u8 {\n    if a > 0 {\n        a\n    } else {\n        0\n    }\n}\n\
                trait T {\n    fn decl(&self);\n    fn body(&self) {}\n}\n\
                impl X {\n    pub fn inner(&self) -> u8 {\n        2\n    }\n}\n";
    assert_eq!(
        function_lengths(text),
        vec![
            ("short".to_owned(), 1, 3),
            ("spans".to_owned(), 4, 9),
            ("body".to_owned(), 15, 1),
            ("inner".to_owned(), 18, 3),
        ]
    );
}
