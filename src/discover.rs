//! Finds the files to scan: the `ignore` crate's parallel walker, so
//! `.gitignore`, `.ignore` and hidden-file rules apply as in ripgrep, plus
//! `--exclude` globs. Returns a sorted list, so what follows does not depend
//! on file-system order.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ignore::WalkState;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::error::Error;
use crate::model::{Notification, Severity};

/// One `exclude` glob and the folder it is relative to: the config file's
/// folder for the config's `exclude`, the working directory for `--exclude`.
#[derive(Clone, Debug)]
pub struct Exclude {
    pub glob: String,
    pub base: PathBuf,
    /// Where it was given (`--exclude`, `toolaudit.toml:4`), for messages.
    pub origin: String,
}

#[derive(Clone, Debug, Default)]
pub struct WalkOptions {
    pub paths: Vec<PathBuf>,
    pub excludes: Vec<Exclude>,
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
    Toml,
    Rust,
    Python,
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
            // Tool manifests in TOML; Cargo's manifests hold no tools.
            "toml"
                if !path
                    .file_name()
                    .is_some_and(|n| n == "Cargo.toml" || n == "Cargo.lock") =>
            {
                Some(FileKind::Toml)
            }
            "rs" => Some(FileKind::Rust),
            "py" => Some(FileKind::Python),
            _ => None,
        }
    }
}

/// Source files of languages toolaudit does not read yet, by extension.
pub const UNREAD_LANGUAGES: &[(&str, &[&str])] = &[
    ("TypeScript", &["ts", "tsx", "mts", "cts"]),
    ("JavaScript", &["js", "jsx", "mjs", "cjs"]),
    ("Go", &["go"]),
    ("C#", &["cs"]),
];

/// The language of a source file toolaudit does not read yet.
pub fn unread_language(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    UNREAD_LANGUAGES
        .iter()
        .find(|(_, exts)| exts.contains(&ext.as_str()))
        .map(|(lang, _)| *lang)
}

/// Why a path the walk saw was not read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SkipReason {
    /// A source file of a language toolaudit does not read yet.
    Language(&'static str),
    /// Left out by `.gitignore`, `.ignore` or git's excludes.
    Ignored,
    /// Left out by an `exclude` glob.
    Excluded,
    /// A symbolic link: not followed.
    Symlink,
    /// A FIFO, socket or device.
    Special,
    /// A Rust file under a crate's `src/` that no `mod` declaration
    /// reaches: the compiler never sees it (read, but not analysed).
    NotCompiled,
    /// A file named as a backup copy (`tools.json.old.json`,
    /// `spec_v1_backup.json`, `tools.bak.yaml`), or under a backup folder
    /// (`old_files/`, `backup/`; see [`BACKUP_DIRS`]): no server loads it.
    Backup,
}

impl SkipReason {
    pub fn describe(self) -> String {
        match self {
            SkipReason::Language(l) => format!("{l} source, which toolaudit does not read yet"),
            SkipReason::Ignored => "ignored by .gitignore or .ignore (--no-ignore reads it)".into(),
            SkipReason::Excluded => "excluded by an `exclude` glob".into(),
            SkipReason::Symlink => "a symbolic link, which is not followed".into(),
            SkipReason::Special => "not a regular file (FIFO, socket or device)".into(),
            SkipReason::NotCompiled => {
                "a Rust file no `mod` declaration reaches, so the crate does not compile it".into()
            }
            SkipReason::Backup => {
                "named as a backup copy (`.old`, `.bak`, `.orig`, `_backup`) or under a backup folder (`old/`, `old_files/`, `backup/`), which no server loads; name it on the command line to read it".into()
            }
        }
    }
}

/// A path the walk saw and did not read. Folders carry a trailing `/`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Skipped {
    pub path: String,
    pub reason: SkipReason,
}

/// What a walk found: the files to read, messages, and what it left out.
#[derive(Debug, Default)]
pub struct Walk {
    pub candidates: Vec<Candidate>,
    pub notes: Vec<Notification>,
    pub skipped: Vec<Skipped>,
    /// Project files that may name a script to run (READMEs, Dockerfiles,
    /// configs; [`is_launcher`]), sorted: not read by the walk.
    pub launchers: Vec<PathBuf>,
}

#[derive(Clone, Debug)]
pub struct Candidate {
    pub path: PathBuf,
    pub kind: FileKind,
    /// Found by walking into a test, benchmark or fixture folder (see
    /// [`TEST_DIRS`]); a file named on the command line never is.
    pub in_tests: bool,
    /// Found by walking into a documentation folder (see [`DOC_DIRS`]); a
    /// file named on the command line never is.
    pub in_docs: bool,
    /// Named on the command line: always read.
    pub explicit: bool,
}

