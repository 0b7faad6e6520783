//! The Python front-end's code facts: each function of a file that
//! declares tools, with its parameters, calls, argument-key reads and the
//! [`Site`]s where a value the model sent may be replaced or cut, as the
//! language-neutral model (`crate::model::code`) has them. The code rules
//! run on these facts unchanged; [`super::link`] decides which functions
//! are on the tool-call surface.
//!
//! What is recognised (tree-sitter-python):
//!
//! - handlers: functions decorated as tools (their parameters are the
//!   arguments), an MCP low-level server's `@server.call_tool()` function
//!   (its `arguments` parameter is the arguments object) and the arms of
//!   its `if name == "x":` / `match name:` dispatch, each a handler of its
//!   own (a synthetic function named `call_tool[x]`);
//! - key reads: `arguments.get("k")`, `arguments["k"]`, `.pop("k")`, and
//!   one level down (`arguments.get("o", {}).get("k")`);
//! - sites: `min(x, MAX)`/`max(..)` clamps (M301), `text[:LIMIT]` slices
//!   and collecting loops stopped at a cap (M302), `try: int(x) except
//!   ValueError: x = 0` (M202), `json.loads(..)` of call arguments with an
//!   `{}` fallback (M203), and selects: `TABLE.get(x, DEFAULT)` and
//!   `if x == "a": .. elif .. else:` chains (M201, M303).

use std::collections::HashMap;
use std::sync::Arc;

use tree_sitter::Node as TsNode;

use super::{span, string_value, text};
use crate::model::code::{
    Accepts, ArgsUse, Bound, BoundKind, CallFact, CallTarget, CutHow, Dispatch, FieldFact,
    FileFacts, FnFact, FunctionView, ImplFact, KeyPolicy, KeyRead, Literal, Outcome, ParamFact,
    SelectForm, Site, SiteKind, StructFact, ValueRef,
};
use crate::rules::{Context, RuleEntry};
use crate::source::{SourceFile, Span};

const MAX_DEPTH: usize = 200;

/// A value as far as it is followed in one function.
#[derive(Clone, Debug, Default)]
struct Var {
    /// The parameters it depends on.
    mask: u64,
    /// A requested value as sent (or a key, attribute or conversion of it).
    direct: bool,
    /// Holds the arguments object itself.
    root: u64,
    /// The argument it is, by the name the model knows.
    arg: Option<String>,
    /// Read from the arguments object under this key: an object whose keys
    /// are read one level down.
    parent: Option<String>,
    /// A parameter whose values are known: typed `Literal[..]` (pydantic
    /// refuses others), or with a literal default or documented values that
    /// a select must handle.
    values: Option<Values>,
}

#[derive(Clone, Debug, Default)]
struct Values {
    /// No other value gets in (`Literal[..]`, validated before the call).
    closed: bool,
    list: Vec<String>,
}

impl Var {
    fn join(&mut self, o: &Var) {
        self.mask |= o.mask;
        self.root |= o.root;
    }
}

/// What a handler-like function is, from its decorators.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Plain,
    /// A tool's own function: every parameter is an argument.
    Tool,
    /// `@server.call_tool()`: `(name, arguments)`.
    CallTool,
}

/// Analyses one parsed file that declares tools. `tool_fns` are where the
/// names of the functions the file registers as tools start.
pub fn analyze(
    file: &Arc<SourceFile>,
    root: TsNode,
    tool_fns: &[usize],
    cx: &Context,
    rules: &[&'static RuleEntry],
) -> FileFacts {
    let mut a = Analyzer {
        src: &file.text,
        tool_fns,
        m: Module {
            signatures: HashMap::new(),
            classes: Default::default(),
            splats: HashMap::new(),
            tables: HashMap::new(),
            markers: cx.truncation_markers,
        },
        splat_counts: HashMap::new(),
        facts: FileFacts::new(file),
    };
    a.prepass(root, 0);
    for (name, n) in &a.splat_counts {
        if let Some(sp) = a.m.splats.get_mut(name) {
            sp.splat_calls = *n;
        }
    }
    a.facts.structs = super::records::all(root, a.src)
        .into_iter()
        .map(|r| struct_fact(&r))
        .collect();
    a.facts.key_policies = key_policies(file, root);
    a.items(root, None, 0);
    for (i, f) in a.facts.fns.iter().enumerate() {
        let view = FunctionView {
            file,
            index: i,
            fact: f,
        };
        for entry in rules {
            entry
                .rule
                .check_function(cx, &view, &mut a.facts.candidates);
        }
    }
    a.facts
}

/// How a function takes keyword arguments: `f(**arguments)` reads each
/// named parameter as a key, and hands the rest to its `**kwargs`.
#[derive(Clone, Debug, Default)]
struct Splat {
    /// Named parameters that take keywords: (position, name, where, has a
    /// default).
    named: Vec<(usize, String, Span, bool)>,
    /// The position of its `**kwargs` parameter.
    rest: Option<usize>,
    /// How many calls in the file hand it an object with `**`: called so
    /// by several tools' arms, its optional parameters are the options of
    /// all of them (`perform_request("GET", **arguments)` beside `"POST"`).
    splat_calls: usize,
}

impl Splat {
    fn of(params: TsNode, src: &str) -> Splat {
        let mut out = Splat::default();
        let mut c = params.walk();
        let mut position = 0;
        for p in params.named_children(&mut c) {
            let double = p.kind() == "dictionary_splat_pattern"
                || (p.kind() == "typed_parameter"
                    && p.named_child(0)
                        .is_some_and(|n| n.kind() == "dictionary_splat_pattern"));
            let single = p.kind() == "list_splat_pattern"
                || (p.kind() == "typed_parameter"
                    && p.named_child(0)
                        .is_some_and(|n| n.kind() == "list_splat_pattern"));
            let name = match p.kind() {
                "identifier" => Some(p),
                "typed_parameter" => p.named_child(0).filter(|n| n.kind() == "identifier"),
                "default_parameter" | "typed_default_parameter" => p.child_by_field_name("name"),
                _ => None,
            };
            if double {
                out.rest = Some(position);
            } else if let Some(n) = name {
                let n = text(n, src);
                if !matches!(n, "self" | "cls") {
                    let default = p.kind().ends_with("default_parameter");
                    out.named.push((position, n.to_string(), span(p), default));
                }
            } else if !single {
                continue; // `*`, `/`: not parameters
            }
            position += 1;
        }
        out
    }
}

/// A record as the model has it.
fn struct_fact(r: &super::records::Record) -> StructFact {
    StructFact {
        name: r.name.clone(),
        name_span: r.name_span,
        fields: r
            .fields
            .iter()
            .map(|f| FieldFact {
                name: f.name.clone(),
                wire: f.wire.clone(),
                aliases: f.aliases.clone(),
                span: f.span,
                optional: f.optional,
                ..FieldFact::default()
            })
            .collect(),
        derives: Vec::new(),
        deny_unknown_fields: r.forbid,
        has_flatten: r.allow,
        record: r.kind,
    }
}

/// The frameworks in the file that drop the argument keys a tool does not
/// declare: a server made from the MCP SDK's `FastMCP` (`mcp.server.fastmcp`;
/// `MCPServer` in SDK 2) — pydantic validates its tools' arguments into a
/// model that ignores extra keys, where the standalone `fastmcp` package
/// refuses them — and LangChain's `@tool`, whose derived argument model
/// ignores them too.
fn key_policies(file: &Arc<SourceFile>, root: TsNode) -> Vec<KeyPolicy> {
    let src: &str = &file.text;
    let imports = |module: &str, name: &str| {
        src.lines().any(|l| {
            let l = l.trim_start();
            l.strip_prefix("from ")
                .and_then(|r| r.split_once(" import "))
                .is_some_and(|(m, names)| {
                    m.trim() == module && names.split([',', ' ', '(', ')']).any(|w| w == name)
                })
        })
    };
    let mut out = Vec::new();
    // The standalone package shadows the name: not the SDK's class.
    let sdk_class = |callee: &str| match callee {
        "mcp.server.fastmcp.FastMCP" | "mcp.server.mcpserver.MCPServer" => true,
        "FastMCP" => imports("mcp.server.fastmcp", "FastMCP") && !imports("fastmcp", "FastMCP"),
        "MCPServer" => imports("mcp.server.mcpserver", "MCPServer"),
        _ => false,
    };
    let mut stack = vec![(root, 0usize)];
    while let Some((n, depth)) = stack.pop() {
        if depth > MAX_DEPTH {
            continue;
        }
        if n.kind() == "assignment"
            && let (Some(l), Some(r)) = (
                n.child_by_field_name("left"),
                n.child_by_field_name("right"),
            )
            && r.kind() == "call"
            && let Some(callee) = r.child_by_field_name("function")
            && sdk_class(text(callee, src))
        {
            out.push(KeyPolicy {
                group: format!("{}#{}", file.display, text(l, src)),
                span: span(r),
                framework: "the MCP SDK's `FastMCP`",
                fix: "build the server with the standalone `fastmcp` package (`from fastmcp import FastMCP`, 2.x or later), which refuses an unknown argument with an error the model reads; checked with mcp 1.30 and 2.3 (drops) and fastmcp 2.14 and 4.2 (refuses)",
            });
        }
        // An `args_schema=` model decides for itself.
        if n.kind() == "import_from_statement"
            && !src.contains("args_schema")
            && let Some(m) = n.child_by_field_name("module_name")
            && text(m, src).starts_with("langchain")
            && text(n, src)
                .split_once(" import ")
                .is_some_and(|(_, names)| {
                    names.split([',', ' ', '(', ')', '\n']).any(|w| w == "tool")
                })
        {
            out.push(KeyPolicy {
                group: format!("{}#langchain", file.display),
                span: span(n),
                framework: "LangChain's `@tool`",
                fix: "give each tool an `args_schema` model with `model_config = ConfigDict(extra=\"forbid\")` (`@tool(args_schema=SearchArgs)`): LangChain then refuses an unknown key with a validation error",
            });
        }
        let mut c = n.walk();
        for child in n.named_children(&mut c) {
            stack.push((child, depth + 1));
        }
    }
    out.sort_by_key(|p| p.span.start);
    out.dedup_by(|a, b| a.group == b.group);
    out
}

struct Analyzer<'a> {
    src: &'a str,
    tool_fns: &'a [usize],
    /// What every function of the file looks up.
    m: Module<'a>,
    /// Function name → calls that hand it an object with `**`.
    splat_counts: HashMap<String, usize>,
    facts: FileFacts,
}

/// What the functions of one file share, learnt before any is followed.
struct Module<'a> {
    /// Function name → its parameter names (the first definition), to
    /// place keyword arguments.
    signatures: HashMap<String, Vec<String>>,
    /// Names of the classes the file defines: `Name.f(..)` calls one of
    /// their methods, where another `name.f(..)` calls into a module.
    classes: std::collections::HashSet<String>,
    /// Function name → what `f(**arguments)` makes of the arguments object
    /// (the first definition).
    splats: HashMap<String, Splat>,
    /// Module-level names bound to a dict literal with string keys: the
    /// keys, for `TABLE.get(x, default)`.
    tables: HashMap<String, Vec<String>>,
    /// The configured truncation markers (`truncation-markers`).
    markers: &'a [String],
}

