//! Rust sources: the tool inventory of an rmcp server and of a hand-rolled
//! tool registry, name provenance through functions, the tool-call
//! surface, and `--scope all`.

use std::path::Path;

use predicates::prelude::*;
use serde_json::Value;

use super::util::{bin, crate_with, describe, scan, tools_json};

fn tool<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool `{name}` in {tools:#?}"))
}

#[test]
fn rmcp_server_tools_have_names_schemas_and_handlers() {
    let tools = tools_json("examples/rmcp-server");
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["read_note", "search_notes", "notes.list", "append_note"]
    );
    let search = tool(&tools, "search_notes");
    assert_eq!(search["format"], "rmcp");
    assert_eq!(search["parameters"], serde_json::json!(["query", "limit"]));
    assert_eq!(search["schema_derived"], true);
    assert_eq!(search["handler"]["function"], "search_notes");
    assert_eq!(
        search["handler"]["file"],
        "examples/rmcp-server/src/main.rs"
    );
    assert_eq!(search["handler"]["line"], 47);
    // `rename_all = "camelCase"` has nothing to rename in `path`/`text`.
    assert_eq!(
        tool(&tools, "append_note")["parameters"],
        serde_json::json!(["path", "text"])
    );
    // The description comes from the doc comment when the attribute has none.
    assert_eq!(
        tool(&tools, "read_note")["description"],
        "Read one note by its path, relative to the notes folder."
    );
}

#[test]
fn trait_registry_tools_are_found_with_their_call_methods() {
    let tools = tools_json("examples/agent-runtime");
    let shell = tool(&tools, "shell");
    assert_eq!(shell["format"], "rust");
    assert_eq!(
        shell["parameters"],
        serde_json::json!(["command", "timeout_seconds", "workdir"])
    );
    assert_eq!(shell["handler"]["function"], "call");
    assert_eq!(
        shell["handler"]["file"],
        "examples/agent-runtime/src/tools/shell.rs"
    );
    // The MCP wrapper's name is built at run time: its template is listed.
    let mcp = tool(&tools, "{}:{}");
    assert_eq!(mcp["name_is_template"], true);
    // The registry's `json!` definitions use `t.name()`, which differs per
    // tool: nothing is guessed, so there are exactly three tools.
    assert_eq!(tools.len(), 3, "{tools:#?}");
}

/// The acceptance case of the Rust issue: an id built as
/// `format!("{}:{}", server, tool)` in one function and used as the tool
/// name in another gets N101 at the `format!`, with the use as a label.
#[test]
fn a_name_built_by_format_in_another_function_gets_n101_at_its_definition() {
    let found = scan(&[Path::new("examples/agent-runtime")], &["N101"], &[]).diagnostics;
    assert_eq!(found.len(), 1, "{}", describe(&found));
    let d = &found[0];
    assert_eq!(d.file.display, "examples/agent-runtime/src/tools/mcp.rs");
    let at = d.file.line_col(d.span.start);
    assert_eq!((at.line, at.column), (25, 17));
    assert_eq!(d.file.slice(d.span), "\"{}:{}\"");
    assert!(
        d.message
            .starts_with("tool name built as `{}:{}` contains `:`"),
        "{}",
        d.message
    );
    let used = &d.secondary[0];
    assert_eq!(used.message, "used as the tool name here");
    assert_eq!(used.file.slice(used.span), "self.qualified_name()");
}

#[test]
fn code_rules_stay_on_the_surface_unless_scope_is_all() {
    for (code, fixture) in [
        ("M201", "tests/fixtures/M201/good"),
        ("M303", "tests/fixtures/M303/good"),
    ] {
        bin()
            .args(["scan", fixture, "--select", code])
            .assert()
            .code(0);
        let out = bin()
            .args([
                "scan", fixture, "--select", code, "--scope", "all", "--format", "json",
            ])
            .assert()
            .code(1);
        let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        let lines: Vec<u64> = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["start"]["line"].as_u64().unwrap())
            .collect();
        // Only the function outside any tool (environment input) is added.
        assert_eq!(lines.len(), 1, "{code}: {v:#}");
    }
    bin()
        .args(["scan", "examples", "--scope", "everything"])
        .assert()
        .code(2);
}

