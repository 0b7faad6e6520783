//! Sites in Rust code: the places where a value the model sent may be
//! replaced, cut or dropped (`match` catch-alls, `if` chains, `unwrap_or`
//! after a conversion, parse fallbacks of tool-call arguments, `.min(MAX)`,
//! `.truncate(N)`, `&s[..N]`), recognised while the syntax tree is alive
//! and recorded as language-neutral [`Site`]s. The rules decide which are
//! silent; nothing here reports.

use tree_sitter::Node as TsNode;

use super::ts::KindName as _;

use super::analyze::{Flow, tail_expr};
use super::ts::{self, field, span, text};
use super::values::{self, type_name};
use crate::model::code::{
    Accepts, ArgsUse, Bound, BoundKind, CutHow, FnFact, Literal, Outcome, SelectForm, Site,
    SiteKind, ValueRef,
};
use crate::model::words::mentions_limit;
use crate::source::Span;

/// What the site finder sees of one function.
pub struct FnSites<'v, 't, 's> {
    pub src: &'s str,
    pub fact: &'v FnFact,
    pub flow: &'v Flow<'t, 's>,
    /// The project's own truncation markers (`[options] truncation-markers`).
    pub markers: &'v [String],
}

/// Records the sites of a function in `fact.sites` (and whether it talks
/// about limits, when it clamps).
pub fn record(src: &str, fact: &mut FnFact, flow: &Flow, markers: &[String]) {
    let sites = {
        let f = FnSites {
            src,
            fact,
            flow,
            markers,
        };
        let mut out = Vec::new();
        f.selects(&mut out);
        f.parse_fallbacks(&mut out);
        f.args_fallbacks(&mut out);
        f.clamps(&mut out);
        f.truncations(&mut out);
        f.name_collisions(&mut out);
        out
    };
    if sites
        .iter()
        .any(|s| matches!(s.kind, SiteKind::Clamp { .. }))
    {
        fact.mentions_limit = flow
            .strings
            .iter()
            .filter_map(|s| ts::string_value(*s, src))
            .any(|s| mentions_limit(&s));
    }
    fact.sites = sites;
}

impl<'t> FnSites<'_, 't, '_> {
    /// Did the value `v` (by the name the model knows it by) go, before
    /// `site`, into a call that can fail the handler: `check(v)?`, `if let
    /// Err(e) = validate(v, ..) { return .. }`, `match resolve(.., v, ..) {
    /// Err(e) => return .., .. }`?
    fn validated_before(&self, site: TsNode, v: TsNode) -> bool {
        let src = self.src;
        let name = argument_name(v, src);
        // Only a value with a name of its own (`the argument` is any).
        if name.is_empty() || name.contains(' ') {
            return false;
        }
        let at = site.start_byte();
        self.flow.calls.iter().any(|&c| {
            c.end_byte() <= at
                && ts::call_args(c)
                    .iter()
                    .any(|a| argument_name(*a, src) == name)
                && fails_the_call(c, src)
        }) || self.refused_before(at, &name)
    }

    /// Did a `match` on the value, a statement of a block that holds `at`
    /// and ending before it, refuse every other value with an error (`match
    /// mode { "new" => .., "append" => .., _ => return Err("Invalid mode") }`,
    /// then `match mode { .., _ => "written" }`), or handle it and return
    /// (`_ => { ..; return Ok(chars) }`)?
    fn refused_before(&self, at: usize, name: &str) -> bool {
        let src = self.src;
        // `if action != "keep" && action != "remove" { return Err(..) }`
        let refused_by_if = self.flow.ifs.iter().any(|&i| {
            i.end_byte() <= at
                && field(i, "alternative").is_none()
                && field(i, "condition").is_some_and(|c| refuses_others(c, src, name, 0))
                && field(i, "consequence")
                    .is_some_and(|b| outcome(b, src) == Outcome::ErrorExit || returns(b))
                && statement_holds(i, at)
        });
        refused_by_if
            || self.flow.matches.iter().any(|&m| {
                if m.end_byte() > at {
                    return false;
                }
                let Some(value) = field(m, "value") else {
                    return false;
                };
                if argument_name(value, src) != name {
                    return false;
                }
                let Some((_, body)) = catch_all_arm(m, src) else {
                    return false;
                };
                // Refused, or handled and done: either way only the arms'
                // literals get past the match.
                if outcome(body, src) != Outcome::ErrorExit && !returns(body) {
                    return false;
                }
                statement_holds(m, at)
            })
    }

    /// A collision check on a name made by a call, whose branch only logs.
    /// Whether the call sanitises is for the rule to decide (the function
    /// may be in another file).
    fn name_collisions(&self, out: &mut Vec<Site>) {
        let src = self.src;
        for &i in &self.flow.ifs {
            let (Some(cond), Some(then)) = (field(i, "condition"), field(i, "consequence")) else {
                continue;
            };
            let Some(name) = collision_subject(cond, src) else {
                continue;
            };
            if !logs_only(then, src) {
                continue;
            }
            let made_by = self.flow.calls.iter().find_map(|&c| {
                if bound_name(c, src).as_deref() != Some(name.as_str()) {
                    return None;
                }
                // `sanitize(&raw).to_string()`: the call under the conversion.
                let mut c = c;
                for _ in 0..3 {
                    let (callee, recv) = ts::callee(c, src)?;
                    match recv.filter(|r| r.kind_name() == "call_expression") {
                        Some(r)
                            if matches!(
                                callee.as_str(),
                                "to_string" | "to_owned" | "into" | "clone" | "to_lowercase"
                            ) =>
                        {
                            c = r
                        }
                        _ => return Some((callee, span(c))),
                    }
                }
                None
            });
            let Some((sanitiser, sanitiser_span)) = made_by else {
                continue;
            };
            let speaks = |t: &str| {
                let t = t.to_ascii_lowercase();
                t.contains("tool") || t.contains("func")
            };
            let about_tools = speaks(&self.fact.name)
                || speaks(text(cond, src))
                || speaks(&src[sanitiser_span.start..sanitiser_span.end]);
            out.push(Site {
                span: span(cond),
                kind: SiteKind::NameCollision {
                    sanitiser,
                    sanitiser_span,
                    name,
                    about_tools,
                },
            });
        }
    }

    /// The parameters `n`'s value depends on (`self` excluded).
    fn mask(&self, n: TsNode) -> u64 {
        let self_bit = u64::from(self.fact.params.first().is_some_and(|p| p.is_self));
        self.flow.mask(n) & !self_bit
    }

    fn value(&self, n: TsNode) -> ValueRef {
        ValueRef {
            name: argument_name(n, self.src),
            text: text(n, self.src).to_string(),
            mask: self.mask(n),
            direct: self.flow.is_direct(n),
        }
    }

    fn bound(&self, n: TsNode) -> Bound {
        let t = text(n, self.src);
        let kind = match n.kind_name() {
            "integer_literal" => BoundKind::Int(literal_number(t)),
            "float_literal" => BoundKind::Float(literal_number(t)),
            "identifier" | "scoped_identifier" => {
                BoundKind::Name(t.rsplit("::").next().unwrap_or(t).to_string())
            }
            "field_expression" => BoundKind::Field,
            _ => BoundKind::Other,
        };
        Bound {
            text: t.to_string(),
            kind,
            tainted: self.mask(n) != 0,
        }
    }

    /// `match v { "a" => .., _ => fallback }` and
    /// `if v == "a" {..} else if v == "b" {..} else {..}`.
    fn selects(&self, out: &mut Vec<Site>) {
        let src = self.src;
        for &m in &self.flow.matches {
            let Some(value) = field(m, "value") else {
                continue;
            };
            let Some((arm, body)) = catch_all_arm(m, src) else {
                continue;
            };
            out.push(Site {
                span: Span::new(span(arm).start, span(body).end),
                kind: SiteKind::Select {
                    subject: self.value(value),
                    known: literal_arms(m, src),
                    form: SelectForm::Match,
                    // `fn parse_mode(s) -> Option<Mode> { match s { .., _ => None } }`:
                    // the absence goes back to a caller that decides.
                    fallback: if text(unblock(body), src).trim() == "None" && returned(m) {
                        Outcome::Declined
                    } else {
                        outcome(body, src)
                    },
                    does_work: does_work(body, src),
                    keeps_value: uses_subject(body, value, src)
                        || uses_subject(body, field(arm, "pattern").unwrap_or(arm), src),
                    checked_before: self.validated_before(m, value),
                },
            });
        }
        for &i in &self.flow.ifs {
            // Only the head of an `if … else if … else` chain.
            if self.flow.else_ifs.contains(&i.id()) {
                continue;
            }
            let Some((subject, known, last_else)) = chain(i, src) else {
                continue;
            };
            // `"add" | "remove" => { if action == "add" {..} else {..} }`:
            // the arm already narrowed the value; the `else` is the rest of
            // the arm's literals, not every other value.
            if narrowed_by_arm(i, subject, &known, src) {
                continue;
            }
            let known = known
                .into_iter()
                .map(|text| Literal { text, string: true })
                .collect();
            let site = match last_else {
                Fallback::Else(block) => {
                    let kw = block.parent().filter(|p| p.kind_name() == "else_clause");
                    Site {
                        span: kw.map_or(span(block).start_only(), |p| {
                            Span::new(span(p).start, span(p).start + 4)
                        }),
                        kind: SiteKind::Select {
                            subject: self.value(subject),
                            known,
                            form: SelectForm::IfElse,
                            fallback: outcome(block, src),
                            does_work: does_work(block, src),
                            keeps_value: uses_subject(block, subject, src),
                            checked_before: self.validated_before(i, subject),
                        },
                    }
                }
                Fallback::After => Site {
                    span: Span::new(span(i).start, span(i).start + 2),
                    kind: SiteKind::Select {
                        subject: self.value(subject),
                        known,
                        form: SelectForm::IfReturn,
                        fallback: Outcome::Other,
                        does_work: true,
                        keeps_value: false,
                        checked_before: self.validated_before(i, subject),
                    },
                },
            };
            out.push(site);
        }
    }

