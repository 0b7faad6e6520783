//! What a hostile input or an unusual setting must not do: damage files,
//! explode in size, skip things silently, or lose the exit code.

use std::io::Read as _;
use std::os::unix::fs::PermissionsExt as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use predicates::prelude::*;
use predicates::str::contains;

use super::util::{bin, crate_with, root, write_tree};

/// A realistic `tools/list` dump of about `bytes`, minified to one line:
/// dotted names (N101), `required` naming a missing property (S103) and an
/// array without `items` (S105) in every tool.
fn minified_manifest(bytes: usize) -> String {
    let mut tools = Vec::new();
    let mut size = 0;
    let mut i = 0;
    while size < bytes {
        let mut props = serde_json::Map::new();
        for j in 0..6 {
            props.insert(
                format!("param_{j}"),
                serde_json::json!({"type": "string", "description": format!("Parameter {j} of the tool, described in a sentence of ordinary length.")}),
            );
        }
        props.insert("items".into(), serde_json::json!({"type": "array"}));
        let t = serde_json::json!({
            "name": format!("srv.tool_{i}"),
            "description": "A tool with a realistic description of two sentences. It returns JSON.",
            "inputSchema": {"type": "object", "properties": props, "required": ["param_0", "missing"]},
        });
        size += t.to_string().len() + 1;
        tools.push(t);
        i += 1;
    }
    serde_json::json!({"tools": tools}).to_string()
}

/// Runs `cmd` to its end; its exit code and its own peak resident set in
/// KiB, as it reports it (`VmHWM`; a parent's rusage of the child would
/// count the test process's own memory from before the exec).
fn run_measured(cmd: &mut Command) -> (i32, i64) {
    let out = cmd
        .env("__TOOLAUDIT_TEST_PEAK_RSS", "1")
        .stdout(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let peak = stderr
        .lines()
        .find_map(|l| l.strip_prefix("toolaudit-test: peak-rss-kib "))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no peak reported: {stderr}"));
    (out.status.code().unwrap_or(-1), peak)
}

#[test]
fn a_minified_manifest_gives_bounded_output_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("tools.json");
    let text = minified_manifest(4 * 1024 * 1024 - 64 * 1024);
    assert_eq!(text.lines().count(), 1);
    std::fs::write(&manifest, &text).unwrap();
    for format in ["human", "json", "sarif", "github", "markdown"] {
        let out = dir.path().join(format!("report.{format}"));
        let (code, peak) = run_measured(
            Command::new(env!("CARGO_BIN_EXE_toolaudit"))
                .args([
                    "scan",
                    "--no-config",
                    "--format",
                    format,
                    "--color",
                    "never",
                    "-o",
                ])
                .arg(&out)
                .arg(&manifest),
        );
        assert_eq!(code, 1, "{format}");
        assert!(peak < 200 * 1024, "{format}: {peak} KiB");
        let len = std::fs::metadata(&out).unwrap().len();
        // Each finding shows a window of the line, not the 4 MiB line.
        assert!(len < 64 * 1024 * 1024, "{format}: {len} bytes");
    }

    let human = std::fs::read_to_string(dir.path().join("report.human")).unwrap();
    let first = human
        .lines()
        .find(|l| l.starts_with("1 │ "))
        .expect("a snippet line");
    assert!(first.len() < 400, "{first}");
    assert!(
        first.starts_with("1 │ … ") && first.ends_with(" …"),
        "{first}"
    );
    // The header points at the real column of the finding on the long line.
    let name_at = text.find("\"srv.tool_0\"").unwrap() + 1;
    assert!(
        human.contains(&format!("tools.json:1:{name_at}")),
        "no header for column {name_at}"
    );
}

