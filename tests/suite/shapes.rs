//! Tool-call shapes of real Rust code that nobody here wrote, each in a
//! small crate written for the test: serde defaults, tools declared by an
//! attribute on their argument struct, tools declared positionally in a
//! project macro, fallbacks to a constructed default, and defaults that a
//! later check does or does not catch.

use std::path::Path;

use serde_json::Value;

use super::util::{crate_with, tools_json};

fn tool<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool `{name}` in {tools:#?}"))
}

/// (code, line, message) of every finding of `select` in a scan of `dir`.
pub fn findings(dir: &Path, select: &[&str]) -> Vec<(String, usize, String)> {
    let out = super::util::bin()
        .current_dir(dir)
        .args(["scan", ".", "--no-config", "--format", "json", "--select"])
        .arg(select.join(","))
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                f["start"]["line"].as_u64().unwrap() as usize,
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

const RMCP_SEARCH: &str = r#"use rmcp::handler::server::wrapper::Parameters;
use rmcp::{tool, tool_router};
use serde::Deserialize;

#[derive(Deserialize, schemars::JsonSchema)]
pub struct SearchArgs {
    pub query: String,
    #[serde(default)]
    pub limit: u32,
    #[serde(default = "ten")]
    pub depth: u32,
    #[serde(rename = "caseSensitive", default)]
    pub case_sensitive: bool,
}

fn ten() -> u32 {
    10
}

pub struct Server;

#[tool_router]
impl Server {
    #[tool(description = "Search the notes")]
    async fn search(&self, Parameters(args): Parameters<SearchArgs>) -> String {
        format!("{} {} {} {}", args.query, args.limit, args.depth, args.case_sensitive)
    }
}
"#;

#[test]
fn serde_default_fields_are_not_required() {
    let dir = crate_with(&[("src/lib.rs", RMCP_SEARCH)]);
    let tools = tools_json(dir.path());
    let search = tool(&tools, "search");
    assert_eq!(
        search["parameters"],
        serde_json::json!(["query", "limit", "depth", "caseSensitive"])
    );
    assert_eq!(search["required"], serde_json::json!(["query"]));
}

const PROJECT_MACRO: &str = r#"use serde_json::{json, Value};

pub struct Ctx;
pub struct ToolDef;

macro_rules! tool {
    ($name:expr, $desc:expr, $schema:expr, $handler:expr) => {
        ToolDef::new($name, $desc, $schema, Box::new($handler))
    };
}

pub fn registry() -> Vec<ToolDef> {
    vec![
        tool!(
            "place_array",
            "Place copies of a footprint in a grid",
            json!({
                "type": "object",
                "properties": {"count": {"type": "integer"}, "board": {"type": "string"}},
                "required": ["count", "board"]
            }),
            |args, ctx| async move { handle_place_array(args, ctx).await }
        ),
        tool!(
            "list.parts",
            "List the parts of a board",
            json!({"type": "object", "properties": {"board": {"type": "string"}}}),
            handle_list
        ),
    ]
}

async fn handle_place_array(args: &Value, _ctx: &Ctx) -> Result<String, String> {
    let board = args["board"].as_str().ok_or("board is required")?;
    let count = args["count"].as_u64().unwrap_or(1);
    if count == 0 {
        return Err("count must be positive".into());
    }
    Ok(format!("{board}: {count}"))
}

fn handle_list(args: &Value, _ctx: &Ctx) -> String {
    args["board"].to_string()
}
"#;

#[test]
fn tools_declared_by_position_in_a_project_macro() {
    let dir = crate_with(&[("src/lib.rs", PROJECT_MACRO)]);
    let tools = tools_json(dir.path());
    let place = tool(&tools, "place_array");
    assert_eq!(place["parameters"], serde_json::json!(["count", "board"]));
    assert_eq!(place["handler"]["function"], "handle_place_array");
    assert_eq!(
        place["description"],
        "Place copies of a footprint in a grid"
    );
    assert_eq!(
        tool(&tools, "list.parts")["handler"]["function"],
        "handle_list"
    );
    // The handler is on the surface: a mistyped required `count` becomes 1,
    // and the check that follows does not catch 1.
    let found = findings(dir.path(), &["M202", "N101"]);
    assert!(
        found.contains(&(
            "M202".into(),
            35,
            "`count` that fails `as_u64` silently becomes `1`".into()
        )),
        "{found:#?}"
    );
    assert!(
        found.iter().any(|(c, l, _)| c == "N101" && *l == 25),
        "{found:#?}"
    );
}

const ATTRIBUTE_TOOLS: &str = r#"use rust_mcp_sdk::macros::{mcp_tool, JsonSchema};

#[mcp_tool(
    name = "cargo.build",
    description = "Build the package",
    openWorldHint = false,
)]
#[derive(Debug, ::serde::Deserialize, JsonSchema)]
pub struct CargoBuildTool {
    /// The package to build.
    package: Option<String>,
    release: bool,
}