    /// `v.as_u64().unwrap_or(10)`, `s.parse().unwrap_or_default()`.
    fn parse_fallbacks(&self, out: &mut Vec<Site>) {
        let src = self.src;
        for &call in &self.flow.calls {
            let Some((name, Some(recv))) = ts::callee(call, src) else {
                continue;
            };
            if !matches!(
                name.as_str(),
                "unwrap_or" | "unwrap_or_default" | "unwrap_or_else"
            ) {
                continue;
            }
            let Some(conversion) = fallible_in(recv, src) else {
                continue;
            };
            // `i32::try_from(limit.unwrap_or(20))`: a number narrowed to
            // another integer type fails only on overflow, not on a value
            // of the wrong type.
            if conversion == "try_from" && narrows_integer(recv, src) {
                continue;
            }
            let args = ts::call_args(call);
            let first = args.first();
            let fallback = match first {
                Some(a) if is_error_exit(*a, src) => Outcome::ErrorExit,
                Some(a) if name == "unwrap_or" => {
                    Outcome::Default(format!("`{}`", crate::model::words::snippet(text(*a, src))))
                }
                Some(a) => Outcome::Default(format!(
                    "what `{}` returns",
                    crate::model::words::snippet(text(*a, src))
                )),
                None => Outcome::Default("the type's default".to_string()),
            };
            out.push(Site {
                span: method_span(call),
                kind: SiteKind::ParseFallback {
                    value: self.value(recv),
                    conversion: conversion.to_string(),
                    accepts: accepts(conversion),
                    fallback,
                    fallback_string: first.and_then(|a| ts::string_value(*a, src)),
                    // `u32::try_from(n).unwrap_or(u32::MAX)`: saturation.
                    saturates: first.is_some_and(|a| {
                        matches!(text(*a, src).rsplit("::").next(), Some("MAX" | "MIN"))
                    }),
                    checked_after: bound_name_kept(call, src).is_some_and(|var| {
                        let default = match (name.as_str(), first) {
                            ("unwrap_or", Some(a)) => Fixed::Text(text(*a, src)),
                            ("unwrap_or_default", _) => Fixed::TypeDefault,
                            _ => Fixed::Unknown,
                        };
                        checked_after(self.flow, src, &var, default)
                            || refused_by_match(self.flow, call, src, &var, default)
                    }),
                    echoed: bound_name_kept(call, src)
                        .is_some_and(|var| echoed_in_result(self.flow, src, &var)),
                    whole_arguments: (text(recv, src).contains("from_str")
                        && conversion == "from_str")
                        || (conversion == "as_object" && argument_name(recv, src) == ANY_ARGUMENT),
                },
            });
        }
    }

    /// `serde_json::from_str(&call.arguments).unwrap_or(json!({}))`.
    fn args_fallbacks(&self, out: &mut Vec<Site>) {
        let src = self.src;
        for &call in &self.flow.calls {
            let Some((name, None)) = ts::callee(call, src) else {
                continue;
            };
            if !matches!(name.as_str(), "from_str" | "from_slice" | "from_value") {
                continue;
            }
            let Some(input) = ts::call_args(call).into_iter().next() else {
                continue;
            };
            // `serde_json::from_value::<Value>(v)` cannot fail, and one into
            // a map (or into a type not written: `.with_arguments(
            // from_value(arguments).unwrap_or_default())`) fails only for
            // arguments that are not an object. Into a written type (`let a:
            // ExportArgs = from_value(args).unwrap_or(..)`) it fails on any
            // value of the wrong type.
            if name == "from_value" {
                let target = values::turbofish(call, src)
                    .map(|(t, _)| t)
                    .or_else(|| let_type(call, src));
                let fails_only_on_non_objects = match target {
                    Some(t) => {
                        let t = values::inner_type(&t, &["Result", "Option"])
                            .unwrap_or(&t)
                            .to_string();
                        let t = type_name(&t);
                        matches!(t, "Value" | "Map" | "JsonObject")
                    }
                    // The type a call's parameter sets
                    // (`.with_arguments(from_value(args).unwrap_or_default())`).
                    None => passed_as_argument(call),
                };
                if fails_only_on_non_objects {
                    continue;
                }
            }
            let Some((at, default)) = defaulted(call, src) else {
                continue;
            };
            let bare = text(input, src)
                .trim_start_matches('&')
                .trim_end_matches(".clone()")
                .trim();
            let own_parameter = self
                .fact
                .params
                .iter()
                .any(|p| !p.is_self && p.name == bare);
            out.push(Site {
                span: at,
                kind: SiteKind::ArgsFallback {
                    input: self.value(input),
                    default,
                    goes_to: dispatched(call, self),
                    own_parameter,
                    method_arm: method_arm(call, src),
                    raw_kept: raw_kept(call, bare, src),
                },
            });
        }
    }

    /// `x.min(MAX)`, `x.clamp(lo, hi)`, `min(x, MAX)`: caps only; raising
    /// a value to a floor never makes a result look like more than it is.
    fn clamps(&self, out: &mut Vec<Site>) {
        let src = self.src;
        for &call in &self.flow.calls {
            let Some((name, recv)) = ts::callee(call, src) else {
                continue;
            };
            let args = ts::call_args(call);
            let (requested, bounds): (TsNode, Vec<TsNode>) =
                match (name.as_str(), recv, args.as_slice()) {
                    ("min", Some(r), [b]) => (r, vec![*b]),
                    ("clamp", Some(r), [_, hi]) => (r, vec![*hi]),
                    ("min", None, [a, b]) => {
                        if self.mask(*a) != 0 && self.flow.is_direct(*a) {
                            (*a, vec![*b])
                        } else {
                            (*b, vec![*a])
                        }
                    }
                    _ => continue,
                };
            let value = self.value(requested);
            let compared = compared_elsewhere(self.flow, src, &value.name, &bounds)
                || self.validated_before(call, requested);
            out.push(Site {
                span: method_span(call),
                kind: SiteKind::Clamp {
                    value,
                    bounds: bounds.iter().map(|b| self.bound(*b)).collect(),
                    compared,
                },
            });
        }
    }

    /// `out.truncate(N)`, `lines.take(N)`, `&text[..N]`.
    fn truncations(&self, out: &mut Vec<Site>) {
        let src = self.src;
        for &call in &self.flow.calls {
            let Some((name, Some(recv))) = ts::callee(call, src) else {
                continue;
            };
            let how = match name.as_str() {
                "truncate" => CutHow::Truncate,
                "take" => CutHow::Take,
                _ => continue,
            };
            let [n] = ts::call_args(call)[..] else {
                continue;
            };
            out.push(Site {
                span: method_span(call),
                kind: SiteKind::Truncate {
                    how,
                    limit: self.bound(n),
                    collection: argument_name(recv, src),
                    into_error: into_error(call, src),
                    hidden_in_closure: false,
                    dest: stored_in(call, src),
                },
            });
        }
        // `loop { .. if buf.len() + n > MAX { break; } buf.extend(..) }`:
        // a collecting loop stopped at a cap.
        for &i in &self.flow.ifs {
            let (Some(cond), Some(then)) = (field(i, "condition"), field(i, "consequence")) else {
                continue;
            };
            if text(then, src).split_whitespace().collect::<String>() != "{break;}" {
                continue;
            }
            let Some((collection, cap)) = len_over_cap(cond, src) else {
                continue;
            };
            if !collects_in_loop(i, &collection, src) {
                continue;
            }
            out.push(Site {
                span: span(cond),
                kind: SiteKind::Truncate {
                    how: CutHow::Stop,
                    dest: collection.clone(),
                    limit: self.bound(cap),
                    collection,
                    into_error: false,
                    hidden_in_closure: hidden_in_closure(i, src, self.markers),
                },
            });
        }
        for &ix in &self.flow.indexes {
            let kids = ts::named_children(ix);
            let [_, range] = kids.as_slice() else {
                continue;
            };
            if range.kind_name() != "range_expression" {
                continue;
            }
            let parts = ts::named_children(*range);
            let [end] = parts.as_slice() else { continue };
            if !text(*range, src).trim_start().starts_with("..") || compared_only(ix, src) {
                continue;
            }
            out.push(Site {
                span: span(ix),
                kind: SiteKind::Truncate {
                    how: CutHow::Slice,
                    limit: self.bound(*end),
                    collection: String::new(),
                    into_error: into_error(ix, src),
                    hidden_in_closure: false,
                    dest: stored_in(ix, src),
                },
            });
        }
    }
}

