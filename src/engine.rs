//! The pipeline: discover → read → parse → extract → rules → sort.
//!
//! The only module that runs threads. Each file is read and parsed once on a
//! rayon worker, its tools are extracted and checked, and its tree is
//! dropped before the worker moves on; whole-inventory rules run after the
//! merge. Findings are sorted once at the end, so output is identical for
//! any thread count.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

mod set_aside;
use set_aside::{
    api_documents_beside_tools, captured_tool_lists, doc_code_beside_code,
    doc_manifests_beside_code, framework_tools_nothing_names, langchain_tools_of_text_agents,
    lists_nothing_imports, modules_nothing_runs, modules_shadowed_by_packages,
    parameters_read_elsewhere, read_elsewhere_in_units, schema_documents_beside_code,
    set_aside_files, stale_module_copies, stub_servers, templates_beside_tools,
    tool_modules_left_out, tools_of_commented_out_functions, tools_of_own_decorators,
    unknown_schemas_in_units, unnamed_doc_manifests,
};

use crate::discover::{self, Candidate, FileKind, WalkOptions, display_path};
use crate::error::Error;
use crate::extract::manifest;
use crate::model::{Diagnostic, Notification, Severity, ToolDef};
use crate::rules::{Context, RuleEntry};
use crate::rust::{self, FileFacts};
use crate::source::SourceFile;
use crate::suppress::{self, ConfigSuppression, PerFileIgnore, Reason};
use crate::surface::{self, SurfaceOptions};
use crate::syntax::{json, yaml};
use crate::targets::Target;

/// Files larger than this are skipped (with a notification) unless
/// `--max-file-size` says otherwise.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 4 * 1024 * 1024;

/// Where the M2 and M3 code rules look.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Scope {
    /// Tool handlers, what they call, and values from tool arguments.
    #[default]
    Surface,
    /// All code.
    All,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Surface => "surface",
            Scope::All => "all",
        }
    }
}

pub struct ScanOptions {
    pub walk: WalkOptions,
    pub scope: Scope,
    /// `[options] truncation-markers` of the config file.
    pub truncation_markers: Vec<String>,
    /// `[options] tool-budget`: S109's threshold per tool list, in tokens.
    pub tool_budget: usize,
    pub max_file_size: u64,
    pub targets: Vec<&'static Target>,
    /// Targets the user named (see `rules::Context::named_targets`).
    pub named_targets: Vec<&'static str>,
    pub rules: Vec<&'static RuleEntry>,
    /// Codes named in full on `--select` (see `rules::Context::explicit`).
    pub explicit: Vec<&'static str>,
    /// Severity per rule code, from the config file.
    pub severity: BTreeMap<&'static str, Severity>,
    /// Findings of these rules in files matching the glob are left out.
    pub per_file_ignores: Vec<PerFileIgnore>,
    /// `[[suppress]]` entries of the config file.
    pub suppressions: Vec<ConfigSuppression>,
    /// The committed tool-surface snapshot and the profiles (P rules).
    pub surface: SurfaceOptions,
}

/// Everything a scan found, sorted.
pub struct Scan {
    /// Files that were read and parsed.
    pub files_scanned: usize,
    /// Those files, in walk order.
    pub read: Vec<PathBuf>,
    pub tools: Vec<ToolDef>,
    pub diagnostics: Vec<Diagnostic>,
    pub notifications: Vec<Notification>,
    /// Findings left out by suppression comments, `[[suppress]]` and
    /// `per-file-ignores`, with the reason; sorted like `diagnostics`.
    pub suppressed: Vec<(Diagnostic, Reason)>,
    /// What `--baseline` left out, when given.
    pub baseline: Option<crate::baseline::Applied>,
    /// With `--diff-base`: the revision and the findings on unchanged lines left out.
    pub diff_base: Option<(String, usize)>,
    /// Files in test, benchmark and fixture folders that were not read.
    pub test_files_skipped: usize,
    /// Paths the walk saw and did not read, with the reason; sorted.
    pub skipped: Vec<discover::Skipped>,
    /// The tool surface against its snapshot, when a P rule ran on one.
    pub surface: Option<surface::Outcome>,
}

impl Scan {
    /// True when some input could not be read: the run is incomplete.
    pub fn had_errors(&self) -> bool {
        self.notifications
            .iter()
            .any(|n| n.level == Severity::Error)
    }
}

#[derive(Default)]
struct Outcome {
    parsed: bool,
    /// Left out as test code.
    test_file: bool,
    /// A Rust file's facts, with its crate root.
    rust: Option<(PathBuf, FileFacts)>,
    tools: Vec<ToolDef>,
    diagnostics: Vec<Diagnostic>,
    notifications: Vec<Notification>,
    suppressions: Vec<suppress::Inline>,
    /// A Python file's imports (`crate::python::imported_names`); `None`
    /// for other files and Python tests.
    imports: Option<(Vec<String>, bool)>,
    /// Its imports as dotted paths (`crate::python::file_imports`).
    import_paths: Vec<Vec<String>>,
    /// A Python file with tool code, for its unit.
    python: Option<crate::python::link::PyFile>,
    /// A Python file read but not parsed: a module a unit may follow.
    py_source: Option<Arc<SourceFile>>,
}