impl CargoBuildTool {
    pub fn call_tool(&self) -> Result<String, String> {
        Ok(format!("{:?} {}", self.package, self.release))
    }
}

/// Attributes that name things but are not tools stay out.
#[derive(Debug)]
#[allow(dead_code)]
pub struct Plain {
    name: String,
}
"#;

#[test]
fn tools_declared_by_an_attribute_on_their_argument_struct() {
    let dir = crate_with(&[("src/lib.rs", ATTRIBUTE_TOOLS)]);
    let tools = tools_json(dir.path());
    assert_eq!(tools.len(), 1, "{tools:#?}");
    let build = tool(&tools, "cargo.build");
    assert_eq!(
        build["parameters"],
        serde_json::json!(["package", "release"])
    );
    assert_eq!(build["required"], serde_json::json!(["release"]));
    assert_eq!(build["handler"]["function"], "call_tool");
    let found = findings(dir.path(), &["N101"]);
    assert!(
        found
            .iter()
            .any(|(c, l, m)| c == "N101" && *l == 4 && m.contains("`.`")),
        "{found:#?}"
    );
}

const NAMESPACED_BRIDGE: &str = r#"use std::borrow::Cow;

pub struct Tool {
    pub name: Cow<'static, str>,
    pub description: Option<String>,
}

pub struct NameError;

fn namespaced_name(plugin: &str, tool: &str) -> Result<String, NameError> {
    if tool.contains("::") {
        return Err(NameError);
    }
    Ok(format!("{plugin}::{tool}"))
}

pub fn expose(plugin: &str, tools: Vec<Tool>) -> Vec<Tool> {
    let mut out = Vec::new();
    for mut tool in tools {
        let original = tool.name.to_string();
        tool.name = Cow::Owned(match namespaced_name(plugin, &original) {
            Ok(n) => n,
            Err(_) => continue,
        });
        out.push(tool);
    }
    out
}
"#;

const SANITISED_BRIDGE: &str = r#"use std::borrow::Cow;

pub struct Tool {
    pub name: Cow<'static, str>,
}

fn clean(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect()
}

fn namespaced_name(plugin: &str, tool: &str) -> String {
    format!("{}__{}", clean(plugin), clean(tool))
}

pub fn expose(plugin: &str, tools: Vec<Tool>) -> Vec<Tool> {
    let mut out = Vec::new();
    for mut tool in tools {
        let original = tool.name.to_string();
        tool.name = Cow::Owned(namespaced_name(plugin, &original));
        out.push(tool);
    }
    out
}
"#;

#[test]
fn a_bridge_renaming_tools_with_a_separator_gets_n101_at_the_template() {
    let dir = crate_with(&[("src/lib.rs", NAMESPACED_BRIDGE)]);
    let found = findings(dir.path(), &["N"]);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].0, "N101");
    assert_eq!(found[0].1, 14, "at the format! that builds the name");
    assert!(found[0].2.contains("`{plugin}::{tool}`"), "{found:#?}");
    let clean = crate_with(&[("src/lib.rs", SANITISED_BRIDGE)]);
    assert_eq!(findings(clean.path(), &["N"]), Vec::new());
}

const MAP_BUILT_TOOLS: &str = r#"use serde_json::{json, Map, Value};

fn function_to_tool(name: &str, params: &[String]) -> Value {
    let input_schema = json!({"type": "object", "properties": {}, "required": params});
    let mut tool = Map::new();
    tool.insert("name".to_string(), json!(name));
    tool.insert("description".to_string(), json!(format!("Calls {name}")));
    tool.insert("inputSchema".to_string(), input_schema);
    Value::Object(tool)
}

pub fn exported(prefix: Option<String>, export: &str, out: &mut Vec<Value>) {
    let name = if let Some(prefix) = prefix {
        format!("{prefix}.{export}")
    } else {
        export.to_string()
    };
    out.push(function_to_tool(&name, &[]));
}

