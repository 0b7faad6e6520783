//! M103 undeclared-argument-read: a handler reads an argument its tool's
//! input schema does not declare, so the model never sends it (or sends it
//! under the declared name, which nobody reads).

use super::{Context, Rule};
use crate::error::suggest;
use crate::link::Unit;
use crate::model::{Diagnostic, Severity, ToolDef};
use crate::syntax::{Node, NodeKind};

pub struct UndeclaredArgumentRead;

impl Rule for UndeclaredArgumentRead {
    fn check_unit(&self, _cx: &Context, k: &Unit, out: &mut Vec<Diagnostic>) {
        for (ti, t) in k.tools.iter().enumerate() {
            let Some(declared) = declared_properties(&t.def) else {
                continue;
            };
            // A dispatcher's code serves every tool: its reads are no one's.
            if t.handler.is_none_or(|h| k.is_dispatcher(h)) {
                continue;
            }
            let (reads, _) = k.reads_of(ti);
            for (f, read) in reads {
                if declared.contains(&read.key) || read.key == "_meta" {
                    continue;
                }
                // A helper several tools share (`CommonOpts::from_args(args)`)
                // reads the options of all of them; a key another of those
                // tools declares is that tool's, not one this tool lacks.
                if Some(f) != t.handler && declared_by_another(k, ti, f, &read.key) {
                    continue;
                }
                out.push(diag(
                    &t.def,
                    &declared,
                    &read.key,
                    k.file(f.file),
                    read.span,
                    "read here",
                ));
            }
            // Keys of an object argument whose properties the schema lists
            // (`updates: {type: object, properties: {x, y}}`).
            for (f, read) in k.nested_reads_of(ti) {
                let Some(parent) = read.parent.as_deref() else {
                    continue;
                };
                let Some(declared) = nested_properties(&t.def, parent) else {
                    continue;
                };
                if declared.contains(&read.key) {
                    continue;
                }
                out.push(diag(
                    &t.def,
                    &declared,
                    &format!("{parent}.{}", read.key),
                    k.file(f.file),
                    read.span,
                    "read here",
                ));
            }
            // A hand-written schema beside a struct the handler deserialises
            // into: every field the schema does not declare.
            if t.def.schema_derived {
                continue;
            }
            let Some(s_ref) = t.args else { continue };
            let s = k.structure(s_ref);
            for field in s.fields.iter().filter(|f| !f.skip && !f.flatten) {
                let names = std::iter::once(&field.wire).chain(&field.aliases);
                if names.clone().any(|n| declared.contains(n)) {
                    continue;
                }
                // An optional field the schema leaves out may be hidden on
                // purpose (a shared API type); it matters when every call
                // fails without it, or when the schema spells it otherwise.
                if field.optional && near_miss(&field.wire, &declared).is_none() {
                    continue;
                }
                out.push(diag(
                    &t.def,
                    &declared,
                    &field.wire,
                    k.file(s_ref.0),
                    field.span,
                    &format!("`{}.{}` reads it", s.name, field.name),
                ));
            }
        }
    }
}

/// Does another tool whose handler reaches `f` declare `key`?
fn declared_by_another(k: &Unit, tool: usize, f: crate::link::FnRef, key: &str) -> bool {
    k.surface.get(&f).is_some_and(|reach| {
        reach.tools.iter().any(|&o| {
            o != tool
                && k.tools
                    .get(o)
                    .and_then(|other| declared_properties(&other.def))
                    .is_some_and(|d| d.iter().any(|p| p == key))
        })
    })
}

/// The properties of the object under top-level property `parent`, when
/// that object lists them and admits no others it does not name (no
/// `additionalProperties` other than `false`, no pattern properties, no
/// composition).
fn nested_properties(t: &ToolDef, parent: &str) -> Option<Vec<String>> {
    let sub = t.input_schema.as_ref()?.get("properties")?.get(parent)?;
    if sub
        .get("additionalProperties")
        .is_some_and(|a| a.as_bool() != Some(false))
    {
        return None;
    }
    let props = properties_of(sub)?;
    (!props.is_empty()).then_some(props)
}

/// The top-level properties of a tool's input schema, when the schema
/// declares them all (no run-time parts, no pattern properties).
pub(crate) fn declared_properties(t: &ToolDef) -> Option<Vec<String>> {
    properties_of(t.input_schema.as_ref()?)
}

fn properties_of(schema: &Node) -> Option<Vec<String>> {
    if schema.get("patternProperties").is_some()
        || schema
            .get("additionalProperties")
            .is_some_and(Node::is_object)
        || ["allOf", "anyOf", "oneOf", "$ref"]
            .iter()
            .any(|k| schema.get(k).is_some())
    {
        return None;
    }
    let props = schema.get("properties")?;
    if matches!(props.kind, NodeKind::Opaque(_)) {
        return None;
    }
    let members = props.members()?;
    if members.iter().any(|m| {
        matches!(m.value.kind, NodeKind::Opaque(_))
            && m.key.contains(|c: char| !c.is_alphanumeric() && c != '_')
    }) {
        return None;
    }
    Some(members.iter().map(|m| m.key.clone()).collect())
}

fn diag(
    t: &ToolDef,
    declared: &[String],
    key: &str,
    file: &std::sync::Arc<crate::source::SourceFile>,
    span: crate::source::Span,
    label: &str,
) -> Diagnostic {
    // `changes.strokeWidth`: the near miss among `changes`' properties.
    let near = near_miss(key.rsplit('.').next().unwrap_or(key), declared);
    let mut d = Diagnostic::new("M103", Severity::Warning, file, span)
        .message(format!(
            "handler of `{}` reads `{key}`, which its input schema does not declare",
            t.name.value
        ))
        .label(label.to_string())
        .note(format!(
            "the model only sends what the schema declares: `{key}` is never set{}",
            near.as_ref().map_or_else(String::new, |n| format!(
                ", and the `{n}` the model does send is never read"
            ))
        ))
        .help(match &near {
            Some(n) => format!("did you mean `{n}`? Read the declared name, or declare `{key}` in the schema"),
            None => format!("declare `{key}` in the input schema with a type and a description, or stop reading it"),
        });
    d.tool = Some(t.name.value.clone());
    d
}

/// A declared name that differs from `key` only in case and punctuation
/// (`TimeoutSeconds` / `timeout_seconds`), else the nearest by spelling.
fn near_miss(key: &str, declared: &[String]) -> Option<String> {
    let fold = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let k = fold(key);
    declared
        .iter()
        .find(|d| fold(d) == k)
        .cloned()
        .or_else(|| suggest(key, declared.iter().map(String::as_str)))
}
