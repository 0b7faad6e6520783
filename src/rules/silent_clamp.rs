//! M301 silent-clamp: a value the model asked for is clamped (`.min(MAX)`,
//! `.clamp(a, b)`, `cmp::min`) and the tool's output does not say so.

use std::collections::BTreeSet;

use super::code::{is_const_name, requested, snippet, throughput_setting};
use super::{Context, Rule};
use crate::model::code::{Bound, BoundKind, Candidate, FunctionView, Need, Quiet, SiteKind};
use crate::model::{Diagnostic, Severity};

pub struct SilentClamp;

impl Rule for SilentClamp {
    fn check_function(&self, cx: &Context, f: &FunctionView, out: &mut Vec<Candidate>) {
        // A function that talks about limits in its output reports them.
        if f.fact.mentions_limit {
            return;
        }
        let mut seen = BTreeSet::new();
        for site in &f.fact.sites {
            let SiteKind::Clamp {
                value,
                bounds,
                compared,
            } = &site.kind
            else {
                continue;
            };
            let Some(mask) = requested(cx.all, value) else {
                continue;
            };
            if !bounds.iter().all(is_cap) {
                continue;
            }
            let arg = &value.name;
            // One finding per argument and function; a poll wait or a
            // concurrency changes how fast, not what, and is not reported.
            if *compared
                || throughput_setting(arg)
                || bounds.iter().any(|b| throughput_setting(&b.text))
                || !seen.insert(arg.clone())
            {
                continue;
            }
            let bound = bounds
                .iter()
                .map(|b| format!("`{}`", snippet(&b.text)))
                .collect::<Vec<_>>()
                .join(" and ");
            let diag = Diagnostic::new("M301", Severity::Warning, f.file, site.span)
                .message(format!(
                    "requested `{arg}` is silently capped at {bound}"
                ))
                .label(format!("`{arg}` is changed here; nothing tells the model"))
                .note(format!(
                    "the model asked for one `{arg}` and the tool used another: it reads the result as the answer to what it asked (all results, the whole timeout) and draws wrong conclusions"
                ))
                .help(format!(
                    "state the bound in the tool's schema (`maximum`) or description, or say in the result that `{arg}` was changed and to what; or reject values out of range"
                ));
            let numbers: Vec<String> = bounds
                .iter()
                .filter(|b| b.text.chars().all(|c| c.is_ascii_digit() || c == '_'))
                .map(|b| b.text.replace('_', ""))
                .collect();
            let mut c = f.candidate(diag, Need::Args(mask));
            c.quiet = if numbers.is_empty() {
                Quiet::IfToolDocumentsBound
            } else {
                Quiet::IfFieldDocumentsBound(arg.clone(), numbers)
            };
            out.push(c);
        }
    }
}

/// A bound that is a limit chosen by the code (`MAX_RESULTS`, `500`,
/// `self.config.max_items`), not a natural one (`items.len()`), and not a
/// sanity floor (`.max(1)`).
fn is_cap(b: &Bound) -> bool {
    if b.tainted {
        return false;
    }
    let lower = b.text.to_ascii_lowercase();
    let natural = ["len", "count", "remaining", "available", "size", "capacity"]
        .iter()
        .any(|w| lower.contains(w));
    if natural && !matches!(b.kind, BoundKind::Name(_)) {
        return false;
    }
    match &b.kind {
        BoundKind::Int(v) | BoundKind::Float(v) => v.is_some_and(|v| v > 1.0),
        BoundKind::Name(last) => is_const_name(last),
        BoundKind::Field => ["max", "limit", "cap", "budget", "timeout"]
            .iter()
            .any(|w| lower.contains(w)),
        BoundKind::Other => false,
    }
}
