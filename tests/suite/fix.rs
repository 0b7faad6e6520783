//! `scan --fix`, `--diff` and `--unsafe-fixes` on JSON and YAML manifests:
//! the edits (snapshotted as a diff), the round trip (fixed files scan clean
//! for what was fixed and differ only there), idempotence, and what is
//! never touched.

use std::path::Path;

use predicates::prelude::*;
use predicates::str::contains;

use super::util::{bin, fixtures};

const FILES: [&str; 3] = ["tools.json", "openai-tools.yaml", "root-anyof.json"];

/// The fix fixtures in a temporary folder.
fn copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in FILES {
        std::fs::copy(fixtures().join("fix").join(f), dir.path().join(f)).unwrap();
    }
    dir
}

fn run(dir: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    bin()
        .current_dir(dir)
        .args(["scan", ".", "--no-config", "--select", "ALL"])
        .args(args)
        .assert()
}

fn findings(dir: &Path) -> Vec<(String, String, String)> {
    let out = run(dir, &["--format", "json"]).get_output().stdout.clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                f["file"].as_str().unwrap().to_string(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn diff_shows_the_fixes_and_writes_nothing() {
    let dir = copy();
    let out = run(dir.path(), &["--diff", "--unsafe-fixes"])
        .code(1)
        .stderr(contains(
            "would fix 9 problems (M101 ×2, N101 ×1, S102 ×1, S104 ×2, S105 ×3) in 3 files",
        ));
    insta::assert_snapshot!(String::from_utf8(out.get_output().stdout.clone()).unwrap());
    for f in FILES {
        let now = std::fs::read_to_string(dir.path().join(f)).unwrap();
        assert_eq!(
            now,
            std::fs::read_to_string(fixtures().join("fix").join(f)).unwrap()
        );
    }
    // Safe fixes only: the rename and the closing of an open schema wait.
    run(dir.path(), &["--diff"]).code(1).stderr(contains(
        "would fix 5 problems (S104 ×2, S105 ×3) in 2 files; 4 more with --unsafe-fixes",
    ));
}

#[test]
fn fix_round_trip() {
    let dir = copy();
    let before = findings(dir.path());
    let diff = run(dir.path(), &["--diff", "--unsafe-fixes"])
        .get_output()
        .stdout
        .clone();
    run(dir.path(), &["--fix"]).stderr(contains("fixed 5 problems (S104 ×2, S105 ×3) in 2 files"));
    run(dir.path(), &["--fix", "--unsafe-fixes"]).stderr(contains(
        "fixed 4 problems (M101 ×2, N101 ×1, S102 ×1) in 2 files",
    ));
    let after = findings(dir.path());
    // What was fixed is gone; what had no fix (or a taken name) is left.
    let gone: Vec<_> = before.iter().filter(|f| !after.contains(f)).collect();
    assert_eq!(gone.len(), 9, "{gone:#?}");
    assert!(
        after
            .iter()
            .all(|(code, _, m)| !(code == "S104" && m.contains("`default`")))
    );
    assert!(
        after
            .iter()
            .all(|(code, _, m)| !(code == "S105" && m.contains("additionalProperties")))
    );
    assert!(
        after
            .iter()
            .any(|(code, _, m)| code == "N101" && m.contains("`notes.read`")),
        "{after:#?}"
    );
    assert!(
        after.iter().all(|(code, _, _)| code != "S102"),
        "{after:#?}"
    );
    assert!(
        after
            .iter()
            .all(|f| before.contains(f) || f.0 == "N102" || f.0 == "S108"),
        "new findings: {after:#?}"
    );
    // The files differ from the originals exactly by the diff shown first.
    for f in FILES {
        let old = std::fs::read_to_string(fixtures().join("fix").join(f)).unwrap();
        let new = std::fs::read_to_string(dir.path().join(f)).unwrap();
        let shown = String::from_utf8(diff.clone()).unwrap();
        for change in similar::TextDiff::from_lines(&old, &new).iter_all_changes() {
            if change.tag() != similar::ChangeTag::Equal {
                let line = format!("{}{}", change.tag(), change.value());
                assert!(
                    shown.contains(line.trim_end()),
                    "{f}: {line:?} not in the diff"
                );
            }
        }
    }
    // Nothing left to fix: a second run changes nothing.
    let snapshot: Vec<String> = FILES
        .iter()
        .map(|f| std::fs::read_to_string(dir.path().join(f)).unwrap())
        .collect();
    run(dir.path(), &["--fix", "--unsafe-fixes"]).stderr(contains("fixed 0 problems in 0 files"));
    let again: Vec<String> = FILES
        .iter()
        .map(|f| std::fs::read_to_string(dir.path().join(f)).unwrap())
        .collect();
    assert_eq!(snapshot, again);
}

/// Code is never edited: a fixable finding in Rust source is reported, not fixed.
#[test]
fn fix_leaves_source_code_alone() {
    let dir = tempfile::tempdir().unwrap();
    let src = "use serde_json::json;\npub fn tools() -> serde_json::Value {\n    json!([{\"name\": \"a.b\", \"description\": \"Does a thing to b.\", \"inputSchema\": {\"type\": \"object\", \"properties\": {\"n\": {\"type\": \"integer\", \"default\": \"x\"}}}}])\n}\n";
    std::fs::write(dir.path().join("lib.rs"), src).unwrap();
    run(dir.path(), &["--fix", "--unsafe-fixes"]).stderr(contains("fixed 0 problems in 0 files"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("lib.rs")).unwrap(),
        src
    );
}

#[test]
fn diff_and_fix_exclude_each_other() {
    bin()
        .args(["scan", "tests/fixtures/fix", "--fix", "--diff"])
        .assert()
        .code(2)
        .stderr(contains("--diff").and(contains("--fix")));
}