impl<'a> Analyzer<'a> {
    fn prepass(&mut self, n: TsNode, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        match n.kind() {
            "class_definition" => {
                if let Some(name) = n.child_by_field_name("name") {
                    self.m.classes.insert(text(name, self.src).to_string());
                }
            }
            "function_definition" => {
                if let (Some(name), Some(params)) = (
                    n.child_by_field_name("name"),
                    n.child_by_field_name("parameters"),
                ) {
                    let names = param_nodes(params, self.src)
                        .into_iter()
                        .map(|(name, _, _)| name)
                        .collect();
                    self.m
                        .signatures
                        .entry(text(name, self.src).to_string())
                        .or_insert(names);
                    self.m
                        .splats
                        .entry(text(name, self.src).to_string())
                        .or_insert_with(|| Splat::of(params, self.src));
                }
            }
            "call" => {
                let splat = n.child_by_field_name("arguments").is_some_and(|a| {
                    let mut c = a.walk();
                    a.named_children(&mut c)
                        .any(|x| x.kind() == "dictionary_splat")
                });
                if splat
                    && let Some(f) = n.child_by_field_name("function")
                    && f.kind() == "identifier"
                {
                    *self
                        .splat_counts
                        .entry(text(f, self.src).to_string())
                        .or_default() += 1;
                }
            }
            "import_statement" | "import_from_statement" => {
                self.facts.uses.extend(imports(n, self.src));
                return;
            }
            "assignment" if depth <= 2 => {
                if let (Some(l), Some(r)) = (
                    n.child_by_field_name("left"),
                    n.child_by_field_name("right"),
                ) && l.kind() == "identifier"
                    && r.kind() == "dictionary"
                {
                    let keys = dict_keys(r, self.src);
                    if !keys.is_empty() {
                        self.m.tables.insert(text(l, self.src).to_string(), keys);
                    }
                }
            }
            _ => {}
        }
        let mut c = n.walk();
        for child in n.named_children(&mut c) {
            self.prepass(child, depth + 1);
        }
    }

    /// Finds the functions (in classes, nested ones too) and analyses each.
    fn items(&mut self, n: TsNode<'a>, class: Option<usize>, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let mut c = n.walk();
        for child in n.named_children(&mut c) {
            self.item(child, class, &[], depth + 1);
        }
    }

    fn item(&mut self, n: TsNode<'a>, class: Option<usize>, decorators: &[TsNode], depth: usize) {
        match n.kind() {
            "class_definition" => {
                let name = n
                    .child_by_field_name("name")
                    .map_or("", |n| text(n, self.src));
                self.facts.impls.push(ImplFact {
                    span: span(n),
                    self_type: name.to_string(),
                    trait_name: None,
                    assoc_types: Vec::new(),
                });
                let id = self.facts.impls.len() - 1;
                if let Some(body) = n.child_by_field_name("body") {
                    self.items(body, Some(id), depth + 1);
                }
            }
            "decorated_definition" => {
                let decorators: Vec<TsNode> = {
                    let mut c = n.walk();
                    n.named_children(&mut c)
                        .filter(|d| d.kind() == "decorator")
                        .collect()
                };
                if let Some(def) = n.child_by_field_name("definition") {
                    self.item(def, class, &decorators, depth + 1);
                }
            }
            "function_definition" => {
                self.function(n, class, decorators);
                if let Some(body) = n.child_by_field_name("body") {
                    self.items(body, None, depth + 1);
                }
            }
            _ => self.items(n, class, depth + 1),
        }
    }

    fn function(&mut self, def: TsNode<'a>, class: Option<usize>, decorators: &[TsNode]) {
        let src = self.src;
        let Some(name) = def.child_by_field_name("name") else {
            return;
        };
        let role = if decorators.iter().any(|d| {
            let t = text(*d, src);
            t.contains(".call_tool(") || t.ends_with(".call_tool")
        }) {
            Role::CallTool
        } else if self.tool_fns.contains(&name.start_byte()) {
            Role::Tool
        } else {
            Role::Plain
        };
        let mut fact = FnFact {
            name: text(name, src).to_string(),
            name_span: span(name),
            impl_id: class,
            takes_request: role == Role::CallTool,
            ..FnFact::default()
        };
        let is_test = fact.name.starts_with("test_");
        fact.is_test = is_test;
        let mut vars: HashMap<String, Var> = HashMap::new();
        if let Some(params) = def.child_by_field_name("parameters") {
            let defaults = param_defaults(params, src);
            let doc = def
                .child_by_field_name("body")
                .and_then(first_docstring)
                .map_or("", |d| text(d, src));
            for (i, (pname, ty, at)) in param_nodes(params, src).into_iter().enumerate() {
                let is_self = i == 0 && class.is_some() && (pname == "self" || pname == "cls");
                let ty_l = ty.to_ascii_lowercase();
                let is_context = ty.contains("Context")
                    || pname == "ctx"
                    || pname == "context"
                    || ty_l.contains("request");
                let args_name = matches!(
                    pname.as_str(),
                    "arguments" | "args" | "tool_args" | "tool_input" | "kwargs" | "params"
                ) || pname.ends_with("_arguments");
                let dictish = ty.is_empty()
                    || ty_l.contains("dict")
                    || ty_l.contains("mapping")
                    || ty_l.contains("any");
                let is_args_object = match role {
                    Role::Tool => false,
                    Role::CallTool => i > 0 && dictish && !is_context,
                    Role::Plain => args_name && dictish,
                };
                if i < 63 && !is_self {
                    vars.insert(
                        pname.clone(),
                        Var {
                            mask: 1 << i,
                            direct: true,
                            root: if is_args_object { 1 << i } else { 0 },
                            arg: (!is_args_object).then(|| pname.clone()),
                            parent: None,
                            values: known_values(&ty, defaults.get(&pname), doc, &pname),
                        },
                    );
                }
                fact.params.push(ParamFact {
                    name: pname,
                    ty,
                    span: at,
                    is_self,
                    is_context,
                    is_args_object,
                    tool_attr: Vec::new(),
                    doc: None,
                });
            }
        }
        let Some(body) = def.child_by_field_name("body") else {
            self.facts.fns.push(fact);
            return;
        };
        // Another decorator wraps the function (`@with_account`): it may
        // take arguments the body does not.
        let wrapped = decorators.iter().any(|d| {
            let t = text(*d, src).trim_start_matches('@');
            let callee = t.split('(').next().unwrap_or(t).trim();
            let last = callee.rsplit('.').next().unwrap_or(callee);
            !matches!(
                last,
                "tool" | "tool_plain" | "function_tool" | "staticmethod" | "classmethod"
            )
        });
        if role == Role::Tool && !wrapped {
            fact.unused_params = unused_params(&fact.params, body, src);
            fact.simulates = simulates(text(body, src)) || stub_body(body, src);
        }
        let index = self.facts.fns.len();
        let mut flow = Flow::new(src, &self.m, vars, fact);
        flow.block(body, 0, first_docstring(body));
        let arms = std::mem::take(&mut flow.arms);
        let written = flow.written.clone();
        self.facts.fns.push(flow.finish());
        // Each arm of a call_tool dispatch is its tool's handler.
        for arm in arms {
            let arm_fn = FnFact {
                name: format!("{}[{}]", self.facts.fns[index].name, arm.tool),
                name_span: arm.literal,
                impl_id: class,
                params: self.facts.fns[index].params.clone(),
                ..FnFact::default()
            };
            let mut afl = Flow::new(src, &self.m, arm.vars, arm_fn);
            // Keys the dispatcher writes for every tool are written for this one.
            afl.written = written.clone();
            afl.block(arm.body, 0, None);
            let mut arm_fact = afl.finish();
            // Keys the dispatcher reads for every tool (`project_id =
            // arguments["project_id"]` before the dispatch) are read for
            // this one too: mentioned, so not "never read".
            let shared = &self.facts.fns[index];
            arm_fact
                .key_literals
                .extend(shared.key_reads.iter().map(|r| r.key.clone()));
            arm_fact.key_literals.sort_unstable();
            arm_fact.key_literals.dedup();
            let callees = arm_fact.calls.iter().map(|c| c.callee.clone()).collect();
            let hands = arm_fact
                .calls
                .iter()
                .any(|c| c.roots.iter().any(|r| *r != 0));
            self.facts.dispatch.push(Dispatch {
                tool: arm.tool,
                span: arm.literal,
                names_tool: true,
                hands,
                fn_index: index,
                callees,
            });
            self.facts.fns.push(arm_fact);
        }
    }
}

/// One arm of a dispatch on the tool name, analysed as its own function.
struct Arm<'t> {
    tool: String,
    literal: Span,
    body: TsNode<'t>,
    vars: HashMap<String, Var>,
}

struct Flow<'s, 't> {
    src: &'s str,
    m: &'s Module<'s>,
    vars: HashMap<String, Var>,
    fact: FnFact,
    /// String literals written (not the docstring), with "is a dict key".
    strings: Vec<(String, bool)>,
    /// Comparisons, as text: a clamp whose value is also compared with its
    /// bound is checked.
    comparisons: Vec<String>,
    arms: Vec<Arm<'t>>,
    /// `if x not in VALID: raise ..`: values refused before this byte.
    checks: Vec<(String, usize)>,
    /// Keys the code writes into the arguments object: reads of them are
    /// not the model's.
    written: Vec<String>,
    /// Each call's callee with the names its arguments mention.
    call_names: Vec<(String, Vec<String>)>,
    /// Arguments parsed with a fallback: the site's index and the local.
    fallbacks: Vec<(usize, String)>,
    /// Reads the arguments by a key held in a variable (`arguments[field]`
    /// in `for field in FIELDS`): the keys its tables name may be read.
    computed_reads: bool,
}

impl<'s, 't> Flow<'s, 't> {
    fn new(src: &'s str, m: &'s Module<'s>, vars: HashMap<String, Var>, fact: FnFact) -> Self {
        Flow {
            src,
            m,
            vars,
            fact,
            strings: Vec::new(),
            comparisons: Vec::new(),
            arms: Vec::new(),
            checks: Vec::new(),
            written: Vec::new(),
            call_names: Vec::new(),
            fallbacks: Vec::new(),
            computed_reads: false,
        }
    }

    fn finish(mut self) -> FnFact {
        let written = std::mem::take(&mut self.written);
        self.fact
            .key_reads
            .retain(|r| r.parent.is_some() || !written.contains(&r.key));
        let strings = std::mem::take(&mut self.strings);
        self.fact.learn_strings(&strings, self.m.markers);
        if self.computed_reads {
            // A table's keys (`{"summary": str, "priority": to_name}`) are
            // the keys a computed read may take.
            let keys = strings.iter().filter(|(_, key)| *key).map(|(s, _)| s);
            self.fact
                .key_literals
                .extend(crate::model::code::key_like(keys));
            self.fact.key_literals.sort_unstable();
            self.fact.key_literals.dedup();
        }
        if self
            .fact
            .sites
            .iter()
            .any(|s| matches!(s.kind, SiteKind::Clamp { .. }))
        {
            self.fact.mentions_limit = strings
                .iter()
                .any(|(s, _)| crate::model::words::mentions_limit(s));
        }
        // Arguments that fall back are handed to a call that runs a tool
        // (`execute_tool(name, args)`, `tool.invoke(**args)`).
        let runs_tool = |c: &str| {
            let c = c.to_ascii_lowercase();
            (c.contains("tool") || c.contains("function"))
                && ["call", "run", "exec", "invoke", "dispatch", "handle"]
                    .iter()
                    .any(|w| c.contains(w))
        };
        for (i, local) in std::mem::take(&mut self.fallbacks) {
            let handed = self
                .call_names
                .iter()
                .any(|(callee, names)| runs_tool(callee) && names.contains(&local));
            if let Some(SiteKind::ArgsFallback { goes_to, .. }) =
                self.fact.sites.get_mut(i).map(|s| &mut s.kind)
                && handed
            {
                *goes_to = ArgsUse::Sink;
            }
        }
        let comparisons = std::mem::take(&mut self.comparisons);
        for site in &mut self.fact.sites {
            if let SiteKind::Clamp {
                value,
                bounds,
                compared,
            } = &mut site.kind
            {
                *compared = comparisons.iter().any(|c| {
                    has_word(c, &value.name) && bounds.iter().any(|b| c.contains(b.text.as_str()))
                });
            }
        }
        self.fact
    }