#[test]
fn scope_in_the_config_file_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("toolaudit.toml"), "scope = \"al\"\n").unwrap();
    bin()
        .current_dir(dir.path())
        .args(["scan", "."])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "`scope`: unknown scope `al` (did you mean `all`?); use surface or all",
        ));
}

/// Test code is not read: tools, names and handlers in `#[cfg(test)]`
/// modules and under `tests/` are not part of the surface.
#[test]
fn test_code_is_not_read() {
    let tool = "#[tool(name = \"bad.name\", description = \"d\")]\nasync fn f(&self) -> String { String::new() }\n";
    let lib = format!("#[cfg(test)]\nmod tests {{\n    impl S {{\n{tool}    }}\n}}\n");
    let it = format!("impl S {{\n{tool}}}\n");
    let dir = crate_with(&[("src/lib.rs", &lib), ("tests/it.rs", &it)]);
    assert_eq!(tools_json(dir.path()), Vec::<Value>::new());
}

/// `vec![Tool::new(..), ..]` is a macro: its body is parsed again, and the
/// tools found keep exact positions in the file.
#[test]
fn tools_listed_in_vec_macros_are_found_at_their_positions() {
    let lib = r#"use std::sync::Arc;

pub fn list_tools() -> Vec<Tool> {
    vec![
        Tool::new("read.file", "Read a file", Arc::new(serde_json::from_value(json!({
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path", "encoding"]
        })).unwrap())),
        Tool::new("list_dir", "List a directory", Arc::new(JsonObject::new())),
    ]
}
"#;
    let dir = crate_with(&[("src/lib.rs", lib)]);
    let tools = tools_json(dir.path());
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["read.file", "list_dir"]);
    let found = scan(&[dir.path()], &["N101", "S103"], &[]).diagnostics;
    let at: Vec<(String, usize, usize, &str)> = found
        .iter()
        .map(|d| {
            let lc = d.file.line_col(d.span.start);
            (d.code.to_string(), lc.line, lc.column, d.file.slice(d.span))
        })
        .collect();
    assert_eq!(
        at,
        [
            ("N101".to_string(), 5, 19, "\"read.file\""),
            ("S103".to_string(), 8, 34, "\"encoding\""),
        ],
        "{}",
        describe(&found)
    );
}

/// A hand-rolled server that registers handler types by name: the name
/// comes from the registration, description, schema and handler from the
/// type's impl.
#[test]
fn registered_tool_types_are_tools_with_handlers() {
    let tools_rs = r#"use serde_json::{Value, json};

pub trait ToolHandler {
    fn description(&self) -> String;
    fn input_schema(&self) -> Value;
    fn call(&self, args: Value) -> Result<String, String>;
}

pub struct EchoTool;

impl ToolHandler for EchoTool {
    fn description(&self) -> String {
        "Echo the text back".to_string()
    }

    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
    }

    fn call(&self, args: Value) -> Result<String, String> {
        Ok(args.get("text").and_then(|t| t.as_str()).unwrap_or("hello").to_string())
    }
}
"#;
    let main_rs = r#"mod tools;

fn main() {
    let mut registry = Registry::default();
    registry.register_tool("echo", Box::new(tools::EchoTool));
}
"#;
    let dir = crate_with(&[("src/tools.rs", tools_rs), ("src/main.rs", main_rs)]);
    let tools = tools_json(dir.path());
    assert_eq!(tools.len(), 1, "{tools:#?}");
    assert_eq!(tools[0]["name"], "echo");
    assert_eq!(tools[0]["description"], "Echo the text back");
    assert_eq!(tools[0]["parameters"], serde_json::json!(["text"]));
    assert_eq!(tools[0]["handler"]["function"], "call");
    // The required `text` defaulted when missing is reported.
    let found = scan(&[dir.path()], &["M202"], &[]).diagnostics;
    assert_eq!(found.len(), 1, "{}", describe(&found));
    assert!(found[0].message.starts_with("`text` that fails `as_str`"));
}

