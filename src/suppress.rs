//! Everything that leaves findings out on purpose: `toolaudit:
//! ignore[CODES] reason` in a comment on or above the line of a finding,
//! `toolaudit: ignore-file[CODES] reason` for a whole file, `[[suppress]]`
//! entries in the config file for files that cannot carry comments (plain
//! JSON), and `per-file-ignores`.
//!
//! A suppression must say why. One without a reason is not applied, and one
//! that matches nothing is reported, so suppressions cannot rot silently.
//! Suppressed findings are kept aside, counted in the summary, and shown in
//! SARIF (as suppressed results) when asked for.

use std::path::{Path, PathBuf};

use crate::model::{Diagnostic, Notification, Severity};
use crate::rules::{self, RuleEntry};
use crate::source::SourceFile;

/// A glob from the config file, relative to the config file's folder.
#[derive(Debug)]
pub struct PathGlob {
    pub glob: String,
    matcher: globset::GlobMatcher,
    base: PathBuf,
}

impl PathGlob {
    /// `base` may hold `..` (a config found above `scan ..`): it is
    /// normalised like the paths it is compared with.
    pub fn new(glob: &str, base: &Path) -> Result<PathGlob, globset::Error> {
        let matcher = globset::GlobBuilder::new(glob)
            .literal_separator(true)
            .build()?
            .compile_matcher();
        Ok(PathGlob {
            glob: glob.to_string(),
            matcher,
            base: crate::source::normalize(base),
        })
    }

    /// Does the glob match `path` (as opened from `cwd`)?
    pub fn matches(&self, path: &Path, cwd: &Path) -> bool {
        let abs = crate::source::normalize(&cwd.join(path));
        let rel = abs.strip_prefix(&self.base).unwrap_or(&abs);
        self.matcher.is_match(rel)
    }
}

/// One `per-file-ignores` entry of the config file.
#[derive(Debug)]
pub struct PerFileIgnore {
    pub path: PathGlob,
    pub codes: Vec<&'static str>,
}

/// One `[[suppress]]` entry of the config file: findings of `codes` in files
/// matching `path`, about `tool` and/or at or under `pointer`.
#[derive(Debug)]
pub struct ConfigSuppression {
    pub path: PathGlob,
    pub tool: Option<String>,
    pub pointer: Option<String>,
    pub codes: Vec<&'static str>,
    pub reason: String,
    /// `file:line` of the entry, for the "matches nothing" message.
    pub origin: String,
}

impl ConfigSuppression {
    fn covers(&self, d: &Diagnostic, cwd: &Path) -> bool {
        self.codes.contains(&d.code)
            && self
                .tool
                .as_ref()
                .is_none_or(|t| d.tool.as_ref() == Some(t))
            && self.pointer.as_ref().is_none_or(|p| {
                d.pointer.as_deref().is_some_and(|dp| {
                    dp.strip_prefix(p.as_str())
                        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
                })
            })
            && self.path.matches(&d.file.path, cwd)
    }
}

/// Why a finding was left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// A `toolaudit: ignore[…]` comment in the scanned file.
    Comment(String),
    /// A `[[suppress]]` entry of the config file.
    Config(String),
    /// A `per-file-ignores` glob.
    PerFileIgnore(String),
}

impl Reason {
    /// The justification, as SARIF shows it.
    pub fn justification(&self) -> String {
        match self {
            Reason::Comment(r) | Reason::Config(r) => r.clone(),
            Reason::PerFileIgnore(glob) => format!("per-file-ignores: {glob}"),
        }
    }

    /// In the source file (`inSource`) or beside it (`external`).
    pub fn in_source(&self) -> bool {
        matches!(self, Reason::Comment(_))
    }
}

