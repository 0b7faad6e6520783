//! Throughput of a whole scan (walk, read, parse, extract, link, rules,
//! sort) over a generated workspace of tool manifests, unrelated JSON/YAML,
//! and Rust crates with rmcp tools, handlers and ordinary code; then over a
//! generated Python repository of about 100 000 lines (FastMCP servers and
//! ordinary modules), reported per 10 000 lines.
//!
//!     cargo bench --bench scan
//!
//! Prints the median of several runs for one thread and for all cores.
//! A measurement, not a test: nothing here asserts a time.

use std::path::Path;
use std::time::{Duration, Instant};

use toolaudit::discover::WalkOptions;
use toolaudit::engine::{self, DEFAULT_MAX_FILE_SIZE, ScanOptions};
use toolaudit::{rules, targets};

const MANIFESTS: usize = 1500;
const UNRELATED: usize = 1500;
const TOOLS_PER_MANIFEST: usize = 40;
const RUST_CRATES: usize = 40;
const RUST_FILES_PER_CRATE: usize = 25;
const RUNS: usize = 5;

/// One Rust source file: an argument struct, an rmcp router with two tools
/// whose handlers clamp, default and truncate, helpers they call, and
/// ordinary code with the same shapes.
fn rust_file(c: usize, f: usize) -> String {
    let mut s = format!(
        r##"use rmcp::{{tool, tool_router}};
use rmcp::handler::server::wrapper::Parameters;
use serde::Deserialize;
use serde_json::{{Value, json}};

const MAX_RESULTS: usize = 50;
const MAX_BODY: usize = 16_384;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Args{f} {{
    /// What to look for
    pub query: String,
    /// How many results
    pub limit: Option<usize>,
    /// Output format
    pub format: Option<String>,
}}

pub struct Server{f};

#[tool_router]
impl Server{f} {{
    #[tool(description = "Search crate {c}, file {f}")]
    async fn search_{f}(&self, Parameters(args): Parameters<Args{f}>) -> String {{
        let limit = args.limit.unwrap_or(10).min(MAX_RESULTS);
        let mut out = render_{f}(&args.query, args.format.as_deref().unwrap_or("text"));
        out.truncate(MAX_BODY);
        format!("{{out}} {{limit}}")
    }}

    #[tool(name = "fetch.{f}", description = "Fetch something")]
    async fn fetch_{f}(&self, Parameters(args): Parameters<Args{f}>) -> String {{
        let v: Value = json!({{"q": args.query}});
        v.get("q").and_then(|x| x.as_str()).unwrap_or("none").to_string()
    }}
}}

fn render_{f}(body: &str, format: &str) -> String {{
    if format == "markdown" {{
        format!("# {{body}}")
    }} else {{
        body.to_string()
    }}
}}
"##
    );
    // Ordinary code: the same shapes off the tool-call surface.
    for k in 0..12 {
        s.push_str(&format!(
            r#"
pub fn layout_{k}(width: u16, kind: &str) -> u16 {{
    let w = width.min(200).max(10);
    let extra = match kind {{
        "wide" => 20,
        "narrow" => 5,
        _ => 0,
    }};
    let parsed: u16 = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()).unwrap_or(80);
    let items: Vec<u16> = (0..w).filter(|i| i % 3 == 0).take(100).collect();
    w + extra + parsed + items.len() as u16
}}
"#
        ));
    }
    s
}

fn tool(i: usize, j: usize) -> String {
    // Every seventh name is one providers reject, every 50th collides.
    let name = match j {
        j if j % 50 == 49 => format!("srv{i}.tool{}", j - 1),
        j if j % 7 == 0 => format!("srv{i}.tool{j}"),
        j => format!("srv{i}_tool{j}"),
    };
    format!(
        r#"{{"name": "{name}", "description": "Tool {j} of server {i}: does one thing well.",
  "inputSchema": {{"type": "object", "properties": {{
    "path": {{"type": "string", "description": "A path"}},
    "limit": {{"type": "integer", "minimum": 1, "maximum": 100, "default": 10}},
    "mode": {{"type": "string", "enum": ["fast", "full"]}}
  }}, "required": ["path"], "additionalProperties": false}}}}"#
    )
}