#[test]
fn output_goes_into_special_files_and_through_symlinks_in_place() {
    let dir = tempfile::tempdir().unwrap();
    // A FIFO stays a FIFO and its reader gets the report.
    let fifo = dir.path().join("report.pipe");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut s = String::new();
            std::fs::File::open(fifo)
                .unwrap()
                .read_to_string(&mut s)
                .unwrap();
            s
        })
    };
    bin()
        .args(["scan", "examples", "--format", "sarif", "-o"])
        .arg(&fifo)
        .assert()
        .code(1);
    assert!(reader.join().unwrap().contains("\"version\": \"2.1.0\""));
    let ft = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(&ft));

    // A symlink stays a link; the file it points to is written and keeps its mode.
    let target = dir.path().join("real.json");
    std::fs::write(&target, "old").unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    bin()
        .args(["scan", "examples", "--format", "json", "-o"])
        .arg(&link)
        .assert()
        .code(1);
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    assert!(
        std::fs::read_to_string(&target)
            .unwrap()
            .contains("\"findings\"")
    );
    let mode = std::fs::metadata(&target).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);

    // A new file gets 0666 less the umask, as with a shell's `>`.
    let new = dir.path().join("new.sarif");
    let status = Command::new("sh")
        .arg("-c")
        .arg("umask 022; exec \"$0\" scan examples --format sarif -o \"$1\"")
        .arg(env!("CARGO_BIN_EXE_toolaudit"))
        .arg(&new)
        .current_dir(root())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(1));
    let mode = std::fs::metadata(&new).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o644);

    // A directory is refused by name.
    bin()
        .args(["scan", "examples", "-o"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(contains("it is a directory"));
}

#[test]
fn an_interrupted_write_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.sarif");
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolaudit"))
        .args(["scan", "examples", "--format", "sarif", "-o"])
        .arg(&out)
        .current_dir(root())
        .env("__TOOLAUDIT_TEST_PAUSE_BEFORE_RENAME_MS", "20000")
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let temp_exists = || {
        std::fs::read_dir(dir.path()).unwrap().any(|e| {
            e.unwrap()
                .file_name()
                .to_string_lossy()
                .contains(".toolaudit-")
        })
    };
    let start = Instant::now();
    while !temp_exists() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no temporary file"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap()
            .success()
    );
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert!(!temp_exists(), "temporary file left behind");
    assert!(!out.exists(), "half a report written");
}

#[test]
fn a_reader_that_stops_early_does_not_turn_findings_into_success() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("tools.json");
    std::fs::write(&manifest, minified_manifest(512 * 1024)).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolaudit"))
        .args(["scan", "--no-config", "--color", "never"])
        .arg(&manifest)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut head = [0u8; 64];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut head)
        .unwrap();
    drop(child.stdout.take());
    assert_eq!(child.wait().unwrap().code(), Some(1));
}

#[test]
fn threads_are_bounded() {
    bin()
        .args(["scan", "examples", "-j", "257"])
        .assert()
        .code(2)
        .stderr(contains("more than the 256 toolaudit starts"));
    bin()
        .args(["scan", "examples", "-j", "256", "-q"])
        .assert()
        .code(1);
}

