//! M301 silent-clamp: a value the model asked for is clamped (`.min(MAX)`,
//! `.clamp(a, b)`, `cmp::min`) and the tool's output does not say so.

use tree_sitter::Node as TsNode;

use super::code::{argument_name, mentions_limit, snippet, throughput_setting};
use super::{Context, Rule};
use crate::model::{Diagnostic, Severity};
use crate::rust::facts::Quiet;
use crate::rust::ts::{self, field, text};
use crate::rust::{Candidate, FnView, Need};

pub struct SilentClamp;

impl Rule for SilentClamp {
    fn check_rust_fn(&self, cx: &Context, f: &FnView, out: &mut Vec<Candidate>) {
        // A function that talks about limits in its output reports them
        // (looked at once, and only when there is a clamp to report).
        let mut reports_limits: Option<bool> = None;
        let mut seen = std::collections::BTreeSet::new();
        for &call in &f.flow.calls {
            let Some((name, recv)) = ts::callee(call, f.src) else {
                continue;
            };
            let args = ts::call_args(call);
            // Caps only: raising a value to a floor (`.max(1)`, a minimum
            // wait) never makes the result look like more than it is.
            let (requested, bounds): (TsNode, Vec<TsNode>) =
                match (name.as_str(), recv, args.as_slice()) {
                    ("min", Some(r), [b]) => (r, vec![*b]),
                    ("clamp", Some(r), [_, hi]) => (r, vec![*hi]),
                    ("min", None, [a, b]) => {
                        let a_req = f.mask(*a) != 0 && f.is_direct(*a);
                        if a_req {
                            (*a, vec![*b])
                        } else {
                            (*b, vec![*a])
                        }
                    }
                    _ => continue,
                };
            let Some(mask) = super::code::requested(cx.all, f, requested) else {
                continue;
            };
            if !bounds.iter().all(|b| is_cap(*b, f)) {
                continue;
            }
            let arg = argument_name(requested, f.src);
            // One finding per argument and function; a poll wait or a
            // concurrency changes how fast, not what, and is not reported.
            if compared_elsewhere(f, &arg, &bounds)
                || throughput_setting(&arg)
                || bounds.iter().any(|b| throughput_setting(f.text(*b)))
                || !seen.insert(arg.clone())
            {
                continue;
            }
            if *reports_limits.get_or_insert_with(|| f.strings().any(|s| mentions_limit(&s))) {
                return;
            }
            let bound = bounds
                .iter()
                .map(|b| format!("`{}`", snippet(*b, f.src)))
                .collect::<Vec<_>>()
                .join(" and ");
            let at = super::code::method_span(call);
            let diag = Diagnostic::new("M301", Severity::Warning, f.file, at)
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
            let mut c = f.candidate(diag, Need::Args(mask));
            c.quiet = Quiet::IfToolDocumentsBound;
            out.push(c);
        }
    }
}

/// A bound that is a limit chosen by the code (`MAX_RESULTS`, `500`,
/// `self.config.max_items`), not a natural one (`items.len()`), and not a
/// sanity floor (`.max(1)`).
fn is_cap(b: TsNode, f: &FnView) -> bool {
    if f.mask(b) != 0 {
        return false;
    }
    let t = text(b, f.src);
    let lower = t.to_ascii_lowercase();
    let natural = ["len", "count", "remaining", "available", "size", "capacity"]
        .iter()
        .any(|w| lower.contains(w));
    if natural && !matches!(b.kind(), "identifier" | "scoped_identifier") {
        return false;
    }
    match b.kind() {
        "integer_literal" | "float_literal" => {
            super::code::literal_number(t).is_some_and(|v| v > 1.0)
        }
        "identifier" | "scoped_identifier" => t
            .rsplit("::")
            .next()
            .is_some_and(crate::rust::values::is_const_name),
        "field_expression" => ["max", "limit", "cap", "budget", "timeout"]
            .iter()
            .any(|w| lower.contains(w)),
        _ => false,
    }
}

/// `if limit > MAX { .. }` somewhere in the function: the code looks at the
/// request against the bound (to warn or to refuse), so it is not silent.
fn compared_elsewhere(f: &FnView, arg: &str, bounds: &[TsNode]) -> bool {
    f.flow.ifs.iter().any(|i| {
        field(*i, "condition").is_some_and(|c| {
            let t = text(c, f.src);
            (t.contains('>') || t.contains('<'))
                && t.contains(arg)
                && bounds.iter().any(|b| t.contains(text(*b, f.src)))
        })
    })
}
