//! M201 wildcard-arm-default: a select over a value the model sent (a
//! `match`, `switch`) whose catch-all turns anything unrecognised into a
//! default.

use super::code::{names_a_tool, requested, snippet};
use super::{Context, Rule};
use crate::model::code::{Candidate, FunctionView, Need, Outcome, Quiet, SelectForm, SiteKind};
use crate::model::{Diagnostic, Severity};

pub struct WildcardArmDefault;

impl Rule for WildcardArmDefault {
    fn check_function(&self, cx: &Context, f: &FunctionView, out: &mut Vec<Candidate>) {
        for site in &f.fact.sites {
            let SiteKind::Select {
                subject,
                known,
                form: SelectForm::Match,
                fallback: Outcome::Default(default),
                checked_before: false,
                ..
            } = &site.kind
            else {
                continue;
            };
            let Some(mask) = requested(cx.all, subject) else {
                continue;
            };
            // Only a select among values the model may send (`"text" =>`,
            // `3 =>`); `Some(x) => .., _ =>` is about absence.
            if names_a_tool(&subject.text) || known.is_empty() {
                continue;
            }
            // `MOCK_HOTELS.get(city, [])`: an unknown key finds nothing, an
            // empty result the caller reports as such, not another value
            // used in place of the model's.
            if matches!(
                default.trim(),
                "[]" | "{}" | "()" | "set()" | "dict()" | "list()" | "vec![]" | "Vec::new()"
            ) {
                continue;
            }
            let what = snippet(&subject.text);
            let known: Vec<&str> = known.iter().map(|l| l.text.as_str()).collect();
            let diag = Diagnostic::new("M201", Severity::Warning, f.file, site.span)
                .message(format!(
                    "catch-all arm turns any other value of `{what}` into `{default}`"
                ))
                .label(format!("anything but {} becomes `{default}`", crate::rules::join_or(&known, 2)))
                .note("a value the model sent that the code does not know (a typo, another spelling, a wrong type) silently becomes a default: the call succeeds, the model believes its value was used, and is never told")
                .help(if f.file.path.extension().is_some_and(|e| e == "py") {
                    format!("type the argument as `Literal[{}]` (the schema gets an `enum` and the SDK refuses any other value), or return an error that names the accepted values", known.join(", "))
                } else {
                    "return an error that names the accepted values, or declare them as an `enum` in the schema and deserialise into a Rust enum".to_string()
                });
            let mut c = f.candidate(diag, Need::Args(mask));
            let known: Vec<String> = known.iter().map(|k| k.to_string()).collect();
            c.quiet = Quiet::Any(vec![
                Quiet::IfSchemaEnum(subject.name.clone(), known.clone()),
                Quiet::IfToolNames(known),
                Quiet::IfCheckedByCallers(subject.mask),
                Quiet::IfToolDocumentsFallback(default.clone()),
            ]);
            out.push(c);
        }
    }
}
