//! clap definitions. Values that depend on the rule and target tables
//! (`--select`, `--target`) are checked after parsing, against those tables,
//! so their error messages can suggest the nearest valid value.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::engine::parse_size;
use crate::report::Format;

#[derive(Debug, Parser)]
#[command(
    name = "toolaudit",
    version,
    about = "Static audit of LLM tool definitions: names providers reject, broken schema \
             contracts, and tool calls that fail silently",
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Find tool definitions under PATH and report their problems
    Scan(ScanArgs),
    /// List the tool definitions toolaudit finds (what it believes the tool surface is)
    Tools(ToolsArgs),
    /// List the rules, or with --targets the target profiles
    Rules(RulesArgs),
    /// Write the current findings to a baseline file, so `scan --baseline` reports only new ones
    Baseline(BaselineArgs),
    /// Print, record (--write) or check (--check) the tool-surface snapshot
    /// that P101 compares against
    Surface(SurfaceArgs),
    /// Show the settings a scan of PATH would use, and where each comes from
    Config(ConfigArgs),
    /// Show a rule's documentation
    Explain {
        /// A rule code (N101) or name (invalid-tool-name)
        rule: String,
    },
}

#[derive(Debug, Args)]
pub struct InputArgs {
    /// Files or directories to scan [default: .]
    pub paths: Vec<PathBuf>,

    /// Skip paths matching GLOB (gitignore syntax); repeatable
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,

    /// Also scan hidden files and directories
    #[arg(long)]
    pub hidden: bool,

    /// Do not honour .gitignore and .ignore files
    #[arg(long)]
    pub no_ignore: bool,

    /// Also read test, benchmark and fixture folders (tests/, fixtures/,
    /// benches/, …) and Rust test code, which are skipped by default
    #[arg(long)]
    pub include_tests: bool,

    /// Skip (and report) files larger than SIZE, e.g. 4MiB, 512KiB [default: 4MiB]
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_file_size: Option<u64>,

    /// Read settings from FILE instead of discovering toolaudit.toml
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,

    /// Ignore every config file
    #[arg(long)]
    pub no_config: bool,

    /// Also list on stderr every path that was not read, with the reason
    #[arg(short, long)]
    pub verbose: bool,

    /// Worker threads, at most 256; 0 means one per core
    #[arg(short = 'j', long, value_name = "N", default_value_t = 0,
          value_parser = parse_threads)]
    pub threads: usize,

    /// Where the M2/M3 code rules look: `surface` (tool handlers, what they
    /// call, values from tool arguments) or `all` code [default: surface]
    #[arg(long, value_enum)]
    pub scope: Option<crate::engine::Scope>,

    /// The tool-surface snapshot that P101 compares against
    /// [default: toolaudit.surface.json beside the config file, else in
    /// the first PATH]
    #[arg(long, value_name = "FILE")]
    pub surface: Option<PathBuf>,

    /// Provider profiles to check names against, comma-separated, e.g.
    /// anthropic,openai (see `toolaudit rules --targets`); `default`, `all`
    #[arg(long, value_name = "TARGET", value_delimiter = ',')]
    pub target: Vec<String>,
}

/// The most worker threads `-j` accepts: past a few hundred, starting and
/// coordinating threads costs more than it gives (`-j 1024` took 20 s on
/// one file).
pub const MAX_THREADS: usize = 256;

fn parse_threads(s: &str) -> Result<usize, String> {
    let n: usize = s
        .parse()
        .map_err(|_| format!("`{s}` is not a number of threads"))?;
    if n > MAX_THREADS {
        return Err(format!(
            "{n} threads is more than the {MAX_THREADS} toolaudit starts; 0 means one per core"
        ));
    }
    Ok(n)
}

fn parse_also_write(s: &str) -> Result<(Format, PathBuf), String> {
    let (format, file) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not FORMAT=FILE, e.g. sarif=toolaudit.sarif"))?;
    let format = Format::from_str(format.trim(), true).map_err(|_| {
        let names: Vec<String> = Format::value_variants()
            .iter()
            .filter_map(|v| v.to_possible_value().map(|p| p.get_name().to_string()))
            .collect();
        format!("unknown format `{format}`; use {}", names.join(", "))
    })?;
    if file.is_empty() {
        return Err(format!("`{s}` names no file"));
    }
    Ok((format, PathBuf::from(file)))
}

