//! No import circles between the modules of any crate of the workspace.
//!
//! Two modules with the same parent are in a circle when each reaches the
//! other through `crate::…` or `super::…` paths (directly or through other
//! siblings). A module using its own ancestors or descendants does not
//! count: a parent declares its children and re-exports from them, and a
//! child may use what its parent defines. The paths are read from the
//! sources with comments and literals taken out, which is all a module
//! reference can be written with here (no macros build paths).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path inside its crate (`["adjoint", "rules"]`; the root is `[]`).
type ModPath = Vec<String>;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module a file defines: `a/b.rs` and `a/b/mod.rs` are `a::b`,
/// `lib.rs` and `main.rs` the root. Binaries under `src/bin/` are crates of
/// their own and are left out.
fn module_of(src: &Path, file: &Path) -> Option<ModPath> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut path: ModPath = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if path.first().is_some_and(|p| p == "bin") {
        return None;
    }
    if path
        .last()
        .is_some_and(|l| l == "mod" || l == "lib" || l == "main")
    {
        path.pop();
    }
    Some(path)
}

/// The text with comments, string and character literals blanked out.
fn code_only(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            '/' if b.get(i + 1) == Some(&'/') => {
                while i < b.len() && b[i] != '\n' {
                    i += 1;
                }
            }
            '/' if b.get(i + 1) == Some(&'*') => {
                let mut depth = 0;
                while i < b.len() {
                    if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                        depth += 1;
                        i += 2;
                    } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                out.push(' ');
            }
            'r' if matches!(b.get(i + 1), Some('"' | '#')) && (i == 0 || !ident_char(b[i - 1])) => {
                // A raw string: r"…", r#"…"#.
                let mut j = i + 1;
                let mut hashes = 0;
                while b.get(j) == Some(&'#') {
                    hashes += 1;
                    j += 1;
                }
                if b.get(j) != Some(&'"') {
                    out.push(b[i]);
                    i += 1;
                    continue;
                }
                j += 1;
                'scan: while j < b.len() {
                    if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                        j += 1 + hashes;
                        break 'scan;
                    }
                    j += 1;
                }
                i = j;
                out.push_str("\"\"");
            }
            '"' => {
                i += 1;
                while i < b.len() && b[i] != '"' {
                    i += if b[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("\"\"");
            }
            // A character literal ('a', '\n', '\''), not a lifetime ('a).
            '\'' if b.get(i + 1) == Some(&'\\') => {
                i += 2;
                while i < b.len() && b[i] != '\'' {
                    i += 1;
                }
                i += 1;
                out.push_str("' '");
            }
            '\'' if b.get(i + 2) == Some(&'\'') => {
                i += 3;
                out.push_str("' '");
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

fn ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths written after `crate::` or `super::` in `code`, each made
/// absolute (from the crate root) for a file of module `at`. A use tree
/// (`crate::{a, b::{c, d}}`) gives one path per leaf.
fn references(code: &str, at: &ModPath) -> Vec<ModPath> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if (i > 0 && (ident_char(chars[i - 1]) || chars[i - 1] == ':')) || !ident_char(chars[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && ident_char(chars[i]) {
            i += 1;
        }
        let word: String = chars[start..i].iter().collect();
        if word != "crate" && word != "super" {
            continue;
        }
        // A `super` of a file `a/b.rs` is `a`; of `a/b/mod.rs` too (its
        // module is `a::b`, whose parent is `a`).
        let mut base: ModPath = if word == "crate" {
            Vec::new()
        } else {
            at[..at.len().saturating_sub(1)].to_vec()
        };
        // More `super::`s.
        while chars[i..].starts_with(&[':', ':', 's', 'u', 'p', 'e', 'r'])
            && !chars.get(i + 7).is_some_and(|&c| ident_char(c))
        {
            i += 7;
            base.pop();
        }
        use_tree(&chars, &mut i, base, &mut out);
    }
    out
}

/// Reads `::a::b`, `::{…}` or `::*` from `chars[*i..]` after the prefix
/// `base`, pushing each path.
fn use_tree(chars: &[char], i: &mut usize, base: ModPath, out: &mut Vec<ModPath>) {
    let skip_ws = |i: &mut usize| {
        while *i < chars.len() && chars[*i].is_whitespace() {
            *i += 1;
        }
    };
    let mut path = base;
    loop {
        skip_ws(i);
        if !(chars.get(*i) == Some(&':') && chars.get(*i + 1) == Some(&':')) {
            break;
        }
        *i += 2;
        skip_ws(i);
        match chars.get(*i) {
            Some('{') => {
                *i += 1;
                loop {
                    skip_ws(i);
                    match chars.get(*i) {
                        Some('}') => {
                            *i += 1;
                            return;
                        }
                        Some(',') => *i += 1,
                        None => return,
                        Some(c) if ident_char(*c) => {
                            let start = *i;
                            while *i < chars.len() && ident_char(chars[*i]) {
                                *i += 1;
                            }
                            let word: String = chars[start..*i].iter().collect();
                            let mut inner = path.clone();
                            if word != "self" {
                                inner.push(word);
                            }
                            use_tree(chars, i, inner, out);
                        }
                        Some(_) => *i += 1,
                    }
                }
            }
            Some(c) if ident_char(*c) => {
                let start = *i;
                while *i < chars.len() && ident_char(chars[*i]) {
                    *i += 1;
                }
                path.push(chars[start..*i].iter().collect());
            }
            _ => break,
        }
    }
    out.push(path);
}

/// The circles of one crate: for each set of siblings in a circle, the
/// edges between them with one example of a path that makes each.
fn circles(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeMap<ModPath, PathBuf> = files
        .iter()
        .filter_map(|f| Some((module_of(src, f)?, f.clone())))
        .collect();
    // Edges between siblings, with an example.
    let mut edges: BTreeMap<ModPath, BTreeMap<ModPath, String>> = BTreeMap::new();
    for (at, file) in &modules {
        let text = std::fs::read_to_string(file).unwrap();
        for r in references(&code_only(&text), at) {
            let Some(target) = (0..=r.len())
                .rev()
                .map(|k| r[..k].to_vec())
                .find(|p| modules.contains_key(p))
            else {
                continue;
            };
            let common = at.iter().zip(&target).take_while(|(a, b)| a == b).count();
            if common == at.len() || common == target.len() {
                continue;
            }
            edges
                .entry(at[..=common].to_vec())
                .or_default()
                .entry(target[..=common].to_vec())
                .or_insert_with(|| format!("{} uses crate::{}", file.display(), r.join("::")));
        }
    }
    // Strongly connected components (Tarjan).
    struct Tarjan<'a> {
        edges: &'a BTreeMap<ModPath, BTreeMap<ModPath, String>>,
        index: BTreeMap<ModPath, (usize, usize)>,
        stack: Vec<ModPath>,
        on_stack: BTreeSet<ModPath>,
        next: usize,
        found: Vec<Vec<ModPath>>,
    }
    impl Tarjan<'_> {
        fn visit(&mut self, v: &ModPath) {
            self.index.insert(v.clone(), (self.next, self.next));
            self.next += 1;
            self.stack.push(v.clone());
            self.on_stack.insert(v.clone());
            let targets: Vec<ModPath> = self
                .edges
                .get(v)
                .map(|e| e.keys().cloned().collect())
                .unwrap_or_default();
            for w in &targets {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.index[w].1.min(self.index[v].1);
                    self.index.get_mut(v).unwrap().1 = low;
                } else if self.on_stack.contains(w) {
                    let low = self.index[w].0.min(self.index[v].1);
                    self.index.get_mut(v).unwrap().1 = low;
                }
            }
            if self.index[v].0 == self.index[v].1 {
                let mut component = Vec::new();
                loop {
                    let w = self.stack.pop().unwrap();
                    self.on_stack.remove(&w);
                    let done = &w == v;
                    component.push(w);
                    if done {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }
    let mut t = Tarjan {
        edges: &edges,
        index: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        found: Vec::new(),
    };
    let nodes: Vec<ModPath> = edges.keys().cloned().collect();
    for v in &nodes {
        if !t.index.contains_key(v) {
            t.visit(v);
        }
    }
    t.found
        .iter()
        .map(|component| {
            let mut s = format!(
                "{{{}}}:",
                component
                    .iter()
                    .map(|m| m.join("::"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            for a in component {
                for (b, example) in &edges[a] {
                    if component.contains(b) {
                        s.push_str(&format!(
                            "\n    {} -> {}: {example}",
                            a.join("::"),
                            b.join("::")
                        ));
                    }
                }
            }
            s
        })
        .collect()
}

fn crates() -> Vec<PathBuf> {
    let root = workspace();
    let mut out: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("Cargo.toml").is_file() && p.join("src").is_dir())
        .collect();
    // Crates inside crate folders (tests/library).
    for c in out.clone() {
        for e in std::fs::read_dir(&c).unwrap().flatten() {
            let p = e.path();
            if p.join("Cargo.toml").is_file() && p.join("src").is_dir() {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn no_crate_has_an_import_circle_between_its_modules() {
    let crates = crates();
    assert!(crates.len() >= 10, "{crates:?}");
    let mut found = Vec::new();
    for c in &crates {
        for circle in circles(&c.join("src")) {
            found.push(format!(
                "{}: {circle}",
                c.file_name().unwrap().to_string_lossy()
            ));
        }
    }
    assert!(found.is_empty(), "import circles:\n{}", found.join("\n"));
}

/// The reader finds the circles it is meant to: a small crate with one.
#[test]
fn a_circle_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("a")).unwrap();
    std::fs::write(src.join("lib.rs"), "mod a; mod b; mod c;\nuse crate::a::x;").unwrap();
    std::fs::write(src.join("a/mod.rs"), "mod inner;\npub fn x() {}").unwrap();
    // a::inner reaches b; b reaches c through a use tree; c reaches a
    // through `super`. A comment and a string naming a module do not count.
    std::fs::write(
        src.join("a/inner.rs"),
        "fn f() { crate::b::y() }\n// crate::c\n",
    )
    .unwrap();
    std::fs::write(
        src.join("b.rs"),
        "use crate::{c::{self, z}};\nconst S: &str = \"crate::a\";",
    )
    .unwrap();
    std::fs::write(src.join("c.rs"), "use super::a::x;\npub fn z() {}").unwrap();
    let found = circles(src);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("{a, b, c}:"), "{}", found[0]);
    // Breaking one edge (c no longer uses a) leaves none.
    std::fs::write(src.join("c.rs"), "pub fn z() {}").unwrap();
    assert!(circles(src).is_empty());
}
