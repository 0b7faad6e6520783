//! Which files of a crate the compiler sees: those its `mod` declarations
//! reach from the crate's roots. A file under `src/` that no `mod` reaches
//! (an old copy, a draft never wired in) is not compiled, so its tools are
//! not served and its code never runs.

use std::collections::{BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};

use crate::model::code::FileFacts;

/// The files of a crate under `root/src/` that no `mod` declaration
/// reaches from `src/lib.rs`, `src/main.rs` or `src/bin/`. Nothing when the
/// crate has neither root among `files` (a custom layout) or a file
/// `include!`s source.
pub fn not_compiled(root: &Path, files: &[FileFacts]) -> BTreeSet<usize> {
    // The crate root is absolute; file paths are as the walk found them.
    let abs = |p: &Path| normalise(&std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()));
    let src = abs(&root.join("src"));
    let by_path: HashMap<PathBuf, usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (abs(&f.file.path), i))
        .collect();
    let (lib, main, bin) = (src.join("lib.rs"), src.join("main.rs"), src.join("bin"));
    let is_root = |p: &Path| p == lib || p == main || p.starts_with(&bin);
    let roots: Vec<usize> = by_path
        .iter()
        .filter(|(p, _)| is_root(p))
        .map(|(_, i)| *i)
        .collect();
    if roots.is_empty() || files.iter().any(|f| f.includes) {
        return BTreeSet::new();
    }
    let mut reached: BTreeSet<usize> = roots.iter().copied().collect();
    let mut todo = roots;
    while let Some(i) = todo.pop() {
        let file = abs(&files[i].file.path);
        let dir = file.parent().unwrap_or(Path::new("")).to_path_buf();
        let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        // `lib.rs`, `main.rs` and `mod.rs` own their folder; `a.rs` owns `a/`.
        let owns_folder = matches!(stem, "lib" | "main" | "mod") || is_root(&file);
        let base = if owns_folder {
            dir.clone()
        } else {
            dir.join(stem)
        };
        for (path, attr) in &files[i].mods {
            let candidates: Vec<PathBuf> = match attr {
                // `#[path]` is relative to the declaring file's folder.
                Some(p) if path.len() == 1 => vec![dir.join(p)],
                Some(p) => vec![base.join(path[..path.len() - 1].join("/")).join(p)],
                None => {
                    let rel = path.join("/");
                    vec![
                        base.join(format!("{rel}.rs")),
                        base.join(&rel).join("mod.rs"),
                    ]
                }
            };
            for c in candidates {
                if let Some(&j) = by_path.get(&normalise(&c))
                    && reached.insert(j)
                {
                    todo.push(j);
                }
            }
        }
    }
    by_path
        .iter()
        .filter(|(p, i)| p.starts_with(&src) && !reached.contains(i))
        .map(|(_, i)| *i)
        .collect()
}

/// `a/./b/../c` → `a/c`, without touching the file system.
pub(crate) fn normalise(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}
