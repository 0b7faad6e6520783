//! S105 target-schema-unsupported: schema keywords and shapes that a
//! selected target rejects or silently changes (provider-constraints.md §3).
//!
//! - Arrays without `items`: OpenAI (every mode) and Gemini reject them.
//! - Gemini `parameters` (an OpenAPI 3.0 subset): fields outside the subset,
//!   type arrays, non-string enums, `additionalProperties`.
//! - Anthropic: an `anyOf` branch that is itself an `anyOf`.
//! - OpenAI strict mode and Anthropic strict tool use: their JSON Schema
//!   subsets. They apply to tools that opt in with `strict: true`, or to
//!   every tool when `openai-strict` / `anthropic-strict` is a target.

use super::{Context, Rule, join_and};
use crate::fix;
use crate::model::{
    Applicability, Diagnostic, Edit, Fix, SchemaKind, Severity, ToolDef, ToolFormat,
};
use crate::rules::invalid_tool_name::short;
use crate::schema::{Dialect, Place, Sub, has_type, is_object_schema, walk};
use crate::source::Span;
use crate::syntax::{Node, NodeKind};

pub struct TargetSchemaUnsupported;

/// Fields of google-genai's `Schema` (the Gemini `parameters` subset).
const GEMINI_FIELDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "items",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "minProperties",
    "maxProperties",
    "properties",
    "required",
    "propertyOrdering",
    "anyOf",
    "default",
    "example",
    "additionalProperties",
    "defs",
    "ref",
    // Not a field of `Schema`, but no rejection is on record: an API error
    // path `…items.one_of[0]…` shows the request parsed it.
    "oneOf",
];
const OPENAI_STRICT_UNSUPPORTED: &[&str] = &[
    "allOf",
    "not",
    "dependentRequired",
    "dependentSchemas",
    "if",
    "then",
    "else",
];
const ANTHROPIC_STRICT_UNSUPPORTED: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "maxItems",
    "uniqueItems",
    "minContains",
    "maxContains",
    "minProperties",
    "maxProperties",
    "patternProperties",
];
const ANTHROPIC_STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];
const OPENAI_MAX_NESTING: usize = 10;
const OPENAI_MAX_PROPERTIES: usize = 5000;
const OPENAI_MAX_ENUM_VALUES: usize = 1000;

struct Checker<'a> {
    tool: &'a ToolDef,
    out: &'a mut Vec<Diagnostic>,
}

impl Checker<'_> {
    fn push(
        &mut self,
        span: Span,
        pointer: &str,
        message: String,
        label: &str,
        note: &str,
        help: &str,
    ) {
        self.out.push(
            Diagnostic::new("S105", Severity::Error, &self.tool.schema_file, span)
                .in_schema(self.tool, pointer)
                .message(message)
                .label(label)
                .note(note)
                .help(help),
        );
    }

    fn keyword_span(node: &Node, key: &str) -> Span {
        node.get_member(key)
            .map_or(node.span.start_only(), |m| m.key_span)
    }

    fn at(pointer: &str) -> String {
        if pointer.is_empty() {
            "the root".to_string()
        } else {
            format!("`{pointer}`")
        }
    }
}

