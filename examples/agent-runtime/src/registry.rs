//! Holds the tools, offers their definitions to the model, and runs the
//! calls it makes.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::Tool;

pub struct Registry {
    tools: BTreeMap<String, Box<dyn Tool>>,
}

/// A tool call as the provider returns it: arguments are a JSON string.
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

impl Registry {
    pub fn new() -> Self {
        Self { tools: BTreeMap::new() }
    }

    pub fn register(&mut self, tool: Box<dyn Tool>) {
        self.tools.insert(tool.name(), tool);
    }

    /// The `tools` array of a Chat Completions request.
    pub fn definitions(&self) -> Vec<Value> {
        self.tools
            .values()
            .map(|t| {
                json!({
                    "type": "function",
                    "function": {
                        "name": t.name(),
                        "description": t.description(),
                        "parameters": t.input_schema(),
                    }
                })
            })
            .collect()
    }

    /// Runs one call and returns the text for the tool-result message.
    pub async fn dispatch(&self, call: &ToolCall) -> String {
        let Some(tool) = self.tools.get(&call.name) else {
            return format!("error: unknown tool `{}`", call.name);
        };
        let args: Value = serde_json::from_str(&call.arguments).unwrap_or(json!({}));
        match tool.call(args).await {
            Ok(out) => out,
            Err(e) => format!("error: {e:#}"),
        }
    }
}
