//! Record types of a Python file that pydantic validates tool arguments
//! into: pydantic models (`class Req(BaseModel)`, and models derived from
//! one in the same file) and dataclasses, with their fields, wire names
//! (`Field(alias=..)`, an `alias_generator` pydantic ships) and what they do
//! with keys they do not declare (`extra="forbid"` refuses them, `"allow"`
//! keeps them, the default ignores them).
//!
//! A record whose wire names cannot be known (a custom alias generator) or
//! whose base class lives in another module is not read: what it accepts
//! is not known here.

use tree_sitter::Node as TsNode;

use super::{span, string_value, text};
use crate::model::code::RecordKind;
use crate::source::Span;

const MAX_BASES: usize = 8;

/// One record type.
#[derive(Clone, Debug)]
pub struct Record<'t> {
    pub name: String,
    pub name_span: Span,
    pub kind: RecordKind,
    /// `extra="forbid"`.
    pub forbid: bool,
    /// `extra="allow"`: unknown keys are kept.
    pub allow: bool,
    pub fields: Vec<RecordField<'t>>,
}

#[derive(Clone, Debug)]
pub struct RecordField<'t> {
    pub name: String,
    /// The key on the wire.
    pub wire: String,
    /// The other key pydantic accepts (`populate_by_name`).
    pub aliases: Vec<String>,
    pub span: Span,
    pub ty: Option<TsNode<'t>>,
    /// The default value (not a `Field(..)` call), when it is written.
    pub default: Option<TsNode<'t>>,
    /// `Field(..)`: its arguments hold the description and bounds.
    pub field_call: Option<TsNode<'t>>,
    /// Has a default: may be left out.
    pub optional: bool,
}

/// The record named `name` at the top level of the module `at` is in.
pub fn find<'t>(at: TsNode<'t>, name: &str, src: &str) -> Option<Record<'t>> {
    let mut root = at;
    while let Some(p) = root.parent() {
        root = p;
    }
    record(root, name, src, 0)
}

/// Every record at the top level of the module.
pub fn all<'t>(root: TsNode<'t>, src: &str) -> Vec<Record<'t>> {
    let mut c = root.walk();
    root.named_children(&mut c)
        .filter_map(|n| class_of(n).map(|(class, _)| class))
        .filter_map(|class| class.child_by_field_name("name"))
        .filter_map(|name| record(root, text(name, src), src, 0))
        .collect()
}

/// A top-level statement as a class, with its decorators.
fn class_of(n: TsNode) -> Option<(TsNode, Vec<TsNode>)> {
    match n.kind() {
        "class_definition" => Some((n, Vec::new())),
        "decorated_definition" => {
            let def = n.child_by_field_name("definition")?;
            let mut c = n.walk();
            let decorators = n
                .named_children(&mut c)
                .filter(|d| d.kind() == "decorator")
                .collect();
            (def.kind() == "class_definition").then_some((def, decorators))
        }
        _ => None,
    }
}

fn record<'t>(root: TsNode<'t>, name: &str, src: &str, depth: usize) -> Option<Record<'t>> {
    if depth > MAX_BASES {
        return None;
    }
    let mut c = root.walk();
    let (class, decorators) =
        root.named_children(&mut c)
            .filter_map(class_of)
            .find(|(cl, _)| {
                cl.child_by_field_name("name")
                    .is_some_and(|n| text(n, src) == name)
            })?;
    let name_node = class.child_by_field_name("name")?;
    let body = class.child_by_field_name("body")?;
    let dataclass = decorators.iter().find(|d| {
        let t = text(**d, src).trim_start_matches('@');
        let callee = t.split('(').next().unwrap_or(t).trim();
        callee == "dataclass" || callee.ends_with(".dataclass")
    });
    let mut rec = Record {
        name: name.to_string(),
        name_span: span(name_node),
        kind: RecordKind::Pydantic,
        forbid: false,
        allow: false,
        fields: Vec::new(),
    };
    let mut alias_gen: Option<&str> = None;
    let mut populate_by_name = false;
    if let Some(d) = dataclass {
        rec.kind = RecordKind::Dataclass;
        // `@pydantic.dataclasses.dataclass(config=ConfigDict(extra="forbid"))`
        apply_config(
            text(*d, src),
            &mut rec,
            &mut alias_gen,
            &mut populate_by_name,
        );
    } else {
        let bases = class.child_by_field_name("superclasses")?;
        let mut c = bases.walk();
        let mut is_model = false;
        for b in bases.named_children(&mut c) {
            match b.kind() {
                "identifier" | "attribute" => {
                    let base = text(b, src);
                    let last = base.rsplit('.').next().unwrap_or(base);
                    if last == "BaseModel" {
                        is_model = true;
                    } else if let Some(parent) = record(root, base, src, depth + 1) {
                        is_model = parent.kind == RecordKind::Pydantic;
                        rec.forbid = parent.forbid;
                        rec.allow = parent.allow;
                        rec.fields = parent.fields;
                    } else if !matches!(last, "Generic" | "ABC") {
                        // A base from another module: its fields and
                        // settings are not known.
                        return None;
                    }
                }
                // `class Req(BaseModel, extra="forbid")`
                "keyword_argument" => {
                    apply_config(
                        text(b, src),
                        &mut rec,
                        &mut alias_gen,
                        &mut populate_by_name,
                    );
                }
                _ => {}
            }
        }
        if !is_model {
            return None;
        }
    }
    let mut c = body.walk();
    for stmt in body.named_children(&mut c) {
        match stmt.kind() {
            // `class Config: extra = "forbid"` (pydantic v1)
            "class_definition"
                if stmt
                    .child_by_field_name("name")
                    .is_some_and(|n| text(n, src) == "Config") =>
            {
                apply_config(
                    text(stmt, src),
                    &mut rec,
                    &mut alias_gen,
                    &mut populate_by_name,
                );
            }
            "expression_statement" => {
                let Some(a) = stmt.named_child(0).filter(|a| a.kind() == "assignment") else {
                    continue;
                };
                let Some(left) = a
                    .child_by_field_name("left")
                    .filter(|l| l.kind() == "identifier")
                else {
                    continue;
                };
                let fname = text(left, src);
                if fname == "model_config" {
                    if let Some(r) = a.child_by_field_name("right") {
                        apply_config(
                            text(r, src),
                            &mut rec,
                            &mut alias_gen,
                            &mut populate_by_name,
                        );
                    }
                    continue;
                }
                let Some(ty) = a.child_by_field_name("type") else {
                    continue; // a class attribute, not a field
                };
                if fname.starts_with('_') || text(ty, src).contains("ClassVar") {
                    continue;
                }
                let right = a.child_by_field_name("right");
                let call = right.filter(|r| {
                    r.kind() == "call" && matches!(super::callee_name(*r, src), "Field" | "field")
                });
                let (default, optional, alias) = match call {
                    Some(call) => field_call(call, src),
                    None => (right, right.is_some(), None),
                };
                let mut f = RecordField {
                    name: fname.to_string(),
                    wire: fname.to_string(),
                    aliases: Vec::new(),
                    span: span(left),
                    ty: Some(ty),
                    default,
                    field_call: call,
                    optional,
                };
                if let Some(alias) = alias {
                    f.wire = alias;
                } else if let Some(g) = alias_gen {
                    f.wire = generated_alias(fname, g)?;
                }
                if populate_by_name && f.wire != f.name {
                    f.aliases.push(f.name.clone());
                }
                // A field redefined in the subclass replaces the base's.
                rec.fields.retain(|o| o.name != f.name);
                rec.fields.push(f);
            }
            _ => {}
        }
    }
    Some(rec)
}

