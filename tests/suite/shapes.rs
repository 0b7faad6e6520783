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
