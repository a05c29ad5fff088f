//! The tree's shape, as docs/architecture.md describes it: the top-level modules of `src/` import
//! each other without a cycle (a lower layer never reaches back into a higher one), and no source
//! file outside the tests is over 1,200 lines.
//!
//! Imports are read from the text: every `crate::NAME` path and every top-level name of a
//! `use crate::{...}` group, outside comments and outside test code (a file named `tests.rs`, a
//! `tests/` folder, and the `#[cfg(test)] mod tests` at the end of a file), since tests may build
//! their inputs with any module.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The longest a source file may grow (issue 37's bound).
const MAX_LINES: usize = 1200;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, in a stable order.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
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

/// Whether a file (path relative to `src/`) is test code.
fn is_test_file(rel: &Path) -> bool {
    rel.file_name().is_some_and(|f| f == "tests.rs")
        || rel
            .components()
            .rev()
            .skip(1)
            .any(|c| c.as_os_str() == "tests")
}

/// The top-level module a file belongs to (`analyse` for `analyse/dhcp_lb/judge.rs`,
/// `pipeline` for `pipeline.rs`); `None` for the crate roots.
fn top_module(rel: &Path) -> Option<String> {
    let first = rel.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (name != "lib" && name != "main").then(|| name.to_string())
}

/// A file's code without its trailing unit-test module and without comments.
fn code_of(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut all = text.lines().peekable();
    while let Some(line) = all.next() {
        if line.trim() == "#[cfg(test)]" {
            match all.peek().map(|next| next.trim()) {
                // The unit tests written out at the end of the file: the rest is test code.
                Some("mod tests {") => break,
                // In a file of their own (`tests.rs`, skipped): the code goes on after them.
                Some("mod tests;") => {
                    all.next();
                    lines.extend([String::new(), String::new()]);
                    continue;
                }
                _ => {}
            }
        }
        let code = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        lines.push(code.to_string());
    }
    lines
}

/// The top-level names a piece of code imports through `crate::`, each with the byte offset of
/// its `crate::`.
fn imported(code: &str, tops: &BTreeSet<String>) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(i) = code[from..].find("crate::") {
        let at = from + i;
        let after = &code[at + "crate::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            // A group: `use crate::{a::b, c, d::{e, f}}`; its top-level names.
            let mut depth = 0usize;
            let mut item = String::new();
            for ch in group.chars() {
                match ch {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        found.extend(first_name(&item, tops).map(|n| (n, at)));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(ch);
            }
            found.extend(first_name(&item, tops).map(|n| (n, at)));
        } else {
            found.extend(first_name(after, tops).map(|n| (n, at)));
        }
        from = at + "crate::".len();
    }
    found
}

fn first_name(path: &str, tops: &BTreeSet<String>) -> Option<String> {
    let name: String = path
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    tops.contains(&name).then_some(name)
}

/// module -> imported module -> where (file:line, the first few).
type Graph = BTreeMap<String, BTreeMap<String, Vec<String>>>;

fn import_graph() -> Graph {
    let root = src();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let rels: Vec<PathBuf> = files
        .iter()
        .map(|f| f.strip_prefix(&root).expect("under src").to_path_buf())
        .collect();
    let tops: BTreeSet<String> = rels.iter().filter_map(|r| top_module(r)).collect();
    let mut graph = Graph::new();
    for (file, rel) in files.iter().zip(&rels) {
        let Some(top) = top_module(rel) else { continue };
        if is_test_file(rel) {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("source file");
        // A `use crate::{...}` group may span lines: the code is read whole.
        let code = code_of(&text).join("\n");
        for (target, offset) in imported(&code, &tops) {
            if target == top {
                continue;
            }
            let line = code[..offset].matches('\n').count() + 1;
            let at = graph
                .entry(top.clone())
                .or_default()
                .entry(target)
                .or_default();
            if at.len() < 4 {
                at.push(format!("src/{}:{line}", rel.display()));
            }
        }
    }
    graph
}

/// The strongly connected components of more than one module (Tarjan's algorithm).
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.graph.get(v).into_iter().flat_map(|m| m.keys()) {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
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
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.found
}

#[test]
fn the_reader_finds_imports_and_cycles() {
    // The reader itself, on made-up code: groups, nested groups, comments and a cycle.
    let tops: BTreeSet<String> = ["a", "b", "c", "d"].iter().map(|s| s.to_string()).collect();
    let code = code_of(
        "use crate::{a::X, b, d::{e, f}};\n// crate::c in a comment\n#[cfg(test)]\nmod tests;\n\
         let _ = crate::c::y();\n#[cfg(test)]\nmod tests {\n    use crate::d;\n}\n",
    )
    .join("\n");
    let names: BTreeSet<String> = imported(&code, &tops).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names.into_iter().collect::<Vec<_>>(), ["a", "b", "c", "d"]);
    let mut g = Graph::new();
    for (x, y) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")] {
        g.entry(x.into()).or_default().insert(y.into(), vec![]);
    }
    assert_eq!(
        cycles(&g),
        vec![vec!["a".to_string(), "b".into(), "c".into()]]
    );
    g.get_mut("c").expect("c").remove("a");
    assert!(cycles(&g).is_empty());
}

#[test]
fn top_level_modules_import_each_other_without_a_cycle() {
    let graph = import_graph();
    // The layering the code is built in: these imports must exist for the reader to be reading
    // anything, and their reverse must not.
    for (low, high) in [
        ("base", "source"),
        ("proto", "dissect"),
        ("dissect", "analyse"),
    ] {
        assert!(
            graph.get(high).is_some_and(|m| m.contains_key(low)),
            "{high} -> {low} not seen"
        );
    }
    let found = cycles(&graph);
    let mut text = String::new();
    for component in &found {
        text.push_str(&format!("cycle among {}:\n", component.join(", ")));
        for a in component {
            for b in component {
                if let Some(at) = graph.get(a).and_then(|m| m.get(b)) {
                    text.push_str(&format!("  {a} -> {b}: {}\n", at.join(" ")));
                }
            }
        }
    }
    assert!(found.is_empty(), "{text}");
}

#[test]
fn no_source_file_outside_the_tests_is_over_the_bound() {
    let root = src();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut long = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&root).expect("under src");
        if is_test_file(rel) {
            continue;
        }
        let lines = std::fs::read_to_string(f)
            .expect("source file")
            .lines()
            .count();
        if lines > MAX_LINES {
            long.push(format!("src/{}: {lines} lines", rel.display()));
        }
    }
    assert!(files.len() > 100, "only {} source files found", files.len());
    assert!(
        long.is_empty(),
        "over {MAX_LINES} lines:\n{}",
        long.join("\n")
    );
}
