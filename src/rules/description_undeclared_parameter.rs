//! S107 description-undeclared-parameter: a tool description that documents
//! a parameter the input schema does not declare.
//!
//! Descriptions are prose, so only three shapes count as naming a
//! parameter: an entry of an `Args:` / `Parameters:` section (docstrings
//! exported as descriptions), an identifier next to the word `parameter`
//! or `argument` (`the \`dry_run\` parameter`), and a quoted identifier
//! one typo away from a declared parameter (`\`file_paths\``). A word that
//! is a property anywhere in the tool's schemas, an enum value, or the
//! name of a tool of the same list is never reported.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;

use super::{Context, Rule};
use crate::error::suggest;
use crate::model::{Diagnostic, Severity, ToolDef};
use crate::rules::invalid_tool_name::short;
use crate::schema::walk;
use crate::source::Span;
use crate::syntax::{Node, NodeKind};

pub struct DescriptionUndeclaredParameter;

/// How a description names a parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum How {
    /// An entry of an `Args:` / `Parameters:` section.
    Listed,
    /// Next to the word `parameter` / `argument`.
    Named,
    /// Quoted, and one typo away from a declared parameter.
    Quoted,
}

#[derive(Debug, PartialEq, Eq)]
struct Mention {
    word: String,
    /// Byte offset of the word in the description.
    at: usize,
    how: How,
}

/// Section headers that open a list of parameters.
const ARGS_HEADERS: &[&str] = &[
    "args",
    "arguments",
    "parameters",
    "params",
    "input parameters",
    "keyword arguments",
    "kwargs",
];

/// Parameters a framework fills itself, never part of the schema.
const IMPLICIT: &[&str] = &["self", "cls", "ctx", "context", "kwargs", "args", "request"];

/// Words an `Args:` section line can start with that are not parameters.
const NOT_ENTRIES: &[&str] = &[
    "returns", "return", "raises", "yields", "example", "examples", "note", "notes", "default",
    "optional", "required", "type", "e", "i", "eg", "ie", "see", "usage", "output", "response",
];

static ENTRY: LazyLock<Regex> = LazyLock::new(|| {
    // `  name (str): …`, `- `name`: …`, `* **name** – …`, numpy `name : str`
    Regex::new(r"^(\s*)(?:[-*•]\s+)?[`'*]*([A-Za-z_][A-Za-z0-9_]*)[`'*]*\s*(?:\([^)]*\)\s*)?(?::|–|—|\s-\s)").unwrap()
});
static NAMED: LazyLock<Regex> = LazyLock::new(|| {
    let id = r"[`'](?P<q>[A-Za-z_][A-Za-z0-9_]*)[`']|(?P<u>[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]*)+)";
    let word = r"(?:parameter|param|argument|arg)s?";
    Regex::new(&format!(
        r"(?:{id})\s+{word}\b|\b{word}\s+(?:{})",
        id.replace("?P<q>", "?P<q2>").replace("?P<u>", "?P<u2>")
    ))
    .unwrap()
});
static QUOTED: LazyLock<Regex> = LazyLock::new(|| {
    // An identifier that looks like code: snake_case or camelCase.
    Regex::new(r"`([a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]*)+)`").unwrap()
});

/// Section headers whose text describes what the tool gives back or
/// shows, not what it takes: words quoted there are outputs.
const OUTPUT_HEADERS: &[&str] = &[
    "returns", "return", "yields", "raises", "response", "output", "outputs", "example",
    "examples", "result", "results",
];

/// Byte ranges of `Returns:`-like sections: from the header to the next
/// `Args:`-like header or the end.
fn output_sections(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut offset = 0;
    let mut open: Option<usize> = None;
    for line in text.split_inclusive('\n') {
        let head = line
            .trim()
            .trim_start_matches('#')
            .trim_matches(|c: char| c == '*' || c == '_' || c.is_whitespace())
            .trim_end_matches(':')
            .to_ascii_lowercase();
        if OUTPUT_HEADERS.contains(&head.as_str()) {
            open.get_or_insert(offset);
        } else if ARGS_HEADERS.contains(&head.as_str())
            && let Some(start) = open.take()
        {
            out.push((start, offset));
        }
        offset += line.len();
    }
    if let Some(start) = open {
        out.push((start, text.len()));
    }
    out
}

