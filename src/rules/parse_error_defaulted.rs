//! M202 parse-error-defaulted: a value the model sent that fails to convert
//! (`"1200"` where a number was expected) silently becomes a default.

use super::code::{reads_as_diagnostic, requested};
use super::{Context, Rule};
use crate::model::code::{Accepts, Candidate, FunctionView, Need, Outcome, Quiet, SiteKind};
use crate::model::{Diagnostic, Severity};

pub struct ParseErrorDefaulted;

impl Rule for ParseErrorDefaulted {
    fn check_function(&self, cx: &Context, f: &FunctionView, out: &mut Vec<Candidate>) {
        for site in &f.fact.sites {
            let SiteKind::ParseFallback {
                value,
                conversion,
                accepts,
                fallback,
                fallback_string,
                saturates,
                checked_after,
                echoed,
                whole_arguments,
            } = &site.kind
            else {
                continue;
            };
            let Some(mask) = requested(cx.all, value) else {
                continue;
            };
            let Outcome::Default(default) = fallback else {
                continue;
            };
            // A string default that tells the model what is missing, a
            // saturation (`u32::MAX`), a default checked right after or
            // shown in the result, and whole argument objects (M203's case)
            // are not silent defaults.
            if fallback_string.as_deref().is_some_and(reads_as_diagnostic)
                || *saturates
                || *checked_after
                || *echoed
                || *whole_arguments
            {
                continue;
            }
            let arg = &value.name;
            let diag = Diagnostic::new("M202", Severity::Warning, f.file, site.span)
                .message(format!(
                    "`{arg}` that fails `{conversion}` silently becomes {default}"
                ))
                .label(format!("a `{arg}` of the wrong type or shape becomes {default}"))
                .note(if *accepts == Accepts::String {
                    format!(
                        "the schema requires `{arg}`, yet a missing or non-string value silently becomes {default}: the call runs with a value the model did not ask for and it is never told"
                    )
                } else {
                    format!(
                        "a missing `{arg}` and an invalid one (`\"1200\"` for a number, `\"true\"` for a boolean) get the same default: the call runs with a value the model did not ask for and it is never told"
                    )
                })
                .help(format!(
                    "default only when `{arg}` is absent, and return an error naming `{arg}` and the expected type when it is present but invalid"
                ));
            let mut c = f.candidate(diag, Need::Args(mask));
            // A model sends strings for string parameters: `as_str` fails
            // in practice only when the value is missing, and a default
            // for a missing optional string is the point. For a required
            // one it never is (`"Hello LLM"` for a required `question`).
            // A tool trait's `validate_input` that the executor runs first
            // and that reads the argument refuses a wrong type there.
            // So does an agent loop that validates the arguments against
            // the tool's schema.
            let validated = Quiet::Any(vec![
                Quiet::IfValidatedBySibling(arg.clone()),
                Quiet::IfSchemaValidated(arg.clone(), *accepts),
            ]);
            c.quiet = if *accepts == Accepts::String {
                Quiet::Any(vec![Quiet::UnlessRequired(arg.clone()), validated])
            } else {
                validated
            };
            out.push(c);
        }
    }
}
