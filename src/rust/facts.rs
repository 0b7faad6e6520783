//! What the per-file pass learns from a Rust file: plain data that outlives
//! the syntax tree, so the tree can be dropped before the crate is linked.

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
    /// Anything else: not followed (nothing is said about it).
    #[default]
    Unknown,
}

/// Where a tool's input schema comes from.
#[derive(Clone, Debug)]
pub enum SchemaExpr {
    /// A `json!` literal, with spans into this file.
    Json(Node),
    /// Derived from a Rust type: `Parameters<T>`, `schema_for!(T)`.
    Type(String, Span),
    /// What a function returns: `Self::input_schema()`.
    Call(String, Span),
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
            name_from_method: false,
        }
    }
}

/// One function or method.
#[derive(Clone, Debug, Default)]
pub struct FnFact {
    pub name: String,
    pub name_span: Span,
    pub impl_id: Option<usize>,
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
    /// Says in its output that something was cut (`"[truncated]"`,
    /// `"… N more"`, a `truncated` field).
    pub marks_truncation: bool,
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
}

/// A `struct` with named fields.
#[derive(Clone, Debug, Default)]
pub struct StructFact {
    pub name: String,
    pub name_span: Span,
    pub fields: Vec<FieldFact>,
    pub derives: Vec<String>,
    pub deny_unknown_fields: bool,
    /// `#[serde(flatten)]` on a field: unknown keys may be collected.
    pub has_flatten: bool,
}

impl StructFact {
    pub fn derives(&self, name: &str) -> bool {
        self.derives.iter().any(|d| d == name)
    }
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
    /// A function that calls it marks the truncation in the output.
    IfCallerMarksTruncation,
    /// Unless the tools that reach it (or, when none is known, the crate's
    /// tools that declare it) require this argument: a missing optional
    /// string may well take a default, and a model sends strings for
    /// string parameters.
    UnlessRequired(String),
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
    pub candidates: Vec<Candidate>,
    /// Fields bound to `_`-prefixed names in a pattern: (field, span).
    pub ignored_fields: Vec<(String, Span)>,
    /// `register_tool("echo", Box::new(EchoTool))` and the like.
    pub registrations: Vec<Registration>,
    /// Fields whose absence is turned into an error (`x.path.ok_or(..)?`).
    pub checked_fields: BTreeSet<String>,
    /// Rewrites of what tools' `name()` returns before it is used.
    pub name_rewrites: Vec<NameRewrite>,
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