/// Moves the findings that a suppression covers from `diags` to the result,
/// with the reason; reports suppressions that matched nothing although
/// their rules ran on their files (`read`).
#[allow(clippy::too_many_arguments)]
pub fn apply_all(
    diags: &mut Vec<Diagnostic>,
    inline: &mut [Inline],
    config: &[ConfigSuppression],
    per_file: &[PerFileIgnore],
    enabled: &[&'static RuleEntry],
    read: &[&Path],
    cwd: &Path,
) -> (Vec<(Diagnostic, Reason)>, Vec<Notification>) {
    let mut used = vec![false; config.len()];
    let mut out = Vec::new();
    let mut kept = Vec::with_capacity(diags.len());
    // The comments of each file, so a finding looks only at its own file's.
    let mut by_path: std::collections::HashMap<String, Vec<usize>> = Default::default();
    for (i, s) in inline.iter().enumerate() {
        by_path.entry(s.path.clone()).or_default().push(i);
    }
    for d in diags.drain(..) {
        let own = by_path.get(&d.file.display).map_or(&[][..], Vec::as_slice);
        match reason_for(&d, inline, own, config, &mut used, per_file, cwd) {
            Some(r) => out.push((d, r)),
            None => kept.push(d),
        }
    }
    *diags = kept;
    let mut notes = unused(inline, enabled);
    for (s, used) in config.iter().zip(used) {
        if !used && ran(&s.codes, enabled) && read.iter().any(|p| s.path.matches(p, cwd)) {
            notes.push(Notification {
                level: Severity::Warning,
                path: None,
                line: None,
                message: format!(
                    "{}: `[[suppress]]` entry for {} matches no finding; remove it",
                    s.origin,
                    s.codes.join(", ")
                ),
            });
        }
    }
    (out, notes)
}

#[allow(clippy::too_many_arguments)]
fn reason_for(
    d: &Diagnostic,
    inline: &mut [Inline],
    own: &[usize],
    config: &[ConfigSuppression],
    used: &mut [bool],
    per_file: &[PerFileIgnore],
    cwd: &Path,
) -> Option<Reason> {
    let line = d.file.line_col(d.span.start).line;
    if let Some(&i) = own.iter().find(|&&i| {
        let s = &inline[i];
        s.codes.contains(&d.code) && s.target.is_none_or(|t| t == line)
    }) {
        let s = &mut inline[i];
        s.used = true;
        return Some(Reason::Comment(s.reason.clone()));
    }
    if let Some(i) = config.iter().position(|s| s.covers(d, cwd)) {
        used[i] = true;
        return Some(Reason::Config(config[i].reason.clone()));
    }
    per_file
        .iter()
        .find(|p| p.codes.contains(&d.code) && p.path.matches(&d.file.path, cwd))
        .map(|p| Reason::PerFileIgnore(p.path.glob.clone()))
}

/// One inline suppression comment.
#[derive(Debug, Clone)]
pub struct Inline {
    pub path: String,
    /// 1-based line of the comment.
    pub line: usize,
    /// The line it applies to; `None` for `ignore-file`.
    pub target: Option<usize>,
    /// Rule codes covered (selectors resolved against the registry).
    pub codes: Vec<&'static str>,
    /// The selectors as written, for messages.
    pub written: String,
    pub reason: String,
    pub used: bool,
}

const MARKER: &str = "toolaudit:";

/// Finds the suppression comments of a file. A marker inside a string
/// literal is not a comment and is ignored.
pub fn parse(file: &SourceFile) -> (Vec<Inline>, Vec<Notification>) {
    let mut found = Vec::new();
    let mut notes = Vec::new();
    if !file.text.contains(MARKER) {
        return (found, notes);
    }
    let rust = file.path.extension().is_some_and(|e| e == "rs");
    let lines: Vec<&str> = file.text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let Some(comment_at) = comment_start(line, rust) else {
            continue;
        };
        let comment = &line[comment_at..];
        let Some(m) = comment.find(MARKER) else {
            continue;
        };
        let rest = comment[m + MARKER.len()..].trim_start();
        let (file_level, rest) = if let Some(r) = rest.strip_prefix("ignore-file[") {
            (true, r)
        } else if let Some(r) = rest.strip_prefix("ignore[") {
            (false, r)
        } else {
            continue;
        };
        let line_no = i + 1;
        let note = |message: String| Notification {
            level: Severity::Warning,
            path: Some(file.display.clone()),
            line: Some(line_no),
            message,
        };
        let Some((written, reason)) = rest.split_once(']') else {
            notes.push(note(
                "suppression without a closing `]` is not applied".into(),
            ));
            continue;
        };
        let reason = reason.trim().trim_end_matches("*/").trim().to_string();
        if reason.is_empty() {
            notes.push(note(format!(
                "suppression `ignore[{written}]` has no reason and is not applied: say why after the `]`"
            )));
            continue;
        }
        let selectors: Vec<String> = written.split(',').map(|s| s.trim().to_string()).collect();
        let codes = match rules::select(&selectors, &[]) {
            Ok(entries) => entries.iter().map(|e| e.code).collect(),
            Err(e) => {
                notes.push(note(format!("suppression not applied: {e}")));
                continue;
            }
        };
        // A comment alone on its line covers the next line; after code it
        // covers its own line.
        let own_line = line[..comment_at].trim().is_empty();
        let target = if file_level {
            None
        } else if own_line {
            Some(line_no + 1)
        } else {
            Some(line_no)
        };
        found.push(Inline {
            path: file.display.clone(),
            line: line_no,
            target,
            codes,
            written: written.trim().to_string(),
            reason,
            used: false,
        });
    }
    (found, notes)
}

