//! The tool surface under review (`toolaudit surface`, P101, P102): the
//! fixture repository of `tests/fixtures/P101/` with three profiles.

use std::path::Path;

use super::util::{bin, describe, root, scan, write_tree};

const GOOD: &str = "tests/fixtures/P101/good-matches-snapshot";

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_fixture_repository_is_clean_with_its_snapshot() {
    // Every default rule, not only the P family: the example is clean.
    let found = scan(&[Path::new(GOOD)], &[], &[]);
    assert_eq!(found.tools.len(), 7);
    assert!(
        found.diagnostics.is_empty(),
        "{}",
        describe(&found.diagnostics)
    );
    let out = bin().args(["surface", GOOD, "--check"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("7 tools in 2 groups and 3 profiles"));
}

#[test]
fn each_change_is_found_where_it_is() {
    let at = |fixture: &str, code: &str, message: &str| -> (String, usize) {
        let path = format!("tests/fixtures/P101/{fixture}");
        let found = scan(&[Path::new(&path)], &["P"], &[]).diagnostics;
        let d = found
            .iter()
            .find(|d| d.code == code && d.message == message)
            .unwrap_or_else(|| panic!("{fixture}: no `{message}` in\n{}", describe(&found)));
        let file = d.file.display.rsplit('/').next().unwrap().to_string();
        (file, d.file.line_col(d.span.start).line)
    };
    // A new tool: once as new, once in each profile it enters; and P102
    // because `subagent` inherits it from `main` but denies `spawn_*`.
    let fixture = "bad-new-tool-enters-profiles";
    assert_eq!(
        at(
            fixture,
            "P101",
            "tool `spawn_reviewer`: new tool with 1 argument"
        ),
        ("tools.json".into(), 58)
    );
    for p in ["main", "subagent"] {
        let m = format!("tool `spawn_reviewer`: entered profile `{p}`");
        assert_eq!(at(fixture, "P101", &m), ("tools.json".into(), 58));
    }
    assert_eq!(
        at(
            fixture,
            "P102",
            "tool `spawn_reviewer` is in profile `subagent`, which denies it (`deny` pattern `spawn_*`)"
        ),
        ("tools.json".into(), 58)
    );
    assert_eq!(
        at(
            "bad-description-changed",
            "P101",
            "tool `search_docs`: description changed"
        ),
        ("tools.json".into(), 20)
    );
    assert_eq!(
        at(
            "bad-argument-now-required",
            "P101",
            "tool `run_shell`: argument `timeout_seconds` is now required"
        ),
        ("tools.json".into(), 38)
    );
    // A removed tool is shown at its entry in the committed snapshot.
    assert_eq!(
        at(
            "bad-tool-removed",
            "P101",
            "tool `schedule_task`: tool removed"
        ),
        ("toolaudit.surface.json".into(), 74)
    );
}

#[test]
fn breaking_changes_are_errors_the_rest_warnings() {
    use toolaudit::model::Severity;
    let sev = |fixture: &str| {
        let path = format!("tests/fixtures/P101/{fixture}");
        let found = scan(&[Path::new(&path)], &["P101"], &[]).diagnostics;
        found.iter().map(|d| d.severity).max().unwrap()
    };
    assert_eq!(sev("bad-argument-now-required"), Severity::Error);
    assert_eq!(sev("bad-tool-removed"), Severity::Error);
    assert_eq!(sev("bad-description-changed"), Severity::Warning);
    assert_eq!(sev("bad-new-tool-enters-profiles"), Severity::Warning);
}

/// The snapshot `surface` prints for `dir`, with `args`.
fn printed(dir: &Path, args: &[&str]) -> String {
    let out = bin()
        .current_dir(dir)
        .arg("surface")
        .args(args)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout(&out)
}

#[test]
fn the_snapshot_is_the_same_for_any_thread_count_folder_and_order() {
    let dir = root().join(GOOD);
    let committed = std::fs::read_to_string(dir.join("toolaudit.surface.json")).unwrap();
    assert_eq!(printed(&dir, &["-j", "1"]), committed);
    assert_eq!(printed(&dir, &["-j", "8"]), committed);
    // From another working directory: paths stay relative to the project.
    assert_eq!(printed(&root(), &[GOOD]), committed);
    // The same files written in the opposite order into a new folder.
    let files = ["tools.json", "admin/tools.yaml", "toolaudit.toml"];
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    let texts: Vec<(String, String)> = files.iter().map(|f| (f.to_string(), read(f))).collect();
    let forward: Vec<(&str, &str)> = texts
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let backward: Vec<(&str, &str)> = forward.iter().rev().copied().collect();
    for order in [forward, backward] {
        let tree = write_tree(&order);
        assert_eq!(printed(tree.path(), &[]), committed);
    }
}

#[test]
fn write_then_check_round_trips_and_check_lists_changes() {
    let dir = root().join(GOOD);
    let files = ["tools.json", "admin/tools.yaml", "toolaudit.toml"];
    let texts: Vec<(String, String)> = files
        .iter()
        .map(|f| (f.to_string(), std::fs::read_to_string(dir.join(f)).unwrap()))
        .collect();
    let list: Vec<(&str, &str)> = texts
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let tree = write_tree(&list);
    let run = |args: &[&str]| {
        bin()
            .current_dir(tree.path())
            .arg("surface")
            .args(args)
            .output()
            .unwrap()
    };
    let missing = run(&["--check"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&missing.stderr)
            .contains("no tool-surface snapshot at toolaudit.surface.json")
    );
    assert_eq!(run(&["--write"]).status.code(), Some(0));
    assert_eq!(run(&["--check"]).status.code(), Some(0));
    // A tool's argument becomes required; the check fails and says what.
    let tools = tree.path().join("tools.json");
    let text = std::fs::read_to_string(&tools).unwrap();
    std::fs::write(
        &tools,
        text.replace(
            r#""required": ["query"]"#,
            r#""required": ["query", "scope"]"#,
        ),
    )
    .unwrap();
    let changed = run(&["--check"]);
    assert_eq!(changed.status.code(), Some(1));
    let said = stdout(&changed);
    assert!(
        said.contains(
            "~ tools.json#/tools: `search_docs` argument `scope` is now required [breaking]"
        ),
        "{said}"
    );
    // scan reports it too, and the Markdown summary has the table.
    let md = bin()
        .current_dir(tree.path())
        .args(["scan", "--format", "markdown"])
        .output()
        .unwrap();
    assert_eq!(md.status.code(), Some(1));
    let md = stdout(&md);
    assert!(md.contains("### Tool surface: 1 change since `toolaudit.surface.json` (0 added, 0 removed, 1 changed)"), "{md}");
    assert!(md.contains("| changed **breaking** | `search_docs` | argument `scope` is now required | optional | required |"), "{md}");
}

#[test]
fn a_broken_snapshot_or_profile_is_an_error_that_names_it() {
    let tree = write_tree(&[
        (
            "tools.json",
            r#"{"tools": [{"name": "a", "input_schema": {"type": "object"}}]}"#,
        ),
        (
            "toolaudit.surface.json",
            "{\"toolaudit-surface\": 1, \"groups\": {}, \"profils\": {}}\n",
        ),
    ]);
    let out = bin().current_dir(tree.path()).arg("scan").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("toolaudit.surface.json:1:") && err.contains("unknown field `profils`"),
        "{err}"
    );

    let tree = write_tree(&[
        (
            "tools.json",
            r#"{"tools": [{"name": "a", "input_schema": {"type": "object"}}]}"#,
        ),
        (
            "toolaudit.toml",
            "[[profile]]\nname = \"main\"\n\n[[profile]]\nname = \"sub\"\nextends = [\"mian\"]\n",
        ),
    ]);
    let out = bin().current_dir(tree.path()).arg("scan").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("toolaudit.toml:4:1: `profile[1]`: `extends` names `mian`, which is not a profile (did you mean `main`?)"),
        "{err}"
    );
    let tree = write_tree(&[
        (
            "tools.json",
            r#"{"tools": [{"name": "a", "description": "Does a.", "input_schema": {"type": "object"}}]}"#,
        ),
        (
            "toolaudit.toml",
            "[[profile]]\nname = \"main\"\ninclude = [\"b*\"]\n",
        ),
    ]);
    let out = bin().current_dir(tree.path()).arg("scan").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("profile `main`: include pattern `b*` matches no tool"),
        "{err}"
    );
}

