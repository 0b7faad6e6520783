//! The Python front-end: tool definitions of Python MCP servers and agents
//! — functions decorated with `@<server>.tool` / `@<server>.tool(..)`
//! (FastMCP and the MCP SDK's `FastMCP`), agent frameworks' `@tool`,
//! `@function_tool` and `@agent.tool` — as [`ToolDef`]s with their name
//! (literal, constant, f-string), description (the `description=` argument
//! or the docstring), handler and an input schema derived from the
//! signature the way pydantic does; tool definitions written as dict or
//! `Tool(..)` literals are read like manifests. The name and schema rules
//! run on them unchanged; [`facts`] and [`link`] give the code rules
//! (M1–M3) the handlers, with the project modules they call into
//! ([`modules`]).
//!
//! Files are parsed only when their bytes mention a tool decorator
//! (`.tool`) or a tool-definition key, and the tree is dropped before the
//! unit is linked.

pub mod dead;
pub mod facts;
pub mod link;
pub mod modules;
pub mod records;
pub mod scripts;
pub mod unused;

use std::cell::RefCell;
use std::sync::Arc;

use tree_sitter::Node as TsNode;

use crate::model::{Handler, SchemaKind, Spanned, ToolDef, ToolFormat};
use crate::source::{SourceFile, Span};
use crate::syntax::{Member, Node, NodeKind};

/// How long one file may take to parse before it is given up.
const PARSE_TIMEOUT_MICROS: u64 = 2_000_000;
const MAX_DEPTH: usize = 200;

thread_local! {
    static PARSER: RefCell<Option<tree_sitter::Parser>> = const { RefCell::new(None) };
}

/// Worth parsing: the text mentions a tool decorator, or a key of a tool
/// definition written as a literal.
pub fn may_declare_tools(text: &str) -> bool {
    text.contains(".tool")
        || text.contains("function_tool")
        // pydantic-ai's `Agent(.., tools=[f, Tool(g)])`.
        || text.contains("tools=")
        || SCHEMA_KEYS.iter().any(|k| text.contains(k))
}

/// Keys that make a dict literal worth reading as a tool definition.
const SCHEMA_KEYS: &[&str] = &[
    "input_schema",
    "inputSchema",
    "\"parameters\"",
    "'parameters'",
    "function_declarations",
    "functionDeclarations",
];

/// Parses `text` as Python; `None` when the grammar cannot be loaded or
/// the parse times out.
pub fn parse(text: &str) -> Result<tree_sitter::Tree, String> {
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut p = tree_sitter::Parser::new();
            p.set_language(&tree_sitter_python::LANGUAGE.into())
                .map_err(|e| e.to_string())?;
            *slot = Some(p);
        }
        let parser = slot.as_mut().expect("set above");
        let start = std::time::Instant::now();
        let mut progress = |_: &tree_sitter::ParseState| {
            if start.elapsed().as_micros() as u64 > PARSE_TIMEOUT_MICROS {
                std::ops::ControlFlow::Break(())
            } else {
                std::ops::ControlFlow::Continue(())
            }
        };
        let options = tree_sitter::ParseOptions::new().progress_callback(&mut progress);
        let bytes = text.as_bytes();
        let tree = parser.parse_with_options(
            &mut |i, _| bytes.get(i..).unwrap_or_default(),
            None,
            Some(options),
        );
        parser.reset();
        tree.ok_or_else(|| "parsing took too long".to_string())
    })
}

/// The first syntax error's byte offset, if any (grammar-neutral).
pub use crate::rust::first_error;

pub(crate) fn span(n: TsNode) -> Span {
    Span::new(n.start_byte(), n.end_byte())
}

pub(crate) fn text<'s>(n: TsNode, src: &'s str) -> &'s str {
    src.get(n.start_byte()..n.end_byte()).unwrap_or("")
}

fn synth(kind: NodeKind, at: Span) -> Node {
    Node { span: at, kind }
}

fn member(key: &str, value: Node, at: Span) -> Member {
    Member {
        key: key.to_string(),
        key_span: at,
        value,
    }
}

/// The tools `file` declares: decorated functions, and tool definitions
/// written as dict literals (`{"name": .., "input_schema": {..}}`, OpenAI's
/// `{"type": "function", "function": {..}}`, Gemini's declarations), read
/// as the manifest extractor reads JSON, with spans into the Python source.
pub fn extract(file: &Arc<SourceFile>, tree: &tree_sitter::Tree) -> Vec<ToolDef> {
    let root = tree.root_node();
    let frameworks = Frameworks::of(&file.text);
    let mut found = Found::default();
    visit(file, &frameworks, root, root, 0, &mut found);
    let Found {
        tools: mut out,
        literals,
        list_tools: handlers,
    } = found;
    let mut listed = crate::extract::manifest::extract(file, &literals);
    // A list bound at the module's top level to a name nothing else in the
    // file uses is offered only through a module that imports it.
    if !listed.is_empty() {
        let bindings = module_bindings(root, &file.text);
        let mut unused: Vec<Option<bool>> = vec![None; bindings.len()];
        // A package's `__init__.py` is imported by the package's name.
        let stem = file.path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let module = if stem == "__init__" {
            file.path
                .parent()
                .and_then(|p| p.file_name())
                .and_then(|s| s.to_str())
                .unwrap_or("")
        } else {
            stem
        }
        .to_string();
        for t in &mut listed {
            let Some(i) = bindings
                .iter()
                .position(|(sp, _)| sp.start <= t.span.start && t.span.end <= sp.end)
            else {
                continue;
            };
            // Counted once per binding that holds a tool.
            if *unused[i].get_or_insert_with(|| word_count(&file.text, &bindings[i].1) == 1) {
                t.needs_import = Some(module.clone());
            }
        }
    }
    // A tool written in a class with a method that runs it (`class
    // SearchToolHandler(ToolHandler)`: `get_tool_description` returns the
    // `Tool(..)`, `run_tool(self, args)` runs it).
    if listed.iter().any(|t| t.handler.is_none()) {
        let classes = run_methods(root, &file.text);
        for t in listed.iter_mut().filter(|t| t.handler.is_none()) {
            let inner = classes
                .iter()
                .filter(|(sp, _)| sp.start <= t.span.start && t.span.end <= sp.end)
                .min_by_key(|(sp, _)| sp.end - sp.start);
            if let Some((_, m)) = inner {
                t.handler = Some(Handler {
                    file: Arc::clone(file),
                    span: span(*m),
                    name: text(*m, &file.text).to_string(),
                });
            }
        }
    }
    out.extend(listed);
    // A second `@server.list_tools()` handler replaces the first (the
    // server keeps one handler per request): the first's tools are never
    // listed.
    if handlers.len() > 1 {
        let replaced: Vec<Span> = handlers
            .iter()
            .enumerate()
            .filter(|(i, (scope, obj, _))| {
                handlers[i + 1..]
                    .iter()
                    .any(|(s, o, _)| s == scope && o == obj)
            })
            .map(|(_, (_, _, at))| *at)
            .collect();
        out.retain(|t| {
            !replaced
                .iter()
                .any(|r| r.start <= t.span.start && t.span.end <= r.end)
        });
    }
    out
}

/// What [`visit`] finds in a file.
#[derive(Default)]
struct Found {
    /// Tools registered by decorators and calls.
    tools: Vec<ToolDef>,
    /// The outermost literals that hold tool definitions.
    literals: Vec<Node>,
    /// Functions registered as a low-level server's `list_tools` handler
    /// (`@server.list_tools()`), in order: the start of the scope they are
    /// defined in (a factory function, or the module), the server object,
    /// and the function's span.
    list_tools: Vec<(usize, String, Span)>,
}

/// The server object a `@server.list_tools()` decorator of `def_` names.
fn list_tools_server(def_: TsNode, src: &str) -> Option<String> {
    let mut dc = def_.walk();
    def_.named_children(&mut dc)
        .filter(|d| d.kind() == "decorator")
        .find_map(|d| {
            let t = text(d, src).trim_start_matches('@').trim();
            let callee = t.strip_suffix("()").unwrap_or(t);
            callee.strip_suffix(".list_tools").map(str::to_string)
        })
}

/// Values bound at the top level of the module (`TOOLS = [..]`), with the
/// name.
fn module_bindings(root: TsNode, src: &str) -> Vec<(Span, String)> {
    let mut c = root.walk();
    root.named_children(&mut c)
        .filter(|n| n.kind() == "expression_statement")
        .filter_map(|n| n.named_child(0))
        .filter(|a| a.kind() == "assignment")
        .filter_map(|a| {
            let l = a.child_by_field_name("left")?;
            let r = a.child_by_field_name("right")?;
            (l.kind() == "identifier").then(|| (span(r), text(l, src).to_string()))
        })
        .collect()
}

/// How often `name` occurs in `text` as a whole word.
fn word_count(text: &str, name: &str) -> usize {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(name)
        .filter(|(i, _)| {
            !text[..*i].chars().next_back().is_some_and(word)
                && !text[i + name.len()..].chars().next().is_some_and(word)
        })
        .count()
}

/// The modules a Python file imports, as the names that can stand for a
/// module file (`from pkg.tools import billing, search` gives `pkg`,
/// `tools`, `billing`, `search`), and whether it imports by a computed name
/// (`importlib.import_module(..)`, `__import__`): then any module may be
/// loaded.
pub fn imported_names(text: &str) -> (Vec<String>, bool) {
    let (names, _, dynamic) = imports_in(text, false);
    (names, dynamic)
}

/// [`imported_names`], and the dotted paths the file imports as
/// [`modules::Index::resolve`] takes them (`import a.b as c` gives `[a,
/// b]`; `from ..pkg import x` gives `[., ., pkg, x]`; `from pkg import *`
/// gives `[pkg]`), from one pass over its import statements.
pub fn file_imports(text: &str) -> (Vec<String>, Vec<Vec<String>>, bool) {
    imports_in(text, true)
}

fn imports_in(text: &str, with_paths: bool) -> (Vec<String>, Vec<Vec<String>>, bool) {
    let lines: Vec<&str> = text.lines().collect();
    let mut names = Vec::new();
    let mut paths = Vec::new();
    for stmt in import_statements(&lines) {
        let lines = &lines[stmt];
        let words = lines
            .iter()
            .flat_map(|l| l.split(|c: char| !(c.is_alphanumeric() || c == '_')))
            .filter(|w| !w.is_empty() && !matches!(*w, "import" | "from" | "as"));
        names.extend(words.map(str::to_string));
        if with_paths {
            statement_paths(lines, &mut paths);
        }
    }
    names.sort_unstable();
    names.dedup();
    let dynamic = text.contains("import_module(") || text.contains("__import__(");
    (names, paths, dynamic)
}

