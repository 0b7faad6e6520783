//! S106 missing-description: a tool without a description; with the rule
//! selected by its code, also parameters without one.

use super::{Context, Rule};
use crate::model::{Diagnostic, Severity, ToolDef};
use crate::rules::invalid_tool_name::short;
use crate::syntax::Node;

pub struct MissingDescription;

impl Rule for MissingDescription {
    fn check_tool(&self, cx: &Context, tool: &ToolDef, out: &mut Vec<Diagnostic>) {
        let name = short(&tool.name.value);
        let blank = tool
            .description
            .as_ref()
            .is_none_or(|d| d.value.trim().is_empty());
        // A tool documented in its input schema's own `description` (a
        // schemars doc comment) is documented: the model reads the schema.
        let in_schema = tool
            .input_schema
            .as_ref()
            .and_then(|s| s.get("description"))
            .and_then(|d| d.as_str())
            .is_some_and(|d| !d.trim().is_empty());
        // LangChain refuses to build a tool with neither a description nor
        // a docstring (`ValueError: Function must have a docstring if
        // description not provided`): the failure is loud, at import.
        // Its parameters are never offered either.
        if tool.description.is_none() && tool.group.ends_with("#langchain") {
            return;
        }
        if blank && !tool.description_dynamic && !(in_schema && tool.description.is_none()) {
            let empty_string = tool.description.is_some();
            // Bedrock rejects a zero-length description outright; elsewhere
            // it is a tool the model has to guess about.
            let zero_length = tool
                .description
                .as_ref()
                .is_some_and(|d| d.value.is_empty());
            let bedrock = zero_length && cx.targets.iter().any(|t| t.id == "bedrock");
            // The description is in the tool's file; without one, point at
            // the name, which may be written elsewhere (a constant).
            let (severity, file, span) = match &tool.description {
                Some(d) => (
                    if bedrock {
                        Severity::Error
                    } else {
                        Severity::Warning
                    },
                    &tool.file,
                    d.span,
                ),
                None => (Severity::Warning, &tool.name_file, tool.name.span),
            };
            let mut d = Diagnostic::new("S106", severity, file, span)
                .for_tool_name(tool)
                .message(if empty_string {
                    format!("tool `{name}` has an empty description")
                } else {
                    format!("tool `{name}` has no description")
                })
                .label(if empty_string { "empty description" } else { "tool without a description" })
                .note("the description is the model's only documentation of what the tool does and when to call it; without one the model guesses from the name")
                .help("add a `description` that says what the tool does, when to use it and what it returns");
            if bedrock {
                d = d.note("Bedrock rejects the request: `toolSpec.description` must have length greater than or equal to 1");
            }
            out.push(d);
        }
        // Parameters are checked only on request: many are self-explanatory
        // (of a blind held-out sample of required ones, 1 in 15 was worth a
        // note).
        if !cx.explicit.contains(&"S106") {
            return;
        }
        let Some(schema) = tool.input_schema.as_ref() else {
            return;
        };
        let Some(props) = schema.get("properties").and_then(Node::members) else {
            return;
        };
        let required = crate::schema::required_names(schema);
        for m in props {
            let is_required = required.contains(&m.key.as_str());
            let documented = ["description", "title"].iter().any(|k| {
                m.value
                    .get(k)
                    .and_then(Node::as_str)
                    .is_some_and(|d| !d.trim().is_empty())
            });
            // A `$ref` carries its description at the definition.
            if documented || m.value.get("$ref").is_some() {
                continue;
            }
            out.push(
                Diagnostic::new("S106", Severity::Note, &tool.schema_file, m.key_span)
                    .in_schema(tool, &format!("/properties/{}", crate::syntax::pointer_token(&m.key)))
                    .message(format!(
                        "{} parameter `{}` of tool `{name}` has no description",
                        if is_required { "required" } else { "optional" },
                        short(&m.key)
                    ))
                    .label("parameter without a description")
                    .note("the model fills the parameter from its name alone: units, formats and accepted values are guesses")
                    .help("add a `description` with the meaning, unit or format, and an example"),
            );
        }
    }
}
