//! Output formats: snapshots of each, SARIF validated against the official
//! 2.1.0 schema, byte-identical output for any thread count, and
//! fingerprints that survive line shifts.

use std::path::Path;

use serde_json::Value;

use super::util::{bin, root, sarif_validator as validator};

fn run(args: &[&str]) -> (String, i32) {
    let out = bin().args(args).output().unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        out.status.code().unwrap(),
    )
}

/// The SARIF log with the machine-specific root URI replaced.
fn sarif(args: &[&str]) -> String {
    let mut a = vec!["scan", "--format", "sarif"];
    a.extend_from_slice(args);
    let (text, _) = run(&a);
    let root_uri = format!("file://{}/", root().display());
    text.replace(&root_uri, "file:///ROOT/")
}

#[test]
fn human_output_snapshot() {
    let (text, code) = run(&["scan", "examples", "--color", "never"]);
    assert_eq!(code, 1);
    insta::assert_snapshot!(text);
}

#[test]
fn human_output_uses_color_only_when_asked() {
    let (plain, _) = run(&[
        "scan",
        "examples/agent/openai-tools.yaml",
        "--color",
        "never",
    ]);
    assert!(!plain.contains('\u{1b}'));
    let (colored, _) = run(&[
        "scan",
        "examples/agent/openai-tools.yaml",
        "--color",
        "always",
    ]);
    assert!(colored.contains("\u{1b}["));
}

#[test]
fn github_output_snapshot() {
    let (text, _) = run(&[
        "scan",
        "examples",
        "tests/fixtures/malformed/truncated.json",
        "--format",
        "github",
    ]);
    insta::assert_snapshot!(text);
}

#[test]
fn json_output_snapshot() {
    let (text, _) = run(&["scan", "examples/agent", "--format", "json"]);
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(
        v["summary"]["findings"],
        v["findings"].as_array().unwrap().len()
    );
    insta::assert_snapshot!(text);
}

#[test]
fn sarif_output_snapshot() {
    insta::assert_snapshot!(sarif(&["examples/mcp-gateway"]));
}

#[test]
fn sarif_validates_against_the_official_schema() {
    let validator = validator();
    for args in [
        &["examples"][..],
        &["tests/fixtures"][..],
        &["tests/fixtures/malformed"][..],
        &["tests/fixtures/names/good.json"][..],
        // P101 at a snapshot entry and in a manifest, P102 at a tool.
        &["tests/fixtures/P101/bad-tool-removed"][..],
        &["tests/fixtures/P101/bad-new-tool-enters-profiles"][..],
    ] {
        let log: Value = serde_json::from_str(&sarif(args)).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&log)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{args:?}:\n{}", errors.join("\n"));
    }
}

