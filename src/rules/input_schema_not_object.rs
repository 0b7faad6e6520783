//! S102 input-schema-not-object: the root of an input schema is not
//! `type: "object"`, or uses composition a target rejects at the root.

use super::{Context, Rule, join_and};
use crate::model::{Diagnostic, SchemaKind, SchemaRole, Severity, ToolDef, ToolFormat};
use crate::rules::invalid_tool_name::short;
use crate::source::Span;
use crate::syntax::NodeKind;

pub struct InputSchemaNotObject;

/// Targets that reject `anyOf`/`oneOf`/`allOf` at the root of a schema.
const NO_ROOT_COMPOSITION: &[&str] = &[
    "anthropic",
    "anthropic-strict",
    "claude-connectors",
    "openai-strict",
    "portable",
];

impl Rule for InputSchemaNotObject {
    fn check_tool(&self, cx: &Context, tool: &ToolDef, out: &mut Vec<Diagnostic>) {
        check_input(cx, tool, out);
        check_output(tool, out);
    }
}

/// MCP's `outputSchema` is `{"type": "object", …}` in the specification's
/// own schema: `structuredContent` is always a JSON object.
fn check_output(tool: &ToolDef, out: &mut Vec<Diagnostic>) {
    let Some(view) = tool
        .schemas()
        .into_iter()
        .find(|v| v.role == SchemaRole::Output)
    else {
        return;
    };
    let schema = view.root;
    let name = short(&tool.name.value);
    let found = match (&schema.kind, schema.get("type")) {
        (NodeKind::Object(_), Some(t)) if t.as_str() == Some("object") => return,
        (NodeKind::Object(_), Some(t)) => Some((
            t.span,
            "/type",
            format!("has root `type` {}", schema_text(view.file.slice(t.span))),
        )),
        (NodeKind::Object(_), None) => {
            Some((schema.span.start_only(), "", "has no `type`".to_string()))
        }
        (NodeKind::Bool(b), _) => Some((schema.span, "", format!("is `{b}`"))),
        _ => None, // S101: not a schema at all
    };
    let Some((span, pointer, what)) = found else {
        return;
    };
    out.push(
        Diagnostic::new("S102", Severity::Error, view.file, span)
            .in_view(tool, &view, pointer)
            .message(format!("output schema of `{name}` {what}; MCP requires `\"type\": \"object\"`"))
            .label("must be an object schema")
            .note("the MCP specification types `outputSchema` as `{\"type\": \"object\", …}` because `structuredContent` is a JSON object; clients that validate the tool list reject the server's tools, and those that validate results reject every result")
            .help("make the root `\"type\": \"object\"` and put the result under a named property (`{\"type\": \"object\", \"properties\": {\"items\": {…}}}`)"),
    );
}

fn check_input(cx: &Context, tool: &ToolDef, out: &mut Vec<Diagnostic>) {
    let Some(schema) = &tool.input_schema else {
        return;
    };
    let name = short(&tool.name.value);
    let diag = |span: Span, pointer: &str| {
        Diagnostic::new("S102", Severity::Error, &tool.schema_file, span)
            .in_schema(tool, pointer)
            .note(
                "MCP requires the input schema to be an object schema, and Anthropic and \
                     OpenAI reject the request otherwise (`input_schema.type: Field required`, \
                     `schema must be a JSON Schema of 'type: \"object\"'`); tool arguments are \
                     always a JSON object",
            )
    };
    match &schema.kind {
        // VS Code's language-model tools write `{}` for "no input".
        NodeKind::Object(m) if m.is_empty() && tool.format == ToolFormat::Vscode => return,
        NodeKind::Object(_) => {}
        NodeKind::Bool(b) => {
            out.push(
                    diag(schema.span, "")
                        .message(format!("input schema of `{name}` is `{b}`, not an object schema"))
                        .label("boolean schema")
                        .help(r#"use `{"type": "object", "properties": {…}, "additionalProperties": false}`"#),
                );
            return;
        }
        // S101 reports values that are not schemas at all.
        _ => return,
    }
    let object_type = |s: &str| match tool.schema_kind {
        SchemaKind::JsonSchema => s == "object",
        SchemaKind::OpenApiSubset => s.eq_ignore_ascii_case("object"),
    };
    match schema.get("type") {
            None => out.push(
                diag(schema.span.start_only(), "")
                    .message(format!("input schema of `{name}` has no `type`; the root must be `\"type\": \"object\"`"))
                    .label("schema without `type`")
                    .help(r#"add `"type": "object"` to the root of the schema"#),
            ),
            Some(t) if t.as_str().is_some_and(object_type) => {}
            Some(t) => out.push(
                diag(t.span, "/type")
                    .message(format!(
                        "input schema of `{name}` has root `type` {}; it must be `\"object\"`",
                        match (t.as_str(), tool.schema_file.slice(t.span)) {
                            // Derived from code (`_input: ()` is `"null"`).
                            (Some(v), raw)
                                if !raw.trim_start().starts_with(['"', '\''])
                                    && raw.trim() != v =>
                                format!("`\"{v}\"` (from `{raw}`)"),
                            (_, raw) => schema_text(raw),
                        }
                    ))
                    .label("must be \"object\"")
                    .help(r#"make the root `"type": "object"` and put the value under a named property"#),
            ),
        }
    let rejecting: Vec<&str> = cx
        .targets
        .iter()
        .map(|t| t.id)
        .filter(|id| NO_ROOT_COMPOSITION.contains(id))
        .collect();
    if rejecting.is_empty() {
        return;
    }
    for kw in ["anyOf", "oneOf", "allOf"] {
        if let Some(m) = schema.get_member(kw) {
            out.push(
                    Diagnostic::new("S102", Severity::Error, &tool.schema_file, m.key_span)
                        .in_schema(tool, &format!("/{kw}"))
                        .message(format!(
                            "input schema of `{name}` uses `{kw}` at the root, which {} reject{}",
                            join_and(&rejecting),
                            if rejecting.len() == 1 { "s" } else { "" }
                        ))
                        .label("root composition")
                        .note("Anthropic answers `input_schema does not support oneOf, allOf, or anyOf at the top level` even when `type: \"object\"` is set, and Claude Code skips the server")
                        .help("move the alternatives into a property, or merge them into one object schema with optional properties"),
                );
        }
    }
}

fn schema_text(raw: &str) -> String {
    let flat: String = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    format!("`{flat}`")
}