/// Test, benchmark and fixture folders are not read unless asked, and the
/// summary says how many files were left out.
#[test]
fn test_folders_are_skipped_and_counted() {
    let tool = "#[tool(name = \"bad.name\", description = \"d\")]\nasync fn f(&self) -> String { String::new() }\n";
    let dir = crate_with(&[
        (
            "src/lib.rs",
            "pub fn nothing() {}\n#[cfg(test)]\nmod test_utils;\n",
        ),
        ("src/test_utils.rs", &format!("impl S {{\n{tool}}}\n")),
        ("benches/b.rs", &format!("impl S {{\n{tool}}}\n")),
        (
            "fixtures/tools.json",
            r#"{"tools": [{"name": "fs.list", "inputSchema": {"type": "object"}}]}"#,
        ),
    ]);
    bin()
        .arg("scan")
        .arg(dir.path())
        .args(["--color", "never"])
        .assert()
        .code(0)
        .stdout(predicates::str::contains(
            "3 files in test, benchmark and fixture folders not read (--include-tests reads them).",
        ));
    let out = bin()
        .arg("scan")
        .arg(dir.path())
        .args(["--include-tests", "--select", "N101", "--format", "json"])
        .assert()
        .code(1);
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["summary"]["findings"], 3, "{v:#}");
    assert_eq!(v["summary"]["test_files_skipped"], 0);
    // A file named on the command line is always read.
    bin()
        .arg("scan")
        .arg(dir.path().join("fixtures/tools.json"))
        .args(["--select", "N101"])
        .assert()
        .code(1);
}

/// M302 fires in `dir` until `<<snip>>` is configured as a truncation
/// marker, and is silent after.
fn m302_silent_only_with_snip_marker(dir: &Path) {
    let m302 = || {
        bin()
            .current_dir(dir)
            .args(["scan", ".", "--select", "M302"])
            .assert()
    };
    m302().code(1);
    std::fs::write(
        dir.join("toolaudit.toml"),
        "[options]\ntruncation-markers = [\"<<snip>>\"]\n",
    )
    .unwrap();
    m302().code(0);
}

/// A project's own marker said inside a reader thread's closure marks that
/// closure's cut (M302 reports a closure that returns its buffer without a
/// word, and the configured markers are words too).
#[test]
fn truncation_markers_from_the_config_file_count_inside_a_closure() {
    let lib = r#"use serde_json::{Value, json};

const STDERR_LIMIT: usize = 512 * 1024;

pub struct Run;

impl Run {
    fn name(&self) -> &'static str {
        "run_command"
    }

    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {}, "additionalProperties": false})
    }

    fn call(&self, _args: &Value) -> String {
        let reader = std::thread::spawn(move || {
            let mut pipe = std::io::Cursor::new(read_stderr());
            let mut buf: Vec<u8> = Vec::new();
            let mut chunk = [0u8; 4096];
            loop {
                match std::io::Read::read(&mut pipe, &mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if buf.len() + n > STDERR_LIMIT {
                            break;
                        }
                        buf.extend_from_slice(&chunk[..n]);
                    }
                }
            }
            let mut text = String::from_utf8_lossy(&buf).into_owned();
            if buf.len() >= STDERR_LIMIT - 4096 {
                text.push_str("\n<<snip>>");
            }
            text
        });
        reader.join().unwrap_or_default()
    }
}

fn read_stderr() -> Vec<u8> {
    Vec::new()
}
"#;
    let dir = crate_with(&[("src/lib.rs", lib)]);
    m302_silent_only_with_snip_marker(dir.path());
}

