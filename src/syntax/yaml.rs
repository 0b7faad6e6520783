//! YAML documents as span-preserving [`Node`] trees.
//!
//! Built on saphyr-parser's event stream (YAML 1.2, pure Rust). Plain
//! scalars are typed by the YAML 1.2 core schema; quoted scalars are strings.
//! Aliases are expanded with a budget, so a "billion laughs" document is an
//! error instead of an exhausted machine. Merge keys (`<<: *base`) are
//! honoured because YAML tool configs use them to share schema fragments.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, Span as YSpan, Tag};

use super::{MAX_DEPTH, Member, Node, NodeKind, SyntaxError};
use crate::source::Span;

/// The most nodes that alias expansion may copy in one file.
const ALIAS_BUDGET: usize = 100_000;

/// Parses every document of a YAML stream. An empty stream gives no documents.
pub fn parse(text: &str) -> Result<Vec<Node>, SyntaxError> {
    let mut b = Builder {
        events: Parser::new_from_str(text),
        offsets: CharOffsets::new(text),
        anchors: HashMap::new(),
        alias_budget: ALIAS_BUDGET,
        depth: 0,
    };
    let mut docs = Vec::new();
    loop {
        let (event, span) = b.next()?;
        match event {
            Event::StreamStart | Event::DocumentStart(_) | Event::DocumentEnd | Event::Nothing => {}
            Event::StreamEnd => break,
            event => {
                b.anchors.clear();
                docs.push(b.node(event, span)?);
            }
        }
    }
    Ok(docs)
}

/// Converts saphyr's character indices to byte offsets.
struct CharOffsets {
    /// `None` for ASCII text, where the two are the same.
    table: Option<Vec<usize>>,
    len: usize,
}

impl CharOffsets {
    fn new(text: &str) -> Self {
        let table = (!text.is_ascii()).then(|| {
            let mut t: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
            t.push(text.len());
            t
        });
        CharOffsets {
            table,
            len: text.len(),
        }
    }

    fn byte(&self, char_index: usize) -> usize {
        match &self.table {
            None => char_index.min(self.len),
            Some(t) => t.get(char_index).copied().unwrap_or(self.len),
        }
    }
}

struct Builder<'a> {
    events: Parser<'a, saphyr_parser::StrInput<'a>>,
    offsets: CharOffsets,
    anchors: HashMap<usize, Node>,
    alias_budget: usize,
    depth: usize,
}

impl<'a> Builder<'a> {
    fn next(&mut self) -> Result<(Event<'a>, YSpan), SyntaxError> {
        match self.events.next_event() {
            Some(Ok(pair)) => Ok(pair),
            Some(Err(e)) => Err(SyntaxError {
                offset: self.offsets.byte(e.marker().index()),
                message: e.info().to_string(),
            }),
            None => Err(SyntaxError {
                offset: self.offsets.len,
                message: "unexpected end of the YAML stream".into(),
            }),
        }
    }

    fn span(&self, s: YSpan) -> Span {
        let start = self.offsets.byte(s.start.index());
        let end = self.offsets.byte(s.end.index()).max(start);
        Span::new(start, end)
    }

    fn error(&self, span: YSpan, message: impl Into<String>) -> SyntaxError {
        SyntaxError {
            offset: self.offsets.byte(span.start.index()),
            message: message.into(),
        }
    }

    fn remember(&mut self, anchor: usize, node: &Node) {
        if anchor != 0 {
            self.anchors.insert(anchor, node.clone());
        }
    }

