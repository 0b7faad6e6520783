//! Plain data shared by every stage: tool definitions, diagnostics and
//! notifications ([`code`]: what a language front-end learns from source
//! code). No I/O and no logic beyond small accessors.

pub mod code;
pub mod condition;
pub mod words;

use std::fmt;
use std::sync::Arc;

use serde::Serialize;

use crate::source::{SourceFile, Span};
use crate::syntax::Node;

/// How serious a finding is. Ordered so that `Error > Warning > Note`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl Severity {
    pub const ALL: [Severity; 3] = [Severity::Error, Severity::Warning, Severity::Note];

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    pub fn parse(s: &str) -> Option<Severity> {
        Severity::ALL.into_iter().find(|v| v.as_str() == s)
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The wire shape a tool definition was written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ToolFormat {
    /// MCP `Tool` (`name` + `inputSchema`), e.g. a `tools/list` result.
    Mcp,
    /// Anthropic Messages API tool (`name` + `input_schema`).
    Anthropic,
    /// OpenAI Chat Completions (`{"type":"function","function":{…}}`).
    OpenaiChat,
    /// OpenAI Responses API flat function tool (`{"type":"function","name":…}`).
    OpenaiResponses,
    /// Legacy OpenAI `functions` array (`name` + `parameters`).
    OpenaiFunctions,
    /// Gemini / Vertex AI `functionDeclarations` entry.
    Gemini,
    /// An rmcp `#[tool]` method in Rust (the MCP `Tool` it generates).
    Rmcp,
    /// A tool definition built in Rust code: a `Tool { .. }` literal,
    /// `Tool::new(..)`, or a trait impl with `fn name()`.
    Rust,
    /// AWS Bedrock Converse `toolSpec` (`inputSchema.json`).
    Bedrock,
    /// VS Code `contributes.languageModelTools` entry (`modelDescription`).
    Vscode,
    /// An item of an OpenAI Responses `mcp_list_tools` output.
    OpenaiMcpListTools,
    /// A bare function declaration `{name, description, parameters}` in a
    /// `tools` list or a top-level array.
    Function,
    /// A tool this code only dispatches (`match tool { "disk.scan" =>
    /// ops::disk::scan(args), .. }`): declared elsewhere (another file,
    /// language or service), so its name, description and schema are not
    /// judged here; its handler is.
    Dispatch,
    /// An operation of an OpenAPI document (`paths./x.post`), named by its
    /// `operationId` as the importers that offer it to a model name it
    /// (ChatGPT Actions, Bedrock action groups, OpenAPI-to-MCP converters).
    #[serde(rename = "openapi")]
    OpenApi,
    /// A Python MCP server's tool: a function decorated with
    /// `@mcp.tool()` (FastMCP, the MCP SDK's `FastMCP`), its schema
    /// derived from the signature.
    Fastmcp,
    /// A Python function an agent framework offers to the model as a tool:
    /// LangChain's `@tool`, the OpenAI Agents SDK's `@function_tool`,
    /// pydantic-ai's `@agent.tool`; its schema derived from the signature.
    PythonFunction,
}

impl ToolFormat {
    /// One of OpenAI's wire shapes (where `strict: true` means OpenAI strict mode).
    pub fn is_openai(self) -> bool {
        matches!(
            self,
            ToolFormat::OpenaiChat | ToolFormat::OpenaiResponses | ToolFormat::OpenaiFunctions
        )
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ToolFormat::Mcp => "mcp",
            ToolFormat::Anthropic => "anthropic",
            ToolFormat::OpenaiChat => "openai-chat",
            ToolFormat::OpenaiResponses => "openai-responses",
            ToolFormat::OpenaiFunctions => "openai-functions",
            ToolFormat::Gemini => "gemini",
            ToolFormat::Rmcp => "rmcp",
            ToolFormat::Rust => "rust",
            ToolFormat::Bedrock => "bedrock",
            ToolFormat::Vscode => "vscode",
            ToolFormat::OpenaiMcpListTools => "openai-mcp-list-tools",
            ToolFormat::Function => "function",
            ToolFormat::Dispatch => "dispatch",
            ToolFormat::OpenApi => "openapi",
            ToolFormat::Fastmcp => "fastmcp",
            ToolFormat::PythonFunction => "python-function",
        }
    }

    /// Only referenced here, by a dispatch: the declaration is elsewhere.
    pub fn is_reference(self) -> bool {
        self == ToolFormat::Dispatch
    }

    /// Only the name rules judge it: an OpenAPI operation's parameters and
    /// HTTP documentation are not an input schema and a tool description.
    pub fn names_only(self) -> bool {
        self == ToolFormat::OpenApi
    }

    /// An MCP server's own definition: it goes to clients as written, past
    /// any name mapping of the agent side of the same workspace.
    pub fn served_as_written(self) -> bool {
        matches!(
            self,
            ToolFormat::Rmcp | ToolFormat::Mcp | ToolFormat::Fastmcp
        )
    }
}

