//! toolaudit's own JSON format, version 1 (documented in docs/json-output.md).
//! Fields are only ever added within a version; a removal or change of
//! meaning bumps `version`.

use serde_json::{Value, json};

use super::{LAZY, Report, fingerprints, write_lazy};
use crate::model::Severity;
use crate::rules;
use crate::source::{SourceFile, Span};

pub const VERSION: u32 = 1;

fn position(file: &SourceFile, offset: usize) -> Value {
    let lc = file.line_col(offset);
    json!({"line": lc.line, "column": lc.column, "offset": offset})
}

fn range(file: &SourceFile, span: Span) -> (Value, Value) {
    (position(file, span.start), position(file, span.end))
}

/// Paths the walk saw and did not read, counted by reason (`ignored`,
/// `excluded`, `symlink`, `special`) and by language (`python`, …).
fn not_read_counts(r: &Report) -> Value {
    use crate::discover::SkipReason;
    let mut m = serde_json::Map::new();
    for s in &r.scan.skipped {
        let key = match s.reason {
            SkipReason::Language(l) => l.to_ascii_lowercase().replace('#', "sharp"),
            SkipReason::Ignored => "ignored".into(),
            SkipReason::Excluded => "excluded".into(),
            SkipReason::Symlink => "symlink".into(),
            SkipReason::Special => "special".into(),
            SkipReason::NotCompiled => "not_compiled".into(),
            SkipReason::Backup => "backup".into(),
        };
        let n = m.entry(key).or_insert(json!(0));
        *n = json!(n.as_u64().unwrap_or(0) + 1);
    }
    Value::Object(m)
}

pub fn render(r: &Report, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let fps = fingerprints(r);
    let findings = r.scan.diagnostics.iter().zip(fps).map(|(d, fp)| {
        let meta = rules::by_code(d.code).map(|e| e.meta());
        let (start, end) = range(&d.file, d.span);
        let labels: Vec<Value> = d
            .secondary
            .iter()
            .map(|l| {
                let (start, end) = range(&l.file, l.span);
                json!({"file": l.file.display, "start": start, "end": end, "message": l.message})
            })
            .collect();
        json!({
            "code": d.code,
            "name": meta.map(|m| m.name.as_str()),
            "family": meta.map(|m| m.family.as_str()),
            "severity": d.severity,
            "message": d.message,
            "file": d.file.display,
            "start": start,
            "end": end,
            "label": d.label,
            "labels": labels,
            "notes": d.notes,
            "help": d.help,
            "tool": d.tool,
            "pointer": d.pointer,
            "fingerprint": fp,
            "fix": d.fix.as_ref().filter(|_| crate::fix::Syntax::of(&d.file).is_some()).map(|f| {
                let edits: Vec<Value> = f
                    .edits
                    .iter()
                    .map(|e| {
                        let (start, end) = range(&d.file, e.span);
                        json!({"start": start, "end": end, "content": e.text})
                    })
                    .collect();
                json!({"title": f.title, "applicability": f.applicability, "edits": edits})
            }),
        })
    });
    let mut by_severity = serde_json::Map::new();
    for s in Severity::ALL {
        let n = r
            .scan
            .diagnostics
            .iter()
            .filter(|d| d.severity == s)
            .count();
        by_severity.insert(s.as_str().into(), json!(n));
    }
    let mut by_rule = serde_json::Map::new();
    for d in &r.scan.diagnostics {
        let n = by_rule.entry(d.code).or_insert(json!(0));
        *n = json!(n.as_u64().unwrap_or(0) + 1);
    }
    let doc = json!({
        "version": VERSION,
        "toolaudit": env!("CARGO_PKG_VERSION"),
        "targets": r.targets.iter().map(|t| t.id).collect::<Vec<_>>(),
        "rules": r.rules.iter().map(|e| e.code).collect::<Vec<_>>(),
        "summary": {
            "files_scanned": r.scan.files_scanned,
            "tools": r.scan.tools.len(),
            "findings": r.scan.diagnostics.len(),
            "suppressed": r.scan.suppressed.len(),
            "test_files_skipped": r.scan.test_files_skipped,
            "not_read": not_read_counts(r),
            "baseline": r.scan.baseline.map(|b| json!({"matched": b.matched, "stale": b.stale})),
            "diff_base": r.scan.diff_base.as_ref().map(|(rev, n)| json!({"rev": rev, "unchanged": n})),
            "by_severity": by_severity,
            "by_rule": by_rule,
            "complete": !r.scan.had_errors(),
        },
        "findings": LAZY,
        "notifications": r.scan.notifications,
    });
    write_lazy(&doc, findings, out)
}
