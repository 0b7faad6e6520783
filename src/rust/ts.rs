//! Small helpers over tree-sitter nodes: text, fields, attributes, string
//! literals, and bounded walks. Nothing here knows about tools.

use tree_sitter::Node as TsNode;

use crate::source::Span;

/// How deep any walk over a syntax tree goes; deeper code (generated or
/// hostile) is not analysed rather than overflowing the stack.
pub const MAX_DEPTH: usize = 200;

pub fn span(n: TsNode) -> Span {
    Span::new(n.start_byte(), n.end_byte())
}

pub fn text<'s>(n: TsNode, src: &'s str) -> &'s str {
    src.get(n.start_byte()..n.end_byte()).unwrap_or("")
}

/// The child in field `name`. Field ids are looked up once per name, not
/// on every call (tree-sitter compares field names as strings), and found
/// by position in [`FIELDS`], not by hashing the name (a hash per call was
/// 2 % of a scan).
pub fn field<'t>(n: TsNode<'t>, name: &'static str) -> Option<TsNode<'t>> {
    use std::num::NonZeroU16;
    use std::sync::OnceLock;
    static IDS: OnceLock<Vec<Option<NonZeroU16>>> = OnceLock::new();
    let ids = IDS.get_or_init(|| {
        let lang: tree_sitter::Language = tree_sitter_rust::LANGUAGE.into();
        FIELDS.iter().map(|n| lang.field_id_for_name(n)).collect()
    });
    match FIELDS.iter().position(|f| *f == name).and_then(|i| ids[i]) {
        Some(id) => n.child_by_field_id(id.get()),
        None => n.child_by_field_name(name),
    }
}

/// The fields [`field`] knows by id, the most asked for first.
const FIELDS: &[&str] = &[
    "name",
    "body",
    "function",
    "arguments",
    "value",
    "type",
    "pattern",
    "left",
    "right",
    "field",
    "macro",
    "path",
    "parameters",
    "condition",
    "consequence",
    "alternative",
    "operator",
    "return_type",
    "trait",
    "type_arguments",
    "type_parameters",
];

/// A node's kind, read from a table built once. `Node::kind` validates the
/// grammar's C string as UTF-8 on every call, which was 5 % of a scan.
pub trait KindName {
    fn kind_name(&self) -> &'static str;
}

impl KindName for TsNode<'_> {
    fn kind_name(&self) -> &'static str {
        use std::sync::OnceLock;
        static KINDS: OnceLock<Vec<String>> = OnceLock::new();
        let kinds = KINDS.get_or_init(|| {
            let lang: tree_sitter::Language = tree_sitter_rust::LANGUAGE.into();
            (0..lang.node_kind_count())
                .map(|id| lang.node_kind_for_id(id as u16).unwrap_or("").to_string())
                .collect()
        });
        // Every id of a node is in the table (the grammar is this one) but
        // an ERROR node's, which is outside it.
        kinds
            .get(usize::from(self.kind_id()))
            .map_or("ERROR", String::as_str)
    }
}

pub fn named_children<'t>(n: TsNode<'t>) -> Vec<TsNode<'t>> {
    let mut cursor = n.walk();
    n.named_children(&mut cursor).collect()
}

pub fn children<'t>(n: TsNode<'t>) -> Vec<TsNode<'t>> {
    let mut cursor = n.walk();
    n.children(&mut cursor).collect()
}

/// The value of a string literal (`"a\"b"`, `r#"…"#`), with the common
/// escapes decoded; `None` for anything else.
pub fn string_value(n: TsNode, src: &str) -> Option<String> {
    match n.kind_name() {
        "string_literal" => {
            let raw = text(n, src);
            let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
            Some(unescape(inner))
        }
        "raw_string_literal" => {
            let raw = text(n, src).strip_prefix('r')?;
            let hashes = raw.len() - raw.trim_start_matches('#').len();
            let inner = raw.get(hashes..raw.len().checked_sub(hashes)?)?;
            Some(inner.strip_prefix('"')?.strip_suffix('"')?.to_string())
        }
        _ => None,
    }
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some('\n') => {
                // A line continuation: skip the break and leading blanks.
                while chars.peek().is_some_and(|c| c.is_whitespace()) {
                    chars.next();
                }
            }
            Some('u') => {
                let hex: String = chars
                    .by_ref()
                    .skip_while(|&c| c == '{')
                    .take_while(|&c| c != '}')
                    .collect();
                if let Some(ch) = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    out.push(ch);
                }
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

/// The attributes written before an item (`#[…]` siblings, skipping
/// comments), nearest last.
pub fn attributes<'t>(item: TsNode<'t>) -> Vec<TsNode<'t>> {
    let mut out = Vec::new();
    let mut prev = item.prev_sibling();
    while let Some(p) = prev {
        match p.kind_name() {
            "attribute_item" => out.push(p),
            "line_comment" | "block_comment" => {}
            _ => break,
        }
        prev = p.prev_sibling();
    }
    out.reverse();
    out
}

