//! M202 parse-error-defaulted: a value the model sent that fails to convert
//! (`"1200"` where a number was expected) silently becomes a default.

use tree_sitter::Node as TsNode;

use super::code::{argument_name, is_error_exit, reads_as_diagnostic, snippet};
use super::{Context, Rule};
use crate::model::{Diagnostic, Severity};
use crate::rust::facts::Quiet;
use crate::rust::ts::{self, field, text};
use crate::rust::{Candidate, FnView, Need};

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
            let Some(mask) = super::code::requested(cx.all, f, recv) else {
                continue;
            };
            let args = ts::call_args(call);
            if args.first().is_some_and(|a| {
                is_error_exit(*a, f.src)
                    || ts::string_value(*a, f.src).is_some_and(|d| reads_as_diagnostic(&d))
            }) {
                continue;
            }
            // `u32::try_from(n).unwrap_or(u32::MAX)`: saturation, not a default.
            if args
                .first()
                .is_some_and(|a| matches!(text(*a, f.src).rsplit("::").next(), Some("MAX" | "MIN")))
            {
                continue;
            }
            if bound_name(call, f.src).is_some_and(|var| checked_after(f, &var)) {
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
            let at = super::code::method_span(call);
            let diag = Diagnostic::new("M202", Severity::Warning, f.file, at)
                .message(format!(
                    "`{arg}` that fails `{conversion}` silently becomes {default}"
                ))
                .label(format!("a `{arg}` of the wrong type or shape becomes {default}"))
                .note(if conversion == "as_str" {
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
            if conversion == "as_str" {
                c.quiet = Quiet::UnlessRequired(arg);
            }
            out.push(c);
        }
    }
}

/// `let x = <call>;`: the name the defaulted value is bound to.
fn bound_name(call: TsNode, src: &str) -> Option<String> {
    let mut n = call;
    for _ in 0..3 {
        let p = n.parent()?;
        if p.kind() == "let_declaration" {
            let pat = field(p, "pattern")?;
            return (pat.kind() == "identifier").then(|| text(pat, src).to_string());
        }
        if !matches!(
            p.kind(),
            "try_expression" | "await_expression" | "parenthesized_expression"
        ) {
            return None;
        }
        n = p;
    }
    None
}

/// `if x.is_empty() { return Err(..) }`: the default is caught afterwards.
fn checked_after(f: &FnView, var: &str) -> bool {
    f.flow.ifs.iter().any(|i| {
        let (Some(cond), Some(then)) = (field(*i, "condition"), field(*i, "consequence")) else {
            return false;
        };
        ts::identifiers(cond, f.src).iter().any(|(n, _)| n == var) && is_error_exit(then, f.src)
    })
}

/// The fallible conversion in the receiver chain just before the default
/// (`x.as_str()`, `.parse()`), or in a closure or path it hands to
/// `and_then`/`map` (`.and_then(|v| v.as_u64())`, `.and_then(Value::as_u64)`)
/// — not one inside another call's arguments (`map.get(key.as_str())`).
fn fallible_in(recv: TsNode, src: &str) -> Option<&'static str> {
    fallible_at(recv, src, 0)
}

fn fallible_at(recv: TsNode, src: &str, depth: usize) -> Option<&'static str> {
    if depth > ts::MAX_DEPTH {
        return None;
    }
    let fallible = |name: &str| FALLIBLE.iter().find(|f| **f == name).copied();
    let mut n = recv;
    for _ in 0..16 {
        n = match n.kind() {
            "try_expression" | "parenthesized_expression" | "await_expression" => {
                n.named_child(0)?
            }
            "call_expression" => {
                let (name, r) = ts::callee(n, src)?;
                if let Some(f) = fallible(&name) {
                    return Some(f);
                }
                if matches!(
                    name.as_str(),
                    "and_then" | "map" | "ok" | "flatten" | "cloned" | "copied"
                ) && let Some(a) = ts::call_args(n).first()
                {
                    let inner = match a.kind() {
                        "closure_expression" => {
                            field(*a, "body").and_then(|b| fallible_at(b, src, depth + 1))
                        }
                        "scoped_identifier" | "identifier" => {
                            fallible(text(*a, src).rsplit("::").next().unwrap_or(""))
                        }
                        _ => None,
                    };
                    if inner.is_some() {
                        return inner;
                    }
                }
                r?
            }
            _ => return None,
        };
    }
    None
}