pub fn operation(method: &str, path: &str, id: Option<String>) -> Value {
    let fallback = method.to_owned() + ":" + path;
    let name = match id.as_ref() {
        Some(id) => id.clone(),
        None => fallback,
    };
    function_to_tool(&name, &[])
}

#[cfg(test)]
mod tests {
    #[test]
    fn builds() {
        // A name only a test passes is not a name the crate offers.
        super::function_to_tool("made.up", &[]);
    }
}
"#;

#[test]
fn names_passed_to_a_map_built_tool_are_judged_in_every_caller() {
    let dir = crate_with(&[("src/lib.rs", MAP_BUILT_TOOLS)]);
    let tools = tools_json(dir.path());
    // One tool per call of the helper (each caller builds its own tools).
    assert_eq!(tools.len(), 2, "{tools:#?}");
    let found = findings(dir.path(), &["N101"]);
    let at: Vec<(usize, bool)> = found
        .iter()
        .map(|(_, l, m)| (*l, m.contains('.') || m.contains(':')))
        .collect();
    assert_eq!(at, [(14, true), (22, true)], "{found:#?}");
}

const GATE_AND_TOOL: &str = r#"use serde_json::{json, Value};

pub struct ToolSchema {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}

pub trait Tool {
    fn schema(&self) -> ToolSchema;
    fn execute(&self, input: &Value) -> String;
}

pub struct Bash;

impl Tool for Bash {
    fn schema(&self) -> ToolSchema {
        ToolSchema {
            name: "bash".into(),
            description: "Run a shell command".into(),
            input_schema: json!({
                "type": "object",
                "properties": {"command": {"type": "string"}, "trace": {"type": "boolean"}},
                "required": ["command"]
            }),
        }
    }

    fn execute(&self, input: &Value) -> String {
        let trace = input.get("trace").and_then(|v| v.as_bool()).unwrap_or(false);
        format!("{trace}")
    }
}

pub struct Ls;

impl Tool for Ls {
    fn schema(&self) -> ToolSchema {
        ToolSchema {
            name: "ls".into(),
            description: "List a folder".into(),
            input_schema: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        }
    }

    fn execute(&self, input: &Value) -> String {
        input["path"].to_string()
    }
}

/// What the permission prompt shows: a `match` on tool names that reads
/// the arguments, but runs nothing.
pub fn command_line_for(name: &str, input: &Value) -> Option<String> {
    match name {
        "bash" => Some(input.get("command").and_then(|v| v.as_str()).unwrap_or("").to_string()),
        "ls" => input.get("path").and_then(|v| v.as_str()).map(str::to_string),
        _ => None,
    }
}
"#;

#[test]
fn a_tool_is_run_by_its_own_impl_not_by_a_permission_match() {
    let dir = crate_with(&[("src/lib.rs", GATE_AND_TOOL)]);
    let tools = tools_json(dir.path());
    assert_eq!(tool(&tools, "bash")["handler"]["function"], "execute");
    assert_eq!(tool(&tools, "ls")["handler"]["function"], "execute");
    let found = findings(dir.path(), &["M202"]);
    assert_eq!(
        found,
        [(
            "M202".to_string(),
            30,
            "`trace` that fails `as_bool` silently becomes `false`".to_string()
        )]
    );
}

const RAW_JSON_TOOLS: &str = r####"use serde_json::Value;

fn list_tools() -> Value {
    serde_json::from_str(
        r###"[
  {
    "name": "vault.export",
    "description": "Export the vault",
    "inputSchema": {"type": "object", "properties": {"dir": {"type": "string"}}}
  },
  {
    "name": "vault_import",
    "description": "Import a folder",
    "inputSchema": {"type": "object", "properties": {"dir": {"type": "string"}}}
  }
]"###,
    )
    .expect("the tool list is valid JSON")
}

pub fn handle(name: &str, args: Value) -> String {
    match name {
        "vault.export" => export(args),
        "vault_import" => import(args),
        _ => String::new(),
    }
}

fn export(args: Value) -> String {
    args["dir"].to_string()
}

fn import(args: Value) -> String {
    args["dir"].to_string()
}
"####;

#[test]
fn a_json_tool_list_in_a_raw_string_is_read_where_it_stands() {
    let dir = crate_with(&[("src/lib.rs", RAW_JSON_TOOLS)]);
    let tools = tools_json(dir.path());
    assert_eq!(tools.len(), 2, "{tools:#?}");
    let export = tool(&tools, "vault.export");
    assert_eq!(
        (
            export["line"].as_u64(),
            export["handler"]["function"].as_str()
        ),
        (Some(7), Some("export"))
    );
    let found = findings(dir.path(), &["N101"]);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].1, 7, "at the name inside the string");
}