/// The dotted paths one import statement (its lines) imports.
fn statement_paths(lines: &[&str], out: &mut Vec<Vec<String>>) {
    let joined: String = lines
        .iter()
        .map(|l| l.split('#').next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join(" ")
        .replace(['\\', '(', ')'], " ");
    let t = joined.trim();
    let dotted = |p: &str| -> Vec<String> {
        let dots = p.chars().take_while(|c| *c == '.').count();
        std::iter::repeat_n(".".to_string(), dots)
            .chain(
                p[dots..]
                    .split('.')
                    .filter(|s| !s.is_empty())
                    .map(str::to_string),
            )
            .collect()
    };
    let item = |i: &str| i.split_whitespace().next().unwrap_or("").to_string();
    if let Some(rest) = t.strip_prefix("import ") {
        out.extend(
            rest.split(',')
                .map(item)
                .filter(|i| !i.is_empty())
                .map(|i| dotted(&i)),
        );
    } else if let Some(rest) = t.strip_prefix("from ")
        && let Some((module, names)) = rest.split_once(" import ")
    {
        let base = dotted(module.trim());
        for name in names.split(',').map(item).filter(|i| !i.is_empty()) {
            let mut p = base.clone();
            if name != "*" {
                p.push(name);
            }
            out.push(p);
        }
    }
}

/// The import statements among `lines`, as ranges of line indices: one
/// line, or several in parentheses (`from x import (\n a,\n b)`) or
/// after backslashes.
pub fn import_statements(lines: &[&str]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim_start();
        let start = i;
        i += 1;
        if !(t.starts_with("import ") || t.starts_with("from ")) {
            continue;
        }
        let (mut open, mut closed) = (t.contains('('), t.contains(')'));
        let mut last = t;
        while ((open && !closed) || last.trim_end().ends_with('\\')) && i < lines.len() {
            last = lines[i];
            open |= last.contains('(');
            closed |= last.contains(')');
            i += 1;
        }
        out.push(start..i);
    }
    out
}

/// Does the file build a LangChain text ReAct agent
/// (`AgentType.ZERO_SHOT_REACT_DESCRIPTION`, `CONVERSATIONAL_REACT_DESCRIPTION`
/// and their chat forms), which hands a tool the model's one free-text
/// input rather than keyed arguments?
pub fn text_react_agent(text: &str) -> bool {
    [
        "AgentType.ZERO_SHOT_REACT_DESCRIPTION",
        "AgentType.CONVERSATIONAL_REACT_DESCRIPTION",
        "AgentType.CHAT_ZERO_SHOT_REACT_DESCRIPTION",
        "AgentType.CHAT_CONVERSATIONAL_REACT_DESCRIPTION",
        "\"zero-shot-react-description\"",
        "\"conversational-react-description\"",
    ]
    .iter()
    .any(|w| text.contains(w))
}

/// Does the file hand tools to a model that calls them with keyed
/// arguments (`bind_tools`, a tool-calling or structured-chat agent,
/// LangGraph's prebuilt agent)?
pub fn tool_calling_agent(text: &str) -> bool {
    [
        "bind_tools(",
        "create_tool_calling_agent",
        "create_openai_functions_agent",
        "create_openai_tools_agent",
        "create_structured_chat_agent",
        "STRUCTURED_CHAT",
        "OPENAI_FUNCTIONS",
        "OPENAI_MULTI_FUNCTIONS",
        "langgraph.prebuilt",
        "create_agent(",
    ]
    .iter()
    .any(|w| text.contains(w))
}

/// Which agent frameworks a file uses and the names it imports, looked up
/// once per file.
struct Frameworks {
    langchain: bool,
    pydantic_ai: bool,
    crewai: bool,
    /// [`imported_names`], sorted.
    imported: Vec<String>,
}

impl Frameworks {
    fn of(src: &str) -> Frameworks {
        Frameworks {
            langchain: src.contains("from langchain") || src.contains("import langchain"),
            pydantic_ai: src.contains("pydantic_ai"),
            crewai: src.contains("from crewai") || src.contains("import crewai"),
            imported: imported_names(src).0,
        }
    }

    /// The file imports `name` (also in a parenthesised import over
    /// several lines).
    fn imports(&self, name: &str) -> bool {
        self.imported
            .binary_search_by(|n| n.as_str().cmp(name))
            .is_ok()
    }
}

fn visit<'t>(
    file: &Arc<SourceFile>,
    fw: &Frameworks,
    root: TsNode<'t>,
    node: TsNode<'t>,
    depth: usize,
    found: &mut Found,
) {
    if depth > MAX_DEPTH {
        return;
    }
    if node.kind() == "decorated_definition" {
        if let Some(t) = decorated_tool(file, node) {
            found.tools.push(t);
        }
        if let Some(obj) = list_tools_server(node, &file.text) {
            let scope = enclosing_def(node).map_or(0, |d| d.start_byte());
            found.list_tools.push((scope, obj, span(node)));
        }
    }
    let out = &mut found.tools;
    if node.kind() == "call" {
        call_registrations(file, fw, root, node, out);
        if fw.langchain || fw.pydantic_ai {
            framework_registrations(file, fw, root, node, out);
        }
    }
    if node.kind() == "class_definition"
        && (fw.crewai || fw.langchain)
        && let Some(t) = base_tool_class(file, fw, node)
    {
        out.push(t);
    }
    // The outermost literal that holds a tool definition: a list of tools
    // is one tool list.
    let tool_call = || node.kind() == "call" && is_tool_call(callee_name(node, &file.text));
    if matches!(node.kind(), "dictionary" | "list") || tool_call() {
        let t = text(node, &file.text);
        // `"name": ..` in a dict, `name=..` in `types.Tool(..)`, `parameters=`
        // in Gemini's `types.FunctionDeclaration(..)`.
        if (t.contains("\"name\"") || t.contains("'name'") || t.contains("name="))
            && (SCHEMA_KEYS.iter().any(|k| t.contains(k))
                || (tool_call() && t.contains("parameters=")))
        {
            let v = value(node, &file.text, 0);
            // Gemini's declaration on its own: read as an element of the
            // `function_declarations` it is made for.
            found.literals.push(
                if tool_call() && callee_name(node, &file.text) == "FunctionDeclaration" {
                    let at = span(node);
                    synth(
                        NodeKind::Object(vec![Member {
                            key: "function_declarations".into(),
                            key_span: at,
                            value: synth(NodeKind::Array(vec![v]), at),
                        }]),
                        at,
                    )
                } else {
                    v
                },
            );
            return;
        }
    }
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        visit(file, fw, root, child, depth + 1, found);
    }
}

/// A Python literal as a JSON-like node with its spans: dicts with string
/// keys, lists and tuples, strings, numbers, `True`/`False`/`None`, and
/// `dict(k=v)` / `Tool(name=.., inputSchema=..)` calls as objects of their
/// keyword arguments; anything else is a value known only at run time.
fn value(n: TsNode, src: &str, depth: usize) -> Node {
    let at = span(n);
    let opaque = || synth(NodeKind::Opaque(text(n, src).to_string()), at);
    if depth > MAX_DEPTH {
        return opaque();
    }
    let kind = match n.kind() {
        "dictionary" => {
            let mut members = Vec::new();
            let mut c = n.walk();
            for pair in n.named_children(&mut c) {
                if pair.kind() != "pair" {
                    continue; // `**spread`
                }
                let (Some(k), Some(v)) = (
                    pair.child_by_field_name("key"),
                    pair.child_by_field_name("value"),
                ) else {
                    continue;
                };
                let Some(key) = string_value(k, src) else {
                    continue;
                };
                members.push(Member {
                    key,
                    key_span: span(k),
                    value: value(v, src, depth + 1),
                });
            }
            NodeKind::Object(members)
        }
        "list" | "tuple" => {
            let mut c = n.walk();
            NodeKind::Array(
                n.named_children(&mut c)
                    .filter(|i| i.kind() != "comment")
                    .map(|i| value(i, src, depth + 1))
                    .collect(),
            )
        }
        // `name=self.name` in a tool class (`super().__init__("search")`).
        "attribute" if let Some((v, sp)) = self_attribute(n, src) => {
            return synth(NodeKind::String(v), sp);
        }
        "string" | "concatenated_string" | "identifier" | "attribute" | "binary_operator" => {
            match name_value(n, src) {
                (s, holes) if holes.is_empty() => NodeKind::String(s),
                _ => return opaque(),
            }
        }
        "integer" | "float" => NodeKind::Number(text(n, src).replace('_', "")),
        "true" => NodeKind::Bool(true),
        "false" => NodeKind::Bool(false),
        "none" => NodeKind::Null,
        "parenthesized_expression" => {
            let mut c = n.walk();
            return match n.named_children(&mut c).next() {
                Some(inner) => value(inner, src, depth + 1),
                None => opaque(),
            };
        }
        "call" if matches!(callee_name(n, src), "dict") || is_tool_call(callee_name(n, src)) => {
            let Some(args) = n.child_by_field_name("arguments") else {
                return opaque();
            };
            let mut members = Vec::new();
            let mut c = args.walk();
            for a in args.named_children(&mut c) {
                if a.kind() != "keyword_argument" {
                    continue;
                }
                let (Some(k), Some(v)) = (
                    a.child_by_field_name("name"),
                    a.child_by_field_name("value"),
                ) else {
                    continue;
                };
                members.push(Member {
                    key: text(k, src).to_string(),
                    key_span: span(k),
                    value: value(v, src, depth + 1),
                });
            }
            NodeKind::Object(members)
        }
        _ => return opaque(),
    };
    synth(kind, at)
}

/// The string `self.X` holds in the class it is read in: a class attribute
/// (`X = "search"`), `self.X = "search"` in a method, or, for `name` /
/// `tool_name`, the first argument of `super().__init__("search")` (the
/// `ToolHandler` base class of many MCP servers keeps it as `self.name`).
fn self_attribute(n: TsNode, src: &str) -> Option<(String, Span)> {
    let obj = n.child_by_field_name("object")?;
    if text(obj, src) != "self" {
        return None;
    }
    let attr = text(n.child_by_field_name("attribute")?, src);
    let mut at = n.parent();
    let class = loop {
        let c = at?;
        if c.kind() == "class_definition" {
            break c;
        }
        at = c.parent();
    };
    let body = class.child_by_field_name("body")?;
    let literal = |v: TsNode| -> Option<(String, Span)> {
        let (value, holes) = name_value(v, src);
        (holes.is_empty() && matches!(v.kind(), "string" | "identifier" | "concatenated_string"))
            .then(|| (value, span(v)))
    };
    let value = find_first(body, 0, &|x| match x.kind() {
        "assignment" => {
            let l = x.child_by_field_name("left")?;
            let r = x.child_by_field_name("right")?;
            let lt = text(l, src);
            (lt == attr || lt == format!("self.{attr}")).then_some(r)
        }
        "call" if matches!(attr, "name" | "tool_name") => {
            let f = x.child_by_field_name("function")?;
            (text(f, src).replace(' ', "") == "super().__init__")
                .then(|| first_positional(x.child_by_field_name("arguments")))
                .flatten()
        }
        _ => None,
    })?;
    literal(value)
}

/// Methods that run a tool class's tool: `run_tool(self, args)` of the
/// `ToolHandler` pattern, and the like.
const RUN_METHODS: &[&str] = &[
    "run_tool", "execute", "run", "handle", "invoke", "call", "__call__",
];

