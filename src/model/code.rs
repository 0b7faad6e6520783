//! The language-neutral model of the tool-call surface: what a front-end
//! (the Rust one today) learns from a source file, as plain data that
//! outlives the syntax tree, so the tree can be dropped before the unit
//! (crate, package) is linked. Rules read only this and `crate::link`:
//! tool declarations, functions with their parameters, calls and argument
//! key reads, record types, and [`Site`]s — the places where a value the
//! model sent may be replaced, cut or dropped.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::model::{Diagnostic, Spanned, ToolFormat};
use crate::source::{SourceFile, Span};
use crate::syntax::Node;

/// A string-valued expression, as far as it can be followed statically.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum ValueExpr {
    /// `"read_file"`.
    Str(Spanned<String>),
    /// `format!("{}:{}", server, tool)`: the template with its holes (byte
    /// ranges of the template that are filled in at run time), and the span
    /// of the format string.
    Format {
        template: String,
        holes: Vec<(usize, usize)>,
        span: Span,
    },
    /// `TOOL_NAME`, `Self::NAME`: a constant, by its last path segment.
    Const(String, Span),
    /// `self.qualified_name()`, `tool_name()`: what a function returns.
    Call(String, Span),
    /// `&self.tool_name`: what the type's constructors put in the field.
    Field(String, Span),
    /// The function's parameter at this position (`self` not counted):
    /// what its callers pass. The function is `fn_index` of its file.
    Param {
        position: usize,
        fn_index: usize,
        span: Span,
    },
    /// One of several values (`if`/`match` branches, the arms of a
    /// fallback): a may-be set.
    OneOf(Vec<ValueExpr>),
    /// Anything else: not followed (nothing is said about it).
    #[default]
    Unknown,
}

/// Where a tool's input schema comes from.
#[derive(Clone, Debug)]
pub enum SchemaExpr {
    /// A `json!` literal, with spans into this file.
    Json(Node),
    /// Derived from a Rust type by an SDK: `Parameters<T>`,
    /// `cached_schema_for_type::<T>()`.
    Type(String, Span),
    /// Derived from a Rust type by schemars itself (`schema_for!(T)`), whose
    /// default settings write an `Option<T>` field as `"type": [T, "null"]`.
    Schemars(String, Span),
    /// What a function returns: `Self::input_schema()`.
    Call(String, Span),
    /// A `static` or `const` item's value: `&INPUT_SCHEMA` where
    /// `static INPUT_SCHEMA: LazyLock<Value> = LazyLock::new(|| json!(..))`.
    Static(String, Span),
    /// A schema synthesised from rmcp `#[tool(param)]` parameters, anchored
    /// at the method's name.
    Params(Vec<FieldFact>, Span),
}

/// One tool declaration found in the file, before names and schemas are
/// resolved across the crate.
#[derive(Clone, Debug)]
pub struct ToolDecl {
    pub name: ValueExpr,
    /// Where the declaration uses the name (the `name:` value).
    pub name_site: Span,
    /// `None` when the declaration has no description.
    pub description: Option<ValueExpr>,
    pub schema: Option<SchemaExpr>,
    /// MCP `outputSchema`: what `fn output_schema()` returns.
    pub output_schema: Option<SchemaExpr>,
    /// Built by a call of a project helper with the name first
    /// (`tool_entry("list_jobs", "..", SCHEMA, OUT_SCHEMA)`): what is checked
    /// against the file once it is read.
    pub positional: Option<Positional>,
    pub strict: Option<bool>,
    pub format: ToolFormat,
    /// The whole declaration.
    pub span: Span,
    /// The handler, when the declaration says (an rmcp `#[tool]` method).
    pub handler: Option<usize>,
    /// The impl block the declaration sits in: its call-like methods handle
    /// the tool.
    pub impl_id: Option<usize>,
    /// The argument type the handler deserialises into (`Parameters<T>`,
    /// a trait's `type Args = T`).
    pub args_type: Option<(String, Span)>,
    /// The `#[cfg(..)]` condition of the function it is declared in.
    pub cfg: Option<String>,
    /// The file (index in the crate) `name` and `name_site` point into,
    /// when not the declaration's own (a tool named where it is registered).
    pub name_file: Option<usize>,
    /// Where the schema expression is written, when it is an argument or
    /// field of the declaration.
    pub schema_site: Option<Span>,
    /// The name is what the impl's `name()` method returns, so the crate's
    /// rewrites of `name()` results apply to it.
    pub name_from_method: bool,
    /// A type whose call-like method handles the tool (the argument struct
    /// a `#[mcp_tool(..)]` attribute sits on).
    pub handler_type: Option<String>,
    /// One of a crate's tools that are declared one per file and offered
    /// together (rust-mcp-sdk's `tool_box!` of `#[mcp_tool]` structs): its
    /// tool list is the crate's, not its file's.
    pub crate_wide: bool,
    /// Declared in one arm of a select (a `match`). Tools of different
    /// arms of one select are never offered together.
    pub branch: Option<crate::model::Branch>,
    /// The value of a `let` in the function starting at this byte, outside
    /// any arm: in whichever lists the code later puts it.
    pub bound_before: Option<usize>,
    /// In a literal list (`json!([..])`, `vec![..]`) in the function
    /// starting at this byte.
    pub literal_list: Option<usize>,
}