impl Rule for TargetSchemaUnsupported {
    fn check_tool(&self, cx: &Context, tool: &ToolDef, out: &mut Vec<Diagnostic>) {
        check_output_dialect(cx, tool, out);
        check_output_booleans(cx, tool, out);
        let Some(root) = &tool.input_schema else {
            return;
        };
        if !root.is_object() {
            return;
        }
        let selected = |id: &str| cx.targets.iter().any(|t| t.id == id);
        let openai_format = tool.format.is_openai();
        let strict = tool.strict == Some(true);
        let openai_strict =
            selected("openai-strict") || (strict && openai_format && selected("openai"));
        let anthropic_strict = selected("anthropic-strict")
            || (strict && tool.format == ToolFormat::Anthropic && selected("anthropic"));
        let gemini_selected = selected("gemini") || selected("portable");
        let gemini = tool.schema_kind == SchemaKind::OpenApiSubset && gemini_selected;
        // A JSON Schema tool (MCP, Anthropic, OpenAI) reaches Gemini through
        // hosts that convert it: in the default set, the shapes conversion
        // cannot fix; when the user names `gemini`, everything its
        // `parameters` field rejects, as hosts that pass the schema on
        // unchanged send it.
        let json_schema = tool.schema_kind != SchemaKind::OpenApiSubset;
        let gemini_as_is = json_schema
            && cx
                .named_targets
                .iter()
                .any(|t| *t == "gemini" || *t == "portable");
        let gemini_converted = json_schema && gemini_selected && !gemini_as_is;
        let anthropic = selected("anthropic") || selected("anthropic-strict");
        let need_items: Vec<&str> = ["openai", "openai-strict", "gemini", "portable"]
            .into_iter()
            .filter(|id| selected(id))
            .collect();

        // MCP hosts build a validator from each property: Claude Code and
        // Desktop, VS Code and others fail on a `true` there.
        let boolean_breaks: Vec<&str> = ["gemini", "mcp", "claude-connectors", "portable"]
            .into_iter()
            .filter(|id| selected(id))
            .collect();

        // Anthropic validates every schema as 2020-12, whatever `$schema`
        // says: shapes only older dialects allow are refused.
        let dialect = Dialect::of(root).ok();
        let older: Vec<&str> = [
            "anthropic",
            "anthropic-strict",
            "claude-connectors",
            "mistral",
        ]
        .into_iter()
        .filter(|id| selected(id))
        .collect();
        let named = |id: &str| cx.named_targets.contains(&id);
        // OpenAI refuses an object without `properties` at the root, strict
        // or not; MCP allows it, so MCP tools are judged on it only when
        // `openai` is named.
        if (openai_format && selected("openai"))
            || (json_schema && (named("openai") || named("openai-strict")))
        {
            check_openai_properties(out, tool, root);
        }

        let mut c = Checker { tool, out };
        let mut properties = 0usize;
        let mut enum_values = 0usize;
        let mut deepest: Option<(usize, String, Span)> = None;
        walk(root, &mut |sub: &Sub| {
            let node = sub.node;
            if let NodeKind::Bool(b) = node.kind
                && matches!(sub.keyword, "properties" | "items" | "prefixItems")
                && !boolean_breaks.is_empty()
            {
                check_boolean_subschema(&mut c, node, sub, b, &boolean_breaks);
            }
            if node.members().is_none() {
                return;
            }
            let p = sub.pointer.as_str();
            if has_type(node, "array")
                && node.get("items").is_none()
                && node.get("prefixItems").is_none()
                && !need_items.is_empty()
            {
                c.push(
                    Checker::keyword_span(node, "type"),
                    p,
                    format!("array schema at {} has no `items`, which {} reject{}", Checker::at(p), join_and(&need_items), if need_items.len() == 1 { "s" } else { "" }),
                    "array without `items`",
                    "OpenAI answers `array schema missing items`, Gemini `items: missing field`, and VS Code drops the tool: the request fails before the model sees any tool",
                    "add `items` with the element schema, e.g. `\"items\": {\"type\": \"string\"}`",
                );
            }
            if json_schema && !older.is_empty() {
                check_older_dialect(&mut c, node, p, dialect, &older);
            }
            if anthropic && sub.place == Place::Alternative && sub.keyword == "anyOf" {
                check_anthropic_nested_any_of(&mut c, node, p);
            }
            if gemini {
                check_gemini(&mut c, node, p, Via::Native);
            }
            if gemini_as_is {
                check_gemini(&mut c, node, p, Via::AsIs);
            }
            if gemini_converted {
                check_gemini_converted(&mut c, node, p);
            }
            if openai_strict {
                check_openai_strict(&mut c, node, sub);
                if let Some(props) = node.get("properties").and_then(Node::members) {
                    properties += props.len();
                }
                if let Some(e) = node.get("enum").and_then(Node::items) {
                    enum_values += e.len();
                }
                let depth = sub.pointer.matches("/properties/").count()
                    + sub.pointer.matches("/items").count();
                if deepest.as_ref().is_none_or(|d| depth > d.0) {
                    deepest = Some((depth, sub.pointer.clone(), node.span.start_only()));
                }
            }
            if anthropic_strict {
                check_anthropic_strict(&mut c, node, p);
            }
        });
        if openai_strict {
            let strict_note = "OpenAI rejects the schema of a strict tool that exceeds the Structured Outputs limits";
            if let Some((depth, p, span)) = deepest.filter(|d| d.0 > OPENAI_MAX_NESTING) {
                c.push(span, &p, format!("input schema of `{}` nests {depth} levels deep; OpenAI strict mode allows {OPENAI_MAX_NESTING}", short(&tool.name.value)), "too deep", strict_note, "flatten the schema");
            }
            if properties > OPENAI_MAX_PROPERTIES {
                c.push(root.span.start_only(), "", format!("input schema of `{}` has {properties} properties; OpenAI strict mode allows {OPENAI_MAX_PROPERTIES}", short(&tool.name.value)), "too many properties", strict_note, "split the tool");
            }
            if enum_values > OPENAI_MAX_ENUM_VALUES {
                c.push(root.span.start_only(), "", format!("input schema of `{}` has {enum_values} enum values; OpenAI strict mode allows {OPENAI_MAX_ENUM_VALUES}", short(&tool.name.value)), "too many enum values", strict_note, "use a free string and validate it in the handler");
            }
        }
    }
}