/// Tool classes' handlers: for each class with a method of
/// [`RUN_METHODS`], the class's span and the method's name.
fn run_methods<'t>(root: TsNode<'t>, src: &str) -> Vec<(Span, TsNode<'t>)> {
    let mut out = Vec::new();
    let mut stack = vec![(root, 0usize)];
    while let Some((n, depth)) = stack.pop() {
        if depth > MAX_DEPTH {
            continue;
        }
        if n.kind() == "class_definition"
            && let Some(body) = n.child_by_field_name("body")
        {
            let mut c = body.walk();
            let method = body.named_children(&mut c).find_map(|m| {
                let def = if m.kind() == "decorated_definition" {
                    m.child_by_field_name("definition")?
                } else {
                    m
                };
                let name = def.child_by_field_name("name")?;
                // It takes the arguments (`args: dict`, `**kwargs`), not a
                // server's `run(self, host, port)`.
                let takes_args = def.child_by_field_name("parameters").is_some_and(|p| {
                    let mut c = p.walk();
                    p.named_children(&mut c).any(|a| {
                        let t = text(a, src);
                        let (n, ty) = t.split_once(':').unwrap_or((t, ""));
                        let n = n.trim().trim_start_matches('*');
                        matches!(n, "args" | "arguments" | "params" | "tool_input" | "kwargs")
                            || ty.contains("dict")
                            || ty.contains("Dict")
                            || ty.contains("Mapping")
                    })
                });
                (def.kind() == "function_definition"
                    && RUN_METHODS.contains(&text(name, src))
                    && takes_args)
                    .then_some(name)
            });
            if let Some(m) = method {
                out.push((span(n), m));
            }
        }
        let mut c = n.walk();
        for child in n.named_children(&mut c) {
            stack.push((child, depth + 1));
        }
    }
    out
}

/// `@mcp.tool`, `@mcp.tool()`, `@server.tool(name=.., description=..)`
/// on a function: one tool.
fn decorated_tool(file: &Arc<SourceFile>, node: TsNode) -> Option<ToolDef> {
    let src: &str = &file.text;
    let def = node.child_by_field_name("definition")?;
    if def.kind() != "function_definition" {
        return None;
    }
    let mut cursor = node.walk();
    let decorators: Vec<TsNode> = node
        .named_children(&mut cursor)
        .filter(|c| c.kind() == "decorator")
        .collect();
    if let Some((server, args)) = decorators.iter().find_map(|d| tool_decorator(*d, src)) {
        // `@mcp.tool(name="x")`, or FastMCP's positional `@mcp.tool("x")`.
        let given = kwarg(args, "name", src)
            .or_else(|| first_positional(args).filter(|a| a.kind() == "string"));
        let (name, holes) = given_name(given, src);
        return tool_from(
            file,
            Registration {
                server,
                name,
                description: described(args, src),
                function: Some(def),
                at: span(node),
                format: ToolFormat::Fastmcp,
                holes,
            },
        )
        .map(|mut t| {
            t.branch = branch(node);
            t
        });
    }
    let (framework, name_arg, args) = decorators
        .iter()
        .find_map(|d| framework_decorator(*d, src))?;
    let (name, holes) = given_name(name_arg, src);
    let mut t = tool_from(
        file,
        Registration {
            server: framework.to_string(),
            name,
            description: kwarg(args, "description_override", src)
                .filter(|_| kwarg(args, "description", src).is_none())
                .or_else(|| described(args, src)),
            function: Some(def),
            at: span(node),
            format: ToolFormat::PythonFunction,
            holes,
        },
    )?;
    if framework == "langchain"
        && let Some(model) = kwarg(args, "args_schema", src)
    {
        with_args_schema(&mut t, model, src);
    }
    Some(t)
}

/// Where a definition sits among the arms of the nearest `if`/`elif`/`else`
/// around it: tools registered in different arms (`if HAVE_X: @mcp.tool()
/// def solve().. else: @mcp.tool() def solve()..`) are never offered
/// together.
fn branch(n: TsNode) -> Option<crate::model::Branch> {
    let mut child = n;
    let mut at = n.parent();
    while let Some(p) = at {
        match p.kind() {
            "function_definition" | "class_definition" | "module" => return None,
            "if_statement" => {
                // The consequence is arm 0; each `elif`/`else` clause the next.
                let mut c = p.walk();
                let arm = p
                    .named_children(&mut c)
                    .filter(|k| matches!(k.kind(), "block" | "elif_clause" | "else_clause"))
                    .position(|k| k.id() == child.id())?;
                let function = enclosing_def(p).map_or(0, |d| d.start_byte());
                return Some(crate::model::Branch {
                    function,
                    select: p.start_byte(),
                    arm,
                    at: p.start_byte(),
                });
            }
            _ => {}
        }
        child = p;
        at = p.parent();
    }
    None
}

fn enclosing_def(n: TsNode) -> Option<TsNode> {
    let mut at = n.parent();
    while let Some(p) = at {
        if p.kind() == "function_definition" {
            return Some(p);
        }
        at = p.parent();
    }
    None
}

/// The server of the OpenAI Agents SDK's `@function_tool`s with the strict
/// schema they have by default: their tools' group ends `#agents`.
pub const STRICT_AGENTS: &str = "agents";

/// An agent framework's tool decorator: LangChain's `@tool` /
/// `@tool("name")`, the OpenAI Agents SDK's `@function_tool` /
/// `@function_tool(name_override=..)`, pydantic-ai's `@agent.tool` /
/// `@agent.tool_plain` on an `Agent(..)`. The framework, the name
/// argument and the call's arguments.
fn framework_decorator<'t>(
    d: TsNode<'t>,
    src: &str,
) -> Option<(&'static str, Option<TsNode<'t>>, Option<TsNode<'t>>)> {
    let mut c = d.walk();
    let expr = d.named_children(&mut c).next()?;
    let (callee, args) = match expr.kind() {
        "call" => (
            expr.child_by_field_name("function")?,
            expr.child_by_field_name("arguments"),
        ),
        "identifier" | "attribute" => (expr, None),
        _ => return None,
    };
    let imports = |module: &str, name: &str| {
        src.lines().any(|l| {
            let l = l.trim_start();
            l.starts_with(&format!("from {module}"))
                && l.split_once(" import ")
                    .is_some_and(|(_, names)| names.split([',', ' ', '(', ')']).any(|w| w == name))
        })
    };
    match callee.kind() {
        "identifier" => match text(callee, src) {
            "tool" if imports("langchain", "tool") => {
                let name = first_positional(args)
                    .filter(|a| a.kind() == "string")
                    .or_else(|| kwarg(args, "name_or_callable", src));
                Some(("langchain", name, args))
            }
            "function_tool" if imports("agents", "function_tool") => {
                // The SDK sends a strict schema (every object closed with
                // `additionalProperties: false`, which OpenAI enforces)
                // unless told not to.
                let lax =
                    kwarg(args, "strict_json_schema", src).is_some_and(|v| text(v, src) == "False");
                let server = if lax { "agents-lax" } else { STRICT_AGENTS };
                Some((server, kwarg(args, "name_override", src), args))
            }
            // A project decorator that hands the function to LangChain's
            // `tool`: `def tracked_tool(func): return tool(func)`.
            wrapper if args.is_none() && imports("langchain", "tool") => {
                let mut root = d;
                while let Some(p) = root.parent() {
                    root = p;
                }
                let def = find_function(root, wrapper, src)?;
                let param = def
                    .child_by_field_name("parameters")
                    .and_then(|p| p.named_child(0))
                    .map(|p| text(p, src))?;
                let body = text(def.child_by_field_name("body")?, src);
                body.contains(&format!("return tool({param})"))
                    .then_some(("langchain", None, None))
            }
            _ => None,
        },
        "attribute" => {
            let attr = callee
                .child_by_field_name("attribute")
                .map(|a| text(a, src))?;
            let obj = callee.child_by_field_name("object").map(|o| text(o, src))?;
            let agent = made_by(src, obj).is_some_and(|class| class.ends_with("Agent"))
                && src.contains("pydantic_ai");
            (matches!(attr, "tool" | "tool_plain") && agent)
                .then(|| ("pydantic-ai", kwarg(args, "name", src), args))
        }
        _ => None,
    }
}

/// A registration found in the code, before it is a [`ToolDef`].
struct Registration<'t> {
    server: String,
    /// The name given (`name=`), else the function's.
    name: Option<Spanned<String>>,
    /// The `description=` argument.
    description: Option<TsNode<'t>>,
    /// The function that handles the tool, when it is defined in the file.
    function: Option<TsNode<'t>>,
    at: Span,
    format: ToolFormat,
    /// Byte ranges of the name filled in at run time.
    holes: Vec<(usize, usize)>,
}

/// A registration's name (with its holes) and the function it names.
type NamedFn<'t> = (Option<Spanned<String>>, TsNode<'t>, Vec<(usize, usize)>);

/// The value of keyword argument `key` of a call's arguments.
fn kwarg<'t>(args: Option<TsNode<'t>>, key: &str, src: &str) -> Option<TsNode<'t>> {
    let args = args?;
    let mut c = args.walk();
    let found = args.named_children(&mut c).find(|a| {
        a.kind() == "keyword_argument"
            && a.child_by_field_name("name")
                .is_some_and(|n| text(n, src) == key)
    });
    found.and_then(|a| a.child_by_field_name("value"))
}

/// The `description=` argument, else a `**metadata` splat that may hold
/// one (`@mcp.tool(**prepare_metadata)`): known to be set at run time, not
/// missing.
fn described<'t>(args: Option<TsNode<'t>>, src: &str) -> Option<TsNode<'t>> {
    kwarg(args, "description", src).or_else(|| {
        let args = args?;
        let mut c = args.walk();
        args.named_children(&mut c)
            .find(|a| a.kind() == "dictionary_splat")
    })
}

fn tool_from(file: &Arc<SourceFile>, r: Registration) -> Option<ToolDef> {
    let src: &str = &file.text;
    let fn_name = r.function.and_then(|d| d.child_by_field_name("name"));
    let name = match (r.name, fn_name) {
        (Some(n), _) => n,
        (None, Some(f)) => Spanned {
            value: text(f, src).to_string(),
            span: span(f),
        },
        (None, None) => return None,
    };
    let (description, dynamic) = match r.description {
        Some(v) => match string_value(v, src) {
            Some(s) => (
                Some(Spanned {
                    value: s,
                    span: span(v),
                }),
                false,
            ),
            None => (None, true),
        },
        None => match r.function {
            // `_fn.__doc__ = f"..."` before it is registered: set at run time.
            Some(def)
                if def
                    .child_by_field_name("name")
                    .is_some_and(|n| src.contains(&format!("{}.__doc__", text(n, src)))) =>
            {
                (None, true)
            }
            Some(def) => (docstring(def, src), false),
            // A function from another module: its docstring is not here.
            None => (None, true),
        },
    };
    let schema = r
        .function
        .and_then(|d| d.child_by_field_name("parameters"))
        .map(|p| signature_schema(p, src));
    Some(ToolDef {
        name,
        name_file: Arc::clone(file),
        name_holes: r.holes,
        name_via: Vec::new(),
        name_alternatives: Vec::new(),
        description,
        description_dynamic: dynamic,
        input_schema: schema,
        schema_file: Arc::clone(file),
        schema_derived: true,
        handler: fn_name.map(|f| Handler {
            file: Arc::clone(file),
            span: span(f),
            name: text(f, src).to_string(),
        }),
        branch: None,
        names_mapped: false,
        bound_before: None,
        literal_list: None,
        cfg: None,
        intake: None,
        needs_import: None,
        strict: None,
        extras: None,
        format: r.format,
        file: Arc::clone(file),
        span: r.at,
        pointer: String::new(),
        name_pointer: "/name".into(),
        schema_pointer: "/inputSchema".into(),
        schema_kind: SchemaKind::JsonSchema,
        // The tools of one server object are offered together.
        group: format!("{}#{}", file.display, r.server),
    })
}

