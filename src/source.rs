//! Source files as read from disk: their text, how they are displayed, and the
//! mapping from byte offsets to 1-based lines and columns.
//!
//! Owns no parsing and no I/O policy; `discover` decides what to read and
//! `syntax` turns the text into trees.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// A half-open byte range `start..end` into a [`SourceFile`]'s text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        debug_assert!(start <= end);
        Span { start, end }
    }

    /// The first byte of the span: how a finding points at a whole
    /// multi-line object (its `{`) without underlining every line.
    pub fn start_only(self) -> Span {
        Span::new(self.start, (self.start + 1).min(self.end))
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.start..self.end
    }
}

/// A 1-based line and column; the column counts Unicode scalar values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineCol {
    pub line: usize,
    pub column: usize,
}

/// One file that was read and parsed.
#[derive(Debug)]
pub struct SourceFile {
    /// The path as it can be opened from the working directory.
    pub path: PathBuf,
    /// The path shown to people and written to reports: relative to the
    /// project root where possible, always with `/` separators.
    pub display: String,
    pub text: Arc<str>,
    line_starts: Vec<usize>,
    /// Per line: true when it is all ASCII, so a column is a byte distance
    /// (no counting along megabyte-long minified lines).
    ascii: Vec<bool>,
}

impl SourceFile {
    pub fn new(path: PathBuf, display: String, text: impl Into<Arc<str>>) -> Self {
        let text: Arc<str> = text.into();
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        let ascii = (0..line_starts.len())
            .map(|i| {
                let end = line_starts.get(i + 1).copied().unwrap_or(text.len());
                text.as_bytes()[line_starts[i]..end].is_ascii()
            })
            .collect();
        SourceFile {
            path,
            display,
            text,
            line_starts,
            ascii,
        }
    }

    /// The 0-based index of the line holding byte `offset` (clamped).
    pub fn line_index(&self, offset: usize) -> usize {
        let offset = offset.min(self.text.len());
        match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        }
    }

    /// The byte range of the 0-based line `index`, without its line break.
    pub fn line_range(&self, index: usize) -> std::ops::Range<usize> {
        let Some(&start) = self.line_starts.get(index) else {
            return self.text.len()..self.text.len();
        };
        let end = self
            .line_starts
            .get(index + 1)
            .copied()
            .unwrap_or(self.text.len());
        let line = &self.text[start..end];
        start..start + line.trim_end_matches(['\n', '\r']).len()
    }

    /// The line and column of a byte offset. Offsets inside a multi-byte
    /// character or past the end are clamped rather than trusted.
    pub fn line_col(&self, offset: usize) -> LineCol {
        let offset = floor_char_boundary(&self.text, offset.min(self.text.len()));
        let line = self.line_index(offset);
        let start = self.line_starts[line];
        let column = if self.ascii[line] {
            offset - start + 1
        } else {
            self.text[start..offset].chars().count() + 1
        };
        LineCol {
            line: line + 1,
            column,
        }
    }

    /// The text of the 1-based line `line`, without its line break.
    pub fn line_text(&self, line: usize) -> &str {
        &self.text[self.line_range(line.wrapping_sub(1))]
    }

    pub fn slice(&self, span: Span) -> &str {
        let start = floor_char_boundary(&self.text, span.start.min(self.text.len()));
        let end = floor_char_boundary(&self.text, span.end.min(self.text.len())).max(start);
        &self.text[start..end]
    }
}

/// The enclosing git work tree of `cwd`, else `cwd` itself: the root that
/// SARIF URIs and baseline entries are relative to.
pub fn project_root(cwd: &Path) -> PathBuf {
    cwd.ancestors()
        .find(|dir| dir.join(".git").exists())
        .unwrap_or(cwd)
        .to_path_buf()
}

/// `path` relative to `root` with `/` separators (`Ok`), or absolute when
/// it lies outside the root (`Err`). Relative paths are taken from `cwd`.
pub fn project_path(path: &Path, cwd: &Path, root: &Path) -> Result<String, String> {
    let abs = normalize(&cwd.join(path));
    let slashes = |p: &Path| p.to_string_lossy().replace('\\', "/");
    match abs.strip_prefix(root) {
        Ok(rel) => Ok(slashes(rel)),
        Err(_) => Err(slashes(&abs)),
    }
}

/// Removes `.` and resolves `..` lexically.
pub fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// A stable 64-bit hash (FNV-1a), the same on every run and platform.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_characters_from_one() {
        let f = SourceFile::new("a".into(), "a".into(), "ab\nçd\n\nx");
        assert_eq!(f.line_col(0), LineCol { line: 1, column: 1 });
        assert_eq!(f.line_col(1), LineCol { line: 1, column: 2 });
        assert_eq!(f.line_col(3), LineCol { line: 2, column: 1 });
        // `ç` is two bytes; `d` is the second character of line 2.
        assert_eq!(f.line_col(5), LineCol { line: 2, column: 2 });
        assert_eq!(f.line_col(7), LineCol { line: 3, column: 1 });
        assert_eq!(f.line_col(8), LineCol { line: 4, column: 1 });
        assert_eq!(f.line_col(999), LineCol { line: 4, column: 2 });
        assert_eq!(f.line_text(2), "çd");
        assert_eq!(f.line_text(9), "");
    }
}