/// An `anyOf` branch that is itself an `anyOf`: valid JSON Schema, but the
/// Anthropic Messages API refuses the tool list (observed 2026-08,
/// getsentry/sentry-mcp#1250; not in the provider's docs). The usual cause is a nullable union made
/// by wrapping a union: `anyOf: [{anyOf: [A, B]}, {type: null}]`.
fn check_anthropic_nested_any_of(c: &mut Checker, node: &Node, p: &str) {
    let Some(inner) = node.get_member("anyOf") else {
        return;
    };
    c.push(
        inner.key_span,
        &format!("{p}/anyOf"),
        format!(
            "`anyOf` nested directly in an `anyOf` branch at {}; Anthropic rejects the tool list",
            Checker::at(p)
        ),
        "`anyOf` inside `anyOf`",
        "the Anthropic Messages API answers 400 `invalid_request_error` for the whole request as soon as this tool is attached, so no tool of the list reaches the model (Claude Code fails every turn)",
        "flatten the union: list the inner branches in the outer `anyOf`, e.g. `anyOf: [A, B, {\"type\": \"null\"}]`",
    );
}

/// How a schema reaches Gemini's `parameters`.
#[derive(Clone, Copy, PartialEq)]
enum Via {
    /// Written as Gemini `parameters` (`functionDeclarations`).
    Native,
    /// A JSON Schema tool that a host passes on unchanged.
    AsIs,
}

/// `{"type": "object"}` without `properties` at the root: OpenAI answers
/// `Invalid schema for function '…': In context=(), object schema missing
/// properties.` with or without strict mode.
fn check_openai_properties(out: &mut Vec<Diagnostic>, tool: &ToolDef, root: &Node) {
    if !has_type(root, "object")
        || root.get("properties").is_some()
        || ["$ref", "anyOf", "oneOf", "allOf"]
            .iter()
            .any(|k| root.get(k).is_some())
        || root.has_opaque()
    {
        return;
    }
    let span = Checker::keyword_span(root, "type");
    let file = &tool.schema_file;
    let fix = fix::Syntax::of(file).and_then(|syntax| {
        Some(Fix {
            title: "Add `\"properties\": {}`".into(),
            applicability: Applicability::Safe,
            edits: vec![fix::insert_member(
                &file.text,
                syntax,
                root,
                "properties",
                "{}",
            )?],
            new_name: None,
        })
    });
    out.push(
        Diagnostic::new("S105", Severity::Error, file, span)
            .in_schema(tool, "")
            .message(format!("input schema of `{}` is an object without `properties`, which OpenAI rejects", short(&tool.name.value)))
            .label("no `properties`")
            .note("OpenAI answers `Invalid schema for function '…': In context=(), object schema missing properties.` with or without strict mode, so the request fails before the model sees any tool; MCP allows `{\"type\": \"object\"}` for a tool without arguments, and hosts that pass it on unchanged (LangChain's MCP adapters, fast-agent, Spring AI) fail")
            .help("add `\"properties\": {}` (with `\"additionalProperties\": false` for a tool that takes no arguments)")
            .fix(fix),
    );
}