/// See [`ToolDecl::positional`].
#[derive(Clone, Debug)]
pub struct Positional {
    /// The function called.
    pub helper: String,
    /// A second schema argument, with its position: the output schema when
    /// the helper's parameter there is named for one (`output_schema`).
    pub output: Option<(usize, SchemaExpr)>,
}

impl ValueExpr {
    /// Where the value is written (the first alternative's place for a
    /// may-be set).
    pub fn span(&self) -> Option<Span> {
        match self {
            ValueExpr::Str(s) => Some(s.span),
            ValueExpr::Format { span, .. }
            | ValueExpr::Const(_, span)
            | ValueExpr::Call(_, span)
            | ValueExpr::Field(_, span)
            | ValueExpr::Param { span, .. } => Some(*span),
            ValueExpr::OneOf(alts) => alts.iter().find_map(ValueExpr::span),
            ValueExpr::Unknown => None,
        }
    }
}

impl ToolDecl {
    /// A declaration with only what every one has; the rest is set by the
    /// extraction that found it.
    pub fn new(name: ValueExpr, name_site: Span, span: Span, format: ToolFormat) -> Self {
        ToolDecl {
            name,
            name_site,
            description: None,
            schema: None,
            strict: None,
            format,
            span,
            handler: None,
            impl_id: None,
            args_type: None,
            cfg: None,
            name_file: None,
            schema_site: None,
            output_schema: None,
            positional: None,
            name_from_method: false,
            handler_type: None,
            crate_wide: false,
            branch: None,
            bound_before: None,
            literal_list: None,
        }
    }
}

/// One function or method.
#[derive(Clone, Debug, Default)]
pub struct FnFact {
    pub name: String,
    pub name_span: Span,
    pub impl_id: Option<usize>,
    /// The names of its type parameters (`fn for_args<Args: JsonSchema>`).
    pub generics: Vec<String>,
    /// `self` counts as parameter 0 when present.
    pub params: Vec<ParamFact>,
    pub calls: Vec<CallFact>,
    /// Keys read from an arguments object (`args.get("k")`, `args["k"]`).
    pub key_reads: Vec<KeyRead>,
    /// Parameters whose arguments object is used other than by key reads
    /// (passed on, deserialised, iterated): the key reads are not all.
    pub escapes: u64,
    /// Types the function deserialises arguments into
    /// (`serde_json::from_value::<T>(args)`), with the mask of the source.
    pub deserializes: Vec<(String, Span, u64)>,
    pub returns: ValueExpr,
    pub returns_schema: Option<SchemaExpr>,
    pub is_test: bool,
    /// The `#[cfg(..)]` condition on the function, if any.
    pub cfg: Option<String>,
    /// Takes a tool-call request (`CallToolRequestParam`, …): a dispatcher.
    pub takes_request: bool,
    /// Functions whose result it puts in a `name` field (`"name":
    /// to_wire(&spec.name)`): what may map a tool's name on its way out.
    pub name_field_callees: Vec<String>,
    /// Builds or runs a JSON Schema validator (`jsonschema::validator_for`,
    /// `jsonschema::options()…build`, `JSONSchema::compile`).
    pub validates_schema: bool,
    /// Says in its output that something was cut (`"[truncated]"`,
    /// `"… N more"`, a `truncated` field).
    pub marks_truncation: bool,
    /// Talks about limits in its output ("capped", "at most"): a clamp in
    /// it is reported. Only looked at when the function has a clamp site.
    pub mentions_limit: bool,
    /// The places where a value may be replaced, cut or dropped.
    /// A string in the body tells the model the tool cannot act ("not
    /// available", "not implemented"): a stub, when it reads next to nothing.
    pub says_unavailable: bool,
    /// String literals the body writes, not as object keys, sorted: keys
    /// it may read some way `key_reads` does not show.
    pub key_literals: Vec<String>,
    pub sites: Vec<Site>,
    /// Maps characters outside a set to `_` (`c.is_ascii_alphanumeric()
    /// … else { '_' }`, `replace_all("[^a-zA-Z0-9_-]", "_")`): a name
    /// sanitiser, whose outputs can collide (`a.b` and `a_b`).
    pub sanitises_names: bool,
    /// Parameters (by index) the body never uses: for a tool whose schema
    /// is derived from the signature, arguments the model fills in for
    /// nothing.
    pub unused_params: Vec<usize>,
    /// Makes up values with a random generator (`random.choice(..)`): a
    /// tool whose body does is a simulation, and the arguments it ignores
    /// are ignored by design.
    pub simulates: bool,
}