#[derive(Debug, Args)]
pub struct ScanArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,

    /// Write the report to FILE (atomically) instead of standard output
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Also write the same scan's report in FORMAT to FILE, e.g.
    /// `--also-write sarif=toolaudit.sarif`; repeatable
    #[arg(long, value_name = "FORMAT=FILE", value_parser = parse_also_write)]
    pub also_write: Vec<(Format, PathBuf)>,

    /// Rules to run: codes, code prefixes or families (N101, N10, N, M2, ALL); comma-separated
    #[arg(long, value_name = "CODE", value_delimiter = ',')]
    pub select: Vec<String>,

    /// Rules not to run, in the same form as --select
    #[arg(long, value_name = "CODE", value_delimiter = ',')]
    pub ignore: Vec<String>,

    /// Exit with 1 when a finding at or above this severity is reported [default: warning]
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,

    /// When to colour human output
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,

    /// Do not print messages about the scan itself (skipped files) to stderr
    #[arg(short, long)]
    pub quiet: bool,

    /// Leave out findings recorded in FILE (written by `toolaudit baseline`)
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,

    /// Report only findings on lines added or changed since the merge base of REV and HEAD
    #[arg(long, value_name = "REV")]
    pub diff_base: Option<String>,

    /// SARIF: the analysis category (`automationDetails.id`), to keep several runs apart
    #[arg(long, value_name = "NAME", default_value = "toolaudit")]
    pub category: String,

    /// Human format: print the number of findings per rule instead of each finding
    #[arg(long)]
    pub statistics: bool,

    /// SARIF: also write suppressed findings, marked as suppressed with their reason
    #[arg(long)]
    pub show_suppressed: bool,

    /// Apply the safe fixes to JSON and YAML manifests, then report what is left
    #[arg(long)]
    pub fix: bool,

    /// Print the fixes as a unified diff instead of applying them (exit 1 when there are some)
    #[arg(long, conflicts_with = "fix")]
    pub diff: bool,

    /// With --fix or --diff: include fixes that change a tool's contract (a name, the keys it accepts)
    #[arg(long)]
    pub unsafe_fixes: bool,
}

#[derive(Debug, Args)]
pub struct BaselineArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// Rules to record, as for `scan --select`
    #[arg(long, value_name = "CODE", value_delimiter = ',')]
    pub select: Vec<String>,

    /// Rules not to record, as for `scan --ignore`
    #[arg(long, value_name = "CODE", value_delimiter = ',')]
    pub ignore: Vec<String>,

    /// The baseline file to write
    #[arg(
        short,
        long,
        value_name = "FILE",
        default_value = "toolaudit-baseline.json"
    )]
    pub output: PathBuf,
}

#[derive(Debug, Args)]
pub struct SurfaceArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// Write the snapshot file (see --surface for where)
    #[arg(long, conflicts_with = "check")]
    pub write: bool,

    /// Compare with the snapshot file; exit 1 and list the changes if it differs
    #[arg(long)]
    pub check: bool,
}

#[derive(Debug, Args)]
pub struct ToolsArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// Show the context each tool and each tool list costs, in estimated tokens
    #[arg(long)]
    pub budget: bool,

    /// Output format
    #[arg(long, value_enum, default_value_t = ListFormat::Table)]
    pub format: ListFormat,
}

#[derive(Debug, Args)]
pub struct ConfigArgs {
    #[command(flatten)]
    pub input: InputArgs,
}

#[derive(Debug, Args)]
pub struct RulesArgs {
    /// List the target profiles instead of the rules
    #[arg(long)]
    pub targets: bool,

    /// Output format
    #[arg(long, value_enum, default_value_t = ListFormat::Table)]
    pub format: ListFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    Error,
    Warning,
    Note,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    Table,
    Json,
}
