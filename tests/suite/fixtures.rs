//! Every rule against its fixtures: everything named `bad*` under
//! `tests/fixtures/<CODE>/` must fire that rule (snapshotted), everything
//! named `good*` must not.

use std::path::Path;

use toolaudit::model::Severity;
use toolaudit::rules::REGISTRY;

use super::util::{describe, fixtures, rel, scan};

fn entries(code: &str, prefix: &str) -> Vec<std::path::PathBuf> {
    let dir = fixtures().join(code);
    let mut v: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(prefix))
        .map(|p| rel(&p))
        .collect();
    v.sort();
    v
}

#[test]
fn bad_fixtures_fire_and_good_fixtures_stay_silent() {
    for entry in REGISTRY {
        let code = entry.code;
        let mut snapshot = String::new();
        for bad in entries(code, "bad") {
            let found = scan(&[&bad], &[code], &[]).diagnostics;
            assert!(!found.is_empty(), "{code}: {} fires nothing", bad.display());
            assert!(found.iter().all(|d| d.code == code));
            snapshot.push_str(&describe(&found));
        }
        for good in entries(code, "good") {
            let found = scan(&[&good], &[code], &[]).diagnostics;
            assert!(
                found.is_empty(),
                "{code}: {} fires:\n{}",
                good.display(),
                describe(&found)
            );
        }
        insta::assert_snapshot!(code, snapshot);
    }
}

/// The acceptance manifest of the walking-skeleton issue: each defect gets
/// its finding at the exact line and column.
#[test]
fn name_defects_are_found_at_exact_positions() {
    let found = scan(&[Path::new("tests/fixtures/names/bad.json")], &["N"], &[]).diagnostics;
    let at = |code: &str, line: usize, column: usize| {
        found.iter().any(|d| {
            let lc = d.file.line_col(d.span.start);
            d.code == code && lc.line == line && lc.column == column
        })
    };
    assert!(at("N101", 3, 14), "fs.list\n{}", describe(&found));
    assert!(at("N101", 4, 14), "server:tool");
    assert!(at("N101", 5, 14), "notion/create-pages");
    assert!(at("N101", 6, 14), "70 characters");
    assert!(at("N102", 8, 14), "files.read vs files_read");
    assert!(at("N103", 9, 14), "second fs.list");
    insta::assert_snapshot!(describe(&found));

    let clean = scan(&[Path::new("tests/fixtures/names/good.json")], &["N"], &[]);
    assert_eq!(clean.tools.len(), 6);
    assert!(
        clean.diagnostics.is_empty(),
        "{}",
        describe(&clean.diagnostics)
    );
}

#[test]
fn m102_on_arguments_whose_fields_are_all_required_is_a_note() {
    let all_required = scan(
        &[Path::new("tests/fixtures/M102/bad-all-required")],
        &["M102"],
        &[],
    );
    let severities: Vec<_> = all_required
        .diagnostics
        .iter()
        .map(|d| d.severity)
        .collect();
    assert_eq!(
        severities,
        [Severity::Note; 4],
        "{}",
        describe(&all_required.diagnostics)
    );
    let optional = scan(&[Path::new("tests/fixtures/M102/bad")], &["M102"], &[]);
    assert!(
        optional
            .diagnostics
            .iter()
            .any(|d| d.severity == Severity::Warning),
        "{}",
        describe(&optional.diagnostics)
    );
}

#[test]
fn portable_target_folds_case_and_dashes() {
    let path = Path::new("tests/fixtures/N102/good.json");
    let found = scan(&[path], &["N102"], &["portable"]).diagnostics;
    let names: Vec<_> = found.iter().map(|d| d.tool.clone().unwrap()).collect();
    assert_eq!(names, ["search", "get_item"], "{}", describe(&found));
}

#[test]
fn mcp_only_accepts_dots_but_not_colons() {
    let found = scan(
        &[Path::new("tests/fixtures/N101/bad.json")],
        &["N101"],
        &["mcp"],
    )
    .diagnostics;
    let tools: Vec<_> = found.iter().map(|d| d.tool.clone().unwrap()).collect();
    assert!(!tools.contains(&"fs.list".to_string()), "{tools:?}");
    assert!(tools.contains(&"server:tool".to_string()));
    assert!(
        found
            .iter()
            .all(|d| d.severity == toolaudit::model::Severity::Warning)
    );
}

#[test]
fn gemini_alone_accepts_dots_and_colons_but_not_a_leading_digit() {
    let found = scan(
        &[Path::new("tests/fixtures/N101/bad-gemini.json")],
        &["N101"],
        &["gemini"],
    );
    let tools: Vec<_> = found
        .diagnostics
        .iter()
        .map(|d| d.tool.clone().unwrap())
        .collect();
    assert_eq!(tools, ["2fa_verify"]);
}

