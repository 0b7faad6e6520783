//! Following string and schema expressions: what a tool name or an input
//! schema is, as far as it can be read without running the code.

use std::collections::HashMap;

use tree_sitter::Node as TsNode;

use super::ts::KindName as _;

use super::jsonlit;
use super::ts::{self, field, text};
use crate::model::Spanned;
use crate::model::code::{SchemaExpr, ValueExpr};
use crate::source::Span;

/// `{}` / `{name}` / `{0:?}` placeholders of a format string, as byte
/// ranges of the decoded template; `{{` and `}}` are literal braces.
pub fn format_holes(template: &str) -> Vec<(usize, usize)> {
    let bytes = template.as_bytes();
    let mut holes = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' if bytes.get(i + 1) == Some(&b'{') => i += 2,
            b'}' if bytes.get(i + 1) == Some(&b'}') => i += 2,
            b'{' => match template[i..].find('}') {
                Some(end) => {
                    holes.push((i, i + end + 1));
                    i += end + 1;
                }
                None => break,
            },
            _ => i += 1,
        }
    }
    holes
}

/// Local `let` bindings a function has seen so far.
#[derive(Clone, Default)]
pub struct Locals {
    pub strs: HashMap<String, ValueExpr>,
    pub schemas: HashMap<String, SchemaExpr>,
    /// The type a local is made of (`let h = Arc::new(GrepHandler)`).
    pub types: HashMap<String, String>,
    /// The function's parameters by name: (position without `self`, the
    /// function's index in its file).
    pub params: HashMap<String, (usize, usize)>,
}

/// The operands of a chain of `+`, left to right.
fn concat_parts<'t>(n: TsNode<'t>, src: &str, out: &mut Vec<TsNode<'t>>, depth: usize) {
    if depth < 32
        && n.kind_name() == "binary_expression"
        && field(n, "operator").is_some_and(|o| text(o, src) == "+")
        && let (Some(l), Some(r)) = (field(n, "left"), field(n, "right"))
    {
        concat_parts(l, src, out, depth + 1);
        out.push(r);
    } else {
        out.push(n);
    }
}

/// More alternatives than this: not followed.
const MAX_ALTERNATIVES: usize = 8;

/// One value, or a may-be set of several (nothing known is no value).
fn one_of(mut alts: Vec<ValueExpr>) -> ValueExpr {
    alts.dedup();
    match alts.len() {
        0 => ValueExpr::Unknown,
        1 => alts.pop().unwrap_or_default(),
        _ => ValueExpr::OneOf(alts),
    }
}

/// Does evaluating `n` leave (`continue`, `return`, `break`, a panic, an
/// `Err`) instead of producing a value?
fn diverges(n: TsNode, src: &str) -> bool {
    let t = text(n, src).trim_start_matches('{').trim_start();
    let last_leaves = n.kind_name() == "block"
        && ts::named_children(n).last().is_some_and(|l| {
            let l = if l.kind_name() == "expression_statement" {
                l.named_child(0).unwrap_or(*l)
            } else {
                *l
            };
            l.kind_name() != "block" && diverges(l, src)
        });
    [
        "continue",
        "return",
        "break",
        "panic!",
        "unreachable!",
        "bail!",
        "Err(",
    ]
    .iter()
    .any(|k| t.starts_with(k))
        || last_leaves
}