/// Is the slice `n` only compared or looked up (`tag.starts_with(&word[..3])`,
/// `&id[..8] == prefix`, `match &s[..2] { .. }`): a key, not output?
fn compared_only(n: TsNode, src: &str) -> bool {
    let mut cur = n;
    for _ in 0..4 {
        let Some(p) = cur.parent() else { return false };
        match p.kind_name() {
            "reference_expression" | "parenthesized_expression" => cur = p,
            "binary_expression" => {
                return field(p, "operator").is_some_and(|o| {
                    matches!(text(o, src), "==" | "!=" | "<" | ">" | "<=" | ">=")
                });
            }
            "match_expression" => return field(p, "value").is_some_and(|v| v.id() == cur.id()),
            "arguments" => {
                return p
                    .parent()
                    .and_then(|c| ts::callee(c, src))
                    .is_some_and(|(name, _)| {
                        matches!(
                            name.as_str(),
                            "starts_with"
                                | "ends_with"
                                | "contains"
                                | "contains_key"
                                | "eq"
                                | "ne"
                                | "eq_ignore_ascii_case"
                                | "cmp"
                                | "get"
                                | "find"
                                | "strip_prefix"
                        )
                    });
            }
            _ => return false,
        }
    }
    false
}

/// The local or field a value is stored in: `let snippet = <n>…;`,
/// `Item { content_snippet: <n>…, .. }`, through the calls chained on it
/// (`.collect()`, `.to_string()`).
fn stored_in(n: TsNode, src: &str) -> String {
    let mut cur = n;
    for _ in 0..6 {
        let Some(p) = cur.parent() else { break };
        match p.kind_name() {
            "let_declaration" => {
                return field(p, "pattern")
                    .filter(|pat| pat.kind_name() == "identifier")
                    .map(|pat| text(pat, src).to_string())
                    .unwrap_or_default();
            }
            "field_initializer" => {
                return field(p, "field")
                    .map(|f| text(f, src).to_string())
                    .unwrap_or_default();
            }
            "call_expression"
            | "field_expression"
            | "arguments"
            | "reference_expression"
            | "try_expression"
            | "generic_function" => cur = p,
            _ => break,
        }
    }
    String::new()
}

/// `buf.len() > MAX`, `buf.len() + n >= MAX`: the collection and the cap.
fn len_over_cap<'t>(cond: TsNode<'t>, src: &str) -> Option<(String, TsNode<'t>)> {
    if cond.kind_name() != "binary_expression"
        || !field(cond, "operator").is_some_and(|o| matches!(text(o, src), ">" | ">="))
    {
        return None;
    }
    let (left, right) = (field(cond, "left")?, field(cond, "right")?);
    // `buf.len() + n`: the length part.
    let len = if left.kind_name() == "binary_expression" {
        field(left, "left")?
    } else {
        left
    };
    let (name, recv) = ts::callee(len, src)?;
    let recv = recv?;
    (name == "len" && recv.kind_name() == "identifier")
        .then(|| (text(recv, src).to_string(), right))
}

/// Is `i` in a loop whose body adds to `collection`?
fn collects_in_loop(i: TsNode, collection: &str, src: &str) -> bool {
    let mut n = i;
    for _ in 0..8 {
        let Some(p) = n.parent() else { return false };
        match p.kind_name() {
            "loop_expression" | "while_expression" | "for_expression" => {
                let body = text(p, src);
                return ["push", "extend", "insert", "append"]
                    .iter()
                    .any(|m| body.contains(&format!("{collection}.{m}")));
            }
            "function_item" | "closure_expression" => return false,
            _ => n = p,
        }
    }
    false
}

/// The JSON-RPC method of the `match` arm `n` is in, when the arm's
/// pattern is a method name (`"tools/list"`, `"resources/read"`,
/// `"initialize"`, `"ping"`).
fn method_arm(n: TsNode, src: &str) -> Option<String> {
    let mut p = n;
    loop {
        let up = p.parent()?;
        match up.kind_name() {
            // The nearest arm whose pattern names a method; an inner
            // `match` on something else is looked through.
            "match_arm" => {
                let lit = field(up, "pattern").and_then(|pat| {
                    ts::named_children(pat)
                        .into_iter()
                        .find_map(|c| ts::string_value(c, src))
                });
                if let Some(lit) = lit.filter(|l| is_rpc_method(l)) {
                    return Some(lit);
                }
                p = up;
            }
            "function_item" | "closure_expression" => return None,
            _ => p = up,
        }
    }
}

/// `initialize`, `ping`, `tools/list`, `notifications/initialized`.
fn is_rpc_method(lit: &str) -> bool {
    matches!(lit, "initialize" | "ping")
        || (lit.contains('/')
            && lit
                .split('/')
                .all(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphabetic() || c == '_')))
}

/// Is `n` inside a closure (`thread::spawn(move || { .. buf })`) whose
/// body says nothing of a cut: no string that mentions one, no field or
/// local named for it (`truncated`), and no tuple carrying a flag (`(buf,
/// true)`)? What the closure gives back cannot tell its caller it was cut.
fn hidden_in_closure(n: TsNode, src: &str, markers: &[String]) -> bool {
    let mut p = n;
    let closure = loop {
        let Some(up) = p.parent() else { return false };
        match up.kind_name() {
            "closure_expression" => break up,
            "function_item" => return false,
            _ => p = up,
        }
    };
    let Some(body) = field(closure, "body") else {
        return false;
    };
    let mut says = false;
    ts::walk(body, &mut |c| {
        if says {
            return false;
        }
        says = match c.kind_name() {
            "string_literal" | "raw_string_literal" => ts::string_value(c, src)
                .is_some_and(|s| crate::model::words::mentions_truncation(&s, markers)),
            "identifier" | "field_identifier" => {
                crate::model::words::truncation_field(text(c, src))
            }
            "tuple_expression" => ts::named_children(c)
                .iter()
                .any(|x| x.kind_name() == "boolean_literal"),
            _ => false,
        };
        !says
    });
    !says
}

/// Does the value of `n` go into an error: an argument of `Err(..)`, or
/// of a constructor of a type named `..Error` (`ApiError { .. }`,
/// `DriveError::Api { .. }`, `McpError::internal(..)`)?
fn into_error(n: TsNode, src: &str) -> bool {
    let errorish = |t: &str| {
        t.split("::")
            .any(|seg| seg.ends_with("Error") || seg == "Err")
    };
    let mut cur = n;
    for _ in 0..ts::MAX_DEPTH {
        let Some(p) = cur.parent() else { return false };
        match p.kind_name() {
            "function_item" | "closure_expression" | "block" => return false,
            "call_expression" => {
                if let Some(f) = field(p, "function")
                    && errorish(text(f, src))
                {
                    return true;
                }
            }
            "struct_expression" => {
                if let Some(name) = field(p, "name")
                    && errorish(text(name, src))
                {
                    return true;
                }
            }
            _ => {}
        }
        cur = p;
    }
    false
}

/// Does `n` tell the reader the value was not recognised: a string that
/// says so, or a counter or list named for such values?
fn says_unknown(n: TsNode, src: &str) -> bool {
    let mut found = false;
    ts::walk(n, &mut |c| {
        match c.kind_name() {
            "string_literal" | "raw_string_literal" => {
                found |= crate::model::words::says_unrecognised(text(c, src));
            }
            // Counted or kept as unknown (`_ => unknown += 1`,
            // `invalid_steps.push(s)`): the result says so.
            "identifier" | "field_identifier" => {
                found |= text(c, src).to_ascii_lowercase().split('_').any(|w| {
                    matches!(
                        w,
                        "unknown" | "unrecognized" | "unrecognised" | "unsupported" | "invalid"
                    )
                });
            }
            _ => {}
        }
        !found
    });
    found
}

/// Is `n` what its function returns: the tail of the function's body or
/// the value of a `return`?
fn returned(n: TsNode) -> bool {
    let Some(p) = n.parent() else { return false };
    match p.kind_name() {
        "return_expression" => true,
        "block" => {
            p.parent().is_some_and(|f| f.kind_name() == "function_item")
                && ts::named_children(p)
                    .last()
                    .is_some_and(|l| l.id() == n.id())
        }
        "expression_statement" => p.parent().is_some_and(|b| {
            b.kind_name() == "block"
                && b.parent().is_some_and(|f| f.kind_name() == "function_item")
                && ts::named_children(b)
                    .last()
                    .is_some_and(|l| l.id() == p.id())
        }),
        _ => false,
    }
}

/// Does the result of `call` end the handler when it is an error: `call?`,
/// `if let Err(..) = call { return .. }`, `match call { Err(..) => return
/// .., .. }`?
fn fails_the_call(call: TsNode, src: &str) -> bool {
    let Some(p) = call.parent() else { return false };
    match p.kind_name() {
        "try_expression" => true,
        "let_condition" => {
            field(p, "pattern").is_some_and(|pat| text(pat, src).starts_with("Err"))
                && p.parent()
                    .and_then(|i| field(i, "consequence"))
                    .is_some_and(|b| text(b, src).contains("return"))
        }
        "match_expression" => field(p, "body").is_some_and(|b| {
            ts::named_children(b).iter().any(|arm| {
                field(*arm, "pattern").is_some_and(|pat| text(pat, src).starts_with("Err"))
                    && field(*arm, "value").is_some_and(|v| {
                        let t = text(v, src);
                        t.contains("return") || t.contains('?')
                    })
            })
        }),
        _ => false,
    }
}

