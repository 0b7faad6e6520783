//! N103 duplicate-tool-name: two tools with the same name in one tool list.

use std::collections::HashMap;

use super::{Context, Rule};
use crate::model::{Diagnostic, Severity, ToolDef};
use crate::rules::invalid_tool_name::short;

pub struct DuplicateToolName;

impl Rule for DuplicateToolName {
    fn check_group(&self, _cx: &Context, tools: &[&ToolDef], out: &mut Vec<Diagnostic>) {
        // Every earlier tool of each name: one per platform may share it.
        let mut seen: HashMap<&str, Vec<&ToolDef>> = HashMap::new();
        for &tool in tools {
            // An empty name is no name (N101), not a shared one.
            if tool.name.value.is_empty() {
                continue;
            }
            let earlier_ones = seen.entry(tool.name.value.as_str()).or_default();
            // One name written once is one tool, however many declarations
            // take it from there (`add_tool(name, ..)` builds a `ToolInfo`
            // and a `Tool` from the same caller's literal).
            let same_text = |e: &ToolDef| {
                std::ptr::eq(e.name_file.as_ref(), tool.name_file.as_ref())
                    && e.name.span == tool.name.span
            };
            let found = earlier_ones
                .iter()
                .copied()
                .find(|e| e.coexists_with(tool) && !same_text(e));
            earlier_ones.push(tool);
            let Some(earlier) = found else {
                continue;
            };
            if tool.name_is_template() {
                continue;
            }
            let place = if std::ptr::eq(earlier.name_file.as_ref(), tool.name_file.as_ref()) {
                "this tool list".to_string()
            } else {
                format!("`{}`", earlier.name_file.display)
            };
            out.push(
                Diagnostic::new("N103", Severity::Error, &tool.name_file, tool.name.span)
                    .message(format!(
                        "tool name `{}` is already defined in {place}",
                        short(&tool.name.value)
                    ))
                    .label("defined again here")
                    .secondary(&earlier.name_file, earlier.name.span, "first defined here")
                    .note(if tool.format == crate::model::ToolFormat::Fastmcp {
                        "a FastMCP server keeps one registration of a name and drops the other \
                         with only a log warning (the MCP SDK keeps the first, the standalone \
                         fastmcp package the last): the other function is never called, and \
                         its schema and description are never shown"
                    } else {
                        "Anthropic rejects the whole request (`tools: Tool names must be unique.`); \
                         MCP clients keep one definition and silently drop the other, so the model \
                         calls a tool whose schema it was not shown"
                    })
                    .help("rename or remove one of the two definitions")
                    .for_tool_name(tool),
            );
        }
    }
}
