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
    // Every rule, the opt-in M101 too: more kinds of identity to keep.
    std::fs::write(dir.path().join("toolaudit.toml"), "select = [\"ALL\"]\n").unwrap();
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

/// Two findings on equal lines of one handler (`.unwrap_or(false);`): the
/// one the baseline recorded stays accepted and the new one is reported,
/// wherever it is added.
#[test]
fn equal_lines_match_the_recorded_finding_not_the_first_one() {
    let dir = tempfile::tempdir().unwrap();
    let handler = |reads: &[&str]| {
        let body: String = reads
            .iter()
            .map(|k| {
                format!(
                    "        let {k} = args\n            .get(\"{k}\")\n            .and_then(|v| v.as_bool())\n            .unwrap_or(false);\n"
                )
            })
            .collect();
        let props: Vec<String> = reads
            .iter()
            .map(|k| format!("\"{k}\": {{\"type\": \"boolean\"}}"))
            .collect();
        format!(
            "use serde_json::{{Value, json}};\npub struct List;\nimpl List {{\n    fn name(&self) -> &'static str {{ \"list_files\" }}\n    fn description(&self) -> &'static str {{ \"List files\" }}\n    fn input_schema(&self) -> Value {{ json!({{\"type\": \"object\", \"properties\": {{{}}}}}) }}\n    fn call(&self, args: &Value) -> String {{\n{body}        format!(\"{{}}\", {})\n    }}\n}}\n",
            props.join(", "),
            reads.join(" && ")
        )
    };
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"t\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    let lib = dir.path().join("src/lib.rs");
    std::fs::write(&lib, handler(&["recursive"])).unwrap();
    let run = |args: &[&str]| bin().current_dir(dir.path()).args(args).assert();
    run(&["baseline", ".", "--select", "M202"])
        .code(0)
        .stderr(contains("wrote 1 finding"));

    // A second read of the same shape, added *before* the recorded one.
    std::fs::write(&lib, handler(&["hidden", "recursive"])).unwrap();
    let out = run(&[
        "scan",
        ".",
        "--select",
        "M202",
        "--baseline",
        "toolaudit-baseline.json",
        "--format",
        "json",
    ])
    .code(1)
    .get_output()
    .stdout
    .clone();
    let doc: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let findings = doc["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{doc:#}");
    assert!(
        findings[0]["message"]
            .as_str()
            .unwrap()
            .contains("`hidden`"),
        "{doc:#}"
    );
    assert_eq!(doc["summary"]["baseline"]["matched"], 1);
    assert_eq!(doc["summary"]["baseline"]["stale"], 0);
}