#[test]
fn diff_base_keeps_surface_drift() {
    let out = bin()
        .args([
            "scan",
            "tests/fixtures/P101/bad-tool-removed",
            "--diff-base",
            "HEAD",
            "--select",
            "P101",
        ])
        .output()
        .unwrap();
    let said = stdout(&out);
    // Outside a git work tree (a packaged crate) there is no diff base.
    if out.status.code() == Some(2) {
        return;
    }
    assert!(
        said.contains("tool `schedule_task`: tool removed"),
        "{said}"
    );
}

#[test]
fn a_scan_of_a_subfolder_reports_no_tool_outside_it_as_removed() {
    // The config (and so the snapshot) is found above the scanned folder;
    // `tools.json` was not looked at, so its tools are not "removed".
    let sub = format!("{GOOD}/admin");
    let found = scan(&[Path::new(&sub)], &["P"], &[]);
    assert_eq!(found.tools.len(), 2);
    let out = bin()
        .args(["scan", &sub, "--select", "P"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    // A tool removed inside the scanned folder still is.
    let tree = write_tree(&[
        ("toolaudit.toml", "[[profile]]\nname = \"all\"\n"),
        (
            "a/tools.json",
            r#"{"tools": [{"name": "a", "description": "Does a.", "input_schema": {"type": "object"}}]}"#,
        ),
        (
            "b/tools.json",
            r#"{"tools": [{"name": "b", "description": "Does b.", "input_schema": {"type": "object"}}]}"#,
        ),
    ]);
    let run = |args: &[&str]| bin().current_dir(tree.path()).args(args).output().unwrap();
    assert_eq!(run(&["surface", "--write"]).status.code(), Some(0));
    std::fs::write(tree.path().join("b/tools.json"), r#"{"tools": []}"#).unwrap();
    let only_a = run(&["scan", "a", "--select", "P"]);
    assert_eq!(only_a.status.code(), Some(0), "{}", stdout(&only_a));
    let only_b = stdout(&run(&["scan", "b", "--select", "P"]));
    assert!(only_b.contains("tool `b`: tool removed"), "{only_b}");
    assert!(only_b.contains("tool `b`: left profile `all`"), "{only_b}");
}

#[test]
fn members_clients_read_are_part_of_the_surface() {
    // An MCP app tool hidden from the model by `_meta.ui.visibility` (a
    // change github-mcp-server's own tool snapshots record), and a new title.
    let tool = |visibility: &str, title: &str| {
        format!(
            r#"{{"tools": [{{"name": "get_me", "title": "{title}", "description": "Who am I.",
               "_meta": {{"ui": {{"visibility": [{visibility}]}}}},
               "inputSchema": {{"type": "object", "properties": {{}}}}}}]}}"#
        )
    };
    let tree = write_tree(&[("tools.json", &tool(r#""model", "app""#, "Me"))]);
    let run = |args: &[&str]| bin().current_dir(tree.path()).args(args).output().unwrap();
    assert_eq!(run(&["surface", "--write"]).status.code(), Some(0));
    std::fs::write(
        tree.path().join("tools.json"),
        tool(r#""app""#, "Me, myself"),
    )
    .unwrap();
    let said = stdout(&run(&["scan", "--select", "P101"]));
    assert!(said.contains("tool `get_me`: `_meta` changed"), "{said}");
    assert!(
        said.contains(r#"now: {"ui":{"visibility":["app"]}}"#),
        "{said}"
    );
    assert!(said.contains("tool `get_me`: `title` changed"), "{said}");
}

#[test]
fn a_tool_moved_to_another_file_is_listed_by_check_not_reported_by_scan() {
    let tool = r#"{"tools": [{"name": "a", "description": "Does a.", "input_schema": {"type": "object"}}]}"#;
    let tree = write_tree(&[("before/tools.json", tool)]);
    let run = |args: &[&str]| bin().current_dir(tree.path()).args(args).output().unwrap();
    assert_eq!(run(&["surface", "--write"]).status.code(), Some(0));
    std::fs::remove_file(tree.path().join("before/tools.json")).unwrap();
    std::fs::create_dir(tree.path().join("after")).unwrap();
    std::fs::write(tree.path().join("after/tools.json"), tool).unwrap();
    let scan = run(&["scan", "--select", "P"]);
    assert_eq!(scan.status.code(), Some(0), "{}", stdout(&scan));
    let check = run(&["surface", "--check"]);
    assert_eq!(check.status.code(), Some(1));
    assert!(
        stdout(&check)
            .contains("~ after/tools.json#/tools: `a` moved from group `before/tools.json#/tools`"),
        "{}",
        stdout(&check)
    );
}

#[test]
fn a_nested_change_is_reported_beside_a_description_change() {
    // A description and a nested constraint change in one commit: both are
    // reported (a held-out replay found the nested one hidden by the other).
    let tool = |description: &str, max: u32| {
        format!(
            r#"{{"tools": [{{"name": "plan", "description": "{description}", "input_schema": {{"type": "object",
               "properties": {{"steps": {{"type": "array", "maxItems": {max}, "items": {{"type": "string"}}}}}}}}}}]}}"#
        )
    };
    let tree = write_tree(&[("tools.json", &tool("Make a plan.", 10))]);
    let run = |args: &[&str]| bin().current_dir(tree.path()).args(args).output().unwrap();
    assert_eq!(run(&["surface", "--write"]).status.code(), Some(0));
    std::fs::write(
        tree.path().join("tools.json"),
        tool("Make a short plan.", 5),
    )
    .unwrap();
    let said = stdout(&run(&["scan", "--select", "P101"]));
    assert!(said.contains("tool `plan`: description changed"), "{said}");
    assert!(
        said.contains("tool `plan`: argument `steps` changed inside"),
        "{said}"
    );
    assert!(!said.contains("outside its arguments"), "{said}");
}

