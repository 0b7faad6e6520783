//! The Python front-end's first step: FastMCP tools with their names,
//! descriptions, handlers and signature-derived parameters, as `tools`
//! lists them and the name rules judge them.

use super::util::bin;

/// `toolaudit tools PATH --format json`, which must succeed, parsed.
fn tools_json(path: &str) -> serde_json::Value {
    let out = bin()
        .args(["tools", path, "--format", "json"])
        .assert()
        .code(0);
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

#[test]
fn tools_lists_fastmcp_tools_with_handlers_and_parameters() {
    let v = tools_json("tests/fixtures/N101/bad-fastmcp");
    let tools = v["tools"].as_array().unwrap();
    let got: Vec<(String, String, serde_json::Value, serde_json::Value, String)> = tools
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["format"].as_str().unwrap().to_string(),
                t["parameters"].clone(),
                t["required"].clone(),
                t["handler"]["function"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "fs.list".to_string(),
                "fastmcp".to_string(),
                serde_json::json!(["path", "hidden"]),
                serde_json::json!(["path"]),
                "fs_list".to_string()
            ),
            (
                "powershell.exec".to_string(),
                "fastmcp".to_string(),
                serde_json::json!(["command", "timeout_s"]),
                serde_json::json!(["command"]),
                "powershell_exec".to_string()
            ),
        ]
    );
    // The docstring is the description when none is given.
    assert_eq!(
        tools[1]["description"],
        "Run a PowerShell command and return its output (stdout, then stderr)."
    );
}

/// A Python file that mentions no tool decorator is read, not parsed, and
/// counts as scanned.
#[test]
fn python_files_without_tools_are_scanned_quietly() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("util.py"),
        "def add(a, b):\n    return a + b\n",
    )
    .unwrap();
    bin()
        .current_dir(dir.path())
        .args(["scan", ".", "--no-config"])
        .assert()
        .code(0)
        .stdout(predicates::str::contains(
            "No tool definitions found in 1 file scanned",
        ));
}

/// LangChain's `@tool("name")`, the OpenAI Agents SDK's
/// `@function_tool(name_override=..)` and pydantic-ai's `@agent.tool` are
/// tools named by the decorator, with parameters from the signature less
/// what the framework fills in (`RunnableConfig`, `RunContext`).
#[test]
fn tools_lists_agent_framework_tools() {
    let v = tools_json("tests/fixtures/N101/bad-python-agent-frameworks");
    let got: Vec<(String, String, serde_json::Value, String)> = v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["format"].as_str().unwrap().to_string(),
                t["parameters"].clone(),
                t["handler"]["function"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let row = |n: &str, p: serde_json::Value, h: &str| {
        (
            n.to_string(),
            "python-function".to_string(),
            p,
            h.to_string(),
        )
    };
    assert_eq!(
        got,
        [
            row("calc.eval", serde_json::json!(["expression"]), "evaluate"),
            row(
                "get weather",
                serde_json::json!(["city", "units"]),
                "get_weather"
            ),
            row("crm/lookup", serde_json::json!(["customer_id"]), "lookup"),
        ]
    );
}

/// An MCP low-level server's `types.Tool` list: each tool's handler is the
/// arm of the `call_tool` dispatch on its name.
#[test]
fn tools_lists_low_level_server_tools_with_their_dispatch_arms() {
    let v = tools_json("tests/fixtures/M103/bad-python-lowlevel");
    let got: Vec<(String, serde_json::Value, String, u64)> = v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["parameters"].clone(),
                t["handler"]["function"].as_str().unwrap().to_string(),
                t["handler"]["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "read_note".to_string(),
                serde_json::json!(["path"]),
                "call_tool".to_string(),
                40
            ),
            (
                "find_notes".to_string(),
                serde_json::json!(["query", "folder"]),
                "call_tool".to_string(),
                45
            ),
        ]
    );
}