impl FnFact {
    /// What the string literals a function's body writes tell, each with
    /// whether it is written as a key of an object the body builds
    /// (`{"k": ..}`): the strings not written as keys (keys it may read
    /// some way the key reads do not show: `ctx.resolved_path("path")`, a
    /// table of keys), whether it says it cannot act, and whether its output
    /// marks a cut (a marker string, a count of the whole, a key that says
    /// there is more: `"has_more"`, `"next_cursor"`).
    pub fn learn_strings(&mut self, strings: &[(String, bool)], markers: &[String]) {
        self.key_literals = key_like(strings.iter().filter(|(_, key)| !key).map(|(s, _)| s));
        self.says_unavailable = strings
            .iter()
            .any(|(s, _)| crate::model::words::says_unavailable(s));
        self.marks_truncation = strings.iter().any(|(s, key)| {
            crate::model::words::mentions_truncation(s, markers)
                || crate::model::words::names_a_total(s)
                || (*key && crate::model::words::truncation_field(s))
        });
    }
}

/// The strings that could be keys (short, one word), sorted and deduplicated.
pub fn key_like<'a>(strings: impl Iterator<Item = &'a String>) -> Vec<String> {
    let mut out: Vec<String> = strings
        .filter(|s| !s.is_empty() && s.len() <= 64 && !s.contains(char::is_whitespace))
        .cloned()
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

#[derive(Clone, Debug, Default)]
pub struct ParamFact {
    /// The bound name (`args`), or the pattern's text when destructured.
    pub name: String,
    pub ty: String,
    pub span: Span,
    pub is_self: bool,
    /// Looks like context rather than input (`ctx: RequestContext<..>`).
    pub is_context: bool,
    /// Holds the arguments object itself (a JSON value or map).
    pub is_args_object: bool,
    /// Attribute words on the parameter (`#[tool(aggr)]` → `aggr`).
    pub tool_attr: Vec<String>,
    pub doc: Option<String>,
}

#[derive(Clone, Debug)]
pub struct CallFact {
    /// The called name's last segment.
    pub callee: String,
    /// Masks of the arguments; for a method call the receiver comes first.
    pub args: Vec<u64>,
    /// For each argument, the arguments-object mask when the argument is
    /// the arguments object itself (not a value taken from it).
    pub roots: Vec<u64>,
    /// For each argument: is it a requested value as sent (see
    /// `Flow::is_direct`), not one computed from it?
    pub direct: Vec<bool>,
    pub method: bool,
    /// `Self::f(self, ..)`: the receiver is passed as the first argument.
    pub self_arg: bool,
    pub target: CallTarget,
    /// The string values of the call's arguments (receiver not counted),
    /// as far as they can be followed; empty when none can.
    pub values: Vec<ValueExpr>,
    /// The whole call.
    pub span: Span,
    /// The first type argument of `f::<T>(..)`, with its span.
    pub type_arg: Option<(String, Span)>,
    /// For each argument, the name the model knows its value by when it is
    /// a requested value (a key read, a handler's parameter); empty when
    /// the front-end does not say.
    pub arg_names: Vec<Option<String>>,
    /// Arguments (bit per position) holding a requested value the caller
    /// refused, if out of some set, before the call (`if x not in VALID:
    /// raise`): only values the check lets through reach the callee.
    pub checked: u64,
    /// Keyword arguments put after the positional ones because the file
    /// does not define the callee (`fetch(url, limit=n)` of another
    /// module): (name, position), for the linker to move to the
    /// parameter of that name once it finds the callee.
    pub keywords: Vec<(String, usize)>,
    /// The arguments object (its mask) handed to a function the file does
    /// not define: an escape (its keys may all be read there) unless the
    /// linker finds that function, whose reads are then followed.
    pub escapes: u64,
}

/// Which functions of the crate a call may reach.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallTarget {
    /// `self.f()`, `Self::f()`: a method of the same type.
    OwnType,
    /// `Type::f()`: an associated function of `Type`.
    Type(String),
    /// `f()` or `module::f()` within the crate (`crate::`, `super::`, a
    /// lowercase module path).
    Free,
    /// `x.f()` on another value: any method of that name.
    Method,
    /// `std::fs::read()`, `serde_json::from_str()`: outside the crate.
    External,
}

