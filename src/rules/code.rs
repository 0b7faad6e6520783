//! Helpers shared by the rules on Rust code (M2, M3): what counts as a
//! default value, an error exit, a catch-all match arm, a truncation marker.

use tree_sitter::Node as TsNode;

use crate::rust::FnView;
use crate::rust::ts::{self, field, span, text};
use crate::source::Span;

/// The parameter mask of `n` when it is a value the model sent as is
/// (or any value under `scope = "all"`); `None` when the rule should skip it.
pub fn requested(all: bool, f: &FnView, n: TsNode) -> Option<u64> {
    let mask = f.mask(n);
    (all || (mask != 0 && f.is_direct(n))).then_some(mask)
}

/// `x.min(MAX)` → the span of `min(MAX)`; the whole call when not a method call.
pub fn method_span(call: TsNode) -> Span {
    field(call, "function")
        .and_then(|fe| field(fe, "field"))
        .map_or(span(call), |m| Span::new(span(m).start, span(call).end))
}

/// Does a string in the output tell the model that something was cut?
/// `extra` are the project's own markers (`[options] truncation-markers`).
pub fn mentions_truncation(s: &str, extra: &[String]) -> bool {
    const MARKERS: &[&str] = &[
        "truncat",
        "…",
        "...",
        " more",
        "omitted",
        "elided",
        "not shown",
        "cut off",
        "clipped",
        "remaining",
        "exceed",
        "too long",
        "too large",
        "showing first",
        "showing up to",
        "[cut",
        "limit reached",
        "was cut",
        "shortened",
    ];
    let lower = s.to_lowercase();
    MARKERS.iter().any(|m| lower.contains(m))
        || extra.iter().any(|m| lower.contains(&m.to_lowercase()))
}

/// A field that carries "there was more" in a structured result.
pub fn truncation_field(name: &str) -> bool {
    matches!(
        name,
        "truncated"
            | "is_truncated"
            | "was_truncated"
            | "has_more"
            | "omitted"
            | "next_cursor"
            | "nextCursor"
            | "remaining"
            | "total_count"
            | "iteration_limit_reached"
    )
}

/// Does a string say that a value was limited (a reported clamp)?
pub fn mentions_limit(s: &str) -> bool {
    const WORDS: &[&str] = &[
        "clamp",
        "capped",
        "limited to",
        "at most",
        "maximum",
        "reduced to",
        "adjusted",
        "exceed",
        "too large",
        "too many",
        "lowered",
        "raised to",
    ];
    let lower = s.to_lowercase();
    WORDS.iter().any(|w| lower.contains(w))
}

