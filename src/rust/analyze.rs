//! The per-file pass over a Rust syntax tree: items (structs, consts, impls,
//! functions), the tool declarations among them, and for every function a
//! light data-flow pass that says which values come from which parameter.
//! Code rules run here, on each function, while the tree is alive; what
//! they find waits as [`Candidate`]s until the crate is linked.

use std::collections::HashMap;
use std::sync::Arc;

use tree_sitter::Node as TsNode;

use super::ts::KindName as _;

use super::jsonlit;
use super::ts::{self, field, text};
use super::values::{self, Locals, inner_type, type_name};
use crate::extract::manifest;
use crate::model::code::*;
use crate::model::{Spanned, ToolFormat};
use crate::rules::{Context, RuleEntry};
use crate::source::{SourceFile, Span};
use crate::syntax::{Node, NodeKind};

/// Words in the name of a type whose literals declare tools (`Tool`,
/// `FunctionDefinition`, `ToolSpec`, `Spec`).
const TOOL_TYPE_WORDS: &[&str] = &["Tool", "Function", "Definition", "Spec", "Declaration"];

/// Field names that hold a tool's input schema in struct literals.
const SCHEMA_FIELDS: &[&str] = &[
    "input_schema",
    "inputSchema",
    "parameters",
    "schema",
    "parameters_schema",
    "args_schema",
];

/// Method names of a tool impl that run the tool.
pub const CALL_METHODS: &[&str] = &[
    "call",
    "call_tool",
    "execute",
    "run",
    "invoke",
    "handle",
    "handle_call",
    "run_tool",
    "exec",
    "perform",
    "apply",
];

/// Calls that convert or default a value without computing a new one.
const CONVERSIONS: &[&str] = &[
    // `Value::Object(args)`: the same object as a `Value`.
    "Object",
    "from_value",
    "from_str",
    "from_slice",
    "deserialize",
    "parse_arguments",
    "parse_args",
    "map_err",
    "context",
    "with_context",
    "unwrap_or",
    "unwrap_or_default",
    "unwrap_or_else",
    "unwrap",
    "expect",
    "as_u64",
    "as_i64",
    "as_f64",
    "as_str",
    "as_bool",
    "as_array",
    "as_object",
    "and_then",
    "map",
    "ok",
    "get",
    "try_into",
    "into",
    "parse",
    "clone",
    "to_string",
    "to_owned",
    "as_deref",
    "as_ref",
    "copied",
    "cloned",
    "to_lowercase",
    "to_ascii_lowercase",
    "trim",
    "from",
    "Some",
    "filter",
    "or",
    "or_else",
    "ok_or",
    "ok_or_else",
    "map_or",
    "from_secs",
    "from_millis",
    "as_secs",
    "as_millis",
    "try_from",
    "max",
    "min",
    "clamp",
];

/// Method names of a tool impl that return its input schema.
pub const SCHEMA_METHODS: &[&str] = &[
    "input_schema",
    "parameters",
    "schema",
    "parameters_schema",
    "args_schema",
    "arguments_schema",
    "json_schema",
    "parameters_json_schema",
    "input_schema_json",
];

/// Associated types that name a tool's argument type.
const ARGS_TYPES: &[&str] = &["Args", "Input", "Params", "Arguments", "Parameters"];

/// Parameter types of an MCP server's tool-call request.
const REQUEST_TYPES: &[&str] = &[
    "CallToolRequestParam",
    "CallToolRequestParams",
    "CallToolRequest",
];

pub struct Analyzer<'a> {
    src: &'a str,
    file: &'a Arc<SourceFile>,
    cx: &'a Context<'a>,
    rules: &'a [&'static RuleEntry],
    facts: FileFacts,
    /// The inline modules around the items being read (`mod x { .. }`).
    mod_path: Vec<String>,
    /// Declarations written inside an impl's run method (`fn call`): a
    /// `describe_tool` that returns another tool's definition. They do not
    /// make the impl's own `name()` and schema methods any less a tool.
    run_method_tools: usize,
}

