//! The command line: exit codes, error messages, flags and subcommands.

use predicates::prelude::*;
use predicates::str::contains;

use super::util::bin;

#[test]
fn exit_codes_follow_fail_on() {
    bin()
        .args(["scan", "tests/fixtures/names/bad.json"])
        .assert()
        .code(1);
    bin()
        .args(["scan", "tests/fixtures/names/good.json", "--select", "N"])
        .assert()
        .code(0)
        .stdout(contains("No problems found; scanned 1 file with 6 tools."));
    // N104 is a warning: it fails the default --fail-on warning, not --fail-on error.
    bin()
        .args(["scan", "tests/fixtures/N104/bad.json"])
        .assert()
        .code(1);
    bin()
        .args(["scan", "tests/fixtures/N104/bad.json", "--fail-on", "error"])
        .assert()
        .code(0)
        .stdout(contains("warning[N104]"));
}

#[test]
fn a_missing_path_is_an_error_naming_it() {
    bin()
        .args(["scan", "tests/fixtures/names/good.json", "no/such/dir"])
        .assert()
        .code(2)
        .stderr(contains("no/such/dir: no such file or directory"));
}

#[test]
fn unknown_codes_families_and_targets_are_named_with_a_suggestion() {
    bin()
        .args(["scan", "examples", "--select", "N1011"])
        .assert()
        .code(2)
        .stderr(contains(
            "unknown rule code or family `N1011` (did you mean `N101`?)",
        ));
    bin()
        .args(["scan", "examples", "--ignore", "Q"])
        .assert()
        .code(2)
        .stderr(contains("`Q`"));
    bin()
        .args(["scan", "examples", "--target", "anthropic,opnai"])
        .assert()
        .code(2)
        .stderr(contains("unknown target `opnai` (did you mean `openai`?)"))
        .stderr(contains("valid targets: anthropic,"));
    bin()
        .args(["scan", "examples", "--format", "xml"])
        .assert()
        .code(2);
    bin()
        .args(["scan", "examples", "--max-file-size", "4 parsecs"])
        .assert()
        .code(2)
        .stderr(contains("4 parsecs"));
    bin()
        .args(["explain", "N999"])
        .assert()
        .code(2)
        .stderr(contains("unknown rule `N999`"));
}

#[test]
fn select_and_ignore_narrow_the_rules() {
    bin()
        .args([
            "scan",
            "tests/fixtures/names/bad.json",
            "--select",
            "N103",
            "--format",
            "json",
        ])
        .assert()
        .code(1)
        .stdout(contains("\"N103\"").and(contains("\"N101\"").not()));
    bin()
        .args(["scan", "tests/fixtures/names/bad.json", "--ignore", "N,M1"])
        .assert()
        .code(0);
}

#[test]
fn a_directory_without_tools_says_so() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("package.json"),
        r#"{"name": "x", "version": "1.0.0"}"#,
    )
    .unwrap();
    bin()
        .args(["scan"])
        .arg(dir.path())
        .assert()
        .code(0)
        .stdout(contains(
            "No tool definitions found in 1 file scanned; nothing to check.",
        ));
    let empty = tempfile::tempdir().unwrap();
    bin()
        .args(["scan"])
        .arg(empty.path())
        .assert()
        .code(0)
        .stdout(contains("No tool definitions found in 0 files scanned"));
}

#[test]
fn malformed_files_are_reported_never_fatal() {
    let out = bin()
        .args(["scan", "tests/fixtures/malformed"])
        .assert()
        .code(0)
        .stdout(contains("No tool definitions found"));
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    for expected in [
        "bad.yaml: not checked: invalid YAML at line 4, column",
        "binary.json: skipped: binary file (NUL byte at offset 8)",
        "deep.json: not checked: invalid JSON at line 1, column 257: nesting deeper than 256 levels",
        "empty.json: empty file: nothing to check",
        "empty.yaml: empty file: nothing to check",
        "latin1.json: skipped: not valid UTF-8 (invalid byte at offset 13)",
        "truncated.json: not checked: invalid JSON at line 1, column 56: expected a JSON value, found the end of the file",
    ] {
        assert!(
            stderr.contains(expected),
            "missing `{expected}` in:\n{stderr}"
        );
    }
    // --quiet keeps stderr clean; the exit code is unchanged.
    bin()
        .args(["scan", "-q", "tests/fixtures/malformed"])
        .assert()
        .code(0)
        .stderr("");
}

#[test]
fn oversized_files_are_skipped_loudly() {
    bin().args(["scan", "tests/fixtures/names/bad.json", "--max-file-size", "100"])
        .assert()
        .code(0)
        .stderr(contains("names/bad.json: skipped: larger than the 100 bytes size cap (raise it with --max-file-size)"));
}

#[test]
fn explicit_unsupported_files_are_reported() {
    bin()
        .args(["scan", "README.md"])
        .assert()
        .code(0)
        .stderr(contains("README.md: skipped: not a file toolaudit reads"));
}

