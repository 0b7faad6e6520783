//! M203 malformed-arguments-defaulted: tool-call arguments that are not
//! valid JSON (or not an object) become `{}` or `null`, and the call runs.

use tree_sitter::Node as TsNode;

use super::code::{default_value, is_error_exit, snippet};
use super::{Context, Rule};
use crate::model::{Diagnostic, Severity};
use crate::rust::ts::{self, field, span, text};
use crate::rust::values;
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
            // `serde_json::from_value::<Value>(v)` cannot fail.
            if name == "from_value"
                && values::turbofish(call, f.src).is_some_and(|(t, _)| t.ends_with("Value"))
            {
                continue;
            }
            let named = names_arguments(text(input, f.src));
            let mask = f.mask(input);
            if !named && mask == 0 && !cx.all {
                continue;
            }
            let Some((at, default)) = defaulted(call, f.src) else {
                continue;
            };
            // The call must go ahead with the default: the value reaches a
            // dispatch (`tool.call(args)`, `call_tool(..)`, `tool_request(..)`)
            // or is what an arguments parser returns. A default that only
            // fills a record, a log or a provider request is not a call.
            if !cx.all && !dispatched(call, f) {
                continue;
            }
            let need = if named {
                Need::Always
            } else {
                Need::Tainted(mask)
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
        matches!(
            w.as_str(),
            "arguments" | "args" | "input" | "params" | "parameters" | "tool_call" | "toolcall"
        ) || w.ends_with("_args")
            || w.ends_with("_arguments")
            || w.ends_with("_input")
            || w.starts_with("raw_arg")
    })
}

/// Names of calls that run a tool with the arguments they are given;
/// any name with `tool` in it (`call_tool`, `tool_request`) is one too.
const SINKS: &[&str] = &[
    "call",
    "execute",
    "invoke",
    "run",
    "dispatch",
    "handle",
    "handle_call",
    "call_function",
    "with_arguments",
];

/// Does the defaulted value go on to run a tool: passed to a sink in the
/// same function (directly or through a `let`), or returned by a function
/// whose name says it produces arguments (`parse_args`)?
fn dispatched(call: TsNode, f: &FnView) -> bool {
    let src = f.src;
    // The expression the default belongs to, up to its statement.
    let mut top = call;
    let mut bound: Option<String> = None;
    let mut returned = false;
    for _ in 0..8 {
        let Some(p) = top.parent() else { break };
        match p.kind() {
            "let_declaration" => {
                bound = field(p, "pattern")
                    .filter(|x| x.kind() == "identifier")
                    .map(|x| text(x, src).to_string());
                break;
            }
            "arguments" => {
                if let Some(c) = p.parent()
                    && let Some((name, _)) = ts::callee(c, src)
                    && is_sink(&name)
                {
                    return true;
                }
                top = p;
            }
            // The value of an `if`/`match` branch flows out of it.
            "block" => {
                if crate::rust::analyze::tail_expr(p).map(|t| t.id()) != Some(top.id()) {
                    break;
                }
                // The tail of the function body: the function returns it.
                if p.parent().is_some_and(|f| f.kind() == "function_item") {
                    returned = true;
                    break;
                }
                top = p;
            }
            "return_expression" => {
                returned = true;
                break;
            }
            "expression_statement" | "function_item" => break,
            _ => top = p,
        }
    }
    // Returned by a function named for arguments (`parse_arguments`): its
    // callers run tools with it.
    let fn_name = f.fact.name.to_ascii_lowercase();
    let named_for_arguments = fn_name.split('_').any(|w| {
        matches!(
            w,
            "arg" | "args" | "arguments" | "param" | "params" | "parameters" | "input"
        )
    });
    if returned && named_for_arguments {
        return true;
    }
    let Some(var) = bound else { return false };
    f.flow.calls.iter().any(|c| {
        ts::callee(*c, src).is_some_and(|(name, recv)| {
            is_sink(&name)
                && (ts::call_args(*c)
                    .iter()
                    .chain(recv.iter())
                    .any(|a| ts::identifiers(*a, src).iter().any(|(n, _)| *n == var)))
        })
    })
}

fn is_sink(name: &str) -> bool {
    SINKS.contains(&name) || name.contains("tool")
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