/// Does evaluating `n` leave with an error (`Err(..)`, `bail!`, a tool error
/// result, a panic) rather than produce a value?
pub fn is_error_exit(n: TsNode, src: &str) -> bool {
    let t = text(n, src);
    let compact: String = t.chars().filter(|c| !c.is_whitespace()).collect();
    let has_call = |name: &str| {
        compact.match_indices(name).any(|(i, _)| {
            !compact[..i]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
    };
    has_call("Err(")
        || compact.contains("::error(")
        || compact.contains("is_error:Some(true)")
        || compact.contains("is_error:true")
        || compact.contains("invalid_params")
        || compact.contains("invalid_request")
        || [
            "bail!",
            "panic!",
            "unreachable!",
            "todo!",
            "unimplemented!",
            "ensure!",
        ]
        .iter()
        .any(|m| compact.contains(m))
        || (n.kind() == "return_expression" || starts_with_keyword(t, "return"))
            && !compact.trim_start_matches('{').starts_with("returnOk(")
        || starts_with_keyword(t, "continue")
        || starts_with_keyword(t, "break")
}

/// The text of `n` when it is a default value: any literal (`None`,
/// `false`, `0`, `""`, `22.5`),
/// `Default::default()`, an empty collection, `Value::Null`, `json!({})`, or
/// a fixed enum variant or unit struct (`Mode::Auto`, `Box::new(Auto)`).
pub fn default_value(n: TsNode, src: &str) -> Option<String> {
    default_value_at(n, src, 0)
}

fn default_value_at(n: TsNode, src: &str, depth: usize) -> Option<String> {
    if depth > ts::MAX_DEPTH {
        return None;
    }
    let n = unblock(n);
    let t = text(n, src).trim();
    let compact = || -> String { t.chars().filter(|c| !c.is_whitespace()).collect() };
    let yes = match n.kind() {
        // Any literal: a fixed value in place of the one the model sent.
        "boolean_literal" | "integer_literal" | "float_literal" | "string_literal"
        | "char_literal" | "negative_literal" => true,
        // `None`, a unit struct or a constant (`AutoRecognizer`, `DEFAULT_MODE`).
        "identifier" => t.chars().next().is_some_and(char::is_uppercase),
        "scoped_identifier" => {
            // `Mode::Auto`, `Value::Null`, `Level::Info`: a fixed variant.
            field(n, "name")
                .map(|x| text(x, src))
                .is_some_and(|last| last.chars().next().is_some_and(char::is_uppercase))
        }
        "macro_invocation" => matches!(
            compact().as_str(),
            "json!({})" | "json!(null)" | "json!([])" | "vec![]" | "serde_json::json!({})"
        ),
        "call_expression" => {
            let name = ts::callee(n, src).map(|c| c.0).unwrap_or_default();
            let args = ts::call_args(n);
            match (name.as_str(), args.as_slice()) {
                ("default" | "new" | "empty", []) => true,
                ("to_string" | "to_owned" | "into", []) => compact().starts_with("\"\""),
                ("Some" | "Ok" | "new" | "from", [a]) => {
                    default_value_at(*a, src, depth + 1).is_some()
                }
                _ => false,
            }
        }
        _ => false,
    };
    yes.then(|| snippet(n, src))
}

/// `{ x }` → `x`.
pub fn unblock(mut n: TsNode) -> TsNode {
    for _ in 0..ts::MAX_DEPTH {
        if n.kind() != "block" {
            break;
        }
        let kids: Vec<TsNode> = ts::named_children(n)
            .into_iter()
            .filter(|k| !matches!(k.kind(), "line_comment" | "block_comment"))
            .collect();
        match kids.as_slice() {
            [one] if one.kind() != "expression_statement" => n = *one,
            _ => break,
        }
    }
    n
}

/// The catch-all arm of a match (`_ =>` or `other =>` without a guard):
/// the arm and its value.
pub fn catch_all_arm<'t>(m: TsNode<'t>, src: &str) -> Option<(TsNode<'t>, TsNode<'t>)> {
    let block = field(m, "body")?;
    ts::named_children(block).into_iter().find_map(|arm| {
        if arm.kind() != "match_arm" {
            return None;
        }
        let pat = field(arm, "pattern")?;
        if field(pat, "condition").is_some() {
            return None;
        }
        let t = text(pat, src).trim();
        let binding = t
            .chars()
            .next()
            .is_some_and(|c| c.is_lowercase() || c == '_')
            && t.chars().all(|c| c.is_alphanumeric() || c == '_');
        (t == "_" || binding)
            .then(|| (arm, field(arm, "value")))?
            .1
            .map(|v| (arm, v))
    })
}

/// The literal values the other arms of a match name (`"text"`, `3`).
pub fn literal_arms(m: TsNode, src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let Some(block) = field(m, "body") else {
        return out;
    };
    for arm in ts::named_children(block) {
        let Some(pat) = field(arm, "pattern") else {
            continue;
        };
        ts::walk(pat, &mut |c| {
            if matches!(
                c.kind(),
                "string_literal" | "integer_literal" | "char_literal" | "boolean_literal"
            ) {
                out.push(text(c, src).to_string());
            }
            true
        });
    }
    out
}

/// The name a value is known by to the model: the key of `.get("k")`,
/// `["k"]` or `get_str(&args, "k")`, else the last field written
/// (`args.limit.unwrap_or(10)` → `limit`), else the variable.
pub fn argument_name(n: TsNode, src: &str) -> String {
    let key = |a: TsNode| {
        ts::string_value(a, src).filter(|s| {
            !s.is_empty()
                && s.chars()
                    .all(|ch| ch.is_alphanumeric() || ch == '_' || ch == '-')
        })
    };
    let mut n = n;
    for _ in 0..ts::MAX_DEPTH {
        n = match n.kind() {
            "reference_expression"
            | "parenthesized_expression"
            | "try_expression"
            | "await_expression"
            | "unary_expression"
            | "type_cast_expression" => match n.named_child(0) {
                Some(c) => c,
                None => break,
            },
            "call_expression" => {
                let args = ts::call_args(n);
                // `.get("q")`, or a closure that does it:
                // `.and_then(|a| a.get("q"))`.
                let closure_key = |a: &TsNode| {
                    (a.kind() == "closure_expression")
                        .then(|| field(*a, "body"))
                        .flatten()
                        .and_then(|b| key_in(b, src))
                };
                if let Some(k) = args
                    .iter()
                    .find_map(|a| key(*a))
                    .or_else(|| args.iter().find_map(closure_key))
                {
                    return k;
                }
                match ts::callee(n, src) {
                    Some((_, Some(recv))) => recv,
                    _ => match args.first() {
                        Some(a) => *a,
                        None => break,
                    },
                }
            }
            "index_expression" => {
                let kids = ts::named_children(n);
                match kids.as_slice() {
                    [_, idx] if key(*idx).is_some() => return key(*idx).unwrap_or_default(),
                    [obj, _] => *obj,
                    _ => break,
                }
            }
            "field_expression" => {
                if let Some(f) = field(n, "field") {
                    return text(f, src).trim_start_matches("r#").to_string();
                }
                break;
            }
            "identifier" => {
                let t = text(n, src);
                if !matches!(
                    t,
                    "self" | "args" | "params" | "arguments" | "input" | "v" | "x"
                ) {
                    return t.to_string();
                }
                break;
            }
            _ => break,
        };
    }
    "the argument".into()
}

/// The key a chain reads (`a.get("q")`, `a["q"]`), if it reads one.
fn key_in(n: TsNode, src: &str) -> Option<String> {
    let mut n = n;
    for _ in 0..ts::MAX_DEPTH {
        n = match n.kind() {
            "reference_expression" | "parenthesized_expression" | "try_expression" => {
                n.named_child(0)?
            }
            "call_expression" => {
                let args = ts::call_args(n);
                if let Some(k) = args.iter().find_map(|a| ts::string_value(*a, src)) {
                    return Some(k);
                }
                ts::callee(n, src)?.1?
            }
            "index_expression" => {
                let kids = ts::named_children(n);
                let [obj, idx] = kids.as_slice() else {
                    return None;
                };
                if let Some(k) = ts::string_value(*idx, src) {
                    return Some(k);
                }
                *obj
            }
            _ => return None,
        };
    }
    None
}

/// A short one-line rendering of code for a message.
pub fn snippet(n: TsNode, src: &str) -> String {
    let t: String = text(n, src)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if t.chars().count() > 60 {
        let cut: String = t.chars().take(57).collect();
        format!("{cut}…")
    } else {
        t
    }
}

/// A value that names a tool or method (`request.name`, `tool_name`): a
/// catch-all over it is a dispatcher's "unknown tool" path, not a default.
pub fn names_a_tool(n: TsNode, src: &str) -> bool {
    text(n, src)
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| {
            w.eq_ignore_ascii_case("name")
                || w.eq_ignore_ascii_case("tool")
                || w.eq_ignore_ascii_case("method")
        })
}