#[derive(Clone, Debug)]
pub struct KeyRead {
    pub key: String,
    pub span: Span,
    pub mask: u64,
    /// A missing or mistyped value is an error here, not a default.
    pub loud: bool,
    /// The top-level key of the object this key is read from
    /// (`updates` for `args["updates"].get("width")`); `None` for a
    /// top-level key.
    pub parent: Option<String>,
}

/// A record type with named fields: a Rust `struct`, a pydantic model, a
/// dataclass.
#[derive(Clone, Debug, Default)]
pub struct StructFact {
    pub name: String,
    pub name_span: Span,
    pub fields: Vec<FieldFact>,
    pub derives: Vec<String>,
    /// Unknown keys are refused (`#[serde(deny_unknown_fields)]`,
    /// pydantic's `extra="forbid"`).
    pub deny_unknown_fields: bool,
    /// `#[serde(flatten)]` on a field, pydantic's `extra="allow"`: unknown
    /// keys may be collected.
    pub has_flatten: bool,
    pub record: RecordKind,
}

/// What decodes a record from the arguments, which decides the words of a
/// finding and its fix.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RecordKind {
    /// A Rust struct deserialised by serde (`#[derive(Deserialize)]`).
    #[default]
    Serde,
    /// A pydantic model (`class Req(BaseModel)`).
    Pydantic,
    /// A standard-library `@dataclass`, validated by pydantic as a tool
    /// argument.
    Dataclass,
}

impl StructFact {
    pub fn derives(&self, name: &str) -> bool {
        self.derives.iter().any(|d| d == name)
    }

    /// Decoded from the arguments: serde's `Deserialize`, or a Python
    /// record, which pydantic validates.
    pub fn is_decoded(&self) -> bool {
        self.record != RecordKind::Serde || self.derives("Deserialize")
    }

    /// Every field may be used without being read by name: serialised
    /// wholesale (`Serialize`, forwarded to an API). A Python record may be
    /// used by another module (`req.model_dump()`, passed on), which is
    /// not parsed, so its fields are not judged one by one.
    pub fn used_wholesale(&self) -> bool {
        self.record != RecordKind::Serde || self.derives("Serialize")
    }
}

/// A framework that decodes a group of tools' arguments and drops keys
/// the tool does not declare, without telling the model (the MCP SDK's
/// `FastMCP`, LangChain's `@tool`). One finding per group.
#[derive(Clone, Debug)]
pub struct KeyPolicy {
    /// The tools it applies to: `ToolDef::group`.
    pub group: String,
    /// Where the framework is chosen (the server object's construction, the
    /// decorator's import).
    pub span: Span,
    /// The framework, for the message (`the MCP SDK's FastMCP`).
    pub framework: &'static str,
    /// What to do instead.
    pub fix: &'static str,
}

#[derive(Clone, Debug, Default)]
pub struct FieldFact {
    /// The Rust field name.
    pub name: String,
    /// The key on the wire (after `rename` / `rename_all`).
    pub wire: String,
    pub aliases: Vec<String>,
    pub span: Span,
    pub ty: String,
    /// `Option<T>` or `#[serde(default)]`: may be left out.
    pub optional: bool,
    pub description: Option<String>,
    pub flatten: bool,
    pub skip: bool,
    /// `#[schemars(range(min = 1, max = 200))]` (or `validate`/`garde`):
    /// the bounds as written, which the derived schema states as
    /// `minimum`/`maximum`.
    pub range: (Option<String>, Option<String>),
    /// `#[schemars(with = "Vec<String>")]`: the type the schema is derived
    /// from instead of the field's own.
    pub schema_with: Option<String>,
    /// `#[serde(default)]` on the field or its struct: schemars writes the
    /// default into the field's schema (`{"default": null}` for an
    /// `Option<Value>`, not `true`).
    pub serde_default: bool,
    /// `#[schemars(schema_with = "f")]`: the function `f` writes the
    /// field's schema, unknown here (an object, not `true`).
    pub schema_fn: bool,
}

#[derive(Clone, Debug)]
pub struct ConstFact {
    pub name: String,
    pub value: ValueExpr,
    pub impl_id: Option<usize>,
}

/// One `impl` block: its type and trait, and associated types.
#[derive(Clone, Debug, Default)]
pub struct ImplFact {
    /// The whole `impl` block.
    pub span: Span,
    pub self_type: String,
    pub trait_name: Option<String>,
    /// `type Args = T;` and friends.
    pub assoc_types: Vec<(String, String, Span)>,
}

