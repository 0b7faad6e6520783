//! N101 invalid-tool-name: a tool name that a selected target rejects.

use std::collections::BTreeMap;

use super::{Context, Rule, join_and};
use crate::extract::openapi;
use crate::model::{Applicability, Diagnostic, Fix, Severity, ToolDef, ToolFormat};
use crate::targets::Target;

pub struct InvalidToolName;

/// One thing wrong with a name, as a key that orders the message parts.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Problem {
    Empty,
    Char(char),
    First(char),
    TooLong(usize),
    LongerThanDocumented(usize, &'static str),
}

impl Rule for InvalidToolName {
    fn check_tool(&self, cx: &Context, tool: &ToolDef, out: &mut Vec<Diagnostic>) {
        check_name(cx, tool, out);
        // A name that may be one of several: each is judged where it is
        // written.
        for alt in &tool.name_alternatives {
            let mut t = tool.clone();
            t.name = alt.name.clone();
            t.name_file = alt.file.clone();
            t.name_holes = alt.holes.clone();
            t.name_alternatives = Vec::new();
            check_name(cx, &t, out);
        }
    }
}

fn check_name(cx: &Context, tool: &ToolDef, out: &mut Vec<Diagnostic>) {
    let name = &tool.name.value;
    if name.is_empty() && tool.format == ToolFormat::OpenApi {
        out.push(missing_operation_id(tool));
        return;
    }
    let len = name.chars().count();
    // A name built at run time (`{server}:{tool}`): only its literal
    // characters are known, and its length is not.
    let in_hole = |i: usize| tool.name_holes.iter().any(|&(a, b)| a <= i && i < b);
    let template = tool.name_is_template();
    // problem -> targets that reject it, and targets that only advise against it
    let mut problems: BTreeMap<Problem, Verdict> = BTreeMap::new();
    let mut add = |p, sev, target: &Target| {
        let v = problems.entry(p).or_default();
        if sev == Severity::Error {
            v.reject.push(target.id);
        } else {
            v.advise.push(target.id);
        }
    };
    for t in cx.targets {
        let rules = &t.names;
        if name.is_empty() {
            add(Problem::Empty, rules.level, t);
            continue;
        }
        let mut seen = String::new();
        for (_, c) in name
            .char_indices()
            .filter(|&(i, c)| !in_hole(i) && !rules.allows(c))
        {
            if !seen.contains(c) {
                seen.push(c);
                add(Problem::Char(c), rules.level, t);
            }
        }
        let first = name.chars().next().unwrap_or('_');
        if !in_hole(0) && rules.allows(first) && !rules.allows_first(first) {
            add(Problem::First(first), rules.level, t);
        }
        if template {
            continue;
        }
        if len > rules.max_len {
            add(Problem::TooLong(rules.max_len), rules.level, t);
        } else if let Some((limit, why)) = rules.warn_len.filter(|(l, _)| len > *l) {
            add(
                Problem::LongerThanDocumented(limit, why),
                Severity::Warning,
                t,
            );
        }
    }
    // An agent whose wire layer maps tool names to the provider's
    // characters (an escaper, a sanitiser in the sent `name` field) sends
    // none of these characters; length and emptiness still hold (escaping
    // makes a name longer).
    if tool.names_mapped {
        problems.retain(|p, _| !matches!(p, Problem::Char(_) | Problem::First(_)));
    }
    if problems.is_empty() {
        return;
    }
    // A hard length limit says all a documented one would.
    if problems.keys().any(|p| matches!(p, Problem::TooLong(_))) {
        problems.retain(|p, _| !matches!(p, Problem::LongerThanDocumented(..)));
    }
    let severity = if problems.values().any(|v| !v.reject.is_empty()) {
        Severity::Error
    } else {
        Severity::Warning
    };

    let mut parts = Vec::new();
    let empty = problems.contains_key(&Problem::Empty);
    // Characters with the same verdict are reported together.
    let mut char_groups: Vec<(Vec<char>, &Verdict)> = Vec::new();
    for (p, v) in &problems {
        if let Problem::Char(c) = p {
            match char_groups.iter_mut().find(|g| g.1 == v) {
                Some(g) => g.0.push(*c),
                None => char_groups.push((vec![*c], v)),
            }
        }
    }
    for (chars, v) in &char_groups {
        let shown: Vec<String> = chars.iter().map(|&c| show_char(c)).collect();
        parts.push(format!(
            "contains {} ({})",
            join_and(&shown),
            v.describe("rejected by {}", "outside the characters {} recommend{s}")
        ));
    }
    let mut lengths = Vec::new();
    for (p, v) in &problems {
        match p {
            Problem::First(c) => parts.push(format!(
                "starts with {} ({})",
                show_char(*c),
                v.describe("rejected by {}", "{} recommend{s} a letter or `_` first")
            )),
            Problem::TooLong(max) => lengths.push(v.describe(
                &format!("{{}} accept{{s}} at most {max}"),
                &format!("{{}} recommend{{s}} at most {max}"),
            )),
            Problem::LongerThanDocumented(limit, why) => {
                lengths.push(format!("over {limit} for {}: {why}", join_and(&v.advise)))
            }
            Problem::Empty | Problem::Char(_) => {}
        }
    }
    if !lengths.is_empty() {
        parts.push(format!("is {len} characters long ({})", lengths.join("; ")));
    }

    let mut rejecting: Vec<&str> = Vec::new();
    for t in cx.targets {
        if problems.values().any(|v| v.reject.contains(&t.id)) {
            rejecting.push(t.id);
        }
    }
    let label = if rejecting.is_empty() {
        let advising: Vec<&str> = cx
            .targets
            .iter()
            .map(|t| t.id)
            .filter(|id| problems.values().any(|v| v.advise.contains(id)))
            .collect();
        format!("not recommended by {}", advising.join(", "))
    } else {
        format!("rejected by {}", rejecting.join(", "))
    };
    // An MCP server's names reach providers through hosts; a provider
    // request's names reach them directly.
    let via_hosts = matches!(
        tool.format,
        ToolFormat::Mcp | ToolFormat::Vscode | ToolFormat::OpenaiMcpListTools | ToolFormat::Rmcp
    );
    let note = match (severity == Severity::Error, via_hosts) {
        (true, _) if tool.format == ToolFormat::OpenApi => format!(
            "importers that name the tool by its `operationId` (OpenAPI-to-MCP converters, agent \
             frameworks' OpenAPI toolkits) pass it on to {}, which answer HTTP 400 for every \
             request that offers it; others rename or skip the operation",
            join_and(&rejecting)
        ),
        (true, false) => "every request that offers this tool fails with HTTP 400, so the \
                 model loses all tools of that request, not only this one"
            .to_string(),
        (true, true) => format!(
            "hosts that pass this tool on to {} unchanged get HTTP 400 for every request \
                 that offers it, so the model loses all tools of that request; other hosts \
                 rename it or drop the tool or the whole server",
            join_and(&rejecting)
        ),
        (false, _) => "some hosts rename, cut or drop such names, so the model may call a \
                 name the server does not know"
            .to_string(),
    };
    let help = if template {
        let fixed: String = name
            .char_indices()
            .map(|(i, c)| {
                if in_hole(i) || cx.targets.iter().all(|t| t.names.allows(c)) {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        format!(
            "build the name as `{fixed}` (a separator every selected target accepts), and make sure the parts filled in at run time are valid too"
        )
    } else {
        match suggest_name(name, cx.targets) {
            Some(s) => format!("rename the tool to `{s}`, which every selected target accepts"),
            None => "give the tool a name of ASCII letters, digits, `_` and `-`".to_string(),
        }
    };
    // Unsafe: whoever calls the tool by its old name must follow. Only the
    // definition is renamed, and only to a name free in its list.
    let rename = (!template && tool.name_alternatives.is_empty() && tool.name_via.is_empty())
        .then(|| suggest_name(name, cx.targets))
        .flatten()
        .and_then(|s| {
            crate::fix::Syntax::of(&tool.name_file)?;
            Some(Fix {
                title: format!("Rename the tool to `{s}`"),
                applicability: Applicability::Unsafe,
                edits: vec![crate::fix::replace_scalar(
                    &tool.name_file.text,
                    tool.name.span,
                    &s,
                )?],
                new_name: Some(s),
            })
        });
    out.push(
        Diagnostic::new("N101", severity, &tool.name_file, tool.name.span)
            .message(if empty {
                "tool name is empty".to_string()
            } else if template {
                format!("tool name built as `{}` {}", short(name), parts.join("; "))
            } else {
                format!("tool name `{}` {}", short(name), parts.join("; "))
            })
            .label(label)
            .note(note)
            .help(help)
            .fix(rename)
            .for_tool_name(tool),
    );
}

/// An OpenAPI operation without `operationId`: the tool importers make of
/// it has no name.
fn missing_operation_id(tool: &ToolDef) -> Diagnostic {
    let op = openapi::operation_label(tool).unwrap_or_else(|| "operation".to_string());
    // `POST /a.create` -> `post_a_create`
    let (method, path) = op.split_once(' ').unwrap_or(("", &op));
    let mut suggestion = method.to_ascii_lowercase();
    for c in path.chars() {
        if c.is_ascii_alphanumeric() {
            suggestion.push(c);
        } else if !suggestion.is_empty() && !suggestion.ends_with('_') {
            suggestion.push('_');
        }
    }
    let suggestion: String = suggestion.trim_end_matches('_').chars().take(64).collect();
    let mut d = Diagnostic::new("N101", Severity::Warning, &tool.name_file, tool.name.span)
        .message(format!("operation `{op}` of an OpenAPI document has no `operationId`, so the tool made of it has no name"))
        .label("operation without `operationId`")
        .note(
            "importers name each tool by its `operationId`: ChatGPT Actions skip the operation \
             (`method post is missing operationId; skipping`), Amazon Bedrock refuses to create \
             the action group, and OpenAPI-to-MCP converters make a name of method and path \
             (`POST:/x`) that providers reject; the model never gets the tool, or gets it under \
             a name no one chose",
        )
        .help(format!(
            "add an `operationId` of ASCII letters, digits, `_` and `-`, e.g. `{suggestion}`"
        ));
    // The operation, so that baselines tell apart the many `get:` lines.
    d.pointer = Some(tool.pointer.clone());
    d
}

/// Which selected targets reject a problem, and which only advise against it.
#[derive(Default, PartialEq, Eq)]
struct Verdict {
    reject: Vec<&'static str>,
    advise: Vec<&'static str>,
}

impl Verdict {
    /// Fills `{}` with the targets and `{s}` with a verb ending that agrees
    /// with their number, e.g. "rejected by anthropic and openai; outside
    /// the characters mcp recommends".
    fn describe(&self, reject: &str, advise: &str) -> String {
        let fill = |template: &str, targets: &[&str]| {
            let s = if targets.len() == 1 { "s" } else { "" };
            template.replace("{}", &join_and(targets)).replace("{s}", s)
        };
        let mut out = Vec::new();
        if !self.reject.is_empty() {
            out.push(fill(reject, &self.reject));
        }
        if !self.advise.is_empty() {
            out.push(fill(advise, &self.advise));
        }
        out.join("; ")
    }
}

/// How a character is named in a message.
pub(crate) fn show_char(c: char) -> String {
    match c {
        ' ' => "a space".to_string(),
        '`' => "a backtick".to_string(),
        c if c.is_control() || c.is_whitespace() => format!("`{}`", c.escape_unicode()),
        c => format!("`{c}`"),
    }
}

/// A name shortened for messages; the span shows the whole of it.
pub(crate) fn short(name: &str) -> String {
    const MAX: usize = 80;
    // Control characters would break a one-line message; quotes are fine.
    let escaped: String = name
        .chars()
        .flat_map(|c| {
            let esc: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            esc
        })
        .collect();
    match escaped.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}…", &escaped[..i]),
        None => escaped,
    }
}

/// A name close to `name` that every target in `targets` accepts: each run
/// of rejected characters becomes one `_`, a rejected first character gets
/// a `_` in front, and the result is cut to the shortest limit.
pub(crate) fn suggest_name(name: &str, targets: &[&Target]) -> Option<String> {
    let allowed = |c: char| targets.iter().all(|t| t.names.allows(c));
    let mut out = String::new();
    let mut pending_sep = false;
    for c in name.chars() {
        if allowed(c) {
            // One `_` for a run of rejected characters, and none beside an
            // existing separator, so the suggestion never gains a `__`.
            if pending_sep && !out.is_empty() && !out.ends_with(['_', '-']) && c != '_' && c != '-'
            {
                out.push('_');
            }
            pending_sep = false;
            out.push(c);
        } else {
            pending_sep = true;
        }
    }
    let first = out.chars().next()?;
    if !targets.iter().all(|t| t.names.allows_first(first)) {
        out.insert(0, '_');
    }
    let limit = targets
        .iter()
        .map(|t| {
            t.names
                .warn_len
                .map_or(t.names.max_len, |(w, _)| w.min(t.names.max_len))
        })
        .min()
        .unwrap_or(64);
    if let Some((i, _)) = out.char_indices().nth(limit) {
        out.truncate(i);
        while out.ends_with(['_', '-']) && out.len() > 1 {
            out.pop();
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::targets;

    #[test]
    fn suggestions_are_valid_everywhere() {
        let all: Vec<_> = targets::TARGETS.iter().collect();
        assert_eq!(suggest_name("fs.list", &all).as_deref(), Some("fs_list"));
        assert_eq!(
            suggest_name("server:tool", &all).as_deref(),
            Some("server_tool")
        );
        assert_eq!(suggest_name("a: b", &all).as_deref(), Some("a_b"));
        assert_eq!(suggest_name(" search", &all).as_deref(), Some("search"));
        assert_eq!(
            suggest_name("1password", &all).as_deref(),
            Some("_1password")
        );
        assert_eq!(suggest_name("...", &all), None);
        let long = "x".repeat(70);
        assert_eq!(suggest_name(&long, &all).unwrap().len(), 64);
        let mcp = [targets::by_id("mcp").unwrap()];
        assert_eq!(suggest_name("fs.list", &mcp).as_deref(), Some("fs.list"));
    }

    #[test]
    fn shown_names_are_escaped_and_short() {
        assert_eq!(short("a\nb"), "a\\nb");
        assert_eq!(short(&"y".repeat(100)).chars().count(), 81);
        assert_eq!(show_char(' '), "a space");
        assert_eq!(show_char('\t'), "`\\u{9}`");
    }
}
