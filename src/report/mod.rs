//! Output formats. Each emitter renders a finished, sorted [`Scan`] into one
//! string, so `--output` can write it atomically and nothing is printed from
//! worker threads.

mod github;
mod human;
mod json;
mod markdown;
pub mod sarif;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::baseline::Identity;
use crate::engine::Scan;
use crate::model::Diagnostic;
use crate::rules::RuleEntry;
use crate::source::project_path;
use crate::targets::Target;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Code snippets grouped by family, with a summary.
    Human,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF consumers.
    Sarif,
    /// toolaudit's versioned JSON (docs/json-output.md).
    Json,
    /// GitHub Actions workflow commands (`::error file=…::`).
    Github,
    /// A Markdown summary, for GitHub job summaries and PR comments.
    Markdown,
}

pub struct Report<'a> {
    pub scan: &'a Scan,
    /// The enabled rules, sorted by code.
    pub rules: &'a [&'static RuleEntry],
    pub targets: &'a [&'static Target],
    /// Absolute project root (the enclosing git work tree, else the working
    /// directory); SARIF URIs are relative to it.
    pub root: PathBuf,
    /// Absolute working directory, to resolve relative paths.
    pub cwd: PathBuf,
    pub color: bool,
    /// SARIF `automationDetails.id` prefix (GitHub's analysis category).
    pub category: String,
    /// Human format: counts per rule instead of each finding.
    pub statistics: bool,
    /// SARIF: include suppressed findings, marked as suppressed.
    pub show_suppressed: bool,
}

pub fn render(format: Format, r: &Report) -> String {
    match format {
        Format::Human => human::render(r),
        Format::Sarif => sarif::render(r),
        Format::Json => json::render(r),
        Format::Github => github::render(r),
        Format::Markdown => markdown::render(r),
    }
}

pub fn help_uri(code: &str) -> String {
    format!(
        "{}/blob/main/rules/{code}/docs.md",
        env!("CARGO_PKG_REPOSITORY")
    )
}

/// Stable identities for findings (see [`Identity`]) as hashes, with a
/// counter that separates findings with equal identities.
pub fn fingerprints(r: &Report) -> Vec<String> {
    fingerprints_with_suppressed(r).0
}

/// Fingerprints of the reported findings and of the suppressed ones. The
/// counter runs over both in report order, so suppressing a finding (or
/// showing suppressed ones) changes no other finding's fingerprint.
pub fn fingerprints_with_suppressed(r: &Report) -> (Vec<String>, Vec<String>) {
    let reported = &r.scan.diagnostics;
    let suppressed: Vec<&Diagnostic> = r.scan.suppressed.iter().map(|(d, _)| d).collect();
    // Both lists are in report order: merge them.
    let mut order: Vec<(bool, usize)> = (0..reported.len())
        .map(|i| (false, i))
        .chain((0..suppressed.len()).map(|i| (true, i)))
        .collect();
    let of = |&(s, i): &(bool, usize)| if s { suppressed[i] } else { &reported[i] };
    order.sort_by(|a, b| of(a).sort_key().cmp(&of(b).sort_key()));
    let mut seen: HashMap<u64, usize> = HashMap::new();
    let (mut fps, mut sfps) = (
        vec![String::new(); reported.len()],
        vec![String::new(); suppressed.len()],
    );
    for slot in &order {
        let d = of(slot);
        let id = Identity::of(d, &r.cwd, &r.root);
        let key = format!("{}\0{}\0{}\0{}", id.code, id.file, id.tool, id.anchor);
        let hash = fnv1a(key.as_bytes());
        let n = seen.entry(hash).or_insert(0);
        *n += 1;
        let fp = format!("{hash:016x}:{n}");
        match slot {
            (false, i) => fps[*i] = fp,
            (true, i) => sfps[*i] = fp,
        }
    }
    (fps, sfps)
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The SARIF artifact URI of a file and whether it is relative to the root
/// (`%SRCROOT%`) or an absolute `file://` URI.
pub fn artifact(r: &Report, path: &Path) -> (String, bool) {
    match project_path(path, &r.cwd, &r.root) {
        Ok(rel) => (encode_uri_path(&rel), true),
        Err(abs) => (format!("file://{}", encode_uri_path(&abs)), false),
    }
}

/// `file://` URI of a directory, with a trailing slash.
pub fn dir_uri(dir: &Path) -> String {
    let s = encode_uri_path(&dir.to_string_lossy().replace('\\', "/"));
    let s = if s.starts_with('/') {
        s
    } else {
        format!("/{s}")
    };
    if s.ends_with('/') {
        format!("file://{s}")
    } else {
        format!("file://{s}/")
    }
}

fn encode_uri_path(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Counts per severity, in the order error, warning, note, e.g. "2 errors, 1 warning".
pub fn count_phrase<'a>(diags: impl IntoIterator<Item = &'a Diagnostic>) -> String {
    let mut counts = [0usize; 3];
    for d in diags {
        counts[d.severity as usize] += 1;
    }
    let mut parts = Vec::new();
    for (sev, word) in [(2, "error"), (1, "warning"), (0, "note")] {
        match counts[sev] {
            0 => {}
            1 => parts.push(format!("1 {word}")),
            n => parts.push(format!("{n} {word}s")),
        }
    }
    parts.join(", ")
}

pub(crate) fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris() {
        assert_eq!(encode_uri_path("a b/c#d.json"), "a%20b/c%23d.json");
        assert_eq!(dir_uri(Path::new("/work/x")), "file:///work/x/");
    }
}
