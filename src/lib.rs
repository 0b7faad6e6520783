//! toolaudit: a static audit linter for LLM tool ecosystems.
//!
//! Pipeline (see `engine`): `discover` finds files, `syntax` parses them into
//! span-preserving trees, `extract` turns trees into [`model::ToolDef`]s,
//! a language front-end (`rust`) turns source code into the language-neutral
//! facts of `model::code`, `link` joins them per unit (crate, package),
//! `rules` check tools, tool lists, functions and units reading only the
//! model and the link, `report` renders the sorted findings. `cli` is the
//! only module that prints.

pub mod baseline;
pub mod budget;
pub mod cli;
pub mod config;
pub mod diff;
pub mod discover;
pub mod engine;
pub mod error;
pub mod extract;
pub mod fix;
pub mod link;
pub mod model;
pub mod python;
pub mod report;
pub mod rules;
pub mod rust;
pub mod schema;
pub mod source;
pub mod suppress;
pub mod surface;
pub mod syntax;
pub mod targets;

pub use error::Error;