    fn block(&mut self, n: TsNode<'t>, depth: usize, skip: Option<TsNode>) {
        if depth > MAX_DEPTH {
            return;
        }
        let mut c = n.walk();
        for stmt in n.named_children(&mut c) {
            if Some(stmt) == skip {
                continue;
            }
            self.statement(stmt, depth + 1);
        }
    }

    fn statement(&mut self, s: TsNode<'t>, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        match s.kind() {
            // Analysed on their own.
            "function_definition" | "class_definition" | "decorated_definition" => {}
            "expression_statement" => {
                let mut c = s.walk();
                for e in s.named_children(&mut c) {
                    self.expr(e, depth + 1);
                }
            }
            "if_statement" => self.if_statement(s, depth),
            "for_statement" => {
                let iter = s
                    .child_by_field_name("right")
                    .map(|r| self.expr(r, depth + 1))
                    .unwrap_or_default();
                if let Some(l) = s.child_by_field_name("left") {
                    let v = Var {
                        mask: iter.mask,
                        ..Var::default()
                    };
                    self.bind(l, v);
                }
                if let Some(b) = s.child_by_field_name("body") {
                    self.loop_stop(b);
                    self.block(b, depth + 1, None);
                }
                if let Some(b) = s.child_by_field_name("alternative") {
                    self.block(b, depth + 1, None);
                }
            }
            "while_statement" => {
                if let Some(cond) = s.child_by_field_name("condition") {
                    self.expr(cond, depth + 1);
                }
                if let Some(b) = s.child_by_field_name("body") {
                    self.loop_stop(b);
                    self.block(b, depth + 1, None);
                }
            }
            "try_statement" => self.try_statement(s, depth),
            "match_statement" => self.match_statement(s, depth),
            "return_statement" | "raise_statement" | "delete_statement" | "assert_statement" => {
                let mut c = s.walk();
                for e in s.named_children(&mut c) {
                    self.expr(e, depth + 1);
                }
            }
            "with_statement" => {
                let mut c = s.walk();
                for child in s.named_children(&mut c) {
                    if child.kind() == "block" {
                        self.block(child, depth + 1, None);
                    } else {
                        self.expr(child, depth + 1);
                    }
                }
            }
            "block" | "else_clause" | "finally_clause" => {
                let mut c = s.walk();
                for child in s.named_children(&mut c) {
                    if child.kind() == "block" {
                        self.block(child, depth + 1, None);
                    } else {
                        self.statement(child, depth + 1);
                    }
                }
            }
            _ => {
                let mut c = s.walk();
                for e in s.named_children(&mut c) {
                    self.expr(e, depth + 1);
                }
            }
        }
    }

    /// Binds an assignment target to a value.
    fn bind(&mut self, target: TsNode, v: Var) {
        match target.kind() {
            "identifier" => {
                self.vars.insert(text(target, self.src).to_string(), v);
            }
            "pattern_list" | "tuple_pattern" | "list_pattern" | "tuple" | "list" => {
                let mut c = target.walk();
                for t in target.named_children(&mut c) {
                    let part = Var {
                        mask: v.mask,
                        root: 0,
                        direct: false,
                        arg: None,
                        parent: None,
                        values: None,
                    };
                    self.bind(t, part);
                }
            }
            _ => {}
        }
    }

    fn var(&self, name: &str) -> Var {
        self.vars.get(name).cloned().unwrap_or_default()
    }

    /// Follows an expression: its value, recording calls, reads and sites.
    fn expr(&mut self, e: TsNode<'t>, depth: usize) -> Var {
        if depth > MAX_DEPTH {
            return Var::default();
        }
        let src = self.src;
        match e.kind() {
            "identifier" => self.var(text(e, src)),
            "string" | "concatenated_string" => {
                self.string(e);
                let mut v = Var::default();
                let mut c = e.walk();
                for part in e.named_children(&mut c) {
                    if part.kind() == "interpolation" {
                        let mut c2 = part.walk();
                        for x in part.named_children(&mut c2) {
                            v.join(&self.expr(x, depth + 1));
                        }
                    } else if part.kind() == "string" {
                        v.join(&self.expr(part, depth + 1));
                    }
                }
                v.root = 0;
                v
            }
            "parenthesized_expression" | "await" => {
                let mut c = e.walk();
                let inner = e.named_children(&mut c).next();
                inner.map(|i| self.expr(i, depth + 1)).unwrap_or_default()
            }
            "assignment" | "augmented_assignment" => {
                let right = e.child_by_field_name("right");
                let mut v = right.map(|r| self.expr(r, depth + 1)).unwrap_or_default();
                if let Some(l) = e.child_by_field_name("left") {
                    // `arguments["id"] = parse(arguments["url"])`: the code
                    // sets the key itself.
                    if l.kind() == "subscript"
                        && let (Some(obj), Some(key)) = (
                            l.child_by_field_name("value"),
                            l.child_by_field_name("subscript")
                                .and_then(|k| literal_key(k, src)),
                        )
                        && self.value_of(obj).root != 0
                    {
                        self.written.push(key);
                    }
                    if e.kind() == "augmented_assignment" {
                        let old = self.expr(l, depth + 1);
                        v.join(&old);
                        v.direct = false;
                    } else if l.kind() != "identifier" {
                        self.expr(l, depth + 1);
                    }
                    self.bind(l, v.clone());
                }
                v
            }
            "attribute" => {
                let obj = e
                    .child_by_field_name("object")
                    .map(|o| self.expr(o, depth + 1))
                    .unwrap_or_default();
                let attr = e
                    .child_by_field_name("attribute")
                    .map_or("", |a| text(a, src));
                Var {
                    mask: obj.mask,
                    direct: obj.direct,
                    root: 0,
                    arg: obj.arg.map(|_| attr.to_string()),
                    parent: None,
                    values: None,
                }
            }
            "subscript" => self.subscript(e, depth),
            "call" => self.call(e, depth),
            "boolean_operator" => {
                let l = e
                    .child_by_field_name("left")
                    .map(|x| self.expr(x, depth + 1))
                    .unwrap_or_default();
                let is_or = e
                    .child_by_field_name("operator")
                    .is_some_and(|o| text(o, src) == "or");
                let reads = self.fact.key_reads.len();
                let r = e
                    .child_by_field_name("right")
                    .map(|x| self.expr(x, depth + 1))
                    .unwrap_or_default();
                // `args.get("command") or args.get("line")`: an alias the
                // handler also accepts, not a key it needs.
                if is_or && l.parent.is_some() && r.parent.is_some() {
                    self.fact.key_reads.truncate(reads);
                }
                // `args.get("k") or 10`: the requested value, or a default.
                if is_or && l.mask != 0 {
                    let mut v = l;
                    v.mask |= r.mask;
                    v
                } else {
                    let mut v = l;
                    v.join(&r);
                    v.direct = false;
                    v.arg = None;
                    v
                }
            }
            "comparison_operator" => {
                self.comparisons.push(text(e, src).to_string());
                let mut v = Var::default();
                let mut c = e.walk();
                for x in e.named_children(&mut c) {
                    v.join(&self.expr(x, depth + 1));
                }
                v.root = 0;
                v
            }
            "conditional_expression" => {
                let mut c = e.walk();
                let parts: Vec<TsNode> = e.named_children(&mut c).collect();
                self.guarded_conversion(e, &parts);
                let vals: Vec<Var> = parts.iter().map(|p| self.expr(*p, depth + 1)).collect();
                let mut v = vals.first().cloned().unwrap_or_default();
                for o in vals.iter().skip(1) {
                    v.mask |= o.mask;
                }
                v.root = 0;
                v
            }
            // A lambda's body runs here (`to_thread(lambda: dl(args["path"]))`).
            "lambda" => {
                if let Some(body) = e.child_by_field_name("body") {
                    self.expr(body, depth + 1);
                }
                Var::default()
            }
            "function_definition" => Var::default(),
            _ => {
                let mut v = Var::default();
                let mut c = e.walk();
                for x in e.named_children(&mut c) {
                    v.join(&self.expr(x, depth + 1));
                }
                v.root = 0;
                v.direct = false;
                v
            }
        }
    }

    fn string(&mut self, e: TsNode) {
        let src = self.src;
        let key = e
            .parent()
            .is_some_and(|p| p.kind() == "pair" && p.child_by_field_name("key") == Some(e));
        let value = string_value(e, src).unwrap_or_else(|| {
            // An f-string: its literal parts.
            let mut out = String::new();
            let mut c = e.walk();
            for part in e.named_children(&mut c) {
                if part.kind() == "string_content" {
                    out.push_str(text(part, src));
                }
            }
            out
        });
        self.strings.push((value, key));
    }

    fn subscript(&mut self, e: TsNode<'t>, depth: usize) -> Var {
        let src = self.src;
        let Some(value) = e.child_by_field_name("value") else {
            return Var::default();
        };
        let obj = self.expr(value, depth + 1);
        let Some(index) = e.child_by_field_name("subscript") else {
            return obj;
        };
        if index.kind() == "slice" {
            let (start, stop) = slice_parts(index);
            let start_v = start.map(|s| self.expr(s, depth + 1)).unwrap_or_default();
            let stop_v = stop.map(|s| self.expr(s, depth + 1)).unwrap_or_default();
            // `text[:LIMIT]`, `items[0:N]`, `lines[-N:]`.
            let (limit, how) = match (start, stop) {
                (None, Some(s)) => (Some((s, stop_v.mask)), CutHow::Slice),
                (Some(s), Some(t)) if text(s, src) == "0" => {
                    (Some((t, stop_v.mask)), CutHow::Slice)
                }
                (Some(s), None)
                    if s.kind() == "unary_operator" && text(s, src).starts_with('-') =>
                {
                    (
                        s.named_child(0).map(|x| (x, start_v.mask)),
                        CutHow::SliceTail,
                    )
                }
                _ => (None, CutHow::Slice),
            };
            // Cutting the model's own value (`cursor[:256]`) is not a cut
            // of output.
            let own_input = obj.direct && obj.mask != 0;
            if let Some((lim, lim_mask)) = limit
                && !own_input
                && !short_limit(lim, src)
                && !in_side_channel(e, src)
                && !passed_on(e, src)
                && !item_preview(e, src)
                && reaches_output(e, src)
            {
                let collection = text(value, src).to_string();
                self.fact.sites.push(Site {
                    span: span(e),
                    kind: SiteKind::Truncate {
                        how,
                        limit: bound(lim, src, lim_mask != 0),
                        collection,
                        dest: destination(e, src),
                        into_error: into_error(e, src),
                        hidden_in_closure: false,
                    },
                });
            }
            return Var {
                mask: obj.mask | start_v.mask | stop_v.mask,
                ..Var::default()
            };
        }
        let idx = self.expr(index, depth + 1);
        if let Some(key) = literal_key(index, src)
            && let Some(v) = self.key_read(&obj, &key, index, true)
        {
            return v;
        }
        self.computed_reads |= obj.root != 0 && index.kind() == "identifier";
        Var {
            mask: obj.mask | idx.mask,
            direct: obj.direct,
            ..Var::default()
        }
    }

    /// A read of `key` from `obj` when it is the arguments object (or an
    /// object read from it): the read's value.
    fn key_read(&mut self, obj: &Var, key: &str, at: TsNode, loud: bool) -> Option<Var> {
        if obj.root != 0 {
            self.fact.key_reads.push(KeyRead {
                key: key.to_string(),
                span: span(at),
                mask: obj.root,
                loud,
                parent: None,
            });
            return Some(Var {
                mask: obj.mask,
                direct: true,
                root: 0,
                arg: Some(key.to_string()),
                parent: Some(key.to_string()),
                values: None,
            });
        }
        if let Some(p) = &obj.parent
            && obj.mask != 0
        {
            self.fact.key_reads.push(KeyRead {
                key: key.to_string(),
                span: span(at),
                mask: obj.mask,
                loud,
                parent: Some(p.clone()),
            });
            return Some(Var {
                mask: obj.mask,
                direct: true,
                root: 0,
                arg: Some(key.to_string()),
                parent: None,
                values: None,
            });
        }
        None
    }

    fn call(&mut self, e: TsNode<'t>, depth: usize) -> Var {
        let src = self.src;
        let Some(func) = e.child_by_field_name("function") else {
            return Var::default();
        };
        let args_node = e.child_by_field_name("arguments");
        // Positional and keyword arguments, in order.
        let mut positional: Vec<(TsNode, Var)> = Vec::new();
        let mut keywords: Vec<(String, TsNode, Var)> = Vec::new();
        let mut splat_root = 0u64;
        if let Some(args) = args_node {
            let mut c = args.walk();
            for a in args.named_children(&mut c) {
                match a.kind() {
                    "keyword_argument" => {
                        let name = a.child_by_field_name("name").map_or("", |n| text(n, src));
                        if let Some(v) = a.child_by_field_name("value") {
                            let var = self.expr(v, depth + 1);
                            keywords.push((name.to_string(), v, var));
                        }
                    }
                    "dictionary_splat" | "list_splat" => {
                        let inner = a.named_child(0);
                        let v = inner.map(|i| self.expr(i, depth + 1)).unwrap_or_default();
                        splat_root |= v.root;
                        positional.push((a, Var { root: 0, ..v }));
                    }
                    "comment" => {}
                    _ => {
                        let v = self.expr(a, depth + 1);
                        positional.push((a, v));
                    }
                }
            }
        }
        let (callee, receiver, target, method) = match func.kind() {
            "attribute" => {
                let obj = func.child_by_field_name("object");
                let attr = func
                    .child_by_field_name("attribute")
                    .map_or("", |a| text(a, src));
                let obj_text = obj.map_or("", |o| text(o, src));
                let recv = obj.map(|o| self.expr(o, depth + 1)).unwrap_or_default();
                let target = if obj_text == "self" || obj_text == "cls" {
                    CallTarget::OwnType
                } else if obj.is_some_and(|o| o.kind() == "identifier")
                    && !self.vars.contains_key(obj_text)
                {
                    // A module or class name (`client.fetch(..)` of `from .
                    // import client`, `Store.open(..)`): the linker looks it
                    // up among the file's imports.
                    CallTarget::Type(obj_text.to_string())
                } else {
                    CallTarget::Method
                };
                (attr.to_string(), Some(recv), target, true)
            }
            "identifier" => (text(func, src).to_string(), None, CallTarget::Free, false),
            _ => {
                let v = self.expr(func, depth + 1);
                (String::new(), Some(v), CallTarget::External, true)
            }
        };
        // Reads: `args.get("k", d)`, `args.pop("k")`.
        if let Some(recv) = &receiver
            && matches!(callee.as_str(), "get" | "pop" | "setdefault")
            && let Some((first, _)) = positional.first()
            && let Some(key) = literal_key(*first, src)
            && let Some(v) = self.key_read(recv, &key, *first, false)
        {
            return v;
        }
        if let Some(recv) = &receiver
            && matches!(callee.as_str(), "get" | "pop")
            && positional
                .first()
                .is_some_and(|(first, _)| first.kind() == "identifier")
        {
            self.computed_reads |= recv.root != 0;
        }
        // `TABLE.get(x, DEFAULT)` over a table of literals.
        if receiver.is_some() && callee == "get" {
            self.select_by_table(e, func, &positional);
        }
        // Clamps: `min(x, MAX)`, `max(x, 1)`.
        // (`max(x, 10)` alone is a floor: a sane minimum, not a cap.)
        if receiver.is_none() && callee == "min" && keywords.is_empty() {
            self.clamp(e, &positional);
        }
        let mut args: Vec<u64> = Vec::new();
        let mut roots: Vec<u64> = Vec::new();
        let mut direct: Vec<bool> = Vec::new();
        let mut arg_names: Vec<Option<String>> = Vec::new();
        let named = |v: &Var| v.arg.clone().filter(|_| v.direct);
        if let Some(r) = &receiver {
            args.push(r.mask);
            roots.push(r.root);
            direct.push(r.direct);
            arg_names.push(named(r));
        }
        for (_, v) in &positional {
            args.push(v.mask);
            roots.push(v.root);
            direct.push(v.direct);
            arg_names.push(named(v));
        }
        // Keyword arguments go where the callee (when the file defines it)
        // has the parameter; else after the positional ones.
        let mut moved: Vec<(String, usize)> = Vec::new();
        // The file's function of that name, unless the call goes into
        // another module (`service.list_items(..)` from a handler that is
        // itself named `list_items`).
        let signature = self.m.signatures.get(&callee).filter(|_| match &target {
            CallTarget::Type(t) => self.m.classes.contains(t),
            _ => true,
        });
        if !keywords.is_empty() {
            let params = signature;
            for (name, _, v) in &keywords {
                let shift = usize::from(receiver.is_some())
                    + usize::from(
                        params
                            .is_some_and(|p| p.first().is_some_and(|f| f == "self" || f == "cls"))
                            && receiver.is_some(),
                    );
                let pos = params
                    .and_then(|p| p.iter().position(|x| x == name))
                    .map(|p| p + usize::from(receiver.is_some()))
                    .map(|p| {
                        p.saturating_sub(shift.saturating_sub(usize::from(receiver.is_some())))
                    });
                let pos = match pos {
                    Some(p) => p,
                    None => {
                        // Another module's function: the linker moves it.
                        if params.is_none() && (v.mask | v.root != 0 || v.direct) {
                            moved.push((name.clone(), args.len()));
                        }
                        args.len()
                    }
                };
                while args.len() <= pos {
                    args.push(0);
                    roots.push(0);
                    direct.push(false);
                    arg_names.push(None);
                }
                args[pos] |= v.mask;
                roots[pos] |= v.root;
                direct[pos] |= v.direct;
                if let Some(n) = named(v) {
                    arg_names[pos] = Some(n);
                }
            }
        }
        // `handler(**arguments)` to a function of this file: each named
        // parameter the call does not fill otherwise reads the key of its
        // name (at the parameter); the rest go to its `**kwargs`, where
        // `kwargs.get("k")` reads them.
        let mut splat_followed = false;
        if splat_root != 0
            && receiver.is_none()
            && let Some(sp) = self.m.splats.get(&callee)
        {
            let given = positional
                .iter()
                .filter(|(a, _)| !matches!(a.kind(), "dictionary_splat" | "list_splat"))
                .count();
            let shared = sp.splat_calls > 1;
            for (pos, name, at, default) in &sp.named {
                if *pos < given || keywords.iter().any(|(k, _, _)| k == name) {
                    continue;
                }
                // A shared function's optional parameters: taken when the
                // tool declares them (so not "never read"), not missed when
                // it does not.
                if shared && *default {
                    self.strings.push((name.clone(), false));
                    continue;
                }
                self.fact.key_reads.push(KeyRead {
                    key: name.clone(),
                    span: *at,
                    mask: splat_root,
                    loud: false,
                    parent: None,
                });
            }
            if let Some(rest) = sp.rest {
                while roots.len() <= rest {
                    args.push(0);
                    roots.push(0);
                    direct.push(false);
                }
                roots[rest] |= splat_root;
            }
            splat_followed = true;
        }
        // Values refused out of a set before the call.
        let checked = arg_names
            .iter()
            .enumerate()
            .take(63)
            .filter(|(_, n)| {
                n.as_ref().is_some_and(|n| {
                    self.checks
                        .iter()
                        .any(|(c, at)| c == n && *at < e.start_byte())
                })
            })
            .fold(0u64, |m, (i, _)| m | (1 << i));
        // The arguments object passed on whole (`Model(**arguments)`,
        // `validate(arguments)`, a handler of another module): its keys
        // are read elsewhere. A function of the file is followed (its reads
        // are its own); a call to one the file does not define escapes
        // unless the linker finds it in another module (`CallFact::escapes`);
        // `f(**arguments)` to a function not followed escapes here.
        let whole = roots.iter().fold(splat_root, |m, r| m | r);
        let mut escapes = 0;
        if splat_root != 0 && !splat_followed {
            self.fact.escapes |= whole;
        } else if signature.is_none() {
            escapes = whole;
        }
        let mask = args.iter().fold(0, |m, a| m | a);
        let conversion = is_conversion(&callee, receiver.is_some());
        let first = positional.first().map(|(_, v)| v.clone());
        if let Some(args) = args_node {
            let mut names = std::collections::HashSet::new();
            identifiers(args, src, &mut names, 0);
            self.call_names.push((
                callee.clone(),
                names.into_iter().map(str::to_string).collect(),
            ));
        }
        self.fact.calls.push(CallFact {
            callee: callee.clone(),
            args,
            roots,
            direct,
            method,
            self_arg: false,
            target,
            values: Vec::new(),
            span: span(e),
            type_arg: None,
            checked,
            arg_names,
            keywords: moved,
            escapes,
        });
        // `int(x)`, `x.strip()`: the same value, converted.
        if conversion {
            let base = if receiver.is_some() {
                receiver.unwrap_or_default()
            } else {
                first.unwrap_or_default()
            };
            return Var {
                mask: base.mask,
                direct: base.direct,
                root: 0,
                arg: base.arg,
                parent: None,
                values: base.values,
            };
        }
        Var {
            mask,
            ..Var::default()
        }
    }

    fn clamp(&mut self, e: TsNode, positional: &[(TsNode, Var)]) {
        let src = self.src;
        if positional.len() < 2 {
            return;
        }
        let tainted: Vec<&(TsNode, Var)> = positional.iter().filter(|(_, v)| v.mask != 0).collect();
        let [(vn, v)] = tainted.as_slice() else {
            return;
        };
        let bounds: Vec<Bound> = positional
            .iter()
            .filter(|(_, b)| b.mask == 0)
            .map(|(n, _)| bound(*n, src, false))
            .collect();
        // `{"$top": min(limit, 100)}` beside `paginate(.., limit=limit)`:
        // the clamp sets a page size and the request's own value still
        // decides how many results come back.
        // (A requested page size capped is still reported: `min(page_size, 5)`.)
        if vn.kind() == "identifier"
            && page_size(&destination(e, src))
            && !page_size(text(*vn, src))
            && !text(*vn, src).to_ascii_lowercase().contains("size")
        {
            let name = text(*vn, src);
            let uses = enclosing_body(e).map_or(0, |b| count_identifier(b, src, name, 0));
            if uses > 1 {
                return;
            }
        }
        self.fact.sites.push(Site {
            span: span(e),
            kind: SiteKind::Clamp {
                value: value_ref(*vn, v, src),
                bounds,
                compared: false,
            },
        });
    }

    /// `TABLE.get(x, DEFAULT)`: a select over `x` among the table's keys.
    fn select_by_table(&mut self, e: TsNode, func: TsNode, positional: &[(TsNode, Var)]) {
        let src = self.src;
        let [(subject, sv), (default, dv)] = positional else {
            return;
        };
        // `ALIASES.get(x.strip().lower(), x)`: the value itself when it has
        // no alias, a pass-through, not a replacement.
        if sv.mask == 0 || (dv.mask & sv.mask != 0 && dv.direct) {
            return;
        }
        let Some(obj) = func.child_by_field_name("object") else {
            return;
        };
        let keys = match obj.kind() {
            "identifier" => self.m.tables.get(text(obj, src)).cloned(),
            "dictionary" => Some(dict_keys(obj, src)),
            _ => None,
        };
        let Some(keys) = keys.filter(|k| !k.is_empty()) else {
            return;
        };
        let name = value_ref(*subject, sv, src);
        let known: Vec<Literal> = keys
            .into_iter()
            .map(|k| Literal {
                text: format!("\"{k}\""),
                string: true,
            })
            .collect();
        let checked_before =
            self.checks.iter().any(|(n, _)| *n == name.name) || handles_others(sv, &known);
        self.fact.sites.push(Site {
            span: span(e),
            kind: SiteKind::Select {
                subject: name,
                known,
                form: SelectForm::Match,
                fallback: match default.kind() {
                    "none" => Outcome::Declined,
                    _ => Outcome::Default(text(*default, src).to_string()),
                },
                does_work: true,
                keeps_value: false,
                checked_before,
            },
        });
    }

    fn if_statement(&mut self, s: TsNode<'t>, depth: usize) {
        let src = self.src;
        let cond = s.child_by_field_name("condition");
        if let Some(c) = cond {
            self.expr(c, depth + 1);
        }
        // `if name == "x":` in a call_tool function: the arm is a handler.
        let dispatch_subject = |c: TsNode| -> Option<(String, Span)> {
            let (l, lit) = equality(c, src)?;
            let subject = text(l, src);
            (names_tool_subject(subject)).then(|| (lit, span(c)))
        };
        let consequence = s.child_by_field_name("consequence");
        // Refusals: `if x not in VALID: raise ..`.
        if let (Some(c), Some(b)) = (cond, consequence)
            && exits_with_error(b, src)
        {
            let t = text(c, src);
            for (name, v) in &self.vars {
                if v.mask != 0 && has_word(t, name) {
                    self.checks
                        .push((v.arg.clone().unwrap_or(name.clone()), s.start_byte()));
                }
            }
        }
        let dispatching = self.fact.takes_request || self.vars.values().any(|v| v.root != 0);
        // The chain: `if`, its `elif`s, its `else`.
        let mut arms: Vec<(Option<TsNode>, TsNode)> = Vec::new();
        if let Some(b) = consequence {
            arms.push((cond, b));
        }
        let mut else_body = None;
        let mut c = s.walk();
        for alt in s.children_by_field_name("alternative", &mut c) {
            match alt.kind() {
                "elif_clause" => {
                    if let Some(b) = alt.child_by_field_name("consequence") {
                        let ec = alt.child_by_field_name("condition");
                        if let Some(ec) = ec {
                            self.expr(ec, depth + 1);
                        }
                        arms.push((ec, b));
                    }
                }
                "else_clause" => else_body = alt.child_by_field_name("body"),
                _ => {}
            }
        }
        for (cond, body) in &arms {
            if dispatching && let Some((tool, lit)) = cond.and_then(dispatch_subject) {
                self.arms.push(Arm {
                    tool,
                    literal: lit,
                    body: *body,
                    vars: self.vars.clone(),
                });
                continue;
            }
            self.block(*body, depth + 1, None);
        }
        if let Some(b) = else_body {
            self.block(b, depth + 1, None);
        }
        self.select_chain(s, &arms, else_body);
    }

    /// `if x == "a": .. elif x == "b": .. else: <fallback>` over a value
    /// the model sent.
    fn select_chain(
        &mut self,
        s: TsNode,
        arms: &[(Option<TsNode>, TsNode)],
        else_body: Option<TsNode>,
    ) {
        let src = self.src;
        let Some(else_body) = else_body else {
            return;
        };
        if arms.len() < 2 {
            return;
        }
        let mut subject: Option<TsNode> = None;
        let mut known = Vec::new();
        for (cond, _) in arms {
            let Some((l, lit)) = cond.and_then(|c| equality(c, src)) else {
                return;
            };
            if subject.is_some_and(|s| text(s, src) != text(l, src)) {
                return;
            }
            subject = Some(l);
            known.push(Literal {
                text: format!("\"{lit}\""),
                string: true,
            });
        }
        let Some(subject) = subject else {
            return;
        };
        let sv = self.value_of(subject);
        if sv.mask == 0 || names_tool_subject(text(subject, src)) {
            return;
        }
        let fallback = select_default(outcome(else_body, src));
        let name = value_ref(subject, &sv, src);
        let checked_before = self
            .checks
            .iter()
            .any(|(n, at)| *n == name.name && *at < s.start_byte())
            || handles_others(&sv, &known);
        let else_start = else_body
            .parent()
            .map_or(else_body.start_byte(), |p| p.start_byte());
        self.fact.sites.push(Site {
            span: Span::new(else_start, else_start + 4),
            kind: SiteKind::Select {
                subject: name,
                known,
                form: SelectForm::IfElse,
                fallback,
                does_work: else_body.named_child_count() > 0
                    && text(else_body, src).trim() != "pass",
                keeps_value: has_word(text(else_body, src), text(subject, src)),
                checked_before,
            },
        });
    }

    /// The value of an expression already followed, without recording it
    /// again.
    fn value_of(&self, n: TsNode) -> Var {
        let src = self.src;
        match n.kind() {
            "identifier" => self.var(text(n, src)),
            "attribute" => {
                let v = n
                    .child_by_field_name("object")
                    .map(|o| self.value_of(o))
                    .unwrap_or_default();
                let attr = n
                    .child_by_field_name("attribute")
                    .map_or("", |a| text(a, src));
                Var {
                    arg: v.arg.map(|_| attr.to_string()),
                    root: 0,
                    ..v
                }
            }
            _ => Var::default(),
        }
    }

    fn match_statement(&mut self, s: TsNode<'t>, depth: usize) {
        let src = self.src;
        let subject = s.child_by_field_name("subject");
        if let Some(sub) = subject {
            self.expr(sub, depth + 1);
        }
        let dispatching = (self.fact.takes_request || self.vars.values().any(|v| v.root != 0))
            && subject.is_some_and(|x| names_tool_subject(text(x, src)));
        let Some(body) = s.child_by_field_name("body") else {
            return;
        };
        let mut known: Vec<Literal> = Vec::new();
        let mut wildcard: Option<(TsNode, TsNode)> = None;
        let mut c = body.walk();
        for case in body.named_children(&mut c) {
            if case.kind() != "case_clause" {
                continue;
            }
            let Some(cons) = case.child_by_field_name("consequence") else {
                continue;
            };
            let pattern = {
                let mut c2 = case.walk();
                case.named_children(&mut c2)
                    .filter(|p| p.kind() == "case_pattern")
                    .map(|p| text(p, src).trim().to_string())
                    .collect::<Vec<_>>()
            };
            if pattern == ["_"] {
                wildcard = Some((case, cons));
            } else if let [p] = pattern.as_slice()
                && (p.starts_with('"') || p.starts_with('\''))
                && !p.contains('|')
            {
                known.push(Literal {
                    text: format!("\"{}\"", p.trim_matches(['"', '\''])),
                    string: true,
                });
            }
            let lit = {
                let mut c2 = case.walk();
                let pats: Vec<TsNode> = case
                    .named_children(&mut c2)
                    .filter(|p| p.kind() == "case_pattern")
                    .collect();
                match pats.as_slice() {
                    [p] => find_string(*p)
                        .and_then(|n| string_value(n, src).map(|v| (v, span(n))))
                        .or_else(|| {
                            // `case Tools.SEARCH:`
                            let d = p.named_child(0).filter(|d| d.kind() == "dotted_name")?;
                            super::constant(d, src)?;
                            let (v, holes) = super::name_value(d, src);
                            holes.is_empty().then(|| (v, span(d)))
                        }),
                    _ => None,
                }
            };
            if dispatching && let Some((tool, at)) = lit {
                self.arms.push(Arm {
                    tool,
                    literal: at,
                    body: cons,
                    vars: self.vars.clone(),
                });
                continue;
            }
            self.block(cons, depth + 1, None);
        }
        // `match mode: case "a": .. case _: <default>` over a value the
        // model sent.
        if let (false, Some(sub), Some((case, cons))) = (dispatching, subject, wildcard)
            && !known.is_empty()
        {
            let sv = self.value_of(sub);
            if sv.mask != 0 && !names_tool_subject(text(sub, src)) {
                let name = value_ref(sub, &sv, src);
                let checked_before = self
                    .checks
                    .iter()
                    .any(|(n, at)| *n == name.name && *at < s.start_byte())
                    || handles_others(&sv, &known);
                let t = text(cons, src);
                self.fact.sites.push(Site {
                    span: span(case),
                    kind: SiteKind::Select {
                        subject: name,
                        known,
                        form: SelectForm::Match,
                        fallback: select_default(outcome(cons, src)),
                        does_work: t.trim() != "pass",
                        keeps_value: has_word(t, text(sub, src)),
                        checked_before,
                    },
                });
            }
        }
    }

    /// `try: v = int(x) except ValueError: v = 0`: a parse that falls back;
    /// `try: args = json.loads(raw) except ..: args = {}`: arguments that
    /// fall back.
    fn try_statement(&mut self, s: TsNode<'t>, depth: usize) {
        let src = self.src;
        let body = s.child_by_field_name("body");
        // The conversions in the body, before it is followed.
        let mut conversions: Vec<(String, TsNode, String)> = Vec::new();
        if let Some(b) = body {
            let mut c = b.walk();
            for stmt in b.named_children(&mut c) {
                if stmt.kind() != "expression_statement" {
                    continue;
                }
                let Some((l, r)) = super::assignment(stmt) else {
                    continue;
                };
                if l.kind() != "identifier" || r.kind() != "call" {
                    continue;
                }
                let callee = r
                    .child_by_field_name("function")
                    .map_or("", |f| text(f, src))
                    .to_string();
                let Some(arg) = r
                    .child_by_field_name("arguments")
                    .and_then(|a| a.named_child(0))
                else {
                    continue;
                };
                if parse_conversion(&callee).is_some() {
                    conversions.push((text(l, src).to_string(), arg, callee));
                }
            }
        }
        // Values of the converted inputs before the body rebinds them.
        let inputs: Vec<Var> = conversions
            .iter()
            .map(|(_, a, _)| self.value_of(*a))
            .collect();
        let input_vals: Vec<Var> = conversions
            .iter()
            .zip(inputs)
            .map(|((_, a, _), v)| if v.mask != 0 { v } else { self.peek(*a) })
            .collect();
        if let Some(b) = body {
            self.block(b, depth + 1, None);
        }
        let mut c = s.walk();
        let clauses: Vec<TsNode> = s.named_children(&mut c).collect();
        for clause in clauses {
            match clause.kind() {
                "except_clause" => {
                    let header = text(clause, src)
                        .split(':')
                        .next()
                        .unwrap_or("")
                        .to_string();
                    let block = {
                        let mut c = clause.walk();
                        clause.named_children(&mut c).find(|x| x.kind() == "block")
                    };
                    if let Some(block) = block {
                        for ((local, arg, callee), input) in conversions.iter().zip(&input_vals) {
                            self.fallback_site(&header, block, local, *arg, callee, input);
                        }
                        self.block(block, depth + 1, None);
                    }
                }
                "else_clause" | "finally_clause" => {
                    let mut c = clause.walk();
                    for b in clause.named_children(&mut c) {
                        if b.kind() == "block" {
                            self.block(b, depth + 1, None);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// `int(x) if x.isdigit() else 0`: a conversion guarded by a check of
    /// its input, with a default for anything else (M202).
    fn guarded_conversion(&mut self, e: TsNode, parts: &[TsNode]) {
        let src = self.src;
        let [conv, cond, default] = parts else {
            return;
        };
        let cond_text = text(*cond, src);
        if !["isdigit", "isnumeric", "isdecimal"]
            .iter()
            .any(|w| cond_text.contains(w))
            || !matches!(
                default.kind(),
                "integer"
                    | "float"
                    | "true"
                    | "false"
                    | "none"
                    | "string"
                    | "identifier"
                    | "attribute"
            )
            || conv.kind() != "call"
        {
            return;
        }
        let callee = conv
            .child_by_field_name("function")
            .map_or("", |f| text(f, src));
        let Some(accepts) = parse_conversion(callee) else {
            return;
        };
        let Some(arg) = conv
            .child_by_field_name("arguments")
            .and_then(|a| a.named_child(0))
        else {
            return;
        };
        let v = self.value_of(arg);
        let v = if v.mask != 0 { v } else { self.peek(arg) };
        if v.mask == 0 {
            return;
        }
        self.fact.sites.push(Site {
            span: span(e),
            kind: SiteKind::ParseFallback {
                value: value_ref(arg, &v, src),
                conversion: callee.to_string(),
                accepts,
                fallback: Outcome::Default(format!("`{}`", text(*default, src))),
                fallback_string: None,
                saturates: false,
                checked_after: false,
                echoed: false,
                whole_arguments: false,
            },
        });
    }

    /// A value without following it (no reads recorded): for a read like
    /// `args.get("n")` written inside a conversion.
    fn peek(&self, n: TsNode) -> Var {
        let src = self.src;
        match n.kind() {
            "call" => {
                let Some(func) = n.child_by_field_name("function") else {
                    return Var::default();
                };
                if func.kind() == "attribute" {
                    let obj = func.child_by_field_name("object").map(|o| self.peek(o));
                    let attr = func
                        .child_by_field_name("attribute")
                        .map_or("", |a| text(a, src));
                    let first = n
                        .child_by_field_name("arguments")
                        .and_then(|a| a.named_child(0));
                    if let (Some(o), "get", Some(k)) = (obj, attr, first)
                        && o.root != 0
                        && let Some(key) = literal_key(k, src)
                    {
                        return Var {
                            mask: o.mask,
                            direct: true,
                            root: 0,
                            arg: Some(key),
                            parent: None,
                            values: None,
                        };
                    }
                }
                Var::default()
            }
            "subscript" => {
                let obj = n.child_by_field_name("value").map(|o| self.peek(o));
                let idx = n.child_by_field_name("subscript");
                match (obj, idx.and_then(|i| literal_key(i, src))) {
                    (Some(o), Some(key)) if o.root != 0 => Var {
                        mask: o.mask,
                        direct: true,
                        root: 0,
                        arg: Some(key),
                        parent: None,
                        values: None,
                    },
                    _ => Var::default(),
                }
            }
            _ => self.value_of(n),
        }
    }

    fn fallback_site(
        &mut self,
        header: &str,
        block: TsNode,
        local: &str,
        arg: TsNode,
        callee: &str,
        input: &Var,
    ) {
        let src = self.src;
        // Only the errors a bad value raises.
        let catches = header.trim() == "except"
            || [
                "ValueError",
                "TypeError",
                "Exception",
                "JSONDecodeError",
                "KeyError",
            ]
            .iter()
            .any(|e| header.contains(e));
        if !catches {
            return;
        }
        let assigned = assigned_default(block, local, src);
        let Some(accepts) = parse_conversion(callee) else {
            return;
        };
        let json = callee.ends_with("loads");
        if json && (input.root != 0 || crate::model::words::arguments_word(local)) {
            // Only a value given to the parsed variable itself: a message
            // set in another (`result = f"not valid JSON: {e}"`) hands the
            // error back instead.
            let Some(default) = &assigned else {
                return;
            };
            // Where the value goes is known when the function is done
            // (`finish`).
            let goes_to = ArgsUse::Nowhere;
            self.fallbacks
                .push((self.fact.sites.len(), local.to_string()));
            self.fact.sites.push(Site {
                span: span(block.parent().unwrap_or(block)),
                kind: SiteKind::ArgsFallback {
                    input: value_ref(arg, input, src),
                    default: default.trim_matches('`').to_string(),
                    goes_to,
                    own_parameter: input.mask != 0,
                    method_arm: None,
                    raw_kept: false,
                },
            });
            return;
        }
        if input.mask == 0 {
            return;
        }
        let fallback = assigned
            .map(Outcome::Default)
            .unwrap_or_else(|| outcome(block, src));
        let fallback_string = match &fallback {
            Outcome::Default(d) => {
                let t = d.trim();
                (t.starts_with('"') || t.starts_with('\''))
                    .then(|| t.trim_matches(['"', '\'']).to_string())
            }
            _ => None,
        };
        self.fact.sites.push(Site {
            span: span(block.parent().unwrap_or(block)),
            kind: SiteKind::ParseFallback {
                value: value_ref(arg, input, src),
                conversion: callee.to_string(),
                accepts,
                fallback,
                fallback_string,
                saturates: false,
                checked_after: false,
                echoed: false,
                whole_arguments: false,
            },
        });
    }

    /// `for ..: if len(out) >= MAX: break; out.append(..)`: a collecting
    /// loop stopped at a cap.
    fn loop_stop(&mut self, body: TsNode) {
        let src = self.src;
        let mut c = body.walk();
        for stmt in body.named_children(&mut c) {
            if stmt.kind() != "if_statement" {
                continue;
            }
            let Some(cons) = stmt.child_by_field_name("consequence") else {
                continue;
            };
            let breaks = {
                let mut c2 = cons.walk();
                cons.named_children(&mut c2)
                    .any(|x| x.kind() == "break_statement")
            };
            if !breaks {
                continue;
            }
            let Some(cond) = stmt.child_by_field_name("condition") else {
                continue;
            };
            if cond.kind() != "comparison_operator" {
                continue;
            }
            let mut c3 = cond.walk();
            let sides: Vec<TsNode> = cond.named_children(&mut c3).collect();
            let [l, r] = sides.as_slice() else {
                continue;
            };
            let ops = text(cond, src);
            if !(ops.contains(">=") || ops.contains('>')) {
                continue;
            }
            // `len(out)` or a counter.
            let collection = if l.kind() == "call"
                && l.child_by_field_name("function")
                    .is_some_and(|f| text(f, src) == "len")
            {
                l.child_by_field_name("arguments")
                    .and_then(|a| a.named_child(0))
                    .map(|a| text(a, src).to_string())
            } else if l.kind() == "identifier" {
                Some(text(*l, src).to_string())
            } else {
                None
            };
            let Some(collection) = collection else {
                continue;
            };
            let collects = text(body, src).contains(&format!("{collection}.append("))
                || text(body, src).contains(&format!("{collection} +="));
            let returned =
                enclosing_body(body).is_some_and(|b| returns_mention(b, src, &collection, 0));
            if !collects || !returned {
                continue;
            }
            let tainted = self.value_of(*r).mask != 0;
            self.fact.sites.push(Site {
                span: span(stmt),
                kind: SiteKind::Truncate {
                    how: CutHow::Stop,
                    limit: bound(*r, src, tainted),
                    collection,
                    dest: String::new(),
                    into_error: false,
                    hidden_in_closure: false,
                },
            });
        }
    }
}

/// The parameters of a `parameters` node: name, annotation, span.
fn param_nodes(params: TsNode, src: &str) -> Vec<(String, String, Span)> {
    let mut out = Vec::new();
    let mut c = params.walk();
    for p in params.named_children(&mut c) {
        let (name, ty) = match p.kind() {
            "identifier" => (Some(p), None),
            "typed_parameter" => {
                let mut c = p.walk();
                let name = p.named_children(&mut c).find(|n| {
                    matches!(
                        n.kind(),
                        "identifier" | "list_splat_pattern" | "dictionary_splat_pattern"
                    )
                });
                (name, p.child_by_field_name("type"))
            }
            "default_parameter" | "typed_default_parameter" => {
                (p.child_by_field_name("name"), p.child_by_field_name("type"))
            }
            "list_splat_pattern" | "dictionary_splat_pattern" => (Some(p), None),
            _ => (None, None),
        };
        let Some(name) = name else {
            continue;
        };
        let n = text(name, src).trim_start_matches('*').to_string();
        out.push((
            n,
            ty.map_or(String::new(), |t| text(t, src).to_string()),
            span(p),
        ));
    }
    out
}

fn dict_keys(d: TsNode, src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut c = d.walk();
    for pair in d.named_children(&mut c) {
        if pair.kind() != "pair" {
            continue;
        }
        match pair
            .child_by_field_name("key")
            .and_then(|k| string_value(k, src))
        {
            Some(k) => out.push(k),
            None => return Vec::new(),
        }
    }
    out
}

fn first_docstring(body: TsNode) -> Option<TsNode> {
    let first = body.named_child(0)?;
    (first.kind() == "expression_statement"
        && first.named_child(0).is_some_and(|s| s.kind() == "string"))
    .then_some(first)
}

fn slice_parts(slice: TsNode) -> (Option<TsNode>, Option<TsNode>) {
    let mut start = None;
    let mut stop = None;
    let mut colons = 0;
    let mut c = slice.walk();
    for child in slice.children(&mut c) {
        if child.kind() == ":" {
            colons += 1;
        } else if child.is_named() {
            match colons {
                0 => start = Some(child),
                1 => stop = Some(child),
                _ => {}
            }
        }
    }
    (start, stop)
}

/// A string literal used as a key (`"k"`).
fn literal_key(n: TsNode, src: &str) -> Option<String> {
    if n.kind() != "string" {
        return None;
    }
    string_value(n, src).filter(|k| !k.is_empty() && k.len() <= 64)
}

fn bound(n: TsNode, src: &str, tainted: bool) -> Bound {
    let t = text(n, src);
    let kind = match n.kind() {
        "integer" => BoundKind::Int(t.replace('_', "").parse::<f64>().ok()),
        "float" => BoundKind::Float(t.replace('_', "").parse::<f64>().ok()),
        "identifier" => BoundKind::Name(t.to_string()),
        "attribute" => {
            let last = n
                .child_by_field_name("attribute")
                .map_or("", |a| text(a, src));
            let obj = n.child_by_field_name("object").map_or("", |o| text(o, src));
            if crate::model::words::is_const_name(last) && obj != "self" {
                BoundKind::Name(last.to_string())
            } else {
                BoundKind::Field
            }
        }
        _ => BoundKind::Other,
    };
    Bound {
        text: t.to_string(),
        kind,
        tainted,
    }
}

fn value_ref(n: TsNode, v: &Var, src: &str) -> ValueRef {
    let t = text(n, src);
    let name = v.arg.clone().unwrap_or_else(|| {
        if n.kind() == "identifier" {
            t.to_string()
        } else {
            "the argument".to_string()
        }
    });
    ValueRef {
        name,
        text: t.to_string(),
        mask: v.mask,
        direct: v.direct,
    }
}

/// The local or key a value is stored in (`snippet = text[:200]`,
/// `{"preview": text[:200]}`).
fn destination(e: TsNode, src: &str) -> String {
    let mut at = e;
    for _ in 0..3 {
        let Some(p) = at.parent() else {
            break;
        };
        match p.kind() {
            "assignment" => {
                return p
                    .child_by_field_name("left")
                    .map_or(String::new(), |l| text(l, src).to_string());
            }
            "pair" => {
                return p
                    .child_by_field_name("key")
                    .and_then(|k| string_value(k, src))
                    .unwrap_or_default();
            }
            "keyword_argument" => {
                return p
                    .child_by_field_name("name")
                    .map_or(String::new(), |l| text(l, src).to_string());
            }
            "parenthesized_expression"
            | "call"
            | "argument_list"
            | "conditional_expression"
            | "boolean_operator" => at = p,
            _ => break,
        }
    }
    String::new()
}

/// Inside a `raise`, or an exception being built.
fn into_error(e: TsNode, src: &str) -> bool {
    let mut at = e.parent();
    while let Some(p) = at {
        match p.kind() {
            "raise_statement" => return true,
            // `f"Failed to trash {id} (HTTP {code}): {resp.text[:200]}"`
            "string" => {
                let t = text(p, src).to_ascii_lowercase();
                if [
                    "error",
                    "fail",
                    "exception",
                    "could not",
                    "unable",
                    "invalid",
                ]
                .iter()
                .any(|w| t.contains(w))
                {
                    return true;
                }
            }
            "call" => {
                let callee = p
                    .child_by_field_name("function")
                    .map_or("", |f| text(f, src));
                // `ApiError(..)`, `ApiError.from_http_error(..)`,
                // `error_response(..)`.
                let last = callee.rsplit('.').next().unwrap_or_default();
                if callee
                    .split('.')
                    .any(|s| s.ends_with("Error") || s.ends_with("Exception"))
                    || last.to_ascii_lowercase().contains("error")
                {
                    return true;
                }
            }
            "function_definition" | "module" => return false,
            _ => {}
        }
        at = p.parent();
    }
    false
}

/// A slice of fewer than 500 characters or items written as a number:
/// a label or an excerpt, not output cut short (a named limit counts).
fn short_limit(lim: TsNode, src: &str) -> bool {
    lim.kind() == "integer"
        && text(lim, src)
            .replace('_', "")
            .parse::<u64>()
            .is_ok_and(|n| n < 500)
}

/// Does the cut value flow into what the function returns: written in a
/// `return`/`yield`, or stored (`x = ..`, `x[k] = ..`, `x.append(..)`,
/// `x += ..`) in a name a `return` of the function mentions?
fn reaches_output(e: TsNode, src: &str) -> bool {
    let mut at = e;
    let target = loop {
        let Some(p) = at.parent() else {
            return false;
        };
        match p.kind() {
            "return_statement" | "yield" => return true,
            "assignment" | "augmented_assignment" => {
                break p.child_by_field_name("left");
            }
            "call" => {
                let callee = p.child_by_field_name("function");
                if let Some(f) = callee
                    && f.kind() == "attribute"
                    && f.child_by_field_name("attribute").is_some_and(|a| {
                        matches!(
                            text(a, src),
                            "append" | "extend" | "insert" | "add" | "update"
                        )
                    })
                {
                    break f.child_by_field_name("object");
                }
            }
            "expression_statement" | "block" | "function_definition" | "module" => return false,
            _ => {}
        }
        at = p;
    };
    // The stored-to name (`result` of `result["text"] = ..`).
    let Some(mut target) = target else {
        return false;
    };
    while matches!(target.kind(), "subscript" | "attribute") {
        match target
            .child_by_field_name("value")
            .or_else(|| target.child_by_field_name("object"))
        {
            Some(inner) => target = inner,
            None => return false,
        }
    }
    let name = text(target, src);
    if name == "self" || target.kind() != "identifier" {
        return false;
    }
    let Some(body) = enclosing_body(e) else {
        return false;
    };
    returns_mention(body, src, name, 0)
}

fn returns_mention(n: TsNode, src: &str, name: &str, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    match n.kind() {
        "function_definition" | "lambda" | "class_definition" => false,
        "return_statement" | "yield" => {
            let mut names = std::collections::HashSet::new();
            identifiers(n, src, &mut names, 0);
            names.contains(name)
        }
        _ => {
            let mut c = n.walk();
            let children: Vec<TsNode> = n.named_children(&mut c).collect();
            children
                .into_iter()
                .any(|ch| returns_mention(ch, src, name, depth + 1))
        }
    }
}

/// Inside a log or print call: not output the model reads.
fn in_side_channel(e: TsNode, src: &str) -> bool {
    let mut at = e.parent();
    while let Some(p) = at {
        match p.kind() {
            "call" => {
                let callee = p
                    .child_by_field_name("function")
                    .map_or("", |f| text(f, src))
                    .to_ascii_lowercase();
                let last = callee.rsplit('.').next().unwrap_or("");
                if callee.starts_with("log")
                    || callee.contains("logger")
                    || callee.contains("logging")
                    || matches!(
                        last,
                        "print"
                            | "debug"
                            | "info"
                            | "warning"
                            | "warn"
                            | "error"
                            | "exception"
                            | "critical"
                    )
                {
                    return true;
                }
            }
            "function_definition" | "block" => return false,
            _ => {}
        }
        at = p.parent();
    }
    false
}

/// `x == "lit"` (either way round): the other side and the literal.
fn equality<'t>(c: TsNode<'t>, src: &str) -> Option<(TsNode<'t>, String)> {
    if c.kind() != "comparison_operator" {
        return None;
    }
    let mut cur = c.walk();
    let children: Vec<TsNode> = c.children(&mut cur).collect();
    let [l, op, r] = children.as_slice() else {
        return None;
    };
    if text(*op, src) != "==" {
        return None;
    }
    // A literal, or a constant that holds one (`Tools.SEARCH`).
    let literal = |n: TsNode| match n.kind() {
        "string" => string_value(n, src),
        "attribute" | "identifier" if super::constant(n, src).is_some() => {
            let (v, holes) = super::name_value(n, src);
            holes.is_empty().then_some(v)
        }
        _ => None,
    };
    match (literal(*r), literal(*l)) {
        (Some(lit), _) => Some((*l, lit)),
        (_, Some(lit)) => Some((*r, lit)),
        _ => None,
    }
}

/// `name`, `tool_name`, `call.function.name`: a value naming the tool.
fn names_tool_subject(t: &str) -> bool {
    let last = t.rsplit('.').next().unwrap_or(t).to_ascii_lowercase();
    last == "name" || last == "tool_name" || last == "tool" || last == "function_name"
}

fn find_string(n: TsNode) -> Option<TsNode> {
    if n.kind() == "string" {
        return Some(n);
    }
    let mut c = n.walk();
    let children: Vec<TsNode> = n.named_children(&mut c).collect();
    children.into_iter().find_map(find_string)
}

/// The conversions whose failure a `try` may turn into a default, and the
/// JSON values they take without failing.
fn parse_conversion(callee: &str) -> Option<Accepts> {
    match callee {
        "int" | "float" => Some(Accepts::Number),
        "bool" => Some(Accepts::Boolean),
        "json.loads" | "loads" | "orjson.loads" => Some(Accepts::Other),
        "datetime.fromisoformat"
        | "date.fromisoformat"
        | "datetime.datetime.fromisoformat"
        | "Decimal"
        | "uuid.UUID"
        | "UUID" => Some(Accepts::Other),
        _ => None,
    }
}

/// Calls that give back their input converted (`int(x)`, `x.strip()`).
fn is_conversion(callee: &str, method: bool) -> bool {
    if method {
        matches!(
            callee,
            "strip" | "lower" | "upper" | "lstrip" | "rstrip" | "casefold" | "title"
        )
    } else {
        matches!(callee, "int" | "float" | "str" | "bool")
    }
}

/// `v = <default>` in an except block: the default's text.
fn assigned_default(block: TsNode, local: &str, src: &str) -> Option<String> {
    let mut c = block.walk();
    for stmt in block.named_children(&mut c) {
        if stmt.kind() != "expression_statement" {
            continue;
        }
        let Some(a) = stmt.named_child(0).filter(|a| a.kind() == "assignment") else {
            continue;
        };
        if a.child_by_field_name("left")
            .is_some_and(|l| text(l, src) == local)
        {
            return a
                .child_by_field_name("right")
                .map(|r| format!("`{}`", text(r, src)));
        }
    }
    None
}

/// Where a block ends: an error, a default, or something else.
fn outcome(block: TsNode, src: &str) -> Outcome {
    if exits_with_error(block, src) {
        return Outcome::ErrorExit;
    }
    let t = text(block, src);
    if crate::model::words::says_unrecognised(t) {
        return Outcome::SaysUnknown;
    }
    // A lone assignment of a literal: a default.
    let mut c = block.walk();
    let stmts: Vec<TsNode> = block.named_children(&mut c).collect();
    if let [stmt] = stmts.as_slice()
        && let Some(a) = stmt.named_child(0).filter(|a| a.kind() == "assignment")
        && let Some(r) = a.child_by_field_name("right")
        && matches!(
            r.kind(),
            "string"
                | "integer"
                | "float"
                | "true"
                | "false"
                | "none"
                | "dictionary"
                | "list"
                | "attribute"
                | "identifier"
        )
    {
        return Outcome::Default(format!("`{}`", text(r, src)));
    }
    if let [stmt] = stmts.as_slice()
        && stmt.kind() == "return_statement"
        && stmt.named_child(0).is_some_and(|r| r.kind() == "none")
    {
        return Outcome::Declined;
    }
    // `return 0`, `return Mode.AUTO`: a default handed back.
    if let [stmt] = stmts.as_slice()
        && stmt.kind() == "return_statement"
        && let Some(r) = stmt.named_child(0)
        && matches!(
            r.kind(),
            "integer" | "float" | "true" | "false" | "attribute"
        )
    {
        return Outcome::Default(format!("`{}`", text(r, src)));
    }
    Outcome::Other
}

/// Raises, or returns an error (`return {"error": ..}`, `return
/// f"Error: .."`, `return [TextContent(text="Invalid ..")]`).
fn exits_with_error(block: TsNode, src: &str) -> bool {
    let mut c = block.walk();
    let stmts: Vec<TsNode> = block.named_children(&mut c).collect();
    stmts.iter().any(|s| match s.kind() {
        "raise_statement" => true,
        "return_statement" | "continue_statement" => {
            let t = text(*s, src).to_ascii_lowercase();
            s.kind() == "continue_statement"
                || [
                    "error",
                    "invalid",
                    "unknown",
                    "unsupported",
                    "not supported",
                    "must be",
                ]
                .iter()
                .any(|w| t.contains(w))
        }
        _ => false,
    })
}

/// `name` occurs in `t` as a word.
fn has_word(t: &str, name: &str) -> bool {
    !name.is_empty()
        && t.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|w| w == name)
}

/// Literal defaults of the parameters (`mode: str = "fast"`).
fn param_defaults(params: TsNode, src: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let mut c = params.walk();
    for p in params.named_children(&mut c) {
        if !matches!(p.kind(), "default_parameter" | "typed_default_parameter") {
            continue;
        }
        if let (Some(n), Some(v)) = (
            p.child_by_field_name("name"),
            p.child_by_field_name("value"),
        ) && let Some(s) = string_value(v, src)
        {
            out.insert(text(n, src).to_string(), s);
        }
    }
    out
}

/// The values a parameter is known to take: a `Literal[..]` type's, else
/// its literal default and the quoted values its docstring entry lists
/// (`mode: 'fast', 'slow' or 'auto'`).
fn known_values(ty: &str, default: Option<&String>, doc: &str, name: &str) -> Option<Values> {
    if ty.contains("Literal[") {
        return Some(Values {
            closed: true,
            list: Vec::new(),
        });
    }
    let mut list: Vec<String> = default.into_iter().cloned().collect();
    list.extend(documented_values(doc, name));
    (!list.is_empty()).then_some(Values {
        closed: false,
        list,
    })
}

/// The quoted words of a parameter's docstring entry (`name: ..` or
/// `name (str): ..` and the lines indented under it).
fn documented_values(doc: &str, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = doc.lines();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix(name) else {
            continue;
        };
        let rest = rest.trim_start();
        if !(rest.starts_with(':') || rest.starts_with('(')) {
            continue;
        }
        let indent = line.len() - t.len();
        let mut entry = rest.to_string();
        for more in lines.by_ref() {
            let mt = more.trim_start();
            if mt.is_empty() || more.len() - mt.len() <= indent {
                break;
            }
            entry.push(' ');
            entry.push_str(mt);
        }
        for quote in ['\'', '"', '`'] {
            let parts: Vec<&str> = entry.split(quote).collect();
            for (i, p) in parts.iter().enumerate() {
                if i % 2 == 1
                    && i + 1 < parts.len()
                    && !p.is_empty()
                    && p.len() <= 40
                    && !p.contains(char::is_whitespace)
                {
                    out.push(p.to_string());
                }
            }
        }
        break;
    }
    out
}

/// A select over a parameter typed `Literal[..]` (the fallback is reached
/// only by values the model was allowed to send), or whose known values
/// are not all among its literals: the fallback handles those (`tipo: str
/// = "ordinario"` with arms for the other kinds), not a value the model
/// mistyped.
fn handles_others(v: &Var, known: &[Literal]) -> bool {
    v.values.as_ref().is_some_and(|vals| {
        vals.closed
            || vals
                .list
                .iter()
                .any(|val| !known.iter().any(|k| k.text.trim_matches('"') == val))
    })
}

/// A slice passed straight to a call that is not output being built
/// (`search(text[:300])`): input to something else, not a cut result.
fn passed_on(e: TsNode, src: &str) -> bool {
    let Some(list) = e.parent().filter(|p| p.kind() == "argument_list") else {
        return false;
    };
    let Some(call) = list.parent() else {
        return false;
    };
    let callee = call
        .child_by_field_name("function")
        .map_or("", |f| text(f, src));
    let last = callee.rsplit('.').next().unwrap_or(callee);
    !matches!(
        last,
        "append"
            | "extend"
            | "join"
            | "insert"
            | "add"
            | "write"
            | "str"
            | "dict"
            | "list"
            | "dumps"
            | "format"
            | "TextContent"
            | "JSONResponse"
            | "jsonify"
    )
}

/// A preview of each item of a listing: the slice is written into an
/// f-string or appended, inside a loop (`for line in ..:
/// hits.append(f"L{i}: {line[:200]}")`). Each item is shortened by design;
/// the listing is not cut.
fn item_preview(e: TsNode, src: &str) -> bool {
    let mut formatted = false;
    let mut at = e.parent();
    while let Some(p) = at {
        match p.kind() {
            "interpolation" => formatted = true,
            "call" => {
                let callee = p
                    .child_by_field_name("function")
                    .map_or("", |f| text(f, src));
                if callee.ends_with(".append") {
                    formatted = true;
                }
            }
            "for_statement" | "list_comprehension" | "generator_expression" | "while_statement" => {
                return formatted;
            }
            "function_definition" | "lambda" => return false,
            _ => {}
        }
        at = p.parent();
    }
    false
}

/// Does a function body make up values with the `random` module
/// (`random.choice(..)`, `random.randint(..)`, `np.random.uniform(..)`)?
/// Shuffling or sampling real data (`random.shuffle(found)`) is not
/// making it up.
fn simulates(body: &str) -> bool {
    const MAKE_UP: &[&str] = &[
        "choice",
        "choices",
        "randint",
        "randrange",
        "uniform",
        "random",
        "gauss",
        "normalvariate",
        "triangular",
        "normal",
        "rand",
    ];
    body.match_indices("random.").any(|(i, _)| {
        let before = body[..i].chars().next_back();
        let ident = !before.is_some_and(|c| c.is_alphanumeric() || c == '_') || before == Some('.');
        let rest = &body[i + "random.".len()..];
        let name_len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        ident && MAKE_UP.contains(&&rest[..name_len]) && rest[name_len..].starts_with('(')
    })
}

/// A body that is a stub: its only statement (docstring and comments
/// aside) returns a literal built from constants alone (`return
/// {"revoked": True}`), or a comment in it says so (`# placeholder`,
/// `# mock`, `# simulated`).
fn stub_body(body: TsNode, src: &str) -> bool {
    let mut c = body.walk();
    let stmts: Vec<TsNode> = body
        .named_children(&mut c)
        .filter(|n| n.kind() != "comment")
        .filter(|n| first_docstring(body) != Some(*n))
        .collect();
    let constant = |n: TsNode| {
        let mut stack = vec![n];
        while let Some(n) = stack.pop() {
            if matches!(
                n.kind(),
                "identifier" | "call" | "interpolation" | "attribute"
            ) {
                return false;
            }
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c));
        }
        true
    };
    let lone_constant = matches!(stmts.as_slice(), [r] if r.kind() == "return_statement"
    && r.named_child(0).is_some_and(|v| {
        matches!(v.kind(), "dictionary" | "list" | "string" | "true" | "false" | "integer")
            && constant(v)
    }));
    lone_constant
        || text(body, src).lines().any(|l| {
            l.split_once('#').is_some_and(|(_, c)| {
                let c = c.to_ascii_lowercase();
                ["placeholder", "mock", "simulated", "simulation", "stub"]
                    .iter()
                    .any(|w| crate::model::words::has_phrase(&c, w))
            })
        })
}