/// What language an input schema is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SchemaKind {
    /// JSON Schema (MCP, Anthropic, OpenAI, Bedrock, Gemini `parametersJsonSchema`).
    JsonSchema,
    /// Gemini's `parameters`: an OpenAPI 3.0 subset (`type: "OBJECT"`, `nullable`).
    OpenApiSubset,
}

/// Which of a tool's schemas a finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchemaRole {
    /// The arguments the model sends (`inputSchema`, `parameters`, …).
    Input,
    /// MCP `outputSchema`: what `structuredContent` must match.
    Output,
}

impl SchemaRole {
    pub fn noun(self) -> &'static str {
        match self {
            SchemaRole::Input => "input schema",
            SchemaRole::Output => "output schema",
        }
    }
}

/// One schema of a tool, for the rules that check any schema (S101,
/// S103, S104): where it is written and what it describes.
pub struct SchemaView<'a> {
    pub role: SchemaRole,
    pub root: &'a Node,
    pub file: &'a Arc<SourceFile>,
    /// JSON Pointer of the schema inside its document.
    pub pointer: String,
}

/// A string value and where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

/// The function that runs when the model calls a tool.
#[derive(Clone, Debug)]
pub struct Handler {
    pub file: Arc<SourceFile>,
    /// The function's name.
    pub span: Span,
    pub name: String,
}

/// How a handler takes its arguments, as far as the code shows.
#[derive(Clone, Debug, Default)]
pub struct Intake {
    /// Deserialised into a Rust type: its strictness is M102's concern.
    pub typed: bool,
    /// Keys it reads so that a missing or mistyped value is an error
    /// (`args.get("k").ok_or(..)?`): a misspelling of them is loud.
    pub checked_keys: Vec<String>,
}

