//! M302 silent-truncation: output is cut to a fixed size and nothing in the
//! result says so.

use super::code::{is_const_name, result_collection};
use super::{Context, Rule};
use crate::model::code::{
    Bound, BoundKind, Candidate, CutHow, FunctionView, Need, Quiet, SiteKind,
};
use crate::model::{Diagnostic, Severity};

pub struct SilentTruncation;

impl Rule for SilentTruncation {
    fn check_function(&self, _cx: &Context, f: &FunctionView, out: &mut Vec<Candidate>) {
        for site in &f.fact.sites {
            let SiteKind::Truncate {
                how,
                limit,
                collection,
                into_error,
                dest,
                hidden_in_closure,
            } = &site.kind
            else {
                continue;
            };
            // A marker in the function tells of its cuts, except of one a
            // closure made and gave back without a word.
            if *into_error || (f.fact.marks_truncation && !hidden_in_closure) {
                continue;
            }
            // `content_snippet: text.chars().take(600).collect()`: the field
            // says it holds an excerpt.
            if names_an_excerpt(dest) {
                continue;
            }
            // `hits.truncate(MAX_HITS)`: the top N of a search is what the
            // tool returns, not a cut of its output.
            if *how != CutHow::Slice
                && (result_collection(collection) || result_collection(&limit.text))
            {
                continue;
            }
            if !is_cap(limit) {
                continue;
            }
            // `.take(self.max_results)`: a configured number of results is
            // what the tool returns, not a cut of its output.
            if *how == CutHow::Take && limit.kind == BoundKind::Field {
                continue;
            }
            // `ranked.truncate(self.options.limit)`: the top N by a limit
            // (the request's or the configuration's), not a size cap.
            if *how == CutHow::Truncate
                && limit.kind == BoundKind::Field
                && counts_results(&limit.text)
            {
                continue;
            }
            let verb = match how {
                CutHow::Take => "keeps the first",
                CutHow::Truncate => "cuts to",
                CutHow::Slice => "slices to",
                CutHow::SliceTail => "keeps the last",
                CutHow::Stop => "stops collecting at",
            };
            let seems = if *how == CutHow::SliceTail {
                "the model takes the shortened output for the whole of it: a log seems to start late, its first lines (often the first error) gone"
            } else {
                "the model takes the shortened output for the whole of it: a file looks shorter, a search looks like it found everything, a log seems to end early"
            };
            let diag = Diagnostic::new("M302", Severity::Warning, f.file, site.span)
                .message(format!("output silently {verb} `{}`", limit.text))
                .label("cut here; the result does not say so")
                .note(seems)
                .help("say in the result that it was cut and how much is left (`[truncated: 12000 of 48213 bytes]`, `truncated: true`, `… 40 more`), and how to get the rest");
            let mut c = f.candidate(diag, Need::Surface);
            c.quiet = if *hidden_in_closure {
                Quiet::IfToolDocumentsTruncation
            } else {
                Quiet::Any(vec![
                    Quiet::IfCallerMarksTruncation,
                    Quiet::IfToolDocumentsTruncation,
                ])
            };
            out.push(c);
        }
    }
}

/// A local or field named for a part of something (`snippet`, `excerpt`,
/// `preview`, `summary`, `title`, `headline`, `teaser`, `abstract`).
fn names_an_excerpt(dest: &str) -> bool {
    let d = dest.to_ascii_lowercase();
    [
        "snippet", "excerpt", "preview", "summary", "title", "headline", "teaser", "abstract",
    ]
    .iter()
    .any(|w| d.contains(w))
}

/// A field that holds a number of results (`self.options.limit`,
/// `cfg.max_results`, `top_k`), not a size in bytes or characters.
fn counts_results(field: &str) -> bool {
    let last = field
        .rsplit('.')
        .next()
        .unwrap_or(field)
        .to_ascii_lowercase();
    ["limit", "results", "top_k", "topk", "count"]
        .iter()
        .any(|w| last.contains(w))
        && !["byte", "char", "len", "size", "token"]
            .iter()
            .any(|w| last.contains(w))
}

/// A fixed size chosen by the code (`MAX_OUTPUT`, `30_000`,
/// `self.max_bytes`), not a size the model asked for.
fn is_cap(n: &Bound) -> bool {
    if n.tainted {
        return false;
    }
    match &n.kind {
        BoundKind::Int(v) => v.is_some_and(|v| v >= 100.0),
        BoundKind::Name(last) => is_const_name(last),
        BoundKind::Field => ["max", "limit", "cap", "budget"]
            .iter()
            .any(|w| n.text.to_ascii_lowercase().contains(w)),
        BoundKind::Float(_) | BoundKind::Other => false,
    }
}