#[test]
fn exclude_globs_skip_paths() {
    // gitignore syntax: no `/` matches a name anywhere, a `/` anchors to the working directory.
    bin()
        .args([
            "scan",
            "examples",
            "--exclude",
            "mcp-gateway",
            "--exclude",
            "examples/agent/*.json",
            "--format",
            "json",
        ])
        .assert()
        .code(1)
        .stdout(contains("openai-tools.yaml").and(contains("tools-list.json").not()))
        .stdout(contains("anthropic-tools.json").not());
    bin()
        .args(["scan", "examples", "--exclude", "[unclosed"])
        .assert()
        .code(2)
        .stderr(contains("invalid --exclude glob `[unclosed`"));
}

#[test]
fn output_is_written_atomically_to_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.sarif");
    bin()
        .args(["scan", "examples", "--format", "sarif", "--output"])
        .arg(&path)
        .assert()
        .code(1)
        .stdout("");
    let text = std::fs::read_to_string(&path).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["version"], "2.1.0");
    // Only the report is left behind, no temporary files.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);

    bin()
        .args(["scan", "examples", "--output"])
        .arg(dir.path().join("missing/dir/out.txt"))
        .assert()
        .code(2)
        .stderr(contains("missing/dir"));
}

#[test]
fn rules_explain_and_targets() {
    bin().args(["rules"]).assert().code(0).stdout(
        contains("N101  invalid-tool-name").and(contains("N104  ambiguous-namespace-separator")),
    );
    let out = bin().args(["rules", "--format", "json"]).assert().code(0);
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(
        v.as_array().unwrap().len(),
        toolaudit::rules::REGISTRY.len()
    );
    bin()
        .args(["rules", "--targets"])
        .assert()
        .code(0)
        .stdout(contains("claude-connectors").and(contains("2026-")));
    for arg in ["N101", "n101", "invalid-tool-name"] {
        bin()
            .args(["explain", arg])
            .assert()
            .code(0)
            .stdout(contains("# N101 invalid-tool-name").and(contains("## Why is this bad?")));
    }
}

#[test]
fn tools_lists_the_inventory() {
    bin()
        .args(["tools", "examples"])
        .assert()
        .code(0)
        .stdout(contains("fs.list").and(contains("mcp-gateway/tools-list.json:7:17")))
        .stdout(contains("web.search").and(contains("openai-chat")))
        .stdout(contains("path, recursive"))
        .stdout(contains("27 tools in 9 files (16 files scanned)."));
    let out = bin()
        .args(["tools", "examples", "--format", "json"])
        .assert()
        .code(0);
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let tools = v["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 27);
    let gemini = tools
        .iter()
        .find(|t| t["name"] == "calendar.list_events")
        .unwrap();
    assert_eq!(gemini["format"], "gemini");
    assert_eq!(gemini["parameters"], serde_json::json!(["start", "end"]));
}

#[test]
fn version_and_help() {
    bin()
        .arg("--version")
        .assert()
        .code(0)
        .stdout(contains(env!("CARGO_PKG_VERSION")));
    bin()
        .args(["scan", "--help"])
        .assert()
        .code(0)
        .stdout(contains("--fail-on").and(contains("--target")));
}

/// An OpenAPI operation without `operationId` is listed by method and path,
/// at the method, in the `openapi` format.
#[test]
fn tools_lists_unnamed_openapi_operations_by_method_and_path() {
    bin()
        .args(["tools", "tests/fixtures/N101/bad-openapi.yaml"])
        .assert()
        .code(0)
        .stdout(
            contains(
                "(GET /sensors/{id}/reading)  openapi  tests/fixtures/N101/bad-openapi.yaml:9:5",
            )
            .and(contains("vents.open")),
        );
    let out = bin()
        .args([
            "tools",
            "tests/fixtures/N101/bad-openapi.yaml",
            "--format",
            "json",
        ])
        .assert()
        .code(0);
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["tools"][0]["format"], "openapi");
    assert_eq!(v["tools"][0]["name"], "");
}

/// `tools --budget`: each tool's estimated tokens by list, largest first,
/// the lists' totals, and the same as JSON.
#[test]
fn tools_budget_lists_tokens_by_list() {
    let out = bin()
        .args(["tools", "examples", "--budget"])
        .assert()
        .code(0)
        .stdout(contains(
            "examples/mcp-gateway/tools-list.json#/result/tools: 8 tools, ~",
        ))
        .stdout(contains("TOKENS").and(contains("27 tools in 9 lists, ~")))
        .stdout(contains("o200k_base"));
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    // Largest first within a list.
    let gemini: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("examples/agent/gemini-request.json"))
        .skip(2)
        .take(2)
        .collect();
    let tokens = |l: &str| {
        l.split_whitespace()
            .next()
            .unwrap()
            .replace(',', "")
            .parse::<usize>()
            .unwrap()
    };
    assert!(tokens(gemini[0]) >= tokens(gemini[1]), "{gemini:?}");
    let out = bin()
        .args(["tools", "examples", "--budget", "--format", "json"])
        .assert()
        .code(0);
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let groups = v["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 9);
    let sum: u64 = groups.iter().map(|g| g["tokens"].as_u64().unwrap()).sum();
    assert_eq!(v["tokens"].as_u64().unwrap(), sum);
    let per_tool: u64 = groups
        .iter()
        .flat_map(|g| g["tools"].as_array().unwrap())
        .map(|t| t["tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(per_tool, sum);
    assert!(sum > 500, "{sum}");
}
