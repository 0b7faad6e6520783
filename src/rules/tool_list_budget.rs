//! S109 tool-list-budget (opt-in): the tools of one list cost more context
//! than the configured budget (`[options] tool-budget`, 25,000 tokens by
//! default), estimated offline (`crate::budget`).

use super::{Context, Rule};
use crate::budget;
use crate::model::{Diagnostic, Severity, ToolDef};
use crate::rules::invalid_tool_name::short;

pub struct ToolListBudget;

impl Rule for ToolListBudget {
    fn check_group(&self, cx: &Context, tools: &[&ToolDef], out: &mut Vec<Diagnostic>) {
        let Some(first) = tools.first() else {
            return;
        };
        let mut costs: Vec<(usize, &ToolDef)> =
            tools.iter().map(|t| (budget::tool_tokens(t), *t)).collect();
        let total: usize = costs.iter().map(|c| c.0).sum();
        if total <= cx.tool_budget {
            return;
        }
        costs.sort_by(|a, b| {
            b.0.cmp(&a.0)
                .then_with(|| a.1.name.value.cmp(&b.1.name.value))
        });
        let top: Vec<String> = costs
            .iter()
            .take(3)
            .map(|(n, t)| format!("`{}` ~{}", short(&t.name.value), thousands(*n)))
            .collect();
        out.push(
            Diagnostic::new("S109", Severity::Warning, &first.name_file, first.name.span)
                .for_tool_name(first)
                .message(format!(
                    "the {} tools of this list cost ~{} tokens of context, over the budget of {}; largest: {}",
                    tools.len(),
                    thousands(total),
                    thousands(cx.tool_budget),
                    top.join(", ")
                ))
                .label("first tool of the list")
                .note("every request carries every tool definition: a large list crowds out the conversation, costs on every turn, and makes the model choose among more tools (Claude Code warns over 25,000 tokens); counts are estimated offline, about 5 % above OpenAI's tokeniser (`toolaudit explain S109`)")
                .help("shorten the longest descriptions, move examples out of schemas, split the server into profiles, or raise `[options] tool-budget`; `toolaudit tools --budget` lists every tool's cost"),
        );
    }
}

/// `25000` -> `25,000`.
pub(crate) fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn thousands_groups_digits() {
        assert_eq!(super::thousands(7), "7");
        assert_eq!(super::thousands(25000), "25,000");
        assert_eq!(super::thousands(1234567), "1,234,567");
    }
}
