//! Baselines: the findings a project has accepted for now, so a scan
//! reports only new ones. Entries are keyed on what a finding *is* — rule,
//! file, tool and a JSON Pointer relative to the tool (or the trimmed source
//! line) — not on line numbers, so reformatting and unrelated edits do not
//! bring old findings back.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::model::Diagnostic;
use crate::source::project_path;

pub const VERSION: u32 = 1;

/// What identifies a finding across edits.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Identity {
    pub code: String,
    /// Relative to the project root, `/`-separated.
    pub file: String,
    /// The tool the finding is about, or empty.
    pub tool: String,
    /// JSON Pointer relative to the tool, else the trimmed source line.
    pub anchor: String,
}

/// Anchors longer than this (a minified manifest's only line) are replaced
/// by the finding's own text, so identities stay small.
const MAX_ANCHOR: usize = 200;

impl Identity {
    pub fn of(d: &Diagnostic, cwd: &Path, root: &Path) -> Identity {
        let anchor = match &d.pointer {
            Some(p) => p.clone(),
            None => {
                let line = d.file.line_text(d.file.line_col(d.span.start).line).trim();
                if line.len() <= MAX_ANCHOR {
                    line.to_string()
                } else {
                    let text = d.file.slice(d.span);
                    let mut end = text.len().min(MAX_ANCHOR);
                    while !text.is_char_boundary(end) {
                        end -= 1;
                    }
                    text[..end].to_string()
                }
            }
        };
        Identity {
            code: d.code.to_string(),
            file: project_path(&d.file.path, cwd, root).unwrap_or_else(|abs| abs),
            tool: d.tool.clone().unwrap_or_default(),
            anchor,
        }
    }
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    #[serde(flatten)]
    id: Identity,
    /// For people reading the file; not part of the identity, but among
    /// findings of equal identity the one with this message matches first.
    message: String,
    /// Where the finding was when the baseline was written; not part of the
    /// identity, but among findings of equal identity and message the
    /// nearest one matches first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    version: u32,
    toolaudit: String,
    findings: Vec<Entry>,
}

#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error("cannot read the baseline {}: {cause}", .path.display())]
    Read {
        path: PathBuf,
        /// In the message, not a `source`: shown once, not twice by `{:#}`.
        cause: std::io::Error,
    },
    #[error("{} is not a toolaudit baseline: {message}", .path.display())]
    Invalid { path: PathBuf, message: String },
}

/// The accepted findings by identity, each with its message and line.
#[derive(Debug, Default)]
pub struct Baseline {
    entries: HashMap<Identity, Vec<(String, Option<usize>)>>,
}

/// What applying a baseline did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Applied {
    /// Findings left out because the baseline has them.
    pub matched: usize,
    /// Baseline entries that no finding matched any more: fixed findings,
    /// which `toolaudit baseline` would drop.
    pub stale: usize,
}

impl Baseline {
    pub fn load(path: &Path) -> Result<Baseline, BaselineError> {
        let text = std::fs::read_to_string(path).map_err(|cause| BaselineError::Read {
            path: path.to_path_buf(),
            cause,
        })?;
        let file: File = serde_json::from_str(&text).map_err(|e| BaselineError::Invalid {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        if file.version != VERSION {
            return Err(BaselineError::Invalid {
                path: path.to_path_buf(),
                message: format!(
                    "version {} (this toolaudit reads version {VERSION})",
                    file.version
                ),
            });
        }
        let mut entries: HashMap<Identity, Vec<(String, Option<usize>)>> = HashMap::new();
        for e in file.findings {
            entries.entry(e.id).or_default().push((e.message, e.line));
        }
        Ok(Baseline { entries })
    }

    /// Removes the findings the baseline accepts, each entry matching once.
    /// Where more findings share an identity than the baseline has entries
    /// for it (two equal lines in one handler), the entries go to the
    /// findings with the same message, then to the nearest lines, so the
    /// finding reported as new is the one that is new.
    pub fn apply(self, diags: &mut Vec<Diagnostic>, cwd: &Path, root: &Path) -> Applied {
        let mut by_id: HashMap<Identity, Vec<usize>> = HashMap::new();
        for (i, d) in diags.iter().enumerate() {
            by_id.entry(Identity::of(d, cwd, root)).or_default().push(i);
        }
        let mut accepted = vec![false; diags.len()];
        let mut stale = 0;
        for (id, entries) in &self.entries {
            let found = by_id.get(id).map_or(&[][..], Vec::as_slice);
            let mut pairs: Vec<(bool, usize, usize, usize)> = Vec::new();
            for (e, (message, line)) in entries.iter().enumerate() {
                for &i in found {
                    let d = &diags[i];
                    let at = d.file.line_col(d.span.start).line;
                    let distance = line.map_or(usize::MAX, |l| l.abs_diff(at));
                    pairs.push((d.message != *message, distance, e, i));
                }
            }
            pairs.sort_unstable();
            let mut used = vec![false; entries.len()];
            for (_, _, e, i) in pairs {
                if !used[e] && !accepted[i] {
                    used[e] = true;
                    accepted[i] = true;
                }
            }
            stale += used.iter().filter(|u| !**u).count();
        }
        let before = diags.len();
        let mut keep = accepted.iter().map(|a| !a);
        diags.retain(|_| keep.next().unwrap_or(true));
        Applied {
            matched: before - diags.len(),
            stale,
        }
    }
}

/// The baseline file for `diags`, sorted so it diffs cleanly.
pub fn render(diags: &[Diagnostic], cwd: &Path, root: &Path) -> String {
    let mut findings: Vec<Entry> = diags
        .iter()
        .map(|d| Entry {
            id: Identity::of(d, cwd, root),
            message: d.message.clone(),
            line: Some(d.file.line_col(d.span.start).line),
        })
        .collect();
    findings.sort_by(|a, b| (&a.id, &a.message, a.line).cmp(&(&b.id, &b.message, b.line)));
    let file = File {
        version: VERSION,
        toolaudit: env!("CARGO_PKG_VERSION").to_string(),
        findings,
    };
    let mut s = serde_json::to_string_pretty(&file).expect("plain data always serialises");
    s.push('\n');
    s
}