/// Folders of documentation, copied SDK examples and course exercises: a
/// tool list or tool code in one is an example or a copy when the project
/// defines its tools elsewhere.
pub const DOC_DIRS: &[&str] = &[
    "doc",
    "docs",
    "documentation",
    "docs_examples",
    "doc_examples",
    "docs_src",
    "sdk_examples",
    "exercise",
    "exercises",
];

/// Folders of retired copies, the folder form of a backup file name
/// (`server_old.py`, `tools.bak.json`): nothing a server loads lives
/// there, so the walk does not read them unless named on the command line.
pub const BACKUP_DIRS: &[&str] = &[
    "old",
    "old_files",
    "old_code",
    "old_version",
    "old_versions",
    "backup",
    "backups",
    "bak",
];

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

/// The `exclude` globs as gitignore matchers, one per base folder, with
/// the globs that matched something.
struct Excluder {
    matchers: Vec<(Gitignore, Vec<usize>)>,
    matched: Mutex<HashSet<usize>>,
}

impl Excluder {
    fn new(excludes: &[Exclude]) -> Result<Excluder, Error> {
        let mut by_base: BTreeMap<PathBuf, Vec<usize>> = BTreeMap::new();
        for (i, e) in excludes.iter().enumerate() {
            let base = crate::source::normalize(
                &std::path::absolute(&e.base).unwrap_or_else(|_| e.base.clone()),
            );
            by_base.entry(base).or_default().push(i);
        }
        let mut matchers = Vec::new();
        for (base, idx) in by_base {
            let mut b = GitignoreBuilder::new(&base);
            for &i in &idx {
                let e = &excludes[i];
                let bad = |message: String| Error::BadGlob {
                    glob: e.glob.clone(),
                    origin: e.origin.clone(),
                    message,
                };
                // The gitignore parser passes some broken globs over
                // silently (`[unclosed`): check the glob itself first.
                let bare = e.glob.trim().trim_start_matches('!').trim_matches('/');
                globset::Glob::new(bare).map_err(|err| bad(err.kind().to_string()))?;
                b.add_line(None, &e.glob)
                    .map_err(|err| bad(err.to_string()))?;
            }
            let g = b.build().map_err(|e| Error::BadGlob {
                glob: excludes[idx[0]].glob.clone(),
                origin: excludes[idx[0]].origin.clone(),
                message: e.to_string(),
            })?;
            matchers.push((g, idx));
        }
        Ok(Excluder {
            matchers,
            matched: Mutex::new(HashSet::new()),
        })
    }

    /// Is `path` excluded? Records which glob said so.
    fn excludes(&self, path: &Path, is_dir: bool, excludes: &[Exclude]) -> bool {
        if self.matchers.is_empty() {
            return false;
        }
        let abs = crate::source::normalize(
            &std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()),
        );
        for (g, idx) in &self.matchers {
            if !abs.starts_with(g.path()) {
                continue;
            }
            if let ignore::Match::Ignore(glob) = g.matched(&abs, is_dir) {
                let i = idx
                    .iter()
                    .copied()
                    .find(|&i| excludes[i].glob.trim() == glob.original())
                    .unwrap_or(idx[0]);
                self.matched
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(i);
                return true;
            }
        }
        false
    }
}