    fn node(&mut self, event: Event<'a>, span: YSpan) -> Result<Node, SyntaxError> {
        match event {
            Event::Scalar(value, style, anchor, tag) => {
                let node = Node {
                    span: self.span(span),
                    kind: scalar_kind(&value, style, tag.as_deref()),
                };
                self.remember(anchor, &node);
                Ok(node)
            }
            Event::Alias(id) => {
                let Some(target) = self.anchors.get(&id) else {
                    return Err(self.error(span, "alias to an unknown anchor"));
                };
                let cost = count_nodes(target);
                if cost > self.alias_budget {
                    return Err(self.error(
                        span,
                        format!("aliases expand to more than {ALIAS_BUDGET} nodes"),
                    ));
                }
                self.alias_budget -= cost;
                Ok(target.clone())
            }
            Event::SequenceStart(anchor, _) => {
                self.enter(span)?;
                let start = self.span(span).start;
                let mut items = Vec::new();
                let end = loop {
                    let (event, s) = self.next()?;
                    if let Event::SequenceEnd = event {
                        break self.span(s).end;
                    }
                    items.push(self.node(event, s)?);
                };
                self.depth -= 1;
                let node = Node {
                    span: Span::new(start, end.max(start)),
                    kind: NodeKind::Array(items),
                };
                self.remember(anchor, &node);
                Ok(node)
            }
            Event::MappingStart(anchor, _) => {
                self.enter(span)?;
                let start = self.span(span).start;
                let mut members = Vec::new();
                let mut merged: Vec<Member> = Vec::new();
                let end = loop {
                    let (event, s) = self.next()?;
                    if let Event::MappingEnd = event {
                        break self.span(s).end;
                    }
                    let is_merge = matches!(&event, Event::Scalar(v, ScalarStyle::Plain, _, None) if v == "<<");
                    let key = self.node(event, s)?;
                    let (ev, vs) = self.next()?;
                    let value = self.node(ev, vs)?;
                    if is_merge {
                        collect_merge(&value, &mut merged);
                        continue;
                    }
                    let key_text = match &key.kind {
                        NodeKind::String(s) | NodeKind::Number(s) => s.clone(),
                        NodeKind::Bool(b) => b.to_string(),
                        NodeKind::Null => "null".into(),
                        _ => key.to_json().to_string(),
                    };
                    members.push(Member {
                        key: key_text,
                        key_span: key.span,
                        value,
                    });
                };
                self.depth -= 1;
                // Explicit keys win over merged ones, as the merge-key spec says.
                for m in merged {
                    if !members.iter().any(|e| e.key == m.key) {
                        members.push(m);
                    }
                }
                let node = Node {
                    span: Span::new(start, end.max(start)),
                    kind: NodeKind::Object(members),
                };
                self.remember(anchor, &node);
                Ok(node)
            }
            _ => Err(self.error(span, "unexpected YAML event")),
        }
    }

    fn enter(&mut self, span: YSpan) -> Result<(), SyntaxError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error(span, format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        Ok(())
    }
}

fn collect_merge(value: &Node, out: &mut Vec<Member>) {
    match &value.kind {
        NodeKind::Object(members) => {
            for m in members {
                if !out.iter().any(|e| e.key == m.key) {
                    out.push(m.clone());
                }
            }
        }
        NodeKind::Array(items) => items.iter().for_each(|i| collect_merge(i, out)),
        _ => {}
    }
}

fn count_nodes(node: &Node) -> usize {
    1 + match &node.kind {
        NodeKind::Array(items) => items.iter().map(count_nodes).sum(),
        NodeKind::Object(members) => members.iter().map(|m| count_nodes(&m.value)).sum(),
        _ => 0,
    }
}

/// Types a scalar by the YAML 1.2 core schema.
fn scalar_kind(value: &str, style: ScalarStyle, tag: Option<&Tag>) -> NodeKind {
    if let Some(tag) = tag {
        if tag.handle == "tag:yaml.org,2002:" || tag.handle == "!!" {
            if tag.suffix == "str" {
                return NodeKind::String(value.to_string());
            }
        } else {
            // A local or unknown tag says nothing about the type we can rely on.
            return plain_kind(value, style);
        }
    }
    plain_kind(value, style)
}

fn plain_kind(value: &str, style: ScalarStyle) -> NodeKind {
    if style != ScalarStyle::Plain {
        return NodeKind::String(value.to_string());
    }
    match value {
        "" | "~" | "null" | "Null" | "NULL" => return NodeKind::Null,
        "true" | "True" | "TRUE" => return NodeKind::Bool(true),
        "false" | "False" | "FALSE" => return NodeKind::Bool(false),
        _ => {}
    }
    if let Some(n) = core_number(value) {
        return NodeKind::Number(n);
    }
    NodeKind::String(value.to_string())
}