/// `[options] truncation-markers`: a project's own way of saying output was
/// cut counts as a marker; a misspelt option key is an error.
#[test]
fn truncation_markers_from_the_config_file() {
    let lib = r#"use serde_json::{Value, json};

const MAX_OUTPUT: usize = 4096;

pub struct Logs;

impl Logs {
    fn name(&self) -> &'static str {
        "tail_logs"
    }

    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {}, "additionalProperties": false})
    }

    fn call(&self, _args: &Value) -> String {
        let mut out = read_logs();
        if out.len() > MAX_OUTPUT {
            out.truncate(MAX_OUTPUT);
            out.push_str("\n<<snip>>");
        }
        out
    }
}

fn read_logs() -> String {
    String::new()
}
"#;
    let dir = crate_with(&[("src/lib.rs", lib)]);
    m302_silent_only_with_snip_marker(dir.path());
    std::fs::write(
        dir.path().join("toolaudit.toml"),
        "[options]\ntruncation-marker = [\"<<snip>>\"]\n",
    )
    .unwrap();
    bin()
        .current_dir(dir.path())
        .args(["scan", "."])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "unknown field `truncation-marker`",
        ));
}

/// A single-tool plugin (`describe()` + `call()`) whose handler matches on
/// an operation argument: `call` is the handler, not a dispatcher, and the
/// keys it unwraps make a misspelling loud (no M101).
#[test]
fn single_tool_plugins_are_linked_to_their_call_function() {
    let lib = r#"pub fn call(input: CallToolRequest) -> Result<CallToolResult, Error> {
    let args = input.params.arguments.unwrap_or_default();
    let name = args.get("name").unwrap().as_str().unwrap();
    match name {
        "offset" => {
            let ts = args.get("timestamp").unwrap().as_i64().unwrap();
            let off = args.get("offset").unwrap().as_i64().unwrap();
            Ok(result(ts + off))
        }
        "now" => Ok(result(0)),
        _ => Err(Error::msg("unknown operation")),
    }
}

pub fn describe() -> Result<ListToolsResult, Error> {
    Ok(ListToolsResult { tools: vec![Tool {
        name: "time".into(),
        description: "Time operations".into(),
        input_schema: json!({
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string", "enum": ["offset", "now"]},
                "timestamp": {"type": "integer"},
                "offset": {"type": "integer"}
            }
        }).as_object().unwrap().clone(),
    }]})
}
"#;
    let dir = crate_with(&[("src/lib.rs", lib)]);
    let tools = tools_json(dir.path());
    assert_eq!(tools.len(), 1, "{tools:#?}");
    assert_eq!(tools[0]["handler"]["function"], "call");
    let found = scan(&[dir.path()], &["M1"], &[]).diagnostics;
    assert!(found.is_empty(), "{}", describe(&found));
}

/// rmcp's `object!({..})` schema macro is read like `json!`.
#[test]
fn object_macro_schemas_are_read() {
    let lib = r#"pub fn schedule_tool() -> Tool {
    Tool::new(
        "manage_schedule".to_string(),
        "Manage scheduled jobs".to_string(),
        object!({
            "type": "object",
            "required": ["action"],
            "properties": {
                "action": {"type": "string", "enum": ["list", "create"]},
                "limit": {"type": "integer"}
            }
        }),
    )
}
"#;
    let dir = crate_with(&[("src/lib.rs", lib)]);
    let tools = tools_json(dir.path());
    assert_eq!(
        tools[0]["parameters"],
        serde_json::json!(["action", "limit"])
    );
    let found = scan(&[dir.path()], &["M101"], &[]).diagnostics;
    assert_eq!(found.len(), 1, "{}", describe(&found));
}

// Regressions from the code review of the Rust analysis.

fn codes_at(dir: &Path, select: &[&str]) -> Vec<(String, String, usize, String)> {
    scan(&[dir], select, &[])
        .diagnostics
        .iter()
        .map(|d| {
            let lc = d.file.line_col(d.span.start);
            (
                d.code.to_string(),
                d.file
                    .path
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
                lc.line,
                d.file.slice(d.span).to_string(),
            )
        })
        .collect()
}