/// The values an `if`, `match` or block can produce, skipping branches
/// that leave; `match f() { Ok(v) => v, Err(_) => continue }` is `f()`.
fn branch_values(n: TsNode, src: &str, locals: &Locals, depth: usize, out: &mut Vec<ValueExpr>) {
    if depth > 16 || out.len() > MAX_ALTERNATIVES {
        return;
    }
    match n.kind_name() {
        "block" => match super::analyze::tail_expr(n) {
            Some(t) => branch_values(t, src, locals, depth + 1, out),
            None => out.push(ValueExpr::Unknown),
        },
        "if_expression" => {
            if let Some(c) = field(n, "consequence")
                && !diverges(c, src)
            {
                branch_values(c, src, locals, depth + 1, out);
            }
            match field(n, "alternative").and_then(|a| a.named_child(0)) {
                Some(a) if !diverges(a, src) => branch_values(a, src, locals, depth + 1, out),
                Some(_) => {}
                None => out.push(ValueExpr::Unknown),
            }
        }
        "match_expression" => {
            let scrutinee = field(n, "value");
            for arm in field(n, "body").map(ts::named_children).unwrap_or_default() {
                if out.len() > MAX_ALTERNATIVES {
                    return;
                }
                let (Some(pat), Some(val)) = (field(arm, "pattern"), field(arm, "value")) else {
                    continue;
                };
                if diverges(val, src) {
                    continue;
                }
                // `Ok(v) => v` / `Some(v) => v`: the scrutinee's value.
                let pt = text(pat, src);
                let bound = pt
                    .strip_prefix("Ok(")
                    .or_else(|| pt.strip_prefix("Some("))
                    .and_then(|r| r.strip_suffix(')'))
                    .map(str::trim);
                match (bound, scrutinee) {
                    (Some(b), Some(sc)) if b == text(val, src).trim() => {
                        out.push(value_expr_at(sc, src, locals, depth + 1));
                    }
                    _ => out.push(value_expr_at(val, src, locals, depth + 1)),
                }
            }
        }
        _ => out.push(value_expr_at(n, src, locals, depth + 1)),
    }
}

/// [`value_expr`] followed only a few levels: for every call's arguments,
/// where the walk of the function may already be deep.
pub fn value_expr_shallow(n: TsNode, src: &str, locals: &Locals) -> ValueExpr {
    value_expr_at(n, src, locals, MAX_VALUE_DEPTH - 6)
}

/// The value of a string-valued expression.
pub fn value_expr(n: TsNode, src: &str, locals: &Locals) -> ValueExpr {
    value_expr_at(n, src, locals, 0)
}

/// How deep a name expression is followed: names are shallow, and each
/// level holds a stack frame.
const MAX_VALUE_DEPTH: usize = 48;