/// A realistic 120-tool `tools/list` dump (see
/// `tests/fixtures/realistic/make_tools_list.py`) yields exactly its six
/// planted defects: no noise from the other 114 tools.
#[test]
fn realistic_tools_list_yields_exactly_the_planted_defects() {
    // Every rule, the opt-in M101 included.
    let scan = scan(
        &[Path::new("tests/fixtures/realistic/tools-list.json")],
        &["ALL"],
        &[],
    );
    assert_eq!(scan.tools.len(), 120);
    let mut got: Vec<String> = scan
        .diagnostics
        .iter()
        .map(|d| format!("{} {}", d.code, d.tool.as_deref().unwrap_or("?")))
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            "M101 create_webhook",
            "N101 gists.get",
            "S103 list_releases",
            "S104 list_tags",
            "S105 create_label",
            "S106 delete_artifact",
        ],
        "{}",
        describe(&scan.diagnostics)
    );
    let s103 = scan.diagnostics.iter().find(|d| d.code == "S103").unwrap();
    assert!(
        s103.help
            .as_deref()
            .unwrap()
            .starts_with("did you mean `perPage`?")
    );
}

#[test]
fn strict_targets_apply_to_every_tool_when_named() {
    // The realistic dump is not strict; naming openai-strict checks it as if it were.
    let path = Path::new("tests/fixtures/realistic/tools-list.json");
    let plain = scan(&[path], &["S105"], &[]).diagnostics.len();
    let strict = scan(&[path], &["S105"], &["openai-strict"])
        .diagnostics
        .len();
    assert_eq!(plain, 1);
    assert!(strict > 100, "{strict}");
}

#[test]
fn parameter_descriptions_are_checked_only_when_s106_is_named() {
    let path = Path::new("tests/fixtures/S106/bad.json");
    let text = r#"{"tools": [{"name": "t", "description": "d", "inputSchema": {"type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "string", "description": "B"}}}}]}"#;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.json");
    std::fs::write(&file, text).unwrap();
    assert!(scan(&[&file], &["S"], &[]).diagnostics.is_empty());
    let named = scan(&[&file], &["S106"], &[]).diagnostics;
    assert_eq!(named.len(), 1, "{}", describe(&named));
    assert_eq!(named[0].severity, toolaudit::model::Severity::Note);
    assert!(named[0].message.contains("parameter `a`"));
    assert_eq!(scan(&[path], &["S106"], &[]).diagnostics.len(), 3);
}

/// A well-written manifest yields nothing, with every rule and every default target.
#[test]
fn a_clean_manifest_has_no_findings() {
    let scan = scan(
        &[Path::new("tests/fixtures/clean/tools-list.json")],
        &[],
        &[],
    );
    assert_eq!(scan.tools.len(), 3);
    assert!(
        scan.diagnostics.is_empty(),
        "{}",
        describe(&scan.diagnostics)
    );
}

/// An OpenAPI operation is a tool named by its `operationId`: a missing one
/// is reported at the method, an invalid one at the id; nothing else of the
/// operation is judged (its parameters are not an input schema).
#[test]
fn openapi_operations_are_judged_by_their_operation_ids_only() {
    let bad = Path::new("tests/fixtures/N101/bad-openapi.yaml");
    let found = scan(&[bad], &["ALL"], &[]);
    let got: Vec<(&str, usize, Severity)> = found
        .diagnostics
        .iter()
        .map(|d| (d.code, d.file.line_col(d.span.start).line, d.severity))
        .collect();
    assert_eq!(
        got,
        // Two operations without a name are not two tools of one name (N103).
        [
            ("N101", 9, Severity::Warning),
            ("N101", 22, Severity::Error),
            ("N101", 28, Severity::Warning)
        ],
        "{}",
        describe(&found.diagnostics)
    );
    assert!(
        found.diagnostics[0]
            .message
            .contains("`GET /sensors/{id}/reading`")
    );
    assert!(
        found.diagnostics[0]
            .help
            .as_deref()
            .is_some_and(|h| h.contains("`get_sensors_id_reading`"))
    );
    assert_eq!(found.tools.len(), 3);
    // Valid ids; `open_vents` has no summary, which S106 does not judge here.
    let good = scan(
        &[Path::new("tests/fixtures/N101/good-openapi.json")],
        &["ALL"],
        &[],
    );
    assert_eq!(good.tools.len(), 2);
    assert!(
        good.diagnostics.is_empty(),
        "{}",
        describe(&good.diagnostics)
    );
}

/// An `operationId` that only some targets advise against gets the note for
/// a warning, not one naming the targets that reject it (there are none).
#[test]
fn a_long_operation_id_is_a_warning_with_a_note_that_names_no_rejecting_target() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("spec.yaml");
    let id = "a".repeat(70);
    std::fs::write(
        &spec,
        format!("openapi: 3.0.0\npaths:\n  /a:\n    get:\n      operationId: {id}\n"),
    )
    .unwrap();
    let found = scan(&[&spec], &["N101"], &["openai"]).diagnostics;
    assert_eq!(found.len(), 1, "{}", describe(&found));
    assert_eq!(found[0].severity, Severity::Warning);
    let notes = found[0].notes.join(" ");
    assert!(!notes.contains("pass it on to ,"), "{notes}");
    assert!(notes.contains("some hosts rename"), "{notes}");
}
