//! The config file: discovery, precedence over defaults and under flags,
//! strict keys and values, per-rule severity and per-file ignores.

use std::path::Path;

use predicates::prelude::*;
use predicates::str::contains;

use super::util::{bin, root};

/// A workspace with a tool manifest in `sub/` and the given config text.
fn workspace(config_name: &str, config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("sub/fixtures")).unwrap();
    let copy = |from: &str, to: &str| {
        std::fs::copy(root().join(from), dir.path().join(to)).unwrap();
    };
    copy("tests/fixtures/names/bad.json", "sub/tools.json");
    copy("tests/fixtures/N104/bad.json", "sub/fixtures/tools.json");
    std::fs::write(dir.path().join(config_name), config).unwrap();
    dir
}

fn run_in(dir: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    bin().current_dir(dir).args(args).assert()
}

#[test]
fn config_is_discovered_upwards_and_shown_with_sources() {
    let ws = workspace(
        "toolaudit.toml",
        "targets = [\"gemini\"]\nfail-on = \"error\"\n",
    );
    run_in(&ws.path().join("sub"), &["config", "."])
        .code(0)
        .stdout(contains("Config file: ").and(contains("toolaudit.toml")))
        .stdout(
            contains("targets")
                .and(contains("gemini"))
                .and(contains("toolaudit.toml:1")),
        )
        .stdout(contains("fail-on").and(contains("toolaudit.toml:2")))
        .stdout(predicates::str::is_match(r"max-file-size +4 MiB +default").unwrap());
}

#[test]
fn pyproject_tool_table_is_read() {
    let ws = workspace(
        "pyproject.toml",
        "[project]\nname = \"x\"\n\n[tool.toolaudit]\nselect = [\"N103\"]\n",
    );
    run_in(ws.path(), &["scan", "sub/tools.json", "--format", "json"])
        .code(1)
        .stdout(contains("\"N103\"").and(contains("\"N101\"").not()));
}

#[test]
fn flags_win_over_the_config_file() {
    let ws = workspace("toolaudit.toml", "select = [\"N103\"]\n");
    run_in(
        ws.path(),
        &[
            "scan",
            "sub/tools.json",
            "--select",
            "N101",
            "--format",
            "json",
        ],
    )
    .code(1)
    .stdout(contains("\"N101\"").and(contains("\"N103\"").not()));
    run_in(
        ws.path(),
        &["scan", "sub/tools.json", "--no-config", "--format", "json"],
    )
    .code(1)
    .stdout(contains("\"N101\"").and(contains("\"N103\"")));
}

#[test]
fn severity_overrides_and_fail_on_from_config() {
    // N104 is a warning: with fail-on = "error" the scan passes...
    let ws = workspace(
        "toolaudit.toml",
        "fail-on = \"error\"\nselect = [\"N104\"]\n",
    );
    run_in(ws.path(), &["scan", "sub/fixtures"]).code(0);
    // ...until the config raises it to an error.
    let ws = workspace(
        "toolaudit.toml",
        "fail-on = \"error\"\nselect = [\"N104\"]\n[severity]\nN104 = \"error\"\n",
    );
    run_in(ws.path(), &["scan", "sub/fixtures"])
        .code(1)
        .stdout(contains("error[N104]"));
}

#[test]
fn per_file_ignores_leave_findings_out_and_say_so() {
    let ws = workspace(
        "toolaudit.toml",
        "select = [\"N\"]\n[per-file-ignores]\n\"sub/fixtures/**\" = [\"N104\"]\n",
    );
    run_in(ws.path(), &["scan", "sub/fixtures"])
        .code(0)
        .stdout(contains(
            "1 finding left out by suppression comments, `[[suppress]]` or `per-file-ignores`",
        ));
    run_in(ws.path(), &["scan", "sub/fixtures", "--format", "json"])
        .stdout(contains("\"suppressed\": 1"));
    // The same files reached through `..` (the config is found above).
    run_in(
        &ws.path().join("sub/fixtures"),
        &["scan", "../../sub/fixtures"],
    )
    .code(0)
    .stdout(contains("1 finding left out"));
}

#[test]
fn unknown_keys_and_bad_values_name_file_line_and_suggestion() {
    for (text, expected) in [
        (
            "targets = []\nfial-on = \"error\"\n",
            "toolaudit.toml:2:1: unknown key `fial-on`; did you mean `fail-on`?",
        ),
        (
            "targets = [\"opnai\"]\n",
            "toolaudit.toml:1:1: `targets`: unknown target `opnai` (did you mean `openai`?)",
        ),
        (
            "select = [\"N1011\"]\n",
            "`select`: unknown rule code or family `N1011` (did you mean `N101`?)",
        ),
        (
            "fail-on = \"fatal\"\n",
            "`fail-on`: unknown severity `fatal`",
        ),
        ("max-file-size = \"4 parsecs\"\n", "`max-file-size`: "),
        (
            "[severity]\nN1O4 = \"error\"\n",
            "toolaudit.toml:2:1: `severity.N1O4`: unknown rule `N1O4` (did you mean `N104`?)",
        ),
        (
            "[per-file-ignores]\n\"a/**\" = [\"Q1\"]\n",
            "toolaudit.toml:2:1: `per-file-ignores.a/**`: unknown rule code or family `Q1`",
        ),
        (
            "[per-file-ignores]\n\"a/**\" = []\n",
            "toolaudit.toml:2:1: `per-file-ignores.a/**`: the list of rules is empty",
        ),
        ("targets = \"openai\"\n", "toolaudit.toml:1:"),
    ] {
        let ws = workspace("toolaudit.toml", text);
        run_in(ws.path(), &["scan", "sub"])
            .code(2)
            .stderr(contains(expected));
    }
    let ws = workspace("pyproject.toml", "[tool.toolaudit]\nfail_on = \"error\"\n");
    run_in(ws.path(), &["scan", "sub"])
        .code(2)
        .stderr(contains("pyproject.toml:2:1: unknown key `tool.toolaudit.fail_on`; did you mean `tool.toolaudit.fail-on`?"));
}

#[test]
fn an_explicit_config_that_does_not_exist_is_an_error() {
    bin()
        .args(["scan", "examples", "--config", "no-such.toml"])
        .assert()
        .code(2)
        .stderr(contains("cannot read no-such.toml"));
}

/// `[options] tool-budget` (S109): shown with its source; 0 is an error
/// naming the key, a word one pointing at the value.
#[test]
fn tool_budget_option_is_checked() {
    let ws = workspace("toolaudit.toml", "[options]\ntool-budget = 100\n");
    run_in(ws.path(), &["config", "."])
        .code(0)
        .stdout(contains("options.tool-budget").and(contains("100")));
    run_in(ws.path(), &["scan", ".", "--select", "S109"])
        .code(1)
        .stdout(contains("S109").and(contains("over the budget of 100")));
    let ws = workspace("toolaudit.toml", "[options]\ntool-budget = 0\n");
    run_in(ws.path(), &["scan", "."])
        .code(2)
        .stderr(contains("`tool-budget` is 0 tokens"));
    let ws = workspace("toolaudit.toml", "[options]\ntool-budget = \"big\"\n");
    run_in(ws.path(), &["scan", "."])
        .code(2)
        .stderr(contains("toolaudit.toml:2:15").and(contains("expected usize")));
}