const ID_REGISTRY: &str = r#"use schemars::{schema_for, JsonSchema};
use serde::Deserialize;
use serde_json::Value;

pub struct Spec {
    pub id: &'static str,
    pub summary: &'static str,
    pub schema: schemars::Schema,
}

#[derive(Deserialize, JsonSchema)]
pub struct DiskScanArgs {
    pub path: String,
    pub depth: Option<u32>,
}

#[derive(Deserialize, JsonSchema)]
pub struct NetPingArgs {
    pub host: String,
}

pub fn registry() -> Vec<Spec> {
    vec![
        Spec { id: "disk_scan", summary: "Sizes of a directory tree", schema: schema_for!(DiskScanArgs) },
        Spec { id: "net_ping", summary: "Ping a host", schema: schema_for!(NetPingArgs) },
    ]
}

pub struct Call {
    pub id: String,
    pub args: Value,
}

pub fn execute(call: &Call) -> Result<String, String> {
    match call.id.as_str() {
        "disk_scan" => disk_scan(serde_json::from_value(call.args.clone()).map_err(|e| e.to_string())?),
        "net_ping" => net_ping(serde_json::from_value(call.args.clone()).map_err(|e| e.to_string())?),
        other => Err(format!("unknown tool {other}")),
    }
}

fn disk_scan(a: DiskScanArgs) -> Result<String, String> {
    Ok(format!("{} {:?}", a.path, a.depth))
}

fn net_ping(a: NetPingArgs) -> Result<String, String> {
    Ok(a.host)
}
"#;

#[test]
fn a_registry_keyed_by_id_with_schema_for_is_read_and_linked() {
    let dir = crate_with(&[("src/lib.rs", ID_REGISTRY)]);
    let tools = tools_json(dir.path());
    assert_eq!(tools.len(), 2, "{tools:#?}");
    let scan = tool(&tools, "disk_scan");
    assert_eq!(scan["description"], "Sizes of a directory tree");
    assert_eq!(scan["handler"]["function"], "disk_scan");
    assert_eq!(scan["required"], serde_json::json!(["path"]));
    assert_eq!(tool(&tools, "net_ping")["handler"]["function"], "net_ping");
    // The arguments are the schema's type, taken by the handler: a
    // misspelled optional `depth` is dropped (and `net_ping`'s all-required
    // `NetPingArgs` drops extra keys: a note).
    let found = findings(dir.path(), &["M102"]);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(found[0].2.contains("`DiskScanArgs`"), "{found:#?}");
    assert!(found[1].2.contains("`NetPingArgs`"), "{found:#?}");
}

const DISPATCH_ONLY: &str = r#"use serde_json::Value;

pub mod ops {
    pub mod disk {
        use serde_json::Value;
        pub fn scan(args: &Value) -> String {
            args["path"].as_str().unwrap_or(".").to_string()
        }
        pub fn clean(args: &Value) -> String {
            args["path"].as_str().unwrap_or(".").to_string()
        }
    }
}

/// The tools are declared in the agent's JSON manifest, in another
/// repository; this crate only runs them.
pub fn run_tool(tool: &str, args: &Value) -> Result<String, String> {
    match tool {
        "disk.scan" => Ok(ops::disk::scan(args)),
        "disk.clean" => Ok(ops::disk::clean(args)),
        other => Err(format!("no such tool {other}")),
    }
}

/// Not a dispatch: labels for a log, keyed by kind.
pub fn label(kind: &str, args: &Value) -> String {
    match kind {
        "disk.scan" => format!("scan {}", args["path"]),
        _ => String::new(),
    }
}
"#;

#[test]
fn tools_only_dispatched_here_are_listed_with_handlers_and_their_names_not_judged() {
    let dir = crate_with(&[("src/lib.rs", DISPATCH_ONLY)]);
    let tools = tools_json(dir.path());
    assert_eq!(tools.len(), 2, "{tools:#?}");
    let scan = tool(&tools, "disk.scan");
    assert_eq!(scan["format"], "dispatch");
    assert_eq!(scan["handler"]["function"], "scan");
    assert_eq!(tool(&tools, "disk.clean")["handler"]["function"], "clean");
    // Declared elsewhere: no N101 on the dotted names, no S106.
    assert_eq!(findings(dir.path(), &["N", "S"]), Vec::new());
}