fn value_expr_at(n: TsNode, src: &str, locals: &Locals, depth: usize) -> ValueExpr {
    if depth > MAX_VALUE_DEPTH {
        return ValueExpr::Unknown;
    }
    let n = ts::peel(n, src);
    match n.kind_name() {
        "string_literal" | "raw_string_literal" => match ts::string_value(n, src) {
            Some(value) => ValueExpr::Str(Spanned {
                value,
                span: ts::span(n),
            }),
            None => ValueExpr::Unknown,
        },
        "macro_invocation" if ts::macro_name(n, src) == "format" => format_expr(n, src),
        // `json!(name)`: the value of `name`.
        "macro_invocation" if ts::macro_name(n, src) == "json" => {
            let tokens = ts::macro_body(n)
                .map(ts::named_children)
                .unwrap_or_default();
            match tokens.as_slice() {
                [one] if one.kind_name() == "identifier" => {
                    value_expr_at(*one, src, locals, depth + 1)
                }
                _ => ValueExpr::Unknown,
            }
        }
        // `indoc! {"…"}`, `concat!("a", "b")`: text known at compile time.
        "macro_invocation"
            if matches!(
                ts::macro_name(n, src),
                "indoc" | "concat" | "formatdoc" | "include_str"
            ) =>
        {
            let body = ts::macro_body(n);
            let lits: Vec<TsNode> = body
                .map(ts::children)
                .unwrap_or_default()
                .into_iter()
                .filter(|t| matches!(t.kind_name(), "string_literal" | "raw_string_literal"))
                .collect();
            let others = body.map(ts::named_children).unwrap_or_default().len() > lits.len();
            match lits.first() {
                Some(first) if !others && ts::macro_name(n, src) != "include_str" => {
                    let value: String = lits
                        .iter()
                        .filter_map(|l| ts::string_value(*l, src))
                        .collect();
                    ValueExpr::Str(Spanned {
                        value,
                        span: ts::span(*first),
                    })
                }
                _ => ValueExpr::Unknown,
            }
        }
        "identifier" => {
            let name = text(n, src);
            if let Some(v) = locals.strs.get(name) {
                v.clone()
            } else if is_const_name(name) {
                ValueExpr::Const(name.to_string(), ts::span(n))
            } else if let Some(&(position, fn_index)) = locals.params.get(name) {
                ValueExpr::Param {
                    position,
                    fn_index,
                    span: ts::span(n),
                }
            } else {
                ValueExpr::Unknown
            }
        }
        // `method.to_owned() + ":" + path`: a template with holes.
        "binary_expression" if field(n, "operator").is_some_and(|o| text(o, src) == "+") => {
            let mut parts = Vec::new();
            concat_parts(n, src, &mut parts, 0);
            let mut template = String::new();
            let mut holes = Vec::new();
            let mut known = false;
            for p in parts {
                match value_expr_at(p, src, locals, depth + 1) {
                    ValueExpr::Str(s) => {
                        known = true;
                        template.push_str(&s.value);
                    }
                    ValueExpr::Format {
                        template: t,
                        holes: h,
                        ..
                    } => {
                        known = true;
                        let at = template.len();
                        holes.extend(h.iter().map(|(a, b)| (a + at, b + at)));
                        template.push_str(&t);
                    }
                    _ => {
                        holes.push((template.len(), template.len() + 2));
                        template.push_str("{}");
                    }
                }
            }
            if known {
                ValueExpr::Format {
                    template,
                    holes,
                    span: ts::span(n),
                }
            } else {
                ValueExpr::Unknown
            }
        }
        // `if a { format!(..) } else { x.to_string() }`: either branch.
        "if_expression" | "match_expression" | "block" => {
            let mut alts = Vec::new();
            branch_values(n, src, locals, depth, &mut alts);
            // A choice among many is no name.
            if alts.len() > MAX_ALTERNATIVES {
                return ValueExpr::Unknown;
            }
            one_of(alts)
        }
        // `&self.tool_name`: what the constructors put there.
        "field_expression"
            if field(n, "value").is_some_and(|v| text(v, src) == "self")
                && field(n, "field").is_some_and(|f| f.kind_name() == "field_identifier") =>
        {
            let f = field(n, "field").map_or("", |f| text(f, src));
            ValueExpr::Field(f.to_string(), ts::span(n))
        }
        "scoped_identifier" => match field(n, "name").map(|x| text(x, src)) {
            Some(name) if is_const_name(name) => ValueExpr::Const(name.to_string(), ts::span(n)),
            _ => ValueExpr::Unknown,
        },
        "call_expression" => {
            let Some((name, recv)) = ts::callee(n, src) else {
                return ValueExpr::Unknown;
            };
            let args = ts::call_args(n);
            match (name.as_str(), recv, args.as_slice()) {
                // String::from(x), x.into(), Cow::from(x), Ok(x), Cow::Owned(x)
                ("from" | "new" | "Ok" | "Some" | "Owned" | "Borrowed", None, [arg]) => {
                    value_expr_at(*arg, src, locals, depth + 1)
                }
                (_, _, []) if !name.starts_with("to_") && !name.starts_with("as_") => {
                    ValueExpr::Call(name, ts::span(n))
                }
                // `namespaced_name(&server, &tool)`: what the function
                // returns, its parameters filled in at run time.
                (_, None, _) if name.starts_with(|c: char| c.is_lowercase()) => {
                    ValueExpr::Call(name, ts::span(n))
                }
                _ => ValueExpr::Unknown,
            }
        }
        _ => ValueExpr::Unknown,
    }
}

pub use crate::model::words::is_const_name;

/// `format!("{}:{}", a, b)`: the template and its holes.
pub fn format_expr(m: TsNode, src: &str) -> ValueExpr {
    let Some(body) = ts::macro_body(m) else {
        return ValueExpr::Unknown;
    };
    let Some(lit) = ts::children(body)
        .into_iter()
        .find(|t| matches!(t.kind_name(), "string_literal" | "raw_string_literal"))
    else {
        return ValueExpr::Unknown;
    };
    let Some(template) = ts::string_value(lit, src) else {
        return ValueExpr::Unknown;
    };
    let holes = format_holes(&template);
    ValueExpr::Format {
        template,
        holes,
        span: ts::span(lit),
    }
}

