//! The GitHub Action's shell steps (scripts/action.sh) under a simulated
//! GITHUB_* environment, with the real toolaudit binary.

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

use super::util::root;

struct Run {
    code: i32,
    stdout: String,
    outputs: HashMap<String, String>,
    summary: String,
    /// RUNNER_TEMP, kept alive for the SARIF file written there.
    _temp: tempfile::TempDir,
}

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.invalid",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .output()
        .unwrap()
        .status
        .success();
    assert!(ok, "git {args:?}");
}

/// A repository whose `main` is known as `origin/main`, with the example
/// gateway manifest committed and then one tool renamed.
fn pr_checkout() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q", "-b", "main"]);
    let tools = dir.path().join("tools.json");
    std::fs::copy(root().join("examples/mcp-gateway/tools-list.json"), &tools).unwrap();
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-q", "-m", "base"]);
    git(
        dir.path(),
        &["update-ref", "refs/remotes/origin/main", "HEAD"],
    );
    let text = std::fs::read_to_string(&tools).unwrap();
    std::fs::write(
        &tools,
        text.replacen("\"name\": \"shell_exec\"", "\"name\": \"shell.exec\"", 1),
    )
    .unwrap();
    git(dir.path(), &["commit", "-q", "-am", "rename"]);
    dir
}

fn action(dir: &Path, step: &str, env: &[(&str, &str)]) -> Run {
    let temp = tempfile::tempdir().unwrap();
    let output = temp.path().join("output");
    let summary = temp.path().join("summary");
    let out = Command::new("bash")
        .arg(root().join("scripts/action.sh"))
        .arg(step)
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap())
        .env("HOME", temp.path())
        .env("TOOLAUDIT", env!("CARGO_BIN_EXE_toolaudit"))
        .env("GITHUB_ACTION_PATH", root())
        .env("GITHUB_OUTPUT", &output)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("RUNNER_TEMP", temp.path())
        .env("GITHUB_REPOSITORY", "acme/agent")
        .env("GITHUB_ACTOR", "octocat")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let outputs = std::fs::read_to_string(&output)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr),
        outputs,
        summary: std::fs::read_to_string(&summary).unwrap_or_default(),
        _temp: temp,
    }
}

#[test]
fn pull_request_scan_reports_only_its_changes_and_uploads() {
    let repo = pr_checkout();
    let run = action(
        repo.path(),
        "scan",
        &[
            ("GITHUB_EVENT_NAME", "pull_request"),
            ("GITHUB_BASE_REF", "main"),
            ("PR_HEAD_REPO", "acme/agent"),
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.outputs["exit-code"], "1");
    assert_eq!(run.outputs["upload"], "true");
    // Only the renamed tool's line changed: its N101 is the one finding.
    assert_eq!(run.outputs["findings"], "1", "{}", run.stdout);
    assert!(
        run.stdout
            .contains("::error file=tools.json,line=92,col=17"),
        "{}",
        run.stdout
    );
    assert!(
        run.summary.starts_with("## toolaudit: 1 problem (1 error)"),
        "{}",
        run.summary
    );
    let sarif = std::fs::read_to_string(&run.outputs["sarif-file"]).unwrap();
    assert!(sarif.contains("\"id\": \"toolaudit/\""));
    // Code scanning gets every finding, not only those on changed lines:
    // a diff-filtered upload would close the base branch's alerts as fixed.
    assert_eq!(sarif.matches("\"ruleId\"").count(), 10, "{sarif}");
}

#[test]
fn fork_and_dependabot_pull_requests_skip_the_upload_with_a_notice() {
    let repo = pr_checkout();
    let base = [
        ("GITHUB_EVENT_NAME", "pull_request"),
        ("GITHUB_BASE_REF", "main"),
    ];
    let fork = action(
        repo.path(),
        "scan",
        &[base[0], base[1], ("PR_HEAD_REPO", "mallory/agent")],
    );
    assert_eq!(fork.outputs["upload"], "false");
    assert!(
        fork.stdout
            .contains("::notice title=toolaudit::SARIF upload skipped: pull requests from forks")
    );
    let bot = action(
        repo.path(),
        "scan",
        &[base[0], base[1], ("GITHUB_ACTOR", "dependabot[bot]")],
    );
    assert_eq!(bot.outputs["upload"], "false");
    assert!(bot.stdout.contains("Dependabot"));
    let off = action(repo.path(), "scan", &[("INPUT_SARIF_UPLOAD", "false")]);
    assert_eq!(off.outputs["upload"], "false");
}

#[test]
fn inputs_reach_the_scan() {
    let repo = pr_checkout();
    // A push: no base branch, so the whole tree is scanned; fail-on and targets apply.
    let run = action(
        repo.path(),
        "scan",
        &[
            ("GITHUB_EVENT_NAME", "push"),
            ("INPUT_TARGETS", "gemini"),
            ("INPUT_FAIL_ON", "error"),
            ("INPUT_PATHS", "tools.json\n"),
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    // gemini accepts `fs.list` and `github:create_issue`, not `notion/create-pages`.
    assert!(!run.stdout.contains("`fs.list`"), "{}", run.stdout);
    assert!(run.stdout.contains("notion/create-pages"));
    assert_eq!(run.outputs["exit-code"], "1");
    // diff-base: none scans everything even on a pull request.
    let all = action(
        repo.path(),
        "scan",
        &[
            ("GITHUB_BASE_REF", "main"),
            ("INPUT_DIFF_BASE", "none"),
            ("INPUT_SARIF_UPLOAD", "false"),
        ],
    );
    // The nine findings of the example manifest and the renamed tool's N101.
    assert_eq!(all.outputs["findings"], "10");
}

#[test]
fn scan_errors_fail_the_step_and_finish_applies_the_exit_code() {
    let repo = pr_checkout();
    let bad = action(repo.path(), "scan", &[("INPUT_TARGETS", "antropic")]);
    assert_eq!(bad.code, 2);
    assert!(bad.stdout.contains("unknown target `antropic`"));
    assert!(
        bad.stdout
            .contains("::error title=toolaudit::the scan failed (exit code 2)")
    );
    // A shallow PR checkout without the base: the error says how to fetch it.
    let missing = action(repo.path(), "scan", &[("GITHUB_BASE_REF", "release")]);
    assert_eq!(missing.code, 2);
    assert!(
        missing.stdout.contains("fetch-depth: 0"),
        "{}",
        missing.stdout
    );

    assert_eq!(action(repo.path(), "finish", &[("EXIT_CODE", "0")]).code, 0);
    assert_eq!(action(repo.path(), "finish", &[("EXIT_CODE", "1")]).code, 1);
    assert_eq!(action(repo.path(), "finish", &[]).code, 2);
    let key = action(
        repo.path(),
        "cache-key",
        &[("RUNNER_OS", "Linux"), ("RUNNER_ARCH", "ARM64")],
    );
    // The architecture is in the key: an x64 and an arm64 runner of one OS
    // must not share a binary.
    assert!(
        key.outputs["key"].starts_with("toolaudit-Linux-ARM64-"),
        "{:?}",
        key.outputs
    );
}
