//! A Markdown report for GitHub job summaries and pull-request comments:
//! counts per family, then the most severe findings.

use std::fmt::Write as _;

use super::{Report, count_phrase, plural};
use crate::model::{Diagnostic, Severity};
use crate::rules::{self, FAMILIES};

/// Findings listed in full; the rest are counted.
const TOP: usize = 20;

/// Escapes text for a Markdown table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

pub fn render(r: &Report) -> String {
    let scan = r.scan;
    let diags = &scan.diagnostics;
    let mut out = String::new();
    if diags.is_empty() {
        let what = if scan.tools.is_empty() {
            format!(
                "no tool definitions found in {} scanned",
                plural(scan.files_scanned, "file")
            )
        } else {
            format!(
                "no problems in {} from {}",
                plural(scan.tools.len(), "tool"),
                plural(scan.files_scanned, "file")
            )
        };
        let _ = writeln!(out, "## toolaudit: {what}\n");
    } else {
        let _ = writeln!(
            out,
            "## toolaudit: {} ({})\n",
            plural(diags.len(), "problem"),
            count_phrase(diags)
        );
        out.push_str("| family | errors | warnings | notes |\n|---|---:|---:|---:|\n");
        for fam in FAMILIES {
            let in_family: Vec<&Diagnostic> = diags
                .iter()
                .filter(|d| rules::by_code(d.code).is_some_and(|e| e.meta().family == fam.id))
                .collect();
            if in_family.is_empty() {
                continue;
            }
            let n = |s: Severity| in_family.iter().filter(|d| d.severity == s).count();
            let _ = writeln!(
                out,
                "| {} {} | {} | {} | {} |",
                fam.id,
                fam.title,
                n(Severity::Error),
                n(Severity::Warning),
                n(Severity::Note)
            );
        }
        let mut order: Vec<&Diagnostic> = diags.iter().collect();
        order.sort_by_key(|d| std::cmp::Reverse(d.severity));
        let _ = writeln!(
            out,
            "\n### {}\n\n| severity | rule | location | finding |\n|---|---|---|---|",
            if diags.len() > TOP {
                "Most severe findings"
            } else {
                "Findings"
            }
        );
        for d in order.iter().take(TOP) {
            let at = d.file.line_col(d.span.start);
            let name = rules::by_code(d.code).map_or("", |e| e.meta().name.as_str());
            let _ = writeln!(
                out,
                "| {} | {} `{name}` | `{}:{}:{}` | {} |",
                d.severity,
                d.code,
                cell(&d.file.display),
                at.line,
                at.column,
                cell(&d.message)
            );
        }
        if diags.len() > TOP {
            let _ = writeln!(
                out,
                "\n…and {} more: see the annotations, the job log or code scanning.",
                diags.len() - TOP
            );
        }
    }
    if let Some(surface) = &scan.surface {
        surface_section(surface, &mut out);
    }
    let targets: Vec<&str> = r.targets.iter().map(|t| t.id).collect();
    let _ = writeln!(
        out,
        "\nScanned {} with {}; targets: {}.",
        plural(scan.files_scanned, "file"),
        plural(scan.tools.len(), "tool"),
        targets.join(", ")
    );
    for line in super::not_read(scan) {
        let _ = writeln!(out, "\n{}", line.replace("; -v lists them", ""));
    }
    out
}

/// Changes of the tool surface since the committed snapshot, one table per
/// group or profile: what a reviewer of the pull request must look at.
fn surface_section(s: &crate::surface::Outcome, out: &mut String) {
    let Some(file) = &s.snapshot_file else {
        return;
    };
    if s.changes.is_empty() {
        let _ = writeln!(out, "\nThe tool surface matches `{}`.", cell(file));
        return;
    }
    let count = |verb: &str| s.changes.iter().filter(|c| c.kind.verb() == verb).count();
    let _ = writeln!(
        out,
        "\n### Tool surface: {} since `{}` ({} added, {} removed, {} changed)",
        plural(s.changes.len(), "change"),
        cell(file),
        count("added"),
        count("removed"),
        count("changed")
    );
    let mut groups: Vec<&str> = s.changes.iter().map(|c| c.group.as_str()).collect();
    groups.dedup();
    for g in groups {
        let _ = writeln!(
            out,
            "\n#### `{}`\n\n| change | tool | what | before | now |\n|---|---|---|---|---|",
            cell(g)
        );
        for c in s.changes.iter().filter(|c| c.group == g) {
            let breaking = if c.breaking { " **breaking**" } else { "" };
            let _ = writeln!(
                out,
                "| {}{breaking} | {} | {} | {} | {} |",
                c.kind.verb(),
                if c.tool.is_empty() {
                    String::new()
                } else {
                    format!("`{}`", cell(&c.tool))
                },
                cell(&c.what),
                c.old.as_deref().map(cell).unwrap_or_default(),
                c.new.as_deref().map(cell).unwrap_or_default()
            );
        }
    }
    let _ = writeln!(
        out,
        "\nIf the changes are intended, run `toolaudit surface --write` and commit `{}`.",
        cell(file)
    );
}