/// The doc comment (`///` lines) written before an item, joined.
pub fn doc_comment(item: TsNode, src: &str) -> Option<String> {
    let mut lines = Vec::new();
    let mut prev = item.prev_sibling();
    while let Some(p) = prev {
        match p.kind_name() {
            "attribute_item" => {}
            "line_comment" => {
                let t = text(p, src);
                match t.strip_prefix("///") {
                    Some(rest) if !rest.starts_with('/') => lines.push(rest.trim().to_string()),
                    _ => break,
                }
            }
            _ => break,
        }
        prev = p.prev_sibling();
    }
    lines.reverse();
    let doc = lines.join(" ").trim().to_string();
    (!doc.is_empty()).then_some(doc)
}

/// The path of an attribute (`tool`, `serde`, `rmcp::tool`) and its
/// argument token tree, if any.
pub fn attribute_parts<'t>(
    attr_item: TsNode<'t>,
    src: &str,
) -> Option<(String, Option<TsNode<'t>>)> {
    let attr = named_children(attr_item)
        .into_iter()
        .find(|n| n.kind_name() == "attribute")?;
    let path = named_children(attr)
        .into_iter()
        .find(|n| matches!(n.kind_name(), "identifier" | "scoped_identifier"))?;
    Some((text(path, src).to_string(), field(attr, "arguments")))
}

/// The string of `#[key = "value"]` (`#[path = "util.rs"]`).
pub fn attribute_value(attr_item: TsNode, src: &str) -> Option<String> {
    let attr = named_children(attr_item)
        .into_iter()
        .find(|n| n.kind_name() == "attribute")?;
    string_value(field(attr, "value")?, src)
}

/// The last segment of a path (`rmcp::tool` → `tool`).
pub fn last_segment(path: &str) -> &str {
    path.rsplit("::").next().unwrap_or(path).trim()
}

/// `key = "value"` pairs and bare words in an attribute's token tree:
/// `(name = "x", description = "y", aggr)`.
pub fn attribute_args(tt: TsNode, src: &str) -> Vec<(String, Option<(String, Span)>)> {
    let tokens = children(tt);
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i];
        // Keys are words; some are keywords with a token kind of their own
        // (`default` in `#[serde(default)]`, `type`, `crate`).
        let word = text(t, src);
        let is_word = word.starts_with(|c: char| c.is_alphabetic() || c == '_')
            && word.chars().all(|c| c.is_alphanumeric() || c == '_');
        if t.kind_name() == "identifier" || (is_word && !t.kind_name().contains("literal")) {
            let key = word.to_string();
            if tokens.get(i + 1).is_some_and(|n| text(*n, src) == "=") {
                // `description = concat!("a", "b")`: the joined literals.
                if let [c, bang, tt, ..] = tokens.get(i + 2..).unwrap_or_default()
                    && text(*c, src) == "concat"
                    && text(*bang, src) == "!"
                    && tt.kind_name() == "token_tree"
                {
                    let parts: Vec<TsNode> = children(*tt)
                        .into_iter()
                        .filter(|p| !matches!(text(*p, src), "(" | ")" | ","))
                        .collect();
                    let joined: Option<String> =
                        parts.iter().map(|p| string_value(*p, src)).collect();
                    let value = joined.map(|v| (v, Span::new(span(*c).start, span(*tt).end)));
                    out.push((key, value));
                    i += 5;
                    continue;
                }
                let value = tokens
                    .get(i + 2)
                    .and_then(|v| string_value(*v, src).map(|s| (s, span(*v))));
                out.push((key, value));
                i += 3;
                continue;
            }
            out.push((key, None));
        }
        i += 1;
    }
    out
}

