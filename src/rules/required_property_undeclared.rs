//! S103 required-property-undeclared: `required` names a property that the
//! schema does not declare.

use std::collections::BTreeSet;

use super::{Context, Rule};
use crate::error::suggest;
use crate::model::{Diagnostic, SchemaRole, SchemaView, Severity, ToolDef};
use crate::rules::invalid_tool_name::short;
use crate::schema::{Place, Sub, has_type, node_at, walk};
use crate::syntax::Node;

pub struct RequiredPropertyUndeclared;

/// What a schema declares: property names, `patternProperties` patterns, and
/// whether something we cannot see (a remote `$ref`, a typed
/// `additionalProperties`) may declare more.
#[derive(Default)]
struct Declared<'a> {
    names: BTreeSet<&'a str>,
    patterns: Vec<regex::Regex>,
    unknown: bool,
}

impl<'a> Declared<'a> {
    /// Adds what `schema` declares, following local `$ref`s and the
    /// branches of `allOf`/`anyOf`/`oneOf` one level down.
    fn add(&mut self, root: &'a Node, schema: &'a Node, depth: usize) {
        if depth > 4 {
            self.unknown = true;
            return;
        }
        if let Some(props) = schema.get("properties") {
            match props.members() {
                Some(props) => self.names.extend(props.iter().map(|m| m.key.as_str())),
                // `"properties": common` in code: built at run time.
                None => self.unknown = true,
            }
        }
        if let Some(pats) = schema.get("patternProperties").and_then(Node::members) {
            for m in pats {
                match regex::Regex::new(&m.key) {
                    Ok(re) => self.patterns.push(re),
                    Err(_) => self.unknown = true,
                }
            }
        }
        if schema
            .get("additionalProperties")
            .is_some_and(Node::is_object)
        {
            self.unknown = true;
        }
        if let Some(r) = schema.get("$ref").and_then(Node::as_str) {
            match r.strip_prefix('#').and_then(|frag| node_at(root, frag)) {
                Some(target) => self.add(root, target, depth + 1),
                None => self.unknown = true,
            }
        }
        for kw in ["allOf", "anyOf", "oneOf"] {
            for branch in schema.get(kw).and_then(Node::items).unwrap_or_default() {
                self.add(root, branch, depth + 1);
            }
        }
    }

    fn covers(&self, name: &str) -> bool {
        self.unknown || self.names.contains(name) || self.patterns.iter().any(|p| p.is_match(name))
    }
}

/// The instance location a subschema applies to, from its pointer:
/// `/properties/a/anyOf/1` and `/oneOf/0/properties/a` both apply to `.a`.
/// `None` where it cannot be told (`$defs`, `propertyNames`, unknown
/// keywords).
fn instance_path(pointer: &str) -> Option<String> {
    let mut tokens = pointer.split('/').skip(1);
    let mut out = String::new();
    while let Some(t) = tokens.next() {
        match t {
            "properties" => {
                out.push('.');
                out.push_str(tokens.next()?);
            }
            "patternProperties" => {
                out.push_str(".~");
                out.push_str(tokens.next()?);
            }
            "additionalProperties" | "unevaluatedProperties" => out.push_str(".*"),
            "items" | "additionalItems" | "unevaluatedItems" | "contains" => out.push_str("[]"),
            "prefixItems" => {
                tokens.next()?;
                out.push_str("[]");
            }
            "allOf" | "anyOf" | "oneOf" | "dependentSchemas" => {
                tokens.next()?;
            }
            "not" | "if" | "then" | "else" => {}
            _ => return None,
        }
    }
    Some(out)
}

impl Rule for RequiredPropertyUndeclared {
    fn check_tool(&self, _cx: &Context, tool: &ToolDef, out: &mut Vec<Diagnostic>) {
        for view in tool.schemas() {
            check_schema(tool, &view, out);
        }
    }
}

fn check_schema(tool: &ToolDef, view: &SchemaView, out: &mut Vec<Diagnostic>) {
    let root = view.root;
    let noun = view.role.noun();
    // Every subschema by the instance location it applies to: a branch
    // of `oneOf` may require what the root, or a sibling branch,
    // declares for the same object (`{"properties": {"payload": {..}},
    // "oneOf": [{"properties": {"payload": {"required": ["id"]}}}]}`).
    let mut at_location: std::collections::HashMap<String, Vec<&Node>> =
        std::collections::HashMap::new();
    walk(root, &mut |sub: &Sub| {
        if let Some(path) = instance_path(&sub.pointer) {
            at_location.entry(path).or_default().push(sub.node);
        }
    });
    walk(root, &mut |sub: &Sub| {
        let Some(required) = sub.node.get("required").and_then(Node::items) else {
            return;
        };
        // `required` only constrains objects; on an array or a string
        // schema it is ignored, whatever it names.
        if sub.node.get("type").is_some() && !has_type(sub.node, "object") {
            return;
        }
        let mut declared = Declared::default();
        declared.add(root, sub.node, 0);
        // `{"properties": {…}, "anyOf": [{"required": ["a"]}, …]}`: a branch
        // may require what its parent declares.
        if matches!(sub.place, Place::Alternative | Place::Constraint)
            && let Some(parent) = sub.parent
        {
            declared.add(root, parent, 0);
        }
        for node in instance_path(&sub.pointer)
            .and_then(|p| at_location.get(&p))
            .into_iter()
            .flatten()
        {
            declared.add(root, node, 0);
        }
        for (i, item) in required.iter().enumerate() {
            let Some(name) = item.as_str() else { continue };
            if declared.covers(name) {
                continue;
            }
            let where_ = if sub.pointer.is_empty() {
                format!("the {noun} of `{}`", short(&tool.name.value))
            } else {
                format!(
                    "`{}` in the {noun} of `{}`",
                    sub.pointer,
                    short(&tool.name.value)
                )
            };
            let help = match suggest(name, declared.names.iter().copied()) {
                Some(s) => format!(
                    "did you mean `{s}`? Otherwise declare `{name}` under `properties` with a type and a description, or remove it from `required`"
                ),
                None => format!(
                    "declare `{name}` under `properties` with a type and a description, or remove it from `required`"
                ),
            };
            out.push(
                    Diagnostic::new("S103", Severity::Error, view.file, item.span)
                        .in_view(tool, view, &format!("{}/required/{i}", sub.pointer))
                        .message(format!("`required` names `{}`, which {where_} does not declare", short(name)))
                        .label("not in `properties`")
                        .note(match view.role {
                            SchemaRole::Input => format!(
                                "the model is told it must send `{}` but not what it is: it guesses a value, or every call fails validation",
                                short(name)
                            ),
                            SchemaRole::Output => format!(
                                "every result must carry `{}`, which the schema never describes: clients that validate `structuredContent` reject results without it, and code generated from the schema has no such field",
                                short(name)
                            ),
                        })
                        .help(help),
                );
        }
    });
}