/// A schema bound to a local and used in `vec![..]` keeps its own span
/// (it was shifted twice and pointed past the end of the file).
#[test]
fn vec_tools_with_local_schemas_point_at_the_schema() {
    let lib = r#"pub fn tools() -> Vec<Tool> {
    let schema = json!({"type": "object", "properties": {"q": {"type": "string"}}});
    vec![Tool::new("search", "Search", schema)]
}
"#;
    let dir = crate_with(&[("src/lib.rs", lib)]);
    let found = codes_at(dir.path(), &["M101"]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].2, 2);
    assert!(found[0].3.starts_with("\"type\""), "{found:?}");
}

/// Deep nesting in expressions the value and default helpers follow, and a
/// name resolved through many same-named functions, finish quickly.
#[test]
fn hostile_shapes_neither_crash_nor_explode() {
    let deep = format!(
        "fn call(&self, args: Value) -> String {{ let x = {}None{}; const X: &str = {}\"a\"{}; x }}\n",
        "Some(".repeat(30_000),
        ")".repeat(30_000),
        "String::from(".repeat(30_000),
        ")".repeat(30_000),
    );
    let mut many = String::from("pub fn tools() -> Tool { Tool::new(f(), \"d\", json!({})) }\n");
    for i in 0..90 {
        many.push_str(&format!("mod m{i} {{ pub fn f() -> String {{ f() }} }}\n"));
    }
    let dir = crate_with(&[("src/lib.rs", &deep), ("src/many.rs", &many)]);
    // Exploding (a call graph walked without bounds) fails here, not hangs.
    bin()
        .timeout(std::time::Duration::from_secs(120))
        .arg("scan")
        .arg(dir.path())
        .assert()
        .code(0);
}

/// A tool registered in one file and implemented in another is defined
/// where its impl is; findings about it point into the right files.
#[test]
fn registered_tools_point_into_their_own_files() {
    let echo = r#"pub struct EchoTool;

impl ToolHandler for EchoTool {
    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
    }

    fn call(&self, args: Value) -> String {
        args.to_string()
    }
}
"#;
    let lib = "mod echo;\n\npub fn setup(r: &mut Registry) {\n    r.register_tool(\"echo.v2\", Box::new(echo::EchoTool));\n}\n";
    let dir = crate_with(&[("src/echo.rs", echo), ("src/lib.rs", lib)]);
    let tools = tools_json(dir.path());
    assert_eq!(
        tools[0]["file"].as_str().unwrap(),
        rel_str(dir.path(), "src/echo.rs")
    );
    assert_eq!(tools[0]["line"], 3);
    // S106 named in full also checks parameters: `text` is in echo.rs.
    let found = codes_at(dir.path(), &["N101", "S106"]);
    assert_eq!(
        found,
        [
            (
                "S106".to_string(),
                "echo.rs".to_string(),
                5,
                "\"text\"".to_string()
            ),
            (
                "N101".to_string(),
                "lib.rs".to_string(),
                4,
                "\"echo.v2\"".to_string()
            ),
            (
                "S106".to_string(),
                "lib.rs".to_string(),
                4,
                "\"echo.v2\"".to_string()
            ),
        ]
    );
}

fn rel_str(dir: &Path, p: &str) -> String {
    dir.join(p).to_string_lossy().into_owned()
}

/// In Rust, `#` starts an attribute, not a comment: a suppression after
/// `#[tool(..)]` on the same line applies to that line.
#[test]
fn suppressions_after_attributes_apply() {
    let lib = r#"pub struct S;

#[tool_router]
impl S {
    #[tool(name = "fs.read", description = "Read")] // toolaudit: ignore[N101] only served to Gemini
    async fn read(&self) -> String {
        String::new()
    }
}
"#;
    let dir = crate_with(&[("src/lib.rs", lib)]);
    bin()
        .arg("scan")
        .arg(dir.path())
        .args(["--select", "N101"])
        .assert()
        .code(0)
        .stderr(predicates::str::contains("matches no finding").not());
}