/// The parameters (not `self`, context or `_`-prefixed) that no name in
/// the body refers to. None when the body is a stub (`...`, `pass`,
/// `raise NotImplementedError`) or passes its locals on (`locals()`).
fn unused_params(params: &[ParamFact], body: TsNode, src: &str) -> Vec<usize> {
    let doc = first_docstring(body);
    let mut c = body.walk();
    let stmts: Vec<TsNode> = body
        .named_children(&mut c)
        .filter(|s| Some(*s) != doc)
        .collect();
    let stub = stmts.iter().all(|s| {
        let t = text(*s, src).trim();
        t == "pass" || t == "..." || t.starts_with("raise NotImplementedError")
    });
    let body_text = text(body, src);
    if stub || body_text.contains("locals()") || body_text.contains("vars()") {
        return Vec::new();
    }
    let mut used = std::collections::HashSet::new();
    identifiers(body, src, &mut used, 0);
    let own = |p: &&ParamFact| !p.is_self && !p.is_context && !p.name.starts_with('_');
    let unused: Vec<usize> = params
        .iter()
        .enumerate()
        .filter(|(_, p)| own(p) && !used.contains(p.name.as_str()))
        .map(|(i, _)| i)
        .collect();
    // `return _disabled_order_response("stock")` and nothing else, using
    // none of its parameters: a placeholder that answers the same whatever
    // it is sent (what its description should say), not a handler that
    // forgot one argument.
    let placeholder = stmts.len() == 1
        && stmts[0].kind() == "return_statement"
        && unused.len() >= 2
        && unused.len() == params.iter().filter(own).count();
    if placeholder {
        return Vec::new();
    }
    unused
}