/// The value of a `json!` member that is Rust code, from its text: a
/// string constant or a call, as far as a name can be read from it.
pub fn value_from_text(text: &str, span: Span) -> ValueExpr {
    let t = text.trim();
    let t = [
        ".to_string()",
        ".to_owned()",
        ".clone()",
        ".into()",
        ".as_str()",
    ]
    .iter()
    .fold(t, |t, s| t.strip_suffix(s).unwrap_or(t));
    let last = t.rsplit("::").next().unwrap_or(t);
    if is_const_name(last) {
        return ValueExpr::Const(last.to_string(), span);
    }
    if let Some(call) = t.strip_suffix("()") {
        let name = call.rsplit(['.', ':']).next().unwrap_or(call);
        if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return ValueExpr::Call(name.to_string(), span);
        }
    }
    ValueExpr::Unknown
}

/// Where a schema expression comes from, looking through the wrappers
/// that schemas travel in (`Arc::new`, `.into()`, `to_value(..).unwrap()`,
/// `.as_object().unwrap().clone()`).
pub fn schema_expr(n: TsNode, src: &str, locals: &Locals) -> Option<SchemaExpr> {
    let mut n = n;
    for _ in 0..ts::MAX_DEPTH {
        n = ts::peel(n, src);
        match n.kind_name() {
            "macro_invocation" => {
                return match ts::macro_name(n, src) {
                    "json" | "object" => jsonlit::parse_macro(n, src).map(SchemaExpr::Json),
                    "schema_for" => {
                        let body = ts::macro_body(n)?;
                        let ty = ts::named_children(body).into_iter().next()?;
                        Some(SchemaExpr::Schemars(
                            type_name(text(ty, src)).to_string(),
                            ts::span(ty),
                        ))
                    }
                    _ => None,
                };
            }
            "identifier" => {
                let name = text(n, src);
                // A local bound to a schema; else a `static`/`const` item,
                // resolved across the crate.
                return locals.schemas.get(name).cloned().or_else(|| {
                    is_const_name(name).then(|| SchemaExpr::Static(name.to_string(), ts::span(n)))
                });
            }
            // `(*INPUT_SCHEMA).clone()` of a `LazyLock`.
            "unary_expression" if text(n, src).starts_with('*') => n = n.named_child(0)?,
            // `LazyLock::new(|| json!({..}))`.
            "closure_expression" => {
                let body = field(n, "body")?;
                n = match body.kind_name() {
                    "block" => super::analyze::tail_expr(body)?,
                    _ => body,
                };
            }
            // `LazyLock::new(schema_for::<T>)`: the function, called later.
            "generic_function" => {
                let f = field(n, "function")?;
                if !text(f, src).contains("schema") {
                    return None;
                }
                let args = field(n, "type_arguments")?;
                let ty = ts::named_children(args).into_iter().next()?;
                return Some(SchemaExpr::Type(
                    schema_type(text(ty, src)).to_string(),
                    ts::span(ty),
                ));
            }
            "call_expression" => {
                let (name, recv) = ts::callee(n, src)?;
                let args = ts::call_args(n);
                // `schema_for::<T>()`, `Self::schema::<T>()`, `cached_schema_for_type::<T>()`
                if let Some(ty) = turbofish(n, src).filter(|_| name.contains("schema")) {
                    return Some(SchemaExpr::Type(schema_type(&ty.0).to_string(), ty.1));
                }
                n = match (name.as_str(), recv, args.as_slice()) {
                    (
                        "into" | "unwrap" | "expect" | "as_object" | "cloned" | "unwrap_or_default"
                        | "try_into" | "as_object_mut" | "clone",
                        Some(r),
                        _,
                    ) => r,
                    ("new" | "from" | "to_value" | "Some" | "from_value", None, [a]) => *a,
                    (_, _, []) => return Some(SchemaExpr::Call(name, ts::span(n))),
                    (_, Some(r), [_]) if r.kind_name() == "self" => {
                        return Some(SchemaExpr::Call(name, ts::span(n)));
                    }
                    _ => return None,
                };
            }
            _ => return None,
        }
    }
    None
}