/// Every parameter the description names, in order.
fn mentions(text: &str, declared: &[&str]) -> Vec<Mention> {
    let mut out = Vec::new();
    listed(text, &mut out);
    // A quoted word inside the `Args:` entry of a declared parameter talks
    // about that parameter's values (`limit: .. objects carry
    // \`related_event_tickers\` arrays`), not about a parameter of its own.
    let entries: Vec<(usize, bool)> = out
        .iter()
        .map(|m| (m.at, declared.contains(&m.word.as_str())))
        .collect();
    let in_entry = |at: usize| {
        entries
            .iter()
            .rev()
            .find(|(e, _)| *e < at)
            .is_some_and(|(e, own)| *own && !text[*e..at].contains("\n\n"))
    };
    let outputs = output_sections(text);
    let in_output = |at: usize| outputs.iter().any(|(a, b)| (*a..*b).contains(&at));
    for c in NAMED.captures_iter(text) {
        let m = ["q", "u", "q2", "u2"]
            .iter()
            .find_map(|g| c.name(g))
            .unwrap();
        let before = &text[..c.get(0).unwrap().start()];
        if negated(before) || in_output(m.start()) {
            continue; // "(no `mark_read` param)": says it is not there
        }
        // "call_tool's output_filter parameter": another tool's (or
        // system's) parameter, named as such.
        if before.trim_end().ends_with("'s") || before.trim_end().ends_with("’s") {
            continue;
        }
        // "present_text   params: text, color": the parameters of a
        // command (a value of one), listed after it.
        if text[c.get(0).unwrap().end()..].starts_with(':') {
            continue;
        }
        out.push(Mention {
            word: m.as_str().to_string(),
            at: m.start(),
            how: How::Named,
        });
    }
    for c in QUOTED.captures_iter(text) {
        let m = c.get(1).unwrap();
        if !in_output(m.start())
            && !in_entry(m.start())
            && declared.iter().any(|d| typo_of(m.as_str(), d))
        {
            out.push(Mention {
                word: m.as_str().to_string(),
                at: m.start(),
                how: How::Quoted,
            });
        }
    }
    out.sort_by_key(|m| m.at);
    out.dedup_by(|a, b| a.at == b.at);
    out
}

/// The words just before a mention deny it: "no", "not", "without", …
fn negated(before: &str) -> bool {
    before
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .rev()
        .take(3)
        .any(|w| {
            matches!(
                w.to_ascii_lowercase().as_str(),
                "no" | "not" | "without" | "never" | "nor" | "removed" | "deprecated" | "instead"
            )
        })
}

/// `word` is `declared` misspelt: at most two edits apart once case and
/// separators are folded, and at most one edit per four characters
/// (`file_path` for `file_paths`, not `station_code` for `stationNames`).
fn typo_of(word: &str, declared: &str) -> bool {
    let (a, b) = (fold(word), fold(declared));
    let d = strsim::levenshtein(&a, &b);
    d > 0 && d <= 2 && d * 4 <= a.len().min(b.len())
}

