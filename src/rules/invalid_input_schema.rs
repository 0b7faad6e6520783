//! S101 invalid-input-schema: the input schema (or MCP `outputSchema`) is
//! not valid JSON Schema for its dialect, or a `$ref` cannot be resolved
//! offline.

use super::{Context, Rule};
use crate::error::suggest;
use crate::model::{Diagnostic, SchemaKind, SchemaRole, SchemaView, Severity, ToolDef};
use crate::rules::invalid_tool_name::short;
use crate::schema::{Dialect, node_at, reaches_opaque, walk};
use crate::source::Span;
use crate::syntax::{Node, NodeKind};

pub struct InvalidInputSchema;

/// Enough to fix a broken schema; the rest would repeat the same mistake.
const MAX_ERRORS_PER_TOOL: usize = 10;

const TYPES: [&str; 7] = [
    "array", "boolean", "integer", "null", "number", "object", "string",
];

const WHY: &str = "providers validate the schema before the model sees any tool (Anthropic: \
                   `JSON schema is invalid. It must match JSON Schema draft 2020-12`), and MCP \
                   clients that validate drop the tool";

impl Rule for InvalidInputSchema {
    fn check_tool(&self, _cx: &Context, tool: &ToolDef, out: &mut Vec<Diagnostic>) {
        for view in tool.schemas() {
            // Gemini `parameters` is an OpenAPI subset; S105 checks it.
            if view.role == SchemaRole::Output || tool.schema_kind == SchemaKind::JsonSchema {
                check_schema(tool, &view, out);
            }
        }
    }
}

fn check_schema(tool: &ToolDef, view: &SchemaView, out: &mut Vec<Diagnostic>) {
    let schema = view.root;
    let noun = view.role.noun();
    let diag = |span: Span, pointer: &str| {
        Diagnostic::new("S101", Severity::Error, view.file, span).in_view(tool, view, pointer)
    };
    // A schema built by a call at run time (`_schema_for("…")` in a
    // Python dict) is unknown, not invalid.
    if matches!(schema.kind, NodeKind::Opaque(_)) {
        return;
    }
    if !matches!(schema.kind, NodeKind::Object(_) | NodeKind::Bool(_)) {
        out.push(
            diag(schema.span, "")
                .message(format!(
                    "{noun} of `{}` is {}, not a JSON Schema",
                    short(&tool.name.value),
                    kind_name(schema)
                ))
                .label("not a schema")
                .note(WHY)
                .help("use an object schema: `{\"type\": \"object\", \"properties\": {…}}`"),
        );
        return;
    }
    let mut non_finite = Vec::new();
    non_finite_numbers(schema, "", &mut non_finite);
    for (node, pointer) in non_finite {
        let NodeKind::Number(word) = &node.kind else {
            continue;
        };
        out.push(
                diag(node.span, &pointer)
                    .message(format!("`{word}` in the {noun} of `{}` is not a JSON value", short(&tool.name.value)))
                    .label("not JSON")
                    .note("Python's `json.dumps` writes `NaN` and `Infinity` for non-finite floats, but JSON has no such values: the provider's JSON parser, and every strict client, rejects the request or the whole tool list")
                    .help("leave the keyword out (an unbounded `maximum` or `default` needs none), or use a finite number; in Python, `json.dumps(.., allow_nan=False)` catches it"),
            );
    }
    let dialect = match Dialect::of(schema) {
        Ok(d) => d,
        Err(uri) => {
            let at = schema.get("$schema").map_or(schema.span, |n| n.span);
            out.push(
                    diag(at, "/$schema")
                        .message(format!("`$schema` names a dialect toolaudit cannot check: `{}`", short(&uri)))
                        .label("unknown dialect")
                        .note("MCP says implementations MUST report dialects they do not support; clients reject or ignore the schema")
                        .help("use `https://json-schema.org/draft/2020-12/schema` (MCP's default) or remove `$schema`"),
                );
            return;
        }
    };
    let value = schema.to_json();
    let meta = match dialect {
        Dialect::Draft4 => jsonschema::draft4::meta::validator(),
        Dialect::Draft6 => jsonschema::draft6::meta::validator(),
        Dialect::Draft7 => jsonschema::draft7::meta::validator(),
        Dialect::Draft201909 => jsonschema::draft201909::meta::validator(),
        Dialect::Draft202012 => jsonschema::draft202012::meta::validator(),
    };
    let mut errors = 0;
    for err in meta.iter_errors(&value).take(MAX_ERRORS_PER_TOOL) {
        errors += 1;
        let pointer = err.instance_path().as_str().to_string();
        if reaches_opaque(schema, &pointer) {
            continue; // a run-time value: unknown, not invalid
        }
        let node = node_at(schema, &pointer).unwrap_or(schema);
        if node.is_non_finite() {
            continue; // reported above, as what it is
        }
        let reason = match node.as_str().filter(|_| pointer.ends_with("/type")) {
            // `"type": "int"`: say which names exist instead of quoting `anyOf`.
            Some(t) => format!(
                "unknown type `{}`{}; types are {}",
                short(t),
                suggest(t, TYPES)
                    .map(|s| format!(" (did you mean `{s}`?)"))
                    .unwrap_or_default(),
                TYPES.join(", ")
            ),
            None => one_line(&err.to_string()),
        };
        out.push(
            diag(node.span, &pointer)
                .message(format!(
                    "{noun} of `{}` is not valid JSON Schema {}: {reason}",
                    short(&tool.name.value),
                    dialect.name(),
                ))
                .label(format!(
                    "invalid at `{}`",
                    if pointer.is_empty() { "/" } else { &pointer }
                ))
                .note(WHY)
                .help(format!(
                    "change this value so the schema validates against the {} meta-schema",
                    dialect.name()
                )),
        );
    }
    if errors > 0 {
        return;
    }
    let before = out.len();
    check_refs(tool, view, out);
    if out.len() > before {
        return;
    }
    if let Err(e) = jsonschema::options()
        .with_draft(dialect.draft())
        .build(&value)
    {
        out.push(
            diag(schema.span.start_only(), "")
                .message(format!(
                    "{noun} of `{}` cannot be compiled: {}",
                    short(&tool.name.value),
                    one_line(&e.to_string())
                ))
                .label("this schema")
                .note(WHY)
                .help("fix the schema so a JSON Schema validator can compile it"),
        );
    }
}

