//! JSON Schema helpers shared by the schema-contract (S) and M1 rules:
//! which dialect a schema declares, every subschema with its JSON Pointer,
//! and the way back from a pointer to the span it was written at.

use crate::syntax::{Node, NodeKind, pointer_token};

/// A JSON Schema dialect toolaudit can validate against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Draft4,
    Draft6,
    Draft7,
    Draft201909,
    Draft202012,
}

impl Dialect {
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Draft4 => "draft-04",
            Dialect::Draft6 => "draft-06",
            Dialect::Draft7 => "draft-07",
            Dialect::Draft201909 => "2019-09",
            Dialect::Draft202012 => "2020-12",
        }
    }

    /// The dialect `$schema` names; 2020-12 (MCP's default) when absent.
    /// `Err` carries a `$schema` value that names no known dialect.
    pub fn of(schema: &Node) -> Result<Dialect, String> {
        let Some(uri) = schema.get("$schema").and_then(Node::as_str) else {
            return Ok(Dialect::Draft202012);
        };
        let u = uri.trim_end_matches('#').trim_end_matches('/');
        let u = u
            .strip_prefix("https://")
            .or_else(|| u.strip_prefix("http://"))
            .unwrap_or(u);
        Ok(match u {
            "json-schema.org/draft-04/schema" => Dialect::Draft4,
            "json-schema.org/draft-06/schema" => Dialect::Draft6,
            "json-schema.org/draft-07/schema" => Dialect::Draft7,
            "json-schema.org/draft/2019-09/schema" => Dialect::Draft201909,
            "json-schema.org/draft/2020-12/schema" => Dialect::Draft202012,
            _ => return Err(uri.to_string()),
        })
    }

    pub fn draft(self) -> jsonschema::Draft {
        match self {
            Dialect::Draft4 => jsonschema::Draft::Draft4,
            Dialect::Draft6 => jsonschema::Draft::Draft6,
            Dialect::Draft7 => jsonschema::Draft::Draft7,
            Dialect::Draft201909 => jsonschema::Draft::Draft201909,
            Dialect::Draft202012 => jsonschema::Draft::Draft202012,
        }
    }
}

/// Where a subschema sits relative to its parent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    Root,
    /// A value of `properties`, `patternProperties`, `$defs`, `definitions`,
    /// `dependentSchemas`.
    Member,
    /// `items`, `prefixItems`, `additionalItems`, `contains`,
    /// `additionalProperties`, `unevaluated*`.
    Value,
    /// A branch of `anyOf` / `oneOf`.
    Alternative,
    /// A branch of `allOf`, or `if` / `then` / `else` / `not` /
    /// `propertyNames`: constraints on the parent's own instance.
    Constraint,
}

pub struct Sub<'a> {
    pub node: &'a Node,
    pub pointer: String,
    pub place: Place,
    /// The keyword that holds this subschema (`properties`, `items`, …).
    pub keyword: &'a str,
    /// The subschema that holds this one.
    pub parent: Option<&'a Node>,
}

const SINGLE: &[(&str, Place)] = &[
    ("additionalProperties", Place::Value),
    ("unevaluatedProperties", Place::Value),
    ("items", Place::Value),
    ("additionalItems", Place::Value),
    ("unevaluatedItems", Place::Value),
    ("contains", Place::Value),
    ("propertyNames", Place::Constraint),
    ("not", Place::Constraint),
    ("if", Place::Constraint),
    ("then", Place::Constraint),
    ("else", Place::Constraint),
];
const MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];
const LISTS: &[(&str, Place)] = &[
    ("anyOf", Place::Alternative),
    ("oneOf", Place::Alternative),
    ("allOf", Place::Constraint),
    ("prefixItems", Place::Value),
    ("items", Place::Value),
];

/// Calls `f` for the root and every subschema below it, parents first.
/// Values of `default`, `enum`, `const` and `examples` are data, not
/// schemas, and are not entered.
pub fn walk<'a>(root: &'a Node, f: &mut dyn FnMut(&Sub<'a>)) {
    visit(
        &Sub {
            node: root,
            pointer: String::new(),
            place: Place::Root,
            keyword: "",
            parent: None,
        },
        f,
    );
}

fn visit<'a>(sub: &Sub<'a>, f: &mut dyn FnMut(&Sub<'a>)) {
    f(sub);
    let Some(members) = sub.node.members() else {
        return;
    };
    for m in members {
        let key = m.key.as_str();
        let base = format!("{}/{}", sub.pointer, pointer_token(key));
        let child = |node: &'a Node, pointer: String, place: Place| Sub {
            node,
            pointer,
            place,
            keyword: key,
            parent: Some(sub.node),
        };
        if let Some((_, place)) = SINGLE.iter().find(|(k, _)| *k == key)
            && matches!(m.value.kind, NodeKind::Object(_) | NodeKind::Bool(_))
        {
            visit(&child(&m.value, base, *place), f);
            continue;
        }
        if MAPS.contains(&key) {
            for e in m.value.members().unwrap_or_default() {
                let p = format!("{base}/{}", pointer_token(&e.key));
                visit(&child(&e.value, p, Place::Member), f);
            }
        } else if let Some((_, place)) = LISTS.iter().find(|(k, _)| *k == key) {
            for (i, item) in m.value.items().unwrap_or_default().iter().enumerate() {
                visit(&child(item, format!("{base}/{i}"), *place), f);
            }
        }
    }
}