/// Entries of `Args:` / `Parameters:` sections: the lines after the header
/// at the indentation of the first entry, up to a blank line or a line
/// that is not an entry at that indentation.
fn listed(text: &str, out: &mut Vec<Mention>) {
    let mut offset = 0;
    let mut section: Option<Option<usize>> = None; // entry indentation once known
    // Whether the section's entries are bulleted (`- name: ..`): a bulleted
    // line among plain entries is a key of the entry above it
    // (`configurations: a dict with the keys` / `- block_urls: ..`).
    let mut bulleted = false;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let body = line.trim_end();
        let header = body
            .trim()
            .trim_start_matches('#')
            .trim_matches(|c: char| c == '*' || c == '_' || c.is_whitespace())
            .trim_end_matches(':')
            .trim_matches(|c: char| c == '*' || c == '_')
            .to_ascii_lowercase();
        if ARGS_HEADERS.contains(&header.as_str()) {
            section = Some(None);
            continue;
        }
        let Some(indent) = section else {
            continue;
        };
        if body.trim().is_empty() {
            section = indent.is_none().then_some(None); // numpy: a blank before the first entry
            continue;
        }
        if body.trim().chars().all(|c| c == '-' || c == '=') {
            continue; // numpy's underline
        }
        let Some(c) = ENTRY.captures(body) else {
            if indent.is_none_or(|i| leading(body) <= i) {
                section = None;
            }
            continue;
        };
        let width = c.get(1).map_or(0, |m| m.as_str().len());
        let bullet = ["- ", "* ", "• "]
            .iter()
            .any(|b| body.trim_start().starts_with(b));
        match indent {
            None => {
                section = Some(Some(width));
                bulleted = bullet;
            }
            Some(i) if width == i && bullet && !bulleted => continue,
            Some(i) if width == i => {}
            Some(i) if width > i => continue, // a continuation line
            Some(_) => {
                section = None;
                continue;
            }
        }
        let word = c.get(2).unwrap();
        if NOT_ENTRIES.contains(&word.as_str().to_ascii_lowercase().as_str()) {
            section = None;
            continue;
        }
        out.push(Mention {
            word: word.as_str().to_string(),
            at: start + word.start(),
            how: How::Listed,
        });
    }
}

