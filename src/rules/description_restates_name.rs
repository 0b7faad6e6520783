//! S108 description-restates-name: a tool description whose words are the
//! tool name's words and nothing else (`get_weather`: "Get weather.").

use super::{Context, Rule};
use crate::model::{Diagnostic, Severity, ToolDef};
use crate::rules::invalid_tool_name::short;

pub struct DescriptionRestatesName;

/// Words that carry nothing about what a tool does.
const FILLER: &[&str] = &[
    "a",
    "an",
    "the",
    "this",
    "that",
    "tool",
    "tools",
    "function",
    "method",
    "to",
    "for",
    "of",
    "and",
    "or",
    "mcp",
    "call",
    "calls",
    "use",
    "uses",
    "used",
    "it",
    "its",
    "is",
    "be",
    "will",
    "can",
    "lets",
    "you",
    "allows",
    "allow",
    "helper",
    "api",
    "endpoint",
    "operation",
    "action",
    "given",
    "specified",
    "provided",
    "with",
    "from",
    "by",
    "in",
    "on",
];

/// Lower-case words of `s`, split at punctuation and camelCase humps.
fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in s.chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && prev_lower && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            cur.extend(c.to_lowercase());
        } else {
            prev_lower = false;
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `files` and `file` are one word.
fn stem(w: &str) -> &str {
    w.strip_suffix("es")
        .filter(|s| s.ends_with(['s', 'x', 'h']))
        .or_else(|| w.strip_suffix('s').filter(|s| s.len() > 2))
        .unwrap_or(w)
}

/// The description says nothing its name does not: every word of it is a
/// word of the name or filler, and it is short.
pub(crate) fn restates(name: &str, description: &str) -> bool {
    let name_words: Vec<String> = words(name).iter().map(|w| stem(w).to_string()).collect();
    let desc = words(description);
    let content: Vec<&String> = desc
        .iter()
        .filter(|w| !FILLER.contains(&w.as_str()))
        .collect();
    !content.is_empty()
        && desc.len() <= name_words.len() + 3
        && content
            .iter()
            .all(|w| name_words.iter().any(|n| n == stem(w)))
}

impl Rule for DescriptionRestatesName {
    fn check_tool(&self, _cx: &Context, tool: &ToolDef, out: &mut Vec<Diagnostic>) {
        let Some(d) = &tool.description else {
            return;
        };
        // A name with holes (`{server}_search`) is not what the model sees.
        if !tool.name_holes.is_empty() || !restates(&tool.name.value, &d.value) {
            return;
        }
        let name = short(&tool.name.value);
        out.push(
            Diagnostic::new("S108", Severity::Warning, &tool.file, d.span)
                .for_tool_name(tool)
                .message(format!(
                    "description of `{name}` only restates its name: \"{}\"",
                    short(d.value.trim())
                ))
                .label("says nothing the name does not")
                .note("the model picks tools by their descriptions: one that repeats the name does not say what the tool does, when to call it rather than another, or what it returns")
                .help("say what the tool does and returns, when to use it, and what it needs (units, formats, limits)"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restating_and_not() {
        assert!(restates("get_weather", "Get weather"));
        assert!(restates("listFiles", "List the files."));
        assert!(restates("github__create_issue", "Create an issue"));
        assert!(restates("search", "Search tool"));
        assert!(!restates(
            "get_weather",
            "Get the weather forecast for a city"
        ));
        assert!(!restates("get_weather", ""));
        assert!(!restates("search", "Search the web"));
        assert!(!restates("read", "Read a file"));
    }
}
