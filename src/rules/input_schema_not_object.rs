//! S102 input-schema-not-object: the root of an input schema is not
//! `type: "object"`, or uses composition a target rejects at the root.

use super::{Context, Rule, join_and};
use crate::fix;
use crate::model::{
    Applicability, Diagnostic, Edit, Fix, SchemaKind, Severity, ToolDef, ToolFormat,
};
use crate::rules::invalid_tool_name::short;
use crate::source::Span;
use crate::syntax::Node;
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
    let Some(view) = tool.output_view() else {
        return;
    };
    let schema = view.root;
    let name = short(&tool.name.value);
    let found = match (&schema.kind, schema.get("type")) {
        (NodeKind::Object(_), Some(t)) if t.as_str() == Some("object") => return,
        (NodeKind::Object(_), Some(t)) => Some((
            t.span,
            "/type",
            match t.as_str() {
                // Derived from a Rust type: the span is the type, not a
                // string.
                Some(ty) if !view.file.slice(t.span).starts_with(['"', '\'']) => format!(
                    "has root `type` `\"{ty}\"` (derived from `{}`)",
                    view.file.slice(t.span)
                ),
                _ => format!("has root `type` {}", schema_text(view.file.slice(t.span))),
            },
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
                    .help(if schema.get("title").and_then(Node::as_str) == Some("AnyValue") && fix::Syntax::of(&tool.schema_file).is_none() {
                        // rmcp's `Parameters<serde_json::Value>`.
                        "`Parameters<serde_json::Value>` derives `{\"title\": \"AnyValue\"}`: take a struct that derives `JsonSchema`, or `Parameters<JsonObject>` (`\"type\": \"object\"`)"
                    } else {
                        r#"add `"type": "object"` to the root of the schema"#
                    }),
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
                        .help("move the alternatives into a property, or merge them into one object schema with optional properties")
                        .fix(merge_alternatives(tool, schema, kw)),
                );
        }
    }
}

/// Unsafe fix of a root `anyOf`/`oneOf`/`allOf` of plain object schemas:
/// their properties become properties of the root, required only when
/// every alternative requires them (every one for `allOf`), and the
/// keyword goes. The arguments keep their shape, so the handler still
/// reads them; what is lost is the check that they fit one alternative.
fn merge_alternatives(tool: &ToolDef, schema: &Node, kw: &str) -> Option<Fix> {
    let file = &tool.schema_file;
    let syntax = fix::Syntax::of(file)?;
    let text = &file.text;
    let compositions = ["anyOf", "oneOf", "allOf"];
    if compositions
        .iter()
        .filter(|k| schema.get(k).is_some())
        .count()
        != 1
        || schema.get("type").and_then(Node::as_str) != Some("object")
    {
        return None;
    }
    let branches = schema.get(kw)?.items()?;
    let root_props = schema.get("properties");
    let mut new_props: Vec<(&str, &Node)> = Vec::new();
    let mut per_branch: Vec<Vec<&str>> = Vec::new();
    for b in branches {
        let members = b.members()?;
        let plain = members.iter().all(|m| {
            matches!(
                m.key.as_str(),
                "type"
                    | "properties"
                    | "required"
                    | "description"
                    | "title"
                    | "additionalProperties"
            )
        });
        if !plain || b.get("type").is_some_and(|t| t.as_str() != Some("object")) {
            return None;
        }
        let required: Option<Vec<&str>> = b
            .get("required")
            .and_then(Node::items)
            .unwrap_or_default()
            .iter()
            .map(Node::as_str)
            .collect();
        per_branch.push(required?);
        for p in b
            .get("properties")
            .and_then(Node::members)
            .unwrap_or_default()
        {
            let raw = &text[p.value.span.range()];
            // A YAML block value cannot move to another indentation as is.
            if syntax == fix::Syntax::Yaml && raw.trim_end().contains('\n') && !raw.starts_with('{')
            {
                return None;
            }
            let known = root_props
                .and_then(|r| r.get(&p.key))
                .or_else(|| new_props.iter().find(|(k, _)| *k == p.key).map(|(_, v)| *v));
            match known {
                // Two different schemas for one key: no single object says both.
                Some(v) if v.to_json() != p.value.to_json() => return None,
                Some(_) => {}
                None => new_props.push((&p.key, &p.value)),
            }
        }
    }
    let mut required = crate::schema::required_names(schema);
    let before = required.len();
    let first = per_branch.first().cloned().unwrap_or_default();
    for name in per_branch.iter().flatten().chain(first.iter()) {
        let all = per_branch.iter().all(|r| r.contains(name));
        if (kw == "allOf" || all) && !required.contains(name) {
            required.push(name);
        }
    }
    let mut edits = vec![fix::remove_member(text, syntax, schema, kw)?];
    let raw = |n: &Node| text[n.span.range()].trim_end().to_string();
    match root_props {
        Some(props) => {
            for (k, v) in &new_props {
                edits.push(fix::insert_member(text, syntax, props, k, &raw(v))?);
            }
        }
        None if !new_props.is_empty() => {
            let inner: Vec<String> = new_props
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{}: {}",
                        serde_json::to_string(k).unwrap_or_default(),
                        raw(v)
                    )
                })
                .collect();
            edits.push(fix::insert_member(
                text,
                syntax,
                schema,
                "properties",
                &format!("{{{}}}", inner.join(", ")),
            )?);
        }
        None => {}
    }
    if required.len() > before {
        let list = serde_json::to_string(&required).ok()?;
        match schema.get("required") {
            Some(r) => edits.push(Edit {
                span: r.span,
                text: list,
            }),
            None => edits.push(fix::insert_member(text, syntax, schema, "required", &list)?),
        }
    }
    Some(Fix {
        title: format!("Merge the `{kw}` alternatives into the root object"),
        applicability: Applicability::Unsafe,
        edits,
        new_name: None,
    })
}

fn schema_text(raw: &str) -> String {
    let flat: String = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    format!("`{flat}`")
}