/// Where a scan is, for a progress display.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// The walk found this many files to read.
    Files(usize),
    /// One more file was read.
    Read,
    /// All files are read; the crates are being linked and checked.
    Linking,
}

pub fn scan(opts: &ScanOptions) -> Result<Scan, Error> {
    scan_with_progress(opts, &|_| {})
}

/// Stack of each worker thread.
const WORKER_STACK: usize = 16 << 20;

/// [`scan`], telling `progress` how far it is (from worker threads).
pub fn scan_with_progress(
    opts: &ScanOptions,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Scan, Error> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.walk.threads)
        // Syntax walks are bounded in depth (`rust::ts::MAX_DEPTH`), but a
        // walk inside a walk at full depth needs more than the default 2 MiB.
        .stack_size(WORKER_STACK)
        .build()
        .map_err(|e| Error::ThreadPool {
            threads: opts.walk.threads,
            message: e.to_string(),
        })?;
    let discover::Walk {
        candidates,
        notes: mut notifications,
        mut skipped,
        launchers,
    } = discover::discover(&opts.walk)?;
    let cx = Context {
        targets: &opts.targets,
        named_targets: &opts.named_targets,
        explicit: &opts.explicit,
        all: opts.scope == Scope::All,
        truncation_markers: &opts.truncation_markers,
        tool_budget: opts.tool_budget,
    };
    let roots = crate_roots(&candidates);
    progress(Progress::Files(candidates.len()));
    let outcomes: Vec<Outcome> = pool.install(|| {
        candidates
            .par_iter()
            .zip(&roots)
            .map(|(c, root)| {
                let o = process(c, root.as_deref(), opts, &cx);
                progress(Progress::Read);
                o
            })
            .collect()
    });
    progress(Progress::Linking);

    let mut files_scanned = 0;
    let mut read: Vec<&Path> = Vec::new();
    let mut tools = Vec::new();
    let mut diagnostics = Vec::new();
    let mut inline = Vec::new();
    let mut crates: BTreeMap<PathBuf, Vec<FileFacts>> = BTreeMap::new();
    let mut test_files_skipped = 0;
    // Module names Python files import, by the file that imports them.
    let mut imports: Vec<(PathBuf, Vec<String>)> = Vec::new();
    let mut dynamic_imports = false;
    let mut import_paths: Vec<(PathBuf, Vec<Vec<String>>)> = Vec::new();
    let mut py_roots = Vec::new();
    let mut py_sources = Vec::new();
    for (o, c) in outcomes.into_iter().zip(&candidates) {
        if let Some((names, dynamic)) = o.imports {
            dynamic_imports |= dynamic;
            imports.push((c.path.clone(), names));
            import_paths.push((c.path.clone(), o.import_paths));
        }
        files_scanned += usize::from(o.parsed);
        if o.parsed {
            read.push(&c.path);
        }
        test_files_skipped += usize::from(o.test_file);
        if let Some((root, facts)) = o.rust {
            crates.entry(root).or_default().push(facts);
        }
        py_roots.extend(o.python);
        py_sources.extend(o.py_source);
        tools.extend(o.tools);
        diagnostics.extend(o.diagnostics);
        notifications.extend(o.notifications);
        inline.extend(o.suppressions);
    }
    let in_docs: std::collections::BTreeSet<&Path> = candidates
        .iter()
        .filter(|c| c.in_docs)
        .map(|c| c.path.as_path())
        .collect();
    let py_texts = || {
        py_roots
            .iter()
            .map(|p: &crate::python::link::PyFile| &*p.facts.file.text)
            .chain(py_sources.iter().map(|f: &Arc<SourceFile>| &*f.text))
    };
    let text_react = py_texts().any(crate::python::text_react_agent)
        && !py_texts().any(crate::python::tool_calling_agent);
    let doc_lists = unnamed_doc_manifests(
        &tools,
        &in_docs,
        crates
            .values()
            .flatten()
            .map(|f| &*f.file.text)
            .chain(py_texts()),
    );
    let explicit: Vec<&Path> = candidates
        .iter()
        .filter(|c| c.explicit)
        .map(|c| c.path.as_path())
        .collect();
    // Who imports what, for the passes that ask what nothing imports.
    let imports_of = set_aside::Imports::new(&import_paths);
    let sources: Vec<&SourceFile> = py_roots
        .iter()
        .map(|r| &*r.facts.file)
        .chain(py_sources.iter().map(|f| &**f))
        .collect();
    let (stubs, unrun, left_out) = if dynamic_imports {
        Default::default()
    } else {
        (
            stub_servers(&tools, &imports_of, &explicit, &sources, &launchers),
            modules_nothing_runs(
                &tools,
                &sources,
                &import_paths,
                &imports_of,
                &explicit,
                &launchers,
            ),
            tool_modules_left_out(
                &tools,
                &import_paths,
                &imports_of,
                &explicit,
                &sources,
                &launchers,
            ),
        )
    };
    let captured = captured_tool_lists(&tools, &sources);
    let own_decorators = tools_of_own_decorators(&mut tools, &sources);
    let read_elsewhere = parameters_read_elsewhere(&tools, &sources);
    drop(sources);
    drop(launchers);
    unknown_schemas_in_units(&mut py_roots, &own_decorators);
    read_elsewhere_in_units(&mut py_roots, &read_elsewhere);
    framework_tools_nothing_names(
        &mut tools,
        &mut py_roots,
        &py_sources,
        &explicit,
        &mut diagnostics,
        &mut notifications,
    );
    tools_of_commented_out_functions(
        &mut tools,
        &mut py_roots,
        &py_sources,
        &explicit,
        &mut diagnostics,
        &mut notifications,
    );
    let validated = rust::deps::validated_crates(&crates);
    let mapped = rust::deps::name_mapping_crates(&crates);
    let declared = declarations_without_handlers(&tools);
    let linked: Vec<Linked> = pool.install(|| {
        crates
            .into_par_iter()
            .map(|(root, files)| {
                let validated = validated.contains(&root);
                let mapped = mapped.contains(&root);
                check_crate(&root, files, validated, mapped, &declared, opts, &cx)
            })
            .collect()
    });
    drop(declared);
    let python = check_python(&pool, py_roots, py_sources, opts, &cx);
    for c in python {
        diagnostics.extend(c.diagnostics);
        for (path, start, handler) in c.handlers {
            if let Some(t) = tools
                .iter_mut()
                .find(|t| t.handler.is_none() && t.file.path == path && t.span.start == start)
            {
                t.handler = Some(handler);
            }
        }
    }
    for (t, d, dead) in linked {
        tools.extend(t);
        diagnostics.extend(d);
        skipped.extend(dead.into_iter().map(|path| discover::Skipped {
            path,
            reason: discover::SkipReason::NotCompiled,
        }));
    }
    skipped.sort();
    tools.sort_by(|a, b| (&a.file.display, a.span.start).cmp(&(&b.file.display, b.span.start)));
    api_documents_beside_tools(&mut tools, &mut diagnostics, &mut notifications);
    schema_documents_beside_code(&mut tools, &mut diagnostics, &mut notifications);
    doc_manifests_beside_code(&mut tools, &mut diagnostics, &mut notifications, &doc_lists);
    doc_code_beside_code(&mut tools, &mut diagnostics, &mut notifications, &in_docs);
    templates_beside_tools(&mut tools, &mut diagnostics, &mut notifications);
    set_aside_files(
        &mut tools,
        &mut diagnostics,
        &mut notifications,
        stubs,
        "tools not checked: a small server nothing starts (no Python file imports it; no code, README, Dockerfile or config names it), beside the project's other tools",
    );
    set_aside_files(
        &mut tools,
        &mut diagnostics,
        &mut notifications,
        unrun,
        "not checked: a module nothing runs (no Python file imports it, it is no script, and no code, README, Dockerfile or config names it)",
    );
    if text_react {
        langchain_tools_of_text_agents(&tools, &mut diagnostics, &mut notifications);
    }
    modules_shadowed_by_packages(
        &mut tools,
        &mut diagnostics,
        &mut notifications,
        &candidates,
    );
    if !dynamic_imports {
        // A file named on the command line is judged whatever imports it.
        lists_nothing_imports(
            &mut tools,
            &mut diagnostics,
            &mut notifications,
            &imports,
            &explicit,
        );
    }
    drop(imports);
    set_aside_files(
        &mut tools,
        &mut diagnostics,
        &mut notifications,
        captured,
        "tools not checked: a record of another server's tool list, which a script of the scan captures from it (`list_tools()`) and writes here; the project offers that server, not this file",
    );
    set_aside_files(
        &mut tools,
        &mut diagnostics,
        &mut notifications,
        left_out,
        "tools not checked: they register on an imported server object only when this module is imported, and no Python file of the scan imports it, though the scan imports other modules that register on the same object",
    );
    if !dynamic_imports {
        stale_module_copies(
            &mut tools,
            &mut diagnostics,
            &mut notifications,
            &import_paths,
            &imports_of,
            &explicit,
        );
    }
    drop(import_paths);

    let mut groups: BTreeMap<&str, Vec<&ToolDef>> = BTreeMap::new();
    for t in tools.iter().filter(|t| !t.format.is_reference()) {
        groups.entry(&t.group).or_default().push(t);
    }
    let group_findings: Vec<Diagnostic> = pool.install(|| {
        groups
            .par_iter()
            .flat_map_iter(|(_, members)| {
                let mut out = Vec::new();
                for entry in &opts.rules {
                    entry.rule.check_group(&cx, members, &mut out);
                }
                out
            })
            .collect()
    });
    drop(groups);
    diagnostics.extend(group_findings);
    let surface = check_surface(
        opts,
        &cx,
        &tools,
        &read,
        &mut diagnostics,
        &mut notifications,
    )?;
    for d in &mut diagnostics {
        if let Some(&s) = opts.severity.get(d.code) {
            d.severity = s;
        }
    }
    sort_and_dedup(&mut diagnostics);
    let cwd = std::env::current_dir().unwrap_or_default();
    let (suppressed, unused) = suppress::apply_all(
        &mut diagnostics,
        &mut inline,
        &opts.suppressions,
        &opts.per_file_ignores,
        &opts.rules,
        &read,
        &cwd,
    );
    notifications.extend(unused);
    notifications.sort();
    let read = read.into_iter().map(Path::to_path_buf).collect();
    Ok(Scan {
        files_scanned,
        read,
        tools,
        diagnostics,
        notifications,
        suppressed,
        baseline: None,
        diff_base: None,
        test_files_skipped,
        skipped,
        surface,
    })
}

