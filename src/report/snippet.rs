//! What the human format shows of the source: for each finding, only the
//! lines its labels need, each clipped to a window around the labels.
//!
//! codespan-reporting prints every labelled line whole. On a minified
//! `tools/list` dump that is one line of megabytes, repeated for every
//! finding on it: output and memory grow with findings × line length. Here
//! each finding gets a small view of its files (a [`Files`] implementation
//! over just those lines, with the real line numbers and columns), so the
//! report grows with the number of findings only. Lines up to
//! [`MAX_LINE`] bytes are shown whole, exactly as before.

use std::ops::Range;
use std::sync::Arc;

use codespan_reporting::files::{Error, Files, Location};

use crate::source::{SourceFile, Span};

/// Lines up to this many bytes are shown whole.
pub const MAX_LINE: usize = 200;
/// Bytes kept on each side of a label on a longer line.
const CONTEXT: usize = 40;
/// At most this many bytes of one label are shown on a longer line.
const MAX_LABEL: usize = 80;
/// What stands for the bytes left out.
const ELLIPSIS: &str = "…";

/// A piece of a real line kept in a view: `len` bytes from `real` shown at `view`.
#[derive(Clone, Copy, Debug)]
struct Piece {
    view: usize,
    real: usize,
    len: usize,
}

#[derive(Debug)]
struct ViewLine {
    /// 0-based line index in the real file.
    index: usize,
    /// Range in the view's text, without the line break.
    range: Range<usize>,
    pieces: Vec<Piece>,
}

/// The lines of one file that one finding shows.
#[derive(Debug)]
struct View {
    file: Arc<SourceFile>,
    text: String,
    lines: Vec<ViewLine>,
}

/// The views of every finding being rendered; file ids index `views`.
#[derive(Default)]
pub struct Views {
    views: Vec<View>,
}

impl Views {
    /// A view of `file` showing `spans` (real byte ranges), and their
    /// ranges in the view, in the same order.
    pub fn add(&mut self, file: &Arc<SourceFile>, spans: &[Span]) -> (usize, Vec<Range<usize>>) {
        let spans: Vec<Span> = spans.iter().map(|s| clamp(file, *s)).collect();
        let mut wanted: Vec<usize> = Vec::new();
        for s in &spans {
            let (a, b) = (file.line_index(s.start), file.line_index(s.end));
            wanted.push(a);
            wanted.push(b);
            if b > a {
                // What codespan renders of a multi-line label: three lines
                // after its start and one before its end.
                wanted.extend((a + 1)..=(a + 3).min(b));
                wanted.push(b - 1);
            }
        }
        wanted.sort_unstable();
        wanted.dedup();
        // A single line between two shown lines is shown too.
        let gaps: Vec<usize> = wanted
            .windows(2)
            .filter(|w| w[1] - w[0] == 2)
            .map(|w| w[0] + 1)
            .collect();
        wanted.extend(gaps);
        wanted.sort_unstable();

        let mut view = View {
            file: file.clone(),
            text: String::new(),
            lines: Vec::with_capacity(wanted.len()),
        };
        for index in wanted {
            let line = file.line_range(index);
            let mut keep: Vec<(usize, usize)> = Vec::new();
            if line.len() <= MAX_LINE {
                keep.push((line.start, line.end));
            } else {
                for s in &spans {
                    let (a, b) = (s.start.max(line.start), s.end.min(line.end));
                    if s.start >= line.start && s.start <= line.end {
                        let end = b.min(a + MAX_LABEL);
                        keep.push((a.saturating_sub(CONTEXT), end + CONTEXT));
                    }
                    if s.end >= line.start && s.end <= line.end && s.start < line.start {
                        keep.push((b.saturating_sub(CONTEXT + MAX_LABEL), b + CONTEXT));
                    }
                }
                if keep.is_empty() {
                    keep.push((line.start, line.start + MAX_LINE));
                }
                for k in &mut keep {
                    k.0 = floor(&file.text, k.0.max(line.start));
                    k.1 = ceil(&file.text, k.1.min(line.end));
                }
                keep.sort_unstable();
                let mut merged: Vec<(usize, usize)> = Vec::new();
                for k in keep {
                    match merged.last_mut() {
                        Some(last) if k.0 <= last.1 => last.1 = last.1.max(k.1),
                        _ => merged.push(k),
                    }
                }
                keep = merged;
            }
            let start = view.text.len();
            let mut pieces = Vec::with_capacity(keep.len());
            for (i, &(a, b)) in keep.iter().enumerate() {
                if i == 0 && a > line.start {
                    view.text.push_str(ELLIPSIS);
                    view.text.push(' ');
                } else if i > 0 {
                    view.text.push(' ');
                    view.text.push_str(ELLIPSIS);
                    view.text.push(' ');
                }
                pieces.push(Piece {
                    view: view.text.len(),
                    real: a,
                    len: b - a,
                });
                view.text.push_str(&file.text[a..b]);
            }
            if keep.last().is_some_and(|&(_, b)| b < line.end) {
                view.text.push(' ');
                view.text.push_str(ELLIPSIS);
            }
            let end = view.text.len();
            view.text.push('\n');
            view.lines.push(ViewLine {
                index,
                range: start..end,
                pieces,
            });
        }
        let ranges = spans
            .iter()
            .map(|s| {
                // On a clipped line a label shows at most MAX_LABEL bytes.
                let line = file.line_range(file.line_index(s.start));
                let end = if line.len() > MAX_LINE && s.end > s.start + MAX_LABEL {
                    floor(&file.text, s.start + MAX_LABEL).min(line.end)
                } else {
                    s.end
                };
                let a = view.to_view(s.start, false);
                let b = view.to_view(end, true).max(a);
                a..b
            })
            .collect();
        self.views.push(view);
        (self.views.len() - 1, ranges)
    }

