//! M303 silent-value-fallback: a requested option value the code does not
//! recognise is replaced by another behaviour (`else { raw }`) without
//! telling the model.

use tree_sitter::Node as TsNode;

use super::code::{catch_all_arm, default_value, is_error_exit, literal_arms};
use super::{Context, Rule};
use crate::model::{Diagnostic, Severity};
use crate::rust::ts::{self, field, span, text};
use crate::rust::{Candidate, FnView, Need};
use crate::source::Span;

pub struct SilentValueFallback;

impl Rule for SilentValueFallback {
    fn check_rust_fn(&self, cx: &Context, f: &FnView, out: &mut Vec<Candidate>) {
        // `match format { "text" => .., "markdown" => .., _ => raw(..) }`
        for &m in &f.flow.matches {
            let Some(value) = field(m, "value") else {
                continue;
            };
            let mask = f.mask(value);
            if !cx.all && (mask == 0 || !f.is_direct(value)) {
                continue;
            }
            let known: Vec<String> = literal_arms(m, f.src)
                .into_iter()
                .filter(|l| l.starts_with('"') && l != "\"\"")
                .collect();
            let Some((arm, body)) = catch_all_arm(m, f.src) else {
                continue;
            };
            if known.is_empty()
                || is_error_exit(body, f.src)
                || default_value(body, f.src).is_some()
            // M201's case
            {
                continue;
            }
            let name = crate::rules::code::argument_name(value, f.src);
            let at = Span::new(span(arm).start, span(body).end.min(span(arm).end));
            out.push(f.candidate(diag(f, at, &name, &known), Need::Args(mask)));
        }
        // `if format == "markdown" { .. } else { strip(..) }`
        for &i in &f.flow.ifs {
            // Only the head of an `if … else if … else` chain.
            if i.parent().is_some_and(|p| p.kind() == "else_clause") {
                continue;
            }
            let Some((subject, known, last_else)) = chain(i, f) else {
                continue;
            };
            let mask = f.mask(subject);
            if (!cx.all && (mask == 0 || !f.is_direct(subject))) || is_error_exit(last_else, f.src)
            {
                continue;
            }
            let name = crate::rules::code::argument_name(subject, f.src);
            let at = ts::named_children(last_else)
                .first()
                .map_or(span(last_else), |_| span(last_else).start_only());
            let else_kw = last_else
                .parent()
                .filter(|p| p.kind() == "else_clause")
                .map_or(at, |p| Span::new(span(p).start, span(p).start + 4));
            out.push(f.candidate(diag(f, else_kw, &name, &known), Need::Args(mask)));
        }
    }
}

fn diag(f: &FnView, at: Span, name: &str, known: &[String]) -> Diagnostic {
    Diagnostic::new("M303", Severity::Warning, f.file, at)
        .message(format!(
            "any `{name}` other than {} silently falls back to this branch",
            crate::rules::join_and(known).replace(", ", " or ").replace(" and ", " or ")
        ))
        .label("the fallback for every other value")
        .note("the model asked for a value the code does not know (`md` for `markdown`, `JSON` for `json`); it gets another behaviour and believes it got the one it asked for")
        .help(format!(
            "return an error that lists the accepted values of `{name}`, or make it an `enum` in the schema and in the code"
        ))
}

/// For `if x == "a" {..} else if x == "b" {..} else {..}`: the compared
/// value, the literals, and the final `else` block.
fn chain<'t>(i: TsNode<'t>, f: &FnView) -> Option<(TsNode<'t>, Vec<String>, TsNode<'t>)> {
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
        let alt = field(cur, "alternative")?;
        let next = ts::named_children(alt).into_iter().next()?;
        if next.kind() == "if_expression" {
            cur = next;
        } else {
            return Some((subject?, known, next));
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
