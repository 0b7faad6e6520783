//! P101 tool-surface-drift: the tool surface differs from the committed
//! snapshot (`toolaudit.surface.json`). One finding per change, at the
//! place that changed; removed tools and members at their snapshot entry.

use std::sync::Arc;

use super::{Context, Rule, SurfaceView};
use crate::model::{Diagnostic, Severity, ToolDef};
use crate::source::{SourceFile, Span};
use crate::surface::{At, ChangeKind, Part};

pub struct ToolSurfaceDrift;

impl Rule for ToolSurfaceDrift {
    fn check_surface(&self, _cx: &Context, s: &SurfaceView, out: &mut Vec<Diagnostic>) {
        let Some(snapshot) = s.snapshot else { return };
        // A tool that only moved to another file offers the model the same
        // thing: `surface --check` lists the move, the scan does not (its
        // other changes are reported on their own).
        for c in s.changes.iter().filter(|c| c.kind != ChangeKind::ToolMoved) {
            let severity = if c.breaking {
                Severity::Error
            } else {
                Severity::Warning
            };
            let (file, span, pointer) = match &c.at {
                At::Snapshot(span) => (Arc::clone(&snapshot.file), *span, None),
                At::Current { group, index, part } => match s.current.def(group, *index) {
                    Some(def) => place(def, part),
                    None => (Arc::clone(&snapshot.file), Span::new(0, 0), None),
                },
            };
            let subject = if c.tool.is_empty() {
                String::new()
            } else {
                format!("tool `{}`: ", c.tool)
            };
            let mut d = Diagnostic::new("P101", severity, &file, span)
                .message(format!("{subject}{}", c.what))
                .label(if c.breaking {
                    format!("{} (breaks callers)", c.what)
                } else {
                    c.what.clone()
                })
                .note(format!(
                    "not in the committed snapshot {}: the tools a model is offered changed, and nobody has reviewed it",
                    snapshot.file.display
                ))
                .help(format!(
                    "if the change is intended, record it with `toolaudit surface --write` and commit {} with it",
                    snapshot.file.display
                ));
            if let Some(old) = &c.old {
                d = d.note(format!("before: {old}"));
            }
            if let Some(new) = &c.new {
                d = d.note(format!("now: {new}"));
            }
            d.tool = (!c.tool.is_empty()).then(|| c.tool.clone());
            d.pointer = pointer.or_else(|| Some(format!("/surface/{}", c.group)));
            out.push(d);
        }
    }
}

/// The file, span and pointer of a part of a tool's definition.
fn place(def: &ToolDef, part: &Part) -> (Arc<SourceFile>, Span, Option<String>) {
    let name = || {
        (
            Arc::clone(&def.name_file),
            def.name.span,
            Some(def.name_pointer.clone()),
        )
    };
    let schema = def.input_schema.as_ref();
    match part {
        Part::Name => name(),
        Part::Description => def.description.as_ref().map_or_else(name, |d| {
            (Arc::clone(&def.file), d.span, Some("/description".into()))
        }),
        Part::Argument(arg) => schema
            .and_then(|s| s.get("properties"))
            .and_then(|p| p.get_member(arg))
            .map_or_else(name, |m| {
                (
                    Arc::clone(&def.schema_file),
                    m.key_span,
                    Some(format!(
                        "{}/properties/{}",
                        def.schema_pointer,
                        crate::syntax::pointer_token(arg)
                    )),
                )
            }),
        Part::Schema => schema.map_or_else(name, |s| {
            (
                Arc::clone(&def.schema_file),
                s.span.start_only(),
                Some(def.schema_pointer.clone()),
            )
        }),
        Part::Definition => (Arc::clone(&def.file), def.span.start_only(), None),
    }
}
