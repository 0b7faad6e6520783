//! M203 malformed-arguments-defaulted: tool-call arguments that are not
//! valid JSON (or not an object) become `{}` or `null`, and the call runs.

use tree_sitter::Node as TsNode;

use super::code::{default_value, is_error_exit, snippet};
use super::{Context, Rule};
use crate::model::{Diagnostic, Severity};
use crate::rust::ts::{self, field, span, text};
use crate::rust::{Candidate, FnView, Need};
use crate::source::Span;

pub struct MalformedArgumentsDefaulted;

impl Rule for MalformedArgumentsDefaulted {
    fn check_rust_fn(&self, cx: &Context, f: &FnView, out: &mut Vec<Candidate>) {
        for &call in &f.flow.calls {
            let Some((name, None)) = ts::callee(call, f.src) else {
                continue;
            };
            if !matches!(name.as_str(), "from_str" | "from_slice" | "from_value") {
                continue;
            }
            let Some(input) = ts::call_args(call).into_iter().next() else {
                continue;
            };
            let lower = text(input, f.src).to_ascii_lowercase();
            let named = [
                "argument",
                "args",
                "input",
                "params",
                "parameters",
                "tool_call",
            ]
            .iter()
            .any(|w| lower.contains(w));
            let mask = f.mask(input);
            if !named && mask == 0 && !cx.all {
                continue;
            }
            let Some((at, default)) = defaulted(call, f.src) else {
                continue;
            };
            let need = if named {
                Need::Always
            } else {
                Need::Args(mask)
            };
            let what = snippet(input, f.src);
            let diag = Diagnostic::new("M203", Severity::Warning, f.file, at)
                .message(format!(
                    "tool-call arguments `{what}` that fail to parse become `{default}` and the call runs anyway"
                ))
                .label(format!("a parse error becomes `{default}`"))
                .note("when the model sends malformed JSON (cut off, unescaped quotes) the tool runs with no arguments: required values silently take defaults, and the model is told the call succeeded")
                .help("return the parse error to the model as the tool result (`invalid arguments: …`) so it can resend the call");
            out.push(f.candidate(diag, need));
        }
    }
}

/// Where the parse result of `call` is replaced by a default on error, and
/// that default: `.unwrap_or(json!({}))`, `.unwrap_or_default()`,
/// `.ok().unwrap_or_default()`, `Err(_) => json!({})`, `if let Ok(..) else`.
fn defaulted(call: TsNode, src: &str) -> Option<(Span, String)> {
    let mut cur = call;
    for _ in 0..4 {
        let parent = cur.parent()?;
        match parent.kind() {
            "field_expression" => {
                let method_call = parent.parent()?;
                let method = text(field(parent, "field")?, src);
                let args = ts::call_args(method_call);
                let at = Span::new(span(field(parent, "field")?).start, span(method_call).end);
                match method {
                    "ok" | "map_err" => cur = method_call,
                    "unwrap_or_default" => return Some((at, "Default::default()".into())),
                    "unwrap_or" | "unwrap_or_else" => {
                        let a = args.first()?;
                        let value = if a.kind() == "closure_expression" {
                            field(*a, "body")?
                        } else {
                            *a
                        };
                        if is_error_exit(value, src) {
                            return None;
                        }
                        return default_value(value, src).map(|d| (at, d));
                    }
                    _ => return None,
                }
            }
            "try_expression" | "await_expression" | "parenthesized_expression" => cur = parent,
            "match_expression" => {
                let block = field(parent, "body")?;
                for arm in ts::named_children(block) {
                    let pat = field(arm, "pattern").map_or("", |p| text(p, src));
                    let val = field(arm, "value")?;
                    if pat.starts_with("Err") && !is_error_exit(val, src) {
                        let d = default_value(val, src)?;
                        return Some((span(arm), d));
                    }
                }
                return None;
            }
            "let_condition" => {
                let if_expr = parent.parent()?;
                let alt = field(if_expr, "alternative")?;
                let block = ts::named_children(alt).into_iter().next()?;
                if is_error_exit(block, src) {
                    return None;
                }
                let d = default_value(block, src)?;
                return Some((span(alt), d));
            }
            _ => return None,
        }
    }
    None
}
