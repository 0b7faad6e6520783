//! Tool definitions in JSON and YAML documents, recognised by shape.
//!
//! File names say nothing reliable (`tools.json` may be anything and a
//! `tools/list` dump may be called `snapshot.json`), so every object in every
//! document is matched against the wire shapes of the MCP and provider APIs.
//! The shapes are strict enough that `package.json`, `tsconfig.json`, lock
//! files, MCP registry `server.json` entries and MCP resources (which have a
//! `name` but no schema) produce nothing.
//!
//! Subtrees that *mention* tools without defining them (`tool_choice`, the
//! `tool_calls` of a chat transcript) are not entered, and the inside of a
//! recognised tool is not searched for further tools.

use std::sync::Arc;

use crate::model::{SchemaKind, Spanned, ToolDef, ToolFormat};
use crate::source::SourceFile;
use crate::syntax::{Member, Node, NodeKind, pointer_token};

/// Keys whose values refer to tools by name or record calls to them.
const REFERENCE_KEYS: &[&str] = &[
    "tool_choice",
    "toolChoice",
    "tool_calls",
    "toolCalls",
    "function_call",
    "functionCall",
    "allowed_tools",
    "allowedTools",
];

const GEMINI_ARRAYS: &[&str] = &["functionDeclarations", "function_declarations"];

/// Lists of things that have a name and a schema but are not tools offered
/// to a model (A2A skills, workflow steps, MCP prompts).
const NOT_TOOL_ARRAYS: &[&str] = &["skills", "steps", "actions", "prompts"];

/// Extracts every tool definition in the documents of one file.
pub fn extract(file: &Arc<SourceFile>, docs: &[Node]) -> Vec<ToolDef> {
    let mut out = Vec::new();
    for (index, doc) in docs.iter().enumerate() {
        // A tool-surface snapshot records tools; it does not offer them.
        if doc.get(crate::surface::MARKER).is_some() {
            continue;
        }
        out.extend(super::openapi::operations(file, index, doc));
        find_tools(doc, &mut |node, pointer, cx, found| {
            out.extend(tool_def(file, index, node, pointer, cx, found));
        });
    }
    out
}

/// Calls `found` for each tool definition in `root`, with its pointer and
/// where it sits; the inside of a definition is not searched further.
fn find_tools<'n>(
    root: &'n Node,
    found: &mut dyn for<'c> FnMut(&'n Node, &'c str, Context<'c>, Found<'n>),
) {
    Walker { found }.visit(root, "", Context::Root, 0);
}

#[derive(Clone, Copy)]
enum Context<'a> {
    /// The document root.
    Root,
    /// A member value of the object at `container`.
    Member { container: &'a str },
    /// An element of the array at `container`, itself the value of `key`
    /// in an object whose `type` is `parent_type`.
    Element {
        container: &'a str,
        key: Option<&'a str>,
        parent_type: Option<&'a str>,
    },
}

struct Walker<'n, 'f> {
    found: &'f mut dyn for<'c> FnMut(&'n Node, &'c str, Context<'c>, Found<'n>),
}

impl<'n> Walker<'n, '_> {
    fn visit(&mut self, node: &'n Node, pointer: &str, cx: Context<'_>, depth: usize) {
        if depth > crate::syntax::MAX_DEPTH {
            return;
        }
        match &node.kind {
            NodeKind::Object(members) => {
                let site = match cx {
                    Context::Element {
                        key,
                        parent_type,
                        container,
                    } => Site {
                        array_key: key,
                        parent_type,
                        root_array: container.is_empty(),
                    },
                    _ => Site::default(),
                };
                if let Some(found) = recognize(node, site) {
                    (self.found)(node, pointer, cx, found);
                    return;
                }
                for m in members {
                    if REFERENCE_KEYS.contains(&m.key.as_str()) {
                        continue;
                    }
                    let child = format!("{pointer}/{}", pointer_token(&m.key));
                    if let NodeKind::Array(_) = m.value.kind {
                        // Arrays hand their pointer, key and owner's type to their elements.
                        let owner_type = node.get("type").and_then(Node::as_str);
                        self.visit_array(&m.value, &child, Some(&m.key), owner_type, depth);
                    } else {
                        let cx = Context::Member { container: pointer };
                        self.visit(&m.value, &child, cx, depth + 1);
                    }
                }
            }
            NodeKind::Array(_) => self.visit_array(node, pointer, None, None, depth),
            _ => {}
        }
    }

    fn visit_array(
        &mut self,
        node: &'n Node,
        pointer: &str,
        key: Option<&str>,
        parent_type: Option<&str>,
        depth: usize,
    ) {
        for (i, item) in node.items().unwrap_or_default().iter().enumerate() {
            let child = format!("{pointer}/{i}");
            let cx = Context::Element {
                container: pointer,
                key,
                parent_type,
            };
            self.visit(item, &child, cx, depth + 1);
        }
    }
}

