//! The workspace's structure, for every crate (the engine, the host, the validator): no two
//! modules under one parent depend on each other in a cycle, at any depth, and no source file
//! or function grows past its limit. What breaks a rule today is named in an allowlist below,
//! so a new cycle or a new oversize file fails, and an entry that no longer applies fails too
//! (the list only shrinks).
//!
//! The checks read the sources as text. A file is a module (`a/b.rs` and `a/b/mod.rs` are
//! `a::b`); a path from `crate::`, `super::` or `self::` in it, resolved through the `use`
//! declarations of the modules on its way (a re-export leads to the module that defines the
//! name), is an edge. Two modules in a child-parent line are not a cycle: a `mod.rs` is its
//! children's facade. Comments and `mod tests` blocks are not read.

#![allow(clippy::disallowed_methods)] // a test of the sources reads them

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The most lines a source file may have, the unit tests beside the code included: a file
/// past it holds more than one job, and every file of the host and the validator fits.
const MAX_FILE_LINES: usize = 800;

/// The most lines a function may have, from its `fn` line to its closing brace: about two
/// screens; a longer one has concerns woven in that want helpers of their own.
const MAX_FN_LINES: usize = 120;

/// The tighter limit for functions in the engine's `src/compose`, the orchestration a reader
/// follows step by step.
const MAX_COMPOSE_FN_LINES: usize = 80;

/// A crate of the workspace: its name, its `src` directory (from the repository root) and
/// what it may break today.
struct Crate {
    name: &'static str,
    src: &'static str,
    /// Cycles between modules of one parent: `("parent", &["a", "b"])` is the set of the
    /// parent's children that reach each other (the root is `""`).
    cycles: &'static [(&'static str, &'static [&'static str])],
    /// Files over [`MAX_FILE_LINES`], from `src`.
    long_files: &'static [&'static str],
    /// Functions over [`MAX_FN_LINES`], as `file:fn`.
    long_fns: &'static [&'static str],
}

const CRATES: [Crate; 3] = [ENGINE, HOST, VALIDATE];

/// The engine breaks no rule: a new cycle, oversize file or oversize function fails.
const ENGINE: Crate = Crate {
    name: "xprender",
    src: "src",
    cycles: &[],
    long_files: &[],
    long_fns: &[],
};

const HOST: Crate = Crate {
    name: "xprender-host",
    src: "host/src",
    cycles: &[],
    long_files: &[],
    long_fns: &[],
};

const VALIDATE: Crate = Crate {
    name: "xprender-validate",
    src: "validate/src",
    cycles: &[],
    long_files: &[],
    long_fns: &[],
};

/// A module's path in its crate (`["compose", "input"]`; the root is empty).
type ModPath = Vec<String>;
/// Siblings' edges, by parent.
type Graph = BTreeMap<String, BTreeSet<String>>;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
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

fn read(p: &Path) -> String {
    fs::read_to_string(p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()))
}

/// A line without its `//` comment (a `//` inside a string literal is rare enough in the
/// sources that cutting there only drops text, never adds an edge).
fn code(line: &str) -> &str {
    line.find("//").map_or(line, |i| &line[..i])
}