/// One tool definition, from whatever source it was extracted.
#[derive(Clone, Debug)]
pub struct ToolDef {
    /// The name, or for a name built at run time its template
    /// (`{server}:{tool}`), with the span where it is written.
    pub name: Spanned<String>,
    /// The file `name.span` points into (the tool's own file, unless the
    /// name is built by a function or constant elsewhere).
    pub name_file: Arc<SourceFile>,
    /// Byte ranges of `name.value` that are filled in at run time (the
    /// `{server}` of `{server}:{tool}`); empty for a literal name.
    pub name_holes: Vec<(usize, usize)>,
    /// How the name reached the definition (`used as the tool name here`).
    pub name_via: Vec<Label>,
    /// Other values the name may have (a name chosen by `if`/`match`, or
    /// passed by several callers): the name rules judge each.
    pub name_alternatives: Vec<NameAlternative>,
    pub description: Option<Spanned<String>>,
    /// The description is computed at run time: unknown, not missing.
    pub description_dynamic: bool,
    /// The input schema as written, with spans into `schema_file`.
    pub input_schema: Option<Node>,
    pub schema_file: Arc<SourceFile>,
    /// The schema was derived from a Rust type (its fields), not written
    /// out: what it omits is reported on the type (M102), not the schema.
    pub schema_derived: bool,
    /// For tools declared in code: the function that handles calls.
    pub handler: Option<Handler>,
    /// Declared in one arm of a select in its file: see
    /// [`ToolDef::coexists_with`].
    pub branch: Option<Branch>,
    /// Declared in code of a workspace one of whose crates fills the `name`
    /// field of a tool definition it sends through a sanitiser: the name's
    /// characters as written are not what a provider sees (its length and
    /// emptiness still are).
    pub names_mapped: bool,
    /// Bound by a `let` in the function starting at this byte of its file,
    /// outside any arm: see [`ToolDef::coexists_with`].
    pub bound_before: Option<usize>,
    /// Written inside a literal list (`json!([{..}, {..}])`, `vec![Tool
    /// {..}]`) in the function starting at this byte of its file: literal
    /// lists of two functions (an `initialize` reply and a `tools/list`
    /// reply) are two lists.
    pub literal_list: Option<usize>,
    /// `#[cfg(..)]` on the declaration: tools with different conditions are
    /// never offered together (one per target OS, say).
    pub cfg: Option<String>,
    /// For code tools: how the handler takes its arguments, when known.
    pub intake: Option<Intake>,
    /// Written in a Python module-level list bound to a name nothing else
    /// in its file uses (`billing_tools = [{..}]`): offered to a model only
    /// if another module imports it. The module's name.
    pub needs_import: Option<String>,
    /// `strict: true` on the definition (OpenAI / Anthropic strict mode).
    pub strict: Option<bool>,
    /// Other members of a manifest's definition that clients read (MCP
    /// `title`, `annotations`, `_meta`, `outputSchema`; `strict`), as an
    /// object of those written; part of the surface snapshot.
    pub extras: Option<Node>,
    pub format: ToolFormat,
    pub file: Arc<SourceFile>,
    /// The whole definition.
    pub span: Span,
    /// JSON Pointer of the definition inside its document (manifests only).
    pub pointer: String,
    /// Pointers from the definition to its name and its input schema
    /// (`/function/name`, `/function/parameters`).
    pub name_pointer: String,
    pub schema_pointer: String,
    pub schema_kind: SchemaKind,
    /// Tools with the same group are offered to a model together: names must
    /// be unique within a group. For manifests, the enclosing list.
    pub group: String,
}

/// Where a declaration sits among the arms of a select: a `match` (its
/// arms), or a map of tool lists filled key by key (`tools.insert("mode",
/// vec![..])`: its keys). The enclosing function's start byte, the select
/// (an identity), the arm, and where the select starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Branch {
    pub function: usize,
    pub select: usize,
    pub arm: usize,
    pub at: usize,
}

impl ToolDef {
    /// The tool list this tool belongs to as people name it, given its
    /// file's path: the file, with the list inside it for a manifest
    /// holding several (`tools.json#/tools`, `multi.yaml#1:/tools`).
    pub fn list_label(&self, path: &str) -> String {
        // Manifests: `{display}#{doc}` or `{display}#{doc}:{container}`.
        let Some(rest) = self.group.strip_prefix(self.file.display.as_str()) else {
            return path.to_string();
        };
        match rest.strip_prefix('#').and_then(|r| r.split_once(':')) {
            Some(("0", container)) if container.starts_with('/') => format!("{path}#{container}"),
            Some((doc, container)) if container.starts_with('/') => {
                format!("{path}#{doc}:{container}")
            }
            _ => match rest.strip_prefix('#') {
                Some(doc) if doc != "0" && doc.bytes().all(|b| b.is_ascii_digit()) => {
                    format!("{path}#{doc}")
                }
                _ => path.to_string(),
            },
        }
    }

    /// MCP `outputSchema`, when the definition writes one.
    pub fn output_schema(&self) -> Option<&Node> {
        self.extras.as_ref()?.get("outputSchema")
    }