/// How many imports deep a Python unit follows modules from its files
/// with tool code (`server.py` → `tools/search.py` → `client.py`).
const PYTHON_FOLLOW_DEPTH: usize = 3;

/// The code rules on Python: each file with tool code (`roots`) and the
/// modules of the scan its code imports (parsed here, from `sources`, in
/// parallel) make units; files that import one another share one.
fn check_python(
    pool: &rayon::ThreadPool,
    roots: Vec<crate::python::link::PyFile>,
    sources: Vec<Arc<SourceFile>>,
    opts: &ScanOptions,
    cx: &Context,
) -> Vec<crate::python::link::Checked> {
    use crate::python::link::{Imports, PyFile, UnitFiles};
    if roots.is_empty() {
        return Vec::new();
    }
    let n_roots = roots.len();
    // Scan file i: root i, then source i - n_roots.
    let index = crate::python::modules::Index::new(
        roots
            .iter()
            .map(|r| r.facts.file.path.as_path())
            .chain(sources.iter().map(|s| s.path.as_path())),
    );
    let mut imports: HashMap<usize, Imports> = roots
        .iter()
        .enumerate()
        .map(|(i, r)| (i, Imports::of(&r.facts, &index)))
        .collect();
    let mut followed: HashMap<usize, FileFacts> = HashMap::new();
    let mut frontier: Vec<usize> = (0..n_roots).collect();
    for _ in 0..PYTHON_FOLLOW_DEPTH {
        let mut next: Vec<usize> = frontier
            .iter()
            .flat_map(|i| imports[i].followed().collect::<Vec<_>>())
            .filter(|j| *j >= n_roots && !followed.contains_key(j))
            .collect();
        next.sort_unstable();
        next.dedup();
        if next.is_empty() {
            break;
        }
        let parsed: Vec<(usize, FileFacts)> = pool.install(|| {
            next.par_iter()
                .filter_map(|&j| {
                    let file = &sources[j - n_roots];
                    let tree = crate::python::parse(&file.text).ok()?;
                    let facts =
                        crate::python::facts::analyze(file, tree.root_node(), &[], cx, &opts.rules);
                    Some((j, facts))
                })
                .collect()
        });
        frontier.clear();
        for (j, facts) in parsed {
            imports.insert(j, Imports::of(&facts, &index));
            followed.insert(j, facts);
            frontier.push(j);
        }
    }
    // Units: the files each root reaches, merged where they meet.
    let mut parent: HashMap<usize, usize> = imports.keys().map(|i| (*i, *i)).collect();
    fn find(parent: &mut HashMap<usize, usize>, i: usize) -> usize {
        let mut root = i;
        while parent[&root] != root {
            root = parent[&root];
        }
        // Path compression, without recursion.
        let mut at = i;
        while at != root {
            let next = parent[&at];
            parent.insert(at, root);
            at = next;
        }
        root
    }
    let mut edges: Vec<(usize, usize)> = imports
        .iter()
        .flat_map(|(i, im)| im.files().map(move |j| (*i, j)))
        .filter(|(_, j)| parent.contains_key(j))
        .collect();
    edges.sort_unstable();
    for (a, b) in edges {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra != rb {
            parent.insert(ra.max(rb), ra.min(rb));
        }
    }
    let mut members: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    let mut all: Vec<usize> = parent.keys().copied().collect();
    all.sort_unstable();
    for i in all {
        let r = find(&mut parent, i);
        members.entry(r).or_default().push(i);
    }
    let mut roots: Vec<Option<PyFile>> = roots.into_iter().map(Some).collect();
    let units: Vec<UnitFiles> = members
        .into_values()
        .map(|files| {
            // Roots first, then followed modules, each in scan order.
            let pos: HashMap<usize, usize> =
                files.iter().enumerate().map(|(p, i)| (*i, p)).collect();
            let unit_roots = files
                .iter()
                .filter(|i| **i < n_roots)
                .filter_map(|i| roots[*i].take())
                .collect();
            let unit_followed = files.iter().filter_map(|i| followed.remove(i)).collect();
            let unit_imports = files.iter().filter_map(|i| imports.remove(i)).collect();
            UnitFiles {
                roots: unit_roots,
                followed: unit_followed,
                imports: unit_imports,
                pos,
            }
        })
        .collect();
    pool.install(|| {
        units
            .into_par_iter()
            .map(|u| crate::python::link::check(u, cx, &opts.rules))
            .collect()
    })
}