fn ident_at(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The module a file is, or `None` for a second crate root beside `lib.rs` (`main.rs` is
/// its own crate and reaches the library only by its name).
fn module_of(src: &Path, file: &Path, has_lib: bool) -> Option<ModPath> {
    let rel = file.strip_prefix(src).ok()?;
    let mut parts: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop()?;
    match last.as_str() {
        "lib.rs" if parts.is_empty() => {}
        "main.rs" if parts.is_empty() => {
            if has_lib {
                return None;
            }
        }
        "mod.rs" => {}
        other => parts.push(other.trim_end_matches(".rs").to_owned()),
    }
    Some(parts)
}

/// A file's code as the checks read it: comments blanked, `mod tests` blocks dropped, and
/// for each line how many inline modules (`mod x { ... }`) it sits in.
fn code_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    // The indentation of each open inline module, and of a `mod tests` being skipped.
    let mut open: Vec<usize> = Vec::new();
    let mut skip: Option<usize> = None;
    for line in text.lines() {
        let c = code(line);
        let indent = c.len() - c.trim_start().len();
        if let Some(at) = skip {
            if c.len() > at && c[at..].starts_with('}') && indent == at {
                skip = None;
            }
            continue;
        }
        let t = c.trim();
        if t == "mod tests {" {
            skip = Some(indent);
            continue;
        }
        if open.last() == Some(&indent) && t.starts_with('}') {
            open.pop();
        }
        out.push((open.len(), c.to_owned()));
        let decl = t
            .strip_prefix("pub(crate) ")
            .or_else(|| t.strip_prefix("pub(super) "))
            .or_else(|| t.strip_prefix("pub "))
            .unwrap_or(t);
        if decl.starts_with("mod ") && decl.ends_with('{') {
            open.push(indent);
        }
    }
    out
}

/// The paths of a `use` tree or a path expression from `s` (just past a `::`): each as its
/// segments and the name it is bound to.
fn path_tree(s: &str, prefix: &[String], out: &mut Vec<(ModPath, String)>) {
    let s = s.trim_start();
    if let Some(group) = s.strip_prefix('{') {
        let mut depth = 0usize;
        let mut start = 0;
        for (j, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    path_tree(&group[start..j], prefix, out);
                    return;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    path_tree(&group[start..j], prefix, out);
                    start = j + 1;
                }
                _ => {}
            }
        }
        return;
    }
    let name = ident_at(s);
    if name.is_empty() {
        // `*` or the end of a path: the prefix itself.
        if let Some(last) = prefix.last() {
            out.push((prefix.to_vec(), last.clone()));
        }
        return;
    }
    let rest = &s[name.len()..];
    let mut path = prefix.to_vec();
    if name != "self" {
        path.push(name.to_owned());
    }
    if let Some(rest) = rest.trim_start().strip_prefix("::") {
        path_tree(rest, &path, out);
        return;
    }
    let bound = rest
        .trim_start()
        .strip_prefix("as ")
        .map_or(path.last().cloned().unwrap_or_default(), |a| {
            ident_at(a.trim_start()).to_owned()
        });
    out.push((path, bound));
}

/// Everything a file refers to from `crate::`, `super::` or `self::` paths, as absolute
/// module paths (plus the rest of the path).
fn file_refs(module: &[String], lines: &[(usize, String)]) -> Vec<ModPath> {
    let mut refs = Vec::new();
    // A path can run over lines (a `use` group): each line is read with what follows it.
    let starts: Vec<usize> = lines
        .iter()
        .scan(0, |at, (_, l)| {
            let s = *at;
            *at += l.len() + 1;
            Some(s)
        })
        .collect();
    let text: String = lines.iter().map(|(_, l)| format!("{l}\n")).collect();
    for (i, (depth, _)) in lines.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(text.len());
        let mut at = starts[i];
        while let Some(found) = text[at..end].find("::") {
            let colons = at + found;
            at = colons + 2;
            let before = &text[..colons];
            let word_start = before
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .map_or(0, |k| k + 1);
            let word = &before[word_start..];
            // Only the first segment of a path: `a::super` is not a root.
            let lead = before[..word_start].trim_end();
            if lead.ends_with("::") {
                continue;
            }
            let base = match word {
                "crate" => Vec::new(),
                "self" => module.to_vec(),
                "super" => {
                    let mut ups: usize = 1;
                    let mut rest = &text[at..];
                    while let Some(r) = rest.strip_prefix("super::") {
                        ups += 1;
                        rest = r;
                    }
                    at = text.len() - rest.len();
                    // Inside an inline module the first `super`s stay in this file.
                    let ups = ups.saturating_sub(*depth);
                    module[..module.len().saturating_sub(ups)].to_vec()
                }
                _ => continue,
            };
            let mut found = Vec::new();
            path_tree(&text[at..], &base, &mut found);
            refs.extend(found.into_iter().map(|(p, _)| p));
        }
    }
    refs
}