/// Option values that stand for "everything" or "the default": a branch
/// for every other value is the normal case, not a fallback.
pub fn wildcard_literal(lit: &str) -> bool {
    matches!(
        lit.trim_matches('"').to_ascii_lowercase().as_str(),
        "*" | "all" | "any" | "none" | "" | "default" | "auto" | "*.*" | "." | "-"
    )
}

/// Does `body` use the value `subject` names (a catch-all that keeps the
/// value as data: `other => Custom(other)`, `_ => name.to_string()`)?
pub fn uses_subject(body: TsNode, subject: TsNode, src: &str) -> bool {
    let names: Vec<String> = ts::identifiers(subject, src)
        .into_iter()
        .map(|(n, _)| n)
        .filter(|n| n != "self")
        .collect();
    ts::identifiers(body, src)
        .iter()
        .any(|(n, _)| names.contains(n))
}

/// A string default that is itself a message to the model (`"No text
/// provided"`): the model sees it, so the default is not silent.
pub fn reads_as_diagnostic(default: &str) -> bool {
    let d = default.to_ascii_lowercase();
    [
        "no ",
        "not provided",
        "missing",
        "unknown",
        "invalid",
        "error",
        "please provide",
        "required",
    ]
    .iter()
    .any(|w| d.contains(w))
}

/// Names of settings that change how fast or how often, not what: capping
/// them never makes a result look like more than it is.
pub fn throughput_setting(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    [
        "concurren",
        "worker",
        "thread",
        "parallel",
        "yield",
        "poll",
        "batch",
        "interval",
    ]
    .iter()
    .any(|w| n.contains(w))
}

/// Names of collections of results (search hits, matches): keeping the
/// first N is what a search returns, not a cut of its output.
pub fn result_collection(name: &str) -> bool {
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .map(str::to_ascii_lowercase)
        .any(|w| {
            matches!(
                w.as_str(),
                "results"
                    | "hits"
                    | "matches"
                    | "items"
                    | "entries"
                    | "candidates"
                    | "scores"
                    | "scored"
                    | "ranked"
                    | "docs"
                    | "documents"
                    | "rows"
                    | "suggestions"
                    | "paths"
                    | "files"
            )
        })
}

/// The value of a Rust number literal: `30_000`, `500u32`, `0.5f64`.
pub fn literal_number(t: &str) -> Option<f64> {
    ts::number_text(t).parse().ok()
}

/// Does `text` start with the keyword `kw` (not `returned_value`)?
fn starts_with_keyword(text: &str, kw: &str) -> bool {
    let t = text.trim_start().trim_start_matches('{').trim_start();
    t.strip_prefix(kw)
        .is_some_and(|rest| !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
}
