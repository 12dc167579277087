//! No two source files of a crate under crates/ use each other, directly or through a chain: a reader
//! can take the files of a crate in an order where each uses only files read before it.
//!
//! Each file `src/…/x.rs` (or `x/mod.rs`) is the module it declares; it *uses* another file when its
//! code names a path into that file's module: `crate::…`, `super::…`, `self::…`, or a child module's
//! name (`child::Item`, `use child::…`), `use` groups included. Comments and strings are skipped. A
//! `mod child;` declaration alone is not a use, so a child that uses its parent's items (`use
//! super::*` in a `tests` module) closes a circle only if the parent also uses the child's items.
//! The one allowance: what an inline `mod tests { … }` uses is not counted as its file's use, as if it
//! were the separate `tests.rs` child that no file uses (snapshot.rs's tests build a scene, say).
//! A module declared with `#[path = "f.rs"]` is the file f.rs: a path into it is a use of that file
//! (`fluids3d.rs` compiles the 2D fluid's solver files again; its scene uses them as files of
//! `fluids/`).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

type Module = Vec<String>;

/// Every `.rs` file below `dir`.
fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

/// The module a file of `src` declares: `lib.rs`/`main.rs` → [], `a/b.rs` and `a/b/mod.rs` → [a, b].
fn module_of(src: &Path, file: &Path) -> Module {
    let mut parts: Module = file
        .strip_prefix(src)
        .unwrap()
        .with_extension("")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// Identifiers and the punctuation that matters (`::`, `{`, `}`, `,`, `;`, `$`, `.`), without
/// comments, strings and character literals.
fn tokens(source: &str) -> Vec<String> {
    let chars: Vec<char> = source.chars().collect();
    let (mut out, mut i) = (Vec::new(), 0);
    let skip_string = |mut i: usize| {
        while i < chars.len() && chars[i] != '"' {
            i += if chars[i] == '\\' { 2 } else { 1 };
        }
        i + 1
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied().unwrap_or(' ');
        if c == '/' && next == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == '"' {
            i = skip_string(i + 1);
        } else if c == 'r' && raw_string_hashes(&chars, i).is_some() {
            // A raw string r"…" or r#"…"#.
            let hashes = raw_string_hashes(&chars, i).unwrap();
            let close: String = std::iter::once('"')
                .chain("#".repeat(hashes).chars())
                .collect();
            let rest: String = chars[i + 1 + hashes + 1..].iter().collect();
            i += 1 + hashes + 1 + rest.find(&close).map_or(rest.len(), |k| k + close.len());
        } else if c == '\'' {
            // A character literal ('x', '\n', '\''), else a lifetime.
            if next == '\\' {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        } else if c == ':' && next == ':' {
            out.push("::".into());
            i += 2;
        } else {
            if "{},;$.".contains(c) {
                out.push(c.to_string());
            }
            i += 1;
        }
    }
    out
}

/// The number of `#` of a raw string starting at `chars[i]` = 'r' (None if none starts there: an
/// identifier ending in r, a raw identifier r#name).
fn raw_string_hashes(chars: &[char], i: usize) -> Option<usize> {
    if i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_') {
        return None;
    }
    let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
    (chars.get(i + 1 + hashes) == Some(&'"')).then_some(hashes)
}

/// The paths of a `use`-like path starting at `tokens[at]` (after its first segment): each as its
/// segments after the first, groups `{a::b, c}` expanded. Returns them and the index after the path.
fn paths_from(tokens: &[String], mut at: usize, prefix: Module) -> (Vec<Module>, usize) {
    let mut path = prefix;
    while tokens.get(at).map(String::as_str) == Some("::") {
        match tokens.get(at + 1).map(String::as_str) {
            Some("{") => {
                let mut all = Vec::new();
                at += 2;
                loop {
                    match tokens.get(at).map(String::as_str) {
                        None => return (all, at),
                        Some("}") => return (all, at + 1),
                        Some(",") => at += 1,
                        Some(first) => {
                            let mut start = path.clone();
                            if first != "self" {
                                start.push(first.to_string());
                            }
                            let (inner, after) = paths_from(tokens, at + 1, start);
                            all.extend(inner);
                            at = after;
                            // Skip `as name` and anything else up to the item's end.
                            while !matches!(
                                tokens.get(at).map(String::as_str),
                                None | Some(",") | Some("}")
                            ) {
                                at += 1;
                            }
                        }
                    }
                }
            }
            Some(segment) if segment != "::" => {
                path.push(segment.to_string());
                at += 2;
            }
            _ => break,
        }
    }
    (vec![path], at)
}

/// The file modules each file of one crate uses.
/// The modules declared with `#[path = "file.rs"] mod name;` (a file compiled a second time under
/// another module, as `fluids3d.rs` does with the 2D fluid's solver files), each with the module of
/// the file it names: paths into the alias are uses of that file.
fn path_attributes(src: &Path, modules: &BTreeMap<Module, PathBuf>) -> Vec<(Module, Module)> {
    let mut aliases = Vec::new();
    for (module, file) in modules {
        let source = fs::read_to_string(file).unwrap();
        let mut target: Option<PathBuf> = None;
        for line in source.lines().map(str::trim) {
            if let Some(rest) = line.strip_prefix("#[path = \"") {
                let name = rest.split('"').next().unwrap();
                target = Some(file.parent().unwrap().join(name));
            } else if let Some(named) = target.take() {
                let declared = line
                    .trim_start_matches("pub ")
                    .strip_prefix("mod ")
                    .and_then(|rest| rest.strip_suffix(';'));
                if let Some(name) = declared {
                    let mut alias = module.clone();
                    alias.push(name.to_string());
                    aliases.push((alias, module_of(src, &named)));
                } else if line.starts_with("#[") {
                    target = Some(named);
                }
            }
        }
    }
    aliases
}

fn crate_graph(src: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeMap<Module, PathBuf> = files
        .iter()
        .map(|f| (module_of(src, f), f.clone()))
        .collect();
    // The deepest file module along `path` (the file the path leads into).
    let aliases = path_attributes(src, &modules);
    let file_of = |path: &[String]| {
        // A module declared with `#[path = "…"]` is the file it names.
        let path: Module = aliases
            .iter()
            .find(|(alias, _)| path.starts_with(alias))
            .map_or_else(
                || path.to_vec(),
                |(alias, target)| target.iter().chain(&path[alias.len()..]).cloned().collect(),
            );
        (0..=path.len())
            .rev()
            .map(|n| path[..n].to_vec())
            .find(|m| modules.contains_key(m))
            .unwrap_or_default()
    };
    let mut graph = BTreeMap::new();
    for (module, file) in &modules {
        let tokens = tokens(&fs::read_to_string(file).unwrap());
        let mut uses = BTreeSet::new();
        // Inline modules (`mod tests { … }`) open at a brace depth.
        let (mut inline, mut depth): (Vec<(String, usize)>, usize) = (Vec::new(), 0);
        let mut i = 0;
        while i < tokens.len() {
            let token = tokens[i].as_str();
            let before = if i > 0 { tokens[i - 1].as_str() } else { "" };
            let here: Module = module
                .iter()
                .cloned()
                .chain(inline.iter().map(|(name, _)| name.clone()))
                .collect();
            match token {
                "{" => depth += 1,
                "}" => {
                    depth = depth.saturating_sub(1);
                    if inline.last().is_some_and(|(_, open)| *open == depth) {
                        inline.pop();
                    }
                }
                "mod" if tokens.get(i + 2).map(String::as_str) == Some("{") => {
                    inline.push((tokens[i + 1].clone(), depth));
                    depth += 1;
                    i += 3;
                    continue;
                }
                _ => {}
            }
            let starts_path = tokens.get(i + 1).map(String::as_str) == Some("::")
                && !matches!(before, "::" | "$" | ".");
            let base = match token {
                _ if !starts_path => None,
                "crate" => Some(Module::new()),
                "self" => Some(here.clone()),
                "super" => {
                    let mut base = here.clone();
                    let mut k = i;
                    base.pop();
                    while tokens.get(k + 2).map(String::as_str) == Some("super") {
                        base.pop();
                        k += 2;
                    }
                    i = k;
                    Some(base)
                }
                child => {
                    let mut path = here.clone();
                    path.push(child.to_string());
                    modules.keys().any(|m| m.starts_with(&path)).then_some(path)
                }
            };
            if let Some(base) = base {
                let (paths, after) = paths_from(&tokens, i + 1, base);
                // An inline `mod tests { … }` counts as the separate file it could be: a child that
                // no file uses, so what it uses closes no circle.
                let in_tests = inline.iter().any(|(name, _)| name == "tests");
                for path in paths.iter().filter(|_| !in_tests) {
                    let target = file_of(path);
                    if &target != module {
                        uses.insert(target);
                    }
                }
                i = after;
                continue;
            }
            i += 1;
        }
        graph.insert(module.clone(), uses);
    }
    graph
}

/// The import circles of `graph`: each strongly connected set of more than one file, as a chain
/// a → b → … → a through it.
fn circles(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    let reaches = |from: &Module, to: &Module| {
        let (mut seen, mut stack) = (BTreeSet::new(), vec![from.clone()]);
        while let Some(m) = stack.pop() {
            for next in &graph[&m] {
                if next == to {
                    return true;
                }
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        false
    };
    let mut done = BTreeSet::new();
    let mut found = Vec::new();
    for start in graph.keys() {
        if done.contains(start) || !reaches(start, start) {
            continue;
        }
        // A shortest chain back to `start` (breadth first), for the report.
        let mut previous: BTreeMap<Module, Module> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start.clone()]);
        'search: while let Some(m) = queue.pop_front() {
            for next in &graph[&m] {
                if next == start {
                    let mut chain = vec![start.clone(), m.clone()];
                    while let Some(p) = previous.get(chain.last().unwrap()) {
                        chain.push(p.clone());
                    }
                    chain.reverse();
                    found.push(chain);
                    break 'search;
                }
                if !previous.contains_key(next) && next != start {
                    previous.insert(next.clone(), m.clone());
                    queue.push_back(next.clone());
                }
            }
        }
        for m in graph.keys() {
            if reaches(start, m) && reaches(m, start) {
                done.insert(m.clone());
            }
        }
    }
    found
}

