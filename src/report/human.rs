//! The human format: codespan-style snippets grouped by family, then a
//! summary per family and a line saying what was scanned.

use std::fmt::Write as _;

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label, Severity as CsSeverity};
use codespan_reporting::term::{self, termcolor::Buffer};

use super::snippet::Views;
use super::{Report, count_phrase, plural};
use crate::model::{Diagnostic, Severity};
use crate::rules::{self, FAMILIES};

pub fn render(r: &Report, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    if r.statistics {
        let mut text = statistics(r);
        summary(r, &mut text);
        return out.write_all(text.as_bytes());
    }
    let family_of =
        |d: &Diagnostic| rules::by_code(d.code).map_or("", |e| e.meta().family.as_str());
    let config = term::Config::default();
    // One finding at a time: its views and rendering are dropped before the
    // next, so memory does not grow with the report.
    let mut buf = if r.color {
        Buffer::ansi()
    } else {
        Buffer::no_color()
    };
    for fam in FAMILIES {
        let in_family: Vec<&Diagnostic> = r
            .scan
            .diagnostics
            .iter()
            .filter(|d| family_of(d) == fam.id)
            .collect();
        if in_family.is_empty() {
            continue;
        }
        let title = format!("── {} · {} ({}) ", fam.id, fam.title, in_family.len());
        let pad = 72usize.saturating_sub(title.chars().count());
        out.write_all(format!("{title}{}\n\n", "─".repeat(pad)).as_bytes())?;
        for d in in_family {
            let mut views = Views::default();
            let labels = labels(&mut views, d);
            let mut notes = d.notes.clone();
            if let Some(h) = &d.help {
                notes.push(format!("help: {h}"));
            }
            let cs = CsDiagnostic::new(match d.severity {
                Severity::Error => CsSeverity::Error,
                Severity::Warning => CsSeverity::Warning,
                Severity::Note => CsSeverity::Note,
            })
            .with_code(d.code)
            .with_message(&d.message)
            .with_labels(labels)
            .with_notes(notes);
            buf.clear();
            // Rendering only fails for a span outside its file, which the
            // parsers never produce; skip rather than abort the report.
            if term::emit_to_write_style(&mut buf, &config, &views, &cs).is_ok() {
                out.write_all(buf.as_slice())?;
            }
        }
    }
    let mut text = String::new();
    summary(r, &mut text);
    out.write_all(text.as_bytes())
}

/// The labels of a finding, over one view per file it points into: the
/// primary label's file first, then the others in the order they appear.
fn labels(views: &mut Views, d: &Diagnostic) -> Vec<Label<usize>> {
    let mut by_file: Vec<(&std::sync::Arc<crate::source::SourceFile>, Vec<usize>)> =
        vec![(&d.file, vec![0])];
    for (i, l) in d.secondary.iter().enumerate() {
        match by_file
            .iter_mut()
            .find(|(f, _)| std::sync::Arc::ptr_eq(f, &l.file) || f.display == l.file.display)
        {
            Some((_, idx)) => idx.push(i + 1),
            None => by_file.push((&l.file, vec![i + 1])),
        }
    }
    let span_of = |i: usize| {
        if i == 0 {
            d.span
        } else {
            d.secondary[i - 1].span
        }
    };
    let mut labels: Vec<Option<Label<usize>>> = vec![None; d.secondary.len() + 1];
    for (file, idx) in by_file {
        let spans: Vec<_> = idx.iter().map(|&i| span_of(i)).collect();
        let (id, ranges) = views.add(file, &spans);
        for (&i, range) in idx.iter().zip(ranges) {
            labels[i] = Some(if i == 0 {
                Label::primary(id, range).with_message(&d.label)
            } else {
                Label::secondary(id, range).with_message(&d.secondary[i - 1].message)
            });
        }
    }
    labels.into_iter().flatten().collect()
}

