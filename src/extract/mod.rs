//! Turns parsed files into [`ToolDef`](crate::model::ToolDef)s.
//!
//! Each extractor reads one kind of source; all of them feed the same
//! inventory, so rules never depend on where a tool was declared.

pub mod manifest;
pub mod openapi;
