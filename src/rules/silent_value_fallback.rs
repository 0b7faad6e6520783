//! M303 silent-value-fallback: a requested option value the code does not
//! recognise is replaced by another behaviour (`else { raw }`) without
//! telling the model.

use super::code::{names_a_tool, requested, wildcard_literal};
use super::{Context, Rule};
use crate::model::code::{Candidate, FunctionView, Need, Outcome, Quiet, SelectForm, SiteKind};
use crate::model::{Diagnostic, Severity};

pub struct SilentValueFallback;

impl Rule for SilentValueFallback {
    fn check_function(&self, cx: &Context, f: &FunctionView, out: &mut Vec<Candidate>) {
        for site in &f.fact.sites {
            let SiteKind::Select {
                subject,
                known,
                form,
                fallback,
                does_work,
                keeps_value,
                checked_before,
            } = &site.kind
            else {
                continue;
            };
            // A value an earlier check can refuse (`validate_enum(v, ..)?`)
            // does not reach the fallback unless the check lets it.
            if *checked_before {
                continue;
            }
            let Some(mask) = requested(cx.all, subject).filter(|_| !names_a_tool(&subject.text))
            else {
                continue;
            };
            let known: Vec<&str> = known
                .iter()
                .filter(|l| l.string)
                .map(|l| l.text.as_str())
                .collect();
            // A comparison with `"~"`, `"-"`, `"/"`, `"."` or `".."` singles
            // out a special path or input, not an option (operators such
            // as `">="` are options).
            let words = !known
                .iter()
                .all(|k| matches!(k.trim_matches('"'), "~" | "-" | "/" | "." | ".."));
            if known.is_empty()
                || !words
                || known.iter().any(|k| wildcard_literal(k))
                || !does_work
                || *keeps_value
                || matches!(
                    fallback,
                    Outcome::ErrorExit | Outcome::Declined | Outcome::SaysUnknown
                )
            {
                continue;
            }
            let how = match form {
                // A default in a `match` arm is M201's case.
                SelectForm::Match if matches!(fallback, Outcome::Default(_)) => continue,
                SelectForm::Match | SelectForm::IfElse => "falls back to this branch",
                SelectForm::IfReturn => "falls through to the code after this `if`",
            };
            let name = &subject.name;
            let diag = Diagnostic::new("M303", Severity::Warning, f.file, site.span)
                .message(format!(
                    "any `{name}` other than {} silently {how}",
                    crate::rules::join_or(&known, usize::MAX)
                ))
                .label("every other value ends up here")
                .note("the model asked for a value the code does not know (`md` for `markdown`, `JSON` for `json`); it gets another behaviour and believes it got the one it asked for")
                .help(format!(
                    "return an error that lists the accepted values of `{name}`, or make it an `enum` in the schema and in the code"
                ));
            let mut c = f.candidate(diag, Need::Args(mask));
            let known: Vec<String> = known.iter().map(|k| k.to_string()).collect();
            c.quiet = Quiet::Any(vec![
                Quiet::IfSchemaEnum(subject.name.clone(), known.clone()),
                Quiet::IfToolNames(known),
                Quiet::IfCheckedByCallers(subject.mask),
            ]);
            out.push(c);
        }
    }
}
