//! One Python file's tools linked to its code: each tool's handler (the
//! decorated function, the arm of a `call_tool` dispatch on its name, or a
//! function of the same name), the tool-call surface from there, and the
//! code rules' findings on it. A unit is one file today: files without
//! tool code are not parsed (`super::may_declare_tools`), so what a
//! handler calls in another module is not followed.

use std::collections::BTreeSet;

use crate::link::{CodeTool, FnRef, Unit};
use crate::model::code::{CallTarget, FileFacts};
use crate::model::{Diagnostic, ToolDef};
use crate::rules::{Context, RuleEntry};

/// The code rules' findings on one file's tools and handlers; tools whose
/// definition does not name their handler (a `types.Tool(..)` dispatched
/// by `call_tool`) get the one found.
pub fn findings(
    facts: FileFacts,
    tools: &mut [ToolDef],
    cx: &Context,
    rules: &[&'static RuleEntry],
) -> Vec<Diagnostic> {
    let f = &facts;
    let handler_of = |t: &ToolDef| -> Option<usize> {
        // The decorated function.
        if let Some(h) = &t.handler {
            return f.fns.iter().position(|g| g.name_span == h.span);
        }
        // The arm of a dispatch on the name, else a function so named.
        let name = &t.name.value;
        f.dispatch
            .iter()
            .find(|d| d.tool == *name)
            .and_then(|d| f.fns.iter().position(|g| g.name_span == d.span))
            .or_else(|| {
                f.fns
                    .iter()
                    .position(|g| g.name == *name && !g.is_test && g.impl_id.is_none())
            })
    };
    let handlers: Vec<Option<usize>> = tools.iter().map(handler_of).collect();
    for (t, h) in tools.iter_mut().zip(&handlers) {
        if t.handler.is_none()
            && let Some(g) = h.map(|i| &f.fns[i])
        {
            // `call_tool[read_note]`: shown as `call_tool`, at the arm.
            let name = g.name.split('[').next().unwrap_or(&g.name);
            t.handler = Some(crate::model::Handler {
                file: std::sync::Arc::clone(&f.file),
                span: g.name_span,
                name: name.to_string(),
            });
        }
    }
    let code_tools: Vec<CodeTool> = tools
        .iter()
        .zip(&handlers)
        .filter(|(t, _)| !t.format.is_reference())
        .map(|(t, h)| {
            // A parameter typed as a model or dataclass of this file:
            // pydantic validates that argument into it.
            let record = h.and_then(|i| {
                // Not a framework's context (`ctx: RunContext[Deps]`: the
                // application supplies the deps, not the model).
                f.fns[i]
                    .params
                    .iter()
                    .filter(|p| !p.is_context)
                    .find_map(|p| {
                        let s = f.structs.iter().position(|s| {
                            p.ty.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                                .any(|w| w == s.name)
                        })?;
                        Some(((0, s), (0, p.span)))
                    })
            });
            CodeTool {
                def: t.clone(),
                handler: h.map(|index| FnRef { file: 0, index }),
                args: record.map(|r| r.0),
                args_site: record.map(|r| r.1),
            }
        })
        .collect();
    // pydantic validates a FastMCP tool's arguments against its signature,
    // and the MCP SDK's low-level server validates them against the input
    // schema unless told not to.
    let text = &f.file.text;
    let validates_args = tools.iter().any(|t| t.schema_derived)
        || (text.contains(".call_tool(") && !text.contains("validate_input=False"));
    let dispatchers: BTreeSet<FnRef> = f
        .fns
        .iter()
        .enumerate()
        .filter(|(_, g)| g.takes_request)
        .map(|(index, _)| FnRef { file: 0, index })
        .collect();
    let files = vec![facts];
    let targets = |call: &crate::model::code::CallFact, caller: FnRef| -> Vec<FnRef> {
        let fns = &files[0].fns;
        let own = fns[caller.index].impl_id;
        fns.iter()
            .enumerate()
            .filter(|(_, g)| g.name == call.callee)
            .filter(|(_, g)| match call.target {
                CallTarget::Free => g.impl_id.is_none(),
                CallTarget::OwnType => own.is_some() && g.impl_id == own,
                CallTarget::Method => g.impl_id.is_some(),
                CallTarget::Type(_) | CallTarget::External => false,
            })
            .map(|(index, _)| FnRef { file: 0, index })
            .collect()
    };
    let surface = crate::link::surface(&files, &code_tools, &dispatchers, &targets);
    let by_tool = crate::link::by_tool(&surface, code_tools.len());
    let mut k = Unit {
        files,
        tools: code_tools,
        field_reads: BTreeSet::new(),
        accessor_calls: BTreeSet::new(),
        surface,
        dispatchers,
        by_tool,
        validates_args,
    };
    let mut out = crate::link::findings(&mut k, cx.all);
    for entry in rules {
        entry.rule.check_unit(cx, &k, &mut out);
    }
    out
}
