//! M104 unread-declared-argument: a tool declares an argument that its
//! handler never reads; the model's value is ignored.

use super::undeclared_argument_read::declared_properties;
use super::{Context, Rule};
use crate::link::Unit;
use crate::model::{Diagnostic, Severity, ToolDef};
use crate::source::{SourceFile, Span};

pub struct UnreadDeclaredArgument;

impl Rule for UnreadDeclaredArgument {
    fn check_unit(&self, _cx: &Context, k: &Unit, out: &mut Vec<Diagnostic>) {
        let mut reported = std::collections::BTreeSet::new();
        for (ti, t) in k.tools.iter().enumerate() {
            if let Some(s_ref) = t.args {
                let s = k.structure(s_ref);
                // Serialised wholesale (forwarded to an API), every field may
                // be used; a field of a type shared by tools is reported
                // once, for the first tool that offers it. The schema of
                // each tool is checked below either way.
                let skip_fields = s.used_wholesale();
                // `#[derive(Getters)]` (derive_getters, getset): `req.dry_run()`
                // reads the field.
                let getters = s.derives("Getters") || s.derives("CopyGetters");
                // With a hand-written schema, a field it does not declare
                // is not offered to the model (M103 reports the mismatch).
                let written = if t.def.schema_derived {
                    None
                } else {
                    declared_properties(&t.def)
                };
                let offered = |f: &crate::model::code::FieldFact| {
                    written.as_ref().is_none_or(|d| {
                        d.contains(&f.wire) || f.aliases.iter().any(|a| d.contains(a))
                    })
                };
                let fields = s
                    .fields
                    .iter()
                    .filter(|f| !skip_fields && !f.skip && !f.flatten && offered(f));
                for field in fields {
                    if k.field_reads.contains(&field.name)
                        || (getters && k.accessor_calls.contains(&field.name))
                        || told_unused(&t.def, &field.wire)
                        || !reported.insert((s_ref, field.name.as_str()))
                    {
                        continue;
                    }
                    // Bound to `_x` in a pattern: point there.
                    let site = k.files.iter().enumerate().find_map(|(fi, f)| {
                        f.ignored_fields
                            .iter()
                            .find(|(n, _)| *n == field.name)
                            .map(|(_, sp)| (fi, *sp))
                    });
                    let (file, span, label) = match site {
                        Some((fi, sp)) => (k.file(fi), sp, "bound here and never used"),
                        None => (k.file(s_ref.0), field.span, "never read"),
                    };
                    out.push(diag(&t.def, &field.wire, file, span, label));
                }
                // A hand-written schema that declares keys the struct lacks.
                if !t.def.schema_derived
                    && let Some(declared) = declared_properties(&t.def)
                {
                    for key in declared {
                        let has = s
                            .fields
                            .iter()
                            .any(|f| f.wire == key || f.aliases.contains(&key));
                        if !has
                            && !told_unused(&t.def, &key)
                            && let Some(span) = property_span(&t.def, &key)
                        {
                            out.push(
                                diag(&t.def, &key, &t.def.schema_file, span, "declared here")
                                    .note(format!(
                                        "`{}` has no field for it, so serde drops the value",
                                        s.name
                                    ))
                                    .help(format!(
                                        "add a `{key}` field to `{}` and use it, or remove `{key}` from the schema",
                                        s.name
                                    )),
                            );
                        }
                    }
                }
                continue;
            }
            // A JSON-object handler: the keys it reads, when it reads the
            // arguments only by key (they are not passed on or deserialised).
            let Some(declared) = declared_properties(&t.def) else {
                continue;
            };
            // A schema derived from the handler's signature (a Python
            // tool function): parameters its body never uses.
            if t.def.schema_derived
                && let Some(h) = t.handler
            {
                let f = k.fact(h);
                // A stub that answers it cannot act uses nothing; so does
                // a tool whose description says it is one ("placeholder -
                // requires API key setup"), and a simulation that makes up
                // its result (`random.choice(..)`).
                if f.says_unavailable || f.simulates || says_stub(&t.def) {
                    continue;
                }
                // A tool that uses none of its parameters and whose
                // description says, anywhere, that it cannot act ("IMPORTANT:
                // the litigation API is not available"): its answer comes from
                // elsewhere (`return _litigation_unavailable()`).
                let uses_none = f
                    .params
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| declared.contains(&p.name))
                    .all(|(i, _)| f.unused_params.contains(&i));
                if uses_none
                    && t.def
                        .description
                        .as_ref()
                        .is_some_and(|d| d.value.lines().any(crate::model::words::says_unavailable))
                {
                    continue;
                }
                for &i in &f.unused_params {
                    let Some(p) = f.params.get(i) else {
                        continue;
                    };
                    if !declared.contains(&p.name) || told_unused(&t.def, &p.name) {
                        continue;
                    }
                    // A model with no fields (`input: ListVaultsInput`, kept
                    // for a uniform signature): the model can only send `{}`.
                    let ty = p.ty.trim();
                    if k.files
                        .iter()
                        .flat_map(|f| &f.structs)
                        .any(|s| s.name == ty && s.fields.is_empty() && !s.has_flatten)
                    {
                        continue;
                    }
                    if let Some(span) = property_span(&t.def, &p.name) {
                        out.push(
                            diag(&t.def, &p.name, &t.def.schema_file, span, "never used")
                                .note(format!(
                                    "the parameter `{}` is offered to the model, which fills it in and believes it takes effect; the function body never uses it",
                                    p.name
                                )),
                        );
                    }
                }
                continue;
            }
            if t.def.schema_derived || t.handler.is_none_or(|h| k.is_dispatcher(h)) {
                continue;
            }
            // Only when some reads are seen: a handler with none reads its
            // arguments in a way this analysis does not follow.
            let (reads, escapes) = k.reads_of(ti);
            if escapes || reads.is_empty() {
                continue;
            }
            // A stub: it reads one key (the action) and answers that it
            // cannot act; the model is told nothing happened.
            let keys: std::collections::BTreeSet<&str> =
                reads.iter().map(|(_, r)| r.key.as_str()).collect();
            if keys.len() <= 1 && t.handler.is_some_and(|h| k.fact(h).says_unavailable) {
                continue;
            }
            for key in declared {
                if reads.iter().any(|(_, r)| r.key == key)
                    || told_unused(&t.def, &key)
                    || k.mentions_key(ti, &key)
                {
                    continue;
                }
                if let Some(span) = property_span(&t.def, &key) {
                    out.push(diag(
                        &t.def,
                        &key,
                        &t.def.schema_file,
                        span,
                        "declared here",
                    ));
                }
            }
        }
    }
}

