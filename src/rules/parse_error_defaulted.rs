//! M202 parse-error-defaulted: a value the model sent that fails to convert
//! (`"1200"` where a number was expected) silently becomes a default.

use tree_sitter::Node as TsNode;

use super::code::{argument_name, is_error_exit, snippet};
use super::{Context, Rule};
use crate::model::{Diagnostic, Severity};
use crate::rust::ts::{self, field, span, text};
use crate::rust::{Candidate, FnView, Need};
use crate::source::Span;

pub struct ParseErrorDefaulted;

/// Conversions that fail on a present value of the wrong type or shape.
const FALLIBLE: &[&str] = &[
    "as_u64",
    "as_i64",
    "as_f64",
    "as_str",
    "as_bool",
    "as_array",
    "as_object",
    "as_number",
    "parse",
    "try_into",
    "try_from",
    "from_str",
    "as_u32",
    "as_i32",
];

impl Rule for ParseErrorDefaulted {
    fn check_rust_fn(&self, cx: &Context, f: &FnView, out: &mut Vec<Candidate>) {
        for &call in &f.flow.calls {
            let Some((name, Some(recv))) = ts::callee(call, f.src) else {
                continue;
            };
            if !matches!(
                name.as_str(),
                "unwrap_or" | "unwrap_or_default" | "unwrap_or_else"
            ) {
                continue;
            }
            let Some(conversion) = fallible_in(recv, f.src) else {
                continue;
            };
            let mask = f.mask(recv);
            if !cx.all && (mask == 0 || !f.is_direct(recv)) {
                continue;
            }
            let args = ts::call_args(call);
            if args.first().is_some_and(|a| is_error_exit(*a, f.src)) {
                continue;
            }
            // Whole argument objects parsed from a string are M203's case.
            if text(recv, f.src).contains("from_str") && conversion == "from_str" {
                continue;
            }
            let default = match args.first() {
                Some(a) if name == "unwrap_or" => format!("`{}`", snippet(*a, f.src)),
                Some(a) => format!("what `{}` returns", snippet(*a, f.src)),
                None => "the type's default".to_string(),
            };
            let arg = argument_name(recv, f.src);
            let method = field(call, "function")
                .and_then(|fe| field(fe, "field"))
                .map_or(span(call), span);
            let at = Span::new(method.start, span(call).end);
            let diag = Diagnostic::new("M202", Severity::Warning, f.file, at)
                .message(format!(
                    "`{arg}` that fails `{conversion}` silently becomes {default}"
                ))
                .label(format!("a `{arg}` of the wrong type or shape becomes {default}"))
                .note(format!(
                    "a missing `{arg}` and an invalid one (`\"1200\"` for a number, `10.5` for an integer) get the same default: the call runs with a value the model did not ask for and it is never told"
                ))
                .help(format!(
                    "default only when `{arg}` is absent, and return an error naming `{arg}` and the expected type when it is present but invalid"
                ));
            out.push(f.candidate(diag, Need::Args(mask)));
        }
    }
}

/// The fallible conversion in a receiver chain, including inside closures
/// (`.and_then(|v| v.as_u64())`, `.and_then(Value::as_u64)`).
fn fallible_in(recv: TsNode, src: &str) -> Option<&'static str> {
    let mut found = None;
    ts::walk(recv, &mut |n| {
        if found.is_some() {
            return false;
        }
        let t = match n.kind() {
            "field_identifier" | "identifier" => text(n, src),
            _ => return true,
        };
        found = FALLIBLE.iter().find(|f| **f == t).copied();
        true
    });
    found
}