/// Every `$ref` must resolve inside the schema: toolaudit works offline and
/// so do most clients, which never fetch a remote schema.
fn check_refs(tool: &ToolDef, view: &SchemaView, out: &mut Vec<Diagnostic>) {
    let schema = view.root;
    walk(schema, &mut |sub| {
        let Some(r) = sub.node.get("$ref") else {
            return;
        };
        let Some(target) = r.as_str() else {
            return;
        };
        let pointer = format!("{}/$ref", sub.pointer);
        let d = Diagnostic::new("S101", Severity::Error, view.file, r.span)
            .in_view(tool, view, &pointer);
        match target.strip_prefix('#') {
            // `#` is the root; `#/…` a pointer; `#name` a plain-name anchor.
            Some(frag) if frag.is_empty() || !frag.starts_with('/') => {}
            Some(frag) => {
                if node_at(schema, frag).is_none() {
                    out.push(
                        d.message(format!("`$ref` `{}` points at nothing in this schema", short(target)))
                            .label("unresolved reference")
                            .note("a validator cannot compile the schema, and the model sees a parameter with no type")
                            .help("point the `$ref` at an existing definition, e.g. under `$defs`"),
                    );
                }
            }
            None => out.push(
                d.message(format!("remote `$ref` `{}` is not resolved", short(target)))
                    .label("remote reference")
                    .note("toolaudit does not fetch schemas, and neither do most clients and providers: the model sees a parameter with no type")
                    .help("inline the referenced schema under `$defs` and refer to it as `#/$defs/…`"),
            ),
        }
    });
}

fn kind_name(node: &Node) -> &'static str {
    match node.kind {
        NodeKind::Null => "`null`",
        NodeKind::Bool(_) => "a boolean",
        NodeKind::Number(_) => "a number",
        NodeKind::String(_) => "a string",
        NodeKind::Array(_) => "an array",
        NodeKind::Object(_) => "an object",
        NodeKind::Opaque(_) => "a value computed at run time",
    }
}

/// Validator messages can quote whole subschemas; keep them on one line.
fn one_line(s: &str) -> String {
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat,
    }
}

/// `NaN`, `Infinity`, `-Infinity` anywhere in a schema (values included),
/// with their JSON pointers.
fn non_finite_numbers<'n>(node: &'n Node, pointer: &str, out: &mut Vec<(&'n Node, String)>) {
    match &node.kind {
        _ if node.is_non_finite() => out.push((node, pointer.to_string())),
        NodeKind::Object(members) => {
            for m in members {
                non_finite_numbers(&m.value, &format!("{pointer}/{}", m.key), out);
            }
        }
        NodeKind::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                non_finite_numbers(v, &format!("{pointer}/{i}"), out);
            }
        }
        _ => {}
    }
}