/// A pydantic model or dataclass argument is an object of its fields, as
/// pydantic derives it: wire names from `alias`, fields with a default are
/// optional, bounds from `Field`, and `extra="forbid"` closes the object.
#[test]
fn model_and_dataclass_arguments_become_object_schemas() {
    use std::path::Path;
    let schema_of = |dir: &str, tool: &str| {
        let s = super::util::scan(&[Path::new(dir)], &["M102"], &[]);
        let t = s
            .tools
            .iter()
            .find(|t| t.name.value == tool)
            .unwrap_or_else(|| panic!("{tool} not found in {dir}"));
        t.input_schema.as_ref().unwrap().to_json()
    };
    let q = schema_of("tests/fixtures/M102/bad-python-model", "find_orders");
    let query = &q["properties"]["query"];
    assert_eq!(query["type"], "object", "{q}");
    assert_eq!(query["required"], serde_json::json!(["customer"]), "{q}");
    assert_eq!(query["properties"]["pageSize"]["maximum"], 100, "{q}");
    assert_eq!(query["properties"]["status"]["default"], "open", "{q}");
    assert!(query.get("additionalProperties").is_none(), "{q}");
    let a = schema_of("tests/fixtures/M102/bad-python-model", "ship_to");
    assert_eq!(
        a["properties"]["address"]["required"],
        serde_json::json!(["street", "city"]),
        "{a}"
    );
    // Forbidding extra keys through a base class of the same file.
    let l = schema_of("tests/fixtures/M102/good-python-fastmcp", "list_dir");
    assert_eq!(
        l["properties"]["args"]["additionalProperties"], false,
        "{l}"
    );
    assert_eq!(
        l["properties"]["args"]["properties"]["recursive"]["default"], false,
        "{l}"
    );
}

/// A tool list bound to a name its module never uses, in a module nothing
/// imports, is set aside with a note when found by walking a folder, and
/// judged when the file is named on the command line.
#[test]
fn tool_lists_in_modules_nothing_imports_are_set_aside_unless_named() {
    use std::path::Path;
    let dir = Path::new("tests/fixtures/S108/good-python-list-nothing-imports");
    let walked = super::util::scan(&[dir], &["S108"], &[]);
    assert!(walked.diagnostics.is_empty());
    assert_eq!(walked.tools.len(), 1, "only the server's own tool");
    assert!(
        walked.notifications.iter().any(|n| n
            .message
            .contains("no other Python file imports the module")),
        "{:?}",
        walked.notifications
    );
    let named = super::util::scan(
        &[&dir.join("controllers/billing_controller.py")],
        &["S108"],
        &[],
    );
    assert_eq!(named.diagnostics.len(), 1);
}

/// A tool module that registers on a server object made elsewhere and
/// that nothing imports, while its siblings are imported, is left out of
/// the server (its import commented out; only an unscanned test imports
/// it): set aside with a note when walked, judged when named.
#[test]
fn tool_modules_left_out_of_their_server_are_set_aside_unless_named() {
    use std::path::Path;
    let dir = Path::new("tests/fixtures/M102/good-python-tool-module-left-out");
    let walked = super::util::scan(&[dir], &["M102"], &[]);
    assert!(walked.diagnostics.is_empty());
    let names: Vec<&str> = walked.tools.iter().map(|t| t.name.value.as_str()).collect();
    assert_eq!(names, ["pixelkit_resize_canvas", "pixelkit_run_script"]);
    let notes: Vec<&str> = walked
        .notifications
        .iter()
        .filter(|n| {
            n.message
                .contains("other modules that register on the same object")
        })
        .filter_map(|n| n.path.as_deref())
        .collect();
    assert_eq!(notes.len(), 2, "{:?}", walked.notifications);
    assert!(
        notes
            .iter()
            .all(|p| p.ends_with("filters.py") || p.ends_with("layers.py"))
    );
    let named = super::util::scan(
        &[&dir.join("pixelkit_mcp/tools/filters.py")],
        &["M102"],
        &[],
    );
    assert_eq!(named.diagnostics.len(), 1);
}