/// Reads `extra`, `alias_generator` and `populate_by_name` from a config's
/// text (`ConfigDict(extra="forbid")`, `{"extra": "forbid"}`, a v1
/// `class Config:` body, `Extra.forbid`).
fn apply_config<'a>(
    t: &'a str,
    rec: &mut Record,
    alias_gen: &mut Option<&'a str>,
    by_name: &mut bool,
) {
    let squeezed: String = t.chars().filter(|c| !c.is_whitespace()).collect();
    let says = |v: &str| {
        squeezed.contains(&format!("extra=\"{v}\""))
            || squeezed.contains(&format!("extra='{v}'"))
            || squeezed.contains(&format!("\"extra\":\"{v}\""))
            || squeezed.contains(&format!("'extra':'{v}'"))
            || squeezed.contains(&format!("Extra.{v}"))
    };
    if says("forbid") {
        rec.forbid = true;
    } else if says("allow") {
        rec.allow = true;
    } else if says("ignore") {
        rec.forbid = false;
        rec.allow = false;
    }
    if let Some(i) = t.find("alias_generator") {
        let rest = t[i + "alias_generator".len()..].trim_start();
        let rest = rest.trim_start_matches(['=', ':', '"', '\'']).trim_start();
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
            .unwrap_or(rest.len());
        *alias_gen = Some(&rest[..end]);
    }
    if squeezed.contains("populate_by_name=True")
        || squeezed.contains("validate_by_name=True")
        || squeezed.contains("allow_population_by_field_name=True")
    {
        *by_name = true;
    }
}

/// `Field(10, alias="k")` / `field(default=..)`: the default, whether the
/// field may be left out, and its alias.
fn field_call<'t>(call: TsNode<'t>, src: &str) -> (Option<TsNode<'t>>, bool, Option<String>) {
    let Some(args) = call.child_by_field_name("arguments") else {
        return (None, false, None);
    };
    let mut default = None;
    let mut optional = false;
    let mut alias = None;
    let mut c = args.walk();
    for (i, a) in args.named_children(&mut c).enumerate() {
        if a.kind() == "keyword_argument" {
            let (Some(k), Some(v)) = (
                a.child_by_field_name("name"),
                a.child_by_field_name("value"),
            ) else {
                continue;
            };
            match text(k, src) {
                "default" => {
                    optional = v.kind() != "ellipsis";
                    default = optional.then_some(v);
                }
                "default_factory" => optional = true,
                "alias" | "validation_alias" => alias = string_value(v, src).or(alias),
                _ => {}
            }
        } else if i == 0 {
            optional = a.kind() != "ellipsis";
            default = optional.then_some(a);
        }
    }
    (default, optional, alias)
}

/// The wire name pydantic's own alias generators give a field.
fn generated_alias(name: &str, generator: &str) -> Option<String> {
    let last = generator.rsplit('.').next().unwrap_or(generator);
    let style = match last {
        "to_camel" => "camelCase",
        "to_pascal" => "PascalCase",
        "to_snake" => "snake_case",
        _ => return None,
    };
    Some(crate::model::code::rename(name, Some(style)))
}
