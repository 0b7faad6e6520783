//! `serde_json::json!` literals to [`Node`] trees with source spans, so the
//! schema rules can point into Rust code exactly as into a JSON file.
//!
//! A `json!` body is a token tree, not an expression: objects and arrays are
//! nested token trees, members are split at `,` and `:` tokens. A value that
//! is Rust code (`"maximum": MAX_LIMIT`, `"enum": modes()`) becomes
//! [`NodeKind::Opaque`]: known to exist, unknown in value.

use tree_sitter::Node as TsNode;

use super::ts::KindName as _;

use super::ts::{self, MAX_DEPTH};
use crate::source::Span;
use crate::syntax::{Member, Node, NodeKind};

/// The value of a `json!(…)` invocation.
pub fn parse_macro(m: TsNode, src: &str) -> Option<Node> {
    let body = ts::macro_body(m)?;
    // `json!( <value> )`: the outer delimiters are the macro's own.
    let inner: Vec<TsNode> = ts::children(body);
    let tokens = inner.get(1..inner.len().saturating_sub(1))?;
    Some(value(tokens, src, 0, ts::span(body)))
}

/// The value of `tokens`; an empty one (`"a": ,`) is unknown, at `at`.
fn value(tokens: &[TsNode], src: &str, depth: usize, at: Span) -> Node {
    let Some((first, last)) = tokens.first().zip(tokens.last()) else {
        return Node {
            span: at,
            kind: NodeKind::Opaque(String::new()),
        };
    };
    let span = Span::new(first.start_byte(), last.end_byte());
    let opaque = || Node {
        span,
        kind: NodeKind::Opaque(src.get(span.range()).unwrap_or("").to_string()),
    };
    if depth > MAX_DEPTH {
        return opaque();
    }
    if let [t] = tokens {
        let t = *t;
        let kind = match t.kind_name() {
            "token_tree" => match ts::text(t, src).as_bytes().first() {
                Some(b'{') => object(t, src, depth),
                Some(b'[') => array(t, src, depth),
                _ => return opaque(),
            },
            "string_literal" | "raw_string_literal" => match ts::string_value(t, src) {
                Some(s) => NodeKind::String(s),
                None => return opaque(),
            },
            "integer_literal" | "float_literal" => match number(ts::text(t, src)) {
                Some(n) => NodeKind::Number(n),
                None => return opaque(),
            },
            "boolean_literal" => NodeKind::Bool(ts::text(t, src) == "true"),
            "identifier" if ts::text(t, src) == "null" => NodeKind::Null,
            _ => return opaque(),
        };
        return Node { span, kind };
    }
    if let [minus, n] = tokens
        && ts::text(*minus, src) == "-"
        && matches!(n.kind_name(), "integer_literal" | "float_literal")
        && let Some(num) = number(ts::text(*n, src))
    {
        return Node {
            span,
            kind: NodeKind::Number(format!("-{num}")),
        };
    }
    opaque()
}

/// A Rust number literal in JSON notation: `1_000u64` → `1000`.
fn number(text: &str) -> Option<String> {
    let t = ts::number_text(text);
    serde_json::from_str::<serde_json::Number>(&t)
        .ok()
        .map(|_| t)
}

/// The tokens between a token tree's delimiters, split at top-level `,`.
fn entries<'t>(tt: TsNode<'t>, src: &str) -> Vec<Vec<TsNode<'t>>> {
    let all = ts::children(tt);
    let inner = all.get(1..all.len().saturating_sub(1)).unwrap_or_default();
    let mut out = vec![Vec::new()];
    for t in inner {
        if matches!(t.kind_name(), "line_comment" | "block_comment") {
            continue;
        }
        if ts::text(*t, src) == "," && t.kind_name() == "," {
            out.push(Vec::new());
        } else if let Some(last) = out.last_mut() {
            last.push(*t);
        }
    }
    out.retain(|e| !e.is_empty());
    out
}

fn object(tt: TsNode, src: &str, depth: usize) -> NodeKind {
    let mut members = Vec::new();
    for entry in entries(tt, src) {
        let Some(colon) = entry.iter().position(|t| t.kind_name() == ":") else {
            continue;
        };
        let (key_tokens, rest) = entry.split_at(colon);
        let Some((kf, kl)) = key_tokens.first().zip(key_tokens.last()) else {
            continue;
        };
        let key_span = Span::new(kf.start_byte(), kl.end_byte());
        let key = match key_tokens {
            [k] => ts::string_value(*k, src),
            _ => None,
        }
        .unwrap_or_else(|| src.get(key_span.range()).unwrap_or("").to_string());
        members.push(Member {
            key,
            key_span,
            value: value(&rest[1..], src, depth + 1, ts::span(rest[0])),
        });
    }
    NodeKind::Object(members)
}

fn array(tt: TsNode, src: &str, depth: usize) -> NodeKind {
    NodeKind::Array(
        entries(tt, src)
            .iter()
            .map(|e| value(e, src, depth + 1, ts::span(tt)))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(code: &str) -> Node {
        let mut p = tree_sitter::Parser::new();
        p.set_language(&tree_sitter_rust::LANGUAGE.into()).unwrap();
        let tree = p.parse(code, None).unwrap();
        let mut found = None;
        ts::walk(tree.root_node(), &mut |n| {
            if found.is_none() && n.kind_name() == "macro_invocation" {
                found = parse_macro(n, code);
            }
            true
        });
        found.unwrap()
    }

    #[test]
    fn literal_values_with_spans() {
        let code = r#"fn f() { let s = json!({
            "type": "object",
            "properties": {"n": {"type": "integer", "default": -10, "maximum": 1_000u64}},
            "required": ["n"],
            "additionalProperties": false,
            "x": null
        }); }"#;
        let n = parse(code);
        assert_eq!(
            n.to_json(),
            serde_json::json!({
                "type": "object",
                "properties": {"n": {"type": "integer", "default": -10, "maximum": 1000}},
                "required": ["n"],
                "additionalProperties": false,
                "x": null
            })
        );
        let ty = n.get_member("type").unwrap();
        assert_eq!(&code[ty.key_span.range()], "\"type\"");
        assert_eq!(&code[ty.value.span.range()], "\"object\"");
    }

    #[test]
    fn rust_expressions_are_opaque() {
        let code = r#"fn f() { json!({"maximum": MAX, "enum": modes(), "d": format!("a{}", b), "neg": -x}) }"#;
        let n = parse(code);
        for key in ["maximum", "enum", "d", "neg"] {
            assert!(
                matches!(n.get(key).unwrap().kind, NodeKind::Opaque(_)),
                "{key}"
            );
        }
        assert!(n.has_opaque());
        match &n.get("d").unwrap().kind {
            NodeKind::Opaque(t) => assert_eq!(t, "format!(\"a{}\", b)"),
            _ => unreachable!(),
        }
    }
}