const BRIDGE_IDS: &str = r#"use serde_json::Value;

pub struct McpTool {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}

pub struct ToolSpec {
    pub id: String,
    pub description: String,
    pub parameters: Value,
}

pub fn tools_for_model(server: &str, tools: &[McpTool]) -> Vec<ToolSpec> {
    tools
        .iter()
        .map(|t| {
            let id = format!("{}:{}", server, t.name);
            ToolSpec {
                id: id.clone(),
                description: t.description.clone(),
                parameters: t.input_schema.clone(),
            }
        })
        .collect()
}
"#;

#[test]
fn a_bridge_building_server_colon_tool_ids_gets_n101_at_the_format_and_the_id_field() {
    let dir = crate_with(&[("src/lib.rs", BRIDGE_IDS)]);
    let out = super::util::bin()
        .current_dir(dir.path())
        .args([
            "scan",
            ".",
            "--no-config",
            "--format",
            "json",
            "--select",
            "N",
        ])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let found = v["findings"].as_array().unwrap();
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0]["code"], "N101");
    assert_eq!(found[0]["start"]["line"], 19, "at the format!");
    let labels = found[0]["labels"].as_array().unwrap();
    assert!(
        labels
            .iter()
            .any(|l| l["start"]["line"] == 21 && l["message"] == "used as the tool name here"),
        "{labels:#?}"
    );
}

#[test]
fn the_same_bridge_through_a_sanitiser_gets_no_n101() {
    let sanitised = BRIDGE_IDS
        .replace(
            "let id = format!(\"{}:{}\", server, t.name);",
            "let id = sanitize(&format!(\"{}:{}\", server, t.name));",
        )
        .replace(
            "pub fn tools_for_model(",
            "fn sanitize(s: &str) -> String {\n    s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect()\n}\n\npub fn tools_for_model(",
        );
    assert!(sanitised.contains("sanitize(&format!"), "{sanitised}");
    let dir = crate_with(&[("src/lib.rs", &sanitised)]);
    assert_eq!(findings(dir.path(), &["N"]), Vec::new());
}

#[test]
fn a_toml_manifest_is_read_with_exact_positions() {
    let dir = super::util::write_tree(&[(
        "agent/tools.toml",
        "# Tools offered to the model\n\n[[tools]]\nname = \"fs.read\"\ndescription = \"Read a file\"\n\n[tools.input_schema]\ntype = \"object\"\nrequired = [\"path\"]\n\n[tools.input_schema.properties.path]\ntype = \"string\"\n",
    )]);
    let tools = tools_json(dir.path());
    assert_eq!(tools.len(), 1, "{tools:#?}");
    assert_eq!(tools[0]["required"], serde_json::json!(["path"]));
    let found = findings(dir.path(), &["N101"]);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].1, 4);
}

const HELPER_TOOL: &str = r#"use schemars::JsonSchema;
use serde_json::Value;

pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}

impl ToolSpec {
    pub fn for_args<Args: JsonSchema>(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            input_schema: schema_for_args::<Args>(),
        }
    }
}

pub fn schema_for_args<T: JsonSchema>() -> Value {
    serde_json::to_value(schemars::schema_for!(T)).unwrap()
}

pub trait Tool {
    fn spec(&self) -> ToolSpec;
    fn execute(&self, arguments: Value) -> Result<String, String>;
}
"#;

const HELPER_DEFINITIONS: &str = r#"use crate::tool::ToolSpec;
use super::{list_dir as list_dir_tool, read_file as read_file_tool};

pub(super) const READ_FILE: &str = "read_file";

pub(super) fn read_file() -> ToolSpec {
    ToolSpec::for_args::<read_file_tool::Arguments>(READ_FILE, "Read a text file.")
}

pub(super) fn list_dir() -> ToolSpec {
    ToolSpec::for_args::<list_dir_tool::Arguments>("read_file", "List a directory.")
}
"#;

const HELPER_READ_FILE: &str = r#"use serde::Deserialize;
use schemars::JsonSchema;
use serde_json::Value;
use crate::tool::{Tool, ToolSpec};
use super::{arguments, definitions};

#[derive(Deserialize, JsonSchema)]
pub(super) struct Arguments {
    path: String,
    max_lines: Option<usize>,
}

pub struct ReadFile;

impl Tool for ReadFile {
    fn spec(&self) -> ToolSpec {
        definitions::read_file()
    }