    /// The output schema as one of the tool's schemas.
    pub fn output_view(&self) -> Option<SchemaView<'_>> {
        self.schemas()
            .into_iter()
            .find(|v| v.role == SchemaRole::Output)
    }

    /// The input schema, then the output schema, each as written.
    pub fn schemas(&self) -> Vec<SchemaView<'_>> {
        let input = self.input_schema.as_ref().map(|root| SchemaView {
            role: SchemaRole::Input,
            root,
            file: &self.schema_file,
            pointer: self.schema_pointer.clone(),
        });
        let output = self.output_schema().map(|root| SchemaView {
            role: SchemaRole::Output,
            root,
            file: &self.file,
            pointer: format!("{}/outputSchema", self.pointer),
        });
        input.into_iter().chain(output).collect()
    }

    /// Can `self` and `other` be offered in the same build? Not when their
    /// `#[cfg(..)]` conditions cannot both hold (see [`condition`]).
    /// Nor when they are written in different arms of one `match`, which
    /// yields one list or the other; nor a tool bound by a `let` before a
    /// `match` of the same function and one written in an arm of it: the
    /// arm's list holds the first only if the arm puts it there.
    pub fn coexists_with(&self, other: &ToolDef) -> bool {
        if std::ptr::eq(self.file.as_ref(), other.file.as_ref()) {
            let apart = |x: &ToolDef, y: &ToolDef| {
                let arms = matches!((x.branch, y.branch), (Some(a), Some(b)) if a.function == b.function && a.select == b.select && a.arm != b.arm);
                let bound = matches!((x.bound_before, y.branch), (Some(f), Some(b)) if b.function == f && x.span.start < b.at);
                let lists =
                    matches!((x.literal_list, y.literal_list), (Some(f), Some(g)) if f != g);
                arms || bound || lists
            };
            if apart(self, other) || apart(other, self) {
                return false;
            }
        }
        match (&self.cfg, &other.cfg) {
            (Some(a), Some(b)) => condition::can_hold_together(a, b),
            _ => true,
        }
    }

    /// True when parts of the name are only known at run time.
    pub fn name_is_template(&self) -> bool {
        !self.name_holes.is_empty()
    }

    /// True when none of the name is known before run time (shown as the
    /// expression it comes from, `{tools::READ_FILE}`, or `{}`).
    pub fn name_is_unknown(&self) -> bool {
        self.name_holes == [(0, self.name.value.len())]
    }

    /// Names of the top-level properties the input schema declares.
    pub fn parameter_names(&self) -> Vec<&str> {
        self.input_schema
            .as_ref()
            .and_then(|s| s.get("properties"))
            .and_then(Node::members)
            .map(|m| m.iter().map(|m| m.key.as_str()).collect())
            .unwrap_or_default()
    }

    /// The input schema's top-level `required` names.
    pub fn required_names(&self) -> Vec<&str> {
        self.input_schema
            .as_ref()
            .map(crate::schema::required_names)
            .unwrap_or_default()
    }
}

/// Another value a tool's name may have, with where it is written.
#[derive(Clone, Debug)]
pub struct NameAlternative {
    pub name: Spanned<String>,
    pub file: Arc<SourceFile>,
    pub holes: Vec<(usize, usize)>,
}

/// A secondary location that explains a finding.
#[derive(Clone, Debug)]
pub struct Label {
    pub file: Arc<SourceFile>,
    pub span: Span,
    pub message: String,
}

/// Whether `--fix` applies a fix by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Applicability {
    /// Keeps what the tool accepts and does; applied by `--fix`.
    Safe,
    /// Changes the tool's contract (a name, what it accepts): applied only
    /// with `--unsafe-fixes`.
    Unsafe,
}

/// One replacement of a byte range of the finding's file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub span: Span,
    pub text: String,
}

