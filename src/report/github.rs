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

pub fn render(r: &Report) -> String {
    let mut out = String::new();
    for d in &r.scan.diagnostics {
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
