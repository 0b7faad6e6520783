//! Throughput of a whole scan (walk, read, parse, extract, rules, sort) over
//! a generated workspace of tool manifests and unrelated JSON/YAML.
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
const RUNS: usize = 5;

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

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = generate(dir.path());
    let files = MANIFESTS + UNRELATED;
    println!(
        "workspace: {files} files, {:.1} MB, {} tools",
        bytes as f64 / 1e6,
        MANIFESTS * TOOLS_PER_MANIFEST
    );
    for threads in [1, 0] {
        let opts = ScanOptions {
            scope: Default::default(),
            walk: WalkOptions {
                paths: vec![dir.path().to_path_buf()],
                threads,
                ..WalkOptions::default()
            },
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            targets: targets::defaults(),
            rules: rules::select(&[], &[]).unwrap(),
            explicit: Vec::new(),
            severity: Default::default(),
            per_file_ignores: Vec::new(),
            suppressions: Vec::new(),
        };
        let mut times = Vec::new();
        let mut findings = 0;
        for _ in 0..RUNS {
            let start = Instant::now();
            let scan = engine::scan(&opts).unwrap();
            times.push(start.elapsed());
            findings = scan.diagnostics.len();
        }
        let t = median(times);
        let label = if threads == 0 {
            "all cores".to_string()
        } else {
            format!("{threads} thread")
        };
        println!(
            "{label:>10}: median {:>7.1} ms over {RUNS} runs, {:>6.1} MB/s, {:>7.0} files/s, {findings} findings",
            t.as_secs_f64() * 1e3,
            bytes as f64 / 1e6 / t.as_secs_f64(),
            files as f64 / t.as_secs_f64()
        );
    }
}