/// The names a module's own `use` declarations bind, with the absolute paths they stand for.
fn bindings(
    module: &[String],
    lines: &[(usize, String)],
    children: &BTreeSet<String>,
) -> BTreeMap<String, ModPath> {
    let mut names = BTreeMap::new();
    let text: String = lines
        .iter()
        .filter(|(depth, _)| *depth == 0)
        .map(|(_, l)| format!("{l}\n"))
        .collect();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("use ") {
        let line_start = rest[..i].rfind('\n').map_or(0, |k| k + 1);
        let lead = &rest[line_start..i];
        let stmt_end = rest[i..].find(';').map_or(rest.len(), |k| i + k);
        let stmt = &rest[i + "use ".len()..stmt_end];
        rest = &rest[stmt_end.min(rest.len())..];
        if !matches!(lead, "" | "pub " | "pub(crate) " | "pub(super) ") {
            continue;
        }
        let first = ident_at(stmt.trim_start());
        let base: ModPath = match first {
            "crate" => Vec::new(),
            "self" => module.to_vec(),
            "super" => module[..module.len().saturating_sub(1)].to_vec(),
            c if children.contains(c) => module.to_vec(),
            _ => continue,
        };
        let tree = if matches!(first, "crate" | "self" | "super") {
            stmt.trim_start()[first.len()..]
                .trim_start()
                .trim_start_matches("::")
        } else {
            stmt.trim_start()
        };
        // `super::super::x` climbs on.
        let (mut base, mut tree) = (base, tree);
        while let Some(t) = tree.strip_prefix("super::") {
            base.pop();
            tree = t;
        }
        let mut found = Vec::new();
        path_tree(tree, &base, &mut found);
        for (path, name) in found {
            names.insert(name, path);
        }
    }
    names
}

/// One crate's modules: each one's file, children and bindings.
struct Modules {
    files: BTreeMap<ModPath, PathBuf>,
    bindings: BTreeMap<ModPath, BTreeMap<String, ModPath>>,
    refs: BTreeMap<ModPath, Vec<ModPath>>,
}

impl Modules {
    fn read(src: &Path) -> Modules {
        let mut paths = Vec::new();
        rust_files(src, &mut paths);
        let has_lib = src.join("lib.rs").exists();
        let files: BTreeMap<ModPath, PathBuf> = paths
            .into_iter()
            .filter_map(|p| Some((module_of(src, &p, has_lib)?, p)))
            .collect();
        let mut bindings = BTreeMap::new();
        let mut refs = BTreeMap::new();
        for (m, p) in &files {
            let lines = code_lines(&read(p));
            let children: BTreeSet<String> = files
                .keys()
                .filter(|c| c.len() == m.len() + 1 && c.starts_with(m))
                .map(|c| c[m.len()].clone())
                .collect();
            bindings.insert(m.clone(), self::bindings(m, &lines, &children));
            refs.insert(m.clone(), file_refs(m, &lines));
        }
        Modules {
            files,
            bindings,
            refs,
        }
    }

    /// The module that defines what `path` names: the longest module prefix, followed
    /// through re-exports.
    fn resolve(&self, path: &[String]) -> ModPath {
        let mut path = path.to_vec();
        // A re-export chain is short; the bound keeps a `use` cycle from looping.
        for _ in 0..16 {
            let mut at: ModPath = Vec::new();
            let mut next = None;
            for (i, seg) in path.iter().enumerate() {
                let mut child = at.clone();
                child.push(seg.clone());
                if self.files.contains_key(&child) {
                    at = child;
                    continue;
                }
                // `use child;` binds the name to itself: not a re-export to follow.
                if let Some(target) = self.bindings.get(&at).and_then(|b| b.get(seg))
                    && *target != child
                {
                    let mut t = target.clone();
                    t.extend(path[i + 1..].iter().cloned());
                    next = Some(t);
                }
                break;
            }
            match next {
                Some(t) if t != path => path = t,
                _ => return at,
            }
        }
        path
    }

    /// Edges between siblings, by parent (`""` for the root, else `a::b`).
    fn sibling_graphs(&self) -> BTreeMap<String, Graph> {
        let mut graphs: BTreeMap<String, Graph> = BTreeMap::new();
        for m in self.files.keys() {
            if let Some((_, parent)) = m.split_last() {
                graphs
                    .entry(parent.join("::"))
                    .or_default()
                    .entry(m.last().cloned().unwrap_or_default())
                    .or_default();
            }
        }
        for (from, refs) in &self.refs {
            for r in refs {
                let to = self.resolve(r);
                let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
                if common == from.len() || common == to.len() {
                    continue;
                }
                graphs
                    .entry(from[..common].join("::"))
                    .or_default()
                    .entry(from[common].clone())
                    .or_default()
                    .insert(to[common].clone());
            }
        }
        graphs
    }
}

