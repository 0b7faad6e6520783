//! M201 wildcard-arm-default: a `match` over a value the model sent whose
//! catch-all arm turns anything unrecognised into a default.

use super::code::{
    catch_all_arm, default_value, is_error_exit, literal_arms, names_a_tool, snippet,
};
use super::{Context, Rule};
use crate::model::{Diagnostic, Severity};
use crate::rust::ts::{field, span};
use crate::rust::{Candidate, FnView, Need};
use crate::source::Span;

pub struct WildcardArmDefault;

impl Rule for WildcardArmDefault {
    fn check_rust_fn(&self, cx: &Context, f: &FnView, out: &mut Vec<Candidate>) {
        for &m in &f.flow.matches {
            let Some(value) = field(m, "value") else {
                continue;
            };
            let Some(mask) = super::code::requested(cx.all, f, value) else {
                continue;
            };
            if names_a_tool(value, f.src) {
                continue;
            }
            let Some((arm, body)) = catch_all_arm(m, f.src) else {
                continue;
            };
            // Only a match that picks among values the model may send
            // (`"text" =>`, `3 =>`); `Some(x) => .., _ =>` is about absence.
            let known = literal_arms(m, f.src);
            if known.is_empty() || is_error_exit(body, f.src) {
                continue;
            }
            let Some(default) = default_value(body, f.src) else {
                continue;
            };
            let what = snippet(value, f.src);
            let arm_span = Span::new(span(arm).start, span(body).end);
            let diag = Diagnostic::new("M201", Severity::Warning, f.file, arm_span)
                .message(format!(
                    "catch-all arm turns any other value of `{what}` into `{default}`"
                ))
                .label(format!("anything but {} becomes `{default}`", crate::rules::join_or(&known, 2)))
                .note("a value the model sent that the code does not know (a typo, another spelling, a wrong type) silently becomes a default: the call succeeds, the model believes its value was used, and is never told")
                .help("return an error that names the accepted values, or declare them as an `enum` in the schema and deserialise into a Rust enum");
            out.push(f.candidate(diag, Need::Args(mask)));
        }
    }
}