/// `--statistics`: findings per rule, most frequent first.
fn statistics(r: &Report) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for d in &r.scan.diagnostics {
        match counts.iter_mut().find(|(c, _)| *c == d.code) {
            Some((_, n)) => *n += 1,
            None => counts.push((d.code, 1)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let width = counts.first().map_or(1, |(_, n)| n.to_string().len());
    let mut out = String::new();
    for (code, n) in counts {
        let meta = rules::by_code(code).map(|e| e.meta());
        let _ = writeln!(
            out,
            "{n:>width$}  {code}  {:<32} {}",
            meta.map_or("", |m| m.name.as_str()),
            meta.map_or(String::new(), |m| m.severity.to_string()),
        );
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

fn summary(r: &Report, out: &mut String) {
    let scan = r.scan;
    let files = plural(scan.files_scanned, "file");
    let tools = plural(scan.tools.len(), "tool");
    let diags = &scan.diagnostics;
    if !diags.is_empty() {
        out.push_str("Summary\n");
        for fam in FAMILIES {
            let in_family: Vec<&Diagnostic> = diags
                .iter()
                .filter(|d| rules::by_code(d.code).is_some_and(|e| e.meta().family == fam.id))
                .collect();
            if !in_family.is_empty() {
                let _ = writeln!(
                    out,
                    "  {:<3} {:<17} {}",
                    fam.id,
                    fam.title,
                    count_phrase(in_family)
                );
            }
        }
        let mut with_findings: Vec<&str> = diags.iter().map(|d| d.file.display.as_str()).collect();
        with_findings.dedup();
        with_findings.sort_unstable();
        with_findings.dedup();
        let _ = writeln!(
            out,
            "\nFound {} ({}) in {}; scanned {files} with {tools}.",
            plural(diags.len(), "problem"),
            count_phrase(diags),
            plural(with_findings.len(), "file"),
        );
    } else if scan.tools.is_empty() {
        let _ = writeln!(
            out,
            "No tool definitions found in {files} scanned; nothing to check."
        );
    } else {
        let _ = writeln!(out, "No problems found; scanned {files} with {tools}.");
    }
    if let Some((rev, n)) = &scan.diff_base {
        let _ = writeln!(
            out,
            "{} on lines not changed since `{rev}` left out.",
            plural(*n, "finding")
        );
    }
    if let Some(b) = scan.baseline {
        let _ = writeln!(
            out,
            "{} in the baseline left out.",
            plural(b.matched, "finding")
        );
        if b.stale > 0 {
            let _ = writeln!(
                out,
                "{} of the baseline no longer found: run `toolaudit baseline` to shrink it.",
                plural(b.stale, "entry").replace("entrys", "entries")
            );
        }
    }
    if scan.test_files_skipped > 0 {
        let _ = writeln!(
            out,
            "{} in test, benchmark and fixture folders not read (--include-tests reads them).",
            plural(scan.test_files_skipped, "file")
        );
    }
    if !scan.suppressed.is_empty() {
        let _ = writeln!(
            out,
            "{} left out by suppression comments, `[[suppress]]` or `per-file-ignores`.",
            plural(scan.suppressed.len(), "finding")
        );
    }
    if !scan.tools.is_empty() {
        // What was found, by source format: tells "clean" from "nothing to check".
        let mut by_format: Vec<(&str, usize)> = Vec::new();
        for t in &scan.tools {
            match by_format.iter_mut().find(|(f, _)| *f == t.format.as_str()) {
                Some((_, n)) => *n += 1,
                None => by_format.push((t.format.as_str(), 1)),
            }
        }
        by_format.sort();
        let parts: Vec<String> = by_format.iter().map(|(f, n)| format!("{n} {f}")).collect();
        let _ = writeln!(out, "Tools by format: {}.", parts.join(", "));
    }
    for line in super::not_read(scan) {
        let _ = writeln!(out, "{line}");
    }
    let targets: Vec<&str> = r.targets.iter().map(|t| t.id).collect();
    let _ = writeln!(out, "Targets: {}.", targets.join(", "));
    let skipped = scan
        .notifications
        .iter()
        .filter(|n| n.level >= Severity::Warning)
        .count();
    if skipped > 0 {
        let _ = writeln!(
            out,
            "{} about the scan itself printed on stderr.",
            plural(skipped, "message")
        );
    }
}