/// Runs the P rules: the surface of `tools` against the committed
/// snapshot, and the profiles. Nothing to do (`None`) when no P rule is
/// selected, or there is neither a snapshot nor a profile.
fn check_surface(
    opts: &ScanOptions,
    cx: &Context,
    tools: &[ToolDef],
    read: &[&Path],
    diagnostics: &mut Vec<Diagnostic>,
    notifications: &mut Vec<Notification>,
) -> Result<Option<surface::Outcome>, Error> {
    let rules: Vec<&RuleEntry> = opts
        .rules
        .iter()
        .copied()
        .filter(|e| e.family().id == "P")
        .collect();
    if rules.is_empty() {
        return Ok(None);
    }
    let loaded = match &opts.surface.path {
        Some(path) => match surface::load(path)? {
            None if opts.surface.explicit => return Err(Error::NoSurface(path.clone())),
            loaded => loaded,
        },
        None => None,
    };
    if loaded.is_none() && opts.surface.profiles.is_empty() {
        return Ok(None);
    }
    let current = surface::build(tools, &opts.surface, read);
    notifications.extend(current.unmatched_warnings().map(|message| Notification {
        level: Severity::Warning,
        path: None,
        line: None,
        message,
    }));
    let changes = loaded
        .as_ref()
        .map(|l| surface::diff(l, &current))
        .unwrap_or_default();
    let view = crate::rules::SurfaceView {
        current: &current,
        snapshot: loaded.as_ref(),
        changes: &changes,
        profiles: &opts.surface.profiles,
    };
    for entry in rules {
        entry.rule.check_surface(cx, &view, diagnostics);
    }
    Ok(Some(surface::Outcome {
        snapshot_file: loaded.map(|l| l.file.display.clone()),
        changes,
    }))
}