/// Is `i` inside a `match` arm on the same value whose literal patterns
/// include every value the chain names?
fn narrowed_by_arm(i: TsNode, subject: TsNode, known: &[String], src: &str) -> bool {
    let bare = |n: TsNode| text(ts::peel(n, src), src).trim_end_matches(".as_deref()");
    let subject = bare(subject);
    let mut n = i;
    for _ in 0..12 {
        let Some(p) = n.parent() else { return false };
        if p.kind_name() == "function_item" || p.kind_name() == "closure_expression" {
            return false;
        }
        if p.kind_name() == "match_arm"
            && let Some(m) = p.parent().and_then(|b| b.parent())
            && m.kind_name() == "match_expression"
            && field(m, "value").is_some_and(|v| bare(v) == subject)
        {
            let mut lits = Vec::new();
            if let Some(pat) = field(p, "pattern") {
                ts::walk(pat, &mut |c| {
                    if let Some(v) = ts::string_value(c, src) {
                        lits.push(v);
                    }
                    true
                });
            }
            // The chain's literals are quoted (`"add"`).
            return lits.len() >= 2
                && known
                    .iter()
                    .all(|k| lits.iter().any(|l| k.trim_matches('"') == l));
        }
        n = p;
    }
    false
}

/// What evaluating `n` as a fallback does.
fn outcome(n: TsNode, src: &str) -> Outcome {
    if is_error_exit(n, src) {
        Outcome::ErrorExit
    } else if says_unknown(n, src) {
        Outcome::SaysUnknown
    } else if let Some(d) = default_value(n, src) {
        Outcome::Default(d)
    } else {
        Outcome::Other
    }
}

/// A branch that does something (not `{}` or `()`).
fn does_work(body: TsNode, src: &str) -> bool {
    let t: String = text(body, src)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    !matches!(t.as_str(), "{}" | "()" | "{()}")
}

/// Where the values a chain does not name end up.
#[derive(Clone, Copy)]
enum Fallback<'t> {
    /// The final `else` block.
    Else(TsNode<'t>),
    /// No `else`, and the branches return: the code after the `if`.
    After,
}

/// For `if x == "a" {..} else if x == "b" {..} else {..}`: the compared
/// value, the literals, and where other values go: the final `else`, or
/// the code after the `if` when there is no `else` and the branches return.
fn chain<'t>(i: TsNode<'t>, src: &str) -> Option<(TsNode<'t>, Vec<String>, Fallback<'t>)> {
    let mut subject: Option<TsNode> = None;
    let mut known = Vec::new();
    let mut cur = i;
    for _ in 0..32 {
        let cond = field(cur, "condition")?;
        let (s, lit) = string_eq(cond, src)?;
        if let Some(prev) = subject
            && text(prev, src) != text(s, src)
        {
            return None;
        }
        subject = Some(s);
        known.push(lit);
        let Some(alt) = field(cur, "alternative") else {
            // `if x == "a" { ..; return ..; }` with the rest after it.
            let then = field(cur, "consequence")?;
            let mut has_return = false;
            ts::walk(then, &mut |c| {
                has_return |= c.kind_name() == "return_expression";
                !has_return
            });
            let returns = has_return && !is_error_exit(then, src);
            return if returns {
                Some((subject?, known, Fallback::After))
            } else {
                None
            };
        };
        let next = ts::named_children(alt).into_iter().next()?;
        if next.kind_name() == "if_expression" {
            cur = next;
        } else {
            return Some((subject?, known, Fallback::Else(next)));
        }
    }
    None
}

/// `x == "lit"` (either side): the compared expression and the literal.
fn string_eq<'t>(cond: TsNode<'t>, src: &str) -> Option<(TsNode<'t>, String)> {
    if cond.kind_name() != "binary_expression"
        || field(cond, "operator").map(|o| text(o, src)) != Some("==")
    {
        return None;
    }
    let (l, r) = (field(cond, "left")?, field(cond, "right")?);
    let lit = |n: TsNode| ts::string_value(n, src).filter(|s| !s.is_empty());
    match (lit(l), lit(r)) {
        (None, Some(s)) => Some((l, format!("\"{s}\""))),
        (Some(s), None) => Some((r, format!("\"{s}\""))),
        _ => None,
    }
}

/// Conversions that fail on a present value of the wrong type or shape.
/// What a serde_json accessor takes without failing; the parsers take
/// text no schema type vouches for.
fn accepts(conversion: &str) -> Accepts {
    match conversion {
        "as_bool" => Accepts::Boolean,
        "as_str" => Accepts::String,
        "as_i64" => Accepts::Integer,
        "as_u64" => Accepts::NonNegativeInteger,
        "as_f64" | "as_number" => Accepts::Number,
        "as_array" => Accepts::Array,
        "as_object" => Accepts::Object,
        _ => Accepts::Other,
    }
}

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

/// The functions whose result a body puts in a `name` field: `"name":
/// names::to_wire(&spec.name)` in a `json!`, `name: sanitize(&t.name)` in
/// a struct literal (the last path segment of each callee).
pub fn name_field_callees(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in body.match_indices("name") {
        let before = body[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.') {
            continue;
        }
        let mut rest = &body[i + 4..];
        rest = rest.strip_prefix('"').unwrap_or(rest).trim_start();
        let Some(r) = rest.strip_prefix(':') else {
            continue;
        };
        if r.starts_with(':') {
            continue;
        }
        let r = r.trim_start();
        let path: &str = &r[..r
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(r.len())];
        if !path.is_empty() && r[path.len()..].starts_with('(') {
            let last = path.rsplit("::").next().unwrap_or(path);
            if !last.is_empty() && last.chars().next().is_some_and(|c| c.is_lowercase()) {
                out.push(last.to_string());
            }
        }
    }
    out
}

/// Does a function body map characters outside a set to `_` (or `-`)?
/// `c.is_ascii_alphanumeric() .. else { '_' }`, `=> '_'`, `push('_')`,
/// `replace(|c: char| !c.is_alphanumeric(), "_")`, a `[^a-zA-Z0-9_]`
/// class replaced with `"_"`. A check that only tests characters
/// (`.all(|c| c.is_alphanumeric() || c == '_')`) is not one.
pub fn sanitises_names(body: &str) -> bool {
    // Cheap tests first: this runs on every function body.
    let tests_chars = (body.contains("alphanumeric")
        && (body.contains("is_ascii_alphanumeric") || body.contains("is_alphanumeric")))
        || (body.contains("[^")
            && ["[^a-zA-Z0-9", "[^A-Za-z0-9", "[^a-z0-9", "[^\\w"]
                .iter()
                .any(|w| body.contains(w)));
    if !tests_chars || !(body.contains('_') || body.contains('-')) {
        return false;
    }
    let squashed: String = body.split_whitespace().collect();
    [
        "{'_'}",
        "=>'_'",
        "push('_')",
        "{'-'}",
        "=>'-'",
        "push('-')",
        "\"_\")",
    ]
    .iter()
    .any(|w| squashed.contains(w))
}

/// The log macros: a branch made only of these tells no one but the log.
const LOG_MACROS: &[&str] = &[
    "warn", "error", "info", "debug", "trace", "eprintln", "println", "log", "event",
];

/// Is `block` made only of log macro calls (at least one)?
fn logs_only(block: TsNode, src: &str) -> bool {
    let stmts: Vec<TsNode> = ts::named_children(block)
        .into_iter()
        .filter(|n| !matches!(n.kind_name(), "line_comment" | "block_comment"))
        .collect();
    !stmts.is_empty()
        && stmts.iter().all(|s| {
            let m = if s.kind_name() == "expression_statement" {
                s.named_child(0)
            } else {
                Some(*s)
            };
            m.is_some_and(|m| {
                m.kind_name() == "macro_invocation" && LOG_MACROS.contains(&ts::macro_name(m, src))
            })
        })
}

/// The local a collision check is about: `seen.contains(&name)`,
/// `map.contains_key(&name)`, `!seen.insert(name.clone())`,
/// `map.insert(name, t).is_some()`, `map.get(&name).is_some()`,
/// `let Some(_) = map.insert(name, t)`.
fn collision_subject(cond: TsNode, src: &str) -> Option<String> {
    let cond = match cond.kind_name() {
        "unary_expression" if text(cond, src).starts_with('!') => cond.named_child(0)?,
        "let_condition" => field(cond, "value")?,
        _ => cond,
    };
    if cond.kind_name() != "call_expression" {
        return None;
    }
    let (name, recv) = ts::callee(cond, src)?;
    let call = match name.as_str() {
        "contains" | "contains_key" | "insert" => cond,
        "is_some" => {
            let inner = recv?;
            let (n, _) = ts::callee(inner, src)?;
            if !matches!(n.as_str(), "insert" | "get") {
                return None;
            }
            inner
        }
        _ => return None,
    };
    let arg = *ts::call_args(call).first()?;
    let t = text(ts::peel(arg, src), src);
    (!t.is_empty() && t.chars().all(|c| c.is_alphanumeric() || c == '_')).then(|| t.to_string())
}

/// `let x = <call>;`: the name the defaulted value is bound to.
fn bound_name(call: TsNode, src: &str) -> Option<String> {
    let mut n = call;
    for _ in 0..3 {
        let p = n.parent()?;
        if p.kind_name() == "let_declaration" {
            let pat = field(p, "pattern")?;
            return (pat.kind_name() == "identifier").then(|| text(pat, src).to_string());
        }
        if !matches!(
            p.kind_name(),
            "try_expression" | "await_expression" | "parenthesized_expression"
        ) {
            return None;
        }
        n = p;
    }
    None
}

