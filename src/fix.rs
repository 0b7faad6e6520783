//! `scan --fix` / `--diff`: edits that rules attach to findings in JSON and
//! YAML manifests, and applying them without touching anything else (the
//! file's formatting, comments and key order stay as written).
//!
//! Rules build their edits with [`remove_member`], [`insert_member`] and
//! [`replace_scalar`]; [`plan`] picks the fixes to apply (safe ones unless
//! unsafe fixes are asked for; a tool rename only when the new name is
//! free in its list; never two fixes whose edits overlap), and [`apply`]
//! writes the new text.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use crate::model::{Applicability, Diagnostic, Edit, ToolDef};
use crate::source::{SourceFile, Span};
use crate::syntax::Node;

/// The syntax of a manifest a fix edits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    Json,
    Yaml,
}

impl Syntax {
    /// The syntax of `file`, when toolaudit edits files of its kind.
    pub fn of(file: &SourceFile) -> Option<Syntax> {
        match crate::discover::FileKind::of(&file.path)? {
            crate::discover::FileKind::Json => Some(Syntax::Json),
            crate::discover::FileKind::Yaml => Some(Syntax::Yaml),
            _ => None,
        }
    }
}

/// Start of the line holding byte `at`.
fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// End of the line holding byte `at` (before its `\n`).
fn line_end(text: &str, at: usize) -> usize {
    text[at..].find('\n').map_or(text.len(), |i| at + i)
}

/// `end` moved back over whitespace: a YAML block's span may reach into
/// the next line.
fn content_end(text: &str, end: usize) -> usize {
    text[..end].trim_end().len()
}

/// The whitespace before the key at `at` when the key starts its line
/// (with the `-` of a YAML sequence item).
fn own_line_indent(text: &str, at: usize) -> Option<&str> {
    let before = &text[line_start(text, at)..at];
    before
        .chars()
        .all(|c| matches!(c, ' ' | '\t' | '-'))
        .then_some(before)
}

/// A YAML block mapping (not a `{…}` flow mapping).
fn is_block(text: &str, syntax: Syntax, obj: &Node) -> bool {
    syntax == Syntax::Yaml && !text[obj.span.start..].starts_with('{')
}

/// Removes member `key` of the object `obj`, with its separator: the comma
/// before it (or after it, when it comes first); in a YAML block mapping,
/// its whole lines.
pub fn remove_member(text: &str, syntax: Syntax, obj: &Node, key: &str) -> Option<Edit> {
    let members = obj.members()?;
    let i = members.iter().position(|m| m.key == key)?;
    let m = &members[i];
    let value_end = m.value.span.end;
    if is_block(text, syntax, obj) {
        let start = line_start(text, m.key_span.start);
        own_line_indent(text, m.key_span.start)?;
        if text[start..m.key_span.start].contains('-') {
            return None; // the first key of a sequence item carries its dash
        }
        let end = (line_end(text, content_end(text, value_end)) + 1).min(text.len());
        return Some(Edit {
            span: Span::new(start, end),
            text: String::new(),
        });
    }
    let span = match (i.checked_sub(1).map(|p| &members[p]), members.get(i + 1)) {
        (Some(prev), _) => Span::new(prev.value.span.end, value_end),
        (None, Some(next)) => Span::new(m.key_span.start, next.key_span.start),
        (None, None) => Span::new(m.key_span.start, value_end),
    };
    // Only separators between the pieces: never a comment.
    let gap = |a: usize, b: usize| text[a..b].chars().all(|c| c.is_whitespace() || c == ',');
    let ok = match (i.checked_sub(1), members.get(i + 1)) {
        (Some(p), _) => gap(members[p].value.span.end, m.key_span.start),
        (None, Some(_)) => gap(value_end, span.end),
        (None, None) => true,
    };
    ok.then(|| Edit {
        span,
        text: String::new(),
    })
}