/// `match name { "read_file" => self.read_file(args), .. }`: an arm of a
/// dispatch on the tool name.
#[derive(Clone, Debug)]
pub struct Dispatch {
    pub tool: String,
    /// The arm's literal.
    pub span: Span,
    /// The match is on a tool (`match tool_name`, `call.tool.as_str()`) and
    /// this arm hands the arguments on: evidence enough that the literal
    /// is a tool's name even with no declaration of it in the crate.
    pub names_tool: bool,
    /// The arm hands the arguments object to one call (`"exec" =>
    /// exec(input)`): where the call runs, not a label made from it.
    pub hands: bool,
    pub fn_index: usize,
    /// Names called in the arm, in order.
    pub callees: Vec<String>,
}

/// What a code rule needs before it may fire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// The flagged value is one of these parameters of its function as sent
    /// (or a field, key or conversion of it): it fires when one of them
    /// receives a tool argument as sent, at every call on the way.
    Args(u64),
    /// The flagged value depends on these parameters: it fires when one of
    /// them carries anything computed from tool arguments.
    Tainted(u64),
    /// The function is on the tool-call surface (a handler or a function it
    /// calls).
    Surface,
    /// Nothing: the code itself says it handles tool calls.
    Always,
}

/// When a candidate is dropped even on the surface.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Quiet {
    #[default]
    Never,
    /// A tool whose handler reaches it documents a bound (`maximum`, "at
    /// most", "capped") in its description or schema: the model was told.
    IfToolDocumentsBound,
    /// The argument (`limit`) is a field whose doc comment, the schema
    /// description the model reads, states the bound with one of these
    /// numbers (`/// Maximum number of items (default: 10, max: 100).`).
    IfFieldDocumentsBound(String, Vec<String>),
    /// A function that calls it marks the truncation in the output.
    IfCallerMarksTruncation,
    /// Every tool whose handler reaches it says in its description that
    /// its output is cut ("(truncated) extracted text"): the model is told.
    IfToolDocumentsTruncation,
    /// Unless the tools that reach it (or, when none is known, the crate's
    /// tools that declare it) require this argument: a missing optional
    /// string may well take a default, and a model sends strings for
    /// string parameters.
    UnlessRequired(String),
    /// When every one of these literals is the name of one of the unit's
    /// tools: a table keyed by tool (advice, icons) whose catch-all is the
    /// general case for the other tools, not a value the model mistyped.
    IfToolNames(Vec<String>),
    /// When a sibling method of the function's `impl` that validates input
    /// before the call (`validate_input`, `validate_args`: a tool trait's
    /// check that the executor runs first) reads this argument: a value
    /// of the wrong type is refused there, so only a missing one gets the
    /// default.
    IfValidatedBySibling(String),
    /// When the unit (or a crate of the tree it depends on) validates tool
    /// arguments with a JSON Schema validator, and every tool that reaches
    /// the function declares this argument with a type the conversion
    /// (`as_bool`, `as_u64`) accepts: a value of another type is refused
    /// before the handler runs. The argument and what the conversion takes.
    IfSchemaValidated(String, Accepts),
    /// When the unit validates tool arguments against their schema, and
    /// every tool that reaches the function declares this argument with an
    /// `enum` of these literals and at most one more value: the catch-all
    /// is that value's branch, and nothing else gets past the validator.
    IfSchemaEnum(String, Vec<String>),
    /// When every call that hands the function these parameters (a mask)
    /// passes values its caller checked before the call (a caller's
    /// `if x not in VALID: raise` before `helper(x)`).
    IfCheckedByCallers(u64),
    /// When every tool that reaches the function says in its description
    /// that other values fall back to this one ("Falls back to a generic
    /// summary for custom paradigms" for `"generic"`): the model was told.
    IfToolDocumentsFallback(String),
    /// When any of these holds.
    Any(Vec<Quiet>),
}

/// What a code rule sees of one function: its facts, with its sites.
pub struct FunctionView<'a> {
    pub file: &'a Arc<SourceFile>,
    /// The function's index in its file.
    pub index: usize,
    pub fact: &'a FnFact,
}

impl FunctionView<'_> {
    /// A candidate finding that needs `need` to be reported.
    pub fn candidate(&self, diag: Diagnostic, need: Need) -> Candidate {
        Candidate {
            diag,
            fn_index: self.index,
            need,
            quiet: Quiet::Never,
        }
    }
}