/// `mcp.tool(name="x")(fn)` and `mcp.add_tool(fn, name="x")`, alone or in
/// a loop over a literal of names (`for name, fn in TOOLS.items():`): one
/// tool per name.
fn call_registrations(
    file: &Arc<SourceFile>,
    fw: &Frameworks,
    root: TsNode,
    call: TsNode,
    out: &mut Vec<ToolDef>,
) {
    let src: &str = &file.text;
    let Some(callee) = call.child_by_field_name("function") else {
        return;
    };
    let outer_args = call.child_by_field_name("arguments");
    // `X.tool(..)(fn)` or `X.add_tool(fn, ..)`
    let (attr_node, kw_args, fn_arg) = match callee.kind() {
        "call" => {
            let Some(inner) = callee.child_by_field_name("function") else {
                return;
            };
            (
                inner,
                callee.child_by_field_name("arguments"),
                first_positional(outer_args),
            )
        }
        "attribute" => (callee, outer_args, first_positional(outer_args)),
        _ => return,
    };
    if attr_node.kind() != "attribute" {
        return;
    }
    let method = attr_node
        .child_by_field_name("attribute")
        .map(|a| text(a, src))
        .unwrap_or("");
    let wanted = if callee.kind() == "call" {
        "tool"
    } else {
        "add_tool"
    };
    if method != wanted {
        return;
    }
    let Some(object) = attr_node.child_by_field_name("object") else {
        return;
    };
    let obj = text(object, src);
    if !is_server_object(call, obj, src) {
        return;
    }
    let Some(fn_arg) = fn_arg else { return };
    let name_arg = kwarg(kw_args, "name", src);
    let description = described(kw_args, src);
    // The names: a literal, or the keys of the literal a loop walks.
    let names: Vec<NamedFn> = match name_arg {
        None => vec![(None, fn_arg, Vec::new())],
        Some(v) => {
            let looped: Vec<_> = if v.kind() == "identifier" {
                loop_pairs(root, call, text(v, src), fn_arg, src)
                    .into_iter()
                    .map(|(k, f)| (Some(k), f, Vec::new()))
                    .collect()
            } else {
                Vec::new()
            };
            if looped.is_empty() {
                let (value, holes) = name_value(v, src);
                vec![(
                    Some(Spanned {
                        value,
                        span: span(v),
                    }),
                    fn_arg,
                    holes,
                )]
            } else {
                looped
            }
        }
    };
    for (name, f, holes) in names {
        let function = (f.kind() == "identifier")
            .then(|| find_function(root, text(f, src), src))
            .flatten();
        // A function imported from another module (`mcp.tool()(get_projects)`):
        // named after it; its schema and docstring are not here.
        let name = name.or_else(|| {
            (f.kind() == "identifier" && fw.imports(text(f, src))).then(|| imported_name(f, src))
        });
        if name.is_none() && function.is_none() {
            continue;
        }
        out.extend(
            tool_from(
                file,
                Registration {
                    server: obj.to_string(),
                    name,
                    description,
                    function,
                    at: span(call),
                    format: ToolFormat::Fastmcp,
                    holes,
                },
            )
            .map(|mut t| {
                t.branch = branch(call);
                t
            }),
        );
    }
}

/// Agent frameworks' call forms: LangChain's
/// `StructuredTool.from_function(func=f, name=.., description=..)` (and
/// `Tool.from_function`), pydantic-ai's `agent.tool_plain(f)` /
/// `agent.tool(f)` on an `Agent(..)` and its `Agent(.., tools=[f,
/// Tool(g, name=..)])`. The function may be a method (`self.search`).
fn framework_registrations(
    file: &Arc<SourceFile>,
    fw: &Frameworks,
    root: TsNode,
    call: TsNode,
    out: &mut Vec<ToolDef>,
) {
    let src: &str = &file.text;
    let Some(callee) = call.child_by_field_name("function") else {
        return;
    };
    let args = call.child_by_field_name("arguments");
    let callee_text = text(callee, src);
    let last = callee_text.rsplit('.').next().unwrap_or(callee_text);
    // A tool for function `f` (one of the file's, or imported from another
    // module: then named after it, with no schema here).
    let make =
        |server: &str, f: TsNode, name: Option<TsNode>, description: Option<TsNode>, at: TsNode| {
            let function = function_of(root, call, f, src);
            if function.is_none() && !(f.kind() == "identifier" && fw.imports(text(f, src))) {
                return None;
            }
            let (name, holes) = given_name(name, src);
            let name = name.or_else(|| function.is_none().then(|| imported_name(f, src)));
            tool_from(
                file,
                Registration {
                    server: server.to_string(),
                    name,
                    description,
                    function,
                    at: span(at),
                    format: ToolFormat::PythonFunction,
                    holes,
                },
            )
        };
    let register = |server: &str, f: TsNode, kw: Option<TsNode>, at: TsNode| {
        make(
            server,
            f,
            kwarg(kw, "name", src).filter(|n| n.kind() == "string"),
            described(kw, src),
            at,
        )
    };
    // `tool("name", description=.., args_schema=Model)(f)`: the call form
    // of LangChain's `@tool`.
    if fw.langchain
        && callee.kind() == "call"
        && callee
            .child_by_field_name("function")
            .is_some_and(|g| g.kind() == "identifier" && text(g, src) == "tool")
        && fw.imports("tool")
        && let Some(f) =
            first_positional(args).filter(|f| matches!(f.kind(), "identifier" | "attribute"))
    {
        let inner = callee.child_by_field_name("arguments");
        let name = first_positional(inner)
            .filter(|a| a.kind() == "string")
            .or_else(|| kwarg(inner, "name_or_callable", src));
        if let Some(mut t) = make("langchain", f, name, described(inner, src), call) {
            if let Some(model) = kwarg(inner, "args_schema", src) {
                with_args_schema(&mut t, model, src);
            }
            out.push(t);
        }
        return;
    }
    if fw.langchain
        && matches!(
            callee_text,
            "StructuredTool.from_function" | "Tool.from_function"
        )
    {
        if let Some(f) = kwarg(args, "func", src).or_else(|| first_positional(args)) {
            out.extend(register("langchain", f, args, call));
        }
        return;
    }
    if !fw.pydantic_ai {
        return;
    }
    // `agent.tool_plain(f)`: the call form of the decorator.
    if callee.kind() == "attribute"
        && matches!(last, "tool" | "tool_plain")
        && let Some(obj) = callee.child_by_field_name("object")
        && is_agent(call, text(obj, src), src)
        && let Some(f) = first_positional(args)
        && matches!(f.kind(), "identifier" | "attribute")
    {
        out.extend(register("pydantic-ai", f, args, call));
        return;
    }
    // `Agent(.., tools=[f, Tool(g, name=..)])`
    if last == "Agent"
        && let Some(list) = kwarg(args, "tools", src).filter(|l| l.kind() == "list")
    {
        // Each agent's list is offered on its own: one tool in two agents
        // is not a duplicate.
        let server = format!("pydantic-ai@{}", list.start_byte());
        let mut c = list.walk();
        for item in list.named_children(&mut c) {
            match item.kind() {
                "identifier" | "attribute" => out.extend(register(&server, item, None, item)),
                "call" if callee_name(item, src) == "Tool" => {
                    let a = item.child_by_field_name("arguments");
                    if let Some(f) = kwarg(a, "function", src).or_else(|| first_positional(a)) {
                        out.extend(register(&server, f, a, item));
                    }
                }
                _ => {}
            }
        }
    }
}

/// `left = right` as a statement: its two sides.
pub(crate) fn assignment(stmt: TsNode) -> Option<(TsNode, TsNode)> {
    let a = stmt.named_child(0).filter(|a| a.kind() == "assignment")?;
    Some((
        a.child_by_field_name("left")?,
        a.child_by_field_name("right")?,
    ))
}

/// A name given to a registration (`name="x"`, an f-string, a constant),
/// with the byte ranges filled in at run time.
fn given_name(v: Option<TsNode>, src: &str) -> (Option<Spanned<String>>, Vec<(usize, usize)>) {
    match v {
        Some(v) => {
            let (value, holes) = name_value(v, src);
            (
                Some(Spanned {
                    value,
                    span: span(v),
                }),
                holes,
            )
        }
        None => (None, Vec::new()),
    }
}

/// The name of a function passed by name (`get_projects`), where it is
/// passed.
fn imported_name(f: TsNode, src: &str) -> Spanned<String> {
    Spanned {
        value: text(f, src).to_string(),
        span: span(f),
    }
}

/// `obj` is a pydantic-ai agent: made from `Agent(..)` in the file, or a
/// parameter typed as one (`def register(self, agent: Agent[None, str])`).
fn is_agent(at: TsNode, obj: &str, src: &str) -> bool {
    let agent = |class: &str| {
        let base = class.split('[').next().unwrap_or(class).trim();
        base.rsplit('.').next().unwrap_or(base) == "Agent"
    };
    made_by(src, obj).is_some_and(|c| c.ends_with("Agent"))
        || (obj != "self" && server_parameter(at, obj, src, &agent) && {
            // Untyped, `server_parameter` takes names like `mcp`: not an agent.
            let lower = obj.to_ascii_lowercase();
            !(lower.contains("mcp") || lower.contains("server"))
        })
}

/// A tool class of LangChain or CrewAI: `class Search(BaseTool):` with
/// `name: str = "search"`, `description: str = ".."`, an optional
/// `args_schema: Type[BaseModel] = SearchInput` and a `_run` method (the
/// handler). The schema is the `args_schema` model's; without one, CrewAI
/// derives it from `_run`'s signature (LangChain takes a single string,
/// which is not judged).
fn base_tool_class(file: &Arc<SourceFile>, fw: &Frameworks, class: TsNode) -> Option<ToolDef> {
    let src: &str = &file.text;
    let bases = class.child_by_field_name("superclasses")?;
    let is_tool = {
        let mut c = bases.walk();
        bases.named_children(&mut c).any(|b| {
            let t = text(b, src);
            t.rsplit('.').next() == Some("BaseTool")
        })
    };
    let framework = if fw.crewai {
        "crewai"
    } else if fw.langchain {
        "langchain"
    } else {
        return None;
    };
    if !is_tool {
        return None;
    }
    let body = class.child_by_field_name("body")?;
    let mut name = None;
    let mut description = None;
    let mut args_schema = None;
    let mut run = None;
    let mut c = body.walk();
    for stmt in body.named_children(&mut c) {
        match stmt.kind() {
            "expression_statement" => {
                let Some((l, r)) = assignment(stmt) else {
                    continue;
                };
                match text(l, src) {
                    "name" => name = Some(r),
                    "description" => description = Some(r),
                    "args_schema" => args_schema = Some(r),
                    _ => {}
                }
            }
            "function_definition" | "decorated_definition" => {
                let def = if stmt.kind() == "decorated_definition" {
                    stmt.child_by_field_name("definition")?
                } else {
                    stmt
                };
                if def
                    .child_by_field_name("name")
                    .is_some_and(|n| text(n, src) == "_run")
                {
                    run = Some(def);
                }
            }
            _ => {}
        }
    }
    let description = description.map(unparenthesised);
    // An abstract base (`class GmailToolBase(BaseTool)` without `_run`).
    run?;
    let name = name.map(unparenthesised).filter(|n| n.kind() == "string")?;
    let (value, holes) = name_value(name, src);
    let mut t = tool_from(
        file,
        Registration {
            server: framework.to_string(),
            name: Some(Spanned {
                value,
                span: span(name),
            }),
            description,
            function: run,
            at: span(class),
            format: ToolFormat::PythonFunction,
            holes,
        },
    )?;
    // Not the method's docstring: the class attribute is the description.
    if description.is_none() {
        t.description = None;
        t.description_dynamic = false;
    }
    match args_schema {
        Some(model) => with_args_schema(&mut t, model, src),
        None if framework == "langchain" => t.input_schema = None,
        None => {}
    }
    Some(t)
}