/// The type a schema is derived from, as the linker finds it: a struct by
/// its last path segment (`crate::args::ReadArgs` → `ReadArgs`), a
/// sequence whole (`Vec<Entry>`: its schema is an array of `Entry`).
pub fn schema_type(ty: &str) -> &str {
    match type_name(ty) {
        "Vec" | "VecDeque" | "HashSet" | "BTreeSet" => ty.trim(),
        name => name,
    }
}

/// The type argument of `f::<T>(..)`, with its span.
pub fn turbofish(call: TsNode, src: &str) -> Option<(String, Span)> {
    let f = field(call, "function")?;
    let generic = match f.kind_name() {
        "generic_function" => f,
        _ => return None,
    };
    let args = field(generic, "type_arguments")?;
    let first = ts::named_children(args).into_iter().next()?;
    Some((text(first, src).to_string(), ts::span(first)))
}

/// The last path segment of a type, without generics:
/// `crate::args::ReadArgs` → `ReadArgs`, `Option<String>` → `Option`
/// (the type inside a wrapper is [`inner_type`]'s job).
/// A type without its references: `&mut Args` → `Args`.
pub fn owned_type(ty: &str) -> &str {
    ty.trim_start_matches('&').trim_start_matches("mut ").trim()
}

pub fn type_name(ty: &str) -> &str {
    let base = ty.split('<').next().unwrap_or(ty).trim();
    base.rsplit("::").next().unwrap_or(base).trim()
}

/// The type inside a wrapper: `Parameters<Args>` → `Args` when the outer
/// name is one of `wrappers`.
pub fn inner_type<'a>(ty: &'a str, wrappers: &[&str]) -> Option<&'a str> {
    let ty = ty.trim();
    let open = ty.find('<')?;
    let outer = type_name(&ty[..open]);
    if !wrappers.contains(&outer) {
        return None;
    }
    // rustfmt breaks a long path over lines with a trailing comma:
    // `Parameters<\n    ReadNoteParams,\n>`.
    let inner = ty[open + 1..].strip_suffix('>')?.trim();
    Some(inner.strip_suffix(',').unwrap_or(inner).trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holes_of_format_strings() {
        assert_eq!(format_holes("{}:{}"), vec![(0, 2), (3, 5)]);
        assert_eq!(
            format_holes("mcp__{server}__{tool}"),
            vec![(5, 13), (15, 21)]
        );
        assert_eq!(format_holes("{{literal}}.{0:?}"), vec![(12, 17)]);
        assert!(format_holes("plain").is_empty());
    }

    #[test]
    fn names_from_text() {
        let s = Span::default();
        assert_eq!(
            value_from_text("Self::NAME", s),
            ValueExpr::Const("NAME".into(), s)
        );
        assert_eq!(
            value_from_text("self.qualified_name()", s),
            ValueExpr::Call("qualified_name".into(), s)
        );
        assert_eq!(value_from_text("tool.name.clone()", s), ValueExpr::Unknown);
    }

    #[test]
    fn types() {
        assert_eq!(type_name("crate::args::ReadArgs"), "ReadArgs");
        assert_eq!(
            inner_type("Parameters<ReadArgs>", &["Parameters"]),
            Some("ReadArgs")
        );
        assert_eq!(
            inner_type(
                "rmcp::handler::server::wrapper::Parameters<a::B>",
                &["Parameters"]
            ),
            Some("a::B")
        );
        assert_eq!(inner_type("Json<X>", &["Parameters"]), None);
        assert_eq!(
            inner_type("Parameters<\n    ReadNoteParams,\n>", &["Parameters"]),
            Some("ReadNoteParams")
        );
    }
}