/// Adds `key: value` (`value` as JSON text) as the last member of `obj`,
/// on its own line when the members are on their own lines, with their
/// indentation.
pub fn insert_member(
    text: &str,
    syntax: Syntax,
    obj: &Node,
    key: &str,
    value: &str,
) -> Option<Edit> {
    let members = obj.members()?;
    let quoted = serde_json::to_string(key).ok()?;
    let pair = match syntax {
        Syntax::Json => format!("{quoted}: {value}"),
        Syntax::Yaml => format!("{key}: {value}"),
    };
    let Some(last) = members.last() else {
        // `{}`: fill it.
        let inner = &text[obj.span.range()];
        if inner.starts_with('{')
            && inner.ends_with('}')
            && inner[1..inner.len() - 1].trim().is_empty()
        {
            return Some(Edit {
                span: obj.span,
                text: format!("{{{pair}}}"),
            });
        }
        return None;
    };
    if is_block(text, syntax, obj) {
        let indent = own_line_indent(text, last.key_span.start)?;
        let indent: String = indent
            .chars()
            .map(|c| if c == '-' { ' ' } else { c })
            .collect();
        let at = line_end(text, content_end(text, last.value.span.end));
        return Some(Edit {
            span: Span::new(at, at),
            text: format!("\n{indent}{pair}"),
        });
    }
    let at = last.value.span.end;
    let text = match own_line_indent(text, last.key_span.start) {
        Some(indent) => format!(",\n{indent}{pair}"),
        None => format!(", {pair}"),
    };
    Some(Edit {
        span: Span::new(at, at),
        text,
    })
}

/// Replaces a string scalar with `value`, in the quoting it was written in.
pub fn replace_scalar(text: &str, span: Span, value: &str) -> Option<Edit> {
    let raw = &text[span.range()];
    let new = if raw.starts_with('"') {
        serde_json::to_string(value).ok()?
    } else if raw.starts_with('\'') {
        format!("'{}'", value.replace('\'', "''"))
    } else {
        value.to_string()
    };
    Some(Edit { span, text: new })
}

/// The fixes of one file that [`plan`] chose.
pub struct FileFixes {
    pub file: Arc<SourceFile>,
    pub edits: Vec<Edit>,
    /// The findings they fix.
    pub fixed: Vec<Diagnostic>,
}

/// Chooses the fixes to apply: safe ones, and unsafe ones when
/// `unsafe_fixes`; a rename only to a name no tool of its list has or
/// gets; per file, fixes whose edits overlap none already chosen (the
/// next `--fix` run takes the rest).
pub fn plan(diagnostics: &[Diagnostic], tools: &[ToolDef], unsafe_fixes: bool) -> Vec<FileFixes> {
    let mut taken: BTreeMap<(String, String), ()> = BTreeMap::new();
    for t in tools {
        taken.insert((t.group.clone(), t.name.value.clone()), ());
    }
    let group_of = |d: &Diagnostic| {
        tools
            .iter()
            .find(|t| Some(&t.name.value) == d.tool.as_ref() && Arc::ptr_eq(&t.name_file, &d.file))
            .map(|t| t.group.clone())
    };
    let mut by_file: BTreeMap<String, FileFixes> = BTreeMap::new();
    for d in diagnostics {
        let Some(fix) = &d.fix else { continue };
        if fix.applicability == Applicability::Unsafe && !unsafe_fixes {
            continue;
        }
        if Syntax::of(&d.file).is_none() {
            continue;
        }
        if let Some(new) = &fix.new_name {
            let Some(group) = group_of(d) else { continue };
            if taken.insert((group, new.clone()), ()).is_some() {
                continue;
            }
        }
        let entry = by_file
            .entry(d.file.display.clone())
            .or_insert_with(|| FileFixes {
                file: Arc::clone(&d.file),
                edits: Vec::new(),
                fixed: Vec::new(),
            });
        let overlaps = fix.edits.iter().any(|e| {
            entry.edits.iter().any(|o| {
                e.span.start < o.span.end && o.span.start < e.span.end
                    || (e.span.start == o.span.start
                        && (e.span.start == e.span.end || o.span.start == o.span.end))
            })
        });
        if overlaps {
            continue;
        }
        entry.edits.extend(fix.edits.iter().cloned());
        entry.fixed.push(d.clone());
    }
    by_file
        .into_values()
        .filter(|f| !f.edits.is_empty())
        .collect()
}

/// `text` with `edits` applied (they must not overlap).
pub fn apply(text: &str, edits: &[Edit]) -> String {
    let mut sorted: Vec<&Edit> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.span.start, e.span.end));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for e in sorted {
        out.push_str(&text[at..e.span.start]);
        out.push_str(&e.text);
        at = e.span.end;
    }
    out.push_str(&text[at..]);
    out
}

/// A unified diff of one file's fix, `git diff` style.
pub fn unified_diff(display: &str, old: &str, new: &str) -> String {
    let mut s = similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{display}"), &format!("b/{display}"))
        .to_string();
    if !s.ends_with('\n') {
        s.push_str("\n\\ No newline at end of file\n");
    }
    s
}