/// `cfg(feature = "latest")` does not make a tool test code;
/// `cfg(all(test, not(miri)))` does.
#[test]
fn cfg_conditions_are_evaluated_not_searched() {
    let lib = r#"pub struct S;

#[tool_router]
impl S {
    #[cfg(feature = "latest")]
    #[tool(description = "New")]
    async fn latest(&self) -> String {
        String::new()
    }
}

#[cfg(all(test, not(miri)))]
mod tests {
    #[tool_router]
    impl T {
        #[tool(description = "Fake")]
        async fn fake(&self) -> String {
            String::new()
        }
    }
}
"#;
    let dir = crate_with(&[("src/lib.rs", lib)]);
    let names: Vec<String> = tools_json(dir.path())
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["latest"]);
}

/// `Self::helper(self, &args)` passes the arguments like `self.helper(&args)`;
/// M301 names the field, not the variable; `session_id` is an argument.
#[test]
fn calls_names_and_parameters_of_handlers() {
    let lib = r#"use serde_json::{Value, json};

const MAX: usize = 500;

pub struct Grep;

impl Grep {
    fn name(&self) -> &'static str {
        "grep"
    }

    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {"pattern": {"type": "string"}}, "additionalProperties": false})
    }

    fn call(&self, args: Value) -> String {
        Self::helper(self, &args)
    }

    fn helper(&self, args: &Value) -> String {
        let context = args.get("context_lines").and_then(Value::as_u64);
        format!("{context:?}")
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    pub limit: Option<usize>,
    pub session_id: String,
}

pub struct Server;

#[tool_router]
impl Server {
    #[tool(description = "List")]
    async fn list(&self, Parameters(a): Parameters<ListArgs>) -> String {
        let n = a.limit.unwrap_or(10).min(MAX);
        let m = a.limit.unwrap_or(1).min(500u32 as usize);
        format!("{n} {m} {}", a.session_id)
    }

    #[tool(description = "Poll")]
    async fn poll(&self, #[tool(param)] session_id: String, #[tool(param)] page_token: String) -> String {
        format!("{session_id} {page_token}")
    }
}
"#;
    let dir = crate_with(&[("src/lib.rs", lib)]);
    let found = scan(&[dir.path()], &["M103", "M301"], &[]).diagnostics;
    let messages: Vec<&str> = found.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "handler of `grep` reads `context_lines`, which its input schema does not declare",
            "requested `limit` is silently capped at `MAX`",
        ],
        "{}",
        describe(&found)
    );
    let poll = tools_json(dir.path())
        .into_iter()
        .find(|t| t["name"] == "poll")
        .unwrap();
    assert_eq!(
        poll["parameters"],
        serde_json::json!(["session_id", "page_token"])
    );
}

/// A Rust file named on the command line is read even in a test folder;
/// M203 wants a function that returns the default to be named for
/// arguments as a word, not to contain `arg` (`record_target`).
#[test]
fn explicit_test_files_and_m203_returns() {
    let lib = r#"pub fn record_target(call: &Call) -> Value {
    serde_json::from_str(&call.arguments).unwrap_or_default()
}

pub fn parse_args(call: &Call) -> Value {
    serde_json::from_str(&call.arguments).unwrap_or_default()
}
"#;
    let dir = crate_with(&[("tests/decode.rs", lib)]);
    let file = dir.path().join("tests/decode.rs");
    let out = bin()
        .arg("scan")
        .arg(&file)
        .args(["--select", "M203", "--format", "json"])
        .assert()
        .code(1);
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let lines: Vec<u64> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["start"]["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [6]);
}

/// A crate that sends its tools' `name()` with spaces replaced
/// (`tool.name().trim().replace(" ", "_")`) is checked for the name it
/// sends; the same tool in a crate without the rewrite is reported.
#[test]
fn names_rewritten_by_the_crate_are_checked_as_sent() {
    let sent = tools_json("tests/fixtures/N101/good-rust");
    let names: Vec<&str> = sent.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["Web_Search"]);
    let written = tools_json("tests/fixtures/N101/bad-rust");
    let names: Vec<&str> = written.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["Web Search"]);
}

