//! Helpers shared by the test modules.

use std::ffi::OsStr;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use toolaudit::discover::WalkOptions;
use toolaudit::engine::{self, DEFAULT_MAX_FILE_SIZE, Scan, ScanOptions};
use toolaudit::model::Diagnostic;
use toolaudit::surface::SurfaceOptions;
use toolaudit::{rules, targets};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixtures() -> PathBuf {
    root().join("tests/fixtures")
}

pub fn bin() -> assert_cmd::Command {
    let mut cmd = assert_cmd::cargo_bin_cmd!("toolaudit");
    cmd.current_dir(root()).env_remove("NO_COLOR");
    cmd
}

/// A temporary folder holding `files` (path, text), with their folders.
pub fn write_tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let p = dir.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

/// A temporary crate: a `Cargo.toml` and `files`.
pub fn crate_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let mut all = vec![("Cargo.toml", "[package]\nname = \"t\"\n")];
    all.extend_from_slice(files);
    write_tree(&all)
}

/// The tools `toolaudit tools PATH --format json` lists.
pub fn tools_json(path: impl AsRef<OsStr>) -> Vec<serde_json::Value> {
    let out = bin()
        .arg("tools")
        .arg(path)
        .args(["--format", "json"])
        .assert()
        .code(0);
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    v["tools"].as_array().unwrap().clone()
}

/// Scans `paths` (relative to the crate root) through the library. A
/// fixture folder with its own `toolaudit.toml` (profiles) is scanned
/// with it, as `toolaudit scan` would.
pub fn scan(paths: &[&Path], select: &[&str], target: &[&str]) -> Scan {
    if let [one] = paths
        && root().join(one).join("toolaudit.toml").is_file()
    {
        let mut args = vec!["toolaudit".to_string(), "scan".into()];
        args.push(one.to_string_lossy().into_owned());
        for code in select {
            args.extend(["--select".to_string(), code.to_string()]);
        }
        for t in target {
            args.extend(["--target".to_string(), t.to_string()]);
        }
        let opts = toolaudit::cli::scan_options(args).unwrap();
        return engine::scan(&opts).unwrap();
    }
    let own = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let opts = ScanOptions {
        scope: Default::default(),
        truncation_markers: Vec::new(),
        tool_budget: toolaudit::budget::DEFAULT_GROUP_BUDGET,
        walk: WalkOptions {
            paths: paths.iter().map(|p| p.to_path_buf()).collect(),
            ..WalkOptions::default()
        },
        max_file_size: DEFAULT_MAX_FILE_SIZE,
        targets: targets::resolve(&own(target)).unwrap(),
        named_targets: targets::named(&own(target)),
        rules: rules::select(&own(select), &[]).unwrap(),
        explicit: rules::explicit_codes(&own(select)),
        severity: Default::default(),
        per_file_ignores: Vec::new(),
        suppressions: Vec::new(),
        surface: SurfaceOptions::beside(&paths.iter().map(|p| p.to_path_buf()).collect::<Vec<_>>()),
    };
    engine::scan(&opts).unwrap()
}

/// Paths relative to the crate root, so displayed paths are stable.
pub fn rel(p: &Path) -> PathBuf {
    p.strip_prefix(root()).unwrap_or(p).to_path_buf()
}

fn at(d: &toolaudit::source::SourceFile, offset: usize) -> String {
    let lc = d.line_col(offset);
    format!("{}:{}", lc.line, lc.column)
}

/// A compact, complete text form of findings for snapshots.
pub fn describe(diags: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diags {
        let _ = writeln!(
            out,
            "{} {} {}:{}-{} `{}`",
            d.code,
            d.severity,
            d.file.display,
            at(&d.file, d.span.start),
            at(&d.file, d.span.end),
            d.file.slice(d.span)
        );
        let _ = writeln!(out, "  message: {}", d.message);
        let _ = writeln!(out, "  label: {}", d.label);
        for l in &d.secondary {
            let _ = writeln!(
                out,
                "  secondary: {}:{} {}",
                l.file.display,
                at(&l.file, l.span.start),
                l.message
            );
        }
        for n in &d.notes {
            let _ = writeln!(out, "  note: {n}");
        }
        if let Some(h) = &d.help {
            let _ = writeln!(out, "  help: {h}");
        }
    }
    out
}

/// A validator for the official SARIF 2.1.0 schema (errata 01).
pub fn sarif_validator() -> jsonschema::Validator {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("tests/schemas/sarif-schema-2.1.0.json")).unwrap(),
    )
    .unwrap();
    jsonschema::validator_for(&schema).expect("the official schema compiles")
}