/// `let x = <call>.to_string();`: the name the call's value is bound to,
/// also through a conversion that keeps the value (`to_string`,
/// `to_owned`, `into`, `clone`).
fn bound_name_kept(call: TsNode, src: &str) -> Option<String> {
    bound_name(call, src).or_else(|| {
        let f = call
            .parent()
            .filter(|p| p.kind_name() == "field_expression")?;
        let conv = f.parent().filter(|p| p.kind_name() == "call_expression")?;
        let method = field(f, "field").map(|n| text(n, src))?;
        (matches!(method, "to_string" | "to_owned" | "into" | "clone")
            && ts::call_args(conv).is_empty())
        .then(|| bound_name(conv, src))
        .flatten()
    })
}

/// Does the arm's value always leave the function: `return ..`, or a
/// block whose last statement is one?
fn returns(n: TsNode) -> bool {
    let mut n = n;
    for _ in 0..8 {
        match n.kind_name() {
            "return_expression" => return true,
            "expression_statement" | "block" => {
                let mut cursor = n.walk();
                let last = n
                    .named_children(&mut cursor)
                    .filter(|c| !matches!(c.kind_name(), "line_comment" | "block_comment"))
                    .last();
                match last {
                    Some(l) => n = l,
                    None => return false,
                }
            }
            _ => return false,
        }
    }
    false
}

/// The value a fallback puts in place.
#[derive(Clone, Copy)]
enum Fixed<'s> {
    /// Written out: `""`, `10`, `false`.
    Text(&'s str),
    /// The type's default (`0`, `""`, `false`, empty).
    TypeDefault,
    /// Computed (`unwrap_or_else(f)`).
    Unknown,
}

/// `if x.is_empty() { return Err(..) }`: the default is caught afterwards,
/// when the check holds for the default itself (`count == 0` does not
/// catch a default of `1`). A check that cannot be evaluated counts as
/// catching it.
fn checked_after(flow: &Flow, src: &str, var: &str, default: Fixed) -> bool {
    flow.ifs.iter().any(|i| {
        let (Some(cond), Some(then)) = (field(*i, "condition"), field(*i, "consequence")) else {
            return false;
        };
        ts::identifiers(cond, src).iter().any(|(n, _)| n == var)
            && is_error_exit(then, src)
            && catches(cond, src, var, default)
    })
}

/// `let action = ..unwrap_or(""); match action { "create" => .., _ =>
/// Err(..) }`: a literal default that no arm names lands in a catch-all that
/// refuses it, so a missing value is reported, not used. Only a `match` that
/// runs whenever the `let` does (in the same block, after it, with `var`
/// not bound again in between) and whose other arms are plain literals
/// without guards.
fn refused_by_match(flow: &Flow, call: TsNode, src: &str, var: &str, default: Fixed) -> bool {
    // The type's default is `""`, `0` or `false`, whichever the type is.
    let defaults: Vec<&str> = match default {
        Fixed::Text(t) if is_literal(t) => vec![t.trim_matches('"')],
        Fixed::TypeDefault => vec!["", "0", "false"],
        _ => return false,
    };
    let mut stmt = call;
    for _ in 0..4 {
        match stmt.parent() {
            Some(p) => stmt = p,
            None => return false,
        }
        if stmt.kind_name() == "let_declaration" {
            break;
        }
    }
    let Some(block) = stmt
        .parent()
        .filter(|_| stmt.kind_name() == "let_declaration")
    else {
        return false;
    };
    flow.matches.iter().any(|&m| {
        let Some(value) = field(m, "value") else {
            return false;
        };
        let subject = text(ts::peel(value, src), src)
            .trim_start_matches(['&', '*'])
            .trim_end_matches(".as_str()")
            .trim_end_matches(".as_ref()");
        subject == var
            && m.start_byte() >= stmt.end_byte()
            && runs_unconditionally(m, block)
            && !rebinds(src.get(stmt.end_byte()..m.start_byte()).unwrap_or(""), var)
            && catch_all_arm(m, src).is_some_and(|(_, body)| {
                matches!(
                    outcome(body, src),
                    Outcome::ErrorExit | Outcome::SaysUnknown
                )
            })
            && literal_arms_only(m, src)
            && !literal_arms(m, src)
                .iter()
                .any(|l| defaults.contains(&l.text.trim_matches('"')))
    })
}

/// `"x"`, `3`, `-1.5`, `true`: a literal, not a constant or a call.
fn is_literal(t: &str) -> bool {
    let t = t.trim();
    (t.len() >= 2 && t.starts_with('"') && t.ends_with('"'))
        || t.parse::<f64>().is_ok()
        || matches!(t, "true" | "false")
}

/// Is `m` reached whenever `block`'s statements run: nested only in
/// statements and expressions that always evaluate their parts?
fn runs_unconditionally(m: TsNode, block: TsNode) -> bool {
    let mut n = m;
    for _ in 0..16 {
        let Some(p) = n.parent() else {
            return false;
        };
        if p.id() == block.id() {
            return true;
        }
        if !matches!(
            p.kind_name(),
            "expression_statement"
                | "let_declaration"
                | "return_expression"
                | "try_expression"
                | "await_expression"
                | "parenthesized_expression"
                | "arguments"
                | "call_expression"
        ) {
            return false;
        }
        n = p;
    }
    false
}

/// Does `between` bind `var` again (`let var`, `for var in`, `|var|`,
/// `Some(var)`)?
fn rebinds(between: &str, var: &str) -> bool {
    ["let ", "let mut ", "for ", "|", "Some(", "Ok("]
        .iter()
        .any(|b| {
            let pattern = format!("{b}{var}");
            between.match_indices(&pattern).any(|(i, _)| {
                let after = between[i + pattern.len()..].chars().next();
                !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
            })
        })
}

/// Every arm but the catch-all is literals joined by `|`, with no guard.
fn literal_arms_only(m: TsNode, src: &str) -> bool {
    let Some(block) = field(m, "body") else {
        return false;
    };
    let catch_all = catch_all_arm(m, src).map(|(arm, _)| arm.id());
    ts::named_children(block)
        .into_iter()
        .filter(|arm| arm.kind_name() == "match_arm" && Some(arm.id()) != catch_all)
        .all(|arm| {
            field(arm, "pattern").is_some_and(|pat| {
                field(pat, "condition").is_none() && text(pat, src).split('|').all(is_literal)
            })
        })
}

/// Does `cond` hold when `var` is the default? Disjuncts that do not name
/// `var` are skipped; one that names it in a way not understood holds.
fn catches(cond: TsNode, src: &str, var: &str, default: Fixed) -> bool {
    let mut disjuncts = Vec::new();
    split_or(cond, src, &mut disjuncts, 0);
    disjuncts
        .into_iter()
        .filter(|d| ts::identifiers(*d, src).iter().any(|(n, _)| n == var))
        .any(|d| holds_for_default(d, src, var, default).unwrap_or(true))
}

fn split_or<'t>(n: TsNode<'t>, src: &str, out: &mut Vec<TsNode<'t>>, depth: usize) {
    let n = if n.kind_name() == "parenthesized_expression" {
        n.named_child(0).unwrap_or(n)
    } else {
        n
    };
    if depth < 32
        && n.kind_name() == "binary_expression"
        && field(n, "operator").map(|o| text(o, src)) == Some("||")
        && let (Some(l), Some(r)) = (field(n, "left"), field(n, "right"))
    {
        split_or(l, src, out, depth + 1);
        split_or(r, src, out, depth + 1);
    } else {
        out.push(n);
    }
}

/// `x.is_empty()`, `x == 0`, `x < 1`, `!x` evaluated for the default;
/// `None` when the check is another shape or the default is unknown.
fn holds_for_default(d: TsNode, src: &str, var: &str, default: Fixed) -> Option<bool> {
    let is_var = |n: TsNode| text(n, src) == var;
    let empty = match default {
        Fixed::Text(t) => {
            let c: String = t.chars().filter(|c| !c.is_whitespace()).collect();
            matches!(
                c.as_str(),
                "\"\"" | "0" | "0.0" | "false" | "vec![]" | "String::new()" | "Vec::new()"
            )
        }
        Fixed::TypeDefault => true,
        Fixed::Unknown => return None,
    };
    match d.kind_name() {
        "call_expression" => {
            let (name, recv) = ts::callee(d, src)?;
            (name == "is_empty" && recv.is_some_and(is_var)).then_some(empty)
        }
        "unary_expression" if text(d, src).trim_start().starts_with('!') => {
            let inner = d.named_child(0)?;
            is_var(inner).then_some(empty)
        }
        "binary_expression" => {
            let op = text(field(d, "operator")?, src);
            let (l, r) = (field(d, "left")?, field(d, "right")?);
            let (lit, flipped) = match (is_var(l), is_var(r)) {
                (true, false) => (r, false),
                (false, true) => (l, true),
                _ => return None,
            };
            let lit = text(lit, src);
            let value = match default {
                Fixed::Text(t) => t.trim(),
                Fixed::TypeDefault => "0",
                Fixed::Unknown => return None,
            };
            if op == "==" || op == "!=" {
                let same =
                    lit.trim() == value || (empty && matches!(lit.trim(), "\"\"" | "0" | "false"));
                return Some(same == (op == "=="));
            }
            let (a, b) = (literal_number(value)?, literal_number(lit)?);
            // `var OP lit`, or `lit OP var` read the other way round.
            let (x, y) = if flipped { (b, a) } else { (a, b) };
            Some(match op {
                "<" => x < y,
                "<=" => x <= y,
                ">" => x > y,
                ">=" => x >= y,
                _ => return None,
            })
        }
        _ => None,
    }
}