/// Two impls in one file, each with its own `schema()`: each tool gets the
/// schema of its own impl.
#[test]
fn a_tool_takes_the_schema_of_its_own_impl() {
    let lib = r#"pub struct ReadFile;

impl ReadFile {
    fn schema() -> Value {
        json!({"type": "object", "properties": {"path": {"type": "string"}}})
    }
    pub fn tool() -> Tool {
        Tool::new("read_file", "Read a file", Self::schema())
    }
}

pub struct FetchUrl;

impl FetchUrl {
    fn schema() -> Value {
        json!({"type": "object", "properties": {"url": {"type": "string"}}})
    }
    pub fn tool() -> Tool {
        Tool::new("fetch_url", "Fetch a URL", Self::schema())
    }
}
"#;
    let dir = crate_with(&[("src/lib.rs", lib)]);
    let tools = tools_json(dir.path());
    assert_eq!(
        tool(&tools, "read_file")["parameters"],
        serde_json::json!(["path"])
    );
    assert_eq!(
        tool(&tools, "fetch_url")["parameters"],
        serde_json::json!(["url"])
    );
}

/// A file reached twice (`scan . src/lib.rs`, or a named test file inside
/// a walked folder) is read once, and a named file is always read, at any
/// thread count.
#[test]
fn a_file_reached_twice_is_read_once_and_a_named_one_always() {
    let tool = |name: &str| {
        format!(
            "impl S {{\n#[tool(name = \"{name}\", description = \"d\")]\nasync fn f(&self) -> String {{ String::new() }}\n}}\n"
        )
    };
    let dir = crate_with(&[
        ("src/lib.rs", &tool("lib_tool")),
        ("tests/it.rs", &tool("test.tool")),
    ]);
    for _ in 0..4 {
        let out = bin()
            .current_dir(dir.path())
            .args(["scan", ".", "src/lib.rs", "tests/it.rs", "-j", "4"])
            .args(["--format", "json", "--select", "N101,N103"])
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["summary"]["files_scanned"], 2, "{v:#}");
        assert_eq!(
            v["summary"]["by_rule"],
            serde_json::json!({"N101": 1}),
            "{v:#}"
        );
    }
}

/// A `vec!` of tools is read with the function's locals, however the
/// declaration uses them (`name.to_string()`, `schema.clone()`).
#[test]
fn tools_in_vec_macros_see_the_functions_locals() {
    let lib = r#"pub fn tools() -> Vec<Tool> {
    let name = "fs read";
    let schema = json!({"type": "object", "properties": {"q": {"type": "string"}}});
    vec![
        Tool::new(name, "Read a file", schema.clone()),
        Tool::new(name.to_string(), "Write a file", schema),
    ]
}
"#;
    let dir = crate_with(&[("src/lib.rs", lib)]);
    let tools = tools_json(dir.path());
    let listed: Vec<(&str, &Value, u64)> = tools
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap(),
                &t["parameters"],
                t["line"].as_u64().unwrap(),
            )
        })
        .collect();
    let q = serde_json::json!(["q"]);
    assert_eq!(listed, [("fs read", &q, 5), ("fs read", &q, 6)]);
}

/// rustfmt writes a long `Parameters<..>` path over several lines with a
/// trailing comma; its argument type is still the tool's schema (a history
/// replay of a real server lost every argument of the tools so written).
#[test]
fn a_parameters_type_broken_over_lines_is_the_tool_schema() {
    let lib = r#"
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct ReadNoteParams {
    /// Vault name
    pub vault: String,
    pub filename: String,
}
pub struct H;
#[tool_router]
impl H {
    #[tool(name = "read-note", description = "Read a note")]
    fn read_note(
        &self,
        rmcp::handler::server::wrapper::Parameters(params): rmcp::handler::server::wrapper::Parameters<
            ReadNoteParams,
        >,
    ) -> String {
        params.vault + &params.filename
    }
}
"#;
    let dir = crate_with(&[("src/lib.rs", lib)]);
    let tools = tools_json(dir.path());
    assert_eq!(
        tool(&tools, "read-note")["parameters"],
        serde_json::json!(["vault", "filename"])
    );
}