/// Sorts findings into report order and drops exact repeats: the same
/// rule, place, message and tool found twice (a meta-schema error reached
/// through several branches of the meta-schema) is one finding.
fn sort_and_dedup(diagnostics: &mut Vec<Diagnostic>) {
    diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    diagnostics.dedup_by(|a, b| a.sort_key() == b.sort_key() && a.tool == b.tool);
}

/// The crate each Rust file belongs to: the nearest folder above it with a
/// `Cargo.toml`, else its own folder. `None` for other files.
fn crate_roots(candidates: &[Candidate]) -> Vec<Option<PathBuf>> {
    let mut cache: HashMap<PathBuf, PathBuf> = HashMap::new();
    candidates
        .iter()
        .map(|c| {
            if c.kind != FileKind::Rust {
                return None;
            }
            let dir = c.path.parent().unwrap_or(Path::new("."));
            let abs = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
            if let Some(root) = cache.get(&abs) {
                return Some(root.clone());
            }
            let root = abs
                .ancestors()
                .find(|d| d.join("Cargo.toml").is_file())
                .unwrap_or(&abs)
                .to_path_buf();
            cache.insert(abs, root.clone());
            Some(root)
        })
        .collect()
}

/// Where a file sits in its crate: test code is not analysed, and each
/// example is a program of its own.
fn crate_relative(file: &Path, root: &Path) -> Option<std::path::PathBuf> {
    let abs = std::path::absolute(file).ok()?;
    abs.strip_prefix(root).ok().map(Path::to_path_buf)
}

/// Test, benchmark and fixture code: its tools and handlers are not ones a
/// model is offered. By folder anywhere in the crate (see
/// [`discover::TEST_DIRS`]), by file (`tests.rs`, `test_utils.rs`,
/// `*_test.rs`), or by crate (`*-bench`, `*-tests`, `*-conformance`).
fn is_test_path(rel: &Path, root: &Path) -> bool {
    let crate_name = root.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if discover::TEST_DIRS.contains(&crate_name)
        || [
            "-bench",
            "-benches",
            "-tests",
            "-test-utils",
            "-testing",
            "-conformance",
        ]
        .iter()
        .any(|s| crate_name.ends_with(s))
    {
        return true;
    }
    let comps: Vec<&str> = rel.iter().filter_map(|c| c.to_str()).collect();
    let Some((file, dirs)) = comps.split_last() else {
        return false;
    };
    let stem = file.trim_end_matches(".rs");
    dirs.iter().any(|d| discover::TEST_DIRS.contains(d))
        || matches!(stem, "tests" | "test" | "test_utils" | "testing")
        || stem.ends_with("_test")
        || stem.ends_with("_tests")
}

/// pytest's test modules (`test_*.py`, `*_test.py`, `conftest.py`): a
/// server built there is a test's, not one a model is offered.
fn is_python_test_file(path: &Path) -> bool {
    let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
        return false;
    };
    stem.starts_with("test_") || stem.ends_with("_test") || stem == "conftest"
}

/// Links one crate's files and runs the rules on its tools and code.
/// A crate's tools, its findings, and the files it does not compile.
type Linked = (Vec<ToolDef>, Vec<Diagnostic>, Vec<String>);

