//! Suppressions: comments in the scanned file, `[[suppress]]` entries in the
//! config file, the reason they must give, the report of suppressions that
//! match nothing, and suppressed results in SARIF.

use predicates::prelude::*;
use predicates::str::contains;
use serde_json::Value;

use super::util::{bin, sarif_validator, write_tree};

const YAML: &str = "\
# An agent's tool list.
tools:
  # toolaudit: ignore[N101] only ever sent to Gemini, which accepts dots
  - name: fs.list
    description: List a directory
    input_schema: {type: object, properties: {}, additionalProperties: false}
  - name: web:search  # toolaudit: ignore[N101]
    description: Search the web
    input_schema: {type: object, properties: {}, additionalProperties: false}
  - name: notion/create  # toolaudit: ignore[N104] wrong rule on purpose
    description: Create a page
    input_schema: {type: object, properties: {}, additionalProperties: false}
";

fn json_scan(dir: &std::path::Path, extra: &[&str]) -> (Value, String, i32) {
    let mut args = vec!["scan", ".", "--format", "json", "--select", "N"];
    args.extend_from_slice(extra);
    let out = bin().current_dir(dir).args(&args).output().unwrap();
    (
        serde_json::from_str(&String::from_utf8(out.stdout).unwrap()).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap(),
    )
}