fn show(module: &Module) -> String {
    if module.is_empty() {
        "lib".into()
    } else {
        module.join("/")
    }
}

#[test]
fn no_source_file_of_any_crate_uses_a_file_that_uses_it() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut names: Vec<String> = fs::read_dir(&crates)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| crates.join(name).join("src").is_dir())
        .collect();
    names.sort();
    assert!(names.len() >= 5, "found the crates: {names:?}");
    let mut failures = Vec::new();
    for name in &names {
        let found = circles(&crate_graph(&crates.join(name).join("src")));
        failures.extend(found.iter().map(|chain| {
            let chain: Vec<String> = chain.iter().map(show).collect();
            format!("{name}: {}", chain.join(" → "))
        }));
    }
    assert!(
        failures.is_empty(),
        "import circles:\n{}",
        failures.join("\n")
    );
}

#[test]
fn the_checker_sees_a_circle_through_super_and_a_child_module() {
    // body ↔ melting as it was: melting uses super::body::Body, body uses super::melting::X.
    let dir = std::env::temp_dir().join(format!("phyxel-circles-{}", std::process::id()));
    let src = dir.join("src");
    fs::create_dir_all(src.join("meshless")).unwrap();
    let write = |path: &str, text: &str| fs::write(src.join(path), text).unwrap();
    write(
        "lib.rs",
        "pub mod meshless;\n// crate::meshless::body in a comment\n",
    );
    write("meshless/mod.rs", "pub mod body;\npub mod melting;\n");
    write(
        "meshless/body.rs",
        "pub struct Body;\nfn t() -> f64 { super::melting::AMBIENT }\n#[cfg(test)]\nmod tests { use super::*; }\n",
    );
    write(
        "meshless/melting.rs",
        "use super::{body::Body, /* x */};\npub const AMBIENT: f64 = 20.0;\nconst S: &str = \"crate::meshless::body\";\n",
    );
    let graph = crate_graph(&src);
    let module = |path: &str| path.split('/').map(String::from).collect::<Module>();
    assert_eq!(
        graph[&module("meshless/melting")],
        BTreeSet::from([module("meshless/body")])
    );
    assert_eq!(circles(&graph).len(), 1);
    // Without body's use of melting: no circle (the tests module's super::* is body itself).
    write(
        "meshless/body.rs",
        "pub struct Body;\n#[cfg(test)]\nmod tests { use super::*; }\n",
    );
    assert!(circles(&crate_graph(&src)).is_empty());
    fs::remove_dir_all(&dir).unwrap();
}