/// Shapes only dialects before 2020-12 allow: a tuple `items: [..]` and a
/// boolean `exclusiveMinimum`/`exclusiveMaximum` (draft-04). Anthropic
/// validates tool schemas as 2020-12 whatever `$schema` says (`JSON schema
/// is invalid. It must match JSON Schema draft 2020-12`); Mistral refuses
/// the boolean bound (`Invalid tool schema`). Under 2020-12 itself S101
/// reports both.
fn check_older_dialect(
    c: &mut Checker,
    node: &Node,
    p: &str,
    dialect: Option<Dialect>,
    targets: &[&str],
) {
    let Some(d) = dialect.filter(|d| *d != Dialect::Draft202012) else {
        return;
    };
    let anthropic: Vec<&str> = targets
        .iter()
        .copied()
        .filter(|t| *t != "mistral")
        .collect();
    if let Some(items) = node
        .get_member("items")
        .filter(|m| matches!(m.value.kind, NodeKind::Array(_)))
        && !anthropic.is_empty()
    {
        c.push(
            items.key_span,
            &format!("{p}/items"),
            format!("tuple `items` (an array of schemas) at {}, which {} reject{}: they read every schema as 2020-12", Checker::at(p), join_and(&anthropic), if anthropic.len() == 1 { "s" } else { "" }),
            "`items` as an array",
            "`$schema` says an older dialect, but Anthropic validates tool schemas as JSON Schema 2020-12 and answers `JSON schema is invalid. It must match JSON Schema draft 2020-12`: the request fails",
            "use `prefixItems` for the tuple (and `items` for the rest), the 2020-12 spelling",
        );
    }
    if d != Dialect::Draft4 {
        return;
    }
    for kw in ["exclusiveMinimum", "exclusiveMaximum"] {
        if let Some(m) = node
            .get_member(kw)
            .filter(|m| matches!(m.value.kind, NodeKind::Bool(_)))
        {
            c.push(
                m.value.span,
                &format!("{p}/{kw}"),
                format!("boolean `{kw}` at {} (draft-04), which {} reject{}", Checker::at(p), join_and(targets), if targets.len() == 1 { "s" } else { "" }),
                "a number since draft-06",
                "Anthropic validates tool schemas as 2020-12 (`JSON schema is invalid. It must match JSON Schema draft 2020-12`) and Mistral answers `Invalid tool schema … is not valid under any of the given schemas`: the request fails",
                &format!("write the bound itself: `\"{kw}\": <number>` instead of `\"{}\": <number>, \"{kw}\": true`", if kw == "exclusiveMinimum" { "minimum" } else { "maximum" }),
            );
        }
    }
}

/// An MCP `outputSchema` that declares a dialect older than 2020-12:
/// Claude Code and Claude Desktop (TypeScript SDK clients before its fix)
/// refuse every call of the tool (`… has an invalid outputSchema: JSON
/// Schema declares an unsupported dialect`).
fn check_output_dialect(cx: &Context, tool: &ToolDef, out: &mut Vec<Diagnostic>) {
    if !cx
        .targets
        .iter()
        .any(|t| matches!(t.id, "mcp" | "claude-connectors"))
    {
        return;
    }
    let Some(view) = tool.output_view() else {
        return;
    };
    let Some(s) = view.root.get("$schema") else {
        return;
    };
    if !matches!(Dialect::of(view.root), Ok(d) if d != Dialect::Draft202012) {
        return;
    }
    out.push(
        Diagnostic::new("S105", Severity::Error, view.file, s.span)
            .in_view(tool, &view, "/$schema")
            .message(format!("output schema of `{}` declares `{}`; Claude Code and Claude Desktop validate results as 2020-12 only", short(&tool.name.value), short(s.as_str().unwrap_or("an older dialect"))))
            .label("unsupported dialect for Claude hosts")
            .note("the tool list loads and the tool looks registered, but every call fails in the client: `Tool '…' has an invalid outputSchema: JSON Schema declares an unsupported dialect … The default validator supports JSON Schema 2020-12 only` (zod-to-json-schema stamps draft-07)")
            .help("remove `$schema` from the output schema (2020-12 is MCP's default), or emit 2020-12"),
    );
}

