//! `--diff-base REV`: the lines added or changed since the merge base of
//! REV and HEAD (working-tree changes and untracked files included), so a
//! pull request sees only the findings it introduced.
//!
//! Runs the `git` on the PATH. A missing base is an error that says how to
//! fetch it, never a silent fall-back to a full scan.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    #[error("--diff-base needs git on the PATH: {0}")]
    NoGit(std::io::Error),
    #[error("--diff-base needs a git work tree, and {} is not in one", .0.display())]
    NotARepo(PathBuf),
    #[error(
        "--diff-base: `{rev}` is not a commit in this clone; fetch it first, e.g. `git fetch origin {rev}` \
         (in GitHub Actions, `fetch-depth: 0` on actions/checkout)"
    )]
    UnknownRev { rev: String },
    #[error(
        "--diff-base: `{rev}` and HEAD have no merge base in this clone (a shallow clone?); fetch more \
         history, e.g. `git fetch --unshallow` or `fetch-depth: 0` on actions/checkout"
    )]
    NoMergeBase { rev: String },
    #[error("--diff-base: `git {args}` failed: {stderr}")]
    Git { args: String, stderr: String },
}

/// Changed line ranges (1-based, inclusive) per absolute file path; `None`
/// for a file that is new as a whole.
#[derive(Debug, Default)]
pub struct ChangedLines {
    files: HashMap<PathBuf, Option<Vec<(usize, usize)>>>,
}

impl ChangedLines {
    pub fn contains(&self, abs_path: &Path, line: usize) -> bool {
        match self.files.get(abs_path) {
            None => false,
            Some(None) => true,
            Some(Some(ranges)) => ranges.iter().any(|&(a, b)| a <= line && line <= b),
        }
    }
}

fn git(cwd: &Path, args: &[&str]) -> Result<std::process::Output, DiffError> {
    Command::new("git")
        .current_dir(cwd)
        .args(args)
        .output()
        .map_err(DiffError::NoGit)
}

fn git_ok(cwd: &Path, args: &[&str]) -> Result<String, DiffError> {
    let out = git(cwd, args)?;
    if !out.status.success() {
        return Err(DiffError::Git {
            args: args.join(" "),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The lines changed between the merge base of `rev` and HEAD, and the
/// working tree.
pub fn changed_lines(rev: &str, cwd: &Path) -> Result<ChangedLines, DiffError> {
    let top = git(cwd, &["rev-parse", "--show-toplevel"])?;
    if !top.status.success() {
        return Err(DiffError::NotARepo(cwd.to_path_buf()));
    }
    let top = PathBuf::from(String::from_utf8_lossy(&top.stdout).trim());
    let verify = git(
        &top,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
    )?;
    if !verify.status.success() {
        return Err(DiffError::UnknownRev {
            rev: rev.to_string(),
        });
    }
    let base = git(&top, &["merge-base", rev, "HEAD"])?;
    if !base.status.success() {
        return Err(DiffError::NoMergeBase {
            rev: rev.to_string(),
        });
    }
    let base = String::from_utf8_lossy(&base.stdout).trim().to_string();
    let patch = git_ok(
        &top,
        &[
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--no-renames",
            "-U0",
            &base,
            "--",
        ],
    )?;
    let mut changed = parse_unified_zero(&patch, &top);
    let untracked = git_ok(&top, &["ls-files", "--others", "--exclude-standard", "-z"])?;
    for path in untracked.split('\0').filter(|p| !p.is_empty()) {
        changed.files.insert(top.join(path), None);
    }
    Ok(changed)
}

/// Reads `git diff -U0` output: `+++ b/path` then `@@ -a,b +c,d @@` hunks.
fn parse_unified_zero(patch: &str, top: &Path) -> ChangedLines {
    let mut out = ChangedLines::default();
    let mut current: Option<PathBuf> = None;
    for line in patch.lines() {
        if let Some(path) = line.strip_prefix("+++ ") {
            current = path.strip_prefix("b/").map(|p| top.join(p));
            if let Some(p) = &current {
                out.files
                    .entry(p.clone())
                    .or_insert_with(|| Some(Vec::new()));
            }
        } else if let Some(hunk) = line.strip_prefix("@@ ") {
            let Some(path) = &current else { continue };
            let Some(added) = hunk.split(' ').find_map(|w| w.strip_prefix('+')) else {
                continue;
            };
            let (start, count) = match added.split_once(',') {
                Some((s, c)) => (s.parse().unwrap_or(0), c.parse().unwrap_or(0)),
                None => (added.parse().unwrap_or(0), 1),
            };
            if count > 0
                && let Some(Some(ranges)) = out.files.get_mut(path)
            {
                ranges.push((start, start + count - 1));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_hunks() {
        let patch = "diff --git a/x.json b/x.json\n--- a/x.json\n+++ b/x.json\n@@ -3 +3 @@\n-a\n+b\n@@ -10,0 +11,2 @@\n+c\n+d\n@@ -20,2 +22,0 @@\n-e\n-f\ndiff --git a/gone.json b/gone.json\n--- a/gone.json\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n";
        let c = parse_unified_zero(patch, Path::new("/r"));
        let x = Path::new("/r/x.json");
        assert!(c.contains(x, 3));
        assert!(!c.contains(x, 4));
        assert!(c.contains(x, 11) && c.contains(x, 12) && !c.contains(x, 13));
        assert!(!c.contains(x, 22));
        assert!(!c.contains(Path::new("/r/gone.json"), 1));
    }
}
