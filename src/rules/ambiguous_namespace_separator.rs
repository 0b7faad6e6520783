//! N104 ambiguous-namespace-separator: a tool name that contains `__`, the
//! separator hosts put between server and tool names.

use super::{Context, Rule};
use crate::model::{Diagnostic, Severity, ToolDef, ToolFormat};
use crate::rules::invalid_tool_name::short;
use crate::source::Span;

pub struct AmbiguousNamespaceSeparator;

impl Rule for AmbiguousNamespaceSeparator {
    fn check_group(&self, _cx: &Context, tools: &[&ToolDef], out: &mut Vec<Diagnostic>) {
        // Server-side definitions only: the tools of a provider request or
        // of an agent's own code carry names a host has already qualified
        // (`weather__get_forecast`) on purpose.
        let tools: Vec<&ToolDef> = tools
            .iter()
            .copied()
            .filter(|t| {
                matches!(
                    t.format,
                    ToolFormat::Mcp
                        | ToolFormat::Rmcp
                        | ToolFormat::Fastmcp
                        | ToolFormat::Vscode
                        | ToolFormat::OpenaiMcpListTools
                ) && !t.name_is_template()
            })
            .collect();
        // A list in which every name has `__` was namespaced by an aggregator
        // (`github__create_issue`); there one separator is expected and only
        // a second one is ambiguous.
        let namespaced = tools.len() > 1 && tools.iter().all(|t| t.name.value.contains("__"));
        let allowed = usize::from(namespaced);
        for &tool in &tools {
            let name = &tool.name.value;
            let hits: Vec<usize> = separator_positions(name);
            if hits.len() <= allowed {
                continue;
            }
            let at = hits[allowed];
            // Keep an aggregator's namespace prefix; collapse the rest.
            let keep = if namespaced { hits[0] + 2 } else { 0 };
            let suggestion = format!("{}{}", &name[..keep], collapse_separators(&name[keep..]));
            let mut d = Diagnostic::new(
                "N104",
                Severity::Warning,
                &tool.name_file,
                substring_span(tool, at, 2),
            )
            .message(format!(
                "tool name `{}` contains `__`, the separator hosts put between server and tool names",
                short(name)
            ))
            .label("namespace separator inside the tool name")
            .note(
                "hosts such as Claude Code expose MCP tools as `mcp__<server>__<tool>`; with `__` \
                 inside the tool name the combined name cannot be split back unambiguously, so a \
                 call can be routed to the wrong server or tool, or fail",
            )
            .for_tool_name(tool);
            if namespaced {
                d = d.note("every name in this list already carries one `__` namespace prefix");
            }
            out.push(d.help(format!(
                "use a single `_` or `-` instead, e.g. `{suggestion}`"
            )));
        }
    }
}

/// Byte offsets of each non-overlapping `__` run start (`a___b` counts once).
fn separator_positions(name: &str) -> Vec<usize> {
    let bytes = name.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == b'_' && bytes[i + 1] == b'_' {
            out.push(i);
            while i < bytes.len() && bytes[i] == b'_' {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

fn collapse_separators(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if !(c == '_' && out.ends_with('_')) {
            out.push(c);
        }
    }
    out
}

/// The span of `len` bytes at `offset` inside the name, when the name is
/// written without escapes (plain or simply quoted); else the whole name.
pub(crate) fn substring_span(tool: &ToolDef, offset: usize, len: usize) -> Span {
    let span = tool.name.span;
    let raw = tool.name_file.slice(span);
    let name = tool.name.value.as_str();
    let inner = if raw == name {
        Some(span.start)
    } else if raw
        .strip_prefix(['"', '\''])
        .and_then(|r| r.strip_suffix(['"', '\'']))
        .is_some_and(|inner| inner == name)
    {
        Some(span.start + 1)
    } else {
        None
    };
    match inner {
        Some(start) => Span::new(start + offset, start + offset + len),
        None => span,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separators() {
        assert_eq!(separator_positions("a__b"), [1]);
        assert_eq!(separator_positions("a___b__c"), [1, 5]);
        assert_eq!(separator_positions("a_b"), Vec::<usize>::new());
        assert_eq!(collapse_separators("get__data"), "get_data");
    }
}