/// `"properties": {"x": true}` in an MCP `outputSchema`: MCP hosts build a
/// validator from each tool's output schema while loading the tool list
/// (Claude Code converts it to Zod) and fail on a `true` there as on one in
/// the input schema, dropping every tool of the server. Gemini never sees
/// output schemas.
fn check_output_booleans(cx: &Context, tool: &ToolDef, out: &mut Vec<Diagnostic>) {
    if !cx
        .targets
        .iter()
        .any(|t| matches!(t.id, "mcp" | "claude-connectors" | "portable"))
    {
        return;
    }
    let Some(view) = tool.output_view() else {
        return;
    };
    walk(view.root, &mut |sub: &Sub| {
        let NodeKind::Bool(b) = sub.node.kind else {
            return;
        };
        if !matches!(sub.keyword, "properties" | "items" | "prefixItems") {
            return;
        }
        let p = sub.pointer.as_str();
        let derived = fix::Syntax::of(view.file).is_none();
        let (what, help) = boolean_what_help(sub, derived, b);
        out.push(
            Diagnostic::new("S105", Severity::Error, view.file, sub.node.span)
                .in_view(tool, &view, p)
                .message(format!("{what} of the output schema of `{}` has the boolean schema `{b}`; MCP hosts fail on it", short(&tool.name.value)))
                .label("boolean schema")
                .note("valid JSON Schema, but MCP hosts build a validator from the output schema while loading the tool list (Claude Code converts it to Zod) and fail on a `true` there, dropping every tool of the server")
                .help(help),
        );
    });
}

/// `"properties": {"x": true}`, `"items": true`: valid JSON Schema that
/// Gemini rejects (`Invalid value at '…properties[…].value' (Schema),
/// true`) and MCP hosts fail on (`Cannot use 'in' operator to search for
/// 'type' in true`), dropping every tool of the server.
fn check_boolean_subschema(c: &mut Checker, node: &Node, sub: &Sub, b: bool, targets: &[&str]) {
    let p = sub.pointer.as_str();
    let (what, help) = boolean_what_help(sub, c.tool.schema_derived, b);
    c.push(
        node.span,
        p,
        {
            let hosts = targets.iter().any(|t| matches!(*t, "mcp" | "claude-connectors" | "portable"));
            let gemini = targets.iter().any(|t| matches!(*t, "gemini" | "portable"));
            let who = match (hosts, gemini) {
                (true, true) => "MCP hosts and Gemini fail",
                (true, false) => "MCP hosts fail",
                _ => "Gemini rejects",
            };
            format!("{what} has the boolean schema `{b}`; {who} on it")
        },
        "boolean schema",
        "valid JSON Schema, but Claude Code, Claude Desktop and VS Code fail on it while reading the tool list (`Cannot use 'in' operator to search for 'type' in true`) and drop every tool of the server without telling the user; Gemini answers `Invalid value at '…properties[…].value' (Schema), true`",
        help,
    );
}

/// What a boolean subschema (`sub`, the boolean `b`) is, for the message,
/// and what to do, for the help: in a schema derived from types
/// (schemars) the fix is on the Rust side; in a written one, in the schema.
fn boolean_what_help(sub: &Sub, derived: bool, b: bool) -> (String, &'static str) {
    let p = sub.pointer.as_str();
    if sub.keyword == "properties" {
        (
            format!("property `{}`", short(p.rsplit('/').next().unwrap_or(p))),
            if derived {
                "give the field a doc comment (schemars then writes `{\"description\": …}`), or a schema of its own with `#[schemars(with = \"…\")]`"
            } else if b {
                "write the property's schema, or `{}` (with a `description`) for any value"
            } else {
                "remove the property (with `\"additionalProperties\": false` the key is refused), or write `{\"not\": {}}`"
            },
        )
    } else {
        (
            format!(
                "`{}` at {}",
                sub.keyword,
                Checker::at(p.rsplit_once('/').map_or("", |(a, _)| a))
            ),
            if derived {
                "give the elements a type of their own (`Vec<T>` with `T: JsonSchema`), or a schema with `#[schemars(with = \"…\")]`"
            } else {
                "write the element schema, e.g. `{\"type\": \"string\"}`, or `{}` for any value"
            },
        )
    }
}