/// Tools declared outside Rust (a Python literal, a JSON manifest) with no
/// handler of their own, by name, when the name is declared once: a Rust
/// crate that only dispatches a tool of that name handles it.
fn declarations_without_handlers(tools: &[ToolDef]) -> HashMap<&str, Option<&ToolDef>> {
    let mut by_name: HashMap<&str, Option<&ToolDef>> = HashMap::new();
    for t in tools {
        if t.format.is_reference() || t.format.names_only() || t.name_is_template() {
            continue;
        }
        by_name
            .entry(t.name.value.as_str())
            // Declared twice: which one the dispatch serves is not known.
            .and_modify(|e| *e = None)
            .or_insert((t.handler.is_none() && t.input_schema.is_some()).then_some(t));
    }
    by_name
}

fn check_crate(
    root: &Path,
    files: Vec<FileFacts>,
    validated: bool,
    names_mapped: bool,
    declared: &HashMap<&str, Option<&ToolDef>>,
    opts: &ScanOptions,
    cx: &Context,
) -> Linked {
    let group = format!("crate:{}", display_path(root));
    // Files no `mod` reaches are not compiled: no tool of theirs is served
    // and none of their code runs.
    let dead = rust::modules::not_compiled(root, &files);
    let mut not_compiled = Vec::new();
    let files: Vec<FileFacts> = files
        .into_iter()
        .enumerate()
        .filter_map(|(i, f)| {
            if dead.contains(&i) {
                not_compiled.push(f.file.display.clone());
                None
            } else {
                Some(f)
            }
        })
        .collect();
    let own = |f: &SourceFile| {
        crate_relative(&f.path, root).is_some_and(|rel| {
            rel.components()
                .next()
                .is_some_and(|c| c.as_os_str() == "examples")
        })
    };
    // Which rmcp derives the schemas matters only to a crate with rmcp
    // tools: the lock file is read for those alone.
    let rmcp_tools = files.iter().any(|f| {
        f.tools
            .iter()
            .any(|t| t.format == crate::model::ToolFormat::Rmcp)
    });
    let mut k = rust::link::link(
        files,
        &group,
        &own,
        rmcp_tools && rust::deps::rmcp_writes_type_arrays(root),
        validated,
    );
    link_declarations(&mut k, declared);
    let mut out = crate::link::findings(&mut k, opts.scope == Scope::All);
    for entry in &opts.rules {
        entry.rule.check_unit(cx, &k, &mut out);
    }
    let mut tools = Vec::new();
    for mut t in std::mem::take(&mut k.tools) {
        // An MCP server's own definitions go to clients as written.
        t.def.names_mapped = names_mapped && !t.def.format.served_as_written();
        // A tool only dispatched here is declared (and judged) elsewhere.
        if !t.def.format.is_reference() {
            for entry in &opts.rules {
                entry.rule.check_tool(cx, &t.def, &mut out);
            }
        }
        tools.push(t.def);
    }
    (tools, out, not_compiled)
}

/// A tool this crate only dispatches, declared once elsewhere in the scan
/// (in Python or a manifest) without a handler there, and dispatched once
/// here: one tool. Its handler's key reads are then judged against that
/// schema (M103, M104); its name and description stay the declaration's
/// to judge.
fn link_declarations(k: &mut crate::link::Unit, declared: &HashMap<&str, Option<&ToolDef>>) {
    let mut dispatched: HashMap<String, usize> = HashMap::new();
    for t in k.tools.iter().filter(|t| t.def.format.is_reference()) {
        *dispatched.entry(t.def.name.value.clone()).or_default() += 1;
    }
    for t in k.tools.iter_mut().filter(|t| t.def.format.is_reference()) {
        let Some(Some(d)) = declared.get(t.def.name.value.as_str()) else {
            continue;
        };
        if dispatched.get(&t.def.name.value) != Some(&1) || t.def.input_schema.is_some() {
            continue;
        }
        t.def.input_schema = d.input_schema.clone();
        t.def.schema_file = Arc::clone(&d.schema_file);
        t.def.schema_pointer = format!("{}{}", d.pointer, d.schema_pointer);
        t.def.schema_kind = d.schema_kind;
        t.def.schema_derived = d.schema_derived;
    }
}

fn process(c: &Candidate, crate_root: Option<&Path>, opts: &ScanOptions, cx: &Context) -> Outcome {
    let display = display_path(&c.path);
    let mut out = Outcome::default();
    let root = crate_root.unwrap_or(Path::new("."));
    let test_code = c.in_tests
        || (c.kind == FileKind::Rust
            && crate_relative(&c.path, root).is_some_and(|rel| is_test_path(&rel, root)))
        || (c.kind == FileKind::Python && is_python_test_file(&c.path));
    if test_code && !opts.walk.include_tests && !c.explicit {
        out.test_file = true;
        return out;
    }
    let mut notify = |level, message: String| {
        out.notifications.push(Notification {
            level,
            path: Some(display.clone()),
            line: None,
            message,
        })
    };
    let bytes = match read_capped(&c.path, opts.max_file_size) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => {
            notify(
                Severity::Warning,
                format!(
                    "skipped: larger than the {} size cap (raise it with --max-file-size)",
                    human_size(opts.max_file_size)
                ),
            );
            return out;
        }
        Err(e) => {
            notify(Severity::Error, format!("could not read: {e}"));
            return out;
        }
    };
    if let Some(at) = bytes.iter().position(|&b| b == 0) {
        notify(
            Severity::Warning,
            format!("skipped: binary file (NUL byte at offset {at})"),
        );
        return out;
    }
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            notify(
                Severity::Warning,
                format!("skipped: not valid UTF-8 (invalid byte at offset {at})"),
            );
            return out;
        }
    };
    let file = Arc::new(SourceFile::new(c.path.clone(), display.clone(), text));
    check_file(file, c.kind, root, opts, cx, &mut out);
    out
}