fn identifiers<'s>(
    n: TsNode,
    src: &'s str,
    out: &mut std::collections::HashSet<&'s str>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    if n.kind() == "identifier" {
        out.insert(text(n, src));
        return;
    }
    let mut c = n.walk();
    for child in n.named_children(&mut c) {
        identifiers(child, src, out, depth + 1);
    }
}

/// A select's default as its rules show it (without the backticks a
/// conversion's default carries).
fn select_default(o: Outcome) -> Outcome {
    match o {
        Outcome::Default(d) => Outcome::Default(d.trim_matches('`').to_string()),
        other => other,
    }
}

/// A name for the size of one page of a paginated request (`$top`,
/// `per_page`, `page_size`, `pageSize`, `batch_size`).
fn page_size(dest: &str) -> bool {
    let d = dest.to_ascii_lowercase().replace(['$', '-'], "_");
    d == "top" || d == "_top" || d.contains("page") || d.contains("batch")
}

/// How often `name` is written as an identifier under `n`.
fn count_identifier(n: TsNode, src: &str, name: &str, depth: usize) -> usize {
    if depth > MAX_DEPTH {
        return 0;
    }
    if n.kind() == "identifier" {
        return usize::from(text(n, src) == name);
    }
    let mut c = n.walk();
    let children: Vec<TsNode> = n.named_children(&mut c).collect();
    children
        .into_iter()
        .map(|ch| count_identifier(ch, src, name, depth + 1))
        .sum()
}