    fn get(&self, id: usize) -> Result<&View, Error> {
        self.views.get(id).ok_or(Error::FileMissing)
    }
}

impl View {
    /// The view offset of a real offset; one left out maps to the nearest
    /// kept byte (`end`: of the piece before it).
    fn to_view(&self, real: usize, end: bool) -> usize {
        let index = self.file.line_index(real);
        let Some(line) = self.lines.iter().find(|l| l.index == index) else {
            return self.text.len();
        };
        let mut best = if end {
            line.range.start
        } else {
            line.range.end
        };
        for p in &line.pieces {
            if real >= p.real && real <= p.real + p.len {
                return p.view + (real - p.real);
            }
            if end && real > p.real + p.len {
                best = p.view + p.len;
            }
            if !end && real < p.real {
                return p.view;
            }
        }
        best
    }

    /// The real offset of a view offset.
    fn to_real(&self, at: usize) -> usize {
        let Some(line) = self.lines.iter().find(|l| at <= l.range.end) else {
            return self.file.text.len();
        };
        for p in &line.pieces {
            if at <= p.view + p.len {
                return p.real + at.saturating_sub(p.view);
            }
        }
        line.pieces.last().map_or(0, |p| p.real + p.len)
    }
}

fn clamp(file: &SourceFile, s: Span) -> Span {
    let len = file.text.len();
    let start = floor(&file.text, s.start.min(len));
    let end = ceil(&file.text, s.end.min(len)).max(start);
    Span::new(start, end)
}

fn floor(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

impl<'a> Files<'a> for Views {
    type FileId = usize;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: usize) -> Result<&'a str, Error> {
        Ok(&self.get(id)?.file.display)
    }

    fn source(&'a self, id: usize) -> Result<&'a str, Error> {
        Ok(&self.get(id)?.text)
    }

    fn line_index(&'a self, id: usize, byte_index: usize) -> Result<usize, Error> {
        let v = self.get(id)?;
        Ok(v.lines
            .iter()
            .find(|l| byte_index <= l.range.end)
            .or(v.lines.last())
            .map_or(0, |l| l.index))
    }

    fn line_range(&'a self, id: usize, line_index: usize) -> Result<Range<usize>, Error> {
        let v = self.get(id)?;
        // Lines codespan asks for but does not show (the middle of a long
        // multi-line label) are empty.
        Ok(v.lines
            .iter()
            .find(|l| l.index == line_index)
            .map_or(v.text.len()..v.text.len(), |l| l.range.clone()))
    }

    fn location(&'a self, id: usize, byte_index: usize) -> Result<Location, Error> {
        let v = self.get(id)?;
        let lc = v.file.line_col(v.to_real(byte_index));
        Ok(Location {
            line_number: lc.line,
            column_number: lc.column,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> Arc<SourceFile> {
        Arc::new(SourceFile::new("f".into(), "f".into(), text.to_string()))
    }

    #[test]
    fn short_lines_are_kept_whole() {
        let f = file("one\ntwo three\nfour\n");
        let mut v = Views::default();
        let (id, ranges) = v.add(&f, &[Span::new(8, 13)]);
        assert_eq!(v.source(id).unwrap(), "two three\n");
        assert_eq!(&v.source(id).unwrap()[ranges[0].clone()], "three");
        assert_eq!(v.line_index(id, ranges[0].start).unwrap(), 1);
        let at = v.location(id, ranges[0].start).unwrap();
        assert_eq!((at.line_number, at.column_number), (2, 5));
    }

    #[test]
    fn long_lines_are_clipped_around_each_label() {
        let mut text = "x".repeat(10_000);
        text.replace_range(5_000..5_004, "NAME");
        text.replace_range(9_000..9_003, "END");
        let f = file(&text);
        let mut v = Views::default();
        let (id, ranges) = v.add(&f, &[Span::new(5_000, 5_004), Span::new(9_000, 9_003)]);
        let src = v.source(id).unwrap();
        assert!(
            src.len() < 2 * (2 * CONTEXT + MAX_LABEL) + 20,
            "{}",
            src.len()
        );
        assert!(src.starts_with("… "), "{src}");
        assert!(src.trim_end().ends_with(" …"), "{src}");
        assert_eq!(&src[ranges[0].clone()], "NAME");
        assert_eq!(&src[ranges[1].clone()], "END");
        let at = v.location(id, ranges[1].start).unwrap();
        assert_eq!((at.line_number, at.column_number), (1, 9_001));
    }

    #[test]
    fn a_long_label_is_cut_and_multibyte_text_stays_whole() {
        let text = format!("{}{}", "é".repeat(500), "z".repeat(500));
        let f = file(&text);
        let mut v = Views::default();
        let (id, ranges) = v.add(&f, &[Span::new(2, text.len())]);
        let src = v.source(id).unwrap();
        assert!(ranges[0].len() <= MAX_LABEL + 2, "{ranges:?}");
        assert!(src.is_char_boundary(ranges[0].start) && src.is_char_boundary(ranges[0].end));
    }
}