fn check_gemini(c: &mut Checker, node: &Node, p: &str, via: Via) {
    let note = match via {
        Via::Native => {
            "the Gemini API rejects the whole request (`Unknown name \"…\": Cannot find field`), so the model gets no tools"
        }
        Via::AsIs => {
            "a host that passes this JSON Schema to Gemini as `parameters` unchanged gets the whole request rejected (`Invalid JSON payload received. Unknown name \"…\"`), so the model gets no tools; hosts that send `parametersJsonSchema` or clean the schema first are not affected (`--target gemini` checks the schema as sent unchanged)"
        }
    };
    for m in node.members().unwrap_or_default() {
        if !GEMINI_FIELDS.contains(&m.key.as_str()) && !m.key.starts_with("x-") {
            // A property *named* like a keyword is a name, not a keyword.
            c.push(
                m.key_span,
                &format!("{p}/{}", m.key),
                format!(
                    "`{}` at {} is not a field of the Gemini `parameters` schema",
                    short(&m.key),
                    Checker::at(p)
                ),
                "unknown to Gemini",
                note,
                match m.key.as_str() {
                    "$ref" | "$defs" | "definitions" => "inline the referenced definitions (schemars: `inline_subschemas = true`; zod-to-json-schema: `$refStrategy: \"none\"`), or send the schema as `parametersJsonSchema`",
                    "$schema" => "remove `$schema` (JSON Schema 2020-12 is MCP's default dialect), or send the schema as `parametersJsonSchema`",
                    _ => "remove it, or send the schema as `parametersJsonSchema` instead of `parameters`",
                },
            );
        }
    }
    if let Some(ap) = node.get_member("additionalProperties") {
        c.push(ap.key_span, &format!("{p}/additionalProperties"), format!("`additionalProperties` at {} is rejected by the Gemini API", Checker::at(p)), "rejected by the Gemini API", note, "remove it and reject unknown keys in the tool's handler (Vertex AI accepts it; the Gemini Developer API does not)");
    }
    if let Some(t) = node
        .get("type")
        .filter(|t| matches!(t.kind, NodeKind::Array(_)))
    {
        c.push(
            t.span,
            &format!("{p}/type"),
            format!(
                "type array at {} is not supported by Gemini `parameters`",
                Checker::at(p)
            ),
            "one type only",
            match via {
                Via::Native => "the Gemini API rejects the whole request (`Proto field is not repeating, cannot start list`), so the model gets no tools",
                Via::AsIs => "a host that passes this JSON Schema to Gemini as `parameters` unchanged gets the whole request rejected (`Proto field is not repeating, cannot start list`), so the model gets no tools; hosts that fold type arrays into `nullable`, send `parametersJsonSchema` or clean the schema first are not affected",
            },
            match via {
                Via::Native => "use one `type` and `nullable: true` for an optional value",
                Via::AsIs => "use one `type` and leave an optional value out of `required` (a missing key is the `null`)",
            },
        );
    }
    if let Some(e) = node.get("enum").and_then(Node::items) {
        let others: Vec<(usize, &Node)> = e
            .iter()
            .enumerate()
            .filter(|(_, v)| v.as_str().is_none())
            .collect();
        if let Some((i, first)) = others.first() {
            let shown: Vec<String> = others
                .iter()
                .map(|(_, v)| v.to_json().to_string())
                .collect();
            c.push(first.span, &format!("{p}/enum/{i}"), format!("enum at {} has values that are not strings ({}); Gemini enums are strings only", Checker::at(p), short(&shown.join(", "))), "not a string", "Gemini answers `function declaration enum only allowed for STRING type`", "use string values (`\"1\"`) and convert them in the handler");
        }
    }
}