/// A machine-applicable fix of a finding: edits of the finding's file.
#[derive(Clone, Debug)]
pub struct Fix {
    /// What the fix does, imperative (`Remove the invalid default`).
    pub title: String,
    pub applicability: Applicability,
    pub edits: Vec<Edit>,
    /// A tool rename: applied only when no tool of the same list has (or
    /// is renamed to) this name.
    pub new_name: Option<String>,
}

/// One finding of one rule.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub code: &'static str,
    pub severity: Severity,
    /// What was found, in one line.
    pub message: String,
    pub file: Arc<SourceFile>,
    pub span: Span,
    /// Short text under the primary span.
    pub label: String,
    pub secondary: Vec<Label>,
    /// Why it matters to the model.
    pub notes: Vec<String>,
    /// What to do instead.
    pub help: Option<String>,
    /// The tool the finding is about, if any; part of the fingerprint.
    pub tool: Option<String>,
    /// JSON Pointer of the primary node, relative to the tool definition
    /// when `tool` is set (`/name`, `/inputSchema/properties/x`), so that
    /// adding a tool above does not change it; part of the fingerprint.
    pub pointer: Option<String>,
    /// A fix `--fix` can apply (manifests only).
    pub fix: Option<Fix>,
}

impl Diagnostic {
    pub fn new(code: &'static str, severity: Severity, file: &Arc<SourceFile>, span: Span) -> Self {
        Diagnostic {
            code,
            severity,
            message: String::new(),
            file: Arc::clone(file),
            span,
            label: String::new(),
            secondary: Vec::new(),
            notes: Vec::new(),
            help: None,
            tool: None,
            pointer: None,
            fix: None,
        }
    }

    pub fn message(mut self, m: impl Into<String>) -> Self {
        self.message = m.into();
        self
    }

    pub fn label(mut self, l: impl Into<String>) -> Self {
        self.label = l.into();
        self
    }

    pub fn secondary(mut self, file: &Arc<SourceFile>, span: Span, m: impl Into<String>) -> Self {
        self.secondary.push(Label {
            file: Arc::clone(file),
            span,
            message: m.into(),
        });
        self
    }

    pub fn note(mut self, n: impl Into<String>) -> Self {
        self.notes.push(n.into());
        self
    }

    pub fn help(mut self, h: impl Into<String>) -> Self {
        self.help = Some(h.into());
        self
    }

    /// Attaches a fix, when there is one.
    pub fn fix(mut self, f: Option<Fix>) -> Self {
        self.fix = f;
        self
    }

    /// Marks the finding as being about `tool`'s name, and shows where a
    /// name defined elsewhere (a constant, a function) is used.
    pub fn for_tool_name(mut self, tool: &ToolDef) -> Self {
        self.tool = Some(tool.name.value.clone());
        self.pointer = Some(tool.name_pointer.clone());
        self.secondary.extend(tool.name_via.iter().cloned());
        self
    }

    /// Marks the finding as being about the node at `pointer` inside
    /// `tool`'s input schema.
    pub fn in_schema(mut self, tool: &ToolDef, pointer: &str) -> Self {
        self.tool = Some(tool.name.value.clone());
        self.pointer = Some(format!("{}{pointer}", tool.schema_pointer));
        self
    }

    /// Marks the finding as being about the node at `pointer` inside one
    /// of `tool`'s schemas.
    pub fn in_view(mut self, tool: &ToolDef, view: &SchemaView, pointer: &str) -> Self {
        self.tool = Some(tool.name.value.clone());
        self.pointer = Some(format!("{}{pointer}", view.pointer));
        self
    }

    /// The order findings are reported in: by file, position, then code.
    pub fn sort_key(&self) -> (&str, usize, usize, &str, &str) {
        (
            &self.file.display,
            self.span.start,
            self.span.end,
            self.code,
            &self.message,
        )
    }
}

/// Something toolaudit says about its own run: a skipped or unreadable file.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Notification {
    /// `error` means the run is incomplete and the exit code is 2.
    pub level: Severity,
    pub path: Option<String>,
    /// The 1-based line in `path` it is about, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    pub message: String,
}