/// A finding of a code rule, kept until the crate knows which functions
/// are on the tool-call surface.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub diag: Diagnostic,
    pub fn_index: usize,
    pub need: Need,
    pub quiet: Quiet,
}

/// Everything the per-file pass keeps of one Rust file.
#[derive(Debug)]
pub struct FileFacts {
    pub file: Arc<SourceFile>,
    pub fns: Vec<FnFact>,
    pub structs: Vec<StructFact>,
    pub consts: Vec<ConstFact>,
    pub impls: Vec<ImplFact>,
    pub tools: Vec<ToolDecl>,
    pub dispatch: Vec<Dispatch>,
    /// Field names read anywhere (`x.limit`, `Args { limit, .. }`).
    pub field_reads: BTreeSet<String>,
    /// Methods called with no arguments (`req.sort_by()`): reads of a
    /// field through a generated getter (`#[derive(Getters)]`).
    pub accessor_calls: BTreeSet<String>,
    pub candidates: Vec<Candidate>,
    /// Fields bound to `_`-prefixed names in a pattern: (field, span).
    pub ignored_fields: Vec<(String, Span)>,
    /// `register_tool("echo", Box::new(EchoTool))` and the like.
    pub registrations: Vec<Registration>,
    /// Fields whose absence is turned into an error (`x.path.ok_or(..)?`).
    pub checked_fields: BTreeSet<String>,
    /// Rewrites of what tools' `name()` returns before it is used.
    pub name_rewrites: Vec<NameRewrite>,
    /// String values struct literals put in fields.
    pub field_inits: Vec<FieldInit>,
    /// `mod a;` declarations (inside inline modules: `mod x { mod a; }` is
    /// `["x", "a"]`), with a `#[path = ".."]` when given: which files the
    /// crate compiles.
    pub mods: Vec<(Vec<String>, Option<String>)>,
    /// The file `include!`s source text: its module tree is not the whole
    /// story.
    pub includes: bool,
    /// Properties given a schema with numbers where it is built at run
    /// time (`props.insert("limit".into(), integer_field(1, 500))`): the
    /// property and the numbers, for a bound the schema states.
    pub stated_bounds: Vec<(String, Vec<String>)>,
    /// Names brought into scope by imports, with the path they stand for
    /// (`use a::b::Handler as WaitHandler` is `("WaitHandler", ["a", "b",
    /// "Handler"])`), at the file's top or in a function body: what a name
    /// the file uses refers to in another module.
    pub uses: Vec<(String, Vec<String>)>,
    /// Frameworks in the file that drop unknown argument keys.
    pub key_policies: Vec<KeyPolicy>,
    /// `static` and `const` items whose value is a schema (`LazyLock::new(||
    /// json!(..))`, `LazyLock::new(schema_for::<T>)`), by name.
    pub schema_statics: Vec<(String, SchemaExpr)>,
}

impl FileFacts {
    /// The facts of a file before anything is learnt from it.
    pub fn new(file: &Arc<SourceFile>) -> Self {
        FileFacts {
            file: Arc::clone(file),
            fns: Vec::new(),
            structs: Vec::new(),
            consts: Vec::new(),
            impls: Vec::new(),
            tools: Vec::new(),
            dispatch: Vec::new(),
            field_reads: Default::default(),
            accessor_calls: Default::default(),
            candidates: Vec::new(),
            ignored_fields: Vec::new(),
            registrations: Vec::new(),
            checked_fields: Default::default(),
            name_rewrites: Vec::new(),
            field_inits: Vec::new(),
            mods: Vec::new(),
            includes: false,
            uses: Vec::new(),
            stated_bounds: Vec::new(),
            key_policies: Vec::new(),
            schema_statics: Vec::new(),
        }
    }
}

/// `Self { tool_name: format!("{}.{}", skill, tool.name), .. }`: a value
/// a struct literal puts in a field, for what `&self.tool_name` may be.
#[derive(Clone, Debug)]
pub struct FieldInit {
    /// The struct's type (`Self` already replaced by the impl's type).
    pub ty: String,
    pub field: String,
    pub value: ValueExpr,
    /// The function the literal is in (its parameters are the value's).
    pub fn_index: usize,
}

/// `tool.name().trim().replace(" ", "_")`: the crate sends and dispatches a
/// tool under its `name()` with `from` replaced by `to`.
#[derive(Clone, Debug)]
pub struct NameRewrite {
    pub from: String,
    pub to: String,
    pub span: Span,
}

/// A tool name registered with the type that handles it.
#[derive(Clone, Debug)]
pub struct Registration {
    pub tool: String,
    pub name_span: Span,
    pub handler_type: String,
    pub span: Span,
}

