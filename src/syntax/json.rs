//! A JSON parser that keeps byte spans and tolerates what JSONC files carry.
//!
//! Accepts RFC 8259 JSON plus `//` and `/* */` comments and trailing commas,
//! because `tsconfig.json`, `.vscode/mcp.json` and many hand-written tool
//! manifests use them; rejecting them would bury real findings in parse
//! noise. A leading byte-order mark is skipped. Nesting deeper than
//! [`MAX_DEPTH`] is an error, never a stack overflow.

use super::{MAX_DEPTH, Member, Node, NodeKind, SyntaxError};
use crate::source::Span;

/// Parses one JSON document. Returns `Ok(None)` for a file that holds only
/// white space and comments.
pub fn parse(text: &str) -> Result<Option<Node>, SyntaxError> {
    let mut p = Parser {
        src: text.as_bytes(),
        text,
        pos: 0,
        depth: 0,
    };
    if text.starts_with('\u{feff}') {
        p.pos = '\u{feff}'.len_utf8();
    }
    p.skip_trivia()?;
    if p.pos >= p.src.len() {
        return Ok(None);
    }
    let node = p.value()?;
    p.skip_trivia()?;
    if p.pos < p.src.len() {
        return Err(p.error("unexpected content after the end of the JSON value"));
    }
    Ok(Some(node))
}

struct Parser<'a> {
    src: &'a [u8],
    text: &'a str,
    pos: usize,
    depth: usize,
}

