//! `shell`: runs a command in the workspace.

use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};

use crate::Tool;

const DEFAULT_TIMEOUT_SECS: u64 = 90;
const MAX_OUTPUT: usize = 30_000;

pub struct ShellTool;

#[async_trait]
impl Tool for ShellTool {
    fn name(&self) -> String {
        "shell".to_string()
    }

    fn description(&self) -> String {
        "Run a shell command in the workspace and return its output".to_string()
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The command line to run"},
                "timeout_seconds": {"type": "integer", "description": "Give up after this many seconds"},
                "workdir": {"type": "string", "description": "Directory to run in, relative to the workspace"}
            },
            "required": ["command"]
        })
    }

    async fn call(&self, args: Value) -> anyhow::Result<String> {
        let command = args
            .get("command")
            .and_then(|v| v.as_str())
            .ok_or_else(|| anyhow::anyhow!("`command` is required"))?;
        let timeout = args
            .get("TimeoutSeconds")
            .and_then(|v| v.as_u64())
            .unwrap_or(DEFAULT_TIMEOUT_SECS);
        let output = run(command, Duration::from_secs(timeout)).await?;
        let mut text = String::from_utf8_lossy(&output).into_owned();
        text.truncate(MAX_OUTPUT);
        Ok(text)
    }
}

async fn run(command: &str, timeout: Duration) -> anyhow::Result<Vec<u8>> {
    let child = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .output();
    let out = tokio::time::timeout(timeout, child).await??;
    Ok(out.stdout)
}