/// Every file that ends up changed is parsed again: a fix that would
/// leave a file unreadable is refused (a bug in a rule's edit).
pub fn still_parses(syntax: Syntax, text: &str) -> bool {
    match syntax {
        Syntax::Json => crate::syntax::json::parse(text).is_ok(),
        Syntax::Yaml => crate::syntax::yaml::parse(text).is_ok(),
    }
}

/// Codes of the findings fixed, once each, in order.
pub fn codes(fixes: &[FileFixes]) -> Vec<&'static str> {
    let mut seen = HashSet::new();
    let mut out: Vec<&'static str> = fixes
        .iter()
        .flat_map(|f| f.fixed.iter().map(|d| d.code))
        .filter(|c| seen.insert(*c))
        .collect();
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::{json, yaml};

    fn obj_at<'a>(root: &'a Node, path: &[&str]) -> &'a Node {
        path.iter().fold(root, |n, k| n.get(k).unwrap())
    }

    #[test]
    fn json_members_are_removed_with_their_comma() {
        let text = "{\n  \"a\": 1,\n  \"default\": \"x\",\n  \"b\": 2\n}";
        let root = json::parse(text).unwrap().unwrap();
        let e = remove_member(text, Syntax::Json, &root, "default").unwrap();
        assert_eq!(apply(text, &[e]), "{\n  \"a\": 1,\n  \"b\": 2\n}");
        let e = remove_member(text, Syntax::Json, &root, "a").unwrap();
        assert_eq!(apply(text, &[e]), "{\n  \"default\": \"x\",\n  \"b\": 2\n}");
        let one = r#"{"default": 3}"#;
        let root = json::parse(one).unwrap().unwrap();
        let e = remove_member(one, Syntax::Json, &root, "default").unwrap();
        assert_eq!(apply(one, &[e]), "{}");
    }

    #[test]
    fn json_members_are_inserted_in_the_objects_style() {
        let text = "{\n    \"type\": \"object\",\n    \"properties\": {}\n}";
        let root = json::parse(text).unwrap().unwrap();
        let e = insert_member(text, Syntax::Json, &root, "additionalProperties", "false").unwrap();
        let out = apply(text, &[e]);
        assert_eq!(
            out,
            "{\n    \"type\": \"object\",\n    \"properties\": {},\n    \"additionalProperties\": false\n}"
        );
        let inline = r#"{"type": "object", "properties": {}}"#;
        let root = json::parse(inline).unwrap().unwrap();
        let e =
            insert_member(inline, Syntax::Json, &root, "additionalProperties", "false").unwrap();
        assert_eq!(
            apply(inline, &[e]),
            r#"{"type": "object", "properties": {}, "additionalProperties": false}"#
        );
        let empty = r#"{"p": {}}"#;
        let root = json::parse(empty).unwrap().unwrap();
        let e = insert_member(empty, Syntax::Json, obj_at(&root, &["p"]), "k", "1").unwrap();
        assert_eq!(apply(empty, &[e]), r#"{"p": {"k": 1}}"#);
    }

    #[test]
    fn yaml_block_members_are_whole_lines() {
        let text = "tools:\n  - name: a\n    inputSchema:\n      type: object  # the root\n      properties:\n        q:\n          type: string\n          default: 3\n";
        let docs = yaml::parse(text).unwrap();
        let root = &docs[0];
        let schema = root.get("tools").unwrap().items().unwrap()[0]
            .get("inputSchema")
            .unwrap();
        let q = obj_at(schema, &["properties", "q"]);
        let e = remove_member(text, Syntax::Yaml, q, "default").unwrap();
        assert_eq!(
            apply(text, &[e]),
            "tools:\n  - name: a\n    inputSchema:\n      type: object  # the root\n      properties:\n        q:\n          type: string\n"
        );
        let e = insert_member(text, Syntax::Yaml, schema, "additionalProperties", "false").unwrap();
        assert_eq!(
            apply(text, &[e]),
            "tools:\n  - name: a\n    inputSchema:\n      type: object  # the root\n      properties:\n        q:\n          type: string\n          default: 3\n      additionalProperties: false\n"
        );
    }

    #[test]
    fn scalars_keep_their_quotes() {
        for (text, want) in [
            (r#"{"name": "a.b"}"#, r#"{"name": "a_b"}"#),
            ("name: 'a.b'\n", "name: 'a_b'\n"),
            ("name: a.b\n", "name: a_b\n"),
        ] {
            let root = if text.starts_with('{') {
                json::parse(text).unwrap().unwrap()
            } else {
                yaml::parse(text).unwrap().remove(0)
            };
            let e = replace_scalar(text, root.get("name").unwrap().span, "a_b").unwrap();
            assert_eq!(apply(text, &[e]), want);
        }
    }
}
