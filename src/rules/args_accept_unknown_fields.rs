//! M102 args-accept-unknown-fields: a tool's argument type derives
//! `Deserialize` without `#[serde(deny_unknown_fields)]`, so a misspelled
//! argument is dropped without a word.

use std::collections::BTreeSet;

use super::{Context, Rule};
use crate::link::Unit;
use crate::model::{Diagnostic, Severity};

pub struct ArgsAcceptUnknownFields;

impl Rule for ArgsAcceptUnknownFields {
    fn check_unit(&self, _cx: &Context, k: &Unit, out: &mut Vec<Diagnostic>) {
        let mut seen = BTreeSet::new();
        let checked: BTreeSet<&str> = k
            .files
            .iter()
            .flat_map(|f| f.checked_fields.iter().map(String::as_str))
            .collect();
        for t in &k.tools {
            let Some(s_ref) = t.args else { continue };
            let s = k.structure(s_ref);
            // A flattened map collects unknown keys instead of dropping them;
            // with every field required, a misspelt key fails as a missing
            // field, so nothing is dropped silently.
            // An optional field whose absence the code turns into an error
            // (`args.path.ok_or(..)?`) fails loudly when misspelt too.
            let optional = |f: &&crate::model::code::FieldFact| {
                f.optional && !f.skip && !checked.contains(f.name.as_str())
            };
            // An optional field nothing reads changes nothing when its key
            // is misspelt (M104 reports the field); serialised wholesale,
            // every field may be used.
            let getters = s.derives("Getters") || s.derives("CopyGetters");
            let read = |f: &&crate::model::code::FieldFact| {
                s.derives("Serialize")
                    || k.field_reads.contains(&f.name)
                    || (getters && k.accessor_calls.contains(&f.name))
            };
            let droppable = s.fields.iter().filter(optional).find(read);
            let unread_optional = s.fields.iter().filter(optional).find(|f| !read(f));
            // A tool without parameters (`struct DevicesParams {}`): the
            // model has nothing to misspell, and nothing sent can be used.
            let no_fields = s.fields.iter().all(|f| f.skip);
            if !s.derives("Deserialize")
                || s.deny_unknown_fields
                || s.has_flatten
                || (droppable.is_none() && no_fields)
                || !seen.insert(s_ref)
            {
                continue;
            }
            let tools: Vec<&crate::model::ToolDef> = k
                .tools
                .iter()
                .filter(|o| o.args == Some(s_ref))
                .map(|o| &o.def)
                .collect();
            // Tools of a test harness (`test_sync_tool`) are not offered to users.
            if tools.iter().all(|t| t.name.value.starts_with("test_")) {
                continue;
            }
            let file = k.file(s_ref.0);
            // Every field required: a misspelt key fails as a missing
            // field, loudly; an extra key the model adds (a hallucinated
            // option) is still dropped. Reported, as a note.
            let (severity, why) = match droppable {
                Some(example) => (
                    Severity::Warning,
                    format!(
                        "serde ignores keys it does not know: a misspelled `{}` (or `{}`) is dropped and the call runs with the default; a schema derived from the type (schemars, an SDK's own derive) leaves `additionalProperties` out too, so nothing tells the model",
                        misspell(&example.wire),
                        crate::model::code::rename(&example.wire, Some("PascalCase"))
                    ),
                ),
                None => (
                    Severity::Note,
                    match unread_optional {
                        Some(f) => format!(
                            "the only optional fields (such as `{}`) are never read, so a misspelt one changes nothing; but an extra key the model adds (an option it believes exists) is dropped without a word and the call runs as if it had not been sent",
                            f.wire
                        ),
                        None => "every field is required, so a misspelt key fails as a missing field; but an extra key the model adds (an option it believes exists, such as `encoding` or `recursive`) is dropped without a word and the call runs as if it had not been sent".to_string(),
                    },
                ),
            };
            let mut d = Diagnostic::new("M102", severity, file, s.name_span)
                .message(format!(
                    "`{}`, the arguments of {}, accepts and drops unknown fields",
                    s.name,
                    crate::rules::join_and(
                        &tools
                            .iter()
                            .map(|t| if t.name_is_unknown() {
                                // Named only at run time (from configuration).
                                "a tool named at run time".to_string()
                            } else {
                                format!("`{}`", t.name.value)
                            })
                            .collect::<Vec<_>>()
                    )
                ))
                .label("no `#[serde(deny_unknown_fields)]`")
                .note(why)
                .help(format!(
                    "add `#[serde(deny_unknown_fields)]` to `{}`",
                    s.name
                ));
            d.tool = tools.first().map(|t| t.name.value.clone());
            if let Some((f, span)) = t.args_site {
                d = d.secondary(k.file(f), span, "tool arguments are deserialised here");
            }
            out.push(d);
        }
    }
}

/// A plausible typo of a field name, for the message.
fn misspell(name: &str) -> String {
    let mut c: Vec<char> = name.chars().collect();
    if c.len() > 3 {
        c.swap(1, 2);
    } else {
        c.push('s');
    }
    c.into_iter().collect()
}