/// What a JSON Schema tool carries to Gemini through a host that converts
/// its schema to Gemini's `parameters` (hosts fold a scalar `["string",
/// "null"]` into `nullable`, but not these):
/// - `items` beside a type array (`"type": ["array", "null"]`, what
///   schemars writes for an `Option<Vec<T>>`): Gemini accepts `items` only
///   on a single `ARRAY` type (BeaconBay/ck#106, sbroenne/mcp-server-excel#672:
///   `…items: field predicate failed: $type == Type.ARRAY`);
/// - `null` among the `enum` values of a nullable string: Gemini enums are
///   strings only (eric-tramel/moraine#369).
fn check_gemini_converted(c: &mut Checker, node: &Node, p: &str) {
    let note = "a host or agent that converts this schema to Gemini's `parameters` (several MCP hosts do; some fold type arrays first) gets HTTP 400 for the whole request, so no tool of the list reaches the model";
    if node.get("items").is_some()
        && let Some(t) = node.get("type")
        && let Some(types) = t.items()
        && types.iter().any(|x| x.as_str() == Some("array"))
    {
        c.push(
            t.span,
            &format!("{p}/type"),
            format!(
                "`items` at {} sits beside a type array; Gemini takes `items` only on the single type `array`",
                Checker::at(p)
            ),
            "type array with `items`",
            &format!("{note} (`…items: field predicate failed: $type == Type.ARRAY`)"),
            "make the type `\"array\"` alone and treat a missing key as an empty list (for an `Option<Vec<T>>` field derived by schemars: `#[schemars(with = \"Vec<T>\")]`)",
        );
    }
    if let Some(e) = node.get("enum").and_then(Node::items)
        && let Some((i, null)) = e
            .iter()
            .enumerate()
            .find(|(_, v)| matches!(v.kind, NodeKind::Null))
    {
        c.push(
            null.span,
            &format!("{p}/enum/{i}"),
            format!(
                "`null` among the enum values at {}; Gemini enums are strings only",
                Checker::at(p)
            ),
            "`null` in `enum`",
            &format!("{note} (`function declaration enum only allowed for STRING type`)"),
            "list only the strings and make the property optional, or use `anyOf: [{\"type\": \"string\", \"enum\": [..]}, {\"type\": \"null\"}]`",
        );
    }
}

fn check_openai_strict(c: &mut Checker, node: &Node, sub: &Sub) {
    let p = sub.pointer.as_str();
    let note = "with `strict: true` OpenAI rejects the schema (`Invalid schema for function …`) instead of guessing";
    for kw in OPENAI_STRICT_UNSUPPORTED {
        if let Some(m) = node.get_member(kw) {
            c.push(
                m.key_span,
                &format!("{p}/{kw}"),
                format!(
                    "`{kw}` at {} is not supported in OpenAI strict mode",
                    Checker::at(p)
                ),
                "unsupported in strict mode",
                note,
                "express the constraint with `anyOf` or plain properties, or drop `strict`",
            );
        }
    }
    if !is_object_schema(node) || sub.place == Place::Constraint {
        return;
    }
    match node.get("additionalProperties") {
        Some(ap) if ap.as_bool() == Some(false) => {}
        other => {
            let span = other.map_or_else(|| Checker::keyword_span(node, "type"), |n| n.span);
            c.push(span, p, format!("object at {} lacks `\"additionalProperties\": false`, which OpenAI strict mode requires", Checker::at(p)), "needs `\"additionalProperties\": false`", "OpenAI answers `'additionalProperties' is required to be supplied and to be false`", "add `\"additionalProperties\": false` to this object");
            // Safe: a strict tool with an open object is refused whole.
            let file = &c.tool.schema_file;
            let fix = fix::Syntax::of(file).and_then(|syntax| {
                let edit = match other {
                    Some(v) => Some(Edit {
                        span: v.span,
                        text: "false".into(),
                    }),
                    None => fix::insert_member(
                        &file.text,
                        syntax,
                        node,
                        "additionalProperties",
                        "false",
                    ),
                }?;
                Some(Fix {
                    title: "Add `\"additionalProperties\": false`".into(),
                    applicability: Applicability::Safe,
                    edits: vec![edit],
                    new_name: None,
                })
            });
            if let Some(d) = c.out.last_mut() {
                d.fix = fix;
            }
        }
    }
    let required = crate::schema::required_names(node);
    for m in node
        .get("properties")
        .and_then(Node::members)
        .unwrap_or_default()
    {
        if !required.contains(&m.key.as_str()) {
            c.push(m.key_span, &format!("{p}/properties/{}", m.key), format!("property `{}` is not in `required`; OpenAI strict mode requires every property to be listed there", short(&m.key)), "optional in a strict schema", "OpenAI answers `'required' is required to be supplied and to be an array including every key in properties`", "list it in `required` and make it optional with a type union with `null`, e.g. `\"type\": [\"string\", \"null\"]`");
        }
    }
}

