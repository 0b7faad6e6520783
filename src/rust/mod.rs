//! Rust source code: tool definitions (rmcp `#[tool]` methods, `Tool`
//! literals and `Tool::new`, `json!` tools, hand-rolled `Tool` trait impls)
//! and the tool-call surface that the M1, M2 and M3 code rules check.
//!
//! Each file is parsed once with tree-sitter; [`analyze`] extracts plain
//! facts and runs the per-function rules while the tree is alive, then the
//! tree is dropped. [`sites`] records where values may be replaced, cut or
//! dropped, as language-neutral `model::code::Site`s. [`link`] joins the
//! facts of one crate into a `link::Unit`: names through constants and
//! functions, schemas through types, handlers through impls and name
//! dispatch, and the surface through the call graph.

pub mod analyze;
pub mod deps;
pub mod jsonlit;
pub mod link;
pub mod modules;
pub mod sites;
pub mod ts;
pub mod values;

use std::cell::RefCell;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

pub use crate::model::code::{Candidate, FileFacts, Need};

/// Parsing that takes longer than this is abandoned (with a message), so
/// no input can hang a scan.
pub const PARSE_TIMEOUT: Duration = Duration::from_secs(10);

thread_local! {
    static PARSER: RefCell<Option<tree_sitter::Parser>> = const { RefCell::new(None) };
}

/// Why a file could not be parsed.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    #[error("parsing took longer than {} s", PARSE_TIMEOUT.as_secs())]
    Timeout,
    #[error("the Rust grammar could not be loaded: {0}")]
    Language(String),
    #[error("a macro body outside its file")]
    Range,
}

/// Parses Rust source with this thread's parser.
pub fn parse(text: &str) -> Result<tree_sitter::Tree, ParseError> {
    let bytes = text.as_bytes();
    with_parser(&[], &mut |i| bytes.get(i..).unwrap_or_default())
}

/// Parses `src[start..end]` as if `prefix` came before it and `suffix`
/// after, keeping `src`'s byte offsets: the gap between the prefix and
/// `start` is skipped (tree-sitter included ranges), not lexed. So a
/// macro's body (`vec![..]`) is parsed where it stands, and what is found
/// in it needs no moving.
pub fn parse_embedded(
    src: &str,
    start: usize,
    end: usize,
    prefix: &str,
    suffix: &str,
) -> Result<tree_sitter::Tree, ParseError> {
    if start < prefix.len() || end > src.len() || start > end {
        return Err(ParseError::Range);
    }
    let range = |a: usize, b: usize| tree_sitter::Range {
        start_byte: a,
        end_byte: b,
        start_point: tree_sitter::Point::new(0, a),
        end_point: tree_sitter::Point::new(0, b),
    };
    let ranges = [range(0, prefix.len()), range(start, end + suffix.len())];
    let (pre, body, suf) = (prefix.as_bytes(), &src.as_bytes()[..end], suffix.as_bytes());
    with_parser(&ranges, &mut |i| {
        if i < pre.len() {
            &pre[i..]
        } else if (start..end).contains(&i) {
            &body[i..]
        } else if i >= end {
            suf.get(i - end..).unwrap_or_default()
        } else {
            &[]
        }
    })
}

/// Runs this thread's parser over the text `read` serves (only `ranges`
/// of it, or all when empty), stopping after [`PARSE_TIMEOUT`], and leaves
/// the parser clean for the next call.
fn with_parser<'b>(
    ranges: &[tree_sitter::Range],
    read: &mut dyn FnMut(usize) -> &'b [u8],
) -> Result<tree_sitter::Tree, ParseError> {
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut p = tree_sitter::Parser::new();
            p.set_language(&tree_sitter_rust::LANGUAGE.into())
                .map_err(|e| ParseError::Language(e.to_string()))?;
            *slot = Some(p);
        }
        let parser = slot.as_mut().expect("set above");
        parser
            .set_included_ranges(ranges)
            .map_err(|_| ParseError::Range)?;
        let started = Instant::now();
        let mut progress = |_: &tree_sitter::ParseState| {
            if started.elapsed() > PARSE_TIMEOUT {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let tree = parser.parse_with_options(
            &mut |i, _| read(i),
            None,
            Some(tree_sitter::ParseOptions::new().progress_callback(&mut progress)),
        );
        // A parser stopped half-way must not carry state into the next file.
        parser.reset();
        let _ = parser.set_included_ranges(&[]);
        tree.ok_or(ParseError::Timeout)
    })
}

/// The offset of the first syntax error in `tree` (an `ERROR` node or a
/// token tree-sitter had to invent), if any.
pub fn first_error(tree: &tree_sitter::Tree) -> Option<usize> {
    let root = tree.root_node();
    if !root.has_error() {
        return None;
    }
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        if node.is_error() || node.is_missing() {
            return Some(node.start_byte());
        }
        // Descend only into subtrees that hold an error.
        if node.has_error() && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return Some(root.start_byte());
            }
        }
    }
}