/// The schema of `args_schema=Model` (LangChain, CrewAI): the model's, when
/// the file defines it; else not known here.
fn with_args_schema(t: &mut ToolDef, model: TsNode, src: &str) {
    let record = (model.kind() == "identifier")
        .then(|| records::find(model, text(model, src), src))
        .flatten();
    t.input_schema = record.map(|r| {
        let at = r.name_span;
        synth(NodeKind::Object(record_schema(&r, src, 0)), at)
    });
}

/// `("a" "b")` → the concatenation inside.
fn unparenthesised(n: TsNode) -> TsNode {
    if n.kind() == "parenthesized_expression" {
        n.named_child(0).unwrap_or(n)
    } else {
        n
    }
}

/// The function `f` names at `at`: one of the file's (`search`), or a
/// method of the class `at` is in (`self.search`).
fn function_of<'t>(
    root: TsNode<'t>,
    at: TsNode<'t>,
    f: TsNode<'t>,
    src: &str,
) -> Option<TsNode<'t>> {
    match f.kind() {
        "identifier" => find_function(root, text(f, src), src),
        "attribute" => {
            let obj = f.child_by_field_name("object")?;
            if text(obj, src) != "self" {
                return None;
            }
            let name = text(f.child_by_field_name("attribute")?, src);
            let mut class = at.parent();
            while let Some(c) = class {
                if c.kind() == "class_definition" {
                    let body = c.child_by_field_name("body")?;
                    return find_function(body, name, src);
                }
                class = c.parent();
            }
            None
        }
        _ => None,
    }
}

fn first_positional(args: Option<TsNode>) -> Option<TsNode> {
    let args = args?;
    let mut c = args.walk();
    args.named_children(&mut c)
        .find(|a| !matches!(a.kind(), "keyword_argument" | "comment"))
}

/// `for name, fn in TOOLS.items():` (or `for name in TOOLS`, or over a
/// literal list of pairs) around `call`, where `name_var` is the loop's
/// name: each literal name with the function given for it.
fn loop_pairs<'t>(
    root: TsNode<'t>,
    call: TsNode<'t>,
    name_var: &str,
    fn_arg: TsNode<'t>,
    src: &'t str,
) -> Vec<(Spanned<String>, TsNode<'t>)> {
    let mut at = call.parent();
    while let Some(n) = at {
        if n.kind() == "for_statement" {
            break;
        }
        at = n.parent();
    }
    let Some(for_stmt) = at else {
        return Vec::new();
    };
    let (Some(left), Some(right)) = (
        for_stmt.child_by_field_name("left"),
        for_stmt.child_by_field_name("right"),
    ) else {
        return Vec::new();
    };
    let targets: Vec<&str> = {
        let mut c = left.walk();
        match left.kind() {
            "identifier" => vec![text(left, src)],
            _ => left.named_children(&mut c).map(|t| text(t, src)).collect(),
        }
    };
    let fn_var = (fn_arg.kind() == "identifier").then(|| text(fn_arg, src));
    // What is walked: `D.items()`, `D.keys()`, `D`, or a literal.
    let (source, items) = match right.kind() {
        "call" => {
            let Some(f) = right.child_by_field_name("function") else {
                return Vec::new();
            };
            let Some(obj) = f.child_by_field_name("object") else {
                return Vec::new();
            };
            let m = f
                .child_by_field_name("attribute")
                .map(|a| text(a, src))
                .unwrap_or("");
            (resolve_literal(obj, src, root), m == "items")
        }
        _ => (resolve_literal(right, src, root), false),
    };
    let Some(source) = source else {
        return Vec::new();
    };
    // `for name, fn in ..`: each name's function is the value beside it.
    let paired = targets.len() == 2 && targets[0] == name_var && Some(targets[1]) == fn_var;
    let named = |name: String, at: TsNode, f: TsNode<'t>| {
        (
            Spanned {
                value: name,
                span: span(at),
            },
            f,
        )
    };
    let mut out = Vec::new();
    let mut c = source.walk();
    match source.kind() {
        "dictionary" => {
            for pair in source.named_children(&mut c).filter(|p| p.kind() == "pair") {
                let (Some(k), Some(v)) = (
                    pair.child_by_field_name("key"),
                    pair.child_by_field_name("value"),
                ) else {
                    continue;
                };
                let Some(name) = string_value(k, src) else {
                    continue;
                };
                out.push(named(name, k, if items && paired { v } else { fn_arg }));
            }
        }
        "list" | "tuple" => {
            for item in source.named_children(&mut c) {
                match item.kind() {
                    "string" => {
                        if let Some(name) = string_value(item, src) {
                            out.push(named(name, item, fn_arg));
                        }
                    }
                    "tuple" | "list" => {
                        let mut c2 = item.walk();
                        let parts: Vec<TsNode> = item.named_children(&mut c2).collect();
                        let (Some(k), Some(v)) = (parts.first(), parts.get(1)) else {
                            continue;
                        };
                        let Some(name) = string_value(*k, src) else {
                            continue;
                        };
                        out.push(named(name, *k, if paired { *v } else { fn_arg }));
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    if !targets.contains(&name_var) {
        return Vec::new();
    }
    out
}

/// A dict or list literal: the node itself, or what a name is assigned in
/// the file (`TOOLS = {..}`).
fn resolve_literal<'t>(n: TsNode<'t>, src: &'t str, root: TsNode<'t>) -> Option<TsNode<'t>> {
    match n.kind() {
        "dictionary" | "list" | "tuple" => Some(n),
        "identifier" => {
            let name = text(n, src);
            find_first(root, 0, &|a| {
                if a.kind() == "assignment"
                    && a.child_by_field_name("left")
                        .is_some_and(|l| text(l, src) == name)
                    && let Some(r) = a.child_by_field_name("right")
                    && matches!(r.kind(), "dictionary" | "list" | "tuple")
                {
                    return Some(r);
                }
                None
            })
        }
        _ => None,
    }
}

/// The first node under `n`, in source order, for which `pick` gives one.
fn find_first<'t>(
    n: TsNode<'t>,
    depth: usize,
    pick: &dyn Fn(TsNode<'t>) -> Option<TsNode<'t>>,
) -> Option<TsNode<'t>> {
    if depth > MAX_DEPTH {
        return None;
    }
    if let Some(found) = pick(n) {
        return Some(found);
    }
    let mut c = n.walk();
    for child in n.named_children(&mut c) {
        if let Some(found) = find_first(child, depth + 1, pick) {
            return Some(found);
        }
    }
    None
}

/// The function defined in the file under `name` (the first one).
fn find_function<'t>(root: TsNode<'t>, name: &str, src: &str) -> Option<TsNode<'t>> {
    find_first(root, 0, &|n| {
        (n.kind() == "function_definition"
            && n.child_by_field_name("name")
                .is_some_and(|f| text(f, src) == name))
        .then_some(n)
    })
}

/// A decorator `@<obj>.tool` or `@<obj>.tool(...)`: the object's text and
/// the call's arguments.
fn tool_decorator<'t>(d: TsNode<'t>, src: &str) -> Option<(String, Option<TsNode<'t>>)> {
    let mut c = d.walk();
    let expr = d.named_children(&mut c).next()?;
    let (callee, args) = match expr.kind() {
        "call" => (
            expr.child_by_field_name("function")?,
            expr.child_by_field_name("arguments"),
        ),
        "attribute" => (expr, None),
        _ => return None,
    };
    if callee.kind() != "attribute" {
        return None;
    }
    let attr = callee.child_by_field_name("attribute")?;
    if text(attr, src) != "tool" {
        return None;
    }
    let object = callee.child_by_field_name("object")?;
    let obj = text(object, src);
    is_server_object(d, obj, src).then(|| (obj.to_string(), args))
}

/// `obj` (used at `at`) is an MCP server. A server object is named
/// anything: it counts when it is made from a server class in the file,
/// or, made elsewhere, when the file imports an MCP server module or the
/// object itself from the project (`from src.server import mcp`), or when
/// it is a parameter of a registering function.
fn is_server_object(at: TsNode, obj: &str, src: &str) -> bool {
    // `FastMCP(..)`, `mcp.server.Server(..)`, `FastMCP.from_openapi(..)`.
    let server_class = |class: &str| {
        class
            .split('.')
            .any(|seg| seg.contains("MCP") || seg.contains("Mcp") || seg.ends_with("Server"))
    };
    match made_by(src, obj) {
        Some(class) => server_class(class),
        None => {
            imports_mcp(src)
                || imports_name(src, obj)
                || server_parameter(at, obj, src, &server_class)
                // `from app.runtime import *` bringing in `mcp`.
                || (obj.to_ascii_lowercase().contains("mcp")
                    && src.lines().any(|l| {
                        let l = l.trim_start();
                        l.starts_with("from ") && l.trim_end().ends_with(" import *")
                    }))
        }
    }
}

/// `def register_tools(mcp): @mcp.tool() ..`: the server object is a
/// parameter of the enclosing function, typed as a server class, or
/// untyped and named like one (`mcp`, `server`).
fn server_parameter(d: TsNode, obj: &str, src: &str, server_class: &dyn Fn(&str) -> bool) -> bool {
    let mut at = d.parent();
    while let Some(n) = at {
        if n.kind() == "function_definition" {
            let Some(params) = n.child_by_field_name("parameters") else {
                return false;
            };
            let mut c = params.walk();
            return params.named_children(&mut c).any(|p| {
                let (name, ty) = match p.kind() {
                    "identifier" => (Some(p), None),
                    "typed_parameter" => {
                        let mut c = p.walk();
                        let name = p.named_children(&mut c).find(|n| n.kind() == "identifier");
                        (name, p.child_by_field_name("type"))
                    }
                    "default_parameter" | "typed_default_parameter" => {
                        (p.child_by_field_name("name"), p.child_by_field_name("type"))
                    }
                    _ => (None, None),
                };
                name.is_some_and(|n| text(n, src) == obj)
                    && match ty.map(|t| text(t, src).trim_matches('"')) {
                        Some(t) if !matches!(t, "Any" | "typing.Any" | "object") => server_class(t),
                        _ => {
                            let lower = obj.to_ascii_lowercase();
                            lower.contains("mcp") || lower.contains("server")
                        }
                    }
            });
        }
        at = n.parent();
    }
    false
}

/// Does this file make the FastMCP server `name` (`mcp = FastMCP("x")`)?
pub fn makes_fastmcp(src: &str, name: &str) -> bool {
    made_by(src, name).is_some_and(|c| c.ends_with("FastMCP"))
}

