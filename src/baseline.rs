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

impl Identity {
    pub fn of(d: &Diagnostic, cwd: &Path, root: &Path) -> Identity {
        let anchor = match &d.pointer {
            Some(p) => p.clone(),
            None => d
                .file
                .line_text(d.file.line_col(d.span.start).line)
                .trim()
                .to_string(),
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
    /// For people reading the file; not part of the identity.
    message: String,
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
    #[error("cannot read the baseline {}: {source}", .path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not a toolaudit baseline: {message}", .path.display())]
    Invalid { path: PathBuf, message: String },
}

/// The accepted findings, as a multiset of identities.
#[derive(Debug, Default)]
pub struct Baseline {
    counts: HashMap<Identity, usize>,
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
        let text = std::fs::read_to_string(path).map_err(|source| BaselineError::Read {
            path: path.to_path_buf(),
            source,
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
        let mut counts = HashMap::new();
        for e in file.findings {
            *counts.entry(e.id).or_insert(0) += 1;
        }
        Ok(Baseline { counts })
    }

    /// Removes the findings the baseline accepts, each entry matching once.
    pub fn apply(mut self, diags: &mut Vec<Diagnostic>, cwd: &Path, root: &Path) -> Applied {
        let before = diags.len();
        diags.retain(|d| match self.counts.get_mut(&Identity::of(d, cwd, root)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        });
        Applied {
            matched: before - diags.len(),
            stale: self.counts.values().sum(),
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
        })
        .collect();
    findings.sort_by(|a, b| (&a.id, &a.message).cmp(&(&b.id, &b.message)));
    let file = File {
        version: VERSION,
        toolaudit: env!("CARGO_PKG_VERSION").to_string(),
        findings,
    };
    let mut s = serde_json::to_string_pretty(&file).expect("plain data always serialises");
    s.push('\n');
    s
}