/// A value a site is about, as the front-end could follow it.
#[derive(Clone, Debug, Default)]
pub struct ValueRef {
    /// The name the model knows it by: the key read (`limit` of
    /// `args["limit"]`), the field, else the variable; `the argument` when
    /// none is found.
    pub name: String,
    /// Its source text (rules render it with `rules::code::snippet`).
    pub text: String,
    /// The function's parameters it depends on (`self` excluded).
    pub mask: u64,
    /// Is it a requested value as sent, not one computed from it?
    pub direct: bool,
}

/// Where the values a site does not handle end up.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// An error goes back (`Err(..)`, `raise`, `throw`, an error result)
    /// or the code leaves the loop or function.
    ErrorExit,
    /// A fixed default, as a message shows it (`` `0` ``, `` `Mode::Auto` ``).
    Default(String),
    /// "Not recognised" goes back to the caller, which decides: a parser
    /// that returns `None` (Python `return None`, TypeScript `undefined`).
    Declined,
    /// The branch's output says the value was not recognised (`"Unknown
    /// format type. Use: date, number"`, `"// Unknown"`): the model can see
    /// its value was not used.
    SaysUnknown,
    /// Anything else: another behaviour.
    Other,
}

/// A literal a select names (`"text"`, `3`), as written.
#[derive(Clone, Debug, PartialEq)]
pub struct Literal {
    pub text: String,
    /// A string literal (M303 judges only those).
    pub string: bool,
}

/// A bound of a clamp or a truncation.
#[derive(Clone, Debug)]
pub struct Bound {
    /// Its source text.
    pub text: String,
    pub kind: BoundKind,
    /// Depends on the function's parameters: not a limit the code chose.
    pub tainted: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum BoundKind {
    /// An integer literal and its value (`30_000`).
    Int(Option<f64>),
    /// A float literal and its value.
    Float(Option<f64>),
    /// A name or path; the last segment (`MAX_RESULTS` of `limits::MAX_RESULTS`).
    Name(String),
    /// A field of a value (`self.max_bytes`).
    Field,
    /// Any other expression (`items.len()`).
    Other,
}

/// How a select is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SelectForm {
    /// `match`/`switch` with a catch-all arm; the site spans the arm.
    Match,
    /// `if x == "a" .. else if x == "b" .. else ..`; the site spans `else`.
    IfElse,
    /// `if x == "a" { ..; return }` and the code after it; the site spans `if`.
    IfReturn,
}

/// Where parsed tool-call arguments go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgsUse {
    /// Nowhere that runs a tool, as far as can be seen (a log, a record).
    Nowhere,
    /// To a call that runs a tool (`tool.call(args)`, `call_tool(..)`).
    Sink,
    /// Returned by a function named for arguments (`parse_args`): its
    /// callers run tools with it.
    Returned,
    /// Into the arguments of a record of the model's tool call
    /// (`ToolCall { arguments }`, `ToolUse { input }`): whatever the value
    /// was called, it is the call's arguments.
    Record,
}

/// How output is cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CutHow {
    /// Keeps the first N items (`.take(N)`).
    Take,
    /// Cuts a collection or string in place (`.truncate(N)`).
    Truncate,
    /// Slices (`&text[..N]`).
    Slice,
    /// Keeps the last N (`lines[-N:]`).
    SliceTail,
    /// Stops a collecting loop (`if buf.len() + n > MAX { break; }` in a
    /// loop that pushes into `buf`).
    Stop,
}

/// A place where a value the model sent may be replaced, cut or dropped,
/// recognised by a front-end; rules decide what is silent.
#[derive(Clone, Debug)]
pub struct Site {
    pub span: Span,
    pub kind: SiteKind,
}

/// The JSON values a conversion takes without failing: what a property's
/// schema type must admit only, for a schema validator to refuse every
/// value the conversion would fail on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accepts {
    Boolean,
    String,
    Integer,
    NonNegativeInteger,
    /// Any number, integers included.
    Number,
    Array,
    Object,
    /// A conversion no schema type rules out failing (`parse` of a string).
    Other,
}