fn leading(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// Spelling-insensitive key: `dryRun`, `dry_run` and `dry-run` are one.
fn fold(word: &str) -> String {
    word.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

/// Every property name and string enum value in a schema, at any depth.
fn words_of(schema: &Node, out: &mut HashSet<String>) {
    walk(schema, &mut |sub| {
        if let Some(props) = sub.node.get("properties").and_then(Node::members) {
            for m in props {
                out.insert(fold(&m.key));
            }
        }
        for kw in ["enum", "const"] {
            match sub.node.get(kw).map(|n| &n.kind) {
                Some(NodeKind::Array(items)) => {
                    out.extend(items.iter().filter_map(Node::as_str).map(fold));
                }
                Some(NodeKind::String(s)) => {
                    out.insert(fold(s));
                }
                _ => {}
            }
        }
    });
}

/// The descriptions of the object and array properties of a schema, at
/// any depth: where keys inside them are documented.
fn container_descriptions<'n>(schema: &'n Node, out: &mut Vec<&'n str>) {
    walk(schema, &mut |sub| {
        let Some(props) = sub.node.get("properties").and_then(Node::members) else {
            return;
        };
        for m in props {
            let ty = m.value.get("type").and_then(Node::as_str);
            let container = matches!(ty, Some("object" | "array"))
                || m.value.get("items").is_some()
                || m.value.get("properties").is_some();
            if container && let Some(d) = m.value.get("description").and_then(Node::as_str) {
                out.push(d);
            }
        }
    });
}

/// The description's top-level parameters can be listed: an object schema
/// with `properties` (or closed), nothing computed at run time, no
/// `$ref` or composition at the root that could add more.
fn declared(tool: &ToolDef) -> Option<Vec<&str>> {
    let schema = tool.input_schema.as_ref()?;
    if schema.has_opaque() {
        return None;
    }
    if ["$ref", "allOf", "anyOf", "oneOf", "patternProperties"]
        .iter()
        .any(|k| schema.get(k).is_some())
    {
        return None;
    }
    let closed = schema
        .get("additionalProperties")
        .is_some_and(|a| a.as_bool() == Some(false));
    // A property of unknown shape (`{}`: a type toolaudit did not resolve,
    // such as a pydantic model imported from another module) may hold the
    // keys the description documents.
    let unknown = |p: &Node| p.members().is_some_and(<[_]>::is_empty);
    if schema
        .get("properties")
        .and_then(Node::members)
        .is_some_and(|props| props.iter().any(|m| unknown(&m.value)))
    {
        return None;
    }
    match schema.get("properties").and_then(Node::members) {
        Some(props) if !props.is_empty() || closed => {
            Some(props.iter().map(|m| m.key.as_str()).collect())
        }
        None if closed => Some(Vec::new()),
        _ => None,
    }
}

/// The span of the `nth` occurrence of `word` (as a whole identifier) in
/// the description as written, when the source spells it the same number
/// of times; else the description's start.
fn locate(raw: &str, base: Span, text: &str, at: usize, word: &str) -> Span {
    let find = |s: &str| -> Vec<usize> {
        s.match_indices(word)
            .filter(|(i, _)| {
                let before = s[..*i].chars().next_back();
                let after = s[i + word.len()..].chars().next();
                !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
            })
            .map(|(i, _)| i)
            .collect()
    };
    let in_text = find(text);
    let in_raw = find(raw);
    match in_text.iter().position(|i| *i == at) {
        Some(n) if in_raw.len() == in_text.len() => {
            let s = base.start + in_raw[n];
            Span::new(s, s + word.len())
        }
        _ => base.start_only(),
    }
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

impl Rule for DescriptionUndeclaredParameter {
    fn check_group(&self, _cx: &Context, tools: &[&ToolDef], out: &mut Vec<Diagnostic>) {
        let tool_names: HashSet<String> = tools.iter().map(|t| fold(&t.name.value)).collect();
        for tool in tools {
            check_tool(tool, &tool_names, out);
        }
    }
}

fn check_tool(tool: &ToolDef, tool_names: &HashSet<String>, out: &mut Vec<Diagnostic>) {
    let Some(desc) = &tool.description else {
        return;
    };
    let Some(declared) = declared(tool) else {
        return;
    };
    let mut known = HashSet::new();
    let mut container_docs = Vec::new();
    for view in tool.schemas() {
        words_of(view.root, &mut known);
        container_descriptions(view.root, &mut container_docs);
    }
    // A key the description of an object or array parameter places inside
    // it (`areas`: "include 'blur_strength' for each area"): quoted there,
    // or written as code (snake_case, camelCase), not a plain word such as
    // `data` or `from`.
    let code_like = |w: &str| w.contains('_') || w.chars().skip(1).any(|c| c.is_ascii_uppercase());
    let nested = |word: &str| {
        container_docs.iter().any(|d| {
            d.match_indices(word).any(|(i, _)| {
                let (before, after) = (&d[..i], &d[i + word.len()..]);
                let quoted = ["'", "\"", "`"]
                    .iter()
                    .any(|q| before.ends_with(q) && after.starts_with(q));
                let whole = !before.ends_with(is_ident) && !after.starts_with(is_ident);
                quoted || (whole && code_like(word))
            })
        })
    };
    // `Available: Isometric, Front, ..` at an entry's indentation: a
    // capitalised word is a label of the entry above it, not a parameter,
    // when no parameter is written so.
    let label = |w: &str| {
        let mut c = w.chars();
        c.next().is_some_and(|f| f.is_ascii_uppercase()) && c.all(|x| x.is_ascii_lowercase())
    };
    let labels = !declared.iter().any(|d| label(d));
    let mut seen = HashSet::new();
    for m in mentions(&desc.value, &declared) {
        let key = fold(&m.word);
        if (labels && m.how == How::Listed && label(&m.word))
            || known.contains(&key)
            || nested(&m.word)
            || tool_names.contains(&key)
            || IMPLICIT.contains(&m.word.to_ascii_lowercase().as_str())
            || !seen.insert(key)
        {
            continue;
        }
        let hint = suggest(&m.word, declared.iter().copied());
        // Without a near declared name, a bare word in the prose next to
        // "parameter" may be a word of another system (`the URL's
        // page_token parameter`): only a listed entry stands alone.
        if m.how == How::Named && hint.is_none() && declared.is_empty() {
            continue;
        }
        let raw = tool.file.slice(desc.span);
        let span = locate(raw, desc.span, &desc.value, m.at, &m.word);
        let how = match m.how {
            How::Listed => "lists",
            How::Named => "names",
            How::Quoted => "quotes",
        };
        let listed = if declared.is_empty() {
            "declares no parameters".to_string()
        } else {
            let mut shown: Vec<String> = declared
                .iter()
                .take(6)
                .map(|d| format!("`{}`", short(d)))
                .collect();
            if declared.len() > 6 {
                shown.push(format!("{} more", declared.len() - 6));
            }
            format!("declares {}", super::join_and(&shown))
        };
        let help = match &hint {
            Some(s) => format!(
                "did you mean `{s}`? Spell the parameter as the schema does, or declare `{}` in the input schema",
                short(&m.word)
            ),
            None => format!(
                "declare `{}` in the input schema, or remove it from the description",
                short(&m.word)
            ),
        };
        out.push(
            Diagnostic::new("S107", Severity::Warning, &tool.file, span)
                .for_tool_name(tool)
                .message(format!(
                    "description of `{}` {how} parameter `{}`, but the input schema {listed}",
                    short(&tool.name.value),
                    short(&m.word)
                ))
                .label("not in the input schema")
                .note("the model reads the description and the schema together: it sends the documented key, which validation rejects or the handler never reads, or it trusts the description over the schema for the key's meaning")
                .help(help),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str, declared: &[&str]) -> Vec<(String, How)> {
        mentions(text, declared)
            .into_iter()
            .map(|m| (m.word, m.how))
            .collect()
    }

    #[test]
    fn google_and_numpy_sections() {
        let text = "Read a file.\n\nArgs:\n    path (str): The file.\n        Example: a/b.txt\n    max_bytes (int): Cap.\n\nReturns:\n    text: the content";
        assert_eq!(
            words(text, &[]),
            [
                ("path".into(), How::Listed),
                ("max_bytes".into(), How::Listed)
            ]
        );
        let numpy = "Search.\n\nParameters\n----------\nquery : str\n    Text.\nlimit : int\n    At most.\n";
        assert_eq!(
            words(numpy, &[]),
            [("query".into(), How::Listed), ("limit".into(), How::Listed)]
        );
        let md = "## Parameters\n- `repo` (string, required): owner/name\n- `ref`: branch\n\nNotes: none";
        assert_eq!(
            words(md, &[]),
            [("repo".into(), How::Listed), ("ref".into(), How::Listed)]
        );
    }

    #[test]
    fn prose_is_not_a_section() {
        assert!(words("Returns: the list of files. Note: slow", &[]).is_empty());
        assert!(words("Parameters are validated by the server.", &[]).is_empty());
    }

    #[test]
    fn named_and_quoted() {
        assert_eq!(
            words("Set the `dry_run` parameter to preview.", &[]),
            [("dry_run".into(), How::Named)]
        );
        assert_eq!(
            words("Pass argument 'maxResults' to page.", &[]),
            [("maxResults".into(), How::Named)]
        );
        assert_eq!(
            words("Give `file_path` or `glob`.", &["file_paths"]),
            [("file_path".into(), How::Quoted)]
        );
        // A quoted identifier far from every parameter is prose.
        assert!(words("Returns `created_at` per row.", &["query"]).is_empty());
        assert!(
            words(
                "Prepares the `station_code` of other calls.",
                &["stationNames"]
            )
            .is_empty()
        );
        assert!(words("NEVER marks read (no mark_read param).", &[]).is_empty());
        // A field of the result, in the Returns section.
        let doc = "Get one.\n\nArgs:\n    field_condition_id: ID.\n\nReturns:\n    ``field_condition`` (one object).";
        assert_eq!(
            words(doc, &["field_condition_id"]),
            [("field_condition_id".into(), How::Listed)]
        );
        assert!(words("There is no `dry_run` parameter.", &[]).is_empty());
        // "the search parameter": an ordinary word, not an identifier.
        assert!(words("Use the search parameter wisely.", &[]).is_empty());
        // Another tool's parameter, named as such.
        assert!(
            words(
                "Filtering is done by call_tool's output_filter parameter.",
                &["build_id"]
            )
            .is_empty()
        );
        // A command's own parameters, listed after it.
        assert!(
            words(
                "Commands:\n  show_text   params: text, color\n  flip   present it",
                &["command", "params"]
            )
            .is_empty()
        );
        assert_eq!(
            words("Filtering is done by the output_filter parameter.", &[]),
            [("output_filter".into(), How::Named)]
        );
    }

    #[test]
    fn locate_maps_through_escapes() {
        let raw = r#""Args:\n  tiemout: seconds""#;
        let text = "Args:\n  tiemout: seconds";
        let at = text.find("tiemout").unwrap();
        let span = locate(raw, Span::new(10, 10 + raw.len()), text, at, "tiemout");
        assert_eq!(span.start, 10 + raw.find("tiemout").unwrap());
    }
}