#[test]
fn an_excluded_file_is_not_compared_but_a_deleted_one_is_removed() {
    let tool = |name: &str| {
        format!(
            r#"{{"tools": [{{"name": "{name}", "description": "Does it.", "input_schema": {{"type": "object"}}}}]}}"#
        )
    };
    let tree = write_tree(&[("a/tools.json", &tool("a")), ("b/tools.json", &tool("b"))]);
    let run = |args: &[&str]| bin().current_dir(tree.path()).args(args).output().unwrap();
    assert_eq!(run(&["surface", "--write"]).status.code(), Some(0));
    let excluded = run(&["scan", "--select", "P", "--exclude", "b"]);
    assert_eq!(excluded.status.code(), Some(0), "{}", stdout(&excluded));
    std::fs::remove_file(tree.path().join("b/tools.json")).unwrap();
    let said = stdout(&run(&["scan", "--select", "P", "--exclude", "b"]));
    assert!(said.contains("tool `b`: tool removed"), "{said}");
}

#[test]
fn a_backup_copy_of_a_tool_list_is_not_part_of_the_surface() {
    // A held-out replay's false P101 findings: a `*.json.old.json` backup
    // beside the live list, which no server loads.
    let list = r#"{"tools": [{"name": "legi", "description": "Search the law.", "input_schema": {"type": "object"}}]}"#;
    let tree = write_tree(&[
        ("tools/legi.json", list),
        ("tools/legi.json.old.json", list),
    ]);
    let out = bin()
        .current_dir(tree.path())
        .args(["tools", "."])
        .output()
        .unwrap();
    assert!(
        stdout(&out).contains("1 tool in 1 file"),
        "{}",
        stdout(&out)
    );
    let scan = bin()
        .current_dir(tree.path())
        .args(["scan", "."])
        .output()
        .unwrap();
    assert!(
        stdout(&scan).contains("1 file kept as backup copies (by name or folder)"),
        "{}",
        stdout(&scan)
    );
    // Named on the command line, it is read.
    let named = bin()
        .current_dir(tree.path())
        .args(["tools", "tools/legi.json.old.json"])
        .output()
        .unwrap();
    assert!(
        stdout(&named).contains("1 tool in 1 file"),
        "{}",
        stdout(&named)
    );
}
