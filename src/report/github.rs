//! GitHub Actions workflow commands: one annotation per finding, and one per
//! notification that concerns a file.

use std::fmt::Write as _;

use super::Report;
use crate::model::Severity;
use crate::rules;

fn command(sev: Severity) -> &'static str {
    match sev {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "notice",
    }
}

/// Escapes the message part of a workflow command.
fn data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value of a workflow command.
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

/// GitHub shows at most 10 annotations of each level per step.
pub const PER_LEVEL: usize = 10;

pub fn render(r: &Report) -> String {
    let mut out = String::new();
    // The most severe findings get the annotations; one notice slot is kept
    // for the line that says how many more there are.
    let diags = &r.scan.diagnostics;
    let mut order: Vec<usize> = (0..diags.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(diags[i].severity));
    let mut used = [0usize; 3];
    let overflow = Severity::ALL
        .iter()
        .any(|&s| diags.iter().filter(|d| d.severity == s).count() > PER_LEVEL);
    let mut plain = Vec::new();
    for i in order {
        let d = &diags[i];
        let cap = if d.severity == Severity::Note && overflow {
            PER_LEVEL - 1
        } else {
            PER_LEVEL
        };
        let slot = &mut used[d.severity as usize];
        if *slot >= cap {
            plain.push(i);
            continue;
        }
        *slot += 1;
        let start = d.file.line_col(d.span.start);
        let end = d.file.line_col(d.span.end);
        let name = rules::by_code(d.code).map_or("", |e| e.meta().name.as_str());
        let mut message = d.message.clone();
        if let Some(h) = &d.help {
            message.push_str("\nhelp: ");
            message.push_str(h);
        }
        let _ = writeln!(
            out,
            "::{} file={},line={},col={},endLine={},endColumn={},title={}::{}",
            command(d.severity),
            property(&d.file.display),
            start.line,
            start.column,
            end.line,
            end.column,
            property(&format!("{} {name}", d.code)),
            data(&message)
        );
    }
    // The rest go to the log as plain lines, in report order.
    plain.sort_unstable();
    for &i in &plain {
        let d = &diags[i];
        let at = d.file.line_col(d.span.start);
        let _ = writeln!(
            out,
            "{}:{}:{}: {}[{}] {}",
            d.file.display, at.line, at.column, d.severity, d.code, d.message
        );
    }
    if !plain.is_empty() {
        let _ = writeln!(
            out,
            "::notice title=toolaudit::{} more findings are listed in the log but not annotated: GitHub shows at most {PER_LEVEL} annotations per level and step (upload the SARIF file to see them all in code scanning)",
            plain.len()
        );
    }
    for n in &r.scan.notifications {
        let mut props = Vec::new();
        if let Some(p) = &n.path {
            props.push(format!("file={}", property(p)));
        }
        props.push("title=toolaudit".to_string());
        let _ = writeln!(
            out,
            "::{} {}::{}",
            command(n.level),
            props.join(","),
            data(&n.message)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(data("a%b\nc"), "a%25b%0Ac");
        assert_eq!(property("a:b,c"), "a%3Ab%2Cc");
    }
}
