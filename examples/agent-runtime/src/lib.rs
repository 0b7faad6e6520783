//! A coding agent's tool registry: built-in tools implement [`Tool`], MCP
//! servers' tools are wrapped in [`tools::mcp::McpTool`], and every call the
//! model makes is dispatched by name.

pub mod registry;
pub mod tools;

use async_trait::async_trait;
use serde_json::Value;

/// One tool the model can call.
#[async_trait]
pub trait Tool: Send + Sync {
    /// The name the model calls the tool by.
    fn name(&self) -> String;
    fn description(&self) -> String;
    /// JSON Schema of the arguments.
    fn input_schema(&self) -> Value;
    /// Runs the tool with the model's arguments.
    async fn call(&self, args: Value) -> anyhow::Result<String>;
}