/// Walks `opts.paths`. A path that does not exist is an error; a directory
/// that cannot be read, or a file named on the command line that toolaudit
/// cannot scan, is a notification. Every path the walk sees and does not
/// read is in [`Walk::skipped`] with its reason.
pub fn discover(opts: &WalkOptions) -> Result<Walk, Error> {
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
    let excluder = Excluder::new(&opts.excludes)?;
    let builder = |ignores: bool| {
        let mut b = ignore::WalkBuilder::new(&paths[0]);
        for p in &paths[1..] {
            b.add(p);
        }
        b.hidden(!opts.hidden)
            .ignore(ignores)
            .git_ignore(ignores)
            .git_global(ignores)
            .git_exclude(ignores)
            .parents(ignores)
            .require_git(false)
            .follow_links(false)
            .threads(opts.threads);
        b
    };

    struct Found {
        candidates: Vec<Candidate>,
        notes: Vec<Notification>,
        skipped: Vec<Skipped>,
        launchers: Vec<PathBuf>,
        /// Every path the first walk yielded, for the second one.
        seen: HashSet<PathBuf>,
    }
    let found = Mutex::new(Found {
        candidates: Vec::new(),
        notes: Vec::new(),
        skipped: Vec::new(),
        launchers: Vec::new(),
        seen: HashSet::new(),
    });
    let track_ignored = !opts.no_ignore;
    builder(!opts.no_ignore).build_parallel().run(|| {
        let found = &found;
        let excluder = &excluder;
        Box::new(move |entry| {
            let entry = match entry {
                Ok(entry) => entry,
                Err(err) => {
                    let mut g = found.lock().unwrap_or_else(|e| e.into_inner());
                    g.notes.push(walk_error(err));
                    return WalkState::Continue;
                }
            };
            let depth = entry.depth();
            let explicit = depth == 0;
            let ft = entry.file_type();
            let is_dir = ft.is_some_and(|t| t.is_dir());
            if !explicit && excluder.excludes(entry.path(), is_dir, &opts.excludes) {
                let mut g = found.lock().unwrap_or_else(|e| e.into_inner());
                if track_ignored {
                    g.seen.insert(entry.path().to_path_buf());
                }
                g.skipped.push(Skipped {
                    path: shown(entry.path(), is_dir),
                    reason: SkipReason::Excluded,
                });
                return if is_dir {
                    WalkState::Skip
                } else {
                    WalkState::Continue
                };
            }
            let mut g = found.lock().unwrap_or_else(|e| e.into_inner());
            if track_ignored {
                g.seen.insert(entry.path().to_path_buf());
            }
            if is_dir {
                return WalkState::Continue;
            }
            let is_file = ft.is_some_and(|t| t.is_file());
            if !is_file {
                let reason = if ft.is_some_and(|t| t.is_symlink()) {
                    SkipReason::Symlink
                } else {
                    SkipReason::Special
                };
                let path = display_path(entry.path());
                if explicit {
                    g.notes.push(Notification {
                        level: Severity::Warning,
                        path: Some(path.clone()),
                        line: None,
                        message: format!("skipped: {}", reason.describe()),
                    });
                }
                g.skipped.push(Skipped { path, reason });
                return WalkState::Continue;
            }
            let path = entry.into_path();
            // The folders between the walked root and the file.
            let under = |dirs: &[&str]| {
                path.components()
                    .rev()
                    .skip(1)
                    .take(depth.saturating_sub(1))
                    .any(|c| c.as_os_str().to_str().is_some_and(|d| dirs.contains(&d)))
            };
            let in_tests = under(TEST_DIRS);
            let in_docs = under(DOC_DIRS);
            if is_launcher(&path) {
                g.launchers.push(path.clone());
            }
            match FileKind::of(&path) {
                Some(kind)
                    if !explicit
                        && kind != FileKind::Rust
                        && (is_backup_copy(&path) || under(BACKUP_DIRS)) =>
                {
                    g.skipped.push(Skipped {
                        path: display_path(&path),
                        reason: SkipReason::Backup,
                    });
                }
                Some(kind) => g.candidates.push(Candidate {
                    path,
                    kind,
                    in_tests,
                    in_docs,
                    explicit,
                }),
                None if explicit => g.notes.push(Notification {
                    level: Severity::Warning,
                    path: Some(display_path(&path)),
                    line: None,
                    message: match unread_language(&path) {
                        Some(lang) => format!(
                            "skipped: {}; toolaudit reads .json, .jsonc, .yaml, .yml and .rs files",
                            SkipReason::Language(lang).describe()
                        ),
                        None => {
                            "skipped: not a file toolaudit reads (.json, .jsonc, .yaml, .yml, .rs)"
                                .into()
                        }
                    },
                }),
                None => {
                    if let Some(lang) = unread_language(&path) {
                        g.skipped.push(Skipped {
                            path: display_path(&path),
                            reason: SkipReason::Language(lang),
                        });
                    }
                }
            }
            WalkState::Continue
        })
    });
    let Found {
        candidates,
        mut notes,
        mut skipped,
        mut launchers,
        seen,
    } = found.into_inner().unwrap_or_else(|e| e.into_inner());

    // What .gitignore and .ignore left out: walk again without them and
    // name what the first walk did not see (folders once, not their files).
    if track_ignored {
        let ignored = Mutex::new(Vec::new());
        builder(false).build_parallel().run(|| {
            let ignored = &ignored;
            let seen = &seen;
            Box::new(move |entry| {
                let Ok(entry) = entry else {
                    return WalkState::Continue;
                };
                if seen.contains(entry.path()) {
                    return WalkState::Continue;
                }
                let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
                // Files only when toolaudit would read them or names their language.
                if is_dir
                    || FileKind::of(entry.path()).is_some()
                    || unread_language(entry.path()).is_some()
                {
                    ignored
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(Skipped {
                            path: shown(entry.path(), is_dir),
                            reason: SkipReason::Ignored,
                        });
                }
                if is_dir {
                    WalkState::Skip
                } else {
                    WalkState::Continue
                }
            })
        });
        skipped.extend(ignored.into_inner().unwrap_or_else(|e| e.into_inner()));
    }
    let matched = excluder
        .matched
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    // Only where the walk covered the glob's whole folder: `scan src/` says
    // nothing about a `vendor/**` of the config file.
    let abs = |p: &Path| {
        crate::source::normalize(&std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()))
    };
    let roots: Vec<PathBuf> = paths.iter().map(|p| abs(p)).collect();
    for (i, e) in opts.excludes.iter().enumerate() {
        let base = abs(&e.base);
        if !matched.contains(&i) && roots.iter().any(|r| base.starts_with(r)) {
            notes.push(Notification {
                level: Severity::Warning,
                path: None,
                line: None,
                message: format!(
                    "exclude `{}` ({}) matched nothing; its paths are relative to {}",
                    e.glob,
                    e.origin,
                    match display_path(&e.base).as_str() {
                        "" | "." => "the working directory".to_string(),
                        d => format!("`{d}`"),
                    }
                ),
            });
        }
    }

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
    skipped.sort();
    skipped.dedup();
    launchers.sort();
    launchers.dedup();
    Ok(Walk {
        candidates,
        notes,
        skipped,
        launchers,
    })
}