/// Analyses one parsed file.
pub fn analyze(
    file: &Arc<SourceFile>,
    root: TsNode,
    cx: &Context,
    rules: &[&'static RuleEntry],
) -> FileFacts {
    let mut a = Analyzer {
        src: &file.text,
        file,
        cx,
        rules,
        facts: FileFacts {
            includes: file.text.contains("include!("),
            ..FileFacts::new(file)
        },
        mod_path: Vec::new(),
        run_method_tools: 0,
    };
    a.items(root, None, false, 0);
    check_positional(&mut a.facts);
    for t in &mut a.facts.tools {
        (t.branch, t.bound_before, t.literal_list) = placement(root, t.span, &file.text);
    }
    a.facts
}

/// Declarations built by a helper call with the name first: a `static`
/// schema must be one of this file's (a constant that is not a schema makes
/// no tool), and a second schema is the output schema only when the
/// helper's parameter there is named for one (`output_schema`, `out_schema`).
fn check_positional(facts: &mut FileFacts) {
    let FileFacts {
        tools,
        fns,
        schema_statics,
        ..
    } = facts;
    tools.retain_mut(|t| {
        let Some(p) = t.positional.take() else {
            return true;
        };
        if let Some(SchemaExpr::Static(name, _)) = &t.schema
            && !schema_statics.iter().any(|(n, _)| n == name)
        {
            return false;
        }
        if let Some((at, e)) = p.output {
            let named = fns.iter().filter(|f| f.name == p.helper).any(|f| {
                let params: Vec<&ParamFact> = f.params.iter().filter(|p| !p.is_self).collect();
                params.get(at).is_some_and(|p| {
                    let n = p.name.to_ascii_lowercase();
                    n.contains("output") || n.starts_with("out_")
                })
            });
            if named {
                t.output_schema = Some(e);
            }
        }
        true
    });
}

/// Where a declaration sits in its function, from one walk up its
/// ancestors (none inside a closure):
///
/// - the select it is written in, nearest first: a `match` arm (the
///   `match`'s start byte and the arm's index), or the list put under one
///   key of a map (`tools.insert("shilling", vec![..])`: the map and the
///   key, as hashes);
/// - the function's start byte when it is the value of a `let` (`let echo
///   = json!({"name": "echo", ..})`, also inside an arm of an outer
///   `match`): the value is in whichever lists the code later puts it in;
/// - the function's start byte when it is written in a literal list of a
///   `json!` or `vec!` (a token tree opened by `[`).
fn placement(
    root: TsNode,
    span: Span,
    src: &str,
) -> (Option<crate::model::Branch>, Option<usize>, Option<usize>) {
    let Some(mut cur) = root.descendant_for_byte_range(span.start, span.end) else {
        return (None, None, None);
    };
    let mut listed = false;
    // (select, arm, at); `arm_out` once the select cannot be one.
    let mut arm: Option<(usize, usize, usize)> = None;
    let mut arm_out = false;
    // Put into a list made outside the select (`tools.push(..)` in an arm):
    // that list gets it whichever arms run.
    let mut pushed = false;
    let mut bound = false;
    let mut bound_out = false;
    while let Some(parent) = cur.parent() {
        let open = arm.is_none() && !arm_out;
        match parent.kind_name() {
            "closure_expression" => return (None, None, None),
            "function_item" => {
                let branch =
                    arm.filter(|_| !arm_out)
                        .map(|(select, arm, at)| crate::model::Branch {
                            function: parent.start_byte(),
                            select,
                            arm,
                            at,
                        });
                let before = (bound && !bound_out).then(|| parent.start_byte());
                return (branch, before, listed.then(|| parent.start_byte()));
            }
            "let_declaration" => bound = true,
            "token_tree" if text(parent, src).starts_with('[') => listed = true,
            // Written in an arm (`let tools = match m { .. => json!(..) }`):
            // the arm's, not a value bound before.
            "match_arm" if !bound => bound_out = true,
            "call_expression" if open => {
                if let Some((m, Some(_))) = ts::callee_ref(parent, src)
                    && matches!(m, "push" | "extend" | "append" | "push_back")
                {
                    pushed = true;
                }
            }
            "match_block" if open && cur.kind_name() == "match_arm" => {
                let index = ts::named_children(parent)
                    .iter()
                    .filter(|n| n.kind_name() == "match_arm")
                    .position(|n| n.id() == cur.id());
                match (pushed, index, parent.parent()) {
                    (false, Some(index), Some(m)) => {
                        let start = m.start_byte();
                        arm = Some((start, index, start));
                    }
                    _ => arm_out = true,
                }
            }
            "arguments" if open => match parent.parent() {
                None => arm_out = true,
                Some(call) => {
                    let args = ts::named_children(parent);
                    // A list under the key (`vec![..]`, `[..]`, `json!([..])`).
                    let list = |v: TsNode| match v.kind_name() {
                        "array_expression" => true,
                        "macro_invocation" => {
                            let t = text(v, src);
                            t.starts_with("vec!")
                                || (t.starts_with("json!")
                                    && t[5..].trim_start_matches(['(', ' ']).starts_with('['))
                        }
                        _ => false,
                    };
                    if let (Some(("insert", Some(recv))), [key, value]) =
                        (ts::callee_ref(call, src), args.as_slice())
                        && value.id() == cur.id()
                        && list(*value)
                        && let Some(key) = ts::string_value(*key, src)
                    {
                        // Keyed by identities, apart from byte offsets.
                        let map = fnv(text(recv, src)) | 1 << (usize::BITS - 1);
                        arm = Some((map, fnv(&key), call.start_byte()));
                    }
                }
            },
            _ => {}
        }
        cur = parent;
    }
    (None, None, None)
}

/// A stable hash of a text, the same on every run.
fn fnv(text: &str) -> usize {
    crate::source::fnv1a(text.as_bytes()) as usize
}

/// Is a function of this (lower-case) name a helper that reads one key of
/// the arguments it is handed (`get_str(&args, "k")`, `require_path(..)`,
/// `opt_u64(..)`)? A call to one with a literal key is a read of that key.
fn is_key_helper(lname: &str) -> bool {
    const HELPERS: &[&str] = &[
        "get", "require", "opt", "param", "arg", "extract", "read", "field", "take",
    ];
    HELPERS.iter().any(|w| {
        lname.starts_with(w)
            || lname
                .match_indices(w)
                .any(|(i, _)| i > 0 && lname.as_bytes()[i - 1] == b'_')
    })
}

/// The condition of a `#[cfg(..)]` on an item (not `cfg(test)`).
fn cfg_of(attrs: &[TsNode], src: &str) -> Option<String> {
    attrs.iter().copied().find_map(|a| {
        let (path, args) = ts::attribute_parts(a, src)?;
        (ts::last_segment(&path) == "cfg")
            .then(|| args.map(|t| text(t, src).to_string()))
            .flatten()
    })
}

/// `#[test]`, or a `#[cfg(..)]` under which the item exists only in tests
/// (`cfg(test)`, `cfg(all(test, not(miri)))`; not `cfg(feature = "latest")`
/// or `cfg(any(test, feature = "x"))`).
fn is_test_item(item: TsNode, src: &str) -> bool {
    is_test_attrs(&ts::attributes(item), src)
}

/// [`is_test_item`] for attributes already collected.
fn is_test_attrs(attrs: &[TsNode], src: &str) -> bool {
    attrs.iter().copied().any(|a| {
        let Some((path, args)) = ts::attribute_parts(a, src) else {
            return false;
        };
        match ts::last_segment(&path) {
            "test" => true,
            "cfg" => args.is_some_and(|tt| crate::model::condition::only_in_tests(text(tt, src))),
            _ => false,
        }
    })
}

impl<'a> Analyzer<'a> {
    fn items(&mut self, node: TsNode, impl_id: Option<usize>, in_test: bool, depth: usize) {
        if depth > 32 {
            return;
        }
        for child in ts::named_children(node) {
            match child.kind_name() {
                "function_item" => {
                    let attrs = ts::attributes(child);
                    let test = in_test || is_test_attrs(&attrs, self.src);
                    self.function(child, impl_id, test, &attrs);
                }
                "impl_item" => self.impl_block(child, in_test, depth),
                "mod_item" => {
                    let test = in_test || is_test_item(child, self.src);
                    let name = field(child, "name")
                        .map(|n| text(n, self.src).trim_start_matches("r#").to_string())
                        .unwrap_or_default();
                    if let Some(body) = field(child, "body") {
                        self.mod_path.push(name);
                        self.items(body, None, test, depth + 1);
                        self.mod_path.pop();
                    } else {
                        let path_attr = ts::attributes(child).into_iter().find_map(|a| {
                            let (path, args) = ts::attribute_parts(a, self.src)?;
                            (path == "path" && args.is_none())
                                .then(|| ts::attribute_value(a, self.src))
                                .flatten()
                        });
                        let mut full = self.mod_path.clone();
                        full.push(name);
                        self.facts.mods.push((full, path_attr));
                    }
                }
                "use_declaration" if !in_test => {
                    ts::use_aliases(child, self.src, &mut self.facts.uses);
                }
                "struct_item" if !in_test => self.structure(child),
                "const_item" | "static_item" if !in_test => self.constant(child, impl_id),
                "type_item" => {
                    if let (Some(id), Some(name), Some(ty)) =
                        (impl_id, field(child, "name"), field(child, "type"))
                    {
                        self.facts.impls[id].assoc_types.push((
                            text(name, self.src).to_string(),
                            text(ty, self.src).to_string(),
                            ts::span(ty),
                        ));
                    }
                }
                _ => {}
            }
        }
    }

    fn impl_block(&mut self, node: TsNode, in_test: bool, depth: usize) {
        let test = in_test || is_test_item(node, self.src);
        let id = self.facts.impls.len();
        self.facts.impls.push(ImplFact {
            span: ts::span(node),
            self_type: field(node, "type")
                .map(|t| type_name(text(t, self.src)).to_string())
                .unwrap_or_default(),
            trait_name: field(node, "trait").map(|t| type_name(text(t, self.src)).to_string()),
            assoc_types: Vec::new(),
        });
        let tools_before = self.facts.tools.len();
        let run_before = self.run_method_tools;
        let before = (self.facts.fns.len(), self.facts.consts.len());
        if let Some(body) = field(node, "body") {
            self.items(body, Some(id), test, depth + 1);
        }
        if test {
            return;
        }
        let args_type = self.facts.impls[id]
            .assoc_types
            .iter()
            // `type Args = ..`, also `type RequestArgs = ..` by its head noun.
            .find(|(n, _, _)| ARGS_TYPES.contains(&last_camel_word(n)))
            .map(|(_, t, s)| (type_name(t).to_string(), *s));
        for t in &mut self.facts.tools[tools_before..] {
            if t.args_type.is_none() {
                t.args_type.clone_from(&args_type);
            }
        }
        let in_run_methods = self.run_method_tools - run_before;
        if self.facts.tools.len() - tools_before == in_run_methods {
            self.trait_tool(id, before, node, args_type);
        }
    }

    /// An impl with `fn name()` (or `const NAME`) and a schema or
    /// description method: a hand-rolled `Tool` trait.
    fn trait_tool(
        &mut self,
        id: usize,
        (fns_from, consts_from): (usize, usize),
        node: TsNode,
        args_type: Option<(String, Span)>,
    ) {
        // A blanket impl (`impl<T: Tool> DynTool for T { fn name() { T::NAME
        // } }`) serves the tools of the trait's impls; it is none itself.
        let self_type = &self.facts.impls[id].self_type;
        if field(node, "type_parameters").is_some_and(|tp| {
            let mut c = tp.walk();
            tp.named_children(&mut c).any(|p| {
                let name = field(p, "name").unwrap_or(p);
                text(name, self.src) == self_type
            })
        }) {
            return;
        }
        // The impl's methods and consts were recorded just before, in a row.
        let fns: Vec<&FnFact> = self.facts.fns[fns_from..]
            .iter()
            .filter(|f| f.impl_id == Some(id))
            .collect();
        let name_fn = fns.iter().find(|f| f.name == "name");
        let from_method = name_fn.is_some_and(|f| f.returns != ValueExpr::Unknown);
        let name = match name_fn {
            Some(f) if from_method => f.returns.clone(),
            _ => match self.facts.consts[consts_from..]
                .iter()
                .find(|c| c.impl_id == Some(id) && c.name == "NAME")
            {
                Some(c) => c.value.clone(),
                None => return,
            },
        };
        let schema = fns
            .iter()
            .find(|f| SCHEMA_METHODS.contains(&f.name.as_str()))
            .and_then(|f| f.returns_schema.clone())
            .or_else(|| args_type.clone().map(|(t, s)| SchemaExpr::Type(t, s)));
        // `fn description()`, else `const DESCRIPTION` (a trait whose
        // blanket impl returns `T::DESCRIPTION`).
        let description_const = self.facts.consts[consts_from..]
            .iter()
            .find(|c| c.impl_id == Some(id) && c.name == "DESCRIPTION")
            .map(|c| c.value.clone());
        let description = fns
            .iter()
            .find(|f| f.name == "description")
            .map(|f| f.returns.clone())
            .or(description_const);
        // A `name()` alone is not a tool (evaluations, plugins, providers
        // and database tables have names too): it takes a description or a
        // schema, and a method that runs it or a tool-like type or trait.
        let described = description.is_some()
            || fns
                .iter()
                .any(|f| SCHEMA_METHODS.contains(&f.name.as_str()));
        let runs = fns.iter().any(|f| CALL_METHODS.contains(&f.name.as_str()));
        let imp = &self.facts.impls[id];
        let tool_named = [
            imp.self_type.as_str(),
            imp.trait_name.as_deref().unwrap_or(""),
        ]
        .iter()
        .any(|n| {
            // By the type's head noun: `ReadFileTool`, `ToolImpl` are tools,
            // a `ToolPoisoningRule` is a rule about them.
            let head = last_camel_word(n);
            ["Tool", "Tools", "Function", "Action", "Command", "Skill"].contains(&head)
                || (head == "Impl" && n.len() > 4 && last_camel_word(&n[..n.len() - 4]) == "Tool")
        });
        if !described || !(runs || tool_named) {
            return;
        }
        let Some(name_site) = name.span() else {
            return;
        };
        self.facts.tools.push({
            let mut d = ToolDecl::new(
                name,
                name_site,
                ts::span(node).start_only(),
                ToolFormat::Rust,
            );
            d.description = description;
            d.schema = schema;
            d.output_schema = fns
                .iter()
                .find(|f| f.name == "output_schema")
                .and_then(|f| f.returns_schema.clone());
            d.impl_id = Some(id);
            d.args_type = args_type;
            d.name_from_method = from_method;
            d
        });
    }

    fn structure(&mut self, node: TsNode) {
        let src = self.src;
        let Some(name) = field(node, "name") else {
            return;
        };
        let Some(body) = field(node, "body").filter(|b| b.kind_name() == "field_declaration_list")
        else {
            return;
        };
        let mut s = StructFact {
            name: text(name, src).to_string(),
            name_span: ts::span(name),
            ..StructFact::default()
        };
        let mut rename_all = None;
        let mut struct_default = false;
        let mut tool_attr = None;
        for attr in ts::attributes(node) {
            let Some((path, args)) = ts::attribute_parts(attr, src) else {
                continue;
            };
            match ts::last_segment(&path) {
                // `#[mcp_tool(name = "..", description = "..")]` on the
                // argument struct: the struct is the tool (rust-mcp-sdk
                // and its kind), its fields the parameters.
                other if !matches!(other, "derive" | "serde" | "doc" | "cfg" | "allow") => {
                    if let Some(args) = args {
                        let kv = ts::attribute_args(args, src);
                        let get = |k: &str| {
                            kv.iter()
                                .find(|(key, v)| key == k && v.is_some())
                                .and_then(|(_, v)| v.clone())
                        };
                        if let (Some(name), Some(desc)) = (get("name"), get("description")) {
                            tool_attr = Some((name, desc));
                        }
                    }
                }
                "derive" => {
                    if let Some(args) = args {
                        for id in ts::identifiers(args, src) {
                            s.derives.push(id.0);
                        }
                    }
                }
                "serde" => {
                    if let Some(args) = args {
                        for (k, v) in ts::attribute_args(args, src) {
                            match (k.as_str(), v) {
                                ("deny_unknown_fields", _) => s.deny_unknown_fields = true,
                                ("rename_all", Some((v, _))) => rename_all = Some(v),
                                ("default", _) => struct_default = true,
                                _ => {}
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        for decl in ts::named_children(body) {
            if decl.kind_name() != "field_declaration" {
                continue;
            }
            let (Some(fname), Some(fty)) = (field(decl, "name"), field(decl, "type")) else {
                continue;
            };
            let rust_name = text(fname, src).trim_start_matches("r#").to_string();
            let ty = text(fty, src).to_string();
            let mut f = FieldFact {
                wire: rename(&rust_name, rename_all.as_deref()),
                name: rust_name,
                span: ts::span(fname),
                optional: struct_default || type_name(&ty) == "Option",
                serde_default: struct_default,
                description: ts::doc_comment(decl, src),
                ty,
                ..FieldFact::default()
            };
            for attr in ts::attributes(decl) {
                let Some((path, Some(args))) = ts::attribute_parts(attr, src) else {
                    continue;
                };
                let attr_name = ts::last_segment(&path).to_string();
                if matches!(
                    attr_name.as_str(),
                    "schemars" | "schema" | "validate" | "garde"
                ) {
                    let (min, max) = range_bounds(text(args, src));
                    f.range = (min.or(f.range.0.take()), max.or(f.range.1.take()));
                }
                for (k, v) in ts::attribute_args(args, src) {
                    match (attr_name.as_str(), k.as_str(), v) {
                        ("serde", "rename", Some((v, _))) => f.wire = v,
                        ("serde", "alias", Some((v, _))) => f.aliases.push(v),
                        ("serde", "default", _) => {
                            f.optional = true;
                            f.serde_default = true;
                        }
                        ("serde", "flatten", _) => f.flatten = true,
                        ("serde", "skip" | "skip_deserializing", _) => f.skip = true,
                        ("schemars" | "schema", "description", Some((v, _))) => {
                            f.description = Some(v)
                        }
                        ("schemars", "with", Some((v, _))) => f.schema_with = Some(v),
                        ("schemars", "schema_with", _) => f.schema_fn = true,
                        _ => {}
                    }
                }
            }
            s.has_flatten |= f.flatten;
            s.fields.push(f);
        }
        if let Some(((name, name_span), (desc, desc_span))) = tool_attr {
            let mut d = ToolDecl::new(
                ValueExpr::Str(Spanned {
                    value: name,
                    span: name_span,
                }),
                name_span,
                ts::span(node).start_only(),
                ToolFormat::Rust,
            );
            d.description = Some(ValueExpr::Str(Spanned {
                value: desc,
                span: desc_span,
            }));
            d.schema = Some(SchemaExpr::Type(s.name.clone(), s.name_span));
            d.args_type = Some((s.name.clone(), s.name_span));
            d.handler_type = Some(s.name.clone());
            d.crate_wide = true;
            self.facts.tools.push(d);
        }
        self.facts.structs.push(s);
    }

    fn constant(&mut self, node: TsNode, impl_id: Option<usize>) {
        let (Some(name), Some(value)) = (field(node, "name"), field(node, "value")) else {
            return;
        };
        let locals = Locals::default();
        let v = values::value_expr(value, self.src, &locals);
        if v != ValueExpr::Unknown {
            self.facts.consts.push(ConstFact {
                name: text(name, self.src).to_string(),
                value: v,
                impl_id,
            });
        }
        if let Some(schema) = values::schema_expr(value, self.src, &locals) {
            let name = text(name, self.src);
            if !matches!(&schema, SchemaExpr::Static(n, _) if n == name) {
                self.facts.schema_statics.push((name.to_string(), schema));
            }
        }
        // `static TOOLS: LazyLock<Vec<Tool>> = …`: declarations inside.
        let mut flow = Flow::new(self.src, &[], true);
        flow.visit(value, 0);
        self.take_tools(&mut flow, None, impl_id);
    }

    fn function(&mut self, node: TsNode, impl_id: Option<usize>, is_test: bool, attrs: &[TsNode]) {
        let src = self.src;
        let Some(name_node) = field(node, "name") else {
            return;
        };
        let index = self.facts.fns.len();
        let params = params(node, src);
        // An MCP server's `call_tool(request)`: every tool's calls pass here.
        let takes_request = params.iter().any(|p| {
            REQUEST_TYPES
                .iter()
                .any(|t| type_name(&p.ty) == *t || p.ty.contains(&format!("<{t}>")))
        });
        let mut fact = FnFact {
            name: text(name_node, src).to_string(),
            name_span: ts::span(name_node),
            impl_id,
            params,
            is_test,
            takes_request,
            cfg: cfg_of(attrs, src),
            generics: field(node, "type_parameters")
                .map(|tp| {
                    ts::named_children(tp)
                        .into_iter()
                        .filter_map(|p| {
                            let id = if p.kind_name() == "type_identifier" {
                                Some(p)
                            } else {
                                field(p, "name").or_else(|| field(p, "left")).or_else(|| {
                                    ts::named_children(p)
                                        .into_iter()
                                        .find(|c| c.kind_name() == "type_identifier")
                                })
                            }?;
                            (id.kind_name() == "type_identifier").then(|| text(id, src).to_string())
                        })
                        .collect()
                })
                .unwrap_or_default(),
            ..FnFact::default()
        };
        let Some(body) = field(node, "body") else {
            self.facts.fns.push(fact);
            return;
        };
        let mut flow = Flow::new(src, &fact.params, false);
        // A key helper's read by its key parameter (`args[key]` in
        // `get_path(args, key)`) is read where it is called, with the
        // literal key: here it does not let the arguments escape.
        if is_key_helper(&fact.name.to_ascii_lowercase()) {
            flow.key_params = fact
                .params
                .iter()
                .filter(|p| !p.is_self && !p.is_args_object && p.ty.contains("str"))
                .map(|p| p.name.clone())
                .collect();
        }
        // Names that are parameters: their values come from the callers.
        for (position, p) in fact.params.iter().filter(|p| !p.is_self).enumerate() {
            flow.locals.params.insert(p.name.clone(), (position, index));
        }
        // Parameter patterns bind fields: `Parameters(Args { a, _b })`.
        if let Some(ps) = field(node, "parameters") {
            for p in ts::named_children(ps) {
                if let Some(pat) = field(p, "pattern") {
                    flow.pattern_fields(pat);
                }
            }
        }
        flow.visit(body, 0);
        fact.sanitises_names = super::sites::sanitises_names(text(body, src));
        // Only where a tool definition is written (a `parameters`,
        // `input_schema` or `function` beside the `name`).
        fact.name_field_callees = {
            let body = text(body, src);
            if ["parameters", "input_schema", "inputSchema", "\"function\""]
                .iter()
                .any(|k| body.contains(k))
            {
                super::sites::name_field_callees(body)
            } else {
                Vec::new()
            }
        };
        // A validator built and applied to a value (not the meta-schema
        // check of a schema, not an error type named).
        fact.validates_schema = {
            let body = text(body, src);
            let builds = body.contains("jsonschema::") || body.contains("JSONSchema::");
            builds
                && [
                    ".validate(",
                    ".is_valid(",
                    ".iter_errors(",
                    "jsonschema::validate(",
                    "jsonschema::is_valid(",
                ]
                .iter()
                .any(|w| body.contains(w))
                && !body.contains("::meta::")
        };
        let tail = tail_expr(body);
        fact.returns = flow.returns(tail);
        fact.returns_schema = tail.and_then(|t| values::schema_expr(t, src, &flow.locals));
        fact.calls = std::mem::take(&mut flow.call_facts);
        fact.key_reads = std::mem::take(&mut flow.key_reads);
        fact.escapes = flow.escapes();
        fact.deserializes = std::mem::take(&mut flow.deserializes);
        // Each string of the body, decoded once, and whether it is a key of
        // an object the body writes (`json!({"k": ..})`).
        let strings: Vec<(String, bool)> = flow
            .strings
            .iter()
            .filter_map(|n| {
                let key = n.next_sibling().is_some_and(|s| s.kind() == ":");
                ts::string_value(*n, src).map(|s| (s, key))
            })
            .collect();
        fact.learn_strings(&strings, self.cx.truncation_markers);
        // A field of the result that says there is more.
        fact.marks_truncation = fact.marks_truncation
            || flow
                .field_reads
                .iter()
                .any(|f| crate::model::words::truncation_field(f));
        self.facts
            .field_reads
            .extend(std::mem::take(&mut flow.field_reads));
        self.facts
            .accessor_calls
            .extend(std::mem::take(&mut flow.accessor_calls));
        self.facts.ignored_fields.append(&mut flow.ignored_fields);
        if !is_test {
            self.rmcp_tool(node, index, &fact, attrs);
            self.facts.registrations.append(&mut flow.registrations);
            self.facts.uses.append(&mut flow.uses);
            self.facts.stated_bounds.append(&mut flow.stated_bounds);
            let own_type = impl_id.map(|id| self.facts.impls[id].self_type.clone());
            for (ty, field_name, value) in std::mem::take(&mut flow.field_inits) {
                let ty = match (ty.as_str(), &own_type) {
                    ("Self", Some(own)) => own.clone(),
                    ("Self", None) => continue,
                    _ => type_name(&ty).to_string(),
                };
                self.facts.field_inits.push(FieldInit {
                    ty,
                    field: field_name,
                    value,
                    fn_index: index,
                });
            }
            self.facts
                .name_rewrites
                .extend(flow.calls.iter().filter_map(|c| name_rewrite(*c, src)));
            self.facts
                .checked_fields
                .extend(std::mem::take(&mut flow.checked_fields));
            // A preview, icon, approval or audit table looks at calls by
            // tool name; it does not run them.
            let own_type = impl_id.map_or("", |id| self.facts.impls[id].self_type.as_str());
            let presents = !flow.dispatch.is_empty()
                && [fact.name.as_str(), own_type].iter().any(|n| {
                    let n = n.to_ascii_lowercase();
                    PRESENTATION_WORDS.iter().any(|w| n.contains(w))
                });
            for mut d in std::mem::take(&mut flow.dispatch) {
                if presents {
                    continue;
                }
                d.fn_index = index;
                self.facts.dispatch.push(d);
            }
            flow.map_tools();
            if impl_id.is_some() && CALL_METHODS.contains(&fact.name.as_str()) {
                self.run_method_tools += flow.tools.len();
            }
            self.take_tools(&mut flow, fact.cfg.clone(), impl_id);
            super::sites::record(src, &mut fact, &flow, self.cx.truncation_markers);
            let view = FunctionView {
                file: self.file,
                index,
                fact: &fact,
            };
            let mut out = Vec::new();
            for entry in self.rules {
                entry.rule.check_function(self.cx, &view, &mut out);
            }
            self.facts.candidates.extend(out);
        }
        self.facts.fns.push(fact);
    }

    fn take_tools(&mut self, flow: &mut Flow, cfg: Option<String>, impl_id: Option<usize>) {
        for mut t in std::mem::take(&mut flow.tools) {
            t.impl_id = impl_id;
            t.cfg.clone_from(&cfg);
            self.facts.tools.push(t);
        }
    }

    /// rmcp: `#[tool(name = "..", description = "..")]` on a method.
    fn rmcp_tool(&mut self, node: TsNode, index: usize, fact: &FnFact, attrs: &[TsNode]) {
        let src = self.src;
        let Some(attr) = attrs.iter().copied().find(|a| {
            ts::attribute_parts(*a, src).is_some_and(|(p, _)| ts::last_segment(&p) == "tool")
        }) else {
            return;
        };
        // `#[tool]` and `#[rmcp::tool]` are rmcp's; `#[swiftide::tool]` and
        // other frameworks' tool macros declare tools the same way.
        let path = ts::attribute_parts(attr, src)
            .map(|(p, _)| p)
            .unwrap_or_default();
        let format = if path == "tool" || path.starts_with("rmcp::") {
            ToolFormat::Rmcp
        } else {
            ToolFormat::Rust
        };
        let args = ts::attribute_parts(attr, src)
            .and_then(|(_, a)| a)
            .map(|tt| ts::attribute_args(tt, src))
            .unwrap_or_default();
        let get = |k: &str| {
            args.iter()
                .find(|(key, _)| key == k)
                .and_then(|(_, v)| v.clone())
        };
        // Other frameworks' `#[tool(input = T)]` (autoagents) or
        // `#[tool(tool_box)]` on impls are not rmcp tool methods.
        if args.iter().any(|(k, _)| k == "input") {
            return;
        }
        let name = match get("name") {
            Some((value, span)) => ValueExpr::Str(Spanned { value, span }),
            None => ValueExpr::Str(Spanned {
                value: fact.name.clone(),
                span: fact.name_span,
            }),
        };
        // `description = SOME_CONST`: there is one, known at run time.
        let dynamic = get("description").is_none()
            && args.iter().any(|(k, v)| k == "description" && v.is_none());
        let description = get("description")
            .map(|(value, span)| Spanned { value, span })
            .or_else(|| {
                ts::doc_comment(node, src).map(|value| Spanned {
                    value,
                    span: fact.name_span,
                })
            })
            .map(ValueExpr::Str)
            .or(dynamic.then_some(ValueExpr::Unknown));
        let mut schema = None;
        let mut args_type = None;
        let mut param_fields = Vec::new();
        let mut any_value = None;
        for p in &fact.params {
            if p.is_self || p.is_context {
                continue;
            }
            if let Some(inner) = inner_type(&p.ty, &["Parameters", "Json"]) {
                let t = type_name(inner).to_string();
                // rmcp derives `Parameters<serde_json::Value>` as schemars'
                // root schema of any value, `{"title": "AnyValue"}`: no
                // `type`, which hosts refuse (S102). The arguments stay
                // untyped for the other rules.
                if t == "Value" && inner_type(&p.ty, &["Parameters"]).is_some() {
                    any_value = Some(p.span);
                }
                if t == "JsonObject" || t == "Value" || t == "Map" {
                    continue;
                }
                args_type = Some((t.clone(), p.span));
                schema = Some(SchemaExpr::Type(t, p.span));
            } else if p.tool_attr.iter().any(|a| a == "aggr") {
                let t = type_name(&p.ty).to_string();
                args_type = Some((t.clone(), p.span));
                schema = Some(SchemaExpr::Type(t, p.span));
            } else if p.tool_attr.iter().any(|a| a == "param") {
                param_fields.push(FieldFact {
                    wire: p.name.clone(),
                    name: p.name.clone(),
                    span: p.span,
                    optional: type_name(&p.ty) == "Option",
                    description: p.doc.clone(),
                    ty: p.ty.clone(),
                    ..FieldFact::default()
                });
            }
        }
        if let (None, Some(at)) = (&schema, any_value) {
            let title = crate::syntax::Member {
                key: "title".into(),
                key_span: at,
                value: synth(NodeKind::String("AnyValue".into()), at),
            };
            schema = Some(SchemaExpr::Json(synth(NodeKind::Object(vec![title]), at)));
        }
        if schema.is_none() {
            schema = Some(SchemaExpr::Params(param_fields, fact.name_span));
        }
        let name_site = match &name {
            ValueExpr::Str(s) => s.span,
            _ => fact.name_span,
        };
        self.facts.tools.push({
            let mut d = ToolDecl::new(name, name_site, ts::span(attr), format);
            d.description = description;
            d.schema = schema;
            d.handler = Some(index);
            d.impl_id = fact.impl_id;
            d.args_type = args_type;
            d.cfg = fact.cfg.clone();
            d
        });
    }
}

pub use crate::model::code::rename;

/// The parameters of a function, `self` first when present.
fn params(node: TsNode, src: &str) -> Vec<ParamFact> {
    let Some(ps) = field(node, "parameters") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut pending_attrs: Vec<String> = Vec::new();
    let mut pending_doc: Option<String> = None;
    for p in ts::named_children(ps) {
        match p.kind_name() {
            "attribute_item" => {
                if let Some((path, Some(args))) = ts::attribute_parts(p, src) {
                    let a = ts::attribute_args(args, src);
                    match ts::last_segment(&path) {
                        "tool" => pending_attrs.extend(a.into_iter().map(|(k, _)| k)),
                        "schemars" | "schema" => {
                            pending_doc = a
                                .into_iter()
                                .find(|(k, _)| k == "description")
                                .and_then(|(_, v)| v.map(|v| v.0));
                        }
                        _ => {}
                    }
                }
            }
            "self_parameter" => {
                out.push(ParamFact {
                    name: "self".into(),
                    span: ts::span(p),
                    is_self: true,
                    ..ParamFact::default()
                });
            }
            "parameter" => {
                let pat = field(p, "pattern");
                let ty = field(p, "type").map_or("", |t| text(t, src)).to_string();
                let name = pat.map_or("", |n| text(n, src)).to_string();
                let lname = name.to_ascii_lowercase();
                // Context by its whole name (`ctx`, `peer`), or by a type
                // named for context (`RequestContext<..>`, `&Session`);
                // `session_id`, `page_token` or `server_name` are arguments.
                let stripped = ty.trim_start_matches('&').trim_start_matches("mut ").trim();
                let ty_base = type_name(stripped);
                let is_context = matches!(
                    lname.trim_start_matches('_'),
                    "context"
                        | "ctx"
                        | "cx"
                        | "peer"
                        | "state"
                        | "session"
                        | "client"
                        | "sender"
                        | "config"
                        | "cancel"
                        | "cancellation"
                        | "cancellation_token"
                        | "progress"
                        | "notifier"
                        | "server"
                        | "env"
                        | "extensions"
                        | "app"
                        | "turn"
                ) || [
                    "Context",
                    "Peer",
                    "Session",
                    "State",
                    "Sender",
                    "Config",
                    "Cancellation",
                    "Progress",
                    "Client",
                    "Server",
                    "Extensions",
                    "Notifier",
                    "Runtime",
                ]
                .iter()
                .any(|w| ty_base.contains(w) && !ty_base.contains("Request"));
                let base = type_name(ty.trim_start_matches('&').trim_start_matches("mut ").trim());
                let is_args_object = !is_context
                    && (matches!(base, "Value" | "Map" | "JsonObject" | "HashMap" | "Object")
                        || (base == "Option"
                            && ["Value", "Map<", "JsonObject"]
                                .iter()
                                .any(|t| ty.contains(t)))
                        || (pat.is_some_and(|n| n.kind_name() == "tuple_struct_pattern")
                            && ty.contains("JsonObject")));
                out.push(ParamFact {
                    name,
                    ty,
                    span: ts::span(p),
                    is_self: false,
                    is_context,
                    is_args_object,
                    tool_attr: std::mem::take(&mut pending_attrs),
                    doc: pending_doc.take(),
                });
            }
            _ => {}
        }
    }
    out
}

/// `tool.name().trim().replace(" ", "_")`: a literal replacement applied to
/// what a `name()` method returns (through value-preserving calls).
fn name_rewrite(call: TsNode, src: &str) -> Option<NameRewrite> {
    let (method, recv) = ts::callee(call, src)?;
    if method != "replace" {
        return None;
    }
    let lit = |n: TsNode| match n.kind_name() {
        "char_literal" => text(n, src)
            .strip_prefix('\'')?
            .strip_suffix('\'')
            .filter(|c| c.chars().count() == 1)
            .map(str::to_string),
        _ => ts::string_value(n, src),
    };
    let [from, to] = ts::call_args(call)[..] else {
        return None;
    };
    let (from, to) = (lit(from).filter(|f| !f.is_empty())?, lit(to)?);
    let mut r = recv?;
    for _ in 0..8 {
        let (name, inner) = ts::callee(r, src).filter(|_| r.kind_name() == "call_expression")?;
        match name.as_str() {
            "name" if inner.is_some() && ts::call_args(r).is_empty() => {
                return Some(NameRewrite {
                    from,
                    to,
                    span: ts::span(call),
                });
            }
            "trim" | "to_string" | "to_owned" | "as_str" | "clone" | "replace" => r = inner?,
            _ => return None,
        }
    }
    None
}

/// Does an `if … else if … else` chain end in an error exit?
fn ends_in_error(i: TsNode, src: &str) -> bool {
    let mut cur = i;
    for _ in 0..16 {
        let Some(alt) = field(cur, "alternative") else {
            return false;
        };
        let Some(next) = alt.named_child(0) else {
            return false;
        };
        if next.kind_name() == "if_expression" {
            cur = next;
        } else {
            return super::sites::is_error_exit(next, src);
        }
    }
    false
}

/// Does a key read end in an error when the key is missing or of the
/// wrong type (`args.get("k").and_then(Value::as_str).ok_or(..)?`,
/// `args["k"].as_str().unwrap()`, `get_str(&args, "k")?`), rather than in a
/// default? Follows the method chain the read is the receiver of.
fn loud_read(read: TsNode, src: &str) -> bool {
    let mut n = read;
    for _ in 0..8 {
        let Some(p) = n.parent() else { return false };
        match p.kind_name() {
            "try_expression" => return true,
            "field_expression" => {
                let Some(call) = p.parent().filter(|c| c.kind_name() == "call_expression") else {
                    return false;
                };
                match field(p, "field").map_or("", |f| text(f, src)) {
                    "ok_or" | "ok_or_else" | "expect" | "unwrap" | "context" | "with_context" => {
                        return true;
                    }
                    "unwrap_or" | "unwrap_or_default" | "unwrap_or_else" | "map_or"
                    | "map_or_else" => return false,
                    _ => n = call,
                }
            }
            "reference_expression" | "parenthesized_expression" => n = p,
            _ => return false,
        }
    }
    false
}

/// The type a value is made of: `Arc::new(GrepHandler)`, `Box::new(T {..})`,
/// `T::new()`, `T::default()`, `T`.
fn type_in(n: TsNode, src: &str) -> Option<String> {
    const WRAPPERS: &[&str] = &[
        "Box", "Arc", "Rc", "Some", "Ok", "RefCell", "Mutex", "RwLock", "Cow", "String", "Vec",
    ];
    let mut n = n;
    for _ in 0..6 {
        n = ts::peel(n, src);
        match n.kind_name() {
            "identifier" | "type_identifier" | "scoped_identifier" => {
                let t = type_name(text(n, src));
                return (t.chars().next().is_some_and(char::is_uppercase)
                    && !WRAPPERS.contains(&t))
                .then(|| t.to_string());
            }
            "struct_expression" => {
                return field(n, "name").map(|t| type_name(text(t, src)).to_string());
            }
            "call_expression" => {
                let path = ts::callee_path(n, src).map(type_name).unwrap_or("");
                if !path.is_empty() && !WRAPPERS.contains(&path) {
                    return path
                        .chars()
                        .next()
                        .is_some_and(char::is_uppercase)
                        .then(|| path.to_string());
                }
                n = *ts::call_args(n).first()?;
            }
            _ => return None,
        }
    }
    None
}

/// The one call an expression is (`f(x)`, `self.f(x).await?`,
/// `Ok(f(x))`, `{ f(x) }`, `f(x).map_err(..)`), if it is one.
fn single_call<'t>(n: TsNode<'t>, src: &str) -> Option<TsNode<'t>> {
    let mut n = super::sites::unblock(n);
    for _ in 0..8 {
        match n.kind_name() {
            "try_expression" | "await_expression" | "parenthesized_expression" => {
                n = n.named_child(0)?;
            }
            "call_expression" => {
                let (name, recv) = ts::callee(n, src)?;
                let args = ts::call_args(n);
                match (name.as_str(), recv, args.as_slice()) {
                    ("Ok" | "Some" | "pin", None, [inner]) => n = *inner,
                    (
                        "map_err" | "map" | "into" | "context" | "with_context" | "unwrap"
                        | "expect",
                        Some(r),
                        _,
                    ) => n = r,
                    _ => return Some(n),
                }
            }
            _ => return None,
        }
    }
    None
}

/// Keys of a tool definition built as a map, key by key.
const MAP_TOOL_KEYS: &[&str] = &[
    "name",
    "description",
    "inputSchema",
    "input_schema",
    "parameters",
];

/// Macros of the standard library and common crates: never a tool list.
const STD_MACROS: &[&str] = &[
    "format",
    "println",
    "eprintln",
    "print",
    "eprint",
    "write",
    "writeln",
    "panic",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "matches",
    "info",
    "warn",
    "error",
    "debug",
    "trace",
    "bail",
    "anyhow",
    "ensure",
    "concat",
    "include_str",
    "include_bytes",
    "env",
    "todo",
    "unreachable",
    "unimplemented",
    "dbg",
    "format_args",
    "select",
    "join",
    "try_join",
    "quote",
    "schema_for",
    "lazy_static",
    "thread_local",
    "macro_rules",
    "cfg",
    "stringify",
];

/// The function a handler argument hands the call to: `grep` (a path),
/// `|args, ctx| async move { grep(args, ctx).await }` (a closure whose body
/// is one call).
fn handler_callee(a: TsNode, src: &str) -> Option<String> {
    match a.kind_name() {
        "identifier" => Some(text(a, src).to_string()),
        "scoped_identifier" => field(a, "name").map(|n| text(n, src).to_string()),
        "closure_expression" => {
            let mut body = field(a, "body")?;
            if body.kind_name() == "async_block" {
                body = ts::named_children(body)
                    .into_iter()
                    .find(|c| c.kind_name() == "block")?;
            }
            let call = single_call(body, src)?;
            ts::callee(call, src).map(|(name, _)| name)
        }
        _ => None,
    }
}

/// What a call can reach, from how it is written.
fn call_target(call: TsNode, recv: Option<TsNode>, src: &str) -> CallTarget {
    if let Some(r) = recv {
        return if r.kind_name() == "self" {
            CallTarget::OwnType
        } else {
            CallTarget::Method
        };
    }
    let Some(path) = ts::callee_path(call, src) else {
        return CallTarget::Free;
    };
    let first = path.split("::").next().unwrap_or("").trim();
    let last = type_name(path);
    if path == "Self" {
        CallTarget::OwnType
    } else if last.chars().next().is_some_and(char::is_uppercase) {
        CallTarget::Type(last.to_string())
    } else if matches!(first, "crate" | "super" | "self") {
        CallTarget::Free
    } else if matches!(
        first,
        "std"
            | "core"
            | "alloc"
            | "serde"
            | "serde_json"
            | "tokio"
            | "fs"
            | "io"
            | "env"
            | "process"
            | "thread"
            | "mem"
            | "ptr"
            | "cmp"
            | "fmt"
            | "time"
            | "path"
            | "str"
            | "string"
            | "iter"
            | "anyhow"
            | "futures"
            | "chrono"
            | "regex"
            | "reqwest"
            | "rmcp"
            | "tracing"
            | "log"
            | "base64"
            | "url"
            | "uuid"
            | "schemars"
    ) {
        CallTarget::External
    } else {
        CallTarget::Free
    }
}

/// The expression a block evaluates to.
pub fn tail_expr(block: TsNode) -> Option<TsNode> {
    let last = ts::named_children(block)
        .into_iter()
        .rev()
        .find(|n| !matches!(n.kind_name(), "line_comment" | "block_comment"))?;
    match last.kind_name() {
        // A `match`, `if` or block ending the body is parsed as a statement;
        // without a `;` it is still the value.
        "expression_statement"
            if last
                .child(last.child_count().saturating_sub(1))
                .is_some_and(|t| t.kind() != ";") =>
        {
            last.named_child(0)
        }
        "expression_statement" | "let_declaration" | "empty_statement" => None,
        _ => Some(last),
    }
}

/// Names a pattern binds: `Some(x)` → `x`, `Args { a, b: c }` → `a`, `c`.
fn bindings<'t>(pat: TsNode<'t>, src: &str, out: &mut Vec<(String, TsNode<'t>)>, depth: usize) {
    if depth > ts::MAX_DEPTH {
        return;
    }
    match pat.kind_name() {
        "identifier" => {
            let t = text(pat, src);
            if t.chars()
                .next()
                .is_some_and(|c| c.is_lowercase() || c == '_')
            {
                out.push((t.to_string(), pat));
            }
        }
        "shorthand_field_identifier" => out.push((text(pat, src).to_string(), pat)),
        "tuple_struct_pattern" | "struct_pattern" => {
            let ty = field(pat, "type").map(|t| t.id());
            for c in ts::named_children(pat) {
                if Some(c.id()) != ty {
                    bindings(c, src, out, depth + 1);
                }
            }
        }
        "field_pattern" => match field(pat, "pattern") {
            Some(p) => bindings(p, src, out, depth + 1),
            None => {
                if let Some(n) = field(pat, "name") {
                    bindings(n, src, out, depth + 1);
                }
            }
        },
        "scoped_identifier" | "scoped_type_identifier" | "type_identifier" => {}
        _ => {
            for c in ts::named_children(pat) {
                bindings(c, src, out, depth + 1);
            }
        }
    }
}

/// The per-function data flow: which locals carry which parameters (a
/// bitmask, `self` is bit 0 when present), the calls and key reads, and the
/// nodes rules look at.
pub struct Flow<'t, 's> {
    src: &'s str,
    env: HashMap<String, u64>,
    /// Locals that hold the arguments object itself, with their mask.
    roots: HashMap<String, u64>,
    /// Locals that hold an object under one top-level key of the arguments
    /// (`let Some(updates) = args.get("updates")`): the root's mask and the key.
    nested: HashMap<String, (u64, String)>,
    /// Parameters that hold the tool's typed arguments (`Parameters(args):
    /// Parameters<CallArgs>`): their `.arguments` is one of the tool's
    /// arguments, not the request's arguments object.
    typed_args: std::collections::HashSet<String>,
    /// Locals that hold a requested value as sent (a parameter, a field or
    /// key of the arguments, converted), not something computed from it.
    direct: std::collections::HashSet<String>,
    pub locals: Locals,
    /// Identifier uses of `roots`, and whether a key read consumed them.
    root_uses: Vec<(usize, u64)>,
    consumed: std::collections::HashSet<usize>,
    let_type: Option<String>,
    pub calls: Vec<TsNode<'t>>,
    pub matches: Vec<TsNode<'t>>,
    pub ifs: Vec<TsNode<'t>>,
    pub indexes: Vec<TsNode<'t>>,
    pub strings: Vec<TsNode<'t>>,
    call_facts: Vec<CallFact>,
    key_reads: Vec<KeyRead>,
    /// The key parameters of a key helper (see [`is_key_helper`]).
    key_params: std::collections::HashSet<String>,
    deserializes: Vec<(String, Span, u64)>,
    field_reads: std::collections::BTreeSet<String>,
    accessor_calls: std::collections::BTreeSet<String>,
    ignored_fields: Vec<(String, Span)>,
    tools: Vec<ToolDecl>,
    /// Name dispatch arms (their function is set when the flow is done).
    dispatch: Vec<Dispatch>,
    /// `obj.insert("name", json!(name))`: (receiver, key, value, call).
    map_inserts: Vec<(String, String, TsNode<'t>, Span)>,
    registrations: Vec<Registration>,
    /// `use a::B as C;` in the body: (C, [a, B]).
    uses: Vec<(String, Vec<String>)>,
    /// `props.insert("limit", integer_field(1, 500))`: (key, numbers).
    stated_bounds: Vec<(String, Vec<String>)>,
    /// `Self { tool_name: format!(..), .. }`: (type as written, field, value).
    field_inits: Vec<(String, String, ValueExpr)>,
    returns: Vec<ValueExpr>,
    /// Inside a `static`/`const` value: only tool declarations matter.
    item_only: bool,
    /// How many `vec!` bodies deep this flow was parsed from.
    reparse_depth: usize,
    /// Calls already seen as links of a method chain (visited outermost
    /// first), so a chain is read once, from its top.
    chain_links: std::collections::HashSet<usize>,
    /// `x.f` nodes that are the function of a call (`x.f()`): methods, not
    /// field reads.
    method_fields: std::collections::HashSet<usize>,
    /// `if` expressions that are the `else if` of another.
    pub else_ifs: std::collections::HashSet<usize>,
    /// Fields whose absence is an error (`args.path.ok_or(..)?`).
    checked_fields: Vec<String>,
    /// Locals that hold a field as is (`let path = params.path.as_deref()`).
    field_aliases: HashMap<String, String>,
    /// Cursors for walking children, one per level in use: made once, not
    /// per node (each costs an allocation).
    cursors: Vec<tree_sitter::TreeCursor<'t>>,
}

impl<'t, 's> Flow<'t, 's> {
    fn new(src: &'s str, params: &[ParamFact], item_only: bool) -> Self {
        let mut f = Flow {
            src,
            env: HashMap::new(),
            roots: HashMap::new(),
            nested: HashMap::new(),
            typed_args: Default::default(),
            direct: Default::default(),
            locals: Locals::default(),
            root_uses: Vec::new(),
            consumed: Default::default(),
            let_type: None,
            key_params: Default::default(),
            calls: Vec::new(),
            matches: Vec::new(),
            ifs: Vec::new(),
            indexes: Vec::new(),
            strings: Vec::new(),
            call_facts: Vec::new(),
            key_reads: Vec::new(),
            deserializes: Vec::new(),
            field_reads: Default::default(),
            accessor_calls: Default::default(),
            ignored_fields: Vec::new(),
            tools: Vec::new(),
            dispatch: Vec::new(),
            map_inserts: Vec::new(),
            registrations: Vec::new(),
            uses: Vec::new(),
            stated_bounds: Vec::new(),
            field_inits: Vec::new(),
            returns: Vec::new(),
            item_only,
            reparse_depth: 0,
            chain_links: Default::default(),
            method_fields: Default::default(),
            else_ifs: Default::default(),
            checked_fields: Vec::new(),
            field_aliases: HashMap::new(),
            cursors: Vec::new(),
        };
        for (i, p) in params.iter().enumerate().take(63) {
            let bit = 1u64 << i;
            if p.is_self {
                f.env.insert("self".into(), bit);
                continue;
            }
            // The pattern's bound names; a plain name is the common case.
            for name in p
                .name
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| {
                    w.chars()
                        .next()
                        .is_some_and(|c| c.is_lowercase() || c == '_')
                        && !matches!(*w, "mut" | "ref")
                })
            {
                f.env.insert(name.to_string(), bit);
                f.direct.insert(name.to_string());
                if ["Parameters<", "Json<"]
                    .iter()
                    .any(|w| values::owned_type(&p.ty).starts_with(w))
                {
                    f.typed_args.insert(name.to_string());
                }
                if p.is_args_object {
                    f.roots.insert(name.to_string(), bit);
                }
            }
        }
        f
    }

    /// The parameters an expression's value depends on.
    pub fn mask(&self, n: TsNode) -> u64 {
        let mut m = 0;
        ts::walk(n, &mut |c| {
            if matches!(c.kind_name(), "identifier" | "self") {
                m |= self.env.get(ts::text(c, self.src)).copied().unwrap_or(0);
            }
            true
        });
        m
    }

    fn bind(&mut self, pat: TsNode<'t>, mask: u64) {
        let mut names = Vec::new();
        bindings(pat, self.src, &mut names, 0);
        for (n, _) in names {
            self.env.insert(n, mask);
        }
        self.pattern_fields(pat);
    }

    /// Binds a pattern to a value, and marks its names direct when the
    /// value is (destructuring a request keeps its parts as sent).
    fn bind_from(&mut self, pat: TsNode<'t>, value: TsNode<'t>) {
        let mask = self.mask(value);
        let direct = self.is_direct(value);
        self.bind(pat, mask);
        let mut names = Vec::new();
        bindings(pat, self.src, &mut names, 0);
        // `let updates = args["updates"]`, `let Some(updates) = args.get("updates")`.
        // A key is a string literal: most bindings have none.
        let nested = if text(value, self.src).contains('"') {
            self.nested_of(value)
        } else {
            None
        };
        let single =
            matches!(pat.kind_name(), "identifier" | "tuple_struct_pattern") && names.len() == 1;
        for (n, _) in &names {
            match &nested {
                Some(v) if single => {
                    self.nested.insert(n.clone(), v.clone());
                }
                _ => {
                    self.nested.remove(n);
                }
            }
        }
        for (n, _) in names {
            if direct {
                self.direct.insert(n);
            } else {
                self.direct.remove(&n);
            }
        }
    }

    /// Field names a pattern reads (`Args { limit, .. }`), and fields bound
    /// to `_`-prefixed names.
    fn pattern_fields(&mut self, pat: TsNode<'t>) {
        let src = self.src;
        let mut reads = Vec::new();
        let mut ignored = Vec::new();
        ts::walk(pat, &mut |n| {
            if n.kind_name() == "field_pattern" {
                let Some(name) = field(n, "name") else {
                    return true;
                };
                let fname = text(name, src).to_string();
                match field(n, "pattern") {
                    Some(p) if p.kind_name() == "identifier" && text(p, src).starts_with('_') => {
                        ignored.push((fname, ts::span(p)));
                    }
                    Some(p) if text(p, src) == "_" => ignored.push((fname, ts::span(p))),
                    _ => reads.push(fname),
                }
            } else if n.kind_name() == "shorthand_field_identifier" {
                reads.push(text(n, src).to_string());
            }
            true
        });
        self.field_reads.extend(reads);
        self.ignored_fields.extend(ignored);
    }

    /// The field an expression holds as is: `args.path`, `&args.path`,
    /// `args.path.as_deref()`, or a local bound to one.
    fn field_of(&self, n: TsNode) -> Option<String> {
        let mut n = ts::peel(n, self.src);
        if n.kind_name() == "call_expression"
            && let Some((m, Some(r))) = ts::callee(n, self.src)
            && matches!(
                m.as_str(),
                "as_deref" | "as_deref_mut" | "as_mut" | "cloned" | "copied"
            )
        {
            n = ts::peel(r, self.src);
        }
        match n.kind_name() {
            "field_expression" => field(n, "field").map(|f| text(f, self.src).to_string()),
            "identifier" => self.field_aliases.get(text(n, self.src)).cloned(),
            _ => None,
        }
    }

    /// Is `n` a requested value as the model sent it: built only from
    /// parameters and direct locals through field and key access,
    /// conversions and defaults (`args.limit.unwrap_or(10)`,
    /// `args.get("n").and_then(|v| v.as_u64())`), not computed from them
    /// (`names.len()`, `store.list(folder)`)?
    pub fn is_direct(&self, n: TsNode) -> bool {
        let src = self.src;
        let mut ok = true;
        let mut any = false;
        ts::walk(n, &mut |c| {
            if !ok {
                return false;
            }
            match c.kind_name() {
                "identifier" => {
                    let t = text(c, src);
                    // Closure parameters (`|v| v.as_u64()`) and constants pass.
                    if self.direct.contains(t) {
                        any = true;
                    } else if self.env.get(t).copied().unwrap_or(0) != 0 {
                        ok = false;
                    }
                    true
                }
                "call_expression" => {
                    let name = ts::callee(c, src).map(|(n, _)| n).unwrap_or_default();
                    if !CONVERSIONS.contains(&name.as_str()) {
                        ok = false;
                    }
                    true
                }
                // A branch that leaves (`return Err(..)`, `bail!(..)`)
                // gives the value nothing.
                "return_expression" => false,
                "macro_invocation" => {
                    if !matches!(
                        ts::macro_name(c, src),
                        "bail" | "panic" | "unreachable" | "todo" | "unimplemented"
                    ) {
                        ok = false;
                    }
                    false
                }
                _ => true,
            }
        });
        ok && any
    }

    /// A local bound to an object under a top-level key (see `nested`).
    fn nested_local(&self, n: TsNode) -> Option<(u64, String)> {
        let n = ts::peel(n, self.src);
        (n.kind_name() == "identifier")
            .then(|| self.nested.get(text(n, self.src)).cloned())
            .flatten()
    }

    /// The root's mask and the key when `n` is the value under one
    /// top-level key of the arguments (`args.get("updates")`,
    /// `args["updates"].as_object()`, `.and_then(Value::as_object)`).
    fn nested_of(&self, n: TsNode) -> Option<(u64, String)> {
        let src = self.src;
        let mut n = n;
        for _ in 0..ts::MAX_DEPTH {
            n = ts::peel(n, src);
            match n.kind_name() {
                "index_expression" => {
                    let kids = ts::named_children(n);
                    let [obj, idx] = kids.as_slice() else {
                        return None;
                    };
                    let key = ts::string_value(*idx, src)?;
                    let m = self.root_mask(*obj);
                    return (m != 0).then_some((m, key));
                }
                "call_expression" => {
                    let (name, recv) = ts::callee_ref(n, src)?;
                    let recv = recv?;
                    match name {
                        "get" | "get_mut" | "remove" => {
                            let args = ts::call_args(n);
                            let [k] = args.as_slice() else { return None };
                            let key = ts::string_value(*k, src)?;
                            let m = self.root_mask(recv);
                            return (m != 0).then_some((m, key));
                        }
                        "as_object" | "unwrap" | "expect" | "ok_or" | "ok_or_else" | "cloned"
                        | "context" | "with_context" => n = recv,
                        // `.and_then(|v| v.as_object())`, `.and_then(Value::as_object)`
                        "and_then" | "map"
                            if ts::call_args(n).iter().any(|a| {
                                let t = text(*a, src);
                                t.contains("as_object") && !t.contains("get(")
                            }) =>
                        {
                            n = recv
                        }
                        _ => return None,
                    }
                }
                _ => return None,
            }
        }
        None
    }

    /// The arguments-object mask of an expression that *is* the arguments
    /// object (`args`, `&args`, `request.arguments.unwrap_or_default()`).
    fn root_mask(&self, n: TsNode) -> u64 {
        let mut n = n;
        for _ in 0..ts::MAX_DEPTH {
            n = ts::peel(n, self.src);
            match n.kind_name() {
                "identifier" => return self.roots.get(text(n, self.src)).copied().unwrap_or(0),
                "field_expression" => {
                    let f = field(n, "field").map_or("", |f| text(f, self.src));
                    let of_typed_args = field(n, "value")
                        .is_some_and(|v| self.typed_args.contains(text(v, self.src)));
                    return if !of_typed_args
                        && matches!(
                            f,
                            "arguments" | "args" | "input" | "params" | "parameters" | "0"
                        ) {
                        field(n, "value").map_or(0, |v| self.mask(v))
                    } else {
                        0
                    };
                }
                "call_expression" => match ts::callee_ref(n, self.src) {
                    Some((
                        "unwrap" | "unwrap_or_default" | "as_object" | "as_object_mut" | "cloned"
                        | "expect" | "unwrap_or" | "unwrap_or_else" | "ok_or" | "ok_or_else"
                        | "as_mut" | "take" | "as_deref" | "context" | "with_context" | "map_err"
                        | "clone",
                        Some(recv),
                    )) => n = recv,
                    // The same object as a `Value`: `serde_json::to_value(&args)`,
                    // `Value::Object(args)`.
                    Some((name, None))
                        if matches!(name, "to_value" | "Object") && ts::call_args(n).len() == 1 =>
                    {
                        n = ts::call_args(n)[0]
                    }
                    _ => return 0,
                },
                _ => return 0,
            }
        }
        0
    }

    fn consume(&mut self, n: TsNode) {
        let src = self.src;
        let roots = &self.roots;
        let consumed = &mut self.consumed;
        ts::walk(n, &mut |c| {
            if c.kind_name() == "identifier" && roots.contains_key(text(c, src)) {
                consumed.insert(c.id());
            }
            true
        });
    }

    fn escapes(&self) -> u64 {
        self.root_uses
            .iter()
            .filter(|(id, _)| !self.consumed.contains(id))
            .fold(0, |m, (_, mask)| m | mask)
    }

    fn returns(&self, tail: Option<TsNode>) -> ValueExpr {
        let mut all = self.returns.clone();
        if let Some(t) = tail {
            all.push(values::value_expr(t, self.src, &self.locals));
        }
        match all.split_first() {
            Some((first, rest)) if rest.iter().all(|r| r == first) => first.clone(),
            _ => ValueExpr::Unknown,
        }
    }

    pub fn visit(&mut self, n: TsNode<'t>, depth: usize) {
        if depth > ts::MAX_DEPTH {
            return;
        }
        let src = self.src;
        match n.kind_name() {
            "let_declaration" => {
                let value = field(n, "value");
                self.let_type = field(n, "type").map(|t| text(t, src).to_string());
                if let Some(v) = value {
                    self.visit(v, depth + 1);
                }
                self.let_type = None;
                if let (Some(pat), Some(v)) = (field(n, "pattern"), value) {
                    self.bind_from(pat, v);
                    if pat.kind_name() == "identifier" {
                        let name = text(pat, src).to_string();
                        match self.field_of(v) {
                            Some(f) => {
                                self.field_aliases.insert(name.clone(), f);
                            }
                            None => {
                                self.field_aliases.remove(&name);
                            }
                        }
                        let root = self.root_mask(v);
                        if root != 0 {
                            self.roots.insert(name.clone(), root);
                            self.consume(v);
                        } else {
                            self.roots.remove(&name);
                        }
                        match values::value_expr(v, src, &self.locals) {
                            ValueExpr::Unknown => {
                                self.locals.strs.remove(&name);
                            }
                            e => {
                                self.locals.strs.insert(name.clone(), e);
                            }
                        }
                        if let Some(s) = values::schema_expr(v, src, &self.locals) {
                            self.locals.schemas.insert(name.clone(), s);
                        }
                        match type_in(v, src) {
                            Some(t) => {
                                self.locals.types.insert(name, t);
                            }
                            None => {
                                self.locals.types.remove(&name);
                            }
                        }
                    }
                }
                if let Some(alt) = field(n, "alternative") {
                    self.visit(alt, depth + 1);
                }
            }
            "let_condition" => {
                if let Some(v) = field(n, "value") {
                    self.visit(v, depth + 1);
                    if let Some(pat) = field(n, "pattern") {
                        self.bind_from(pat, v);
                    }
                }
            }
            "for_expression" => {
                if let Some(v) = field(n, "value") {
                    self.visit(v, depth + 1);
                    if let Some(pat) = field(n, "pattern") {
                        self.bind_from(pat, v);
                    }
                }
                if let Some(b) = field(n, "body") {
                    self.visit(b, depth + 1);
                }
            }
            "match_expression" => {
                self.matches.push(n);
                let Some(v) = field(n, "value") else { return };
                self.visit(v, depth + 1);
                self.dispatch_arms(n, v);
                let Some(block) = field(n, "body") else {
                    return;
                };
                for arm in ts::named_children(block) {
                    if arm.kind_name() != "match_arm" {
                        continue;
                    }
                    if let Some(pat) = field(arm, "pattern") {
                        for c in ts::named_children(pat) {
                            if c.id() != field(pat, "condition").map_or(usize::MAX, |x| x.id()) {
                                self.bind_from(c, v);
                            }
                        }
                        if let Some(cond) = field(pat, "condition") {
                            self.visit(cond, depth + 1);
                        }
                    }
                    if let Some(val) = field(arm, "value") {
                        self.visit(val, depth + 1);
                    }
                }
            }
            "if_expression" => {
                self.ifs.push(n);
                // `if let Some(id) = &self.thread_id { .. } else { bail!(..) }`:
                // a missing field is an error (through any `else if` chain).
                if let Some(cond) = field(n, "condition")
                    && cond.kind_name() == "let_condition"
                    && let Some(f) = field(cond, "value").and_then(|v| self.field_of(v))
                    && ends_in_error(n, src)
                {
                    self.checked_fields.push(f);
                }
                if let Some(alt) = field(n, "alternative")
                    && let Some(next) = alt.named_child(0)
                    && next.kind_name() == "if_expression"
                {
                    self.else_ifs.insert(next.id());
                }
                self.children(n, depth);
            }
            "call_expression" => {
                if let Some(f) =
                    field(n, "function").filter(|f| f.kind_name() == "field_expression")
                {
                    self.method_fields.insert(f.id());
                }
                self.call(n);
                // Closures passed to a method see the receiver's value.
                let recv = ts::callee(n, src).and_then(|(_, r)| r);
                let cargs = ts::call_args(n);
                let has_closure = cargs.iter().any(|a| a.kind_name() == "closure_expression");
                let recv_mask = if has_closure {
                    recv.map_or(0, |r| self.mask(r))
                } else {
                    0
                };
                let recv_direct = has_closure && recv.is_some_and(|r| self.is_direct(r));
                // `request.arguments.as_ref().and_then(|args| args.get("q"))`:
                // the closure's parameter is the arguments object.
                let recv_root = if has_closure {
                    recv.map_or(0, |r| self.root_mask(r))
                } else {
                    0
                };
                // `args.remove("filter").and_then(|v| from_value(v).ok())`:
                // the closure's parameter is the value under one key.
                let recv_nested = recv
                    .filter(|r| has_closure && text(*r, src).contains('"'))
                    .and_then(|r| self.nested_of(r));
                for a in cargs {
                    if a.kind_name() == "closure_expression"
                        && let Some(ps) = field(a, "parameters")
                    {
                        for p in ts::named_children(ps) {
                            let pat = field(p, "pattern").unwrap_or(p);
                            self.bind(pat, recv_mask);
                            let mut names = Vec::new();
                            bindings(pat, src, &mut names, 0);
                            let single = names.len() == 1 && pat.kind_name() == "identifier";
                            for (name, _) in names {
                                match &recv_nested {
                                    Some(v) if single => {
                                        self.nested.insert(name.clone(), v.clone());
                                    }
                                    _ => {
                                        self.nested.remove(&name);
                                    }
                                }
                                if recv_root != 0 {
                                    self.roots.insert(name.clone(), recv_root);
                                }
                                if recv_direct {
                                    self.direct.insert(name);
                                } else {
                                    self.direct.remove(&name);
                                }
                            }
                        }
                    }
                }
                self.children(n, depth);
            }
            "index_expression" => {
                self.indexes.push(n);
                let kids = ts::named_children(n);
                if let [obj, idx] = kids.as_slice()
                    && let Some(key) = ts::string_value(*idx, src)
                {
                    let m = self.root_mask(*obj);
                    if m != 0 {
                        self.consume(*obj);
                        self.key_reads.push(KeyRead {
                            key,
                            span: ts::span(*idx),
                            mask: m,
                            loud: loud_read(n, src),
                            parent: None,
                        });
                    } else if let Some((m, parent)) = self.nested_local(*obj) {
                        self.key_reads.push(KeyRead {
                            key,
                            span: ts::span(*idx),
                            mask: m,
                            loud: loud_read(n, src),
                            parent: Some(parent),
                        });
                    }
                } else if let [obj, idx] = kids.as_slice()
                    && self.key_params.contains(text(*idx, src))
                    && self.root_mask(*obj) != 0
                {
                    self.consume(*obj);
                }
                self.children(n, depth);
            }
            "macro_invocation" => {
                self.macro_call(n);
                self.macro_field_reads(n);
                if ts::macro_name(n, src) == "json" {
                    self.json_calls(n);
                }
                // A project macro handed the arguments object may read any
                // key of it (`ipc!(ctx, args, ..)`): the key reads seen are
                // not all.
                let mname = ts::macro_name(n, src);
                if !self.roots.is_empty()
                    && !STD_MACROS.contains(&mname)
                    && !matches!(mname, "vec" | "json" | "object")
                {
                    for (name, id) in ts::identifiers(n, src) {
                        if let Some(&m) = self.roots.get(name.as_str()) {
                            self.root_uses.push((id.id(), m));
                        }
                    }
                }
                // Token trees hold no expressions, but their string literals
                // are markers and messages rules look for.
                ts::walk(n, &mut |c| {
                    if matches!(c.kind_name(), "string_literal" | "raw_string_literal") {
                        self.strings.push(c);
                    }
                    true
                });
            }
            "struct_expression" => {
                self.struct_literal(n);
                self.children(n, depth);
            }
            "field_expression" => {
                let is_method = self.method_fields.contains(&n.id());
                if !is_method && let Some(f) = field(n, "field") {
                    self.field_reads
                        .insert(text(f, src).trim_start_matches("r#").to_string());
                }
                self.children(n, depth);
            }
            "identifier" => {
                if let Some(&m) = self.roots.get(text(n, src)) {
                    self.root_uses.push((n.id(), m));
                }
            }
            "string_literal" => self.strings.push(n),
            "raw_string_literal" => {
                self.strings.push(n);
                self.raw_json_tools(n);
            }
            "return_expression" => {
                // `return Err(..)` leaves without a value.
                if let Some(v) = n.named_child(0)
                    && !text(v, src).starts_with("Err(")
                {
                    self.returns.push(values::value_expr(v, src, &self.locals));
                }
                self.children(n, depth);
            }
            // `tool.name = namespaced(&server, &name)`: a tool renamed
            // before it is offered; the name rules judge what it becomes.
            "assignment_expression" => {
                if !self.item_only
                    && let (Some(l), Some(r)) = (field(n, "left"), field(n, "right"))
                    && l.kind_name() == "field_expression"
                    && field(l, "field").is_some_and(|f| text(f, src) == "name")
                    && let Some(obj) = field(l, "value")
                {
                    let o = text(obj, src).to_ascii_lowercase();
                    if o.contains("tool") && !o.contains("call") && !o.contains("result") {
                        let value = values::value_expr(r, src, &self.locals);
                        if value != ValueExpr::Unknown {
                            let mut d =
                                ToolDecl::new(value, ts::span(r), ts::span(n), ToolFormat::Rust);
                            // What the renamed tool says is not known here.
                            d.description = Some(ValueExpr::Unknown);
                            self.tools.push(d);
                        }
                    }
                }
                self.children(n, depth);
            }
            "use_declaration" => ts::use_aliases(n, src, &mut self.uses),
            "function_item" | "impl_item" | "mod_item" => {} // nested items: not this function
            _ => self.children(n, depth),
        }
    }

    fn children(&mut self, n: TsNode<'t>, depth: usize) {
        let mut cursor = match self.cursors.pop() {
            Some(mut c) => {
                c.reset(n);
                c
            }
            None => n.walk(),
        };
        if cursor.goto_first_child() {
            loop {
                self.visit(cursor.node(), depth + 1);
                if !cursor.goto_next_sibling() {
                    break;
                }
            }
        }
        self.cursors.push(cursor);
    }

    fn call(&mut self, n: TsNode<'t>) {
        self.positional_tool(n);
        self.builder_tool(n);
        if self.item_only {
            self.tool_new(n);
            return;
        }
        self.calls.push(n);
        let src = self.src;
        let Some((name, recv)) = ts::callee(n, src) else {
            return;
        };
        if name == "insert"
            && let Some(r) = recv.filter(|r| r.kind_name() == "identifier")
            && let [k, v] = ts::call_args(n)[..]
            && let Some(key) = ts::string_value(ts::peel(k, src), src)
        {
            if MAP_TOOL_KEYS.contains(&key.as_str()) {
                self.map_inserts
                    .push((text(r, src).to_string(), key, v, ts::span(k)));
            } else if matches!(v.kind_name(), "call_expression" | "macro_invocation") {
                // A property's schema built by a call with numbers
                // (`integer_field(1, 500)`, `json!({"maximum": 500})`).
                let mut numbers = Vec::new();
                ts::walk(v, &mut |c| {
                    if c.kind_name() == "integer_literal" {
                        numbers.push(text(c, src).replace('_', ""));
                    }
                    true
                });
                if !numbers.is_empty() {
                    self.stated_bounds.push((key, numbers));
                }
            }
        }
        // `params.path.ok_or_else(|| ..)?`: a missing field is an error.
        if matches!(
            name.as_str(),
            "ok_or" | "ok_or_else" | "expect" | "context" | "with_context"
        ) && let Some(f) = recv.and_then(|r| self.field_of(r))
        {
            self.checked_fields.push(f);
        }
        let args = ts::call_args(n);
        if recv.is_some() && args.is_empty() && !self.accessor_calls.contains(name.as_str()) {
            self.accessor_calls.insert(name.clone());
        }
        let mut masks: Vec<u64> = Vec::new();
        let mut roots: Vec<u64> = Vec::new();
        let mut direct: Vec<bool> = Vec::new();
        for a in recv.iter().chain(args.iter()) {
            masks.push(self.mask(*a));
            roots.push(self.root_mask(*a));
            direct.push(self.is_direct(*a));
        }
        let mut values: Vec<ValueExpr> = args
            .iter()
            .map(|a| {
                // Only what a name is passed as: a literal, a local, a
                // `format!`, a concatenation.
                let p = ts::peel(*a, src);
                match p.kind_name() {
                    "string_literal" | "raw_string_literal" | "identifier"
                    | "scoped_identifier" | "binary_expression" | "if_expression"
                    | "match_expression" => values::value_expr_shallow(p, src, &self.locals),
                    "macro_invocation" if ts::macro_name(p, src) == "format" => {
                        values::value_expr_shallow(p, src, &self.locals)
                    }
                    _ => ValueExpr::Unknown,
                }
            })
            .collect();
        if values.iter().all(|v| *v == ValueExpr::Unknown) {
            values = Vec::new();
        }
        self.call_facts.push(CallFact {
            callee: name.clone(),
            args: masks,
            roots,
            direct,
            values,
            method: recv.is_some(),
            self_arg: args.first().is_some_and(|a| a.kind_name() == "self"),
            target: call_target(n, recv, src),
            span: ts::span(n),
            type_arg: values::turbofish(n, src),
            arg_names: Vec::new(),
            checked: 0,
            keywords: Vec::new(),
            escapes: 0,
        });
        // A function passed by name (`.map(format_line)`) is called too.
        for a in &args {
            let passed = match a.kind_name() {
                "identifier" => Some(text(*a, src)),
                "scoped_identifier" => field(*a, "name").map(|x| text(x, src)),
                _ => None,
            };
            if let Some(p) = passed.filter(|p| p.chars().next().is_some_and(char::is_lowercase)) {
                self.call_facts.push(CallFact {
                    callee: p.to_string(),
                    args: Vec::new(),
                    roots: Vec::new(),
                    direct: Vec::new(),
                    values: Vec::new(),
                    method: false,
                    self_arg: false,
                    target: if text(*a, src).starts_with("Self::") {
                        CallTarget::OwnType
                    } else {
                        CallTarget::Free
                    },
                    span: ts::span(*a),
                    type_arg: None,
                    arg_names: Vec::new(),
                    checked: 0,
                    keywords: Vec::new(),
                    escapes: 0,
                });
            }
        }
        // Key reads: `args.get("k")`, `get_str(&args, "k")`, `args.get_str("k")`.
        let key_arg = args.iter().find_map(|a| {
            ts::string_value(*a, src)
                .filter(|k| {
                    !k.is_empty()
                        && k.chars()
                            .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
                })
                .map(|k| (k, ts::span(*a)))
        });
        // A key helper's `args.get(key)` by its key parameter.
        if key_arg.is_none()
            && matches!(name.as_str(), "get" | "get_mut" | "remove" | "contains_key")
            && let (Some(r), [a]) = (recv, args.as_slice())
            && self.key_params.contains(text(*a, src))
            && self.root_mask(r) != 0
        {
            self.consume(r);
        }
        if let Some((key, span)) = key_arg {
            let lname = name.to_ascii_lowercase();
            let accessor = matches!(
                name.as_str(),
                "get" | "get_mut" | "remove" | "contains_key" | "get_key_value"
            );
            let helper = is_key_helper(&lname);
            let recv_root = recv.map_or(0, |r| self.root_mask(r));
            if recv_root != 0 && (accessor || helper) {
                if let Some(r) = recv {
                    self.consume(r);
                }
                self.key_reads.push(KeyRead {
                    key,
                    span,
                    mask: recv_root,
                    loud: loud_read(n, src),
                    parent: None,
                });
            } else if accessor && let Some((m, parent)) = recv.and_then(|r| self.nested_local(r)) {
                self.key_reads.push(KeyRead {
                    key,
                    span,
                    mask: m,
                    loud: loud_read(n, src),
                    parent: Some(parent),
                });
            } else if helper
                && recv.is_none_or(|r| r.kind_name() == "self")
                && let Some(a) = args.iter().find(|a| self.root_mask(**a) != 0)
            {
                let m = self.root_mask(*a);
                self.consume(*a);
                // `require_str(&args, "path")?`, `get_required(..)`
                let loud = lname.contains("require") || loud_read(n, src);
                self.key_reads.push(KeyRead {
                    key,
                    span,
                    mask: m,
                    loud,
                    parent: None,
                });
            }
        }
        // Deserialisation of arguments into a type; a project's own
        // wrapper called as a function (`arguments::parse(args)`,
        // `decode(args)`: `s.parse()` is a method) counts when the target
        // type is written.
        let wrapper = recv.is_none() && matches!(name.as_str(), "parse" | "decode");
        if wrapper
            || matches!(
                name.as_str(),
                "from_value"
                    | "from_str"
                    | "from_slice"
                    | "deserialize"
                    | "parse_arguments"
                    | "parse_args"
            )
        {
            let m = args.iter().fold(0, |m, a| m | self.mask(*a));
            // `MemoryArgs::from_value(v)` is the type's own parser, not serde.
            let path = ts::callee_path(n, src).unwrap_or("");
            let own_parser = name != "deserialize"
                && type_name(path)
                    .chars()
                    .next()
                    .is_some_and(char::is_uppercase);
            let ty = (!own_parser)
                .then(|| values::turbofish(n, src))
                .flatten()
                .or_else(|| {
                    ts::callee_path(n, src)
                        .filter(|p| {
                            name == "deserialize"
                                && p.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                        })
                        .map(|p| (p.to_string(), ts::span(n)))
                })
                .or_else(|| {
                    self.let_type.as_ref().filter(|_| !own_parser).map(|t| {
                        let t = inner_type(t, &["Result", "Option"]).unwrap_or(t);
                        (t.to_string(), ts::span(n))
                    })
                });
            // One value under a key (`from_value(plan_val.clone())` after
            // `let plan_val = args.get("plan")..?`) is not the arguments.
            let nested = args
                .iter()
                .any(|a| self.nested_local(*a).is_some() || self.nested_of(*a).is_some());
            if let Some((ty, span)) = ty
                && m != 0
                && !nested
            {
                self.deserializes
                    .push((type_name(&ty).to_string(), span, m));
            }
        }
        self.tool_new(n);
        self.registration(n, &name, &args);
    }

    /// `register_handler("grep_files", Arc::new(GrepFilesHandler))`,
    /// `registry.register_tool("echo", Box::new(EchoTool))`: a tool name and
    /// the type that handles it.
    fn registration(&mut self, n: TsNode<'t>, name: &str, args: &[TsNode<'t>]) {
        let lname = name.to_ascii_lowercase();
        if !(lname.contains("register") || matches!(name, "add_tool" | "with_tool" | "tool")) {
            return;
        }
        let src = self.src;
        let Some((first, rest)) = args.split_first() else {
            return;
        };
        let ValueExpr::Str(tool) = values::value_expr(*first, src, &self.locals) else {
            return;
        };
        let ty = rest.iter().find_map(|a| {
            if a.kind_name() == "identifier" {
                return self.locals.types.get(text(*a, src)).cloned();
            }
            type_in(*a, src)
        });
        if let Some(ty) = ty {
            self.registrations.push(Registration {
                tool: tool.value,
                name_span: tool.span,
                handler_type: ty,
                span: ts::span(n),
            });
        }
    }

    /// `vec![Tool::new(..), Tool { .. }]`: a macro body is a token tree,
    /// so tool lists written with `vec!` are parsed again, in place (see
    /// [`super::parse_embedded`]), as the body of a function that has this
    /// one's locals.
    fn vec_tools(&mut self, n: TsNode<'t>) {
        const PREFIX: &str = "fn __toolaudit_vec() {";
        let src = self.src;
        let Some(body) = ts::macro_body(n) else {
            return;
        };
        let inner = text(body, src);
        // `vec![entry("list_jobs", "..", (*JOBS).clone()), ..]`: a helper
        // called with a name first (see `positional_tool`).
        let name_first = inner
            .match_indices('(')
            .any(|(i, _)| inner[i + 1..].trim_start().starts_with('"'));
        if !(TOOL_TYPE_WORDS.iter().any(|w| inner.contains(w))
            || inner.contains("json!")
            || inner.contains("object!")
            || name_first)
            || self.reparse_depth > 2
        {
            return;
        }
        self.reparse(body, PREFIX);
    }

    /// Parses a macro's token tree where it stands, after `prefix` (so
    /// spans need no shifting and this function's locals apply as they
    /// are), and keeps the tools and dispatch arms found in it.
    fn reparse(&mut self, body: TsNode<'t>, prefix: &str) {
        self.reparse_with(body, prefix, " }", false);
    }

    /// [`Self::reparse`] with a suffix of its own; `calls` keeps the calls
    /// made in the text as this function's (a helper called for each tool
    /// inside a `json!` array).
    fn reparse_with(&mut self, body: TsNode<'t>, prefix: &str, suffix: &str, calls: bool) {
        let src = self.src;
        let Ok(tree) =
            super::parse_embedded(src, body.start_byte(), body.end_byte(), prefix, suffix)
        else {
            return;
        };
        let mut flow = Flow::new(src, &[], !calls);
        flow.reparse_depth = self.reparse_depth + 1;
        flow.locals = self.locals.clone();
        let Some(block) = tree
            .root_node()
            .named_child(0)
            .and_then(|f| field(f, "body"))
        else {
            return;
        };
        flow.visit(block, 0);
        self.tools.append(&mut flow.tools);
        self.dispatch.append(&mut flow.dispatch);
        if calls {
            self.call_facts.append(&mut flow.call_facts);
        }
    }

    /// `json!({"tools": [tool("a", "..", schema_a()), tool("b", ..)]})`: a
    /// macro body is a token tree, so an array in it whose elements are
    /// calls with a string first (a tool-building helper, called once per
    /// tool) is parsed again as an array expression, and its calls are this
    /// function's.
    fn json_calls(&mut self, n: TsNode<'t>) {
        const PREFIX: &str = "fn __toolaudit_json() { let _ = ";
        let src = self.src;
        if self.reparse_depth > 2 {
            return;
        }
        let Some(body) = ts::macro_body(n) else {
            return;
        };
        // Most `json!` bodies call nothing with a string: look before
        // walking the token tree.
        let calls_a_string = |t: &str| {
            t.match_indices('(')
                .any(|(i, _)| t[i + 1..].trim_start().starts_with('"'))
        };
        if !calls_a_string(text(body, src).get(1..).unwrap_or_default()) {
            return;
        }
        let mut arrays = Vec::new();
        ts::walk(body, &mut |c| {
            if c.kind_name() != "token_tree" || !text(c, src).starts_with('[') {
                return true;
            }
            let kids = ts::children(c);
            let calls_with_a_string = kids.windows(2).any(|w| {
                w[0].kind_name() == "identifier"
                    && w[1].kind_name() == "token_tree"
                    && text(w[1], src).starts_with('(')
                    && ts::children(w[1]).get(1).is_some_and(|a| {
                        matches!(a.kind_name(), "string_literal" | "raw_string_literal")
                    })
            });
            if calls_with_a_string {
                arrays.push(c);
                return false;
            }
            true
        });
        for a in arrays {
            self.reparse_with(a, PREFIX, "; }", true);
        }
    }

    /// `format!("{}", args.limit)`: `.limit` in a token tree, not followed
    /// by `(`, reads a field.
    fn macro_field_reads(&mut self, m: TsNode<'t>) {
        let src = self.src;
        let mut reads = Vec::new();
        ts::walk(m, &mut |n| {
            if n.kind_name() == "token_tree" {
                let kids = ts::children(n);
                for w in kids.windows(3) {
                    if text(w[0], src) == "."
                        && w[1].kind_name() == "identifier"
                        && !(w[2].kind_name() == "token_tree" && text(w[2], src).starts_with('('))
                    {
                        reads.push(text(w[1], src).to_string());
                    }
                }
                if let [.., dot, last] = kids.as_slice()
                    && text(*dot, src) == "."
                    && last.kind_name() == "identifier"
                {
                    reads.push(text(*last, src).to_string());
                }
            }
            true
        });
        self.field_reads.extend(reads);
    }

    /// A builder chain: `ToolBuilder::new("get_summary").description("..")
    /// .handler(|input: SummaryArgs| ..)` (tower-mcp and its kind). The
    /// schema is derived from the handler closure's input type; `()` is
    /// `{"type": "null"}`, which is not an object.
    fn builder_tool(&mut self, n: TsNode<'t>) {
        let src = self.src;
        // Only the top of a chain of method calls (the walk visits it
        // before the calls it is made of).
        if field(n, "function").is_none_or(|f| f.kind_name() != "field_expression")
            || self.chain_links.remove(&n.id())
        {
            return;
        }
        let mut methods = Vec::new();
        let mut cur = n;
        let (ctor, root) = loop {
            let Some((name, recv)) = ts::callee_ref(cur, src) else {
                return;
            };
            match recv {
                Some(r) if r.kind_name() == "call_expression" && methods.len() < 32 => {
                    methods.push((name, cur));
                    cur = r;
                    // A link that is itself a method call is visited later.
                    if field(r, "function").is_some_and(|f| f.kind_name() == "field_expression") {
                        self.chain_links.insert(r.id());
                    }
                }
                Some(_) => return,
                None => break (name, cur),
            }
        };
        if !matches!(ctor, "new" | "builder")
            || !ts::callee_path(root, src).is_some_and(|p| type_name(p).contains("Tool"))
        {
            return;
        }
        let args = ts::call_args(root);
        let [first] = args.as_slice() else { return };
        let Some(name) = ts::string_value(ts::peel(*first, src), src) else {
            return;
        };
        let mut description = None;
        let mut schema = None;
        let mut input = None;
        for (m, call) in &methods {
            let margs = ts::call_args(*call);
            match *m {
                "description" | "with_description" => {
                    description = margs
                        .first()
                        .map(|a| values::value_expr(*a, src, &self.locals));
                }
                "input_schema" | "schema" | "parameters" => {
                    schema = margs
                        .first()
                        .and_then(|a| values::schema_expr(*a, src, &self.locals));
                }
                m if m.starts_with("handler") || m.starts_with("with_handler") => {
                    // The closure's last typed parameter is the input.
                    input = margs
                        .iter()
                        .rev()
                        .find(|a| a.kind_name() == "closure_expression")
                        .and_then(|c| field(*c, "parameters"))
                        .and_then(|ps| ts::named_children(ps).into_iter().last())
                        .and_then(|p| field(p, "type"));
                }
                _ => {}
            }
        }
        if description.is_none() && input.is_none() {
            return;
        }
        let mut d = ToolDecl::new(
            ValueExpr::Str(Spanned {
                value: name,
                span: ts::span(*first),
            }),
            ts::span(*first),
            ts::span(root).start_only(),
            ToolFormat::Rust,
        );
        d.description = description;
        d.schema = schema.or_else(|| {
            let ty = input?;
            let at = ts::span(ty);
            Some(if text(ty, src).trim() == "()" {
                SchemaExpr::Json(synth(
                    NodeKind::Object(vec![crate::syntax::Member {
                        key: "type".into(),
                        key_span: at,
                        value: synth(NodeKind::String("null".into()), at),
                    }]),
                    at,
                ))
            } else {
                let t = type_name(values::owned_type(text(ty, src))).to_string();
                d.args_type = Some((t.clone(), at));
                SchemaExpr::Type(t, at)
            })
        });
        self.tools.push(d);
    }

    /// A tool declared by position, whatever the function or macro is
    /// called: a name, a description, a schema literal and a handler
    /// (`tool!("place", "Place parts", json!({..}), |args, ctx| place(args, ctx))`,
    /// `registry.add("grep", json!({..}), grep)`). A name and a schema
    /// literal (`"type": "object"` or `properties`) are needed, and a
    /// description or a handler; `Tool::new` is read by [`Self::tool_new`].
    fn positional_tool(&mut self, n: TsNode<'t>) {
        let src = self.src;
        // Most calls do not start with a string literal: look before
        // collecting anything.
        // `"store".to_string()` counts as the literal it is made from.
        let first_is_string = field(n, "arguments")
            .and_then(|a| a.named_child(0))
            .is_some_and(|a| {
                matches!(
                    ts::peel(a, src).kind_name(),
                    "string_literal" | "raw_string_literal"
                )
            });
        if !first_is_string {
            return;
        }
        let Some((callee, _)) = ts::callee(n, src) else {
            return;
        };
        if callee == "new" && ts::callee_path(n, src).is_some_and(|p| type_name(p) == "Tool") {
            return;
        }
        let args = ts::call_args(n);
        let Some(first) = args.first() else { return };
        let Some(name) = ts::string_value(ts::peel(*first, src), src)
            .filter(|v| !v.is_empty() && v.len() <= 128 && !v.chars().any(char::is_whitespace))
        else {
            return;
        };
        // The schema: a `json!` literal, or a `static` of the file
        // (`(*READ_SCHEMA).clone()`, checked once the file is read: see
        // `analyze`).
        // Each argument's schema is evaluated once.
        // (`any_macro`: not only `json!`/`object!`.)
        let schema_of = |a: &TsNode, any_macro: bool| {
            let is_macro = a.kind_name() == "macro_invocation"
                && (any_macro || matches!(ts::macro_name(*a, src), "json" | "object"));
            let e = values::schema_expr(*a, src, &self.locals);
            (is_macro || matches!(e, Some(SchemaExpr::Static(..)))).then_some(e)
        };
        let Some((schema_at, schema)) = args
            .iter()
            .enumerate()
            .skip(1)
            .find_map(|(i, a)| Some((i, schema_of(a, false)?)))
        else {
            return;
        };
        let schema = match schema {
            Some(SchemaExpr::Json(schema)) => {
                if schema.get("properties").is_none()
                    && !matches!(schema.get("type").map(|t| &t.kind), Some(NodeKind::String(t)) if t == "object")
                {
                    return;
                }
                SchemaExpr::Json(schema)
            }
            Some(e @ SchemaExpr::Static(..)) => e,
            _ => return,
        };
        // A second schema right after it: the output schema, when the
        // helper's parameter there says so (checked in `analyze`).
        let output = args
            .get(schema_at + 1)
            .and_then(|a| schema_of(a, true).flatten().map(|e| (e, schema_at + 1)));
        // `"..."`, `Some("...".to_string())`.
        let description = args[1..schema_at].iter().find_map(|a| {
            match values::value_expr(*a, src, &self.locals) {
                ValueExpr::Str(s) => Some((s.value, ts::span(*a))),
                _ => None,
            }
        });
        let handler = args[schema_at + 1..]
            .iter()
            .find_map(|a| handler_callee(*a, src));
        // `ListHandler { db }`, `Arc::new(ListHandler)`: a handler type.
        let handler_type = handler
            .is_none()
            .then(|| args[schema_at + 1..].iter().find_map(|a| type_in(*a, src)))
            .flatten();
        if description.is_none() && handler.is_none() && handler_type.is_none() {
            return;
        }
        let name_at = ts::span(ts::peel(*first, src));
        let mut d = ToolDecl::new(
            ValueExpr::Str(Spanned {
                value: name.clone(),
                span: name_at,
            }),
            name_at,
            ts::span(n),
            ToolFormat::Rust,
        );
        d.description = description.map(|(value, span)| ValueExpr::Str(Spanned { value, span }));
        d.handler_type = handler_type;
        d.schema_site = Some(ts::span(args[schema_at]));
        d.schema = Some(schema);
        d.positional = Some(Positional {
            helper: callee.clone(),
            output: output.map(|(e, at)| (at, e)),
        });
        self.tools.push(d);
        if let Some(h) = handler {
            self.dispatch.push(Dispatch {
                tool: name,
                span: name_at,
                names_tool: true,
                hands: true,
                fn_index: 0,
                callees: vec![h],
            });
        }
    }

    /// A map built key by key into a tool definition: `m.insert("name",
    /// json!(name))` with `"inputSchema"` or `"description"` beside it.
    fn map_tools(&mut self) {
        let src = self.src;
        let inserts = std::mem::take(&mut self.map_inserts);
        let mut receivers: Vec<&str> = inserts.iter().map(|i| i.0.as_str()).collect();
        receivers.sort_unstable();
        receivers.dedup();
        for r in receivers {
            let get = |keys: &[&str]| {
                inserts
                    .iter()
                    .find(|i| i.0 == r && keys.contains(&i.1.as_str()))
            };
            let Some(name) = get(&["name"]) else { continue };
            let schema = get(&["inputSchema", "input_schema", "parameters"]);
            let description = get(&["description"]);
            if schema.is_none() && description.is_none() {
                continue;
            }
            let value = values::value_expr(name.2, src, &self.locals);
            let mut d = ToolDecl::new(value, ts::span(name.2), name.3, ToolFormat::Mcp);
            d.description = description.map(|x| values::value_expr(x.2, src, &self.locals));
            d.schema = schema.and_then(|x| values::schema_expr(x.2, src, &self.locals));
            d.schema_site = schema.map(|x| ts::span(x.2));
            self.tools.push(d);
        }
    }

    /// A project macro whose body reads as call arguments with a `json!`
    /// schema in them (`tool!("name", "..", json!({..}), handler)`): parsed
    /// where it stands as a call, so [`Self::positional_tool`] reads it.
    fn project_macro(&mut self, m: TsNode<'t>) {
        const PREFIX: &str = "fn __toolaudit_macro() { __toolaudit";
        let src = self.src;
        let Some(body) = ts::macro_body(m) else {
            return;
        };
        let inner = text(body, src);
        if !(inner.starts_with('(') && inner.contains("json!")) || self.reparse_depth > 2 {
            return;
        }
        self.reparse(body, PREFIX);
    }

    /// `Tool::new(name, description, schema)`, and a tool-definition type's
    /// constructor given a name, a description and a schema
    /// (`ToolDefinition::function(NAME.into(), DESC.into(), schema)`).
    fn tool_new(&mut self, n: TsNode<'t>) {
        let src = self.src;
        let Some((name, None)) = ts::callee(n, src) else {
            return;
        };
        let path = ts::callee_path(n, src).unwrap_or("");
        let args = ts::call_args(n);
        let ty = type_name(path);
        let rmcp_new = (name == "new" || name == "new_with_raw") && ty == "Tool";
        let definition = || {
            let head = last_camel_word(ty);
            (ty.contains("Tool") || ty.contains("Function"))
                && matches!(head, "Tool" | "Definition" | "Declaration" | "Spec" | "Def")
                && args.len() == 3
                && values::schema_expr(args[2], src, &self.locals)
                    .is_some_and(|s| matches!(s, SchemaExpr::Json(_)))
        };
        if !rmcp_new && !definition() {
            return;
        }
        let Some(first) = args.first() else { return };
        let value = values::value_expr(*first, src, &self.locals);
        self.tools.push({
            let mut d = ToolDecl::new(value, ts::span(*first), ts::span(n), ToolFormat::Rust);
            d.description = args
                .get(1)
                .map(|d| values::value_expr(*d, src, &self.locals));
            d.schema = args
                .get(2)
                .and_then(|s| values::schema_expr(*s, src, &self.locals));
            d.schema_site = args.get(2).map(|s| ts::span(*s));
            d
        });
    }

    /// `Tool { name, description, input_schema, .. }` and friends.
    fn struct_literal(&mut self, n: TsNode<'t>) {
        let src = self.src;
        let type_text = field(n, "name").map_or("", |t| text(t, src));
        let ty = type_name(type_text);
        let Some(body) = field(n, "body") else { return };
        // A model's call of a tool (`ToolUse { id, name, parameters }`),
        // not a tool's definition.
        let call_record = super::sites::tool_call_record(type_text);
        let mut name = None;
        let mut id = None;
        let mut description = None;
        let mut summary = None;
        let mut schema = None;
        let mut schema_key = "";
        let mut strict = None;
        for init in ts::named_children(body) {
            let (key, value) = match init.kind_name() {
                "field_initializer" => match (field(init, "field"), field(init, "value")) {
                    (Some(k), Some(v)) => (text(k, src), v),
                    _ => continue,
                },
                "shorthand_field_initializer" => match init.named_child(0) {
                    Some(id) => (text(id, src), id),
                    None => continue,
                },
                _ => continue,
            };
            if !self.item_only && !type_text.is_empty() {
                let v = values::value_expr_shallow(value, src, &self.locals);
                if !matches!(v, ValueExpr::Unknown | ValueExpr::Field(..)) {
                    self.field_inits
                        .push((type_text.to_string(), key.to_string(), v));
                }
            }
            match key {
                "name" => name = Some(value),
                "id" | "tool_id" => id = Some(value),
                "description" => description = Some(value),
                "summary" => summary = Some(value),
                "strict" => {
                    strict = Some(
                        text(ts::peel(value, src), src) == "true"
                            || text(value, src).contains("true"),
                    )
                }
                k if SCHEMA_FIELDS.contains(&k) => {
                    schema = Some(value);
                    schema_key = SCHEMA_FIELDS
                        .iter()
                        .find(|s| **s == k)
                        .copied()
                        .unwrap_or("");
                }
                _ => {}
            }
        }
        let tool_like =
            TOOL_TYPE_WORDS.iter().any(|w| ty.contains(w)) || schema_key.starts_with("input");
        // A registry record identified by `id` (`Spec { id, summary, schema:
        // schema_for!(T) }`): a tool when it is tool-like and documented,
        // with a schema; many records have an `id` and a description.
        let description = description.or(summary);
        let by_id = name.is_none();
        let name = name.or_else(|| id.filter(|_| description.is_some()));
        let (Some(name), Some(schema_node)) = (name, schema) else {
            return;
        };
        if !tool_like || call_record {
            return;
        }
        let resolved = values::schema_expr(schema_node, src, &self.locals);
        let unresolved = matches!(resolved, None | Some(SchemaExpr::Static(..)));
        if by_id && unresolved && ts::peel(schema_node, src).kind_name() == "identifier" {
            return;
        }
        let desc_value = description.map(|d| {
            // `Some("..".into())`, `Some(Cow::Borrowed(".."))`
            let d = if d.kind_name() == "call_expression"
                && ts::callee(d, src).is_some_and(|c| c.0 == "Some")
            {
                ts::call_args(d).first().copied().unwrap_or(d)
            } else {
                d
            };
            values::value_expr(d, src, &self.locals)
        });
        self.tools.push({
            let mut d = ToolDecl::new(
                values::value_expr(name, src, &self.locals),
                ts::span(name),
                ts::span(n).start_only(),
                ToolFormat::Rust,
            );
            d.description = desc_value;
            d.schema = resolved;
            d.schema_site = Some(ts::span(schema_node));
            d.strict = strict;
            d
        });
    }

    /// `json!({"name": .., "inputSchema": ..})`: tools in a JSON literal.
    fn macro_call(&mut self, n: TsNode<'t>) {
        let src = self.src;
        if ts::macro_name(n, src) == "vec" {
            self.vec_tools(n);
            return;
        }
        if !matches!(ts::macro_name(n, src), "json" | "object") {
            if !STD_MACROS.contains(&ts::macro_name(n, src)) {
                self.project_macro(n);
            }
            return;
        }
        let Some(node) = jsonlit::parse_macro(n, src) else {
            return;
        };
        self.json_tools(&node);
    }

    /// A tool list kept as JSON in a raw string (`serde_json::from_str(r#"[
    /// {"name": .., "inputSchema": ..}]"#)`): parsed where it stands, so
    /// findings point into the string.
    fn raw_json_tools(&mut self, n: TsNode<'t>) {
        let t = text(n, self.src);
        if !(t.contains("\"inputSchema\"")
            || t.contains("\"input_schema\"")
            || t.contains("\"parameters\""))
        {
            return;
        }
        let (Some(open), Some(close)) = (t.find('"'), t.rfind('"')) else {
            return;
        };
        if close <= open {
            return;
        }
        let body = &t[open + 1..close];
        if !body.trim_start().starts_with(['[', '{']) {
            return;
        }
        let Ok(Some(mut node)) = crate::syntax::json::parse(body) else {
            return;
        };
        node.shift(n.start_byte() + open + 1);
        self.json_tools(&node);
    }

    /// The tools recognised in a JSON value written in Rust (`json!`, a raw
    /// string).
    fn json_tools(&mut self, node: &Node) {
        // A string, or an expression: a local, a parameter (its callers
        // give the value: `fn tool(name, description, ..) -> Value`).
        let value = |n: &Node| match &n.kind {
            NodeKind::String(s) => Some(ValueExpr::Str(Spanned {
                value: s.clone(),
                span: n.span,
            })),
            NodeKind::Opaque(t) => Some(match self.locals.strs.get(t.trim()) {
                Some(v) => v.clone(),
                None => match self.locals.params.get(t.trim()) {
                    Some(&(position, fn_index)) => ValueExpr::Param {
                        position,
                        fn_index,
                        span: n.span,
                    },
                    None => values::value_from_text(t, n.span),
                },
            }),
            _ => None,
        };
        let mut found_tools = Vec::new();
        for found in manifest::recognize_all(node) {
            let Some(name) = value(found.name) else {
                continue;
            };
            let description = found
                .description
                .map(|d| value(d).unwrap_or(ValueExpr::Unknown));
            found_tools.push((found, name, description));
        }
        for (found, name, description) in found_tools {
            self.tools.push({
                let mut d =
                    ToolDecl::new(name, found.name.span, found.span.start_only(), found.format);
                d.description = description;
                d.schema = found.schema.and_then(|n| match &n.kind {
                    // `"parameters": schema` or `"inputSchema": Self::schema()`
                    NodeKind::Opaque(t) => match values::value_from_text(t, n.span) {
                        ValueExpr::Call(name, span) => Some(SchemaExpr::Call(name, span)),
                        _ => {
                            let t = t.trim().trim_start_matches(['&', '*']);
                            let t = t.strip_suffix(".clone()").unwrap_or(t);
                            self.locals.schemas.get(t).cloned().or_else(|| {
                                values::is_const_name(t)
                                    .then(|| SchemaExpr::Static(t.to_string(), n.span))
                            })
                        }
                    },
                    _ => Some(SchemaExpr::Json(n.clone())),
                });
                d.strict = found.strict;
                d
            });
        }
    }

    /// `match name.as_str() { "read_file" => self.read_file(args), .. }`.
    fn dispatch_arms(&mut self, m: TsNode<'t>, scrutinee: TsNode<'t>) {
        let src = self.src;
        let s = text(scrutinee, src).to_ascii_lowercase();
        // `name`, `tool_name`, `call.function.name`, and registries keyed
        // by `id` (`call.id.as_str()`, `tool_id`).
        let id_word = s
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| w == "id");
        if !(s.contains("name") || s.contains("tool") || id_word) {
            return;
        }
        let keyed_by_tool = s.contains("tool");
        let Some(block) = field(m, "body") else {
            return;
        };
        let mut arms = Vec::new();
        // Arms that hand the arguments to a function (`=> self.read(args)`,
        // `=> from_value(arguments)`), and arms that only look at them
        // (`=> input.get("command")`): a permission gate, a preview or an
        // icon table looks; a dispatcher hands on.
        let (mut hands, mut looks, mut passes) = (0usize, 0usize, 0usize);
        for arm in ts::named_children(block) {
            let (Some(pat), Some(val)) = (field(arm, "pattern"), field(arm, "value")) else {
                continue;
            };
            let mut handed = false;
            let mut looked = false;
            let mut passed = false;
            ts::walk(val, &mut |c| {
                if c.kind_name() == "call_expression" {
                    handed |= ts::call_args(c).iter().any(|a| self.root_mask(*a) != 0);
                    passed |= ts::call_args(c).iter().any(|a| self.mask(*a) != 0);
                }
                if c.kind_name() == "identifier" && self.roots.contains_key(text(c, src)) {
                    looked = true;
                }
                !handed
            });
            if handed {
                hands += 1;
            } else if looked {
                looks += 1;
            }
            passes += usize::from(passed);
            let mut names = Vec::new();
            ts::walk(pat, &mut |c| {
                if let Some(v) = ts::string_value(c, src) {
                    names.push((v, ts::span(c)));
                }
                true
            });
            if names.is_empty() {
                continue;
            }
            // The arm hands the call to one function (`=> self.grep(args)`,
            // `=> Ok(read_file(&args).await?)`): that function is the
            // handler. An arm that does more is handler code itself.
            let mut callees = Vec::new();
            let mut hands_whole = false;
            if let Some(call) = single_call(val, src)
                && let Some((name, _)) = ts::callee(call, src)
            {
                callees.push(name);
                hands_whole = ts::call_args(call).iter().any(|a| self.root_mask(*a) != 0);
            }
            for (tool, span) in names {
                arms.push(Dispatch {
                    tool,
                    span,
                    names_tool: keyed_by_tool && hands_whole,
                    hands: hands_whole,
                    fn_index: 0,
                    callees: callees.clone(),
                });
            }
        }
        // A table whose arms pass nothing of the function's inputs on and
        // that holds no arguments object (`impl From<&str> for Icon`,
        // `fn approval_for(name: &str)`) maps names; it does not run calls.
        if arms.len() >= 2 && hands >= looks && (hands > 0 || passes > 0 || !self.roots.is_empty())
        {
            self.dispatch.extend(arms);
        }
    }
}

/// The `min` and `max` of a `range(min = 1, max = 200)` in attribute text.
fn range_bounds(attr: &str) -> (Option<String>, Option<String>) {
    let Some(at) = attr.find("range") else {
        return (None, None);
    };
    let rest = &attr[at + "range".len()..];
    let Some(inner) = rest.trim_start().strip_prefix('(') else {
        return (None, None);
    };
    let inner = &inner[..inner.find(')').unwrap_or(inner.len())];
    let mut min = None;
    let mut max = None;
    for part in inner.split(',') {
        let Some((k, v)) = part.split_once('=') else {
            continue;
        };
        // `200`, `1_000usize`, `0.5f64`: the number without its suffix;
        // `MAX_PAGE`: the name.
        let v = v.trim();
        let v = if v.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
            v.chars()
                .take_while(|c| c.is_ascii_digit() || matches!(c, '.' | '_' | '-'))
                .collect()
        } else {
            v.to_string()
        };
        match k.trim() {
            "min" | "exclusive_min" => min = Some(v),
            "max" | "exclusive_max" => max = Some(v),
            _ => {}
        }
    }
    (min, max)
}

/// Words in the name of a function or type that maps tool names to how a
/// call is shown or gated, not to the code that runs it.
const PRESENTATION_WORDS: &[&str] = &[
    "preview",
    "icon",
    "approv",
    "permission",
    "render",
    "label",
    "display",
    "audit",
    "title",
    "color",
    "colour",
    "emoji",
    "categor",
];

/// A `Node` for a synthesised schema has no source; spans point at `at`.
pub fn synth(kind: NodeKind, at: Span) -> Node {
    Node { span: at, kind }
}

/// The last word of a CamelCase name, without a version number (`Rule`
/// of `ToolPoisoningRule`, `Tool` of `CallableTool2`).
fn last_camel_word(name: &str) -> &str {
    let name = name.trim_end_matches(|c: char| c.is_ascii_digit());
    let start = name
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_ascii_uppercase())
        .map_or(0, |(i, _)| i);
    &name[start..]
}

#[cfg(test)]
mod range_tests {
    use super::range_bounds;

    #[test]
    fn range_attribute_bounds() {
        let r = |t: &str| range_bounds(t);
        assert_eq!(
            r("(range(min = 1, max = 200))"),
            (Some("1".into()), Some("200".into()))
        );
        assert_eq!(r("(range(max = 1_000usize))"), (None, Some("1_000".into())));
        assert_eq!(
            r("(range(min = 0.5f64, max = LIMIT))"),
            (Some("0.5".into()), Some("LIMIT".into()))
        );
        assert_eq!(r("(description = \"x\")"), (None, None));
    }
}