/// Does this file make `name` from the MCP SDK's low-level `Server`
/// (`app = Server("x")` with `from mcp.server import Server`,
/// `mcp.server.lowlevel.Server(..)`), which has no `tool` decorator?
pub fn makes_lowlevel_server(src: &str, name: &str) -> bool {
    made_by(src, name).is_some_and(|c| match c {
        "mcp.server.Server" | "mcp.server.lowlevel.Server" => true,
        "Server" | "lowlevel.Server" => src.lines().any(|l| {
            let l = l.trim_start();
            (l.starts_with("from mcp.server import ")
                || l.starts_with("from mcp.server.lowlevel import "))
                && (l.contains("Server") || l.contains("lowlevel"))
        }),
        _ => false,
    })
}

/// The class `name` is made from in this file (`name = FastMCP("x")`).
pub fn made_by<'s>(src: &'s str, name: &str) -> Option<&'s str> {
    src.lines().find_map(|l| {
        let rest = l.trim_start().strip_prefix(name)?;
        let rest = rest.trim_start();
        // `mcp: FastMCP = FastMCP(..)` or `mcp = FastMCP(..)`
        let rest = match rest.strip_prefix(':') {
            Some(r) => r.split_once('=')?.1,
            None => rest.strip_prefix('=')?,
        };
        let rest = rest.trim_start();
        if rest.starts_with('=') {
            return None; // `==`
        }
        let class = rest.split('(').next()?.trim();
        (!class.is_empty() && rest.contains('(')).then_some(class)
    })
}

/// The file imports FastMCP or the MCP SDK.
fn imports_mcp(src: &str) -> bool {
    src.lines().any(|l| {
        let l = l.trim_start();
        ["from fastmcp", "import fastmcp", "from mcp", "import mcp"]
            .iter()
            .any(|p| l.starts_with(p) && l[p.len()..].starts_with([' ', '.', ',']))
    })
}

/// The file imports `name` (`from x import a, name`, `import name`).
fn imports_name(src: &str, name: &str) -> bool {
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return false;
    }
    src.lines().any(|l| {
        let l = l.trim_start();
        let names = if l.starts_with("from ") {
            l.split_once(" import ").map(|(_, n)| n)
        } else {
            l.strip_prefix("import ")
        };
        names.is_some_and(|n| {
            n.split(|c: char| c == ',' || c.is_whitespace() || c == '(' || c == ')')
                .any(|w| w == name)
        })
    })
}

/// The value of a string literal (or implicitly concatenated literals);
/// `None` for f-strings with interpolations and anything else.
pub(crate) fn string_value(n: TsNode, src: &str) -> Option<String> {
    match n.kind() {
        "string" => {
            let mut out = String::new();
            let raw = text(n, src);
            let prefix: String = raw
                .chars()
                .take_while(|c| c.is_ascii_alphabetic())
                .collect::<String>()
                .to_ascii_lowercase();
            let is_raw = prefix.contains('r');
            let mut c = n.walk();
            for part in n.named_children(&mut c) {
                match part.kind() {
                    "string_start" | "string_end" => {}
                    "string_content" => out.push_str(text(part, src)),
                    "escape_sequence" if !is_raw => out.push_str(&unescape(text(part, src))),
                    "escape_sequence" => out.push_str(text(part, src)),
                    _ => return None, // an interpolation
                }
            }
            Some(out)
        }
        "concatenated_string" => {
            let mut out = String::new();
            let mut c = n.walk();
            for part in n.named_children(&mut c) {
                out.push_str(&string_value(part, src)?);
            }
            Some(out)
        }
        "parenthesized_expression" => {
            let mut c = n.walk();
            let inner = n.named_children(&mut c).next()?;
            string_value(inner, src)
        }
        _ => None,
    }
}

fn unescape(e: &str) -> String {
    match e {
        "\\n" => "\n".into(),
        "\\t" => "\t".into(),
        "\\r" => "\r".into(),
        "\\\\" => "\\".into(),
        "\\\"" => "\"".into(),
        "\\'" => "'".into(),
        "\\\n" => String::new(),
        _ => e.to_string(),
    }
}

/// The function's docstring, cleaned as `inspect.getdoc` does (FastMCP's
/// description when none is given).
fn docstring(def: TsNode, src: &str) -> Option<Spanned<String>> {
    let body = def.child_by_field_name("body")?;
    let mut c = body.walk();
    let first = body.named_children(&mut c).next()?;
    if first.kind() != "expression_statement" {
        return None;
    }
    let mut c2 = first.walk();
    let s = first.named_children(&mut c2).next()?;
    let value = string_value(s, src)?;
    Some(Spanned {
        value: cleandoc(&value),
        span: span(s),
    })
}

/// `inspect.cleandoc`: strip the first line, dedent the rest by their
/// common indentation, drop leading and trailing blank lines.
fn cleandoc(doc: &str) -> String {
    let mut lines = doc.lines();
    let first = lines.next().unwrap_or("").trim().to_string();
    let rest: Vec<&str> = lines.collect();
    let indent = rest
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out: Vec<String> = vec![first];
    out.extend(
        rest.iter()
            .map(|l| l.get(indent..).unwrap_or("").trim_end().to_string()),
    );
    while out.first().is_some_and(|l| l.is_empty()) {
        out.remove(0);
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out.join("\n")
}

/// The input schema pydantic derives from a signature: one property per
/// parameter (not `self`, `cls`, `*args`, `**kwargs` or a FastMCP
/// `Context`), required when it has no default.
fn signature_schema(params: TsNode, src: &str) -> Node {
    let at = span(params);
    let mut props = Vec::new();
    let mut required = Vec::new();
    let mut c = params.walk();
    for p in params.named_children(&mut c) {
        let (name, ty, default) = match p.kind() {
            "identifier" => (Some(p), None, None),
            "typed_parameter" => {
                let mut c = p.walk();
                let name = p.named_children(&mut c).find(|n| n.kind() == "identifier");
                (name, p.child_by_field_name("type"), None)
            }
            "default_parameter" => (
                p.child_by_field_name("name"),
                None,
                p.child_by_field_name("value"),
            ),
            "typed_default_parameter" => (
                p.child_by_field_name("name"),
                p.child_by_field_name("type"),
                p.child_by_field_name("value"),
            ),
            _ => continue, // *args, **kwargs, `/`, `*`
        };
        let Some(name) = name.filter(|n| n.kind() == "identifier") else {
            continue;
        };
        let key = text(name, src);
        let ty_text = ty.map(|t| text(t, src)).unwrap_or("");
        // Filled by the framework, not the model: an MCP `Context`,
        // pydantic-ai's `RunContext[..]`, LangChain's `RunnableConfig`,
        // callbacks and `Injected..` arguments.
        let last = ty_text.split('[').next().unwrap_or("");
        let last = last.rsplit('.').next().unwrap_or(last).trim();
        if matches!(key, "self" | "cls")
            || last.starts_with("Context")
            || matches!(
                last,
                "RunContext" | "RunContextWrapper" | "RunnableConfig" | "ToolContext"
            )
            || last.contains("CallbackManager")
            || ty_text.contains("Injected")
        {
            continue;
        }
        let pspan = span(p);
        let mut members = ty
            .map(|t| type_schema(t, src, pspan, 0))
            .unwrap_or_default();
        // `x: int = Field(10, description="…")`: the default and the words.
        let mut default = default;
        if let Some(call) =
            default.filter(|d| d.kind() == "call" && callee_name(*d, src) == "Field")
        {
            default = None;
            if let Some(args) = call.child_by_field_name("arguments") {
                let mut c = args.walk();
                for a in args.named_children(&mut c) {
                    if a.kind() == "keyword_argument" {
                        let (Some(k), Some(v)) = (
                            a.child_by_field_name("name"),
                            a.child_by_field_name("value"),
                        ) else {
                            continue;
                        };
                        match text(k, src) {
                            "description" => {
                                if let Some(d) = string_value(v, src) {
                                    members.push(member(
                                        "description",
                                        synth(NodeKind::String(d), span(v)),
                                        span(v),
                                    ));
                                }
                            }
                            "default" => default = Some(v),
                            _ => {}
                        }
                        members.extend(keyword_constraint(text(k, src), v, src));
                    } else if default.is_none() && a.kind() != "keyword_argument" {
                        default = Some(a);
                    }
                }
            }
            if default.is_none() {
                required.push(synth(NodeKind::String(key.to_string()), span(name)));
            }
        } else if default.is_none() {
            required.push(synth(NodeKind::String(key.to_string()), span(name)));
        }
        if let Some(v) = default.and_then(|d| literal(d, src)) {
            members.push(member("default", v, pspan));
        }
        props.push(member(
            key,
            synth(NodeKind::Object(members), pspan),
            span(name),
        ));
    }
    let mut root = vec![
        member("type", synth(NodeKind::String("object".into()), at), at),
        member("properties", synth(NodeKind::Object(props), at), at),
    ];
    if !required.is_empty() {
        root.push(member("required", synth(NodeKind::Array(required), at), at));
    }
    synth(NodeKind::Object(root), at)
}

/// A call that builds a tool definition from keyword arguments: the MCP
/// SDK's `types.Tool(..)` (and other `..Tool` classes), Gemini's
/// `types.FunctionDeclaration(..)`.
fn is_tool_call(callee: &str) -> bool {
    callee.ends_with("Tool") || callee == "FunctionDeclaration"
}

fn callee_name<'s>(call: TsNode, src: &'s str) -> &'s str {
    call.child_by_field_name("function")
        .map(|f| text(f, src).rsplit('.').next().unwrap_or(""))
        .unwrap_or("")
}

/// A literal default as a schema value: strings, numbers, booleans,
/// `None`; lists of them.
fn literal(n: TsNode, src: &str) -> Option<Node> {
    let at = span(n);
    Some(synth(
        match n.kind() {
            "string" | "concatenated_string" => NodeKind::String(string_value(n, src)?),
            "integer" | "float" => NodeKind::Number(text(n, src).replace('_', "")),
            "unary_operator" if text(n, src).starts_with('-') => {
                let inner = n.child_by_field_name("argument")?;
                if !matches!(inner.kind(), "integer" | "float") {
                    return None;
                }
                NodeKind::Number(format!("-{}", text(inner, src).replace('_', "")))
            }
            "true" => NodeKind::Bool(true),
            "false" => NodeKind::Bool(false),
            "none" => NodeKind::Null,
            "list" | "tuple" => {
                let mut c = n.walk();
                let items: Option<Vec<Node>> =
                    n.named_children(&mut c).map(|i| literal(i, src)).collect();
                NodeKind::Array(items?)
            }
            _ => return None,
        },
        at,
    ))
}