/// The [`ToolDef`] of a definition found in document `doc` of `file`.
fn tool_def(
    file: &Arc<SourceFile>,
    doc: usize,
    node: &Node,
    pointer: &str,
    cx: Context<'_>,
    f: Found<'_>,
) -> Option<ToolDef> {
    let name_text = f.name.as_str().unwrap_or_default();
    let group = match cx {
        // One tool per file, named after the tool (`get_issue.json`,
        // `__toolsnaps__/get_issue.snap`): the files of the folder form
        // one list. Other single-tool files (examples, fixtures) stand alone.
        Context::Root if stem(&file.display) == name_text => {
            let dir = file.display.rsplit_once('/').map_or("", |(dir, _)| dir);
            format!("dir:{dir}")
        }
        Context::Root => format!("{}#{}", file.display, doc),
        Context::Member { container } | Context::Element { container, .. } => {
            // Gemini: every `functionDeclarations` of one `tools` array is
            // offered together.
            let container = gemini_tools_list(container).unwrap_or(container);
            format!("{}#{}:{}", file.display, doc, container)
        }
    };
    let spanned = |n: &Node| {
        n.as_str().map(|s| Spanned {
            value: s.to_string(),
            span: n.span,
        })
    };
    let name = spanned(f.name)?;
    Some(ToolDef {
        name,
        name_file: Arc::clone(file),
        name_holes: Vec::new(),
        name_via: Vec::new(),
        schema_file: Arc::clone(file),
        schema_derived: false,
        handler: None,
        cfg: None,
        name_alternatives: Vec::new(),
        intake: None,
        needs_import: None,
        branch: None,
        bound_before: None,
        literal_list: None,
        names_mapped: false,
        description: f.description.and_then(spanned),
        // Known only at run time (a Python f-string, a call): present, not
        // missing.
        description_dynamic: f
            .description
            .is_some_and(|d| matches!(d.kind, crate::syntax::NodeKind::Opaque(_))),
        input_schema: f.schema.cloned(),
        strict: f.strict,
        extras: extras(node),
        format: f.format,
        file: Arc::clone(file),
        span: node.span,
        pointer: pointer.to_string(),
        name_pointer: format!("{}/name", f.holder),
        schema_pointer: f.schema_pointer.to_string(),
        schema_kind: if f.schema_pointer == "/parameters" && f.format == ToolFormat::Gemini {
            SchemaKind::OpenApiSubset
        } else {
            SchemaKind::JsonSchema
        },
        group,
    })
}

/// Members of a definition that clients read besides its name,
/// description and input schema: they are part of the tool surface.
const EXTRA_MEMBERS: &[&str] = &["title", "annotations", "_meta", "outputSchema", "strict"];

fn extras(node: &Node) -> Option<Node> {
    let members: Vec<Member> = node
        .members()?
        .iter()
        .filter(|m| EXTRA_MEMBERS.contains(&m.key.as_str()))
        .cloned()
        .collect();
    (!members.is_empty()).then_some(Node {
        span: node.span,
        kind: NodeKind::Object(members),
    })
}

/// The file name without folder and extension.
fn stem(display: &str) -> &str {
    let name = display.rsplit_once('/').map_or(display, |(_, n)| n);
    name.rsplit_once('.').map_or(name, |(s, _)| s)
}

/// `/tools/0/functionDeclarations` -> `/tools`.
fn gemini_tools_list(container: &str) -> Option<&str> {
    let rest = GEMINI_ARRAYS
        .iter()
        .find_map(|k| container.strip_suffix(k))?;
    let rest = rest.strip_suffix('/')?;
    let (list, index) = rest.rsplit_once('/')?;
    index.bytes().all(|b| b.is_ascii_digit()).then_some(list)
}

/// Where an object sits, as far as recognition cares.
#[derive(Clone, Copy, Default)]
struct Site<'a> {
    /// The key of the array holding the object.
    array_key: Option<&'a str>,
    /// The `type` of the object holding that array.
    parent_type: Option<&'a str>,
    /// The object is an element of the document's top-level array.
    root_array: bool,
}

struct Found<'n> {
    format: ToolFormat,
    name: &'n Node,
    /// Pointer from the definition to the object holding `name`.
    holder: &'static str,
    description: Option<&'n Node>,
    schema: Option<&'n Node>,
    /// Pointer from the definition to the schema.
    schema_pointer: &'static str,
    strict: Option<bool>,
}

