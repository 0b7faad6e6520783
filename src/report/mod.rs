//! Output formats. Each emitter renders a finished, sorted [`Scan`] into one
//! string, so `--output` can write it atomically and nothing is printed from
//! worker threads.

mod github;
mod human;
mod json;
mod markdown;
pub mod sarif;
mod snippet;

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

/// Writes the report to `out`. Large reports are written as they are
/// built, so memory does not grow with the report's size.
pub fn render(format: Format, r: &Report, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    match format {
        Format::Human => human::render(r, out),
        Format::Sarif => sarif::render(r, out),
        Format::Json => json::render(r, out),
        Format::Github => out.write_all(github::render(r).as_bytes()),
        Format::Markdown => out.write_all(markdown::render(r).as_bytes()),
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
        let hash = crate::source::fnv1a(key.as_bytes());
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

/// Where [`write_lazy`] puts the lazily built array.
pub(crate) const LAZY: &str = "\u{0}toolaudit-lazy-array";

/// A document with one large array built item by item while it is written,
/// so the whole array never exists as `Value`s at once: `doc` holds the
/// string [`LAZY`] where the array goes. Output is byte-identical to
/// `to_string_pretty` of the document with the array in place.
pub(crate) fn write_lazy<I>(
    doc: &serde_json::Value,
    items: I,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()>
where
    I: Iterator<Item = serde_json::Value>,
{
    use serde::ser::{SerializeMap, SerializeSeq};
    use std::cell::RefCell;
    use std::io::Write as _;

    struct Node<'a, I> {
        value: &'a serde_json::Value,
        items: &'a RefCell<Option<I>>,
    }
    impl<I: Iterator<Item = serde_json::Value>> serde::Serialize for Node<'_, I> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            use serde_json::Value;
            match self.value {
                Value::String(t) if t == LAZY => {
                    let items = self.items.borrow_mut().take();
                    let mut seq = s.serialize_seq(None)?;
                    for item in items.into_iter().flatten() {
                        seq.serialize_element(&item)?;
                    }
                    seq.end()
                }
                Value::Array(a) => {
                    let mut seq = s.serialize_seq(Some(a.len()))?;
                    for v in a {
                        seq.serialize_element(&Node {
                            value: v,
                            items: self.items,
                        })?;
                    }
                    seq.end()
                }
                Value::Object(o) => {
                    let mut map = s.serialize_map(Some(o.len()))?;
                    for (k, v) in o {
                        map.serialize_entry(
                            k,
                            &Node {
                                value: v,
                                items: self.items,
                            },
                        )?;
                    }
                    map.end()
                }
                other => other.serialize(s),
            }
        }
    }
    let items = RefCell::new(Some(items));
    let mut w = std::io::BufWriter::new(out);
    serde_json::to_writer_pretty(
        &mut w,
        &Node {
            value: doc,
            items: &items,
        },
    )?;
    w.write_all(b"\n")?;
    w.flush()
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

/// Lines saying what the walk saw and did not read, for summaries: the
/// languages toolaudit does not read yet, then the other reasons.
pub fn not_read(scan: &Scan) -> Vec<String> {
    use crate::discover::SkipReason;
    let mut langs: Vec<(&str, usize)> = Vec::new();
    let mut other: Vec<(SkipReason, usize)> = Vec::new();
    for s in &scan.skipped {
        match s.reason {
            SkipReason::Language(l) => match langs.iter_mut().find(|(x, _)| *x == l) {
                Some((_, n)) => *n += 1,
                None => langs.push((l, 1)),
            },
            r => match other.iter_mut().find(|(x, _)| *x == r) {
                Some((_, n)) => *n += 1,
                None => other.push((r, 1)),
            },
        }
    }
    let mut out = Vec::new();
    if !langs.is_empty() {
        langs.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let parts: Vec<String> = langs.iter().map(|(l, n)| format!("{n} {l}")).collect();
        let total: usize = langs.iter().map(|(_, n)| n).sum();
        out.push(format!(
            "Not read: {} {} (toolaudit reads JSON, YAML, TOML, Rust and Python so far).",
            parts.join(", "),
            if total == 1 { "file" } else { "files" }
        ));
    }
    if !other.is_empty() {
        other.sort();
        let parts: Vec<String> = other
            .iter()
            .map(|(r, n)| match r {
                SkipReason::Ignored => {
                    format!("{} ignored by .gitignore or .ignore", plural(*n, "path"))
                }
                SkipReason::Excluded => format!("{} excluded", plural(*n, "path")),
                SkipReason::Symlink => format!("{} (not followed)", plural(*n, "symbolic link")),
                SkipReason::Special if *n == 1 => "1 path that is not a regular file".into(),
                SkipReason::Special => format!("{n} paths that are not regular files"),
                SkipReason::NotCompiled => format!(
                    "{} that no `mod` declaration reaches (not compiled)",
                    plural(*n, "Rust file")
                ),
                SkipReason::Backup => {
                    format!(
                        "{} kept as backup copies (by name or folder)",
                        plural(*n, "file")
                    )
                }
                SkipReason::Language(_) => unreachable!("counted above"),
            })
            .collect();
        out.push(format!("Not read: {}; -v lists them.", parts.join(", ")));
    }
    out
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
