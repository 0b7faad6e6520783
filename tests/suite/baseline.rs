//! Baselines: written by `toolaudit baseline`, applied by `scan --baseline`,
//! keyed on identity so edits that shift lines do not resurrect findings.

use predicates::prelude::*;
use predicates::str::contains;

use super::util::{bin, root};

#[test]
fn baseline_round_trip_survives_edits_and_reports_new_defects() {
    let dir = tempfile::tempdir().unwrap();
    let original =
        std::fs::read_to_string(root().join("examples/mcp-gateway/tools-list.json")).unwrap();
    let tools = dir.path().join("tools.json");
    std::fs::write(&tools, &original).unwrap();
    let run = |args: &[&str]| bin().current_dir(dir.path()).args(args).assert();

    run(&["baseline", "."])
        .code(0)
        .stderr(contains("wrote 13 findings to toolaudit-baseline.json"));
    let written = std::fs::read_to_string(dir.path().join("toolaudit-baseline.json")).unwrap();
    assert!(written.contains("\"anchor\": \"/name\"") && written.contains("\"tool\": \"fs.list\""));
    run(&["scan", ".", "--baseline", "toolaudit-baseline.json"])
        .code(0)
        .stdout(
            contains("No problems found").and(contains("13 findings in the baseline left out.")),
        );

    // An unrelated edit that shifts every line and reorders nothing: still clean.
    let shifted = original.replacen(
        "{\n",
        "{\n\n\n  \"_comment\": \"captured 2026-11-20\",\n",
        1,
    );
    std::fs::write(&tools, &shifted).unwrap();
    run(&["scan", ".", "--baseline", "toolaudit-baseline.json"]).code(0);

    // A new defect is new; the old ones stay accepted.
    let broken = shifted.replacen("\"name\": \"shell_exec\"", "\"name\": \"shell.exec\"", 1);
    std::fs::write(&tools, &broken).unwrap();
    run(&[
        "scan",
        ".",
        "--baseline",
        "toolaudit-baseline.json",
        "--format",
        "json",
    ])
    .code(1)
    .stdout(contains("\"tool\": \"shell.exec\"").and(contains("\"tool\": \"fs.list\"").not()))
    // Renaming the tool also retired the baseline entry keyed on its old name.
    .stdout(contains("\"stale\": 1"));

    // Fixing a defect leaves a stale entry, and the summary says how to shrink the baseline.
    let fixed = shifted.replacen("\"name\": \"fs.list\"", "\"name\": \"fs_list\"", 1);
    std::fs::write(&tools, &fixed).unwrap();
    run(&["scan", ".", "--baseline", "toolaudit-baseline.json"])
        .code(0)
        .stdout(contains(
            "1 entry of the baseline no longer found: run `toolaudit baseline` to shrink it.",
        ));
}

#[test]
fn a_broken_or_missing_baseline_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("b.json"), "{\"version\": 1}").unwrap();
    bin()
        .current_dir(root())
        .args(["scan", "examples", "--baseline"])
        .arg(dir.path().join("b.json"))
        .assert()
        .code(2)
        .stderr(contains("is not a toolaudit baseline"));
    bin()
        .current_dir(root())
        .args(["scan", "examples", "--baseline", "no-such-baseline.json"])
        .assert()
        .code(2)
        .stderr(contains("cannot read the baseline no-such-baseline.json"));
}