/// Parses, extracts and checks one file that was read; the per-file half
/// of the pipeline (a Rust file's crate is checked after the merge).
fn check_file(
    file: Arc<SourceFile>,
    kind: FileKind,
    root: &Path,
    opts: &ScanOptions,
    cx: &Context,
    out: &mut Outcome,
) {
    let mut notify = |level, message: String| {
        out.notifications.push(Notification {
            level,
            path: Some(file.display.clone()),
            line: None,
            message,
        })
    };
    if kind == FileKind::Rust {
        let tree = match rust::parse(&file.text) {
            Ok(t) => t,
            Err(e) => {
                notify(Severity::Warning, format!("not checked: {e}"));
                return;
            }
        };
        out.parsed = true;
        if let Some(at) = rust::first_error(&tree) {
            let at = file.line_col(at);
            notify(Severity::Warning, syntax_error_message(at));
        }
        let facts = rust::analyze::analyze(&file, tree.root_node(), cx, &opts.rules);
        drop(tree);
        out.rust = Some((root.to_path_buf(), facts));
        let (inline, notes) = suppress::parse(&file);
        out.suppressions = inline;
        out.notifications.extend(notes);
        return;
    }
    if kind == FileKind::Python {
        out.parsed = true;
        if !is_python_test_file(&file.path) {
            let (names, paths, dynamic) = crate::python::file_imports(&file.text);
            out.imports = Some((names, dynamic));
            out.import_paths = paths;
        }
        if !crate::python::may_declare_tools(&file.text) {
            out.py_source = Some(file);
            return;
        }
        let tree = match crate::python::parse(&file.text) {
            Ok(t) => t,
            Err(e) => {
                notify(Severity::Warning, format!("not checked: {e}"));
                return;
            }
        };
        if let Some(at) = crate::python::first_error(&tree) {
            let at = file.line_col(at);
            notify(Severity::Warning, syntax_error_message(at));
        }
        out.tools = crate::python::extract(&file, &tree);
        // The code rules, on a file with tools, a tool-call dispatcher or
        // an agent loop that runs the model's tool calls.
        if !out.tools.is_empty()
            || file.text.contains(".call_tool")
            || file.text.contains("tool_call")
        {
            let tool_fns: Vec<usize> = out
                .tools
                .iter()
                .filter(|t| t.schema_derived)
                .filter_map(|t| t.handler.as_ref().map(|h| h.span.start))
                .collect();
            let facts =
                crate::python::facts::analyze(&file, tree.root_node(), &tool_fns, cx, &opts.rules);
            drop(tree);
            out.python = Some(crate::python::link::prepare(facts, &mut out.tools));
        } else {
            drop(tree);
            out.py_source = Some(Arc::clone(&file));
        }
        let (inline, notes) = suppress::parse(&file);
        out.suppressions = inline;
        out.notifications.extend(notes);
        for tool in &out.tools {
            for entry in &opts.rules {
                entry.rule.check_tool(cx, tool, &mut out.diagnostics);
            }
        }
        return;
    }
    let parsed = match kind {
        FileKind::Json => json::parse(&file.text).map(|d| d.into_iter().collect::<Vec<_>>()),
        FileKind::Yaml => yaml::parse(&file.text),
        FileKind::Toml => crate::syntax::toml::parse(&file.text).map(|d| d.into_iter().collect()),
        FileKind::Rust | FileKind::Python => unreachable!("handled above"),
    };
    let docs = match parsed {
        Ok(docs) => docs,
        Err(e) => {
            let at = file.line_col(e.offset);
            let lang = match kind {
                FileKind::Json => "JSON",
                FileKind::Toml => "TOML",
                _ => "YAML",
            };
            notify(
                Severity::Warning,
                format!(
                    "not checked: invalid {lang} at line {}, column {}: {}",
                    at.line, at.column, e.message
                ),
            );
            return;
        }
    };
    out.parsed = true;
    if docs.is_empty() {
        notify(Severity::Note, "empty file: nothing to check".into());
        return;
    }
    let (inline, notes) = suppress::parse(&file);
    out.suppressions = inline;
    out.notifications.extend(notes);
    out.tools = manifest::extract(&file, &docs);
    drop(docs);
    for tool in &out.tools {
        for entry in &opts.rules {
            if tool.format.names_only() && entry.family().id != "N" {
                continue;
            }
            entry.rule.check_tool(cx, tool, &mut out.diagnostics);
        }
    }
}