fn findings(report: &Value) -> Vec<(String, String)> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                f["tool"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[test]
fn comment_suppressions_need_a_reason_and_must_match_something() {
    let ws = write_tree(&[("tools.yaml", YAML)]);
    let (report, stderr, code) = json_scan(ws.path(), &[]);
    // The reasoned comment above `fs.list` hides its N101; the one without a
    // reason hides nothing; the one for the wrong rule hides nothing.
    assert_eq!(
        findings(&report),
        [
            ("N101".to_string(), "web:search".to_string()),
            ("N101".to_string(), "notion/create".to_string()),
        ]
    );
    assert_eq!(report["summary"]["suppressed"], 1);
    assert_eq!(code, 1);
    assert!(
        stderr.contains(
            "tools.yaml:7: toolaudit: warning: suppression `ignore[N101]` has no reason and is not applied"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "tools.yaml:10: toolaudit: warning: suppression `ignore[N104]` matches no finding; remove it"
        ),
        "{stderr}"
    );
}

#[test]
fn config_entries_suppress_by_tool_and_pointer_and_report_unused_ones() {
    let config = r#"
[[suppress]]
path = "*.yaml"
tool = "web:search"
rules = ["N101"]
reason = "the gateway renames it"

[[suppress]]
path = "*.yaml"
pointer = "/name"
tool = "notion/create"
rules = ["N"]
reason = "legacy alias, removed in v2"

[[suppress]]
path = "*.yaml"
tool = "gone"
rules = ["N101"]
reason = "stale"

[[suppress]]
path = "other/*.json"
tool = "web:search"
rules = ["N101"]
reason = "for files not scanned here"
"#;
    let ws = write_tree(&[("tools.yaml", YAML), ("toolaudit.toml", config)]);
    let (report, stderr, code) = json_scan(ws.path(), &[]);
    assert_eq!(findings(&report), Vec::<(String, String)>::new());
    assert_eq!(report["summary"]["suppressed"], 3);
    assert_eq!(code, 0);
    assert!(
        stderr.contains(
            "toolaudit.toml:15: `[[suppress]]` entry for N101 matches no finding; remove it"
        ),
        "{stderr}"
    );
    // An entry for files this scan did not read is not called stale.
    assert!(!stderr.contains("toolaudit.toml:21"), "{stderr}");
}

#[test]
fn config_entries_without_reason_or_target_are_errors() {
    for (entry, message) in [
        (
            "path = \"*\"\ntool = \"x\"\nrules = [\"N101\"]\nreason = \" \"\n",
            "toolaudit.toml:1:1: `suppress[0]`: `reason` is empty",
        ),
        (
            "path = \"*\"\nrules = [\"N101\"]\nreason = \"because\"\n",
            "`suppress[0]`: give `tool` or `pointer`",
        ),
        (
            "path = \"*\"\ntool = \"x\"\nrules = [\"N1011\"]\nreason = \"because\"\n",
            "unknown rule code or family `N1011` (did you mean `N101`?)",
        ),
        (
            "path = \"*\"\ntool = \"x\"\nrule = [\"N101\"]\nreason = \"because\"\n",
            "unknown field `rule`",
        ),
    ] {
        let ws = write_tree(&[
            ("tools.yaml", YAML),
            ("toolaudit.toml", &format!("[[suppress]]\n{entry}")),
        ]);
        bin()
            .current_dir(ws.path())
            .args(["scan", "."])
            .assert()
            .code(2)
            .stderr(contains(message));
    }
}

#[test]
fn sarif_marks_suppressed_results_only_when_asked() {
    let ws = write_tree(&[("tools.yaml", YAML)]);
    let sarif = |extra: &[&str]| -> Value {
        let mut args = vec!["scan", ".", "--format", "sarif", "--select", "N"];
        args.extend_from_slice(extra);
        let out = bin().current_dir(ws.path()).args(&args).output().unwrap();
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let plain = sarif(&[]);
    assert_eq!(plain["runs"][0]["results"].as_array().unwrap().len(), 2);
    let shown = sarif(&["--show-suppressed"]);
    let results = shown["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    let suppressed: Vec<&Value> = results
        .iter()
        .filter(|r| r.get("suppressions").is_some())
        .collect();
    assert_eq!(suppressed.len(), 1);
    assert_eq!(suppressed[0]["suppressions"][0]["kind"], "inSource");
    assert_eq!(
        suppressed[0]["suppressions"][0]["justification"],
        "only ever sent to Gemini, which accepts dots"
    );
    let errors: Vec<String> = sarif_validator()
        .iter_errors(&shown)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
}

/// Two findings with the same identity (rule, file, tool, pointer) are told
/// apart by a counter. Suppressing the first one must change no
/// fingerprint: the reported one keeps its own, and the suppressed one
/// keeps the one its alert had, so code scanning dismisses that alert.
#[test]
fn suppressing_a_finding_shifts_no_fingerprint() {
    let tools = |comment: &str| {
        format!(
            "tools:\n{comment}  - name: fs.list
    description: List a directory
    input_schema: {{type: object, properties: {{}}, additionalProperties: false}}
  - name: fs.list
    description: List a directory again
    input_schema: {{type: object, properties: {{}}, additionalProperties: false}}
"
        )
    };
    // (line, suppressed, fingerprint) of each SARIF result
    let results = |text: &str, extra: &[&str]| -> Vec<(u64, bool, Value)> {
        let ws = write_tree(&[("tools.yaml", text)]);
        let mut args = vec!["scan", ".", "--format", "sarif", "--select", "N101"];
        args.extend_from_slice(extra);
        let out = bin().current_dir(ws.path()).args(&args).output().unwrap();
        let log: Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut rs: Vec<(u64, bool, Value)> = log["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["locations"][0]["physicalLocation"]["region"]["startLine"]
                        .as_u64()
                        .unwrap(),
                    r.get("suppressions").is_some(),
                    r["partialFingerprints"].clone(),
                )
            })
            .collect();
        rs.sort_by_key(|r| r.0);
        rs
    };
    let before = results(&tools(""), &[]);
    let comment = "  # toolaudit: ignore[N101] only ever sent to Gemini\n";
    let after = results(&tools(comment), &["--show-suppressed"]);
    let plain = results(&tools(comment), &[]);
    assert_eq!(before.len(), 2);
    assert_eq!(after.len(), 2);
    assert!(after[0].1 && !after[1].1, "{after:?}");
    assert_eq!(
        after[0].2, before[0].2,
        "the suppressed alert keeps its identity"
    );
    assert_eq!(
        after[1].2, before[1].2,
        "the reported alert keeps its identity"
    );
    assert_eq!(plain.len(), 1);
    assert_eq!(plain[0].2, before[1].2);
}

#[test]
fn human_summary_counts_suppressed_findings() {
    let ws = write_tree(&[("tools.yaml", YAML)]);
    bin()
        .current_dir(ws.path())
        .args(["scan", ".", "--select", "N", "--color", "never"])
        .assert()
        .code(1)
        .stdout(
            contains("1 finding left out by suppression comments").and(contains("fs.list").not()),
        );
}
