//! Span-preserving data trees for JSON, JSONC and YAML documents.
//!
//! Every value keeps the byte span it was read from, so that a finding about
//! a tool name or a schema keyword can point at the exact characters. The
//! same [`Node`] type carries schemas that later extractors find in source
//! code, so rules never care which syntax a schema came from.

pub mod json;
pub mod toml;
pub mod yaml;

use crate::source::Span;

/// How deep documents may nest before parsing stops with an error; protects
/// the recursive parsers and every recursive rule from stack exhaustion.
pub const MAX_DEPTH: usize = 256;

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub span: Span,
    pub kind: NodeKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    Null,
    Bool(bool),
    /// A number in JSON notation, kept as written so no precision is lost.
    Number(String),
    String(String),
    Array(Vec<Node>),
    /// Members in document order; duplicate keys are kept, not merged.
    Object(Vec<Member>),
    /// A value computed at run time, such as a Rust expression inside a
    /// `json!` literal (its source text). Rules treat it as unknown: they
    /// neither trust nor report it.
    Opaque(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    pub key: String,
    pub key_span: Span,
    pub value: Node,
}

/// A syntax error with the byte offset where it was noticed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SyntaxError {
    pub offset: usize,
    pub message: String,
}

impl Node {
    /// Moves every span by `by` bytes: a node parsed from a slice of a file
    /// (JSON inside a string) then points into the file.
    pub fn shift(&mut self, by: usize) {
        fn go(n: &mut Node, by: usize, depth: usize) {
            n.span = Span::new(n.span.start + by, n.span.end + by);
            if depth > MAX_DEPTH {
                return;
            }
            match &mut n.kind {
                NodeKind::Object(members) => {
                    for m in members {
                        m.key_span = Span::new(m.key_span.start + by, m.key_span.end + by);
                        go(&mut m.value, by, depth + 1);
                    }
                }
                NodeKind::Array(items) => {
                    for i in items {
                        go(i, by, depth + 1);
                    }
                }
                _ => {}
            }
        }
        go(self, by, 0);
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            NodeKind::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self.kind {
            NodeKind::Bool(b) => Some(b),
            _ => None,
        }
    }

    pub fn members(&self) -> Option<&[Member]> {
        match &self.kind {
            NodeKind::Object(m) => Some(m),
            _ => None,
        }
    }

    pub fn items(&self) -> Option<&[Node]> {
        match &self.kind {
            NodeKind::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn is_object(&self) -> bool {
        matches!(self.kind, NodeKind::Object(_))
    }

    /// True when this value or anything inside it is only known at run time.
    pub fn has_opaque(&self) -> bool {
        match &self.kind {
            NodeKind::Opaque(_) => true,
            NodeKind::Array(items) => items.iter().any(Node::has_opaque),
            NodeKind::Object(members) => members.iter().any(|m| m.value.has_opaque()),
            _ => false,
        }
    }

    /// `NaN`, `Infinity` or `-Infinity` (read from Python-written JSON).
    pub fn is_non_finite(&self) -> bool {
        matches!(&self.kind, NodeKind::Number(n) if matches!(n.as_str(), "NaN" | "Infinity" | "-Infinity"))
    }

    /// Holds a non-finite number anywhere inside.
    pub fn has_non_finite(&self) -> bool {
        match &self.kind {
            NodeKind::Array(items) => items.iter().any(Node::has_non_finite),
            NodeKind::Object(members) => members.iter().any(|m| m.value.has_non_finite()),
            _ => self.is_non_finite(),
        }
    }

    /// The value of the last member named `key`, as JSON parsers that keep
    /// the last duplicate (serde_json, JavaScript) would see it.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.get_member(key).map(|m| &m.value)
    }

    pub fn get_member(&self, key: &str) -> Option<&Member> {
        self.members()?.iter().rev().find(|m| m.key == key)
    }

    /// The plain JSON value, without spans. A run-time value becomes
    /// `null`; callers that validate check [`Node::has_opaque`] first.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match &self.kind {
            NodeKind::Null | NodeKind::Opaque(_) => Value::Null,
            NodeKind::Bool(b) => Value::Bool(*b),
            NodeKind::Number(n) => serde_json::from_str::<serde_json::Number>(n)
                .map(Value::Number)
                .unwrap_or_else(|_| Value::String(n.clone())),
            NodeKind::String(s) => Value::String(s.clone()),
            NodeKind::Array(items) => Value::Array(items.iter().map(Node::to_json).collect()),
            NodeKind::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|m| (m.key.clone(), m.value.to_json()))
                    .collect(),
            ),
        }
    }
}

/// Escapes one JSON Pointer reference token (RFC 6901).
pub fn pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The key a JSON Pointer token stands for: [`pointer_token`] undone.
pub fn pointer_key(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}
