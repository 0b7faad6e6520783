//! Rust source code: tool definitions (rmcp `#[tool]` methods, `Tool`
//! literals and `Tool::new`, `json!` tools, hand-rolled `Tool` trait impls)
//! and the tool-call surface that the M1, M2 and M3 code rules check.
//!
//! Each file is parsed once with tree-sitter; [`analyze`] extracts plain
//! facts and runs the per-function rules while the tree is alive, then the
//! tree is dropped. [`link`] joins the facts of one crate: names through
//! constants and functions, schemas through types, handlers through impls
//! and name dispatch, and the surface through the call graph.

pub mod analyze;
pub mod cfg;
pub mod facts;
pub mod jsonlit;
pub mod link;
pub mod ts;
pub mod values;

use std::cell::RefCell;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

pub use analyze::FnView;
pub use facts::{Candidate, FileFacts, Need};
pub use link::{Crate, FnRef};

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
}

/// Parses Rust source with this thread's parser.
pub fn parse(text: &str) -> Result<tree_sitter::Tree, ParseError> {
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut p = tree_sitter::Parser::new();
            p.set_language(&tree_sitter_rust::LANGUAGE.into())
                .map_err(|e| ParseError::Language(e.to_string()))?;
            *slot = Some(p);
        }
        let parser = slot.as_mut().expect("set above");
        let start = Instant::now();
        let mut progress = |_: &tree_sitter::ParseState| {
            if start.elapsed() > PARSE_TIMEOUT {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let bytes = text.as_bytes();
        let tree = parser.parse_with_options(
            &mut |i, _| bytes.get(i..).unwrap_or_default(),
            None,
            Some(tree_sitter::ParseOptions::new().progress_callback(&mut progress)),
        );
        // A parser stopped half-way must not carry state into the next file.
        parser.reset();
        tree.ok_or(ParseError::Timeout)
    })
}