/// The body of the function `n` is written in.
fn enclosing_body(n: TsNode) -> Option<TsNode> {
    let mut f = n.parent();
    while let Some(p) = f {
        if p.kind() == "function_definition" {
            return p.child_by_field_name("body");
        }
        f = p.parent();
    }
    None
}

/// The names an import statement binds, with the path each stands for:
/// `import a.b as c` is `("c", ["a", "b"])`, `from ..x import y as z` is
/// `("z", [".", ".", "x", "y"])` (a `"."` per leading dot), `from .m
/// import *` is `("*", [".", "m"])`. `import a.b` binds `a`.
fn imports(n: TsNode, src: &str) -> Vec<(String, Vec<String>)> {
    let dotted = |d: TsNode| -> Vec<String> {
        text(d, src)
            .split('.')
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect()
    };
    let mut out = Vec::new();
    let mut c = n.walk();
    if n.kind() == "import_statement" {
        for name in n.children_by_field_name("name", &mut c) {
            match name.kind() {
                "dotted_name" => {
                    let path = dotted(name);
                    if let Some(first) = path.first() {
                        out.push((first.clone(), vec![first.clone()]));
                    }
                }
                "aliased_import" => {
                    if let (Some(d), Some(a)) = (
                        name.child_by_field_name("name"),
                        name.child_by_field_name("alias"),
                    ) {
                        out.push((text(a, src).to_string(), dotted(d)));
                    }
                }
                _ => {}
            }
        }
        return out;
    }
    let Some(module) = n.child_by_field_name("module_name") else {
        return out;
    };
    let mut base: Vec<String> = Vec::new();
    if module.kind() == "relative_import" {
        let mut mc = module.walk();
        for part in module.children(&mut mc) {
            match part.kind() {
                "import_prefix" => {
                    base.extend(
                        text(part, src)
                            .chars()
                            .filter(|c| *c == '.')
                            .map(|_| ".".to_string()),
                    );
                }
                "dotted_name" => base.extend(dotted(part)),
                _ => {}
            }
        }
    } else {
        base = dotted(module);
    }
    let mut any = false;
    for name in n.children_by_field_name("name", &mut c) {
        any = true;
        let (path, alias) = match name.kind() {
            "dotted_name" => (dotted(name), text(name, src).to_string()),
            "aliased_import" => match (
                name.child_by_field_name("name"),
                name.child_by_field_name("alias"),
            ) {
                (Some(d), Some(a)) => (dotted(d), text(a, src).to_string()),
                _ => continue,
            },
            _ => continue,
        };
        let mut full = base.clone();
        full.extend(path);
        out.push((alias, full));
    }
    if !any {
        let mut wc = n.walk();
        if n.named_children(&mut wc)
            .any(|x| x.kind() == "wildcard_import")
        {
            out.push(("*".to_string(), base));
        }
    }
    out
}

#[cfg(test)]
mod simulation_tests {
    use super::simulates;

    #[test]
    fn bodies_that_make_up_their_result() {
        assert!(simulates("return random.choice(['a', 'b'])"));
        assert!(simulates("x = np.random.uniform(0, 1)"));
        assert!(!simulates("return random_quote(topic)"));
        assert!(!simulates("seed = config.random.seed"));
        assert!(!simulates("return pseudorandom.pick(x)"));
        assert!(!simulates("random.shuffle(found)\nreturn found"));
    }
}