/// Calls `f` on `node` and every descendant, pre-order, up to [`MAX_DEPTH`].
pub fn walk<'t>(node: TsNode<'t>, f: &mut impl FnMut(TsNode<'t>) -> bool) {
    // One cursor for the whole walk: a cursor per node cost an allocation
    // each.
    let mut cursor = node.walk();
    let mut depth = 0;
    loop {
        if depth <= MAX_DEPTH && f(cursor.node()) && cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if depth == 0 {
                return;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            cursor.goto_parent();
            depth -= 1;
        }
    }
}

/// Identifiers (plain names, not fields or types) in a subtree, including
/// inside macro token trees.
pub fn identifiers<'t>(node: TsNode<'t>, src: &str) -> Vec<(String, TsNode<'t>)> {
    let mut out = Vec::new();
    walk(node, &mut |n| {
        if matches!(n.kind_name(), "identifier" | "self") {
            // `a.b`: `b` is a field_identifier, so only receivers count.
            out.push((text(n, src).to_string(), n));
        }
        true
    });
    out
}

/// The name of a macro invocation (`format`, `json`, `serde_json::json`).
pub fn macro_name<'s>(m: TsNode, src: &'s str) -> &'s str {
    field(m, "macro").map_or("", |n| last_segment(text(n, src)))
}

/// The token tree of a macro invocation.
pub fn macro_body(m: TsNode) -> Option<TsNode> {
    named_children(m)
        .into_iter()
        .find(|n| n.kind_name() == "token_tree")
}

/// The called name of a call: `f(..)` → `f`, `a::f(..)` → `f`,
/// `x.f(..)` → `f`, `f::<T>(..)` → `f`; and the receiver of a method call.
pub fn callee<'t>(call: TsNode<'t>, src: &str) -> Option<(String, Option<TsNode<'t>>)> {
    callee_ref(call, src).map(|(n, r)| (n.to_string(), r))
}

/// [`callee`] without allocating: for paths taken on every call.
pub fn callee_ref<'t, 's>(call: TsNode<'t>, src: &'s str) -> Option<(&'s str, Option<TsNode<'t>>)> {
    let mut f = field(call, "function")?;
    if f.kind_name() == "generic_function" {
        f = field(f, "function")?;
    }
    match f.kind_name() {
        "identifier" => Some((text(f, src), None)),
        "scoped_identifier" => Some((text(field(f, "name")?, src), None)),
        "field_expression" => {
            let name = field(f, "field")?;
            Some((text(name, src), field(f, "value")))
        }
        _ => None,
    }
}

/// The path before the called name: `Self` in `Self::f`, `serde_json` in
/// `serde_json::from_str`.
pub fn callee_path<'s>(call: TsNode, src: &'s str) -> Option<&'s str> {
    let mut f = field(call, "function")?;
    if f.kind_name() == "generic_function" {
        f = field(f, "function")?;
    }
    (f.kind_name() == "scoped_identifier")
        .then(|| field(f, "path").map(|p| text(p, src)))
        .flatten()
}

/// The argument expressions of a call.
pub fn call_args<'t>(call: TsNode<'t>) -> Vec<TsNode<'t>> {
    field(call, "arguments")
        .map(named_children)
        .unwrap_or_default()
        .into_iter()
        .filter(|n| {
            !matches!(
                n.kind_name(),
                "line_comment" | "block_comment" | "attribute_item"
            )
        })
        .collect()
}

/// A Rust number literal without `_` and type suffix: `1_000u64` → `1000`.
pub fn number_text(literal: &str) -> String {
    let t: String = literal.chars().filter(|&c| c != '_').collect();
    [
        "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
        "f32", "f64",
    ]
    .iter()
    .find_map(|s| t.strip_suffix(s))
    .map_or_else(|| t.clone(), str::to_string)
}