/// The JSON Schema pydantic writes for a type hint, as members; empty
/// (any value) for types not known here (classes of the project).
fn type_schema(t: TsNode, src: &str, at: Span, depth: usize) -> Vec<Member> {
    if depth > 8 {
        return Vec::new();
    }
    // `type` nodes wrap the expression.
    let t = if t.kind() == "type" {
        let mut c = t.walk();
        match t.named_children(&mut c).next() {
            Some(inner) => inner,
            None => return Vec::new(),
        }
    } else {
        t
    };
    let ty = |k: &str| vec![member("type", synth(NodeKind::String(k.into()), at), at)];
    match t.kind() {
        "identifier" | "attribute" => match text(t, src).rsplit('.').next().unwrap_or("") {
            "str" => ty("string"),
            "int" => ty("integer"),
            "float" => ty("number"),
            "bool" => ty("boolean"),
            // pydantic writes `"items": {}` for an array of anything.
            "list" | "List" | "tuple" | "Tuple" | "set" | "Set" | "Sequence" | "frozenset" => {
                any_items(ty("array"), at)
            }
            "dict" | "Dict" | "Mapping" => ty("object"),
            // A pydantic model or dataclass of this file.
            _ => records::find(t, text(t, src), src)
                .map(|r| record_schema(&r, src, depth + 1))
                .unwrap_or_default(),
        },
        // `X | None`
        "binary_operator" => {
            let (Some(l), Some(r)) = (
                t.child_by_field_name("left"),
                t.child_by_field_name("right"),
            ) else {
                return Vec::new();
            };
            let none = |n: TsNode| n.kind() == "none" || text(n, src) == "None";
            match (none(l), none(r)) {
                (false, true) => nullable(type_schema(l, src, at, depth + 1), at),
                (true, false) => nullable(type_schema(r, src, at, depth + 1), at),
                _ => Vec::new(),
            }
        }
        "generic_type" | "subscript" => {
            let base = if t.kind() == "subscript" {
                t.child_by_field_name("value")
                    .map(|v| text(v, src))
                    .unwrap_or("")
            } else {
                let mut c = t.walk();
                t.named_children(&mut c)
                    .next()
                    .map(|v| text(v, src))
                    .unwrap_or("")
            };
            let base = base.rsplit('.').next().unwrap_or("");
            let args = type_args(t);
            match base {
                "Optional" => match args.first() {
                    Some(a) => nullable(type_schema(*a, src, at, depth + 1), at),
                    None => Vec::new(),
                },
                "Annotated" => {
                    let mut m = args
                        .first()
                        .map(|a| type_schema(*a, src, at, depth + 1))
                        .unwrap_or_default();
                    for extra in args.iter().skip(1) {
                        if extra.kind() == "call" && callee_name(*extra, src) == "Field" {
                            if let Some(d) = field_description(*extra, src) {
                                m.push(member("description", synth(NodeKind::String(d), at), at));
                            }
                            m.extend(field_constraints(*extra, src));
                        } else if let Some(d) = string_value(*extra, src) {
                            m.push(member("description", synth(NodeKind::String(d), at), at));
                        }
                    }
                    m
                }
                "Literal" => {
                    let values: Option<Vec<Node>> = args.iter().map(|a| literal(*a, src)).collect();
                    let Some(values) = values else {
                        return Vec::new();
                    };
                    let mut m = Vec::new();
                    if values.iter().all(|v| matches!(v.kind, NodeKind::String(_))) {
                        m.push(member(
                            "type",
                            synth(NodeKind::String("string".into()), at),
                            at,
                        ));
                    }
                    m.push(member("enum", synth(NodeKind::Array(values), at), at));
                    m
                }
                "list" | "List" | "Sequence" | "set" | "Set" | "frozenset" => {
                    let mut m = ty("array");
                    let item = args
                        .first()
                        .map(|a| type_schema(*a, src, at, depth + 1))
                        .unwrap_or_default();
                    m.push(member("items", synth(NodeKind::Object(item), at), at));
                    m
                }
                "tuple" | "Tuple" => any_items(ty("array"), at),
                "dict" | "Dict" | "Mapping" => ty("object"),
                "Union" => {
                    let none: Vec<bool> = args.iter().map(|a| text(*a, src) == "None").collect();
                    match (args.len(), none.iter().filter(|n| **n).count()) {
                        (2, 1) => {
                            let other = args[none.iter().position(|n| !n).unwrap_or(0)];
                            nullable(type_schema(other, src, at, depth + 1), at)
                        }
                        _ => Vec::new(),
                    }
                }
                _ => Vec::new(),
            }
        }
        _ => Vec::new(),
    }
}

/// The schema pydantic derives from a model or dataclass (inlined where
/// pydantic writes a `$ref` to `$defs`), with spans at its fields.
fn record_schema(r: &records::Record, src: &str, depth: usize) -> Vec<Member> {
    let at = r.name_span;
    let mut props = Vec::new();
    let mut required = Vec::new();
    for f in &r.fields {
        let mut m =
            f.ty.map(|t| type_schema(t, src, f.span, depth + 1))
                .unwrap_or_default();
        if let Some(call) = f.field_call {
            if let Some(d) = field_description(call, src) {
                m.push(member(
                    "description",
                    synth(NodeKind::String(d), f.span),
                    f.span,
                ));
            }
            m.extend(field_constraints(call, src));
        }
        if let Some(v) = f.default.and_then(|d| literal(d, src)) {
            m.push(member("default", v, f.span));
        }
        if !f.optional {
            required.push(synth(NodeKind::String(f.wire.clone()), f.span));
        }
        props.push(member(&f.wire, synth(NodeKind::Object(m), f.span), f.span));
    }
    let mut out = vec![
        member("type", synth(NodeKind::String("object".into()), at), at),
        member("properties", synth(NodeKind::Object(props), at), at),
    ];
    if !required.is_empty() {
        out.push(member("required", synth(NodeKind::Array(required), at), at));
    }
    if r.forbid {
        out.push(member(
            "additionalProperties",
            synth(NodeKind::Bool(false), at),
            at,
        ));
    }
    out
}

fn any_items(mut m: Vec<Member>, at: Span) -> Vec<Member> {
    m.push(member("items", synth(NodeKind::Object(Vec::new()), at), at));
    m
}

/// The type arguments of `X[a, b]`.
fn type_args(t: TsNode) -> Vec<TsNode> {
    let mut out = Vec::new();
    let mut c = t.walk();
    for child in t.named_children(&mut c) {
        match child.kind() {
            "type_parameter" => {
                let mut c2 = child.walk();
                for a in child.named_children(&mut c2) {
                    out.push(if a.kind() == "type" {
                        let mut c3 = a.walk();
                        a.named_children(&mut c3).next().unwrap_or(a)
                    } else {
                        a
                    });
                }
            }
            _ if t.kind() == "subscript" && Some(child) != t.child_by_field_name("value") => {
                out.push(child)
            }
            _ => {}
        }
    }
    out
}

/// The bounds of a pydantic `Field(ge=1, le=20, max_length=..)`, as the
/// JSON Schema keywords pydantic writes for them.
fn field_constraints(call: TsNode, src: &str) -> Vec<Member> {
    let Some(args) = call.child_by_field_name("arguments") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut c = args.walk();
    for a in args.named_children(&mut c) {
        if a.kind() == "keyword_argument"
            && let (Some(k), Some(v)) = (
                a.child_by_field_name("name"),
                a.child_by_field_name("value"),
            )
        {
            out.extend(keyword_constraint(text(k, src), v, src));
        }
    }
    out
}

fn keyword_constraint(key: &str, v: TsNode, src: &str) -> Option<Member> {
    let keyword = match key {
        "ge" => "minimum",
        "le" => "maximum",
        "gt" => "exclusiveMinimum",
        "lt" => "exclusiveMaximum",
        "min_length" => "minLength",
        "max_length" => "maxLength",
        _ => return None,
    };
    matches!(v.kind(), "integer" | "float").then(|| {
        member(
            keyword,
            synth(NodeKind::Number(text(v, src).replace('_', "")), span(v)),
            span(v),
        )
    })
}

fn field_description(call: TsNode, src: &str) -> Option<String> {
    let args = call.child_by_field_name("arguments")?;
    let mut c = args.walk();
    let kw = args.named_children(&mut c).find(|a| {
        a.kind() == "keyword_argument"
            && a.child_by_field_name("name")
                .is_some_and(|n| text(n, src) == "description")
    })?;
    string_value(kw.child_by_field_name("value")?, src)
}

/// `Optional[X]`: pydantic v2 writes `anyOf: [X, {"type": "null"}]`.
fn nullable(inner: Vec<Member>, at: Span) -> Vec<Member> {
    if inner.is_empty() {
        return inner;
    }
    let null = vec![member(
        "type",
        synth(NodeKind::String("null".into()), at),
        at,
    )];
    vec![member(
        "anyOf",
        synth(
            NodeKind::Array(vec![
                synth(NodeKind::Object(inner), at),
                synth(NodeKind::Object(null), at),
            ]),
            at,
        ),
        at,
    )]
}

/// A name as far as it can be read: a string literal, a module constant
/// (`NAME = "x"`), a class constant (`Tools.SEARCH`, `Tools.SEARCH.value`),
/// an f-string or a `+` of those. What stays unknown is a hole, shown as
/// `{expr}`: the name rules judge the literal parts only.
pub(crate) fn name_value(n: TsNode, src: &str) -> (String, Vec<(usize, usize)>) {
    let mut out = String::new();
    let mut holes = Vec::new();
    name_parts(n, src, 0, &mut out, &mut holes);
    (out, holes)
}

fn name_parts(
    n: TsNode,
    src: &str,
    depth: usize,
    out: &mut String,
    holes: &mut Vec<(usize, usize)>,
) {
    let hole = |out: &mut String, holes: &mut Vec<(usize, usize)>, t: &str| {
        let start = out.len();
        let t: String = t.split_whitespace().collect();
        out.push('{');
        out.push_str(if t.len() > 40 { "…" } else { &t });
        out.push('}');
        holes.push((start, out.len()));
    };
    if depth > 4 {
        return hole(out, holes, text(n, src));
    }
    if let Some(s) = string_value(n, src) {
        out.push_str(&s);
        return;
    }
    match n.kind() {
        "string" => {
            let raw = text(n, src);
            let is_raw = raw
                .chars()
                .take_while(|c| c.is_ascii_alphabetic())
                .any(|c| c == 'r' || c == 'R');
            let mut c = n.walk();
            for part in n.named_children(&mut c) {
                match part.kind() {
                    "string_start" | "string_end" => {}
                    "string_content" => out.push_str(text(part, src)),
                    "escape_sequence" if !is_raw => out.push_str(&unescape(text(part, src))),
                    "escape_sequence" => out.push_str(text(part, src)),
                    "interpolation" => match part.child_by_field_name("expression") {
                        Some(e) => name_parts(e, src, depth + 1, out, holes),
                        None => hole(out, holes, text(part, src)),
                    },
                    _ => hole(out, holes, text(part, src)),
                }
            }
        }
        "binary_operator"
            if n.child_by_field_name("operator")
                .is_some_and(|o| text(o, src) == "+") =>
        {
            for side in ["left", "right"] {
                match n.child_by_field_name(side) {
                    Some(x) => name_parts(x, src, depth + 1, out, holes),
                    None => hole(out, holes, text(n, src)),
                }
            }
        }
        "identifier" | "attribute" | "dotted_name" => match constant(n, src) {
            Some(v) => name_parts(v, src, depth + 1, out, holes),
            None => hole(out, holes, text(n, src)),
        },
        _ => hole(out, holes, text(n, src)),
    }
}

