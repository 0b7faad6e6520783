//! M203 malformed-arguments-defaulted: tool-call arguments that are not
//! valid JSON (or not an object) become `{}` or `null`, and the call runs.

use super::code::snippet;
use super::{Context, Rule};
use crate::model::code::{ArgsUse, Candidate, FunctionView, Need, SiteKind};
use crate::model::{Diagnostic, Severity};

pub struct MalformedArgumentsDefaulted;

impl Rule for MalformedArgumentsDefaulted {
    fn check_function(&self, cx: &Context, f: &FunctionView, out: &mut Vec<Candidate>) {
        for site in &f.fact.sites {
            let SiteKind::ArgsFallback {
                input,
                default,
                goes_to,
                own_parameter,
                method_arm,
                raw_kept,
            } = &site.kind
            else {
                continue;
            };
            // The call keeps the arguments as sent; the default fills a copy
            // (a transcript's content block).
            if *raw_kept {
                continue;
            }
            // `"tools/list" => from_value(params).unwrap_or_default()`: the
            // parameters of another request (a page cursor), not a call's.
            if method_arm
                .as_deref()
                .is_some_and(|m| !m.to_ascii_lowercase().contains("call"))
            {
                continue;
            }
            // Stored as a tool call's arguments, the value is named by
            // where it goes.
            let named = names_arguments(&input.text) || *goes_to == ArgsUse::Record;
            if !named && input.mask == 0 && !cx.all {
                continue;
            }
            // The call must go ahead with the default: the value reaches a
            // dispatch (`tool.call(args)`, `call_tool(..)`, `tool_request(..)`)
            // or is what an arguments parser returns. A default that only
            // fills a record, a log or a provider request is not a call.
            // A function that parses its own parameter runs with the
            // default: it is reported when a tool's arguments reach it.
            let need = match (goes_to, named) {
                // A parser of tool-call arguments: its callers run tools.
                (ArgsUse::Returned, _) => Need::Always,
                (ArgsUse::Sink, true) | (ArgsUse::Record, _) => Need::Always,
                (ArgsUse::Sink, false) => Need::Tainted(input.mask),
                (ArgsUse::Nowhere, _) if *own_parameter => Need::Args(input.mask),
                (ArgsUse::Nowhere, _) if cx.all => Need::Tainted(input.mask),
                (ArgsUse::Nowhere, _) => continue,
            };
            let what = snippet(&input.text);
            let diag = Diagnostic::new("M203", Severity::Warning, f.file, site.span)
                .message(format!(
                    "tool-call arguments `{what}` that fail to parse become `{default}` and the call runs anyway"
                ))
                .label(format!("a parse error becomes `{default}`"))
                .note("when the model sends malformed JSON (cut off, unescaped quotes) the tool runs with no arguments and the parse error is lost: optional values take their defaults, and at best a required one fails as missing, which tells the model nothing about its malformed JSON")
                .help("return the parse error to the model as the tool result (`invalid arguments: …`) so it can resend the call");
            out.push(f.candidate(diag, need));
        }
    }
}

/// Does the text name tool-call arguments (`call.arguments`, `raw_args`,
/// `tool_input`), as words, not as parts of `input_schema`?
fn names_arguments(t: &str) -> bool {
    let words: Vec<String> = t
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    if words.iter().any(|w| w.contains("schema")) {
        return false;
    }
    words.iter().any(|w| {
        crate::model::words::arguments_word(w)
            || matches!(w.as_str(), "tool_call" | "toolcall")
            || w.starts_with("raw_arg")
    })
}