impl Parser<'_> {
    fn error(&self, message: impl Into<String>) -> SyntaxError {
        SyntaxError {
            offset: self.pos,
            message: message.into(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    fn skip_trivia(&mut self) -> Result<(), SyntaxError> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.pos += 1,
                Some(b'/') => match self.src.get(self.pos + 1) {
                    Some(b'/') => {
                        while let Some(c) = self.peek() {
                            if c == b'\n' {
                                break;
                            }
                            self.pos += 1;
                        }
                    }
                    Some(b'*') => {
                        let start = self.pos;
                        self.pos += 2;
                        loop {
                            match self.peek() {
                                None => {
                                    self.pos = start;
                                    return Err(self.error("unterminated `/*` comment"));
                                }
                                Some(b'*') if self.src.get(self.pos + 1) == Some(&b'/') => {
                                    self.pos += 2;
                                    break;
                                }
                                Some(_) => self.pos += 1,
                            }
                        }
                    }
                    _ => return Err(self.error("unexpected `/`")),
                },
                _ => return Ok(()),
            }
        }
    }

    fn value(&mut self) -> Result<Node, SyntaxError> {
        let start = self.pos;
        let kind = match self.peek() {
            Some(b'{') => self.object()?,
            Some(b'[') => self.array()?,
            Some(b'"') => NodeKind::String(self.string()?),
            Some(b'-' | b'0'..=b'9') => self.number()?,
            // Python's `json.dumps` writes these for non-finite floats. Not
            // JSON: kept as numbers so the file is read, and S101 reports
            // them where they sit in a schema.
            Some(b'N') => self.literal("NaN", NodeKind::Number("NaN".into()))?,
            Some(b'I') => self.literal("Infinity", NodeKind::Number("Infinity".into()))?,
            Some(b't') => self.literal("true", NodeKind::Bool(true))?,
            Some(b'f') => self.literal("false", NodeKind::Bool(false))?,
            Some(b'n') => self.literal("null", NodeKind::Null)?,
            Some(_) => {
                let c = self.text[self.pos..].chars().next().unwrap_or('?');
                return Err(self.error(format!("expected a JSON value, found `{c}`")));
            }
            None => return Err(self.error("expected a JSON value, found the end of the file")),
        };
        Ok(Node {
            span: Span::new(start, self.pos),
            kind,
        })
    }

    fn enter(&mut self) -> Result<(), SyntaxError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error(format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        Ok(())
    }

    fn object(&mut self) -> Result<NodeKind, SyntaxError> {
        self.enter()?;
        self.pos += 1; // `{`
        let mut members = Vec::new();
        loop {
            self.skip_trivia()?;
            match self.peek() {
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                Some(b'"') => {}
                Some(_) => return Err(self.error("expected a string key or `}`")),
                None => return Err(self.error("unterminated object: expected `}`")),
            }
            let key_start = self.pos;
            let key = self.string()?;
            let key_span = Span::new(key_start, self.pos);
            self.skip_trivia()?;
            if self.peek() != Some(b':') {
                return Err(self.error("expected `:` after an object key"));
            }
            self.pos += 1;
            self.skip_trivia()?;
            let value = self.value()?;
            members.push(Member {
                key,
                key_span,
                value,
            });
            self.skip_trivia()?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                Some(_) => return Err(self.error("expected `,` or `}` after an object member")),
                None => return Err(self.error("unterminated object: expected `}`")),
            }
        }
        self.depth -= 1;
        Ok(NodeKind::Object(members))
    }

    fn array(&mut self) -> Result<NodeKind, SyntaxError> {
        self.enter()?;
        self.pos += 1; // `[`
        let mut items = Vec::new();
        loop {
            self.skip_trivia()?;
            match self.peek() {
                Some(b']') => {
                    self.pos += 1;
                    break;
                }
                None => return Err(self.error("unterminated array: expected `]`")),
                Some(_) => {}
            }
            items.push(self.value()?);
            self.skip_trivia()?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    break;
                }
                Some(_) => return Err(self.error("expected `,` or `]` after an array element")),
                None => return Err(self.error("unterminated array: expected `]`")),
            }
        }
        self.depth -= 1;
        Ok(NodeKind::Array(items))
    }

    fn literal(&mut self, word: &str, kind: NodeKind) -> Result<NodeKind, SyntaxError> {
        if self.src[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(kind)
        } else {
            Err(self.error(format!("invalid literal; expected `{word}`")))
        }
    }

    fn number(&mut self) -> Result<NodeKind, SyntaxError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
            if self.peek() == Some(b'I') {
                self.literal("Infinity", NodeKind::Null)?;
                return Ok(NodeKind::Number("-Infinity".into()));
            }
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.error("invalid number: expected a digit")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.error("invalid number: expected a digit after `.`"));
            }
            self.digits();
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.error("invalid number: expected a digit in the exponent"));
            }
            self.digits();
        }
        Ok(NodeKind::Number(self.text[start..self.pos].to_string()))
    }

    fn digits(&mut self) {
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
    }

    /// Reads a string literal starting at the opening quote.
    fn string(&mut self) -> Result<String, SyntaxError> {
        let open = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            let run_start = self.pos;
            while let Some(c) = self.peek() {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            out.push_str(&self.text[run_start..self.pos]);
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let esc = self.peek();
                    self.pos += 1;
                    match esc {
                        Some(b'"') => out.push('"'),
                        Some(b'\\') => out.push('\\'),
                        Some(b'/') => out.push('/'),
                        Some(b'b') => out.push('\u{8}'),
                        Some(b'f') => out.push('\u{c}'),
                        Some(b'n') => out.push('\n'),
                        Some(b'r') => out.push('\r'),
                        Some(b't') => out.push('\t'),
                        Some(b'u') => out.push(self.unicode_escape()?),
                        _ => {
                            self.pos -= 1;
                            return Err(self.error("invalid escape sequence in string"));
                        }
                    }
                }
                Some(_) => {
                    return Err(self.error("control character in string; escape it"));
                }
                None => {
                    self.pos = open;
                    return Err(self.error("unterminated string"));
                }
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, SyntaxError> {
        let digits = self
            .src
            .get(self.pos..self.pos + 4)
            .and_then(|d| std::str::from_utf8(d).ok())
            .and_then(|d| {
                u32::from_str_radix(d, 16)
                    .ok()
                    .filter(|_| !d.starts_with('+'))
            });
        match digits {
            Some(v) => {
                self.pos += 4;
                Ok(v)
            }
            None => Err(self.error("invalid `\\u` escape: expected four hex digits")),
        }
    }

    fn unicode_escape(&mut self) -> Result<char, SyntaxError> {
        let hi = self.hex4()?;
        if (0xD800..0xDC00).contains(&hi) {
            if self.src[self.pos..].starts_with(b"\\u") {
                self.pos += 2;
                let lo = self.hex4()?;
                if (0xDC00..0xE000).contains(&lo) {
                    let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                    return char::from_u32(c).ok_or_else(|| self.error("invalid surrogate pair"));
                }
            }
            return Err(self.error("unpaired UTF-16 surrogate in `\\u` escape"));
        }
        char::from_u32(hi).ok_or_else(|| self.error("unpaired UTF-16 surrogate in `\\u` escape"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> Node {
        parse(s).unwrap().unwrap()
    }

    #[test]
    fn spans_cover_values_and_keys() {
        let text = r#"{"name": "fs.list", "n": [1, -2.5e3, true, null]}"#;
        let node = ok(text);
        let m = node.get_member("name").unwrap();
        assert_eq!(&text[m.key_span.range()], "\"name\"");
        assert_eq!(&text[m.value.span.range()], "\"fs.list\"");
        assert_eq!(m.value.as_str(), Some("fs.list"));
        let n = node.get("n").unwrap();
        assert_eq!(&text[n.span.range()], "[1, -2.5e3, true, null]");
        assert_eq!(n.to_json(), serde_json::json!([1, -2500.0, true, null]));
    }

    #[test]
    fn jsonc_comments_trailing_commas_and_bom() {
        let node = ok("\u{feff}// c\n{\"a\": [1,2,], /* x */ \"b\": {},}\n");
        assert_eq!(node.to_json(), serde_json::json!({"a": [1, 2], "b": {}}));
        assert_eq!(parse("  // only a comment\n").unwrap(), None);
        assert_eq!(parse("").unwrap(), None);
    }

    #[test]
    fn python_non_finite_numbers_are_read_as_written() {
        let n = ok(r#"{"a": NaN, "b": Infinity, "c": -Infinity, "d": -1}"#);
        let word = |k: &str| match &n.get(k).unwrap().kind {
            NodeKind::Number(w) => w.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            [word("a"), word("b"), word("c"), word("d")],
            ["NaN", "Infinity", "-Infinity", "-1"]
        );
        assert!(n.get("c").unwrap().is_non_finite() && !n.get("d").unwrap().is_non_finite());
        assert!(parse("[Inf]").is_err() && parse("[-Infinit]").is_err() && parse("[nan]").is_err());
    }

    #[test]
    fn escapes() {
        let node = ok(r#""a\"b\\c\u00e9\ud83d\ude00\n""#);
        assert_eq!(node.as_str(), Some("a\"b\\cé😀\n"));
    }

    #[test]
    fn errors_carry_offsets() {
        for (text, offset) in [
            ("{\"a\" 1}", 5),
            ("[1 2]", 3),
            ("{\"a\": tru}", 6),
            ("\"abc", 0),
            ("[1] x", 4),
            ("01", 1),
            ("\"\\x\"", 2),
            ("\"\\ud800\"", 7),
            ("/* open", 0),
            ("{", 1),
        ] {
            let err = parse(text).unwrap_err();
            assert_eq!(err.offset, offset, "{text}: {err}");
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let text = "[".repeat(100_000);
        let err = parse(&text).unwrap_err();
        assert!(err.message.contains("nesting"), "{err}");
    }

    #[test]
    fn duplicate_keys_are_kept_and_last_wins() {
        let node = ok(r#"{"a": 1, "a": 2}"#);
        assert_eq!(node.members().unwrap().len(), 2);
        assert_eq!(node.get("a").unwrap().to_json(), serde_json::json!(2));
    }
}