#[test]
fn paths_not_read_are_counted_named_and_listed() {
    let ws = write_tree(&[
        (".gitignore", "dist/\nlocal-tools.json\n"),
        ("web/index.ts", "export {}\n"),
        ("dist/tools.json", "{\"tools\": []}\n"),
        ("local-tools.json", "{\"tools\": []}\n"),
        (
            "tools.json",
            "{\"tools\": [{\"name\": \"ok\", \"description\": \"Fine\", \"inputSchema\": {\"type\": \"object\"}}]}\n",
        ),
    ]);
    assert!(
        Command::new("mkfifo")
            .arg(ws.path().join("pipe.json"))
            .status()
            .unwrap()
            .success()
    );
    std::os::unix::fs::symlink("missing.json", ws.path().join("dangling.json")).unwrap();
    bin()
        .current_dir(ws.path())
        .args(["scan", ".", "--no-config", "-v"])
        .assert()
        .code(0)
        .stdout(contains(
            "Not read: 1 TypeScript file (toolaudit reads JSON, YAML, TOML, Rust and Python so far).",
        ))
        .stdout(contains(
            "Not read: 2 paths ignored by .gitignore or .ignore, 1 symbolic link (not followed), 1 path that is not a regular file; -v lists them.",
        ))
        .stderr(contains("not read: dist/: ignored by .gitignore"))
        .stderr(contains("not read: local-tools.json: ignored by .gitignore"))
        .stderr(contains("not read: pipe.json: not a regular file"))
        .stderr(contains("not read: dangling.json: a symbolic link"))
        .stderr(contains("not read: web/index.ts: TypeScript source"));
    let out = bin()
        .current_dir(ws.path())
        .args(["scan", ".", "--no-config", "--format", "json"])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        doc["summary"]["not_read"],
        serde_json::json!({"ignored": 2, "special": 1, "symlink": 1, "typescript": 1})
    );
    // A repository of another language alone: nothing to check, and why.
    let ts = write_tree(&[("app/server.ts", "export {}\n")]);
    bin()
        .current_dir(ts.path())
        .args(["scan", ".", "--no-config"])
        .assert()
        .code(0)
        .stdout(contains("No tool definitions found").and(contains("1 TypeScript file")));
}

#[test]
fn rust_files_with_syntax_errors_are_named() {
    let ws = crate_with(&[("src/lib.rs", "pub fn tools() {\n    let x = vec![1, 2;\n")]);
    bin()
        .current_dir(ws.path())
        .args(["scan", ".", "--no-config"])
        .assert()
        .stderr(contains("src/lib.rs: syntax error at line"));
}

#[test]
fn excludes_are_relative_to_where_they_are_written_and_loud_when_idle() {
    let ws = write_tree(&[
        (
            "toolaudit.toml",
            "exclude = [\"gen/**\", \"nothing-here/**\"]\n",
        ),
        (
            "gen/tools.json",
            "{\"tools\": [{\"name\": \"a.b\", \"inputSchema\": {\"type\": \"object\"}}]}\n",
        ),
        (
            "tools.json",
            "{\"tools\": [{\"name\": \"ok\", \"description\": \"Fine\", \"inputSchema\": {\"type\": \"object\"}}]}\n",
        ),
    ]);
    // Run from elsewhere: the config's globs still mean its own folder.
    let elsewhere = tempfile::tempdir().unwrap();
    bin()
        .current_dir(elsewhere.path())
        .arg("scan")
        .arg(ws.path())
        .assert()
        .code(0)
        .stdout(contains("1 path excluded"))
        .stderr(
            contains("exclude `nothing-here/**` (toolaudit.toml:1) matched nothing")
                .or(contains("exclude `nothing-here/**` (")),
        )
        .stderr(contains("gen/**` (").not());
    // A --exclude is relative to the working directory.
    bin()
        .current_dir(ws.path())
        .args([
            "scan",
            ".",
            "--no-config",
            "--exclude",
            "tools.json",
            "--exclude",
            "gen",
        ])
        .assert()
        .code(0)
        .stdout(contains("No tool definitions found"));
}

#[test]
fn config_errors_are_all_reported_and_name_their_key() {
    let ws = write_tree(&[(
        "toolaudit.toml",
        "targts = [\"openai\"]\nfail_on = \"error\"\n",
    )]);
    bin()
        .current_dir(ws.path())
        .args(["scan", "."])
        .assert()
        .code(2)
        .stderr(contains(
            "toolaudit.toml:1:1: unknown key `targts`; did you mean `targets`?",
        ))
        .stderr(contains(
            "toolaudit.toml:2:1: unknown key `fail_on`; did you mean `fail-on`?",
        ));
    let ws = write_tree(&[("toolaudit.toml", "include-tests = \"yes\"\n")]);
    bin()
        .current_dir(ws.path())
        .args(["scan", "."])
        .assert()
        .code(2)
        .stderr(contains("`include-tests`: invalid type"));
    let ws = write_tree(&[("toolaudit.toml", "targets = []\n")]);
    bin()
        .current_dir(ws.path())
        .args(["scan", "."])
        .assert()
        .code(2)
        .stderr(contains("`targets`: the list is empty"));
    // The cause of an OS error is said once.
    bin()
        .args(["scan", "examples", "--baseline", "no-such-baseline.json"])
        .assert()
        .code(2)
        .stderr(contains("(os error 2)").count(1));
}