/// A string, or in code a value computed at run time (`"name": NAME`).
fn is_str(node: Option<&Node>) -> bool {
    node.is_some_and(|n| n.as_str().is_some() || matches!(n.kind, NodeKind::Opaque(_)))
}

/// A tool definition found inside a JSON value from source code (a
/// `json!` literal), with the nodes of its parts.
pub struct FoundTool<'n> {
    pub format: ToolFormat,
    pub name: &'n Node,
    pub description: Option<&'n Node>,
    pub schema: Option<&'n Node>,
    pub strict: Option<bool>,
    /// The whole definition.
    pub span: crate::source::Span,
}

/// Every tool definition inside `node`, recognised as in a manifest.
pub fn recognize_all(node: &Node) -> Vec<FoundTool<'_>> {
    let mut out = Vec::new();
    find_tools(node, &mut |at, _, _, f| {
        out.push(FoundTool {
            format: f.format,
            name: f.name,
            description: f.description,
            schema: f.schema,
            strict: f.strict,
            span: at.span,
        });
    });
    out
}

/// The first of `keys` (pointers of one token, `/parameters`) that
/// `holder` has, and that key; the first key when it has none.
fn schema_at<'n>(holder: &'n Node, keys: &[&'static str]) -> (Option<&'n Node>, &'static str) {
    keys.iter()
        .find_map(|k| holder.get(&k[1..]).map(|n| (Some(n), *k)))
        .unwrap_or((None, keys[0]))
}