    fn execute(&self, arguments: Value) -> Result<String, String> {
        let arguments: Arguments = arguments::parse(arguments)?;
        Ok(format!("{} {:?}", arguments.path, arguments.max_lines))
    }
}
"#;

const HELPER_LIST_DIR: &str = r#"use serde::Deserialize;
use schemars::JsonSchema;
use serde_json::Value;
use crate::tool::{Tool, ToolSpec};
use super::{arguments, definitions};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct Arguments {
    dir: String,
}

pub struct ListDir;

impl Tool for ListDir {
    fn spec(&self) -> ToolSpec {
        definitions::list_dir()
    }

    fn execute(&self, arguments: Value) -> Result<String, String> {
        let arguments: Arguments = arguments::parse(arguments)?;
        Ok(arguments.dir)
    }
}
"#;

const HELPER_PREVIEW: &str = r#"use serde_json::Value;

/// What the approval card shows for a call: looks at the arguments, runs nothing.
pub enum CallPreview {
    Read { path: String },
    List { dir: String },
}

impl CallPreview {
    pub fn build(tool_name: &str, arguments: &Value) -> Option<Self> {
        match tool_name {
            "read_file" => Some(Self::Read { path: path_of(arguments)? }),
            "list_dir" => Some(Self::List { dir: arguments.get("dir")?.as_str()?.to_string() }),
            _ => None,
        }
    }
}

fn path_of(arguments: &Value) -> Option<String> {
    Some(arguments.get("path")?.as_str()?.to_string())
}
"#;

#[test]
fn a_tool_helper_called_for_each_tool_declares_one_tool_per_call() {
    let dir = crate_with(&[
        (
            "src/lib.rs",
            "pub mod tool;\npub mod tools;\npub mod preview;\n",
        ),
        ("src/tool.rs", HELPER_TOOL),
        ("src/preview.rs", HELPER_PREVIEW),
        (
            "src/tools/mod.rs",
            "mod arguments;\nmod definitions;\nmod list_dir;\nmod read_file;\n",
        ),
        (
            "src/tools/arguments.rs",
            "pub(super) fn parse<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> Result<T, String> {\n    serde_json::from_value(v).map_err(|e| e.to_string())\n}\n",
        ),
        ("src/tools/definitions.rs", HELPER_DEFINITIONS),
        ("src/tools/read_file.rs", HELPER_READ_FILE),
        ("src/tools/list_dir.rs", HELPER_LIST_DIR),
    ]);
    let tools = tools_json(dir.path());
    assert_eq!(
        tools.len(),
        2,
        "one tool per call of the helper: {tools:#?}"
    );
    for t in &tools {
        assert_eq!(t["name"], "read_file", "{tools:#?}");
        assert!(
            t["file"]
                .as_str()
                .unwrap()
                .ends_with("src/tools/definitions.rs"),
            "declared where the helper is called: {t:#?}"
        );
        // The impl whose `spec()` asks for it runs it, not the preview table.
        assert_eq!(t["handler"]["function"], "execute", "{t:#?}");
    }
    let params: Vec<&Value> = tools.iter().map(|t| &t["parameters"]).collect();
    assert!(
        params.contains(&&serde_json::json!(["path", "max_lines"])),
        "{params:#?}"
    );
    assert!(params.contains(&&serde_json::json!(["dir"])), "{params:#?}");
    // Two calls pass one name: two tools named `read_file`.
    let found = findings(dir.path(), &["N103", "M102"]);
    let codes: Vec<&str> = found.iter().map(|f| f.0.as_str()).collect();
    assert!(codes.contains(&"N103"), "{found:#?}");
    // The read_file arguments are parsed through the project's wrapper
    // and drop unknown keys; list_dir's deny them.
    let m102: Vec<_> = found.iter().filter(|f| f.0 == "M102").collect();
    assert_eq!(m102.len(), 1, "{found:#?}");
    assert!(m102[0].2.contains("`read_file`"), "{found:#?}");
}

const MODULE_TOOL: &str = r#"use serde_json::{json, Value};

pub struct Tool {
    pub name: &'static str,
    pub description: &'static str,
    pub input_schema: Value,
}

pub fn tool() -> Tool {
    Tool {
        name: "NAME",
        description: "A tool",
        input_schema: json!({"type": "object", "properties": {}}),
    }
}
"#;