#[test]
fn sarif_has_what_code_scanning_needs() {
    let log: Value = serde_json::from_str(&sarif(&["examples"])).unwrap();
    let run = &log["runs"][0];
    let driver = &run["tool"]["driver"];
    let rules = driver["rules"].as_array().unwrap();
    // The rules that ran: the default set, without the opt-in M101 and S109.
    assert_eq!(rules.len(), toolaudit::rules::REGISTRY.len() - 2);
    assert!(rules.iter().all(|r| r["id"] != "M101" && r["id"] != "S109"));
    for r in rules {
        assert!(r["shortDescription"]["text"].is_string());
        assert!(r["fullDescription"]["text"].is_string());
        assert!(
            r["help"]["markdown"]
                .as_str()
                .unwrap()
                .contains("## Why is this bad?")
        );
        assert!(r["helpUri"].as_str().unwrap().starts_with("https://"));
        assert_eq!(
            r["relationships"][0]["target"]["toolComponent"]["name"],
            "toolaudit-families"
        );
    }
    let taxa: Vec<&str> = run["taxonomies"][0]["taxa"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(taxa, ["M1", "M2", "M3", "N", "S", "P"]);
    let results = run["results"].as_array().unwrap();
    assert!(!results.is_empty());
    for res in results {
        let rule_index = res["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[rule_index]["id"], res["ruleId"]);
        let loc = &res["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        assert!(
            loc["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
                .starts_with("examples/")
        );
        assert!(loc["region"]["startLine"].as_u64().unwrap() >= 1);
        assert!(loc["region"]["startColumn"].as_u64().unwrap() >= 1);
        assert!(res["partialFingerprints"]["toolaudit/v1"].is_string());
        let family = toolaudit::rules::by_code(res["ruleId"].as_str().unwrap())
            .unwrap()
            .family()
            .id;
        assert_eq!(res["taxa"][0]["id"], family);
        assert_eq!(res["properties"]["family"], family);
    }
    assert_eq!(run["invocations"][0]["executionSuccessful"], true);
}

#[test]
fn output_is_identical_for_any_thread_count() {
    for format in ["human", "sarif", "json", "github", "markdown"] {
        let args = |j: &str| {
            vec![
                "scan",
                "examples",
                "tests/fixtures",
                "--format",
                format,
                "--color",
                "never",
                "-j",
                j,
            ]
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>()
        };
        let one = bin().args(args("1")).output().unwrap();
        for j in ["2", "8"] {
            let many = bin().args(args(j)).output().unwrap();
            assert_eq!(
                one.stdout, many.stdout,
                "{format} differs between -j 1 and -j {j}"
            );
            assert_eq!(
                one.stderr, many.stderr,
                "{format} stderr differs for -j {j}"
            );
        }
    }
}

fn fingerprints(dir: &Path) -> Vec<(String, String)> {
    let out = bin()
        .current_dir(dir)
        .args(["scan", ".", "--format", "sarif", "--select", "N"])
        .output()
        .unwrap();
    let log: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut v: Vec<(String, String)> = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["ruleId"].as_str().unwrap().to_string(),
                r["partialFingerprints"]["toolaudit/v1"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn fingerprints_survive_unrelated_edits() {
    let dir = tempfile::tempdir().unwrap();
    let original = std::fs::read_to_string(root().join("tests/fixtures/names/bad.json")).unwrap();
    std::fs::write(dir.path().join("tools.json"), &original).unwrap();
    let before = fingerprints(dir.path());
    assert_eq!(before.len(), 8);

    // Shift every line and add a valid tool above the others.
    let edited = original.replacen(
        "\"tools\": [",
        "\n\n\"tools\": [\n    {\"name\": \"brand_new\", \"inputSchema\": {\"type\": \"object\"}},",
        1,
    );
    std::fs::write(dir.path().join("tools.json"), edited).unwrap();
    assert_eq!(fingerprints(dir.path()), before);

    // A new defect is new.
    let broken = original.replacen(
        "\"tools\": [",
        "\"tools\": [\n    {\"name\": \"new.bad\", \"inputSchema\": {}},",
        1,
    );
    std::fs::write(dir.path().join("tools.json"), broken).unwrap();
    let after = fingerprints(dir.path());
    assert_eq!(after.len(), before.len() + 1);
    assert!(before.iter().all(|f| after.contains(f)));
}

#[test]
fn github_annotations_respect_the_per_level_caps() {
    let (text, _) = run(&["scan", "examples", "--format", "github"]);
    let count = |prefix: &str| text.lines().filter(|l| l.starts_with(prefix)).count();
    assert_eq!(count("::error "), 10, "{text}");
    assert_eq!(count("::warning "), 10);
    // The most severe are annotated; the rest are plain log lines, counted once.
    assert_eq!(count("examples/"), 18);
    assert!(text.contains(
        "::notice title=toolaudit::18 more findings are listed in the log but not annotated"
    ));
}

#[test]
fn statistics_count_findings_per_rule() {
    let (text, code) = run(&["scan", "examples", "--statistics", "--color", "never"]);
    assert_eq!(code, 1);
    assert!(text.starts_with("12  N101  invalid-tool-name"), "{text}");
    assert!(
        text.contains(" 5  M104  unread-declared-argument"),
        "{text}"
    );
    assert!(!text.contains("M101"), "M101 is opt-in: {text}");
    assert!(!text.contains("┌─"), "no snippets with --statistics");
    bin()
        .args(["scan", "examples", "--statistics", "--format", "json"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "--statistics works with --format human",
        ));
}

/// A flag that only one format honours is refused with the others, not
/// ignored.
#[test]
fn show_suppressed_is_refused_outside_sarif() {
    bin()
        .args(["scan", "examples", "--show-suppressed"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "--show-suppressed works with --format sarif",
        ));
}

#[test]
fn sarif_results_are_capped_loudly() {
    let dir = tempfile::tempdir().unwrap();
    let n = toolaudit::report::sarif::MAX_RESULTS + 50;
    let tools: Vec<String> = (0..n)
        .map(|i| format!(r#"{{"name":"t.{i}","description":"d","inputSchema":{{"type":"object","additionalProperties":false}}}}"#))
        .collect();
    std::fs::write(
        dir.path().join("many.json"),
        format!("{{\"tools\":[{}]}}", tools.join(",")),
    )
    .unwrap();
    let out = bin()
        .current_dir(dir.path())
        .args(["scan", ".", "--format", "sarif", "--select", "N101"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("50 less severe findings were left out of this SARIF file"),
        "{stderr}"
    );
    let log: Value = serde_json::from_slice(&out.stdout).unwrap();
    let run = &log["runs"][0];
    assert_eq!(
        run["results"].as_array().unwrap().len(),
        toolaudit::report::sarif::MAX_RESULTS
    );
    let notes = run["invocations"][0]["toolExecutionNotifications"]
        .as_array()
        .unwrap();
    assert!(notes.iter().any(|n| {
        n["message"]["text"]
            .as_str()
            .unwrap()
            .contains("at most 25,000 results")
    }));
    assert_eq!(run["automationDetails"]["id"], "toolaudit/");

    // Suppressed findings shown with `--show-suppressed` fit in the room
    // left; those that do not are counted too.
    let quiet: Vec<String> = (0..10)
        .map(|i| format!(r#"{{"name":"q.{i}","description":"d","inputSchema":{{"type":"object","additionalProperties":false}}}}"#))
        .collect();
    std::fs::write(
        dir.path().join("quiet.jsonc"),
        format!(
            "// toolaudit: ignore-file[N101] only sent to Gemini\n{{\"tools\":[{}]}}",
            quiet.join(",")
        ),
    )
    .unwrap();
    let out = bin()
        .current_dir(dir.path())
        .args(["scan", ".", "--format", "sarif", "--select", "N101"])
        .arg("--show-suppressed")
        .output()
        .unwrap();
    let log: Value = serde_json::from_slice(&out.stdout).unwrap();
    let texts: Vec<&str> = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n["message"]["text"].as_str())
        .collect();
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("10 suppressed findings were left out")),
        "{texts:?}"
    );
}