#[derive(Clone, Debug)]
pub enum SiteKind {
    /// A choice over a value among known literals with a fallback for the
    /// rest (M201, M303).
    Select {
        subject: ValueRef,
        known: Vec<Literal>,
        form: SelectForm,
        fallback: Outcome,
        /// The fallback does something (not `{}`).
        does_work: bool,
        /// The fallback uses the value itself (`other => Custom(other)`).
        keeps_value: bool,
        /// Earlier in the function the value went through a check that
        /// can fail the call (`validate_enum(v, VALID, "type")?`, `if let
        /// Err(e) = check(v) { return .. }`): the fallback may be
        /// unreachable.
        checked_before: bool,
    },
    /// A conversion of a value that falls back when it fails (M202).
    ParseFallback {
        value: ValueRef,
        /// The conversion as written (`as_u64`, `parse`), for messages.
        conversion: String,
        /// The JSON values the conversion takes.
        accepts: Accepts,
        fallback: Outcome,
        /// The fallback when it is a string literal, decoded.
        fallback_string: Option<String>,
        /// The fallback saturates (`u32::MAX`): not a default.
        saturates: bool,
        /// The result is checked afterwards (`if x.is_empty() { return Err }`).
        checked_after: bool,
        /// The tool's result reports the value used under a key that says
        /// so (`json!({"appliedOffset": offset})` returned): the model sees
        /// what its value became.
        echoed: bool,
        /// The whole arguments object: parsed from a string (M203's case),
        /// or taken as a map (`args.as_object().cloned().unwrap_or_default()`,
        /// which falls back only for a non-object, which the protocol rules
        /// out; M203 skips `from_value` into a map alike).
        whole_arguments: bool,
    },
    /// Tool-call arguments parsed with a fallback to a default (M203).
    ArgsFallback {
        input: ValueRef,
        /// The default, as written.
        default: String,
        /// Where the defaulted value goes.
        goes_to: ArgsUse,
        /// What is parsed is a parameter of the function itself (a
        /// handler parsing its own arguments runs with the default).
        own_parameter: bool,
        /// The arm of a JSON-RPC method `match` the parse is in
        /// (`"tools/list" => from_value(params).unwrap_or_default()`):
        /// another request's parameters, not a tool call's.
        method_arm: Option<String>,
        /// The raw text parsed is also kept, unparsed, as the arguments of a
        /// tool-call record (`SimplifiedToolCall { arguments: args.clone() }`):
        /// the defaulted value is a copy, and the call keeps what was sent.
        raw_kept: bool,
    },
    /// A requested value capped by bounds (M301).
    Clamp {
        value: ValueRef,
        bounds: Vec<Bound>,
        /// The code compares the value with the bound elsewhere (to warn
        /// or to refuse).
        compared: bool,
    },
    /// Output cut at a limit (M302).
    Truncate {
        how: CutHow,
        limit: Bound,
        /// The name of what is cut (`hits` of `hits.truncate(10)`).
        collection: String,
        /// Where the cut value goes: the local or field it is stored in
        /// (`content_snippet` of `content_snippet: text.chars().take(600)
        /// .collect()`), when it is one.
        dest: String,
        /// The cut text goes into an error (`Err(ApiError { message:
        /// body.chars().take(800).collect() })`): the model is told the
        /// call failed, and an error body is not output it asked for.
        into_error: bool,
        /// The cut is made inside a closure (a reader thread's body) that
        /// gives back only what it collected, with no marker and no flag:
        /// a marker elsewhere in the function, or in its callers, is about
        /// other output (stdout's notice does not tell of stderr's cut).
        hidden_in_closure: bool,
    },
    /// `let name = sanitize(&raw); if seen.contains(&name) { warn!(..) }`:
    /// a name made by a function whose collision check only logs, so two
    /// names that sanitise alike are both kept (N102).
    NameCollision {
        /// The function that made the name (`sanitize`).
        sanitiser: String,
        sanitiser_span: Span,
        /// The local the name is held in.
        name: String,
        /// The function, the sanitised text or the checked collection
        /// speaks of tools or functions (not file or label names).
        about_tools: bool,
    },
}

/// A field name (`snake_case`) under a naming rule (serde `rename_all`,
/// an alias generator): `camelCase`, `PascalCase`, `kebab-case`, …
pub fn rename(name: &str, rule: Option<&str>) -> String {
    let words: Vec<&str> = name.split('_').filter(|w| !w.is_empty()).collect();
    let cap = |w: &str| {
        let mut c = w.chars();
        c.next()
            .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
            .unwrap_or_default()
    };
    match rule {
        Some("camelCase") => words
            .iter()
            .enumerate()
            .map(|(i, w)| if i == 0 { w.to_string() } else { cap(w) })
            .collect(),
        Some("PascalCase") => words.iter().map(|w| cap(w)).collect(),
        Some("kebab-case") => words.join("-"),
        Some("SCREAMING_SNAKE_CASE") => name.to_ascii_uppercase(),
        Some("SCREAMING-KEBAB-CASE") => words.join("-").to_ascii_uppercase(),
        Some("lowercase") => name.to_ascii_lowercase(),
        Some("UPPERCASE") => name.to_ascii_uppercase(),
        _ => name.to_string(),
    }
}