#[test]
fn also_write_gives_other_formats_of_the_same_scan() {
    let dir = tempfile::tempdir().unwrap();
    let sarif = dir.path().join("r.sarif");
    let md = dir.path().join("r.md");
    bin()
        .args(["scan", "examples", "--format", "json", "--also-write"])
        .arg(format!("sarif={}", sarif.display()))
        .arg("--also-write")
        .arg(format!("markdown={}", md.display()))
        .assert()
        .code(1)
        .stdout(contains("\"findings\""));
    assert!(
        std::fs::read_to_string(&sarif)
            .unwrap()
            .contains("\"ruleId\"")
    );
    assert!(
        std::fs::read_to_string(&md)
            .unwrap()
            .starts_with("## toolaudit: 38 problems")
    );
    bin()
        .args(["scan", "examples", "--also-write", "pdf=x.pdf"])
        .assert()
        .code(2)
        .stderr(contains("unknown format `pdf`"));
}

#[test]
fn diff_base_asks_the_work_tree_of_the_scanned_path() {
    let repo = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        assert!(
            Command::new("git")
                .current_dir(repo.path())
                .args([
                    "-c",
                    "user.name=t",
                    "-c",
                    "user.email=t@t",
                    "-c",
                    "commit.gpgsign=false"
                ])
                .args(args)
                .status()
                .unwrap()
                .success()
        );
    };
    git(&["init", "-q", "-b", "main"]);
    std::fs::write(
        repo.path().join("tools.json"),
        "{\"tools\": [{\"name\": \"a.b\", \"inputSchema\": {\"type\": \"object\"}}]}\n",
    )
    .unwrap();
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "one"]);
    let elsewhere = tempfile::tempdir().unwrap();
    bin()
        .current_dir(elsewhere.path())
        .args(["scan", "--no-config", "--diff-base", "HEAD"])
        .arg(repo.path())
        .assert()
        .code(0)
        .stdout(contains(
            "2 findings on lines not changed since `HEAD` left out.",
        ));
}

#[test]
fn m101_is_opt_in_and_its_note_uses_the_schemas_own_property() {
    let ws = write_tree(&[(
        "tools.json",
        "{\"tools\": [{\"name\": \"run\", \"description\": \"Run a shell command in the workspace\", \"inputSchema\": {\"type\": \"object\", \"properties\": {\"timeout_ms\": {\"type\": \"integer\", \"description\": \"Timeout\"}}}}]}\n",
    )]);
    bin()
        .current_dir(ws.path())
        .args(["scan", ".", "--no-config"])
        .assert()
        .code(0);
    bin()
        .current_dir(ws.path())
        .args(["scan", ".", "--no-config", "--select", "M101"])
        .assert()
        .code(1)
        .stdout(contains("(`timeoutMs` for `timeout_ms`)"));
}

#[test]
fn a_finding_reached_twice_is_reported_once() {
    // A 2019-09-style tuple `items` in a 2020-12 schema: the meta-schema
    // rejects it through several of its branches, at one place.
    let ws = write_tree(&[(
        "tools.json",
        "{\"tools\": [{\"name\": \"create_monitor\", \"description\": \"Create a monitor\", \"inputSchema\": {\"type\": \"object\", \"properties\": {\"headers\": {\"type\": \"array\", \"description\": \"Pairs\", \"items\": {\"type\": \"array\", \"items\": [{\"type\": \"string\"}, {\"type\": \"string\"}]}}}}}]}\n",
    )]);
    let out = bin()
        .current_dir(ws.path())
        .args(["scan", ".", "--no-config", "--format", "json"])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let s101 = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "S101")
        .count();
    assert_eq!(s101, 1, "{doc:#}");
}
