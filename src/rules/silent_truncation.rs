//! M302 silent-truncation: output is cut to a fixed size and nothing in the
//! result says so.

use tree_sitter::Node as TsNode;

use super::{Context, Rule};
use crate::model::{Diagnostic, Severity};
use crate::rust::facts::Quiet;
use crate::rust::ts::{self, span, text};
use crate::rust::{Candidate, FnView, Need};
use crate::source::Span;

pub struct SilentTruncation;

impl Rule for SilentTruncation {
    fn check_rust_fn(&self, _cx: &Context, f: &FnView, out: &mut Vec<Candidate>) {
        if f.fact.marks_truncation {
            return;
        }
        let mut found: Vec<(Span, TsNode, &str)> = Vec::new();
        for &call in &f.flow.calls {
            let Some((name, Some(recv))) = ts::callee(call, f.src) else {
                continue;
            };
            if !matches!(name.as_str(), "truncate" | "take") {
                continue;
            }
            let args = ts::call_args(call);
            // `hits.truncate(MAX_HITS)`: the top N of a search is what the
            // tool returns, not a cut of its output.
            let limit = args.first().map_or("", |a| f.text(*a));
            if super::code::result_collection(&super::code::argument_name(recv, f.src))
                || super::code::result_collection(limit)
            {
                continue;
            }
            let [n] = args.as_slice() else { continue };
            if !is_cap(*n, f) {
                continue;
            }
            // `.take(self.max_results)`: a configured number of results is
            // what the tool returns, not a cut of its output.
            if name == "take" && n.kind() == "field_expression" {
                continue;
            }
            found.push((
                super::code::method_span(call),
                *n,
                if name == "take" {
                    "keeps the first"
                } else {
                    "cuts to"
                },
            ));
        }
        // `&text[..MAX]`
        for &ix in &f.flow.indexes {
            let kids = ts::named_children(ix);
            let [_, range] = kids.as_slice() else {
                continue;
            };
            if range.kind() != "range_expression" {
                continue;
            }
            let parts = ts::named_children(*range);
            let [end] = parts.as_slice() else { continue };
            if !text(*range, f.src).trim_start().starts_with("..") || !is_cap(*end, f) {
                continue;
            }
            found.push((span(ix), *end, "slices to"));
        }
        for (at, n, verb) in found {
            let limit = text(n, f.src);
            let diag = Diagnostic::new("M302", Severity::Warning, f.file, at)
                .message(format!("output silently {verb} `{limit}`"))
                .label("cut here; the result does not say so")
                .note("the model takes the shortened output for the whole of it: a file looks shorter, a search looks like it found everything, a log seems to end early")
                .help("say in the result that it was cut and how much is left (`[truncated: 12000 of 48213 bytes]`, `truncated: true`, `… 40 more`), and how to get the rest");
            let mut c = f.candidate(diag, Need::Surface);
            c.quiet = Quiet::IfCallerMarksTruncation;
            out.push(c);
        }
    }
}

/// A fixed size chosen by the code (`MAX_OUTPUT`, `30_000`,
/// `self.max_bytes`), not a size the model asked for.
fn is_cap(n: TsNode, f: &FnView) -> bool {
    if f.mask(n) != 0 {
        return false;
    }
    let t = text(n, f.src);
    let lower = t.to_ascii_lowercase();
    match n.kind() {
        "integer_literal" => super::code::literal_number(t).is_some_and(|v| v >= 100.0),
        "identifier" | "scoped_identifier" => t
            .rsplit("::")
            .next()
            .is_some_and(crate::rust::values::is_const_name),
        "field_expression" => ["max", "limit", "cap", "budget"]
            .iter()
            .any(|w| lower.contains(w)),
        _ => false,
    }
}
