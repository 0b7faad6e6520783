//! An MCP server over a folder of Markdown notes, built on rmcp.

mod notes;
mod params;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, Content, ServerCapabilities, ServerInfo};
use rmcp::{ErrorData as McpError, ServerHandler, ServiceExt, tool, tool_handler, tool_router};

use crate::notes::NoteStore;
use crate::params::{AppendArgs, ListArgs, ReadArgs, SearchArgs};

/// Longest note body returned to the model, in bytes.
const MAX_BODY_BYTES: usize = 16 * 1024;
/// Most search results returned at once.
const MAX_RESULTS: u32 = 50;

#[derive(Clone)]
pub struct NotesServer {
    store: NoteStore,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl NotesServer {
    pub fn new(store: NoteStore) -> Self {
        Self {
            store,
            tool_router: Self::tool_router(),
        }
    }

    /// Read one note by its path, relative to the notes folder.
    #[tool]
    async fn read_note(
        &self,
        Parameters(ReadArgs { path }): Parameters<ReadArgs>,
    ) -> Result<CallToolResult, McpError> {
        let mut body = self.store.read(&path).map_err(internal)?;
        // Keep responses small for the model's context.
        body.truncate(MAX_BODY_BYTES);
        Ok(CallToolResult::success(vec![Content::text(body)]))
    }

    #[tool(description = "Full-text search over all notes; returns matching paths with a snippet")]
    async fn search_notes(
        &self,
        Parameters(args): Parameters<SearchArgs>,
    ) -> Result<CallToolResult, McpError> {
        let limit = args.limit.unwrap_or(10).min(MAX_RESULTS);
        let hits = self.store.search(&args.query, limit as usize);
        let text = hits
            .iter()
            .map(|h| format!("{}: {}", h.path, h.snippet))
            .collect::<Vec<_>>()
            .join("\n");
        Ok(CallToolResult::success(vec![Content::text(text)]))
    }

    #[tool(name = "notes.list", description = "List notes in a folder")]
    async fn list_notes(
        &self,
        Parameters(ListArgs { folder, recursive: _recursive }): Parameters<ListArgs>,
    ) -> Result<CallToolResult, McpError> {
        let names = self.store.list(folder.as_deref().unwrap_or("")).map_err(internal)?;
        let shown = names.len().min(200);
        let mut text = names[..shown].join("\n");
        if names.len() > shown {
            text.push_str(&format!("\n[… {} more notes not shown]", names.len() - shown));
        }
        Ok(CallToolResult::success(vec![Content::text(text)]))
    }

    #[tool(description = "Append text to a note, creating it when it does not exist")]
    async fn append_note(
        &self,
        Parameters(args): Parameters<AppendArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.store
            .append(&args.path, &args.text)
            .map_err(internal)?;
        Ok(CallToolResult::success(vec![Content::text("appended")]))
    }
}

#[tool_handler]
impl ServerHandler for NotesServer {
    fn get_info(&self) -> ServerInfo {
        ServerInfo {
            capabilities: ServerCapabilities::builder().enable_tools().build(),
            ..Default::default()
        }
    }
}

fn internal(e: std::io::Error) -> McpError {
    McpError::internal_error(e.to_string(), None)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let store = NoteStore::open(std::env::var("NOTES_DIR").unwrap_or_else(|_| ".".into()))?;
    let service = NotesServer::new(store)
        .serve(rmcp::transport::stdio())
        .await?;
    service.waiting().await?;
    Ok(())
}