/// The value a module constant (`NAME = "x"`) or a class constant
/// (`Tools.SEARCH = "x"`, read as `Tools.SEARCH` or `Tools.SEARCH.value`)
/// is assigned in this file, once.
pub(crate) fn constant<'t>(n: TsNode<'t>, src: &str) -> Option<TsNode<'t>> {
    let mut module = n;
    while let Some(p) = module.parent() {
        module = p;
    }
    let path: Vec<&str> = text(n, src)
        .split('.')
        .map(str::trim)
        .filter(|s| *s != "value")
        .collect();
    let (scope, name) = match path.as_slice() {
        [name] => (module, *name),
        [class, name] => {
            let mut c = module.walk();
            let class_def = module.named_children(&mut c).find_map(|s| {
                let def = if s.kind() == "decorated_definition" {
                    s.child_by_field_name("definition")?
                } else {
                    s
                };
                (def.kind() == "class_definition"
                    && def
                        .child_by_field_name("name")
                        .is_some_and(|x| text(x, src) == *class))
                .then_some(def)
            })?;
            (class_def.child_by_field_name("body")?, *name)
        }
        _ => return None,
    };
    let mut found = None;
    let mut c = scope.walk();
    for stmt in scope.named_children(&mut c) {
        let Some(a) = (stmt.kind() == "expression_statement")
            .then(|| stmt.named_child(0))
            .flatten()
            .filter(|a| a.kind() == "assignment")
        else {
            continue;
        };
        if a.child_by_field_name("left")
            .is_some_and(|l| text(l, src) == name)
        {
            if found.is_some() {
                return None; // assigned twice: not a constant
            }
            found = a.child_by_field_name("right");
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools(src: &str) -> Vec<ToolDef> {
        let file = Arc::new(SourceFile::new("server.py".into(), "server.py".into(), src));
        let tree = parse(src).unwrap();
        extract(&file, &tree)
    }

    #[test]
    fn import_paths_as_the_resolver_takes_them() {
        let text = "import os, k8s.client as kc\nfrom ..pkg import (\n    a,\n    b as c,  # note\n)\nfrom tools import *\nfrom . import x\n";
        let p = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            file_imports(text).1,
            vec![
                p(&["os"]),
                p(&["k8s", "client"]),
                p(&[".", ".", "pkg", "a"]),
                p(&[".", ".", "pkg", "b"]),
                p(&["tools"]),
                p(&[".", "x"]),
            ]
        );
    }

    #[test]
    fn fastmcp_decorators_name_description_and_schema() {
        let src = r#"from fastmcp import FastMCP
from typing import Annotated, Literal, Optional
from pydantic import Field

mcp = FastMCP("files")

@mcp.tool()
def read_file(path: str, max_bytes: int = 4096, encoding: Literal["utf-8", "latin-1"] = "utf-8") -> str:
    """Read a text file.

    Args:
        path: File to read.
    """
    return open(path).read(max_bytes)

@mcp.tool(name="fs.list", description="List a directory")
async def list_dir(path: Annotated[str, Field(description="Folder")], hidden: Optional[bool] = None, ctx: Context = None):
    return []

@mcp.tool
def stat(p: str, *args, **kwargs):
    pass

def helper(x):
    pass
"#;
        let t = tools(src);
        let names: Vec<&str> = t.iter().map(|t| t.name.value.as_str()).collect();
        assert_eq!(names, ["read_file", "fs.list", "stat"]);
        assert_eq!(
            t[0].description.as_ref().unwrap().value,
            "Read a text file.\n\nArgs:\n    path: File to read."
        );
        let s = t[0].input_schema.as_ref().unwrap().to_json();
        assert_eq!(s["required"], serde_json::json!(["path"]));
        assert_eq!(
            s["properties"]["max_bytes"],
            serde_json::json!({"type": "integer", "default": 4096})
        );
        assert_eq!(
            s["properties"]["encoding"],
            serde_json::json!({"type": "string", "enum": ["utf-8", "latin-1"], "default": "utf-8"})
        );
        assert_eq!(&src[t[1].name.span.range()], "\"fs.list\"");
        assert_eq!(t[1].description.as_ref().unwrap().value, "List a directory");
        let s = t[1].input_schema.as_ref().unwrap().to_json();
        assert_eq!(
            s["properties"]["path"],
            serde_json::json!({"type": "string", "description": "Folder"})
        );
        assert_eq!(
            s["properties"]["hidden"]["anyOf"],
            serde_json::json!([{"type": "boolean"}, {"type": "null"}])
        );
        assert!(s["properties"].get("ctx").is_none());
        assert_eq!(s["required"], serde_json::json!(["path"]));
        let s = t[2].input_schema.as_ref().unwrap().to_json();
        assert_eq!(
            s["properties"],
            serde_json::json!({"p": {"type": "string"}})
        );
        assert_eq!(t[0].group, t[1].group);
    }

    #[test]
    fn other_decorators_and_files_without_mcp_are_not_tools() {
        let src = "import click\n\n@cli.tool()\ndef run(x: int):\n    pass\n\n@app.route('/')\ndef index():\n    pass\n";
        assert!(tools(src).is_empty());
        assert!(!may_declare_tools("def f():\n    return 1\n"));
    }

    #[test]
    fn a_server_object_imported_from_the_project_counts() {
        let src = "from src.server import mcp\n\n@mcp.tool(tags={\"x\"})\ndef cerca(q: str) -> str:\n    \"\"\"Cerca.\"\"\"\n    return q\n";
        assert_eq!(tools(src).len(), 1);
        let other = "from src.server import app\n\n@mcp.tool()\ndef f():\n    pass\n";
        assert!(tools(other).is_empty());
    }

    #[test]
    fn only_objects_made_from_a_server_class_count() {
        let src = "from fastmcp import FastMCP\nmcp = FastMCP('x')\nbox = Toolbox()\n\n@box.tool\ndef a(x: str):\n    pass\n\n@mcp.tool\ndef b(x: str):\n    pass\n";
        let names: Vec<String> = tools(src).into_iter().map(|t| t.name.value).collect();
        assert_eq!(names, ["b"]);
        assert_eq!(
            made_by("server: FastMCP = FastMCP('s')\n", "server"),
            Some("FastMCP")
        );
        assert_eq!(
            made_by("app = mcp.server.Server('s')\n", "app"),
            Some("mcp.server.Server")
        );
    }

    #[test]
    fn the_low_level_server_is_told_from_others() {
        let low = "from mcp.server import Server\napp = Server('notes')\n";
        assert!(makes_lowlevel_server(low, "app"));
        assert!(makes_lowlevel_server(
            "import mcp\napp = mcp.server.lowlevel.Server('x')\n",
            "app"
        ));
        // uvicorn's `Server`, and FastMCP, are not it.
        assert!(!makes_lowlevel_server(
            "from uvicorn import Server\nserver = Server(config)\n",
            "server"
        ));
        assert!(!makes_lowlevel_server(
            "from mcp.server.fastmcp import FastMCP\napp = FastMCP('x')\n",
            "app"
        ));
        assert!(made_by(low, "app").is_some() && made_by(low, "mcp").is_none());
    }

    #[test]
    fn a_server_passed_to_a_registering_function_counts() {
        let src = "def register(mcp) -> None:\n    @mcp.tool()\n    def a(x: str) -> str:\n        return x\n\ndef other(box):\n    @box.tool\n    def b(x: str):\n        pass\n\ndef typed(app: \"FastMCP\"):\n    @app.tool()\n    def c():\n        pass\n";
        let names: Vec<String> = tools(src).into_iter().map(|t| t.name.value).collect();
        assert_eq!(names, ["a", "c"]);
    }

    #[test]
    fn provider_dicts_are_read_like_manifests() {
        let src = r#"import anthropic

TOOLS = [
    {
        "name": "fs.read",
        "description": "Read a file",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    },
    {"name": PREFIX + "_write", "input_schema": {"type": "object"}},
]

def openai_tools():
    return [{"type": "function", "function": {"name": "search", "description": "Search the web", "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}}]

config = {"name": "db", "parameters": {"host": "localhost"}}
"#;
        let t = tools(src);
        let names: Vec<&str> = t.iter().map(|t| t.name.value.as_str()).collect();
        assert_eq!(names, ["fs.read", "search"]);
        assert_eq!(&src[t[0].name.span.range()], "\"fs.read\"");
        assert_eq!(t[0].format, ToolFormat::Anthropic);
        assert_eq!(t[1].format, ToolFormat::OpenaiChat);
        let schema = t[0].input_schema.as_ref().unwrap();
        assert_eq!(
            &src[schema.get("required").unwrap().span.range()],
            "[\"path\"]"
        );
    }

    #[test]
    fn call_forms_and_loop_registrations() {
        let src = r#"from fastmcp import FastMCP
from .ops import fs_list, ps_exec

mcp = FastMCP("desktop")

def health() -> str:
    """Report whether the desktop agent is up."""
    return "ok"

mcp.tool(name="sys.health")(health)
mcp.add_tool(health, name="sys.ping", description="Ping the agent")

TOOLS = {
    "fs.list": fs_list,
    "powershell.exec": ps_exec,
}
for name, fn in TOOLS.items():
    mcp.tool(name=name)(fn)

for tool_name in ["a.b", "c.d"]:
    mcp.add_tool(health, name=tool_name)
"#;
        let t = tools(src);
        let got: Vec<(&str, &str)> = t
            .iter()
            .map(|t| (t.name.value.as_str(), &src[t.name.span.range()]))
            .collect();
        assert_eq!(
            got,
            [
                ("sys.health", "\"sys.health\""),
                ("sys.ping", "\"sys.ping\""),
                ("fs.list", "\"fs.list\""),
                ("powershell.exec", "\"powershell.exec\""),
                ("a.b", "\"a.b\""),
                ("c.d", "\"c.d\""),
            ]
        );
        // A function of this file: its docstring and signature.
        assert_eq!(
            t[0].description.as_ref().unwrap().value,
            "Report whether the desktop agent is up."
        );
        assert!(t[0].input_schema.is_some());
        assert_eq!(t[1].description.as_ref().unwrap().value, "Ping the agent");
        // An imported function: no schema, and its description is unknown.
        assert!(t[2].input_schema.is_none() && t[2].description_dynamic);
        assert_eq!(t[2].group, t[0].group);
    }

    #[test]
    fn mcp_sdk_tool_lists_are_read() {
        let src = r#"from mcp import types

async def list_tools() -> list[types.Tool]:
    return [
        types.Tool(
            name="stats.calculate",
            description="Statistics over search results",
            inputSchema={"type": "object", "properties": {"results": {"type": "array"}}, "required": ["results"]},
        ),
    ]

SINGLE = types.Tool(name="ping", description="Ping", inputSchema={"type": "object", "properties": {}})
"#;
        let t = tools(src);
        let names: Vec<&str> = t.iter().map(|t| t.name.value.as_str()).collect();
        assert_eq!(names, ["stats.calculate", "ping"]);
        assert_eq!(t[0].format, ToolFormat::Mcp);
        assert_eq!(&src[t[0].name.span.range()], "\"stats.calculate\"");
    }

    #[test]
    fn f_string_names_keep_their_unknown_parts_as_holes() {
        let src = "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x')\n@mcp.tool(name=f'{PREFIX}_run')\ndef run():\n    pass\n";
        let t = tools(src);
        assert_eq!(t[0].name.value, "{PREFIX}_run");
        assert_eq!(t[0].name_holes, [(0, 8)]);
        let known = format!("PREFIX = 'fs'\n{src}");
        let t = tools(&known);
        assert_eq!(t[0].name.value, "fs_run");
        assert!(t[0].name_holes.is_empty());
    }
}