/// The JSON spelling of a core-schema int or float, if `v` is one.
fn core_number(v: &str) -> Option<String> {
    let int = |digits: &str, radix: u32| i128::from_str_radix(digits, radix).ok();
    if let Some(h) = v.strip_prefix("0x") {
        return int(h, 16).map(|n| n.to_string());
    }
    if let Some(o) = v.strip_prefix("0o") {
        return int(o, 8).map(|n| n.to_string());
    }
    let body = v.strip_prefix(['-', '+']).unwrap_or(v);
    if body.is_empty() {
        return None;
    }
    if body.bytes().all(|b| b.is_ascii_digit()) {
        return match v.parse::<i128>() {
            Ok(n) => Some(n.to_string()),
            Err(_) => v.parse::<f64>().ok().and_then(json_float),
        };
    }
    // [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let mantissa_ok = match mantissa.split_once('.') {
        Some((a, b)) => {
            (a.bytes().all(|c| c.is_ascii_digit()) && b.bytes().all(|c| c.is_ascii_digit()))
                && !(a.is_empty() && b.is_empty())
        }
        None => !mantissa.is_empty() && mantissa.bytes().all(|c| c.is_ascii_digit()),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && e.bytes().all(|c| c.is_ascii_digit())
    });
    if mantissa_ok && exponent_ok {
        v.parse::<f64>().ok().and_then(json_float)
    } else {
        None
    }
}

fn json_float(f: f64) -> Option<String> {
    serde_json::Number::from_f64(f).map(|n| n.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_follow_the_core_schema() {
        let text =
            "a: 1\nb: '1'\nc: true\nd: ~\ne: 1.5\nf: 0x1F\ng: fs.list\nh: \"x\"\ni: 1e3\nj: .5\n";
        let docs = parse(text).unwrap();
        assert_eq!(docs.len(), 1);
        assert_eq!(
            docs[0].to_json(),
            serde_json::json!({"a": 1, "b": "1", "c": true, "d": null, "e": 1.5, "f": 31,
                "g": "fs.list", "h": "x", "i": 1000.0, "j": 0.5})
        );
    }

    #[test]
    fn scalar_spans_point_at_the_text() {
        let text =
            "tools:\n  - name: \"fs.list\"\n    description: Lists files\n  - name: plain.name\n";
        let docs = parse(text).unwrap();
        let tools = docs[0].get("tools").unwrap().items().unwrap();
        let quoted = tools[0].get("name").unwrap();
        assert_eq!(&text[quoted.span.range()], "\"fs.list\"");
        let plain = tools[1].get_member("name").unwrap();
        assert_eq!(&text[plain.value.span.range()], "plain.name");
        assert_eq!(&text[plain.key_span.range()], "name");
    }

    #[test]
    fn non_ascii_spans_are_byte_offsets() {
        let text = "é: ü\nname: fs.list\n";
        let docs = parse(text).unwrap();
        let v = docs[0].get("name").unwrap();
        assert_eq!(&text[v.span.range()], "fs.list");
    }

    #[test]
    fn anchors_aliases_and_merge_keys() {
        let text = "base: &b {type: string}\nx: *b\ny:\n  <<: *b\n  type: integer\n  extra: 1\n";
        let docs = parse(text).unwrap();
        assert_eq!(
            docs[0].to_json(),
            serde_json::json!({"base": {"type": "string"}, "x": {"type": "string"},
                "y": {"type": "integer", "extra": 1}})
        );
    }

    #[test]
    fn billion_laughs_is_an_error() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let p = i - 1;
            text.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        let err = parse(&text).unwrap_err();
        assert!(err.message.contains("aliases"), "{err}");
    }

    #[test]
    fn multiple_documents_and_empty_stream() {
        assert_eq!(parse("a: 1\n---\nb: 2\n").unwrap().len(), 2);
        assert!(parse("").unwrap().is_empty());
        assert!(parse("# just a comment\n").unwrap().is_empty());
    }

    #[test]
    fn syntax_errors_have_offsets() {
        let err = parse("a: [1, 2\nb: 3\n").unwrap_err();
        assert!(err.offset > 0, "{err:?}");
        let err = parse("a: b: c\n").unwrap_err();
        assert!(!err.message.is_empty());
    }

    #[test]
    fn deep_flow_nesting_is_an_error() {
        let text = "[".repeat(10_000);
        assert!(parse(&text).is_err());
    }
}
