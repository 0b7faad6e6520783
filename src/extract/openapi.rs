//! Operations of OpenAPI documents, as the tools importers make of them.
//!
//! An OpenAPI document is a tool list wherever it is imported as one:
//! ChatGPT Actions, Amazon Bedrock agent action groups, Copilot Studio
//! connectors, OpenAPI-to-MCP converters and agent frameworks' OpenAPI
//! toolkits turn each operation into a tool named by its `operationId`. An
//! operation without one is skipped (ChatGPT: `method post is missing
//! operationId; skipping`), refused (Bedrock will not create the action
//! group) or named from its method and path (`POST:/attachments.create`),
//! which providers reject. So every operation is a tool whose name is its
//! `operationId`; only the name rules judge it (its parameters are OpenAPI
//! parameters, not an input schema, and its description is HTTP
//! documentation first).

use std::sync::Arc;

use crate::model::{SchemaKind, Spanned, ToolDef, ToolFormat};
use crate::source::SourceFile;
use crate::syntax::{Node, NodeKind, pointer_token};

const METHODS: &[&str] = &[
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// The operations of `doc` (document `index` of `file`) when it is an
/// OpenAPI 3 or Swagger 2 document: a root object with an `openapi` or
/// `swagger` version string and a `paths` object.
pub fn operations(file: &Arc<SourceFile>, index: usize, doc: &Node) -> Vec<ToolDef> {
    // `swagger: 2.0` unquoted in YAML is a number.
    let versioned = ["openapi", "swagger"].iter().any(|k| {
        doc.get(k)
            .is_some_and(|v| matches!(v.kind, NodeKind::String(_) | NodeKind::Number(_)))
    });
    let Some(paths) = doc.get("paths").and_then(Node::members) else {
        return Vec::new();
    };
    if !versioned {
        return Vec::new();
    }
    let group = format!("{}#{}:openapi", file.display, index);
    let mut out = Vec::new();
    for path in paths {
        let Some(item) = path.value.members() else {
            continue;
        };
        for op in item {
            if !METHODS.contains(&op.key.as_str()) || !op.value.is_object() {
                continue;
            }
            let pointer = format!("/paths/{}/{}", pointer_token(&path.key), op.key);
            // Without an `operationId` the tool has no name: the empty name
            // is reported at the method, which is where one is missing.
            // A `null` (or empty) id is none; a number is judged as the
            // text importers would make of it.
            let name = match op.value.get("operationId") {
                Some(id) if !matches!(id.kind, NodeKind::Null) => Spanned {
                    value: match id.as_str() {
                        Some(s) => s.to_string(),
                        None => file.slice(id.span).trim().to_string(),
                    },
                    span: id.span,
                },
                _ => Spanned {
                    value: String::new(),
                    span: op.key_span,
                },
            };
            let description = ["summary", "description"]
                .iter()
                .filter_map(|k| op.value.get(k))
                .find_map(|n| {
                    n.as_str().map(|s| Spanned {
                        value: s.to_string(),
                        span: n.span,
                    })
                });
            out.push(ToolDef {
                name,
                name_file: Arc::clone(file),
                name_holes: Vec::new(),
                name_via: Vec::new(),
                name_alternatives: Vec::new(),
                description,
                description_dynamic: false,
                input_schema: None,
                schema_file: Arc::clone(file),
                schema_derived: false,
                handler: None,
                cfg: None,
                intake: None,
                needs_import: None,
                branch: None,
                bound_before: None,
                literal_list: None,
                names_mapped: false,
                strict: None,
                extras: None,
                format: ToolFormat::OpenApi,
                file: Arc::clone(file),
                // From the method, which is where a missing name is reported.
                span: crate::source::Span::new(op.key_span.start, op.value.span.end),
                name_pointer: format!("{pointer}/operationId"),
                pointer,
                schema_pointer: String::new(),
                schema_kind: SchemaKind::JsonSchema,
                group: group.clone(),
            });
        }
    }
    out
}

/// `POST /attachments.create`: how an operation is shown in messages.
pub fn operation_label(tool: &ToolDef) -> Option<String> {
    let rest = tool.pointer.strip_prefix("/paths/")?;
    let (path, method) = rest.rsplit_once('/')?;
    let path = crate::syntax::pointer_key(path);
    Some(format!("{} {path}", method.to_uppercase()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::{json, yaml};

    fn ops(name: &str, text: &str) -> Vec<ToolDef> {
        let file = Arc::new(SourceFile::new(name.into(), name.into(), text.to_string()));
        let docs: Vec<Node> = if name.ends_with(".json") {
            json::parse(text).unwrap().into_iter().collect()
        } else {
            yaml::parse(text).unwrap()
        };
        docs.iter()
            .enumerate()
            .flat_map(|(i, d)| operations(&file, i, d))
            .collect()
    }

    #[test]
    fn every_operation_is_a_tool_named_by_its_operation_id() {
        let tools = ops(
            "spec.yaml",
            "openapi: 3.0.1\npaths:\n  /a.create:\n    parameters: []\n    post:\n      operationId: aCreate\n      summary: Create an a\n    get:\n      description: List\n",
        );
        let got: Vec<(String, Option<String>, String)> = tools
            .iter()
            .map(|t| {
                (
                    t.name.value.clone(),
                    operation_label(t),
                    t.description.as_ref().unwrap().value.clone(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "aCreate".into(),
                    Some("POST /a.create".into()),
                    "Create an a".into()
                ),
                (String::new(), Some("GET /a.create".into()), "List".into()),
            ]
        );
        // The missing name is reported where the method is written.
        assert_eq!(tools[1].file.line_col(tools[1].name.span.start).line, 8);
    }

    #[test]
    fn null_ids_are_missing_and_other_ids_are_judged_as_written() {
        let tools = ops(
            "spec.yaml",
            "swagger: 2.0\npaths:\n  /a:\n    get:\n      operationId: null\n    put:\n      operationId: 123\n    post:\n      operationId:\n",
        );
        let names: Vec<&str> = tools.iter().map(|t| t.name.value.as_str()).collect();
        // `swagger: 2.0` unquoted is a number, and still a version.
        assert_eq!(names, ["", "123", ""]);
    }

    #[test]
    fn documents_without_a_version_or_paths_are_not_read() {
        assert!(ops("a.json", r#"{"paths": {"/x": {"get": {}}}}"#).is_empty());
        assert!(ops("b.json", r#"{"openapi": "3.1.0", "components": {}}"#).is_empty());
        assert_eq!(
            ops(
                "c.json",
                r#"{"swagger": "2.0", "paths": {"/x": {"get": {}}}}"#
            )
            .len(),
            1
        );
    }
}