fn generate(dir: &Path) -> u64 {
    let mut bytes = 0u64;
    for i in 0..MANIFESTS {
        let tools: Vec<String> = (0..TOOLS_PER_MANIFEST).map(|j| tool(i, j)).collect();
        let text = format!(
            "{{\"result\": {{\"tools\": [\n{}\n]}}}}\n",
            tools.join(",\n")
        );
        let sub = dir.join(format!("servers/s{}", i % 37));
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join(format!("tools-{i}.json")), &text).unwrap();
        bytes += text.len() as u64;
    }
    for i in 0..UNRELATED {
        let text = if i % 2 == 0 {
            format!(
                "{{\"name\": \"pkg-{i}\", \"version\": \"1.{i}.0\", \"dependencies\": {{{}}}}}\n",
                (0..60)
                    .map(|d| format!("\"dep{d}\": \"^{d}.0.0\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        } else {
            let mut t = String::from("jobs:\n");
            for j in 0..40 {
                t.push_str(&format!("  job{j}:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make test-{j}\n"));
            }
            t
        };
        let sub = dir.join(format!("other/o{}", i % 41));
        std::fs::create_dir_all(&sub).unwrap();
        let ext = if i % 2 == 0 { "json" } else { "yaml" };
        std::fs::write(sub.join(format!("f{i}.{ext}")), &text).unwrap();
        bytes += text.len() as u64;
    }
    bytes
}

fn generate_rust(dir: &Path) -> (u64, usize) {
    let mut bytes = 0u64;
    let mut files = 0;
    for c in 0..RUST_CRATES {
        let root = dir.join(format!("crates/c{c}"));
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(
            root.join("Cargo.toml"),
            format!("[package]\nname = \"c{c}\"\n"),
        )
        .unwrap();
        for f in 0..RUST_FILES_PER_CRATE {
            let text = rust_file(c, f);
            std::fs::write(root.join(format!("src/m{f}.rs")), &text).unwrap();
            bytes += text.len() as u64;
            files += 1;
        }
    }
    (bytes, files)
}

const PY_FILES: usize = 240;
const PY_TOOL_FILES_EVERY: usize = 4;

/// One Python module: every fourth a FastMCP server whose tools clamp,
/// slice and parse their arguments and call into the next module, the
/// rest ordinary code (which the prefilter leaves unparsed, unless a
/// server imports it). About 420 lines either way.
fn python_file(f: usize) -> String {
    let mut s = String::new();
    if f.is_multiple_of(PY_TOOL_FILES_EVERY) {
        let next = f + 1;
        s.push_str(&format!("from fastmcp import FastMCP\n\nfrom pkg.m{}.mod_{next} import rows\n\nmcp = FastMCP(\"bench\")\nMAX_RESULTS = 50\nMODES = {{\"fast\": 1, \"full\": 2}}\n\n", next % 12));
        for t in 0..20 {
            s.push_str(&format!(
                r#"
@mcp.tool(name="search.{f}.{t}")
def search_{t}(query: str, limit: int = 10, mode: str = "fast", timeout: str = "30") -> str:
    """Search part {t} of the index and return matches, one per line."""
    limit = min(limit, MAX_RESULTS)
    speed = MODES.get(mode, 1)
    try:
        seconds = int(timeout)
    except ValueError:
        seconds = 30
    hits = []
    for row in rows(query, speed, seconds):
        if len(hits) >= 500:
            break
        hits.append(row)
    text = "\n".join(hits)
    return text[:20000]

"#
            ));
        }
    } else {
        s.push_str("\ndef rows(q, s, t):\n    return [q] * min(t, 100)\n");
        for g in 0..30 {
            s.push_str(&format!(
                r#"
class Report{g}:
    """A report of module {f}."""

    def __init__(self, items):
        self.items = list(items)

    def total(self) -> int:
        count = 0
        for item in self.items:
            if item > {g}:
                count += item
        return min(count, 1000)

    def render(self) -> str:
        return ", ".join(str(i) for i in self.items)[:200]

"#
            ));
        }
    }
    s
}

fn generate_python(dir: &Path) -> (u64, usize) {
    let mut bytes = 0u64;
    let mut lines = 0;
    for f in 0..PY_FILES {
        let text = python_file(f);
        let sub = dir.join(format!("pkg/m{}", f % 12));
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join(format!("mod_{f}.py")), &text).unwrap();
        bytes += text.len() as u64;
        lines += text.lines().count();
    }
    (bytes, lines)
}

fn options(path: &Path, threads: usize) -> ScanOptions {
    ScanOptions {
        scope: Default::default(),
        truncation_markers: Vec::new(),
        tool_budget: toolaudit::budget::DEFAULT_GROUP_BUDGET,
        walk: WalkOptions {
            paths: vec![path.to_path_buf()],
            threads,
            ..WalkOptions::default()
        },
        max_file_size: DEFAULT_MAX_FILE_SIZE,
        targets: targets::defaults(),
        named_targets: Vec::new(),
        rules: rules::select(&[], &[]).unwrap(),
        explicit: Vec::new(),
        severity: Default::default(),
        per_file_ignores: Vec::new(),
        suppressions: Vec::new(),
        surface: Default::default(),
    }
}

fn thread_label(threads: usize) -> String {
    if threads == 0 {
        "all cores".to_string()
    } else {
        format!("{threads} thread")
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let manifest_bytes = generate(dir.path());
    let (rust_bytes, rust_files) = generate_rust(dir.path());
    let bytes = manifest_bytes + rust_bytes;
    let files = MANIFESTS + UNRELATED + rust_files;
    println!(
        "workspace: {files} files, {:.1} MB ({:.1} MB of Rust in {rust_files} files, {RUST_CRATES} crates), {} manifest tools",
        bytes as f64 / 1e6,
        rust_bytes as f64 / 1e6,
        MANIFESTS * TOOLS_PER_MANIFEST
    );
    for threads in [1, 0] {
        let opts = options(dir.path(), threads);
        let mut times = Vec::new();
        let mut findings = 0;
        for _ in 0..RUNS {
            let start = Instant::now();
            let scan = engine::scan(&opts).unwrap();
            times.push(start.elapsed());
            findings = scan.diagnostics.len();
        }
        let t = median(times);
        let label = thread_label(threads);
        println!(
            "{label:>10}: median {:>7.1} ms over {RUNS} runs, {:>6.1} MB/s, {:>7.0} files/s, {findings} findings",
            t.as_secs_f64() * 1e3,
            bytes as f64 / 1e6 / t.as_secs_f64(),
            files as f64 / t.as_secs_f64()
        );
    }

    // A Python repository of about 100 000 lines.
    let py = tempfile::tempdir().unwrap();
    let (py_bytes, py_lines) = generate_python(py.path());
    println!(
        "python: {PY_FILES} files, {py_lines} lines, {:.1} MB, one in {PY_TOOL_FILES_EVERY} a FastMCP server",
        py_bytes as f64 / 1e6
    );
    for threads in [1, 0] {
        let opts = options(py.path(), threads);
        let mut times = Vec::new();
        let mut findings = 0;
        for _ in 0..RUNS {
            let start = Instant::now();
            let scan = engine::scan(&opts).unwrap();
            times.push(start.elapsed());
            findings = scan.diagnostics.len();
        }
        let t = median(times);
        println!(
            "{:>10}: median {:>7.1} ms over {RUNS} runs, {:>6.1} ms per 10k lines, {findings} findings",
            thread_label(threads),
            t.as_secs_f64() * 1e3,
            t.as_secs_f64() * 1e3 * 10_000.0 / py_lines as f64
        );
    }
}