/// The strongly connected sets of more than one node (Tarjan's algorithm), sorted.
fn cycles(graph: &Graph) -> Vec<BTreeSet<String>> {
    struct State<'g> {
        graph: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        found: Vec<BTreeSet<String>>,
    }
    fn visit<'g>(n: &'g str, s: &mut State<'g>) {
        let i = s.index.len();
        s.index.insert(n, i);
        s.low.insert(n, i);
        s.stack.push(n);
        s.on_stack.insert(n);
        for m in s.graph.get(n).into_iter().flatten() {
            let m = m.as_str();
            if !s.index.contains_key(m) {
                visit(m, s);
                let low = s.low[n].min(s.low[m]);
                s.low.insert(n, low);
            } else if s.on_stack.contains(m) {
                let low = s.low[n].min(s.index[m]);
                s.low.insert(n, low);
            }
        }
        if s.low[n] == s.index[n] {
            let mut set = BTreeSet::new();
            while let Some(m) = s.stack.pop() {
                s.on_stack.remove(m);
                set.insert(m.to_owned());
                if m == n {
                    break;
                }
            }
            if set.len() > 1 {
                s.found.push(set);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for n in graph.keys() {
        if !s.index.contains_key(n.as_str()) {
            visit(n, &mut s);
        }
    }
    s.found.sort();
    s.found
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
        let sig = sig.strip_prefix("async ").unwrap_or(sig);
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

/// What `found` holds beyond `allowed`, and what `allowed` names that is no longer found.
fn compare(found: &BTreeSet<String>, allowed: &BTreeSet<String>) -> Vec<String> {
    let new = found.difference(allowed).map(|f| format!("new: {f}"));
    let stale = allowed
        .difference(found)
        .map(|a| format!("allowed but gone (remove it from the list): {a}"));
    new.chain(stale).collect()
}

fn cycle_names(c: &Crate) -> BTreeSet<String> {
    let modules = Modules::read(&root().join(c.src));
    let mut found = BTreeSet::new();
    for (parent, graph) in modules.sibling_graphs() {
        for set in cycles(&graph) {
            let set: Vec<_> = set.into_iter().collect();
            found.insert(format!("{parent}::{{{}}}", set.join(", ")));
        }
    }
    found
}

#[test]
fn no_modules_under_one_parent_form_a_cycle() {
    let mut problems = Vec::new();
    for c in &CRATES {
        let allowed = c
            .cycles
            .iter()
            .map(|(parent, set)| {
                let mut set = set.to_vec();
                set.sort_unstable();
                format!("{parent}::{{{}}}", set.join(", "))
            })
            .collect();
        for p in compare(&cycle_names(c), &allowed) {
            problems.push(format!("{}: module cycle {p}", c.name));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn no_file_is_longer_than_the_limit() {
    let mut problems = Vec::new();
    for c in &CRATES {
        let src = root().join(c.src);
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        let long = files
            .iter()
            .filter(|p| read(p).lines().count() > MAX_FILE_LINES)
            .map(|p| {
                p.strip_prefix(&src)
                    .expect("under src")
                    .display()
                    .to_string()
            })
            .collect();
        let allowed = c.long_files.iter().map(|f| (*f).to_owned()).collect();
        for p in compare(&long, &allowed) {
            problems.push(format!("{}: file over {MAX_FILE_LINES} lines {p}", c.name));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn no_function_is_longer_than_the_limit() {
    let mut problems = Vec::new();
    for c in &CRATES {
        let src = root().join(c.src);
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        let mut long = BTreeSet::new();
        for p in &files {
            let rel = p.strip_prefix(&src).expect("under src");
            let limit = if c.src == "src" && rel.starts_with("compose") {
                MAX_COMPOSE_FN_LINES
            } else {
                MAX_FN_LINES
            };
            for (name, _, len) in function_lengths(&read(p)) {
                if len > limit {
                    long.insert(format!("{}:{name}", rel.display()));
                }
            }
        }
        let allowed = c.long_fns.iter().map(|f| (*f).to_owned()).collect();
        for p in compare(&long, &allowed) {
            problems.push(format!("{}: function over its limit {p}", c.name));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn only_the_command_line_reaches_the_host_commands() {
    let modules = Modules::read(&root().join(HOST.src));
    let graphs = modules.sibling_graphs();
    let top = &graphs[""];
    assert_eq!(top.get("cli"), Some(&set(&["commands"])), "{top:?}");
    for (from, to) in top {
        assert!(!to.contains("cli"), "{from} depends on cli");
        if from != "cli" {
            assert!(!to.contains("commands"), "{from} depends on commands");
        }
    }
}

#[test]
fn the_go_runtime_module_depends_on_nothing_else() {
    let modules = Modules::read(&root().join("src"));
    let graphs = modules.sibling_graphs();
    assert_eq!(graphs[""].get("go"), Some(&BTreeSet::new()), "{graphs:?}");
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

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|n| (*n).to_owned()).collect()
}

#[test]
fn the_cycle_check_finds_every_cycle() {
    let g = graph_of(&[
        ("a", "b"),
        ("b", "c"),
        ("c", "d"),
        ("d", "b"),
        ("a", "e"),
        ("e", "f"),
        ("f", "e"),
    ]);
    assert_eq!(cycles(&g), vec![set(&["b", "c", "d"]), set(&["e", "f"])]);
    let acyclic = graph_of(&[("a", "b"), ("b", "c"), ("a", "c"), ("d", "a")]);
    assert!(cycles(&acyclic).is_empty());
}

fn paths(text: &str, module: &[&str]) -> Vec<String> {
    let module: ModPath = module.iter().map(|m| (*m).to_owned()).collect();
    file_refs(&module, &code_lines(text))
        .into_iter()
        .map(|p| p.join("::"))
        .collect()
}

#[test]
fn paths_are_read_from_crate_super_and_self() {
    let text = "use crate::fmt::quote;\n\
                use crate::{error::{Error, Result}, value::Value,\n    go};\n\
                // crate::compose is only mentioned in a comment\n\
                let x = crate::fieldpath::get(v); // and crate::trace here\n\
                let y = subcrate::patch::x;\n\
                use super::super::plan::Step;\n\
                use self::inner::Thing;\n\
                mod inline {\n    use super::Local;\n}\n\
                #[cfg(test)]\nmod tests {\n    use crate::testing;\n}\n";
    assert_eq!(
        paths(text, &["compose", "step"]),
        [
            "fmt::quote",
            "error::Error",
            "error::Result",
            "value::Value",
            "go",
            "fieldpath::get",
            "plan::Step",
            "compose::step::inner::Thing",
            "compose::step::Local",
        ]
    );
}

#[test]
fn re_exports_lead_to_the_defining_module() {
    let mut m = Modules {
        files: BTreeMap::new(),
        bindings: BTreeMap::new(),
        refs: BTreeMap::new(),
    };
    for f in [
        &[][..],
        &["io"],
        &["io", "input"],
        &["io", "yaml_read"],
        &["cluster"],
    ] {
        let path: ModPath = f.iter().map(|s: &&str| (*s).to_owned()).collect();
        m.files.insert(path, PathBuf::new());
    }
    let io = vec!["io".to_owned()];
    let lines = code_lines("mod input;\npub(crate) use input::{Doc, read as read_docs};\n");
    m.bindings.insert(
        io.clone(),
        bindings(&io, &lines, &set(&["input", "yaml_read"])),
    );
    let p = |s: &str| s.split("::").map(str::to_owned).collect::<ModPath>();
    assert_eq!(m.resolve(&p("io::Doc")), p("io::input"));
    assert_eq!(m.resolve(&p("io::read_docs")), p("io::input"));
    assert_eq!(m.resolve(&p("io::MAX_DEPTH")), p("io"));
    m.refs.insert(p("cluster"), vec![p("io::Doc")]);
    m.refs.insert(p("io::yaml_read"), vec![p("io::Doc")]);
    let graphs = m.sibling_graphs();
    assert_eq!(graphs[""]["cluster"], set(&["io"]));
    assert_eq!(graphs["io"]["yaml_read"], set(&["input"]));
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
