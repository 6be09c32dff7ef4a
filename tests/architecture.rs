//! The house's one-way flow, read from the source: every import of a top-level module of `src/`
//! goes to a module below it in [`LAYERS`] (data first, then games, then engines, then
//! building, then the outputs), so no two modules import each other, directly or round a
//! circle, and none imports one above it. `sgq` reaches, through its imports, no module that
//! holds the GPU, Lua, native code, building or plotting. docs/architecture.md explains the
//! layers and where each kind of change goes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The top-level modules of the library, lowest first: a module may import only modules
/// before it.
const LAYERS: &[&str] = &[
    // Plumbing.
    "progress", "isa", "memory", "output", //
    // Data: values, rules and shapes, then the `.sgt` bytes.
    "values", "sgt", //
    // Games: the families and their traits, then specs and the resolver, then tables of games.
    "games", "spec", "table", //
    // Kinds of game with a runtime of their own.
    "lua", "native", //
    // Engines, then building with them.
    "engine", "build", //
    // What is made of tables: files of values, sources, pictures, judge answers.
    "dump", "export", "plot", "judge",
];

/// Modules `sgq` must not reach: it stays tiny and starts in milliseconds.
const NOT_IN_SGQ: &[&str] = &["lua", "native", "engine", "build", "plot", "export", "dump"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level modules a file names: `crate::m`, `sgtab::m` and `crate::{m, ...}`, outside
/// comments.
fn named(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        for prefix in ["crate::", "sgtab::"] {
            let mut rest = code;
            while let Some(at) = rest.find(prefix) {
                rest = &rest[at + prefix.len()..];
                if let Some(group) = rest.strip_prefix('{') {
                    let inner = group.split('}').next().unwrap_or("");
                    out.extend(
                        inner
                            .split(',')
                            .map(|p| p.trim().split("::").next().unwrap_or("").to_string()),
                    );
                } else {
                    out.insert(
                        rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect(),
                    );
                }
            }
        }
    }
    out.retain(|m| !m.is_empty() && m != "self");
    out
}

/// Each top-level module (and each binary, as `bin:NAME`) and the modules it imports.
fn imports() -> BTreeMap<String, BTreeMap<String, Vec<String>>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
        let module = match rel.split('/').collect::<Vec<_>>().as_slice() {
            ["lib.rs"] => continue,
            ["bin", rest @ ..] => format!("bin:{}", rest[0].trim_end_matches(".rs")),
            [top, ..] => top.trim_end_matches(".rs").to_string(),
            [] => unreachable!(),
        };
        let text = std::fs::read_to_string(&file).unwrap();
        for target in named(&text) {
            if target != module {
                graph
                    .entry(module.clone())
                    .or_default()
                    .entry(target)
                    .or_default()
                    .push(rel.clone());
            }
        }
        graph.entry(module).or_default();
    }
    graph
}

#[test]
fn every_import_runs_down_the_layers() {
    let graph = imports();
    let rank = |m: &str| LAYERS.iter().position(|&l| l == m);
    let mut wrong = Vec::new();
    for (module, targets) in &graph {
        if module.starts_with("bin:") {
            continue;
        }
        let Some(r) = rank(module) else {
            wrong.push(format!(
                "module `{module}` is in no layer: add it to LAYERS (and to docs/architecture.md)"
            ));
            continue;
        };
        for (target, files) in targets {
            match rank(target) {
                Some(t) if t < r => {}
                Some(_) => wrong.push(format!(
                    "`{module}` imports `{target}`, which is not below it ({})",
                    files.join(", ")
                )),
                // Macros and the like (`line_error!`) and names that are not modules.
                None if graph.contains_key(target.as_str()) => {
                    wrong.push(format!("`{module}` imports `{target}`, which is in no layer"))
                }
                None => {}
            }
        }
    }
    assert!(wrong.is_empty(), "imports against the layers:\n{}", wrong.join("\n"));
}

#[test]
fn sgq_reaches_no_gpu_lua_native_build_or_plot_code() {
    let graph = imports();
    let mut reached: BTreeSet<String> = BTreeSet::new();
    let mut stack = vec!["bin:sgq".to_string()];
    while let Some(m) = stack.pop() {
        for target in graph.get(&m).into_iter().flat_map(|t| t.keys()) {
            if graph.contains_key(target.as_str()) && reached.insert(target.clone()) {
                stack.push(target.clone());
            }
        }
    }
    let bad: Vec<&&str> = NOT_IN_SGQ.iter().filter(|m| reached.contains(**m)).collect();
    assert!(bad.is_empty(), "sgq reaches {bad:?} (it reaches {reached:?})");
    assert!(
        reached.contains("judge") && reached.contains("table"),
        "the import reader finds nothing: {reached:?}"
    );
}

#[test]
fn the_reader_sees_imports_and_skips_comments() {
    let text = "use crate::{values::Packed, games};\n// crate::engine in a comment\nlet x = \
        crate::sgt::read(p); sgtab::table::Table";
    let names: Vec<String> = named(text).into_iter().collect();
    assert_eq!(names, ["games", "sgt", "table", "values"]);
}