/// What a file with a syntax error at `at` is told.
fn syntax_error_message(at: crate::source::LineCol) -> String {
    format!(
        "syntax error at line {}, column {}: the rest of the file was read as well as it could be, and findings in it may be missing",
        at.line, at.column
    )
}

/// Checks one in-memory file as a scan of it alone would, with every rule
/// and the default targets, and renders the human and SARIF reports into
/// nothing; the number of findings. The fuzz targets' entry point: the
/// same parsing, extraction, linking, rules and rendering as `scan`.
pub fn check_text(kind: FileKind, text: &str) -> usize {
    let rules = crate::rules::select(&["ALL".to_string()], &[]).unwrap_or_default();
    let opts = ScanOptions {
        walk: WalkOptions::default(),
        scope: Scope::Surface,
        truncation_markers: Vec::new(),
        tool_budget: crate::budget::DEFAULT_GROUP_BUDGET,
        max_file_size: DEFAULT_MAX_FILE_SIZE,
        targets: crate::targets::defaults(),
        named_targets: Vec::new(),
        rules,
        explicit: Vec::new(),
        severity: BTreeMap::new(),
        per_file_ignores: Vec::new(),
        suppressions: Vec::new(),
        surface: SurfaceOptions::default(),
    };
    let cx = Context {
        targets: &opts.targets,
        named_targets: &opts.named_targets,
        explicit: &opts.explicit,
        all: false,
        truncation_markers: &opts.truncation_markers,
        tool_budget: opts.tool_budget,
    };
    let name = match kind {
        FileKind::Json => "input.json",
        FileKind::Yaml => "input.yaml",
        FileKind::Toml => "input.toml",
        FileKind::Rust => "src/lib.rs",
        FileKind::Python => "server.py",
    };
    let file = Arc::new(SourceFile::new(name.into(), name.into(), text.to_string()));
    let mut out = Outcome::default();
    let root = Path::new(".");
    check_file(file, kind, root, &opts, &cx, &mut out);
    let mut tools = out.tools;
    let mut diagnostics = out.diagnostics;
    if let Some((root, facts)) = out.rust {
        let files = vec![facts];
        let validated = rust::link::validates_tool_arguments(&files);
        let (t, d, _) = check_crate(&root, files, validated, false, &HashMap::new(), &opts, &cx);
        tools.extend(t);
        diagnostics.extend(d);
    }
    let members: Vec<&ToolDef> = tools.iter().filter(|t| !t.format.is_reference()).collect();
    for entry in &opts.rules {
        entry.rule.check_group(&cx, &members, &mut diagnostics);
    }
    sort_and_dedup(&mut diagnostics);
    let n = diagnostics.len();
    let scan = Scan {
        files_scanned: 1,
        read: Vec::new(),
        tools,
        diagnostics,
        notifications: out.notifications,
        suppressed: Vec::new(),
        baseline: None,
        diff_base: None,
        test_files_skipped: 0,
        skipped: Vec::new(),
        surface: None,
    };
    let report = crate::report::Report {
        scan: &scan,
        rules: &opts.rules,
        targets: &opts.targets,
        root: PathBuf::from("/"),
        cwd: PathBuf::from("/"),
        color: false,
        category: "toolaudit".into(),
        statistics: false,
        show_suppressed: false,
    };
    for format in [crate::report::Format::Human, crate::report::Format::Sarif] {
        let _ = crate::report::render(format, &report, &mut std::io::sink());
    }
    n
}

/// Reads a file unless it is larger than `cap` bytes (`Ok(None)`).
fn read_capped(path: &std::path::Path, cap: u64) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    if file.metadata()?.len() > cap {
        return Ok(None);
    }
    let mut bytes = Vec::new();
    // The file may grow between stat and read; never read past the cap.
    file.take(cap + 1).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= cap).then_some(bytes))
}

pub fn human_size(bytes: u64) -> String {
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * KIB;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= KIB && bytes.is_multiple_of(KIB) {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes} bytes")
    }
}

/// Parses `4MiB`, `512KiB`, `1M`, `2k` or a plain number of bytes.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("invalid size `{s}`; use bytes or a unit such as 4MiB or 512KiB"))?;
    let mult = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1024,
        "m" | "mb" | "mib" => 1024 * 1024,
        "g" | "gb" | "gib" => 1024 * 1024 * 1024,
        other => {
            return Err(format!(
                "unknown size unit `{other}` in `{s}`; use KiB, MiB or GiB"
            ));
        }
    };
    n.checked_mul(mult)
        .ok_or_else(|| format!("size `{s}` is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4MiB"), Ok(4 * 1024 * 1024));
        assert_eq!(parse_size("512k"), Ok(512 * 1024));
        assert_eq!(parse_size("100"), Ok(100));
        assert!(parse_size("4 parsecs").is_err());
        assert!(parse_size("").is_err());
        assert_eq!(human_size(DEFAULT_MAX_FILE_SIZE), "4 MiB");
        assert_eq!(human_size(1000), "1000 bytes");
    }
}