/// Strips wrappers that do not change a value: `&x`, `(x)`, `x?`,
/// `x.await`, `x.clone()`, `x.to_string()`, `x.as_str()`, `x.into()`.
pub fn peel<'t>(mut n: TsNode<'t>, src: &str) -> TsNode<'t> {
    for _ in 0..MAX_DEPTH {
        let next = match n.kind_name() {
            "reference_expression" => field(n, "value"),
            "parenthesized_expression" | "try_expression" | "await_expression" => n.named_child(0),
            "call_expression" => match callee_ref(n, src) {
                Some((name, Some(recv)))
                    if matches!(
                        name,
                        "clone" | "to_string" | "to_owned" | "as_str" | "into" | "as_ref"
                    ) && call_args(n).is_empty() =>
                {
                    Some(recv)
                }
                _ => None,
            },
            _ => None,
        };
        match next {
            Some(inner) => n = inner,
            None => break,
        }
    }
    n
}

/// The names a `use` declaration brings into scope, with the paths they
/// stand for: `use a::b::{C, D as E};` gives `("C", [a, b, C])` and `("E",
/// [a, b, D])`. Globs and single-segment imports name nothing to follow.
pub fn use_aliases(n: TsNode, src: &str, out: &mut Vec<(String, Vec<String>)>) {
    if let Some(arg) = n.child_by_field_name("argument") {
        use_tree(arg, &[], src, out, 0);
    }
}

fn use_tree(
    n: TsNode,
    prefix: &[String],
    src: &str,
    out: &mut Vec<(String, Vec<String>)>,
    depth: usize,
) {
    if depth > 8 {
        return;
    }
    let path = |p: TsNode| {
        let mut v = prefix.to_vec();
        v.extend(text(p, src).split("::").map(|s| s.trim().to_string()));
        v
    };
    match n.kind_name() {
        "scoped_identifier" | "identifier" => {
            let full = path(n);
            if full.len() >= 2
                && let Some(last) = full.last()
            {
                out.push((last.clone(), full));
            }
        }
        "use_as_clause" => {
            if let (Some(p), Some(alias)) = (
                n.child_by_field_name("path"),
                n.child_by_field_name("alias"),
            ) {
                let full = path(p);
                if full.len() >= 2 {
                    out.push((text(alias, src).to_string(), full));
                }
            }
        }
        "scoped_use_list" => {
            let base = n
                .child_by_field_name("path")
                .map_or_else(|| prefix.to_vec(), path);
            if let Some(list) = n.child_by_field_name("list") {
                use_tree(list, &base, src, out, depth + 1);
            }
        }
        "use_list" => {
            for c in named_children(n) {
                use_tree(c, prefix, src, out, depth + 1);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The recursive walk `walk` replaced, as the reference.
    fn walk_recursively<'t>(n: TsNode<'t>, depth: usize, f: &mut impl FnMut(TsNode<'t>) -> bool) {
        if depth > MAX_DEPTH || !f(n) {
            return;
        }
        let mut cursor = n.walk();
        for child in n.children(&mut cursor) {
            walk_recursively(child, depth + 1, f);
        }
    }

    #[test]
    fn walk_visits_what_the_recursive_walk_did_with_pruning_and_the_depth_limit() {
        let deep = format!(
            "fn d() {{ let x = {}1{}; }}",
            "(".repeat(250),
            ")".repeat(250)
        );
        let src = format!(
            "fn a(x: u8) -> u8 {{ match x {{ 1 => {{ b(x) }} _ => x + 1 }} }}\n\
             mod m {{ fn c() {{ let v = vec![1, 2]; if v.is_empty() {{ return; }} }} }}\n{deep}\n"
        );
        let mut p = tree_sitter::Parser::new();
        p.set_language(&tree_sitter_rust::LANGUAGE.into()).unwrap();
        let tree = p.parse(&src, None).unwrap();
        let mut starts = vec![tree.root_node()];
        walk(tree.root_node(), &mut |n| {
            starts.push(n);
            true
        });
        for start in starts {
            for prune in ["", "block", "match_expression", "parenthesized_expression"] {
                let (mut got, mut want) = (Vec::new(), Vec::new());
                walk(start, &mut |n| {
                    got.push(n.id());
                    n.kind_name() != prune
                });
                walk_recursively(start, 0, &mut |n| {
                    want.push(n.id());
                    n.kind() != prune
                });
                assert_eq!(got, want, "from {} pruning {prune:?}", start.kind());
            }
        }
    }
}
