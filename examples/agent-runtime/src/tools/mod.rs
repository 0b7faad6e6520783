pub mod fetch;
pub mod mcp;
pub mod shell;
