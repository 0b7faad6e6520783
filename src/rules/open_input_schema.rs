//! M101 open-input-schema: an object schema that lets undeclared keys
//! through, so a misspelled argument is dropped without a word.

use super::{Context, Rule};
use crate::fix;
use crate::model::{Applicability, Diagnostic, Edit, Fix, SchemaKind, Severity, ToolDef};
use crate::rules::invalid_tool_name::short;
use crate::schema::{Place, is_object_schema, required_names, walk};
use crate::source::Span;
use crate::syntax::Node;

pub struct OpenInputSchema;

impl Rule for OpenInputSchema {
    fn check_tool(&self, cx: &Context, tool: &ToolDef, out: &mut Vec<Diagnostic>) {
        let Some(root) = &tool.input_schema else {
            return;
        };
        // A schema derived from a Rust type, or one whose handler
        // deserialises into a type, is as open as the type: M102 reports
        // the type, where the fix goes.
        if tool.schema_derived || tool.intake.as_ref().is_some_and(|i| i.typed) {
            return;
        }
        let checked: &[String] = tool.intake.as_ref().map_or(&[], |i| &i.checked_keys);
        // A strict OpenAI tool without `additionalProperties: false` is
        // rejected outright; S105 reports that as an error.
        let openai_format = tool.format.is_openai();
        if tool.strict == Some(true) && openai_format {
            return;
        }
        let gemini = tool.schema_kind == SchemaKind::OpenApiSubset;
        let name = short(&tool.name.value);
        walk(root, &mut |sub| {
            let node = sub.node;
            // `allOf` branches, `not`, `if`… constrain their parent's object;
            // closing them would reject the parent's other properties.
            if sub.place == Place::Constraint || !is_object_schema(node) {
                return;
            }
            let closed = ["additionalProperties", "unevaluatedProperties"]
                .iter()
                .any(|k| {
                    // `false` closes the object; a schema makes it a typed map on purpose.
                    node.get(k)
                        .is_some_and(|v| v.as_bool() == Some(false) || v.is_object())
                });
            // At the root, keys the handler insists on are loud when
            // misspelt, like required ones.
            let loud: &[String] = if sub.pointer.is_empty() { checked } else { &[] };
            if closed || !has_optional_property(node, loud) {
                return;
            }
            let explicit_true = node.get("additionalProperties");
            let span = match explicit_true {
                Some(v) => v.span,
                None => type_member_span(node),
            };
            let pointer = match explicit_true {
                Some(_) => format!("{}/additionalProperties", sub.pointer),
                None => sub.pointer.clone(),
            };
            let what = if sub.pointer.is_empty() {
                format!("input schema of `{name}`")
            } else {
                format!(
                    "object schema at `{}` in the input schema of `{name}`",
                    sub.pointer
                )
            };
            let mut d = Diagnostic::new("M101", Severity::Warning, &tool.schema_file, span)
                .in_schema(tool, &pointer)
                .message(format!("{what} accepts properties it does not declare"))
                .label(if explicit_true.is_some() {
                    "`additionalProperties` allows any key"
                } else {
                    "no `\"additionalProperties\": false`"
                })
                .note(format!(
                    "an unknown or misspelled argument ({}) passes validation and the handler \
                     drops it: the call runs with a default and the model is never told its \
                     argument was ignored",
                    misspelling(node, loud)
                        .map(|(bad, good)| format!("`{bad}` for `{good}`"))
                        .unwrap_or_else(|| "one the schema does not declare".into())
                ));
            d = if gemini && cx.targets.iter().any(|t| t.id == "gemini") {
                d.note("the Gemini API rejects `additionalProperties` in `parameters`, so the schema cannot say it")
                    .help("reject unknown keys in the tool's handler and return an error that names them")
            } else {
                d.help("add `\"additionalProperties\": false` to this object, and reject unknown keys in the handler too")
                    .fix(close_object(tool, node, explicit_true))
            };
            out.push(d);
        });
    }
}

/// `"additionalProperties": false` on the object: unsafe, since arguments
/// the schema does not declare are refused from then on.
fn close_object(tool: &ToolDef, node: &Node, explicit: Option<&Node>) -> Option<Fix> {
    let file = &tool.schema_file;
    let syntax = fix::Syntax::of(file)?;
    let edit = match explicit {
        Some(v) => Edit {
            span: v.span,
            text: "false".into(),
        },
        None => fix::insert_member(&file.text, syntax, node, "additionalProperties", "false")?,
    };
    Some(Fix {
        title: "Add `\"additionalProperties\": false`".into(),
        applicability: Applicability::Unsafe,
        edits: vec![edit],
        new_name: None,
    })
}

/// A plausible misspelling of the object's first optional property, for
/// the note: `timeoutSeconds` for `timeout_seconds`, `timeout_s` for
/// `timeoutS`, `Limit` for `limit`.
fn misspelling(node: &Node, loud: &[String]) -> Option<(String, String)> {
    let required = required_names(node);
    let name = node
        .get("properties")
        .and_then(Node::members)?
        .iter()
        .map(|m| m.key.as_str())
        .find(|k| !required.contains(k) && !loud.iter().any(|l| l == k))?;
    let bad = if name.contains('_') {
        let mut out = String::new();
        let mut upper = false;
        for c in name.chars() {
            if c == '_' {
                upper = true;
            } else if upper {
                out.extend(c.to_uppercase());
                upper = false;
            } else {
                out.push(c);
            }
        }
        out
    } else if !name.chars().any(char::is_lowercase) {
        name.to_lowercase()
    } else if name.chars().skip(1).any(char::is_uppercase) {
        let mut out = String::new();
        for c in name.chars() {
            if c.is_uppercase() {
                out.push('_');
                out.extend(c.to_lowercase());
            } else {
                out.push(c);
            }
        }
        out
    } else {
        let mut chars = name.chars();
        let first = chars.next()?;
        first.to_uppercase().chain(chars).collect()
    };
    (bad != name).then(|| (bad, name.to_string()))
}

/// The `"type": "object"` member, or the object's first byte.
fn type_member_span(node: &Node) -> Span {
    match node.get_member("type") {
        Some(m) => Span::new(m.key_span.start, m.value.span.end),
        None => node.span.start_only(),
    }
}

/// Does the object declare a property it does not require? Only then can a
/// misspelt key be dropped silently: with no properties there is nothing to
/// misspell, and a misspelt required key fails as a missing one.
fn has_optional_property(node: &Node, loud: &[String]) -> bool {
    let Some(props) = node.get("properties").and_then(Node::members) else {
        return false;
    };
    let required = required_names(node);
    props
        .iter()
        .any(|m| !required.contains(&m.key.as_str()) && !loud.contains(&m.key))
}
