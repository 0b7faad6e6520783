//! The context a tool definition costs: an offline estimate of the tokens
//! a model reads for each tool (its name, description and input schema as
//! compact JSON), without shipping a provider's tokeniser.
//!
//! The estimate splits text the way byte-pair tokenisers pre-tokenise it
//! (letter runs with their leading space, digit groups, punctuation runs,
//! line breaks, CJK characters) and charges each piece by its length.
//! Calibrated against OpenAI's `o200k_base` on the tuning half of run 28's
//! published tool lists (1,125 tools) and measured on its held-out half
//! (413 tools; docs/precision.md): see [`ACCURACY`].
//!
//! Not counted: the provider's own framing of a tool list (Anthropic's
//! tool-use system prompt, about 346 tokens per request on Claude 4
//! models; OpenAI's few tokens per function and property).

use crate::model::ToolDef;
use crate::syntax::Node;

/// How close the estimate is, as documented for users.
pub const ACCURACY: &str = "estimated offline; against OpenAI's o200k_base on 413 held-out published tools: +4.6 % over all, 87 % of tools within 10 %, all within 20 %; Claude's tokeniser is not public (its count_tokens endpoint is exact)";

mod estimate;

/// S109's default threshold per tool list: Claude Code warns when the MCP
/// tools it loads take more than 25,000 tokens of context (`Large MCP
/// tools context (~44,400 tokens > 25,000)`).
pub const DEFAULT_GROUP_BUDGET: usize = 25_000;

pub use estimate::tokens;

/// What the model reads of a tool: `{"name", "description",
/// "input_schema"}` as compact JSON.
pub fn definition_text(tool: &ToolDef) -> String {
    let mut doc = serde_json::Map::new();
    doc.insert("name".into(), tool.name.value.clone().into());
    if let Some(d) = &tool.description {
        doc.insert("description".into(), d.value.clone().into());
    }
    if let Some(s) = &tool.input_schema {
        doc.insert("input_schema".into(), Node::to_json(s));
    }
    serde_json::Value::Object(doc).to_string()
}

/// Estimated tokens of one tool definition.
pub fn tool_tokens(tool: &ToolDef) -> usize {
    tokens(&definition_text(tool))
}
