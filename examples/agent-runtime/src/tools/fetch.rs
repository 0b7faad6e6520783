//! `web_fetch`: downloads a page and returns it as text or raw HTML.

use async_trait::async_trait;
use serde_json::{Value, json};

use crate::Tool;

pub struct FetchTool {
    pub client: HttpClient,
}

pub struct HttpClient;

impl HttpClient {
    pub async fn get(&self, _url: &str) -> anyhow::Result<String> {
        Ok(String::new())
    }
}

#[async_trait]
impl Tool for FetchTool {
    fn name(&self) -> String {
        "web_fetch".into()
    }

    fn description(&self) -> String {
        "Fetch a URL. `format` is `text` (tags stripped) or `markdown`".into()
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "url": {"type": "string"},
                "format": {"type": "string", "enum": ["text", "markdown"]},
                "include_links": {"type": "boolean"}
            },
            "required": ["url"],
            "additionalProperties": false
        })
    }

    async fn call(&self, args: Value) -> anyhow::Result<String> {
        let url = args["url"]
            .as_str()
            .ok_or_else(|| anyhow::anyhow!("`url` is required"))?;
        let html = self.client.get(url).await?;
        let format = args["format"].as_str().unwrap_or("text");
        let links = match args["include_links"].as_str() {
            Some("true") => true,
            _ => false,
        };
        Ok(render(&html, format, links))
    }
}

fn render(html: &str, format: &str, links: bool) -> String {
    if format == "markdown" {
        to_markdown(html, links)
    } else {
        strip_tags(html)
    }
}

fn to_markdown(html: &str, _links: bool) -> String {
    html.replace("<p>", "\n\n")
}

fn strip_tags(html: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for c in html.chars() {
        match c {
            '<' => inside = true,
            '>' => inside = false,
            c if !inside => out.push(c),
            _ => {}
        }
    }
    out
}