#[test]
fn files_no_mod_declaration_reaches_are_not_compiled_and_not_analysed() {
    let named = |n: &str| MODULE_TOOL.replace("NAME", n);
    let dir = crate_with(&[
        (
            "src/lib.rs",
            "pub mod live;\npub mod nested {\n    pub mod inner;\n}\n#[path = \"moved/renamed.rs\"]\npub mod renamed;\n",
        ),
        ("src/live.rs", &named("live.tool")),
        ("src/nested/inner.rs", &named("inner.tool")),
        ("src/moved/renamed.rs", &named("renamed.tool")),
        // An old copy nobody declares: not compiled, its tool not served.
        ("src/old_tools.rs", &named("old.tool")),
        ("examples/demo.rs", &named("demo.tool")),
    ]);
    let mut names: Vec<String> = tools_json(dir.path())
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["demo.tool", "inner.tool", "live.tool", "renamed.tool"]
    );
    let out = super::util::bin()
        .current_dir(dir.path())
        .args(["scan", ".", "--no-config", "--format", "json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["summary"]["not_read"]["not_compiled"], 1,
        "{:#}",
        v["summary"]
    );
    let files: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    assert!(!files.iter().any(|f| f.contains("old_tools")), "{files:?}");
}

/// `register_handler("wait_agent", Arc::new(WaitHandlerV2))` where
/// `WaitHandlerV2` is `use ..::agents_v2::WaitHandler as WaitHandlerV2` and
/// that is `pub use wait::Handler as WaitHandler`: the registered name is a
/// reference tool handled by the `Handler` of `agents_v2/wait.rs`, not by
/// another module's `Handler`.
#[test]
fn a_handler_registered_under_renamed_imports_is_the_one_the_paths_name() {
    let tools = tools_json("tests/fixtures/M102/good-registered-renamed");
    let handlers: Vec<(&str, &str, &str)> = tools
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap(),
                t["format"].as_str().unwrap(),
                t["handler"]["file"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        handlers,
        [
            (
                "wait_agent",
                "dispatch",
                "tests/fixtures/M102/good-registered-renamed/src/handlers/agents_v2/wait.rs"
            ),
            (
                "wait_agent",
                "dispatch",
                "tests/fixtures/M102/good-registered-renamed/src/handlers/agents/wait.rs"
            ),
        ]
    );
}

/// `server.add_tool("list".to_string(), Some("..".to_string()), json!(..),
/// ListHandler { db })`: a positional tool whose name and description are
/// owned strings and whose handler is a type, run by its `call`.
#[test]
fn a_positional_tool_with_owned_strings_and_a_handler_type() {
    let lib = r#"use serde_json::{json, Value};

pub struct ListHandler {
    db: Vec<Value>,
}

impl ToolHandler for ListHandler {
    async fn call(&self, arguments: Value) -> Result<Value, String> {
        let limit = arguments.get("limit").and_then(|v| v.as_u64()).unwrap_or(10) as usize;
        Ok(json!(self.db.iter().take(limit).collect::<Vec<_>>()))
    }
}

pub async fn serve(server: &mut Server, db: Vec<Value>) {
    server.add_tool(
        "list".to_string(),
        Some("List the stored records".to_string()),
        json!({"type": "object", "properties": {"limit": {"type": "integer", "maximum": 100}}}),
        ListHandler { db },
    ).await;
}
"#;
    let dir = crate_with(&[("src/lib.rs", lib)]);
    let tools = tools_json(dir.path());
    let list = tool(&tools, "list");
    assert_eq!(list["description"], "List the stored records");
    assert_eq!(list["line"], 16);
    assert_eq!(list["column"], 9);
    assert_eq!(list["handler"]["function"], "call");
    assert_eq!(list["handler"]["line"], 8);
}