/// Matches one object against the known wire shapes.
fn recognize<'n>(obj: &'n Node, site: Site<'_>) -> Option<Found<'n>> {
    let array_key = site.array_key;
    if array_key.is_some_and(|k| NOT_TOOL_ARRAYS.contains(&k)) {
        return None;
    }
    let found = |format,
                 holder: &'n Node,
                 prefix: &'static str,
                 schema: (Option<&'n Node>, &'static str)| {
        Some(Found {
            format,
            name: holder.get("name")?,
            holder: prefix,
            // A registry record that documents the tool under `summary`
            // (OpenAPI's word) is turned into a wire object before it is
            // sent; its summary is the description the model reads.
            description: holder.get("description").or_else(|| {
                holder
                    .get("summary")
                    .filter(|s| s.as_str().is_some_and(|s| !s.trim().is_empty()))
            }),
            schema: schema.0,
            schema_pointer: schema.1,
            strict: holder.get("strict").and_then(Node::as_bool),
        })
    };
    // VS Code `contributes.languageModelTools`: the schema is optional and
    // the model reads `modelDescription`.
    if array_key == Some("languageModelTools") && is_str(obj.get("name")) {
        let mut f = found(
            ToolFormat::Vscode,
            obj,
            "",
            schema_at(obj, &["/inputSchema"]),
        )?;
        f.description = obj.get("modelDescription");
        return Some(f);
    }

    // AWS Bedrock Converse: {"toolSpec": {"name", "description", "inputSchema": {"json": {...}}}}
    if let Some(spec) = obj.get("toolSpec").filter(|s| is_str(s.get("name"))) {
        let schema = match spec.get("inputSchema") {
            Some(s) if s.get("json").is_some() => (s.get("json"), "/toolSpec/inputSchema/json"),
            other => (other, "/toolSpec/inputSchema"),
        };
        return found(ToolFormat::Bedrock, spec, "/toolSpec", schema);
    }
    let typed_function = obj.get("type").and_then(Node::as_str) == Some("function");
    // OpenAI Chat Completions: {"type": "function", "function": {"name", "parameters"}}
    if typed_function && let Some(func) = obj.get("function").filter(|f| is_str(f.get("name"))) {
        if func.get("arguments").is_some() {
            return None; // a recorded call, not a definition
        }
        // `{"type": "function", "function": {"name": "get_weather"}}` and
        // nothing else is a `tool_choice` that forces a tool, not one.
        // In a `tools` list (or a list of its own) it is a tool without
        // parameters.
        if func.members().is_some_and(|m| m.len() == 1)
            && obj.members().is_some_and(|m| m.len() == 2)
            && site.array_key != Some("tools")
            && !site.root_array
        {
            return None;
        }
        let schema = (func.get("parameters"), "/function/parameters");
        return found(ToolFormat::OpenaiChat, func, "/function", schema);
    }
    if !is_str(obj.get("name")) || obj.get("arguments").is_some() {
        return None;
    }
    if obj.get("inputSchema").is_some() {
        return found(ToolFormat::Mcp, obj, "", schema_at(obj, &["/inputSchema"]));
    }
    if site.parent_type == Some("mcp_list_tools") && obj.get("input_schema").is_some() {
        let schema = schema_at(obj, &["/input_schema"]);
        return found(ToolFormat::OpenaiMcpListTools, obj, "", schema);
    }
    if obj.get("input_schema").is_some() {
        return found(
            ToolFormat::Anthropic,
            obj,
            "",
            schema_at(obj, &["/input_schema"]),
        );
    }
    if array_key.is_some_and(|k| GEMINI_ARRAYS.contains(&k)) {
        let keys = [
            "/parameters",
            "/parametersJsonSchema",
            "/parameters_json_schema",
        ];
        return found(ToolFormat::Gemini, obj, "", schema_at(obj, &keys));
    }
    let parameters = obj.get("parameters");
    // OpenAI Responses: {"type": "function", "name", "parameters"}. A bare
    // {"type": "function", "name"} is how tool_choice names a tool.
    if typed_function && (parameters.is_some() || obj.get("description").is_some()) {
        return found(
            ToolFormat::OpenaiResponses,
            obj,
            "",
            (parameters, "/parameters"),
        );
    }
    // Legacy OpenAI: {"functions": [{"name", "parameters"}]}
    if array_key == Some("functions") && parameters.is_some_and(Node::is_object) {
        return found(
            ToolFormat::OpenaiFunctions,
            obj,
            "",
            (parameters, "/parameters"),
        );
    }
    // A bare declaration in a `tools` list or a top-level array, when
    // `parameters` is visibly a schema (OpenAPI and CI files also have
    // objects with a `name` and `parameters`).
    let schema_like =
        parameters.is_some_and(|p| p.get("type").is_some() || p.get("properties").is_some());
    if (array_key == Some("tools") || site.root_array) && schema_like {
        // Upper-case types (`"type": "OBJECT"`) are Gemini's OpenAPI
        // subset, which only Gemini reads: a list of its declarations.
        let openapi = parameters
            .and_then(|p| p.get("type"))
            .and_then(Node::as_str)
            .is_some_and(|t| t == "OBJECT");
        let format = if openapi {
            ToolFormat::Gemini
        } else {
            ToolFormat::Function
        };
        return found(format, obj, "", (parameters, "/parameters"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::json;

    fn tools(text: &str) -> Vec<ToolDef> {
        tools_in("dir/t.json", text)
    }

    fn tools_in(display: &str, text: &str) -> Vec<ToolDef> {
        let file = Arc::new(SourceFile::new(display.into(), display.into(), text));
        let doc = json::parse(text).unwrap().into_iter().collect::<Vec<_>>();
        extract(&file, &doc)
    }

    fn names(text: &str) -> Vec<(String, ToolFormat)> {
        tools(text)
            .into_iter()
            .map(|t| (t.name.value, t.format))
            .collect()
    }

    #[test]
    fn recognises_every_wire_shape() {
        use ToolFormat::*;
        let cases = [
            (
                r#"{"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}"#,
                Mcp,
            ),
            (
                r#"[{"name":"a","input_schema":{"type":"object"}}]"#,
                Anthropic,
            ),
            (
                r#"{"tools":[{"type":"function","function":{"name":"a","parameters":{}}}]}"#,
                OpenaiChat,
            ),
            (
                r#"{"tools":[{"type":"function","name":"a","parameters":{}}]}"#,
                OpenaiResponses,
            ),
            (
                r#"{"functions":[{"name":"a","parameters":{}}]}"#,
                OpenaiFunctions,
            ),
            (
                r#"{"tools":[{"functionDeclarations":[{"name":"a"}]}]}"#,
                Gemini,
            ),
            (
                r#"{"toolConfig":{"tools":[{"toolSpec":{"name":"a","inputSchema":{"json":{}}}}]}}"#,
                Bedrock,
            ),
            (r#"[{"name":"a","parameters":{"type":"object"}}]"#, Function),
            // Upper-case types: Gemini's OpenAPI subset.
            (r#"[{"name":"a","parameters":{"type":"OBJECT"}}]"#, Gemini),
        ];
        for (text, format) in cases {
            assert_eq!(names(text), vec![("a".to_string(), format)], "{text}");
        }
    }

    #[test]
    fn pointers_and_groups() {
        let t = tools(
            r#"{"tools":[{"type":"function","function":{"name":"a"}, "x": 1},{"name":"b","inputSchema":{}}]}"#,
        );
        // A chat tool with neither parameters nor description is still a tool
        // when it sits under `function`.
        assert_eq!(t[0].pointer, "/tools/0");
        assert_eq!(t[0].name_pointer, "/function/name");
        assert_eq!(t[0].schema_pointer, "/function/parameters");
        assert_eq!(t[1].pointer, "/tools/1");
        assert_eq!(t[1].schema_pointer, "/inputSchema");
        assert_eq!(t[0].group, t[1].group);
        assert_eq!(t[0].group, "dir/t.json#0:/tools");
        // One tool per file named after it: the folder is the list.
        let root = tools_in("snaps/a.json", r#"{"name":"a","inputSchema":{}}"#);
        assert_eq!(root[0].group, "dir:snaps");
        assert_eq!(root[0].pointer, "");
        // A single-tool example file stands alone.
        let example = tools_in(
            "examples/calc-example.json",
            r#"{"name":"calculate_sum","inputSchema":{}}"#,
        );
        assert_eq!(example[0].group, "examples/calc-example.json#0");
        // Gemini: all functionDeclarations of one `tools` array are one list.
        let g = tools(
            r#"{"tools":[{"functionDeclarations":[{"name":"a"}]},{"functionDeclarations":[{"name":"b"}]}]}"#,
        );
        assert_eq!(g[0].group, g[1].group);
        assert_eq!(g[0].group, "dir/t.json#0:/tools");
    }

    #[test]
    fn unrelated_json_has_no_tools() {
        let cases = [
            // package.json
            r#"{"name":"my-server","version":"1.0.0","bin":{"x":"y"},"dependencies":{"zod":"^3"}}"#,
            // tsconfig.json
            r#"{"compilerOptions":{"target":"es2022","paths":{"name":["x"]}}}"#,
            // package-lock.json
            r#"{"name":"x","lockfileVersion":3,"packages":{"":{"name":"x"},"node_modules/a":{"version":"1"}}}"#,
            // MCP registry server.json
            r#"{"name":"io.github.acme/server","description":"d","packages":[{"registryType":"npm","identifier":"x","transport":{"type":"stdio"}}]}"#,
            // MCP resources/list with a resource named main.rs
            r#"{"resources":[{"uri":"file:///src/main.rs","name":"main.rs","mimeType":"text/x-rust"}]}"#,
            // the MCP JSON Schema itself: `name` is a schema, not a string
            r#"{"definitions":{"Tool":{"properties":{"name":{"type":"string"},"inputSchema":{"type":"object"}}}}}"#,
            // tool choice and recorded calls
            r#"{"tool_choice":{"type":"function","function":{"name":"a"}}}"#,
            r#"{"tool_choice":{"type":"function","name":"a"}}"#,
            r#"{"messages":[{"tool_calls":[{"id":"1","type":"function","function":{"name":"a","arguments":"{}"}}]}]}"#,
            r#"{"output":[{"type":"function_call","name":"a","arguments":"{}"}]}"#,
            r#"{"content":[{"type":"tool_use","id":"t","name":"a","input":{}}]}"#,
            // a bare `type: function` object with a name is how tool_choice looks
            r#"[{"type":"function","name":"a"}]"#,
            // serverless-style `functions` map
            r#"{"functions":{"hello":{"handler":"h.js"}}}"#,
            // A2A agent skills and workflow steps have names and schemas too
            r#"{"skills":[{"id":"x","name":"Extract Line Items","inputSchema":{"type":"object"}}]}"#,
            r#"{"steps":[{"name":"build","parameters":{"type":"object"}}]}"#,
            // OpenAPI parameters and CI matrices: `parameters` that is no schema
            r#"{"paths":{"/a":{"get":{"parameters":[{"name":"id","in":"path"}]}}}}"#,
            r#"{"tools":[{"name":"eslint","parameters":["--fix"]}]}"#,
            r#"[{"name":"job","parameters":{"retries":3}}]"#,
        ];
        for text in cases {
            assert!(names(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn vscode_tools_read_the_model_description() {
        let t = tools(
            r#"{"contributes":{"languageModelTools":[{"name":"a","displayName":"A","modelDescription":"for the model","userDescription":"for people"}]}}"#,
        );
        assert_eq!(t[0].description.as_ref().unwrap().value, "for the model");
        assert!(t[0].input_schema.is_none());
    }

    #[test]
    fn nested_schema_objects_are_not_tools() {
        let t = tools(
            r#"[{"name":"a","inputSchema":{"type":"object","properties":{"x":{"name":"b","inputSchema":{}}}}}]"#,
        );
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].parameter_names(), vec!["x"]);
    }
}