fn check_anthropic_strict(c: &mut Checker, node: &Node, p: &str) {
    let note = "Anthropic answers 400 for a strict tool whose schema uses a feature strict tool use does not support";
    for kw in ANTHROPIC_STRICT_UNSUPPORTED {
        if let Some(m) = node.get_member(kw) {
            c.push(m.key_span, &format!("{p}/{kw}"), format!("`{kw}` at {} is not supported by Anthropic strict tool use", Checker::at(p)), "unsupported in strict tool use", note, "state the constraint in the description and enforce it in the handler, or drop `strict`");
        }
    }
    if let Some(n) = node
        .get("minItems")
        .filter(|n| !matches!(&n.kind, NodeKind::Number(v) if v == "0" || v == "1"))
    {
        c.push(
            n.span,
            &format!("{p}/minItems"),
            format!(
                "`minItems` other than 0 or 1 at {} is not supported by Anthropic strict tool use",
                Checker::at(p)
            ),
            "only 0 or 1",
            note,
            "use `minItems` 0 or 1 and enforce larger minimums in the handler",
        );
    }
    if let Some(ap) = node
        .get("additionalProperties")
        .filter(|ap| ap.as_bool() != Some(false))
    {
        c.push(ap.span, &format!("{p}/additionalProperties"), format!("`additionalProperties` other than `false` at {} is not supported by Anthropic strict tool use", Checker::at(p)), "only `false`", note, "set `\"additionalProperties\": false`");
    }
    if let Some(f) = node
        .get("format")
        .and_then(Node::as_str)
        .filter(|f| !ANTHROPIC_STRICT_FORMATS.contains(f))
    {
        let span = node.get("format").map_or(node.span, |n| n.span);
        c.push(
            span,
            &format!("{p}/format"),
            format!(
                "`format: \"{}\"` at {} is not supported by Anthropic strict tool use",
                short(f),
                Checker::at(p)
            ),
            "unsupported format",
            note,
            "remove the `format` and validate the value in the handler",
        );
    }
    if let Some(r) = node.get("$ref").and_then(Node::as_str) {
        let recursive = r == "#"
            || r.strip_prefix('#')
                .is_some_and(|frag| !frag.is_empty() && p.starts_with(frag));
        let external = !r.starts_with('#');
        if recursive || external {
            let span = node.get("$ref").map_or(node.span, |n| n.span);
            let what = if external {
                "an external `$ref`"
            } else {
                "a recursive `$ref`"
            };
            c.push(
                span,
                &format!("{p}/$ref"),
                format!(
                    "{what} at {} is not supported by Anthropic strict tool use",
                    Checker::at(p)
                ),
                "unsupported reference",
                note,
                "inline the schema, or drop `strict` for this tool",
            );
        }
    }
    if let Some(e) = node.get("enum").and_then(Node::items) {
        for (i, v) in e.iter().enumerate() {
            if matches!(v.kind, NodeKind::Object(_) | NodeKind::Array(_)) {
                c.push(
                    v.span,
                    &format!("{p}/enum/{i}"),
                    format!(
                        "complex `enum` value at {} is not supported by Anthropic strict tool use",
                        Checker::at(p)
                    ),
                    "objects and arrays are not allowed in `enum`",
                    note,
                    "use strings, numbers, booleans or null in `enum`",
                );
            }
        }
    }
}
