//! `--diff-base`: only findings on lines changed since the merge base, and
//! clear errors when git cannot answer.

use std::path::Path;
use std::process::Command;

use predicates::prelude::*;
use predicates::str::contains;

use super::util::{bin, root};

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
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
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q", "-b", "main"]);
    std::fs::copy(
        root().join("examples/mcp-gateway/tools-list.json"),
        dir.path().join("tools.json"),
    )
    .unwrap();
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-q", "-m", "base"]);
    dir
}

#[test]
fn only_changed_lines_are_reported() {
    let dir = repo();
    let tools = dir.path().join("tools.json");
    let text = std::fs::read_to_string(&tools).unwrap();
    std::fs::write(
        &tools,
        text.replacen("\"name\": \"shell_exec\"", "\"name\": \"shell.exec\"", 1),
    )
    .unwrap();
    // An untracked manifest counts as changed as a whole.
    std::fs::write(dir.path().join("new.json"), r#"{"tools": [{"name": "a:b", "inputSchema": {"type": "object", "additionalProperties": false}}]}"#).unwrap();
    bin()
        .current_dir(dir.path())
        .args(["scan", ".", "--diff-base", "HEAD", "--format", "json"])
        .assert()
        .code(1)
        .stdout(contains("\"tool\": \"shell.exec\"").and(contains("\"tool\": \"a:b\"")))
        .stdout(contains("\"tool\": \"fs.list\"").not())
        .stdout(contains("\"rev\": \"HEAD\""));
    bin()
        .current_dir(dir.path())
        .args(["scan", ".", "--diff-base", "HEAD"])
        .assert()
        .stdout(contains("on lines not changed since `HEAD` left out."));
}

#[test]
fn missing_base_and_missing_repo_are_clear_errors() {
    let dir = repo();
    bin()
        .current_dir(dir.path())
        .args(["scan", ".", "--diff-base", "origin/main"])
        .assert()
        .code(2)
        .stderr(contains(
            "`origin/main` is not a commit in this clone; fetch it first",
        ))
        .stderr(contains("fetch-depth: 0"));

    // A shallow clone that lacks the base's history.
    let tools = dir.path().join("tools.json");
    std::fs::write(&tools, "{}\n").unwrap();
    git(dir.path(), &["commit", "-q", "-am", "second"]);
    std::fs::write(&tools, "{\"a\": 1}\n").unwrap();
    git(dir.path(), &["commit", "-q", "-am", "third"]);
    let shallow = tempfile::tempdir().unwrap();
    let url = format!("file://{}", dir.path().display());
    let out = Command::new("git")
        .args(["clone", "-q", "--depth", "1", &url])
        .arg(shallow.path().join("c"))
        .output()
        .unwrap();
    assert!(out.status.success());
    bin()
        .current_dir(shallow.path().join("c"))
        .args(["scan", ".", "--diff-base", "HEAD~2"])
        .assert()
        .code(2)
        .stderr(contains("is not a commit in this clone"));

    let not_repo = tempfile::tempdir().unwrap();
    bin()
        .current_dir(not_repo.path())
        .args(["scan", ".", "--diff-base", "HEAD"])
        .assert()
        .code(2)
        .stderr(contains("needs a git work tree"));
}