/// A file that may name a script to run: a README or other text document,
/// a Dockerfile, compose file, Makefile or Procfile, a shell script, or a
/// JSON, YAML, TOML, INI or `.cfg` configuration (`pyproject.toml`'s
/// scripts, an MCP client's `mcp.json`).
pub fn is_launcher(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let lower = name.to_ascii_lowercase();
    let ext = lower.rsplit_once('.').map_or("", |(_, e)| e);
    lower.starts_with("readme")
        || lower.starts_with("dockerfile")
        || lower.starts_with("containerfile")
        || matches!(lower.as_str(), "makefile" | "procfile" | "justfile")
        || matches!(
            ext,
            "md" | "rst"
                | "txt"
                | "sh"
                | "bash"
                | "ps1"
                | "bat"
                | "cmd"
                | "json"
                | "jsonc"
                | "yaml"
                | "yml"
                | "toml"
                | "ini"
                | "cfg"
                | "service"
        )
}

/// A path as shown in the list of skipped paths: folders end in `/`.
fn shown(path: &Path, is_dir: bool) -> String {
    let mut s = display_path(path);
    if is_dir && !s.ends_with('/') {
        s.push('/');
    }
    s
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
        line: None,
        message: format!("could not read: {err}"),
    }
}

/// A manifest whose name marks it as a backup copy of another:
/// `tools.json.old.json`, `tools.old.json`, `spec_v1_backup.json`,
/// `tools.bak.yaml`, `tools.orig.json`.
pub fn is_backup_copy(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let name = name.to_ascii_lowercase();
    let stem = name.rsplit_once('.').map_or(name.as_str(), |(s, _)| s);
    [
        ".old", "_old", "-old", ".bak", "_bak", "-bak", ".orig", ".backup", "_backup", "-backup",
    ]
    .iter()
    .any(|end| stem.ends_with(end))
}

/// Is `path` a template to copy from rather than a module or list a
/// server loads: a private module named as one (`__template.py`,
/// `_tool_template.py`; plugin loaders skip `_` modules), or a manifest
/// whose name ends so (`tool-implementation-template.json`)?
pub fn is_template(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let name = name.to_ascii_lowercase();
    let (stem, ext) = name.rsplit_once('.').unwrap_or((name.as_str(), ""));
    match ext {
        "py" => stem.starts_with('_') && stem.contains("template"),
        "json" | "yaml" | "yml" | "toml" => stem.ends_with("template"),
        _ => false,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backup_copies_by_name() {
        for name in [
            "legifrance_legi.json.old.json",
            "tools.old.json",
            "spec_v1_backup.json",
            "tools.bak.yaml",
            "tools.orig.json",
            "Tools-Backup.JSON",
        ] {
            assert!(is_backup_copy(Path::new(name)), "{name}");
        }
        for name in [
            "tools.json",
            "backup-tools.json",
            "backup_server.yaml",
            "golden.json",
            "bold.json",
        ] {
            assert!(!is_backup_copy(Path::new(name)), "{name}");
        }
    }

    #[test]
    fn templates_by_name() {
        for name in [
            "tools/__template.py",
            "providers/__template__.py",
            "_tool_template.py",
            "tool-implementation-template.json",
            "server_template.yaml",
        ] {
            assert!(is_template(Path::new(name)), "{name}");
        }
        // Modules about templates, and a manifest of template tools.
        for name in [
            "templates.py",
            "format_template.py",
            "prompt_template.py",
            "template_tools.json",
            "__init__.py",
        ] {
            assert!(!is_template(Path::new(name)), "{name}");
        }
    }
}