/// Agent frameworks' call forms: pydantic-ai's `Agent(tools=[f, Tool(g,
/// name=..)])` and `agent.tool_plain(self.method)` on an agent parameter,
/// LangChain's `StructuredTool.from_function(func=.., name=..)` and
/// `tool("name", args_schema=Model)(self.method)` (parameters from the
/// model).
#[test]
fn tools_lists_agent_framework_call_forms() {
    let v = tools_json("tests/fixtures/N101/bad-python-framework-call-forms");
    let got: Vec<(String, serde_json::Value, String)> = v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["parameters"].clone(),
                t["handler"]["function"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let row = |n: &str, p: serde_json::Value, h: &str| (n.to_string(), p, h.to_string());
    assert_eq!(
        got,
        [
            row(
                "convert_currency",
                serde_json::json!(["amount", "to"]),
                "convert_currency"
            ),
            row("fx.rate", serde_json::json!(["currency"]), "lookup_rate"),
            row("forecast", serde_json::json!(["city", "days"]), "forecast"),
            row("docs.search", serde_json::json!(["query"]), "search_docs"),
            row("plan.make", serde_json::json!(["goal", "days"]), "_make"),
        ]
    );
}

/// CrewAI `BaseTool` subclasses: name and description from the class
/// attributes, parameters from `args_schema` (else `_run`), `_run` the
/// handler; an abstract base without `_run` is not a tool.
#[test]
fn tools_lists_base_tool_subclasses() {
    let v = tools_json("tests/fixtures/N101/bad-python-base-tool");
    let got: Vec<(String, serde_json::Value, serde_json::Value, String)> = v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["parameters"].clone(),
                t["required"].clone(),
                t["handler"]["function"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "gmail.save_draft".to_string(),
                serde_json::json!(["subject", "body", "recipient"]),
                serde_json::json!(["subject", "body"]),
                "_run".to_string()
            ),
            (
                "read_file".to_string(),
                serde_json::json!(["file_path"]),
                serde_json::json!(["file_path"]),
                "_run".to_string()
            ),
        ]
    );
}

/// The configured truncation markers count in Python output as in Rust:
/// M302 fires on a cut until `<<snip>>` is a marker.
#[test]
fn truncation_markers_from_the_config_file_count_in_python() {
    let dir = super::util::write_tree(&[(
        "server.py",
        r#"import subprocess

from fastmcp import FastMCP

mcp = FastMCP("shell")

MAX_OUTPUT = 20_000


@mcp.tool()
def run(command: str) -> str:
    """Run a shell command and return its output."""
    out = subprocess.run(command, shell=True, capture_output=True, text=True).stdout
    if len(out) > MAX_OUTPUT:
        return out[:MAX_OUTPUT] + "\n<<snip>>"
    return out
"#,
    )]);
    let m302 = || {
        bin()
            .current_dir(dir.path())
            .args(["scan", ".", "--select", "M302"])
            .assert()
    };
    m302().code(1);
    std::fs::write(
        dir.path().join("toolaudit.toml"),
        "[options]\ntruncation-markers = [\"<<snip>>\"]\n",
    )
    .unwrap();
    m302().code(0);
}

/// A module beside a package of the same name (`tools.py` and `tools/`) is
/// never imported: its tools are set aside with a note when found by
/// walking a folder, and judged when the file is named.
#[test]
fn modules_a_package_shadows_are_set_aside_unless_named() {
    use std::path::Path;
    let dir = Path::new("tests/fixtures/N101/good-python-shadowed-module");
    let walked = super::util::scan(&[dir], &["N101"], &[]);
    assert!(walked.diagnostics.is_empty());
    let names: Vec<&str> = walked.tools.iter().map(|t| t.name.value.as_str()).collect();
    assert_eq!(names, ["fs_list"], "only the package's tool");
    assert!(
        walked
            .notifications
            .iter()
            .any(|n| n.message.contains("a package of the same name")),
        "{:?}",
        walked.notifications
    );
    let named = super::util::scan(&[&dir.join("agent/tools.py")], &["N101"], &[]);
    assert_eq!(named.diagnostics.len(), 1);
}
