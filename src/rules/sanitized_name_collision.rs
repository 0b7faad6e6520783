//! N102 sanitized-name-collision: distinct tool names that become the same
//! name once a client makes them acceptable to a provider.

use std::collections::HashMap;

use super::{Context, Rule};
use crate::link::Unit;
use crate::model::code::SiteKind;
use crate::model::{Diagnostic, Severity, ToolDef};
use crate::rules::invalid_tool_name::short;

pub struct SanitizedNameCollision;

/// The sanitisations hosts and gateways apply before sending a name on.
fn sanitized_forms(name: &str, limit: usize, fold_case: bool) -> Vec<(String, String)> {
    let replace = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    let cut = |s: String| -> String { s.chars().take(limit).collect() };
    let mut forms = vec![(
        cut(replace(name)),
        format!(
            "characters other than letters, digits, `_` and `-` are replaced with `_` and the name is cut to {limit} characters"
        ),
    )];
    if name.contains('/') {
        forms.push((
            cut(replace(&name.replace('/', "__"))),
            format!("`/` becomes `__`, other rejected characters `_`, and the name is cut to {limit} characters"),
        ));
    }
    if fold_case {
        let folded: Vec<(String, String)> = forms
            .iter()
            .map(|(f, how)| {
                (
                    f.to_ascii_lowercase().replace('-', "_"),
                    format!("{how}, then compared ignoring case and `-`/`_` (portable target)"),
                )
            })
            .collect();
        forms.extend(folded);
    }
    forms
}

impl Rule for SanitizedNameCollision {
    /// Code that sanitises names itself (`sanitize(&format!("{server}.{tool}"))`)
    /// and, on a collision of the results, only logs: both tools are kept
    /// under one name (the later one replaces the earlier, or the list
    /// holds a duplicate that the provider refuses).
    fn check_unit(&self, _cx: &Context, k: &Unit, out: &mut Vec<Diagnostic>) {
        let sanitisers: HashMap<&str, (usize, usize)> = k
            .files
            .iter()
            .enumerate()
            .flat_map(|(fi, f)| {
                f.fns
                    .iter()
                    .enumerate()
                    .filter(|(_, g)| g.sanitises_names && !g.is_test)
                    .map(move |(gi, g)| (g.name.as_str(), (fi, gi)))
            })
            .collect();
        for f in &k.files {
            for g in &f.fns {
                for site in &g.sites {
                    let SiteKind::NameCollision {
                        sanitiser,
                        sanitiser_span,
                        name,
                        about_tools: true,
                    } = &site.kind
                    else {
                        continue;
                    };
                    let Some(&(fi, gi)) = sanitisers.get(sanitiser.as_str()) else {
                        continue;
                    };
                    let def = &k.files[fi];
                    let def_fn = &def.fns[gi];
                    out.push(
                        Diagnostic::new("N102", Severity::Error, &f.file, site.span)
                            .message(format!(
                                "tool names made by `{sanitiser}` can collide, and a collision of `{name}` is only logged"
                            ))
                            .label("the collision is logged and the tool kept")
                            .secondary(&f.file, *sanitiser_span, format!("`{name}` is sanitised here"))
                            .secondary(&def.file, def_fn.name_span, "replaces characters with `_`: distinct names (`a.b`, `a_b`) come out the same")
                            .note(
                                "two tools whose names differ only in replaced characters are offered under one \
                                 name: one silently shadows the other, or the provider rejects the list for a \
                                 duplicate name; the log is read by no one the model can ask",
                            )
                            .help(
                                "make the name unique when it collides (a numeric or hash suffix) or refuse the \
                                 second tool with an error the user sees",
                            ),
                    );
                }
            }
        }
    }

    fn check_group(&self, cx: &Context, tools: &[&ToolDef], out: &mut Vec<Diagnostic>) {
        let limit = cx
            .targets
            .iter()
            .map(|t| t.names.max_len)
            .min()
            .unwrap_or(64);
        let fold_case = cx.targets.iter().any(|t| t.names.fold_case);
        // sanitised form -> the first tool that has it
        let mut seen: HashMap<String, (&ToolDef, String)> = HashMap::new();
        for &tool in tools {
            if tool.name_is_template() {
                continue; // only known at run time
            }
            let name = tool.name.value.as_str();
            let forms = sanitized_forms(name, limit, fold_case);
            let clash = forms.iter().find_map(|(form, how)| {
                let (other, other_how) = seen
                    .get(form)
                    .filter(|(o, _)| o.name.value != name && o.coexists_with(tool))?;
                // Explain the sanitisation that changed a name, not the identity.
                let how = if other.name.value != *form {
                    other_how
                } else {
                    how
                };
                Some((*other, form, how))
            });
            if let Some((other, form, how)) = clash {
                out.push(
                    Diagnostic::new("N102", Severity::Error, &tool.name_file, tool.name.span)
                        .message(format!(
                            "tool names `{}` and `{}` collide as `{}` once sanitised",
                            short(&other.name.value),
                            short(name),
                            short(form)
                        ))
                        .label(becomes(name, form))
                        .secondary(&other.name_file, other.name.span, becomes(&other.name.value, form))
                        .note(format!(
                            "hosts and gateways that sanitise tool names ({how}) offer both tools \
                             under one name: one silently shadows the other, or the request is \
                             rejected for a duplicate name"
                        ))
                        .help(format!(
                            "rename one of the tools so the names differ in letters, digits, `_` or `-` \
                             within the first {limit} characters"
                        ))
                        .for_tool_name(tool),
                );
            }
            for (form, how) in forms {
                seen.entry(form).or_insert((tool, how));
            }
        }
    }
}

fn becomes(name: &str, form: &str) -> String {
    if name == form {
        format!("already named `{}`", short(form))
    } else {
        format!("becomes `{}`", short(form))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms() {
        let f = |n| {
            sanitized_forms(n, 64, false)
                .into_iter()
                .map(|(f, _)| f)
                .collect::<Vec<_>>()
        };
        assert_eq!(f("fs.list"), ["fs_list"]);
        assert_eq!(
            f("notion/create-pages"),
            ["notion_create-pages", "notion__create-pages"]
        );
        assert_eq!(f(&"a".repeat(70)), ["a".repeat(64)]);
        let folded = sanitized_forms("Get-Item", 64, true);
        assert!(folded.iter().any(|(f, _)| f == "get_item"));
    }
}
