//! M303 silent-value-fallback: a requested option value the code does not
//! recognise is replaced by another behaviour (`else { raw }`) without
//! telling the model.

use tree_sitter::Node as TsNode;

use super::code::{
    catch_all_arm, default_value, is_error_exit, literal_arms, names_a_tool, uses_subject,
    wildcard_literal,
};
use super::{Context, Rule};
use crate::model::{Diagnostic, Severity};
use crate::rust::ts::{self, field, span, text};
use crate::rust::{Candidate, FnView, Need};
use crate::source::Span;

pub struct SilentValueFallback;

impl Rule for SilentValueFallback {
    fn check_rust_fn(&self, cx: &Context, f: &FnView, out: &mut Vec<Candidate>) {
        let requested =
            |v: TsNode| super::code::requested(cx.all, f, v).filter(|_| !names_a_tool(v, f.src));
        // `match format { "text" => .., "markdown" => .., _ => raw(..) }`
        for &m in &f.flow.matches {
            let Some(value) = field(m, "value") else {
                continue;
            };
            let Some(mask) = requested(value) else {
                continue;
            };
            let known: Vec<String> = literal_arms(m, f.src)
                .into_iter()
                .filter(|l| l.starts_with('"'))
                .collect();
            let Some((arm, body)) = catch_all_arm(m, f.src) else {
                continue;
            };
            if known.is_empty()
                || known.iter().any(|k| wildcard_literal(k))
                || !does_work(body, f.src)
                || is_error_exit(body, f.src)
                || default_value(body, f.src).is_some() // M201's case
                || uses_subject(body, value, f.src)
                || uses_subject(body, field(arm, "pattern").unwrap_or(arm), f.src)
            {
                continue;
            }
            let name = crate::rules::code::argument_name(value, f.src);
            let at = Span::new(span(arm).start, span(body).end.min(span(arm).end));
            out.push(f.candidate(
                diag(f, at, &name, &known, "falls back to this branch"),
                Need::Args(mask),
            ));
        }
        // `if format == "markdown" { .. } else { strip(..) }`, and
        // `if action == "disable" { ..; return ..; }` followed by the rest.
        for &i in &f.flow.ifs {
            // Only the head of an `if … else if … else` chain.
            if f.flow.else_ifs.contains(&i.id()) {
                continue;
            }
            let Some((subject, known, last_else)) = chain(i, f) else {
                continue;
            };
            let Some(mask) = requested(subject) else {
                continue;
            };
            if known.iter().any(|k| wildcard_literal(k)) {
                continue;
            }
            let at = match last_else {
                Fallback::Else(block) => {
                    if is_error_exit(block, f.src)
                        || !does_work(block, f.src)
                        || uses_subject(block, subject, f.src)
                    {
                        continue;
                    }
                    let kw = block.parent().filter(|p| p.kind() == "else_clause");
                    kw.map_or(span(block).start_only(), |p| {
                        Span::new(span(p).start, span(p).start + 4)
                    })
                }
                Fallback::After => Span::new(span(i).start, span(i).start + 2),
            };
            let how = match last_else {
                Fallback::Else(_) => "falls back to this branch",
                Fallback::After => "falls through to the code after this `if`",
            };
            out.push(f.candidate(
                diag(
                    f,
                    at,
                    &crate::rules::code::argument_name(subject, f.src),
                    &known,
                    how,
                ),
                Need::Args(mask),
            ));
        }
    }
}

/// Where the values a chain does not name end up.
#[derive(Clone, Copy)]
enum Fallback<'t> {
    /// The final `else` block.
    Else(TsNode<'t>),
    /// No `else`, and the branches return: the code after the `if`.
    After,
}

/// A branch that does something (not `{}` or `()`).
fn does_work(body: TsNode, src: &str) -> bool {
    let t: String = text(body, src)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    !matches!(t.as_str(), "{}" | "()" | "{()}")
}

fn diag(f: &FnView, at: Span, name: &str, known: &[String], how: &str) -> Diagnostic {
    Diagnostic::new("M303", Severity::Warning, f.file, at)
        .message(format!(
            "any `{name}` other than {} silently {how}",
            crate::rules::join_or(known, usize::MAX)
        ))
        .label("every other value ends up here")
        .note("the model asked for a value the code does not know (`md` for `markdown`, `JSON` for `json`); it gets another behaviour and believes it got the one it asked for")
        .help(format!(
            "return an error that lists the accepted values of `{name}`, or make it an `enum` in the schema and in the code"
        ))
}

/// For `if x == "a" {..} else if x == "b" {..} else {..}`: the compared
/// value, the literals, and where other values go: the final `else`, or
/// the code after the `if` when there is no `else` and the branches return.
fn chain<'t>(i: TsNode<'t>, f: &FnView) -> Option<(TsNode<'t>, Vec<String>, Fallback<'t>)> {
    let mut subject: Option<TsNode> = None;
    let mut known = Vec::new();
    let mut cur = i;
    for _ in 0..32 {
        let cond = field(cur, "condition")?;
        let (s, lit) = string_eq(cond, f)?;
        if let Some(prev) = subject
            && text(prev, f.src) != text(s, f.src)
        {
            return None;
        }
        subject = Some(s);
        known.push(lit);
        let Some(alt) = field(cur, "alternative") else {
            // `if x == "a" { ..; return ..; }` with the rest after it.
            let then = field(cur, "consequence")?;
            let mut has_return = false;
            ts::walk(then, &mut |c| {
                has_return |= c.kind() == "return_expression";
                !has_return
            });
            let returns = has_return && !is_error_exit(then, f.src);
            return if returns {
                Some((subject?, known, Fallback::After))
            } else {
                None
            };
        };
        let next = ts::named_children(alt).into_iter().next()?;
        if next.kind() == "if_expression" {
            cur = next;
        } else {
            return Some((subject?, known, Fallback::Else(next)));
        }
    }
    None
}

/// `x == "lit"` (either side): the compared expression and the literal.
fn string_eq<'t>(cond: TsNode<'t>, f: &FnView) -> Option<(TsNode<'t>, String)> {
    if cond.kind() != "binary_expression"
        || field(cond, "operator").map(|o| text(o, f.src)) != Some("==")
    {
        return None;
    }
    let (l, r) = (field(cond, "left")?, field(cond, "right")?);
    let lit = |n: TsNode| ts::string_value(n, f.src).filter(|s| !s.is_empty());
    match (lit(l), lit(r)) {
        (None, Some(s)) => Some((l, format!("\"{s}\""))),
        (Some(s), None) => Some((r, format!("\"{s}\""))),
        _ => None,
    }
}
