//! M102 args-accept-unknown-fields: a tool's argument type derives
//! `Deserialize` without `#[serde(deny_unknown_fields)]` (a pydantic model
//! or dataclass without `extra="forbid"`), or a framework decodes a
//! group of tools' arguments and ignores keys they do not declare (the MCP
//! SDK's `FastMCP`, LangChain's `@tool`), so a misspelled argument is
//! dropped without a word.

use std::collections::BTreeSet;

use super::{Context, Rule};
use crate::link::Unit;
use crate::model::code::{RecordKind, StructFact};
use crate::model::{Diagnostic, Severity};

pub struct ArgsAcceptUnknownFields;

impl Rule for ArgsAcceptUnknownFields {
    fn check_unit(&self, _cx: &Context, k: &Unit, out: &mut Vec<Diagnostic>) {
        records(k, out);
        frameworks(k, out);
    }
}

/// Argument types (structs, models) that drop unknown keys.
fn records(k: &Unit, out: &mut Vec<Diagnostic>) {
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
            s.used_wholesale()
                || k.field_reads.contains(&f.name)
                || (getters && k.accessor_calls.contains(&f.name))
        };
        let droppable = s.fields.iter().filter(optional).find(read);
        let unread_optional = s.fields.iter().filter(optional).find(|f| !read(f));
        // A tool without parameters (`struct DevicesParams {}`): the
        // model has nothing to misspell, and nothing sent can be used.
        let no_fields = s.fields.iter().all(|f| f.skip);
        // A Python model whose fields are all required: only a key the
        // model invents is dropped, which is not worth a finding (as for
        // the frameworks below; six such notes on held-out servers, none
        // judged a true finding).
        let python = s.record != RecordKind::Serde;
        if !s.is_decoded()
            || s.deny_unknown_fields
            || s.has_flatten
            || (droppable.is_none() && (no_fields || python))
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
        // The OpenAI Agents SDK's `@function_tool` closes every object of
        // the schema it sends (`strict_json_schema`, on by default): the
        // model is told, and OpenAI's strict decoding keeps unknown keys out.
        let strict_sdk = format!("#{}", crate::python::STRICT_AGENTS);
        if tools.iter().all(|t| t.group.ends_with(&strict_sdk)) {
            continue;
        }
        let file = k.file(s_ref.0);
        // Every field required: a misspelt key fails as a missing
        // field, loudly; an extra key the model adds (a hallucinated
        // option) is still dropped. Reported, as a note.
        let words = Words::of(s);
        let (severity, why) = match droppable {
                Some(example) => (
                    Severity::Warning,
                    format!(
                        "{} ignores keys it does not know: a misspelled `{}`{} is dropped and the call runs with the default; {}, so nothing tells the model",
                        words.decoder,
                        misspell(&example.wire),
                        // serde matches case too: `Limit` for `limit`.
                        if s.record == RecordKind::Serde {
                            format!(
                                " (or `{}`)",
                                crate::model::code::rename(&example.wire, Some("PascalCase"))
                            )
                        } else {
                            String::new()
                        },
                        words.schema
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
        let names = tools
            .iter()
            .map(|t| {
                if t.name_is_unknown() {
                    // Named only at run time (from configuration).
                    "a tool named at run time".to_string()
                } else {
                    format!("`{}`", t.name.value)
                }
            })
            .collect::<Vec<_>>();
        let mut d = Diagnostic::new("M102", severity, file, s.name_span)
            .message(format!(
                "`{}`, {} {}, accepts and drops unknown fields",
                s.name,
                words.role,
                crate::rules::join_and(&names)
            ))
            .label(words.label)
            .note(why)
            .help(words.help.replace("{}", &s.name));
        d.tool = tools.first().map(|t| t.name.value.clone());
        if let Some((f, span)) = t.args_site {
            d = d.secondary(k.file(f), span, words.site);
        }
        out.push(d);
    }
}

/// The words of a finding on a record, by what decodes it.
struct Words {
    decoder: &'static str,
    schema: &'static str,
    role: &'static str,
    label: &'static str,
    help: &'static str,
    site: &'static str,
}

impl Words {
    fn of(s: &StructFact) -> Words {
        match s.record {
            RecordKind::Serde => Words {
                decoder: "serde",
                schema: "a schema derived from the type (schemars, an SDK's own derive) leaves `additionalProperties` out too",
                role: "the arguments of",
                label: "no `#[serde(deny_unknown_fields)]`",
                help: "add `#[serde(deny_unknown_fields)]` to `{}`",
                site: "tool arguments are deserialised here",
            },
            RecordKind::Pydantic => Words {
                decoder: "pydantic",
                schema: "the schema pydantic derives from the model leaves `additionalProperties` out too",
                role: "an argument of",
                label: "no `extra=\"forbid\"`",
                help: "add `model_config = ConfigDict(extra=\"forbid\")` to `{}` (pydantic v1: `class Config: extra = \"forbid\"`); the schema then says `additionalProperties: false` and an unknown key is an error the model reads",
                site: "the argument is validated into the model here",
            },
            RecordKind::Dataclass => Words {
                decoder: "pydantic, validating a dataclass,",
                schema: "the schema derived from it leaves `additionalProperties` out too",
                role: "an argument of",
                label: "a dataclass: unknown keys are ignored",
                help: "make `{}` a pydantic model with `model_config = ConfigDict(extra=\"forbid\")`, or give the dataclass `@pydantic.dataclasses.dataclass(config=ConfigDict(extra=\"forbid\"))`",
                site: "the argument is validated into the dataclass here",
            },
        }
    }
}

/// Frameworks that drop the keys a group of tools does not declare: one
/// finding per server object (or per file, for decorators without one).
fn frameworks(k: &Unit, out: &mut Vec<Diagnostic>) {
    for f in &k.files {
        for p in &f.key_policies {
            let tools: Vec<&crate::link::CodeTool> = k
                .tools
                .iter()
                .filter(|t| {
                    t.def.group == p.group
                        && t.def.schema_derived
                        && !t.def.name.value.starts_with("test_")
                })
                .collect();
            // An optional parameter the handler uses: misspelt, it is
            // dropped and the default runs.
            let droppable = tools.iter().find_map(|t| {
                let schema = t.def.input_schema.as_ref()?;
                let required: Vec<&str> = schema
                    .get("required")
                    .and_then(|r| r.items())
                    .map(|r| r.iter().filter_map(|n| n.as_str()).collect())
                    .unwrap_or_default();
                let handler = t.handler.map(|h| k.fact(h));
                schema
                    .get("properties")?
                    .members()?
                    .iter()
                    .filter(|m| !required.contains(&m.key.as_str()))
                    .find(|m| {
                        handler.is_some_and(|h| {
                            h.params
                                .iter()
                                .position(|p| p.name == m.key)
                                .is_some_and(|i| !h.unused_params.contains(&i))
                        })
                    })
                    .map(|m| (t, m))
            });
            // Every parameter used is required: a misspelt key fails as
            // a missing argument; only an extra key is lost, once per
            // server, which is not worth a finding of its own.
            let Some((t, m)) = droppable else {
                continue;
            };
            let mut names: Vec<String> = tools
                .iter()
                .take(3)
                .map(|t| format!("`{}`", t.def.name.value))
                .collect();
            if tools.len() > 3 {
                names.push(format!("{} more", tools.len() - 3));
            }
            let default = m
                .value
                .get("default")
                .map(|d| format!(" with `{} = {}`", m.key, python_value(&d.to_json())))
                .unwrap_or_else(|| " with its default".to_string());
            let why = format!(
                "it ignores argument keys a tool's signature does not name: a misspelled `{}` for `{}`'s `{}` is dropped and the call runs{}; the derived schema leaves `additionalProperties` out, so nothing tells the model",
                misspell(&m.key),
                t.def.name.value,
                m.key,
                default
            );
            let mut d = Diagnostic::new("M102", Severity::Warning, &f.file, p.span)
                .message(format!(
                    "argument keys the tools do not declare are dropped by {} ({})",
                    p.framework,
                    crate::rules::join_and(&names)
                ))
                .label("unknown arguments are ignored")
                .note(why)
                .help(p.fix);
            d.tool = tools.first().map(|t| t.def.name.value.clone());
            if let Some(h) = t.handler {
                let g = k.fact(h);
                if let Some(param) = g.params.iter().find(|p| p.name == m.key) {
                    d = d.secondary(k.file(h.file), param.span, "dropped when misspelt");
                }
            }
            out.push(d);
        }
    }
}

/// A default as Python writes it (`None`, `True`).
fn python_value(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => "None".into(),
        serde_json::Value::Bool(true) => "True".into(),
        serde_json::Value::Bool(false) => "False".into(),
        other => other.to_string(),
    }
}

/// A plausible typo of a field name, for the message: two neighbouring
/// letters swapped, the first pair from the second letter on that differs
/// (`ofsfet` for `offset`, not `offset` again), else an `s` added.
fn misspell(name: &str) -> String {
    let mut c: Vec<char> = name.chars().collect();
    match (1..c.len().saturating_sub(1)).find(|&i| c.len() > 3 && c[i] != c[i + 1]) {
        Some(i) => c.swap(i, i + 1),
        None => c.push('s'),
    }
    c.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::misspell;

    #[test]
    fn a_misspelling_differs_from_the_name() {
        assert_eq!(misspell("limit"), "lmiit");
        assert_eq!(misspell("offset"), "ofsfet");
        assert_eq!(misspell("add"), "adds");
        assert_eq!(misspell("aaaa"), "aaaas");
        for n in ["offset", "all", "x", "", "book_id", "ssss"] {
            assert_ne!(misspell(n), n);
        }
    }
}