/// The property's description tells the model it has no effect ("Not
/// currently used", "Reserved for future use", "ignored").
/// Does the tool's description tell the model it is a stub?
fn says_stub(t: &ToolDef) -> bool {
    t.description.as_ref().is_some_and(|d| {
        let first = d.value.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        crate::model::words::says_unavailable(first)
            || crate::model::words::has_phrase(&first.to_ascii_lowercase(), "placeholder")
    })
}

fn told_unused(t: &ToolDef, key: &str) -> bool {
    t.input_schema
        .as_ref()
        .and_then(|s| s.get("properties")?.get(key)?.get("description")?.as_str())
        .is_some_and(crate::model::words::says_unused)
        || t.description.as_ref().is_some_and(|d| {
            // A docstring's `Args:` entry (`unit_system: .. Not used with
            // ..`), the tool's description when derived from a signature.
            d.value.lines().any(|l| {
                let l = l.trim_start();
                l.strip_prefix(key).is_some_and(|rest| {
                    rest.trim_start().starts_with([':', '('])
                        && crate::model::words::says_unused(rest)
                })
            })
        })
}

fn property_span(t: &ToolDef, key: &str) -> Option<Span> {
    t.input_schema
        .as_ref()?
        .get("properties")?
        .get_member(key)
        .map(|m| m.key_span)
}

fn diag(
    t: &ToolDef,
    key: &str,
    file: &std::sync::Arc<SourceFile>,
    span: Span,
    label: &str,
) -> Diagnostic {
    let handler = t
        .handler
        .as_ref()
        .map_or("its handler".to_string(), |h| format!("`{}`", h.name));
    let mut d = Diagnostic::new("M104", Severity::Warning, file, span)
        .message(format!(
            "`{}` declares `{key}`, but {handler} never reads it",
            t.name.value
        ))
        .label(label.to_string())
        .note(format!(
            "the model fills in `{key}` and believes it takes effect; the tool ignores it and nothing says so"
        ))
        .help(format!("use `{key}` in the handler, or remove it from the tool's arguments"));
    d.tool = Some(t.name.value.clone());
    d
}