/// `json!({"tools": [tool("set_path", "..", object(..)), ..]})`: a
/// tool-building helper called for each tool inside a `json!` array (a
/// token tree, parsed again) declares one tool per call.
#[test]
fn a_helper_called_inside_a_json_array_declares_a_tool_per_call() {
    let lib = r#"use serde_json::{Value, json};

fn tool(name: &str, description: &str, input_schema: Value) -> Value {
    json!({"name": name, "description": description, "inputSchema": input_schema})
}

fn object(fields: &[(&str, Value)], required: &[&str]) -> Value {
    let properties: serde_json::Map<String, Value> =
        fields.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
    json!({"type": "object", "properties": properties, "required": required})
}

pub fn tools_list() -> Value {
    json!({
        "tools": [
            tool("set_path", "Set the project path", object(&[("path", json!({"type": "string"}))], &["path"])),
            tool("index.status", "Index statistics", object(&[], &[]))
        ]
    })
}
"#;
    let dir = crate_with(&[("src/lib.rs", lib)]);
    let tools = tools_json(dir.path());
    let names: Vec<(&str, u64)> = tools
        .iter()
        .map(|t| (t["name"].as_str().unwrap(), t["line"].as_u64().unwrap()))
        .collect();
    assert_eq!(names, [("set_path", 16), ("index.status", 17)]);
    assert_eq!(tool(&tools, "set_path")["format"], "mcp");
    // The helper's `description` parameter takes what each call passes.
    assert_eq!(
        tool(&tools, "set_path")["description"],
        "Set the project path"
    );
}

/// A tool whose name is only known at run time (`name: tool_name` from a
/// loop) but whose schema is written out stays in the inventory, shown as
/// the expression it comes from (`{tool_name}`): its schema is checked
/// (S102 here), its name is not judged.
#[test]
fn a_tool_named_at_run_time_keeps_its_schema_checked() {
    let lib = r#"use serde_json::{Value, json};

pub struct Tool {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}

pub fn plugin_tools(names: &[String]) -> Vec<Tool> {
    names
        .iter()
        .map(|tool_name| Tool {
            name: tool_name.clone(),
            description: "Run a plugin command".into(),
            input_schema: json!({"properties": {"args": {"type": "string"}}}),
        })
        .collect()
}
"#;
    let dir = crate_with(&[("src/lib.rs", lib)]);
    let tools = tools_json(dir.path());
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0]["name"], "{tool_name}");
    assert_eq!(tools[0]["name_is_template"], true);
    let found = super::util::scan(&[dir.path()], &["S102", "N101", "N104"], &[]).diagnostics;
    let codes: Vec<&str> = found.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["S102"], "{}", super::util::describe(&found));
}

/// A tool whose name comes from configuration is named as such in M102's
/// message, not as `{}`.
#[test]
fn m102_names_a_tool_named_at_run_time_in_words() {
    let lib = r#"use serde::Deserialize;
use serde_json::{Value, json};

pub struct ToolDefinition {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

#[derive(Deserialize)]
pub struct LookupArgs {
    pub term: String,
}

pub struct Lookup {
    tool_name: String,
}

impl Lookup {
    pub fn definition(&self) -> ToolDefinition {
        ToolDefinition {
            name: self.tool_name.clone(),
            description: "Look a term up in the glossary".into(),
            parameters: json!({
                "type": "object",
                "properties": {"term": {"type": "string"}},
                "required": ["term"]
            }),
        }
    }

    pub fn call(&self, args: Value) -> Result<String, String> {
        let args: LookupArgs = serde_json::from_value(args).map_err(|e| e.to_string())?;
        Ok(format!("{}: see page 3", args.term))
    }
}
"#;
    let dir = crate_with(&[("src/lib.rs", lib)]);
    let found = super::util::scan(&[dir.path()], &["M102"], &[]).diagnostics;
    let messages: Vec<&str> = found.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "`LookupArgs`, the arguments of a tool named at run time, accepts and drops unknown fields"
        ],
        "{}",
        super::util::describe(&found)
    );
}

/// A registry record whose `schema` holds a whole function declaration
/// (`{"name", "description", "parameters"}`) has its input schema in
/// `parameters` and its description beside it.
#[test]
fn a_schema_field_holding_a_function_declaration_is_read_through_parameters() {
    let lib = r#"use serde_json::{Value, json};

pub struct ToolRecord {
    pub name: String,
    pub version: String,
    pub schema: Value,
}

pub fn records() -> Vec<ToolRecord> {
    vec![ToolRecord {
        name: "get_weather".to_string(),
        version: "1.0".to_string(),
        schema: json!({
            "name": "get_weather",
            "description": "Current weather of a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"]
            }
        }),
    }]
}
"#;
    let dir = crate_with(&[("src/lib.rs", lib)]);
    let tools = tools_json(dir.path());
    assert_eq!(tools.len(), 1, "{tools:?}");
    assert_eq!(tools[0]["parameters"], serde_json::json!(["city"]));
    assert_eq!(tools[0]["description"], "Current weather of a city");
    let found = super::util::scan(&[dir.path()], &["S"], &[]).diagnostics;
    assert!(found.is_empty(), "{}", super::util::describe(&found));
}
