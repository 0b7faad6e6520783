//! Helpers shared by the rules on Rust code (M2, M3): what counts as a
//! default value, an error exit, a catch-all match arm, a truncation marker.

use tree_sitter::Node as TsNode;

use crate::rust::ts::{self, field, text};

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
    compact.contains("Err(")
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
        || compact.starts_with("return") && !compact.starts_with("returnOk(")
        || compact.starts_with("continue")
        || compact.starts_with("break")
}

/// The text of `n` when it is a default value: any literal (`None`,
/// `false`, `0`, `""`, `22.5`),
/// `Default::default()`, an empty collection, `Value::Null`, `json!({})`, or
/// a fixed enum variant or unit struct (`Mode::Auto`, `Box::new(Auto)`).
pub fn default_value(n: TsNode, src: &str) -> Option<String> {
    let n = unblock(n);
    let t = text(n, src).trim();
    let compact: String = t.chars().filter(|c| !c.is_whitespace()).collect();
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
            compact.as_str(),
            "json!({})" | "json!(null)" | "json!([])" | "vec![]" | "serde_json::json!({})"
        ),
        "call_expression" => {
            let name = ts::callee(n, src).map(|c| c.0).unwrap_or_default();
            let args = ts::call_args(n);
            match (name.as_str(), args.as_slice()) {
                ("default" | "new" | "empty", []) => true,
                ("to_string" | "to_owned" | "into", []) => compact.starts_with("\"\""),
                ("Some" | "Ok" | "new" | "from", [a]) => default_value(*a, src).is_some(),
                _ => false,
            }
        }
        _ => false,
    };
    yes.then(|| t.to_string())
}

/// `{ x }` → `x`.
pub fn unblock(n: TsNode) -> TsNode {
    if n.kind() == "block" {
        let kids: Vec<TsNode> = ts::named_children(n)
            .into_iter()
            .filter(|k| !matches!(k.kind(), "line_comment" | "block_comment"))
            .collect();
        if let [one] = kids.as_slice()
            && one.kind() != "expression_statement"
        {
            return unblock(*one);
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

/// The name a value is known by to the model: the key of `.get("k")` or
/// `["k"]`, else the last field or variable name in the expression.
pub fn argument_name(n: TsNode, src: &str) -> String {
    let mut key = None;
    let mut last_name = None;
    ts::walk(n, &mut |c| {
        if key.is_none()
            && let Some(s) = ts::string_value(c, src)
            && !s.is_empty()
            && s.chars()
                .all(|ch| ch.is_alphanumeric() || ch == '_' || ch == '-')
            && c.parent()
                .is_some_and(|p| matches!(p.kind(), "arguments" | "index_expression"))
        {
            key = Some(s);
        }
        if matches!(c.kind(), "field_identifier" | "identifier") {
            let t = text(c, src);
            let method = c.kind() == "field_identifier"
                && c.parent().is_some_and(|p| {
                    p.kind() == "field_expression"
                        && p.parent().is_some_and(|pp| {
                            pp.kind() == "call_expression"
                                && field(pp, "function").map(|f| f.id()) == Some(p.id())
                        })
                });
            if !method
                && !matches!(
                    t,
                    "self" | "args" | "params" | "arguments" | "input" | "v" | "x"
                )
                && last_name.is_none()
            {
                last_name = Some(t.to_string());
            }
        }
        true
    });
    key.or(last_name).unwrap_or_else(|| "the argument".into())
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
    let t = text(n, src).to_ascii_lowercase();
    t.contains("name") || t.contains("tool") || t.contains("method")
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
    let n = name.to_ascii_lowercase();
    [
        "result",
        "hit",
        "match",
        "item",
        "entr",
        "candidate",
        "score",
        "rank",
        "doc",
        "row",
        "suggestion",
    ]
    .iter()
    .any(|w| n.contains(w))
}
