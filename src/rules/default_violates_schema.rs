//! S104 default-violates-schema: a `default`, `enum` member, `const` or
//! `examples` entry that fails the schema it belongs to.

use serde_json::Value;

use super::{Context, Rule};
use crate::fix;
use crate::model::{
    Applicability, Diagnostic, Fix, SchemaKind, SchemaRole, SchemaView, Severity, ToolDef,
};
use crate::rules::invalid_tool_name::short;
use crate::schema::{Dialect, walk};
use crate::syntax::Node;

pub struct DefaultViolatesSchema;

/// The keyword whose value(s) are checked, and the keywords left out of
/// the subschema they are checked against.
const CHECKS: &[(&str, &[&str], bool)] = &[
    // (keyword, removed before validating, the value is a list of entries)
    ("default", &["default"], false),
    ("const", &["const", "default"], false),
    ("enum", &["enum", "default"], true),
    ("examples", &["examples", "default"], true),
];

impl Rule for DefaultViolatesSchema {
    fn check_tool(&self, _cx: &Context, tool: &ToolDef, out: &mut Vec<Diagnostic>) {
        for view in tool.schemas() {
            check_schema(tool, &view, out);
        }
    }
}

fn check_schema(tool: &ToolDef, view: &SchemaView, out: &mut Vec<Diagnostic>) {
    let root = view.root;
    let noun = view.role.noun();
    let openapi = view.role == SchemaRole::Input && tool.schema_kind == SchemaKind::OpenApiSubset;
    let Ok(dialect) = Dialect::of(root) else {
        return; // S101 reports the dialect.
    };
    let root_json = root.to_json();
    walk(root, &mut |sub| {
        for (keyword, removed, list) in CHECKS {
            let Some(value) = sub.node.get(keyword) else {
                continue;
            };
            // Run-time values (inside `json!`) cannot be checked.
            if sub.node.has_opaque() {
                continue;
            }
            let Some(validator) =
                reduced_validator(openapi, &root_json, sub.node, removed, dialect)
            else {
                continue;
            };
            let entries: Vec<(String, &Node)> = if *list {
                let items = value.items().unwrap_or_default();
                items
                    .iter()
                    .enumerate()
                    .map(|(i, n)| (format!("/{keyword}/{i}"), n))
                    .collect()
            } else {
                vec![(format!("/{keyword}"), value)]
            };
            for (suffix, entry) in entries {
                // `"default": null` is the common way to write "no
                // default"; handlers treat it as absent.
                if *keyword == "default" && matches!(entry.kind, crate::syntax::NodeKind::Null) {
                    continue;
                }
                // `Infinity` is no JSON value: S101 reports it.
                if entry.has_non_finite() {
                    continue;
                }
                let instance = entry.to_json();
                // A `pattern` too costly to evaluate is no verdict on the
                // value: only real violations count.
                let Some(err) = validator
                    .iter_errors(&instance)
                    .find(|e| {
                        !matches!(
                            e.kind(),
                            jsonschema::error::ValidationErrorKind::BacktrackLimitExceeded { .. }
                        )
                    })
                    .map(|e| e.to_string())
                else {
                    continue;
                };
                let what = match *keyword {
                    "default" => "`default`".to_string(),
                    "const" => "`const`".to_string(),
                    "enum" => "`enum` member".to_string(),
                    _ => "`examples` entry".to_string(),
                };
                let shown = short(&instance.to_string());
                out.push(
                        Diagnostic::new("S104", Severity::Error, view.file, entry.span)
                            .in_view(tool, view, &format!("{}{suffix}", sub.pointer))
                            .message(format!(
                                "{what} `{shown}` in the {noun} of `{}` violates its own schema: {}",
                                short(&tool.name.value),
                                short(&err)
                            ))
                            .label("fails the schema it belongs to")
                            .note(match *keyword {
                                _ if view.role == SchemaRole::Output => "the output schema documents a result the server can never return validly: clients that validate `structuredContent` reject it, and models and code generators reading the schema learn a wrong shape",
                                "default" => "the handler silently runs with a value the schema calls invalid, and the model is told a default it could never send",
                                "enum" | "const" => "the model is offered a value that validation then rejects, or the handler receives a value of the wrong type",
                                _ => "the model learns the argument's shape from examples: it copies an invalid one",
                            })
                            .help(format!("change {what} to a value the schema accepts, or fix the schema"))
                            .fix(if *keyword == "default" { drop_default(view, sub.node) } else { None }),
                    );
            }
        }
    });
}

/// Removing a `default` that fails its schema is safe: what the tool
/// accepts does not change, and the model stops being told a wrong value.
fn drop_default(view: &SchemaView, node: &Node) -> Option<Fix> {
    let syntax = fix::Syntax::of(view.file)?;
    Some(Fix {
        title: "Remove the `default` that fails its own schema".into(),
        applicability: Applicability::Safe,
        edits: vec![fix::remove_member(
            &view.file.text,
            syntax,
            node,
            "default",
        )?],
        new_name: None,
    })
}

/// A validator for `sub` without the `removed` keywords, with the root's
/// definitions beside it so local `$ref`s still resolve.
fn reduced_validator(
    openapi: bool,
    root: &Value,
    sub: &Node,
    removed: &[&str],
    dialect: Dialect,
) -> Option<jsonschema::Validator> {
    let mut schema = sub.to_json();
    let obj = schema.as_object_mut()?;
    for k in removed {
        obj.remove(*k);
    }
    for defs in ["$defs", "definitions"] {
        if let Some(d) = root.get(defs) {
            obj.entry(defs).or_insert_with(|| d.clone());
        }
    }
    obj.remove("$schema");
    if openapi {
        lower_openapi_types(&mut schema);
    }
    // A subschema that cannot be compiled is S101's business.
    jsonschema::options()
        .with_draft(dialect.draft())
        .build(&schema)
        .ok()
}

/// Gemini's OpenAPI subset spells types in capitals (`STRING`); JSON Schema
/// validators need them in lower case.
fn lower_openapi_types(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for (k, child) in map.iter_mut() {
                if k == "type"
                    && let Value::String(s) = child
                {
                    *s = s.to_ascii_lowercase();
                } else {
                    lower_openapi_types(child);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(lower_openapi_types),
        _ => {}
    }
}
