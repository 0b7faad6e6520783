//! TOML documents as span-preserving [`Node`] trees, for tool manifests
//! kept in TOML (`[[tools]]` with `name`, `description` and an
//! `input_schema` table).
//!
//! Tables keep their members in document order (the `toml` parser sorts
//! keys; they are put back by where each key is written). A schema kept as
//! JSON text in a string (`input_schema = '''{ "type": "object", .. }'''`, as
//! generated tool docs do) is read as that JSON, with spans into the string,
//! when the key names a schema and the string holds no escapes. Numbers keep
//! their text without `_` separators; dates and times are kept as strings.
//! Nesting deeper than [`MAX_DEPTH`] is an error, never a stack overflow.

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::{MAX_DEPTH, Member, Node, NodeKind, SyntaxError};
use crate::source::Span;

/// Parses one TOML document. Returns `Ok(None)` for an empty document.
pub fn parse(text: &str) -> Result<Option<Node>, SyntaxError> {
    let doc = DeTable::parse(text).map_err(|e| SyntaxError {
        offset: e.span().map_or(0, |s| s.start),
        message: e.message().trim().to_string(),
    })?;
    if doc.get_ref().is_empty() {
        return Ok(None);
    }
    let span = doc.span();
    table(doc.get_ref(), Span::new(span.start, span.end), text, 0).map(Some)
}

fn table(t: &DeTable, span: Span, text: &str, depth: usize) -> Result<Node, SyntaxError> {
    if depth > MAX_DEPTH {
        return Err(too_deep(span));
    }
    let mut members = Vec::with_capacity(t.len());
    for (k, v) in t.iter() {
        let ks = k.span();
        let key = k.get_ref().to_string();
        let value = match embedded_json(&key, v, text) {
            Some(node) => node,
            None => value(v, text, depth + 1)?,
        };
        members.push(Member {
            key,
            key_span: Span::new(ks.start, ks.end),
            value,
        });
    }
    members.sort_by_key(|m| m.key_span.start);
    Ok(Node {
        span,
        kind: NodeKind::Object(members),
    })
}

fn too_deep(at: Span) -> SyntaxError {
    SyntaxError {
        offset: at.start,
        message: format!("nested deeper than {MAX_DEPTH} levels"),
    }
}

/// Keys whose string value may hold a JSON Schema as text.
const SCHEMA_KEYS: &[&str] = &[
    "input_schema",
    "inputSchema",
    "output_schema",
    "outputSchema",
    "parameters",
    "schema",
];

/// The JSON object written in a string under a schema key, with spans into
/// the file; `None` when the string is not one (or has escapes, whose
/// offsets would not map).
fn embedded_json(key: &str, v: &Spanned<DeValue>, text: &str) -> Option<Node> {
    let DeValue::String(content) = v.get_ref() else {
        return None;
    };
    if !SCHEMA_KEYS.contains(&key) || !content.trim_start().starts_with('{') {
        return None;
    }
    let raw = text.get(v.span())?;
    let literal = raw.starts_with('\'');
    if !literal && raw.contains('\\') {
        return None;
    }
    let delim = if raw.starts_with("'''") || raw.starts_with("\"\"\"") {
        3
    } else {
        1
    };
    let after = &raw[delim..];
    // A newline right after a multi-line string's opening delimiter is trimmed.
    let newline = if delim == 3 {
        if after.starts_with("\r\n") {
            2
        } else {
            usize::from(after.starts_with('\n'))
        }
    } else {
        0
    };
    let start = v.span().start + delim + newline;
    if text.get(start..start + content.len())? != content.as_ref() {
        return None;
    }
    let mut node = super::json::parse(content).ok()??;
    node.shift(start);
    Some(node)
}

fn value(v: &Spanned<DeValue>, text: &str, depth: usize) -> Result<Node, SyntaxError> {
    let s = v.span();
    let span = Span::new(s.start, s.end);
    let kind = match v.get_ref() {
        DeValue::String(s) => NodeKind::String(s.to_string()),
        DeValue::Integer(i) => NodeKind::Number(i.to_string().replace('_', "")),
        DeValue::Float(f) => NodeKind::Number(f.to_string().replace('_', "")),
        DeValue::Boolean(b) => NodeKind::Bool(*b),
        DeValue::Datetime(d) => NodeKind::String(d.to_string()),
        DeValue::Array(items) => {
            if depth > MAX_DEPTH {
                return Err(too_deep(span));
            }
            NodeKind::Array(
                items
                    .iter()
                    .map(|i| value(i, text, depth + 1))
                    .collect::<Result<_, _>>()?,
            )
        }
        DeValue::Table(t) => return table(t, span, text, depth),
    };
    Ok(Node { span, kind })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_keep_document_order_and_spans() {
        let text = "[[tools]]\nname = \"fs.read\"\ndescription = \"Read\"\n\n[tools.input_schema]\ntype = \"object\"\n";
        let doc = parse(text).unwrap().unwrap();
        let tools = doc.get("tools").unwrap().items().unwrap();
        let t = &tools[0];
        let keys: Vec<&str> = t
            .members()
            .unwrap()
            .iter()
            .map(|m| m.key.as_str())
            .collect();
        assert_eq!(keys, ["name", "description", "input_schema"]);
        let name = t.get("name").unwrap();
        assert_eq!(&text[name.span.start..name.span.end], "\"fs.read\"");
    }

    #[test]
    fn a_schema_written_as_json_in_a_string_is_read_with_spans() {
        let text = "name = \"bash\"\ninput_schema = '''\n{\n  \"type\": \"object\",\n  \"properties\": {\"command\": {\"type\": \"string\"}}\n}\n'''\n";
        let doc = parse(text).unwrap().unwrap();
        let schema = doc.get("input_schema").unwrap();
        let ty = schema.get("type").unwrap();
        assert_eq!(ty.as_str(), Some("object"));
        assert_eq!(&text[ty.span.start..ty.span.end], "\"object\"");
        // Elsewhere a JSON-looking string stays a string.
        let other = parse("note = '{\"a\": 1}'\n").unwrap().unwrap();
        assert_eq!(other.get("note").unwrap().as_str(), Some("{\"a\": 1}"));
    }

    #[test]
    fn errors_carry_an_offset_and_deep_nesting_is_refused() {
        let e = parse("a = [1,\n").unwrap_err();
        assert!(e.offset > 0, "{e:?}");
        let deep = format!("a = {}1{}", "[".repeat(400), "]".repeat(400));
        assert!(parse(&deep).is_err());
        assert_eq!(parse("# only a comment\n").unwrap(), None);
    }
}