/// The byte offset where a `#` or `//` or `/*` comment starts on `line`,
/// outside string literals. In Rust (`rust`), `#` starts an attribute and
/// `'` a lifetime or a character, not a comment or a string.
fn comment_start(line: &str, rust: bool) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) => {
                if b == b'\\' {
                    i += 1;
                } else if b == q {
                    quote = None;
                }
            }
            None => match b {
                b'"' => quote = Some(b),
                // `'"'`: a character, not a string; other `'` in Rust are
                // lifetimes or characters too.
                b'\'' if rust && bytes.get(i + 2) == Some(&b'\'') => i += 2,
                b'\'' if rust => {}
                // `'` opens a quoted scalar only where a value starts, so the
                // apostrophe in `don't` does not hide a later comment.
                b'\''
                    if i == 0
                        || matches!(bytes[i - 1], b' ' | b'\t' | b':' | b'[' | b'{' | b',') =>
                {
                    quote = Some(b)
                }
                b'#' if !rust => return Some(i),
                b'/' if matches!(bytes.get(i + 1), Some(b'/' | b'*')) => return Some(i),
                _ => {}
            },
        }
        i += 1;
    }
    None
}

/// Did all of `codes` run? A suppression of a rule left out is not stale.
fn ran(codes: &[&str], enabled: &[&'static RuleEntry]) -> bool {
    codes.iter().all(|c| enabled.iter().any(|e| e.code == *c))
}

/// Notifications for suppressions that matched nothing, for rules that ran.
fn unused(inline: &[Inline], enabled: &[&'static RuleEntry]) -> Vec<Notification> {
    inline
        .iter()
        .filter(|s| !s.used && ran(&s.codes, enabled))
        .map(|s| Notification {
            level: Severity::Warning,
            path: Some(s.path.clone()),
            line: Some(s.line),
            message: format!(
                "suppression `ignore[{}]` matches no finding; remove it",
                s.written
            ),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> SourceFile {
        SourceFile::new("t.yaml".into(), "t.yaml".into(), text)
    }

    #[test]
    fn parses_line_and_file_suppressions() {
        let f = file(
            "# toolaudit: ignore-file[N104] generated by the gateway\n\
             tools:\n\
             \x20 # toolaudit: ignore[N101] served only to Gemini\n\
             \x20 - name: fs.list\n\
             \x20 - name: a:b  # toolaudit: ignore[N, S106] legacy alias\n\
             \x20 - name: \"# toolaudit: ignore[N101] not a comment\"\n",
        );
        let (found, notes) = parse(&f);
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(found.len(), 3);
        assert_eq!(found[0].target, None);
        assert_eq!(found[1].target, Some(4));
        assert_eq!(found[1].reason, "served only to Gemini");
        assert_eq!(found[2].target, Some(5));
        assert!(found[2].codes.contains(&"N102") && found[2].codes.contains(&"S106"));
    }

    #[test]
    fn a_suppression_without_reason_or_with_bad_codes_is_reported() {
        let (found, notes) = parse(&file(
            "# toolaudit: ignore[N101]\n# toolaudit: ignore[Q9] because\n# toolaudit: ignore[N101 oops\n",
        ));
        assert!(found.is_empty());
        assert_eq!(notes.len(), 3);
        assert!(
            notes[0]
                .message
                .contains("has no reason and is not applied")
        );
        assert!(notes[1].message.contains("`Q9`"));
        assert!(notes[2].message.contains("closing `]`"));
    }

    #[test]
    fn jsonc_comments_count_and_strings_do_not() {
        assert_eq!(comment_start(r#"  "name": "a//b", // c"#, false), Some(18));
        assert_eq!(comment_start("description: don't # c", false), Some(19));
        assert_eq!(comment_start("name: 'a # b' # c", false), Some(14));
        assert_eq!(comment_start(r#"  "url": "http://x""#, false), None);
        assert_eq!(comment_start("/* block */", false), Some(0));
        // Rust: attributes, lifetimes and characters are not comments or strings.
        assert_eq!(
            comment_start(r#"#[tool(name = "fs.read")] // c"#, true),
            Some(26)
        );
        assert_eq!(comment_start("fn f<'a>(x: &'a str) // c", true), Some(21));
        assert_eq!(comment_start(r#"let q = '"'; // c"#, true), Some(13));
    }
}
