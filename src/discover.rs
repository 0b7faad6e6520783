//! Finds the files to scan: the `ignore` crate's parallel walker, so
//! `.gitignore`, `.ignore` and hidden-file rules apply as in ripgrep, plus
//! `--exclude` globs. Returns a sorted list, so what follows does not depend
//! on file-system order.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ignore::WalkState;
use ignore::overrides::OverrideBuilder;

use crate::error::Error;
use crate::model::{Notification, Severity};

#[derive(Clone, Debug, Default)]
pub struct WalkOptions {
    pub paths: Vec<PathBuf>,
    pub excludes: Vec<String>,
    /// Also walk hidden files and directories.
    pub hidden: bool,
    /// Do not read `.gitignore` / `.ignore` files.
    pub no_ignore: bool,
    /// 0 means one per core.
    pub threads: usize,
    /// Also read test, benchmark and fixture folders.
    pub include_tests: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    Json,
    Yaml,
    Rust,
}

impl FileKind {
    pub fn of(path: &Path) -> Option<FileKind> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        // github-mcp-server's tool snapshots: one JSON tool per `.snap` file.
        let toolsnap = || {
            path.parent()
                .and_then(Path::file_name)
                .is_some_and(|d| d == "__toolsnaps__")
        };
        match ext.as_str() {
            "json" | "jsonc" => Some(FileKind::Json),
            "snap" if toolsnap() => Some(FileKind::Json),
            "yaml" | "yml" => Some(FileKind::Yaml),
            "rs" => Some(FileKind::Rust),
            _ => None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Candidate {
    pub path: PathBuf,
    pub kind: FileKind,
    /// Found by walking into a test, benchmark or fixture folder (see
    /// [`TEST_DIRS`]); a file named on the command line never is.
    pub in_tests: bool,
    /// Named on the command line: always read.
    pub explicit: bool,
}

/// Folders that hold tests, benchmarks, fixtures and recorded traffic: the
/// tools and handlers in them are not ones a model is offered.
pub const TEST_DIRS: &[&str] = &[
    "tests",
    "test",
    "testing",
    "test_utils",
    "test-utils",
    "testutils",
    "test_support",
    "benches",
    "bench",
    "fixtures",
    "conformance",
    "recordings",
    "cassettes",
    "eval_suites",
    "__snapshots__",
];

/// Walks `opts.paths`. A path that does not exist is an error; a directory
/// that cannot be read, or a file named on the command line that toolaudit
/// cannot scan, is a notification.
pub fn discover(opts: &WalkOptions) -> Result<(Vec<Candidate>, Vec<Notification>), Error> {
    let paths: Vec<PathBuf> = if opts.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        opts.paths.clone()
    };
    for p in &paths {
        if std::fs::symlink_metadata(p).is_err() {
            return Err(Error::MissingPath(p.clone()));
        }
    }
    let mut builder = ignore::WalkBuilder::new(&paths[0]);
    for p in &paths[1..] {
        builder.add(p);
    }
    let mut overrides = OverrideBuilder::new(".");
    for glob in &opts.excludes {
        overrides
            .add(&format!("!{glob}"))
            .map_err(|e| Error::BadGlob {
                glob: glob.clone(),
                message: e.to_string(),
            })?;
    }
    let overrides = overrides.build().map_err(|e| Error::BadGlob {
        glob: opts.excludes.join(", "),
        message: e.to_string(),
    })?;
    builder
        .hidden(!opts.hidden)
        .ignore(!opts.no_ignore)
        .git_ignore(!opts.no_ignore)
        .git_global(!opts.no_ignore)
        .git_exclude(!opts.no_ignore)
        .parents(!opts.no_ignore)
        .require_git(false)
        .follow_links(false)
        .overrides(overrides)
        .threads(opts.threads);

    let found = Mutex::new((Vec::new(), Vec::new()));
    builder.build_parallel().run(|| {
        let found = &found;
        Box::new(move |entry| {
            let mut guard = found.lock().unwrap_or_else(|e| e.into_inner());
            match entry {
                Ok(entry) => {
                    let explicit = entry.depth() == 0;
                    let is_file = entry.file_type().is_some_and(|t| t.is_file());
                    if !is_file {
                        return WalkState::Continue;
                    }
                    let depth = entry.depth();
                    let path = entry.into_path();
                    // The folders between the walked root and the file.
                    let in_tests = path
                        .components()
                        .rev()
                        .skip(1)
                        .take(depth.saturating_sub(1))
                        .any(|c| c.as_os_str().to_str().is_some_and(|d| TEST_DIRS.contains(&d)));
                    match FileKind::of(&path) {
                        Some(kind) => guard.0.push(Candidate {
                            path,
                            kind,
                            in_tests,
                            explicit,
                        }),
                        None if explicit => guard.1.push(Notification {
                            level: Severity::Warning,
                            path: Some(display_path(&path)),
                            message:
                                "skipped: not a file toolaudit reads (.json, .jsonc, .yaml, .yml, .rs)"
                                    .into(),
                        }),
                        None => {}
                    }
                }
                Err(err) => guard.1.push(walk_error(err)),
            }
            WalkState::Continue
        })
    });
    let (candidates, mut notes) = found.into_inner().unwrap_or_else(|e| e.into_inner());
    // One entry per file however it was reached (`scan . src/x.rs`, or a
    // named file inside a walked folder); the named one wins, as it is
    // always read. Decided by the paths, not by which thread came first.
    let key = |c: &Candidate| {
        std::path::absolute(&c.path)
            .map_or_else(|_| c.path.clone(), |p| crate::source::normalize(&p))
    };
    let mut keyed: Vec<(PathBuf, Candidate)> =
        candidates.into_iter().map(|c| (key(&c), c)).collect();
    keyed.sort_by(|(ka, a), (kb, b)| {
        ka.cmp(kb)
            .then(b.explicit.cmp(&a.explicit))
            .then(a.path.cmp(&b.path))
    });
    keyed.dedup_by(|a, b| a.0 == b.0);
    let mut candidates: Vec<Candidate> = keyed.into_iter().map(|(_, c)| c).collect();
    candidates.sort_by(|a, b| a.path.cmp(&b.path));
    notes.sort();
    Ok((candidates, notes))
}

fn walk_error(err: ignore::Error) -> Notification {
    // The walker wraps the path into the error; pull it out for the report.
    fn path_of(err: &ignore::Error) -> Option<&Path> {
        match err {
            ignore::Error::WithPath { path, .. } => Some(path),
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
                path_of(err)
            }
            _ => None,
        }
    }
    Notification {
        level: Severity::Error,
        path: path_of(&err).map(display_path),
        message: format!("could not read: {err}"),
    }
}

/// How a path is shown: relative to the working directory, `/`-separated,
/// without a leading `./`.
pub fn display_path(path: &Path) -> String {
    let rel = std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(&cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| path.to_path_buf());
    let s = rel.to_string_lossy().replace('\\', "/");
    let mut s = s.as_str();
    while let Some(rest) = s.strip_prefix("./") {
        s = rest;
    }
    s.to_string()
}