/// A tool trait of consts and an associated argument type, whose blanket
/// impl serves each tool (`impl<T: Tool> DynTool for T { fn name() { T::NAME } }`):
/// each impl is a tool, described by `DESCRIPTION`, typed by `RequestArgs`
/// and run by its one `call_*` method.
#[test]
fn a_tool_trait_of_consts_declares_tools() {
    let lib = r#"
pub trait Tool {
    const NAME: &'static str;
    const DESCRIPTION: &'static str;
    type RequestArgs: serde::de::DeserializeOwned + schemars::JsonSchema;
    fn call_rmcp_tool(&self, request: Self::RequestArgs) -> Result<String, String>;
}
pub trait DynTool {
    fn name(&self) -> &'static str;
    fn description(&self) -> &'static str;
}
impl<T: Tool> DynTool for T {
    fn name(&self) -> &'static str { T::NAME }
    fn description(&self) -> &'static str { T::DESCRIPTION }
}
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct CargoSearchRequest {
    /// What to search for
    pub query: String,
    pub limit: Option<u32>,
}
pub struct CargoSearchTool;
impl Tool for CargoSearchTool {
    const NAME: &'static str = "cargo-search";
    const DESCRIPTION: &'static str = "Search packages in the registry.";
    type RequestArgs = CargoSearchRequest;
    fn call_rmcp_tool(&self, request: Self::RequestArgs) -> Result<String, String> {
        Ok(format!("{} {:?}", request.query, request.limit))
    }
}
"#;
    let dir = crate_with(&[("src/lib.rs", lib)]);
    let tools = tools_json(dir.path());
    assert_eq!(tools.len(), 1, "{tools:?}");
    let t = tool(&tools, "cargo-search");
    assert_eq!(t["description"], "Search packages in the registry.");
    assert_eq!(t["parameters"], serde_json::json!(["query", "limit"]));
    assert_eq!(t["handler"]["function"], "call_rmcp_tool");
}

/// `"description": NO_RUN_DESC` in a `json!` schema is the constant's text:
/// a change to it is a change of the tool's surface, and a bound it states
/// is documented.
#[test]
fn a_description_constant_in_a_json_schema_is_its_text() {
    let lib = r#"
const NO_RUN_DESC: &str = "If true, compile the tests but do not run them.";
pub fn tools() -> serde_json::Value {
    serde_json::json!([{
        "name": "cargo_test",
        "description": "Run the tests",
        "inputSchema": {
            "type": "object",
            "properties": { "no_run": { "type": "boolean", "description": NO_RUN_DESC } }
        }
    }])
}
"#;
    let dir = crate_with(&[("src/lib.rs", lib)]);
    let out = bin()
        .arg("surface")
        .arg(dir.path())
        .arg("--no-config")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(r#""description": "If true, compile the tests but do not run them.""#),
        "{text}"
    );
}

/// A hand-rolled tool trait whose schemas live in `LazyLock` statics
/// (`&INSPECT_SCHEMA`, `LazyLock::new(schema_for::<T>)`), and whose run
/// method builds a struct that describes another tool (`InspectOutput {
/// name, schema, .. }`): the impl is still a tool, with the parameters of
/// its static schema and the output schema derived from its result type.
#[test]
fn trait_tools_read_static_schemas_and_their_output_schema() {
    let tools = tools_json("tests/fixtures/S105/good-output-value-field");
    assert_eq!(tools.len(), 1, "{tools:#?}");
    let inspect = tool(&tools, "inspect_tool");
    assert_eq!(inspect["parameters"], serde_json::json!(["tool"]));
    assert_eq!(inspect["handler"]["function"], "call");

    // A helper called once per tool: input and output schemas from statics,
    // the fourth argument an output schema only where the helper's
    // parameter is named for one.
    let tools = tools_json("tests/fixtures/S102/good-output-array-root");
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["list_queues", "peek_messages", "purge_queue", "queue_stats"]
    );
    assert_eq!(
        tool(&tools, "peek_messages")["parameters"],
        serde_json::json!(["queue"])
    );
}