/// Is `recv` (through the calls chained on it) a `try_from` into a
/// primitive integer type (`i32::try_from(n)`, `u16::try_from(x)`)?
fn narrows_integer(recv: TsNode, src: &str) -> bool {
    let mut n = recv;
    for _ in 0..8 {
        if n.kind_name() == "call_expression"
            && let Some(f) = field(n, "function")
        {
            let path = text(f, src);
            if let Some(ty) = path.strip_suffix("::try_from") {
                return matches!(
                    ty.rsplit("::").next().unwrap_or(""),
                    "i8" | "i16"
                        | "i32"
                        | "i64"
                        | "i128"
                        | "isize"
                        | "u8"
                        | "u16"
                        | "u32"
                        | "u64"
                        | "u128"
                        | "usize"
                );
            }
        }
        n = match n.kind_name() {
            "call_expression" => match ts::callee(n, src) {
                Some((_, Some(r))) => r,
                _ => return false,
            },
            "try_expression" | "parenthesized_expression" => match n.named_child(0) {
                Some(c) => c,
                None => return false,
            },
            _ => return false,
        };
    }
    false
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
        n = match n.kind_name() {
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
                    let inner = match a.kind_name() {
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

fn is_sink(name: &str) -> bool {
    SINKS.contains(&name) || name.contains("tool")
}

/// A record of a tool call the model made, to be run (`ToolCall { name,
/// arguments }`), unlike a transcript entry (`CallRecord`).
pub fn tool_call_record(type_text: &str) -> bool {
    let t = type_name(type_text);
    [
        "ToolCall",
        "ToolUse",
        "FunctionCall",
        "ToolRequest",
        "ToolInvocation",
    ]
    .iter()
    .any(|s| t.ends_with(s))
}

/// Is the text `bare` (what `call` parses) also put, unparsed, in the
/// arguments field of a tool-call record in the same function
/// (`SimplifiedToolCall { arguments: args.clone(), .. }`)?
fn raw_kept(call: TsNode, bare: &str, src: &str) -> bool {
    let mut f = call;
    while f.kind_name() != "function_item" {
        match f.parent() {
            Some(p) => f = p,
            None => return false,
        }
    }
    record_arguments_hold(f, src, |v| {
        v.trim_start_matches('&')
            .trim_end_matches(".clone()")
            .trim_end_matches(".to_string()")
            .trim()
            == bare
    })
}

/// Does a tool-call record literal in `scope` put, in its arguments field,
/// a value whose text `holds` (`ToolCall { arguments, .. }`,
/// `ToolCall { arguments: args.clone(), .. }`)?
fn record_arguments_hold(scope: TsNode, src: &str, holds: impl Fn(&str) -> bool) -> bool {
    let mut found = false;
    ts::walk(scope, &mut |n| {
        if n.kind_name() == "struct_expression"
            && field(n, "name").is_some_and(|r| tool_call_record(text(r, src)))
            && let Some(body) = field(n, "body")
        {
            found |= ts::named_children(body).into_iter().any(|init| {
                let (name, value) = match init.kind_name() {
                    "shorthand_field_initializer" => (init.named_child(0), init.named_child(0)),
                    "field_initializer" => (field(init, "field"), field(init, "value")),
                    _ => (None, None),
                };
                name.is_some_and(|f| arguments_field(text(f, src)))
                    && value.is_some_and(|v| holds(text(v, src)))
            });
        }
        !found
    });
    found
}

/// Is a tool-call record's field of this name its arguments (`arguments`,
/// `input`, `tool_args`)?
fn arguments_field(name: &str) -> bool {
    crate::model::words::arguments_word(&name.to_ascii_lowercase())
}

/// Where the defaulted arguments go: a call that runs a tool (in the same
/// function, directly or through a `let`), the return value of a function
/// named for arguments (`parse_args`: its callers run tools with it), or
/// a tool-call record.
fn dispatched(call: TsNode, f: &FnSites) -> ArgsUse {
    let src = f.src;
    // The expression the default belongs to, up to its statement.
    let mut top = call;
    let mut bound: Option<(String, TsNode)> = None;
    let mut returned = false;
    for _ in 0..8 {
        let Some(p) = top.parent() else { break };
        match p.kind_name() {
            "let_declaration" => {
                bound = field(p, "pattern")
                    .filter(|x| x.kind_name() == "identifier")
                    .map(|x| (text(x, src).to_string(), p));
                break;
            }
            "arguments" => {
                if let Some(c) = p.parent()
                    && let Some((name, _)) = ts::callee(c, src)
                    && is_sink(&name)
                {
                    return ArgsUse::Sink;
                }
                top = p;
            }
            // `ToolCall { arguments: serde_json::from_str(..).unwrap_or(..) }`
            "field_initializer" => {
                let record = p
                    .parent()
                    .and_then(|l| l.parent())
                    .filter(|s| s.kind_name() == "struct_expression")
                    .and_then(|s| field(s, "name"));
                if record.is_some_and(|r| tool_call_record(text(r, src)))
                    && field(p, "field").is_some_and(|f| arguments_field(text(f, src)))
                {
                    return ArgsUse::Record;
                }
                break;
            }
            // The value of an `if`/`match` branch flows out of it.
            "block" => {
                if tail_expr(p).map(|t| t.id()) != Some(top.id()) {
                    break;
                }
                // The tail of the function body: the function returns it.
                if p.parent().is_some_and(|f| f.kind_name() == "function_item") {
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
    let fn_name = f.fact.name.to_ascii_lowercase();
    let named_for_arguments = fn_name.split('_').any(|w| {
        matches!(
            w,
            "arg" | "args" | "arguments" | "param" | "params" | "parameters" | "input"
        )
    });
    if returned && named_for_arguments {
        return ArgsUse::Returned;
    }
    let Some((var, decl)) = bound else {
        return ArgsUse::Nowhere;
    };
    let to_sink = f.flow.calls.iter().any(|c| {
        ts::callee(*c, src).is_some_and(|(name, recv)| {
            is_sink(&name)
                && (ts::call_args(*c)
                    .iter()
                    .chain(recv.iter())
                    .any(|a| ts::identifiers(*a, src).iter().any(|(n, _)| *n == var)))
        })
    });
    if to_sink {
        return ArgsUse::Sink;
    }
    // `let arguments = ..; ToolCall { id, name, arguments }`
    let record = decl
        .parent()
        .is_some_and(|scope| record_arguments_hold(scope, src, |v| v == var));
    if record {
        ArgsUse::Record
    } else {
        ArgsUse::Nowhere
    }
}

/// Where the parse result of `call` is replaced by a default on error, and
/// that default: `.unwrap_or(json!({}))`, `.unwrap_or_default()`,
/// `.ok().unwrap_or_default()`, `Err(_) => json!({})`, `if let Ok(..) else`.
fn defaulted(call: TsNode, src: &str) -> Option<(Span, String)> {
    let mut cur = call;
    for _ in 0..4 {
        let parent = cur.parent()?;
        match parent.kind_name() {
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
                        let value = if a.kind_name() == "closure_expression" {
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

/// `if limit > MAX { .. }` somewhere in the function: the code looks at the
/// request against the bound (to warn or to refuse), so it is not silent.
fn compared_elsewhere(flow: &Flow, src: &str, arg: &str, bounds: &[TsNode]) -> bool {
    flow.ifs.iter().any(|i| {
        field(*i, "condition").is_some_and(|c| {
            let t = text(c, src);
            (t.contains('>') || t.contains('<'))
                && t.contains(arg)
                && bounds.iter().any(|b| t.contains(text(*b, src)))
        })
    })
}

/// `x.min(MAX)` → the span of `min(MAX)`; the whole call when not a method call.
pub fn method_span(call: TsNode) -> Span {
    field(call, "function")
        .and_then(|fe| field(fe, "field"))
        .map_or(span(call), |m| Span::new(span(m).start, span(call).end))
}

/// Does evaluating `n` leave with an error (`Err(..)`, `bail!`, a tool error
/// result, a panic) rather than produce a value?
pub fn is_error_exit(n: TsNode, src: &str) -> bool {
    let t = text(n, src);
    let compact: String = t.chars().filter(|c| !c.is_whitespace()).collect();
    let has_call = |name: &str| {
        compact.match_indices(name).any(|(i, _)| {
            !compact[..i]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
    };
    has_call("Err(")
        || compact.contains("::error(")
        || compact.contains("is_error:Some(true)")
        || compact.contains("is_error:true")
        || compact.contains("invalid_params")
        || compact.contains("invalid_request")
        || [
            "bail!",
            "panic!",
            "unreachable!",
            "todo!",
            "unimplemented!",
            "ensure!",
        ]
        .iter()
        .any(|m| compact.contains(m))
        || (n.kind_name() == "return_expression" || starts_with_keyword(t, "return"))
            && !compact.trim_start_matches('{').starts_with("returnOk(")
        || starts_with_keyword(t, "continue")
        || starts_with_keyword(t, "break")
}

/// The text of `n` when it is a default value: any literal (`None`,
/// `false`, `0`, `""`, `22.5`),
/// `Default::default()`, an empty collection, `Value::Null`, `json!({})`, or
/// a fixed enum variant or unit struct (`Mode::Auto`, `Box::new(Auto)`).
pub fn default_value(n: TsNode, src: &str) -> Option<String> {
    default_value_at(n, src, 0)
}

fn default_value_at(n: TsNode, src: &str, depth: usize) -> Option<String> {
    if depth > ts::MAX_DEPTH {
        return None;
    }
    let n = unblock(n);
    let t = text(n, src).trim();
    let compact = || -> String { t.chars().filter(|c| !c.is_whitespace()).collect() };
    let yes = match n.kind_name() {
        // Any literal: a fixed value in place of the one the model sent.
        "boolean_literal" | "integer_literal" | "float_literal" | "string_literal"
        | "char_literal" | "negative_literal" => true,
        // `None`, a unit struct or a constant (`AutoRecognizer`, `DEFAULT_MODE`).
        "identifier" => t.chars().next().is_some_and(char::is_uppercase),
        "scoped_identifier" => {
            // `Mode::Auto`, `Value::Null`, `Level::Info`: a fixed variant.
            field(n, "name")
                .map(|x| text(x, src))
                .is_some_and(|last| last.chars().next().is_some_and(char::is_uppercase))
        }
        "macro_invocation" => matches!(
            compact().as_str(),
            "json!({})" | "json!(null)" | "json!([])" | "vec![]" | "serde_json::json!({})"
        ),
        "call_expression" => {
            let name = ts::callee(n, src).map(|c| c.0).unwrap_or_default();
            let args = ts::call_args(n);
            match (name.as_str(), args.as_slice()) {
                ("default" | "new" | "empty", []) => true,
                ("to_string" | "to_owned" | "into", []) => compact().starts_with("\"\""),
                ("Some" | "Ok" | "new" | "from", [a]) => {
                    default_value_at(*a, src, depth + 1).is_some()
                }
                // A variant or tuple struct around a default:
                // `Value::Object(Map::new())`, `Value::Object(Default::default())`.
                (v, [a]) if v.starts_with(|c: char| c.is_uppercase()) => {
                    default_value_at(*a, src, depth + 1).is_some()
                }
                _ => false,
            }
        }
        // A struct of constants: `Args { dir: "~/vault".into(), limit: 10 }`.
        "struct_expression" => constant_struct(n, src, depth),
        _ => false,
    };
    yes.then(|| crate::model::words::snippet(text(n, src)))
}

/// A struct literal whose fields are all fixed values (`..Default::default()`
/// allowed), not one built from what the model sent.
fn constant_struct(n: TsNode, src: &str, depth: usize) -> bool {
    let Some(body) = field(n, "body") else {
        return false;
    };
    let constant = |v: TsNode| {
        if default_value_at(v, src, depth + 1).is_some() {
            return true;
        }
        // `"~/vault".to_string()`, `PathBuf::from("/tmp")`, `"x".into()`.
        let literal = |a: Option<TsNode>| {
            a.is_some_and(|a| matches!(a.kind_name(), "string_literal" | "integer_literal"))
        };
        v.kind_name() == "call_expression"
            && match ts::callee(v, src) {
                Some((name, Some(recv))) => {
                    matches!(name.as_str(), "to_string" | "to_owned" | "into")
                        && ts::call_args(v).is_empty()
                        && literal(Some(recv))
                }
                Some((name, None)) => {
                    matches!(name.as_str(), "from" | "new") && {
                        let args = ts::call_args(v);
                        args.len() == 1 && literal(args.first().copied())
                    }
                }
                None => false,
            }
    };
    let mut fields = 0;
    for child in ts::named_children(body) {
        match child.kind_name() {
            "field_initializer" => match field(child, "value") {
                Some(v) if constant(v) => fields += 1,
                _ => return false,
            },
            "base_field_initializer" => match child.named_child(0) {
                Some(b) if default_value_at(b, src, depth + 1).is_some() => {}
                _ => return false,
            },
            "line_comment" | "block_comment" => {}
            _ => return false,
        }
    }
    fields > 0
}

/// `{ x }` → `x`.
pub fn unblock(mut n: TsNode) -> TsNode {
    for _ in 0..ts::MAX_DEPTH {
        if n.kind_name() != "block" {
            break;
        }
        let kids: Vec<TsNode> = ts::named_children(n)
            .into_iter()
            .filter(|k| !matches!(k.kind_name(), "line_comment" | "block_comment"))
            .collect();
        match kids.as_slice() {
            [one] if one.kind_name() != "expression_statement" => n = *one,
            _ => break,
        }
    }
    n
}

/// The catch-all arm of a match (`_ =>` or `other =>` without a guard):
/// the arm and its value.
pub fn catch_all_arm<'t>(m: TsNode<'t>, src: &str) -> Option<(TsNode<'t>, TsNode<'t>)> {
    let block = field(m, "body")?;
    ts::named_children(block).into_iter().find_map(|arm| {
        if arm.kind_name() != "match_arm" {
            return None;
        }
        let pat = field(arm, "pattern")?;
        if field(pat, "condition").is_some() {
            return None;
        }
        let t = text(pat, src).trim();
        let binding = t
            .chars()
            .next()
            .is_some_and(|c| c.is_lowercase() || c == '_')
            && t.chars().all(|c| c.is_alphanumeric() || c == '_');
        (t == "_" || binding)
            .then(|| (arm, field(arm, "value")))?
            .1
            .map(|v| (arm, v))
    })
}

/// The literal values the other arms of a match name (`"text"`, `3`).
pub fn literal_arms(m: TsNode, src: &str) -> Vec<Literal> {
    let mut out = Vec::new();
    let Some(block) = field(m, "body") else {
        return out;
    };
    for arm in ts::named_children(block) {
        let Some(pat) = field(arm, "pattern") else {
            continue;
        };
        ts::walk(pat, &mut |c| {
            if matches!(
                c.kind_name(),
                "string_literal" | "integer_literal" | "char_literal" | "boolean_literal"
            ) {
                out.push(Literal {
                    text: text(c, src).to_string(),
                    string: c.kind_name() == "string_literal",
                });
            }
            true
        });
    }
    out
}

/// The name a value is known by to the model: the key of `.get("k")`,
/// `["k"]` or `get_str(&args, "k")`, else the last field written
/// (`args.limit.unwrap_or(10)` → `limit`), else the variable.
pub fn argument_name(n: TsNode, src: &str) -> String {
    let key = |a: TsNode| {
        ts::string_value(a, src).filter(|s| {
            !s.is_empty()
                && s.chars()
                    .all(|ch| ch.is_alphanumeric() || ch == '_' || ch == '-')
        })
    };
    let mut n = n;
    for _ in 0..ts::MAX_DEPTH {
        n = match n.kind_name() {
            "reference_expression"
            | "parenthesized_expression"
            | "try_expression"
            | "await_expression"
            | "unary_expression"
            | "type_cast_expression" => match n.named_child(0) {
                Some(c) => c,
                None => break,
            },
            "call_expression" => {
                let args = ts::call_args(n);
                // `.get("q")`, or a closure that does it:
                // `.and_then(|a| a.get("q"))`.
                let closure_key = |a: &TsNode| {
                    (a.kind_name() == "closure_expression")
                        .then(|| field(*a, "body"))
                        .flatten()
                        .and_then(|b| key_in(b, src))
                };
                if let Some(k) = args
                    .iter()
                    .find_map(|a| key(*a))
                    .or_else(|| args.iter().find_map(closure_key))
                {
                    return k;
                }
                match ts::callee(n, src) {
                    Some((_, Some(recv))) => recv,
                    _ => match args.first() {
                        Some(a) => *a,
                        None => break,
                    },
                }
            }
            "index_expression" => {
                let kids = ts::named_children(n);
                match kids.as_slice() {
                    [_, idx] if key(*idx).is_some() => return key(*idx).unwrap_or_default(),
                    [obj, _] => *obj,
                    _ => break,
                }
            }
            "field_expression" => {
                if let Some(f) = field(n, "field") {
                    return text(f, src).trim_start_matches("r#").to_string();
                }
                break;
            }
            "identifier" => {
                let t = text(n, src);
                let generic = matches!(
                    t,
                    "self" | "args" | "params" | "arguments" | "input" | "v" | "x"
                );
                // `.get("limit").map_or(10, |v| v.min(100))`: a closure's
                // parameter is named by the chain the closure is called on.
                if (generic || t.chars().count() == 1)
                    && let Some(recv) = closure_param_source(n, t, src)
                {
                    recv
                } else if !generic {
                    return t.to_string();
                } else {
                    break;
                }
            }
            _ => break,
        };
    }
    ANY_ARGUMENT.into()
}

/// Does the chain of calls `n` ends make an iterator (`.iter()`,
/// `.into_iter()`, `.chars()`, `.lines()`, `.split(..)`, `.keys()`)?
fn iterates(n: TsNode, src: &str) -> bool {
    const ITERATORS: &[&str] = &[
        "iter",
        "into_iter",
        "iter_mut",
        "chars",
        "lines",
        "split",
        "bytes",
        "keys",
        "values",
    ];
    let mut n = n;
    for _ in 0..16 {
        n = match n.kind_name() {
            "call_expression" => match ts::callee(n, src) {
                Some((m, _)) if ITERATORS.contains(&m.as_str()) => return true,
                Some((_, Some(r))) => r,
                _ => return false,
            },
            "try_expression" | "parenthesized_expression" | "reference_expression" => {
                match n.named_child(0) {
                    Some(c) => c,
                    None => return false,
                }
            }
            _ => return false,
        };
    }
    false
}

/// When `id` (named `name`) is a parameter of the closure it is in, and
/// that closure is handed to a method (`recv.map_or(10, |v| ..)`): `recv`.
fn closure_param_source<'t>(id: TsNode<'t>, name: &str, src: &str) -> Option<TsNode<'t>> {
    let mut cur = id;
    for _ in 0..12 {
        cur = cur.parent()?;
        match cur.kind_name() {
            "closure_expression" => {
                let params = field(cur, "parameters")?;
                let binds = ts::named_children(params)
                    .iter()
                    .any(|p| text(*p, src).trim_start_matches('&') == name);
                if !binds {
                    return None;
                }
                let call = cur
                    .parent()
                    .filter(|a| a.kind_name() == "arguments")?
                    .parent()?;
                // On an `Option` or `Result` (`map`, `map_or`, `and_then`),
                // not on an iterator, whose closure sees one element.
                return match ts::callee(call, src) {
                    Some((m, Some(recv)))
                        if matches!(
                            m.as_str(),
                            "map" | "map_or" | "map_or_else" | "and_then" | "unwrap_or_else"
                        ) && !iterates(recv, src) =>
                    {
                        Some(recv)
                    }
                    _ => None,
                };
            }
            "function_item" => return None,
            _ => {}
        }
    }
    None
}

/// What [`argument_name`] calls a value that is no one argument: the
/// arguments object itself, or one not followed.
pub const ANY_ARGUMENT: &str = "the argument";

/// The key a chain reads (`a.get("q")`, `a["q"]`), if it reads one.
fn key_in(n: TsNode, src: &str) -> Option<String> {
    let mut n = n;
    for _ in 0..ts::MAX_DEPTH {
        n = match n.kind_name() {
            "reference_expression" | "parenthesized_expression" | "try_expression" => {
                n.named_child(0)?
            }
            "call_expression" => {
                let args = ts::call_args(n);
                if let Some(k) = args.iter().find_map(|a| ts::string_value(*a, src)) {
                    return Some(k);
                }
                ts::callee(n, src)?.1?
            }
            "index_expression" => {
                let kids = ts::named_children(n);
                let [obj, idx] = kids.as_slice() else {
                    return None;
                };
                if let Some(k) = ts::string_value(*idx, src) {
                    return Some(k);
                }
                *obj
            }
            _ => return None,
        };
    }
    None
}

/// Does `body` use the value `subject` names (a catch-all that keeps the
/// value as data: `other => Custom(other)`, `_ => name.to_string()`)?
pub fn uses_subject(body: TsNode, subject: TsNode, src: &str) -> bool {
    let names: Vec<String> = ts::identifiers(subject, src)
        .into_iter()
        .map(|(n, _)| n)
        .filter(|n| n != "self")
        .collect();
    ts::identifiers(body, src)
        .iter()
        .any(|(n, _)| names.contains(n))
}

/// The value of a Rust number literal: `30_000`, `500u32`, `0.5f64`.
pub fn literal_number(t: &str) -> Option<f64> {
    ts::number_text(t).parse().ok()
}

/// Does `text` start with the keyword `kw` (not `returned_value`)?
fn starts_with_keyword(text: &str, kw: &str) -> bool {
    let t = text.trim_start().trim_start_matches('{').trim_start();
    t.strip_prefix(kw)
        .is_some_and(|rest| !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
}

/// Is `var` the value of a key that says it is the value used
/// (`appliedOffset`, `effective_limit`) in a JSON object the function
/// returns as its result (`ToolResult { data: json!({"appliedOffset":
/// offset}) }`): the model is shown what its value became. A plain echo
/// (`"width": width`) does not say the value was replaced.
fn echoed_in_result(flow: &Flow, src: &str, var: &str) -> bool {
    flow.strings.iter().any(|&key| {
        // By its words (`appliedOffset`, `effective_limit`), so that
        // `paused` or `unused` do not count.
        let says_used = ts::string_value(key, src).is_some_and(|k| {
            let mut spaced = String::new();
            for c in k.chars() {
                if c.is_ascii_uppercase() {
                    spaced.push(' ');
                }
                spaced.push(c.to_ascii_lowercase());
            }
            spaced
                .split(|c: char| !c.is_ascii_alphanumeric())
                .any(|w| matches!(w, "applied" | "effective" | "actual" | "used" | "resolved"))
        });
        if !says_used {
            return false;
        }
        let Some(colon) = key.next_sibling().filter(|c| c.kind() == ":") else {
            return false;
        };
        let Some(value) = colon.next_sibling() else {
            return false;
        };
        let ends = value
            .next_sibling()
            .is_none_or(|n| matches!(n.kind(), "," | "}" | ")"));
        value.kind_name() == "identifier" && text(value, src) == var && ends && in_result(key)
    })
}

/// Is `n` inside what the function returns: under a `return`, or in the
/// tail of its body (`Ok(ToolResult { data: json!(..) })`, a `match` whose
/// arms return)?
fn in_result(n: TsNode) -> bool {
    let mut cur = n;
    for _ in 0..64 {
        let Some(p) = cur.parent() else { return false };
        match p.kind_name() {
            "return_expression" => return true,
            "function_item" | "closure_expression" => return false,
            "block" if p.parent().is_some_and(|f| f.kind_name() == "function_item") => {
                // The tail (a `match` ending the body is the statement's child).
                return tail_expr(p).is_some_and(|t| {
                    t.id() == cur.id() || t.parent().is_some_and(|s| s.id() == cur.id())
                });
            }
            _ => {}
        }
        cur = p;
    }
    false
}

/// Is `n` (a `match` or an `if`) a statement of a block that also holds
/// `at`, so that it runs before `at` does?
fn statement_holds(n: TsNode, at: usize) -> bool {
    let stmt = n
        .parent()
        .filter(|p| matches!(p.kind_name(), "expression_statement" | "let_declaration"))
        .unwrap_or(n);
    stmt.parent()
        .is_some_and(|b| b.kind_name() == "block" && b.start_byte() <= at && at < b.end_byte())
}

/// Is `cond` true for every value of `name` outside a set of literals:
/// `v != "a" && v != "b"`, `!matches!(v, "a" | "b")`, `!KINDS.contains(&v)`?
fn refuses_others(cond: TsNode, src: &str, name: &str, depth: usize) -> bool {
    if depth > 16 {
        return false;
    }
    let cond = ts::peel(cond, src);
    match cond.kind_name() {
        "binary_expression" => {
            let (Some(l), Some(op), Some(r)) = (
                field(cond, "left"),
                field(cond, "operator"),
                field(cond, "right"),
            ) else {
                return false;
            };
            match text(op, src) {
                "&&" => {
                    refuses_others(l, src, name, depth + 1)
                        && refuses_others(r, src, name, depth + 1)
                }
                "!=" => {
                    let literal = |n: TsNode| {
                        matches!(
                            n.kind_name(),
                            "string_literal" | "integer_literal" | "char_literal"
                        )
                    };
                    (argument_name(l, src) == name && literal(r))
                        || (argument_name(r, src) == name && literal(l))
                }
                _ => false,
            }
        }
        "unary_expression" => {
            text(cond, src).starts_with('!')
                && cond.named_child(0).is_some_and(|inner| {
                    matches!(inner.kind_name(), "macro_invocation" | "call_expression")
                        && (text(inner, src).starts_with("matches!")
                            || ts::callee(inner, src).is_some_and(|(m, _)| m == "contains"))
                        && ts::identifiers(inner, src).iter().any(|(n, _)| n == name)
                })
        }
        _ => false,
    }
}

/// The node that holds the chain of calls, fields and `?` that `n`
/// starts (the `let` of `let a = from_value(v)?.into();`).
fn chain_holder(n: TsNode) -> Option<TsNode> {
    let mut cur = n;
    for _ in 0..6 {
        let parent = cur.parent()?;
        match parent.kind_name() {
            "call_expression" | "field_expression" | "try_expression" => cur = parent,
            _ => return Some(parent),
        }
    }
    None
}

/// Is the value `n` starts (through the calls chained on it) handed
/// straight to another call as an argument?
fn passed_as_argument(n: TsNode) -> bool {
    chain_holder(n).is_some_and(|holder| holder.kind_name() == "arguments")
}

/// The type written on the `let` whose value `n` is, through the calls
/// chained on it (`let a: Args = from_value(v).unwrap_or(..)`).
fn let_type(n: TsNode, src: &str) -> Option<String> {
    let holder = chain_holder(n)?;
    (holder.kind_name() == "let_declaration")
        .then(|| field(holder, "type").map(|t| text(t, src).to_string()))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::{name_field_callees, sanitises_names};

    #[test]
    fn name_field_callees_are_the_functions_that_fill_a_name() {
        let body = r#"json!({"name": names::to_wire(&spec.name), "description": d});
            let t = Tool { name: sanitize(&x), title: fmt(y) };
            let other = Spec { name: name.to_string(), tool_name: wrap(z) };
            let n = json!({ "name" : escape_name(n) });
            let p = path::name::join(a);"#;
        assert_eq!(
            name_field_callees(body),
            vec!["to_wire", "sanitize", "escape_name"]
        );
    }

    #[test]
    fn a_sanitiser_replaces_and_a_check_only_tests() {
        assert!(sanitises_names(
            "{ s.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect() }"
        ));
        assert!(sanitises_names(
            r#"{ RE.replace_all(s, "[^a-zA-Z0-9_-]", "_").into_owned() }"#
        ));
        assert!(sanitises_names(
            "{ for c in s.chars() { match c { c if c.is_alphanumeric() => out.push(c), _ => out.push('_') } } out }"
        ));
        assert!(!sanitises_names(
            "{ s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') }"
        ));
        assert!(!sanitises_names("{ s.replace(' ', \"_\") }"));
    }
}