/// The node a JSON Pointer (RFC 6901) names inside `root`.
pub fn node_at<'a>(root: &'a Node, pointer: &str) -> Option<&'a Node> {
    let mut node = root;
    if pointer.is_empty() {
        return Some(node);
    }
    for token in pointer.strip_prefix('/')?.split('/') {
        let token = crate::syntax::pointer_key(token);
        node = match &node.kind {
            NodeKind::Object(_) => node.get(&token)?,
            NodeKind::Array(items) => items.get(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(node)
}

/// True when `pointer` leads to or through a value only known at run time
/// (an expression inside a `json!` literal): nothing can be said about it.
pub fn reaches_opaque(root: &Node, pointer: &str) -> bool {
    let mut node = root;
    let tokens = pointer.strip_prefix('/').map(|p| p.split('/'));
    for token in tokens.into_iter().flatten() {
        if matches!(node.kind, NodeKind::Opaque(_)) {
            return true;
        }
        let token = crate::syntax::pointer_key(token);
        let next = match &node.kind {
            NodeKind::Object(_) => node.get(&token),
            NodeKind::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => None,
        };
        match next {
            Some(n) => node = n,
            None => return false,
        }
    }
    matches!(node.kind, NodeKind::Opaque(_))
}

/// The member of `parent` whose value is `node`, to point at a keyword.
pub fn member_of<'a>(parent: &'a Node, key: &str) -> Option<&'a crate::syntax::Member> {
    parent.get_member(key)
}

/// `type` includes `name` (a string or an array of strings).
pub fn has_type(schema: &Node, name: &str) -> bool {
    match schema.get("type").map(|t| &t.kind) {
        Some(NodeKind::String(s)) => s.eq_ignore_ascii_case(name),
        Some(NodeKind::Array(items)) => items
            .iter()
            .any(|i| i.as_str().is_some_and(|s| s.eq_ignore_ascii_case(name))),
        _ => false,
    }
}

/// The names a schema's `required` lists (its strings; nothing when absent).
pub fn required_names(schema: &Node) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Node::items)
        .unwrap_or_default()
        .iter()
        .filter_map(Node::as_str)
        .collect()
}

/// The schema describes objects: `type: object`, or object keywords without
/// a `type`.
pub fn is_object_schema(schema: &Node) -> bool {
    has_type(schema, "object")
        || (schema.get("type").is_none()
            && (schema.get("properties").is_some() || schema.get("required").is_some()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::json;

    #[test]
    fn walks_every_subschema_with_pointers() {
        let text = r##"{"type":"object","properties":{"a/b":{"type":"array","items":{"type":"object"}},
            "c":{"anyOf":[{"type":"string"},{"$ref":"#/$defs/d"}]}},
            "$defs":{"d":{"type":"object","default":{"type":"not a schema"}}}}"##;
        let root = json::parse(text).unwrap().unwrap();
        let mut seen = Vec::new();
        walk(&root, &mut |s| seen.push((s.pointer.clone(), s.place)));
        let pointers: Vec<&str> = seen.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            pointers,
            [
                "",
                "/properties/a~1b",
                "/properties/a~1b/items",
                "/properties/c",
                "/properties/c/anyOf/0",
                "/properties/c/anyOf/1",
                "/$defs/d",
            ]
        );
        assert_eq!(seen[4].1, Place::Alternative);
        let d = node_at(&root, "/properties/a~1b/items").unwrap();
        assert_eq!(&text[d.span.range()], r#"{"type":"object"}"#);
        assert!(node_at(&root, "/nope").is_none());
    }

    #[test]
    fn dialects() {
        let parse = |t: &str| Dialect::of(&json::parse(t).unwrap().unwrap());
        assert_eq!(parse("{}"), Ok(Dialect::Draft202012));
        assert_eq!(
            parse(r##"{"$schema":"http://json-schema.org/draft-07/schema#"}"##),
            Ok(Dialect::Draft7)
        );
        assert_eq!(
            parse(r#"{"$schema":"https://json-schema.org/draft/2020-12/schema"}"#),
            Ok(Dialect::Draft202012)
        );
        assert!(parse(r#"{"$schema":"https://example.com/mine"}"#).is_err());
    }
}
