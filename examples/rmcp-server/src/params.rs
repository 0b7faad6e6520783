//! Tool arguments. schemars derives each tool's input schema from these.

use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadArgs {
    /// Path of the note, relative to the notes folder
    pub path: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// Words to look for
    pub query: String,
    /// How many results to return (default 10)
    pub limit: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    /// Folder to list; the root when absent
    pub folder: Option<String>,
    /// Also list notes in sub-folders
    #[serde(default)]
    pub recursive: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AppendArgs {
    /// Path of the note
    pub path: String,
    /// Markdown to append
    pub text: String,
}
