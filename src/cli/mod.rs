//! The command line: clap definitions, and the glue that turns flags into
//! [`ScanOptions`], runs the engine and writes the report. The only module
//! that prints or decides exit codes.

mod args;
mod output;
mod progress;
mod settings;

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context as _, Result};
use clap::Parser;

pub use args::{
    BaselineArgs, Cli, ColorChoice, Command, ConfigArgs, FailOn, InputArgs, ListFormat, RulesArgs,
    ScanArgs, SurfaceArgs, ToolsArgs,
};

use crate::engine::{self, Scan};
use crate::report::{self, Format, Report};
use crate::rules::{self, FAMILIES, REGISTRY};
use crate::targets::TARGETS;

/// Exit codes, as documented in README.md.
pub mod exit {
    pub const CLEAN: u8 = 0;
    pub const FINDINGS: u8 = 1;
    pub const ERROR: u8 = 2;
}

/// Entry point for the binary.
pub fn main() -> ExitCode {
    run_with_args(std::env::args_os())
}

/// Parses `args` and runs the command; for tests and for `main`.
pub fn run_with_args<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() {
                exit::ERROR
            } else {
                exit::CLEAN
            });
        }
    };
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::from(exit::CLEAN);
            }
            eprintln!("toolaudit: error: {err:#}");
            ExitCode::from(exit::ERROR)
        }
    }
}

/// The options `toolaudit scan ARGS..` runs with, config file included
/// (`args` start with the program name); for tests and embedders.
pub fn scan_options<I, T>(args: I) -> Result<engine::ScanOptions>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    match Cli::try_parse_from(args)?.command {
        Command::Scan(a) => Ok(settings::resolve(&a.input, &a.select, &a.ignore, a.fail_on)?.opts),
        _ => anyhow::bail!("not a `scan` command line"),
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn run(cli: Cli) -> Result<u8> {
    match cli.command {
        Command::Scan(args) => scan(args),
        Command::Tools(args) => tools(args),
        Command::Rules(args) => list_rules(args),
        Command::Config(args) => show_config(args),
        Command::Baseline(args) => write_baseline(args),
        Command::Surface(args) => surface(args),
        Command::Explain { rule } => explain(&rule),
    }
}

fn print_notifications(scan: &Scan, verbose: bool) {
    let mut err = std::io::stderr().lock();
    if verbose {
        for s in &scan.skipped {
            let _ = writeln!(
                err,
                "toolaudit: not read: {}: {}",
                s.path,
                s.reason.describe()
            );
        }
    }
    for n in &scan.notifications {
        let _ = match (&n.path, n.line) {
            // `file:line:` first, so terminals and editors can open it.
            (Some(p), Some(l)) => writeln!(err, "{p}:{l}: toolaudit: {}: {}", n.level, n.message),
            (Some(p), None) => writeln!(err, "toolaudit: {}: {p}: {}", n.level, n.message),
            (None, _) => writeln!(err, "toolaudit: {}: {}", n.level, n.message),
        };
    }
}

fn scan(args: ScanArgs) -> Result<u8> {
    if args.statistics && args.format != Format::Human {
        anyhow::bail!(
            "--statistics works with --format human; the json format has `summary.by_rule`"
        );
    }
    let sarif_anywhere =
        args.format == Format::Sarif || args.also_write.iter().any(|(f, _)| *f == Format::Sarif);
    if args.show_suppressed && !sarif_anywhere {
        anyhow::bail!(
            "--show-suppressed works with --format sarif; other formats count suppressed findings in the summary"
        );
    }
    let resolved = settings::resolve(&args.input, &args.select, &args.ignore, args.fail_on)?;
    let opts = &resolved.opts;
    // Ask git first: a missing base must fail before the scan, not after.
    let changed = match &args.diff_base {
        // Ask the work tree that holds the scanned path, not the one the
        // command runs in (`toolaudit scan ../other-repo --diff-base main`).
        Some(rev) => {
            let cwd = std::env::current_dir().context("cannot read the working directory")?;
            let at = match args.input.paths.first() {
                Some(p) => {
                    let abs = crate::source::normalize(&cwd.join(p));
                    if abs.is_dir() {
                        abs
                    } else {
                        abs.parent().map_or(cwd.clone(), Path::to_path_buf)
                    }
                }
                None => cwd,
            };
            Some(crate::diff::changed_lines(rev, &at)?)
        }
        None => None,
    };
    let show_progress = !args.quiet
        && args.format == Format::Human
        && std::io::stderr().is_terminal()
        && std::env::var_os("CI").is_none();
    let mut result = if show_progress {
        progress::scan(opts)?
    } else {
        engine::scan(opts)?
    };
    if !args.quiet {
        print_notifications(&result, args.input.verbose);
    }
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let narrow = |result: &mut engine::Scan| -> Result<()> {
        if let (Some(rev), Some(changed)) = (&args.diff_base, &changed) {
            // A drift of the tool surface is a change whatever lines it is on
            // (a removed tool is shown at its unchanged snapshot entry).
            let on_changed_line = |d: &crate::model::Diagnostic| {
                let abs = crate::source::normalize(&cwd.join(&d.file.path));
                d.code.starts_with('P')
                    || changed.contains(&abs, d.file.line_col(d.span.start).line)
            };
            let before = result.diagnostics.len();
            result.diagnostics.retain(on_changed_line);
            result.suppressed.retain(|(d, _)| on_changed_line(d));
            result.diff_base = Some((rev.clone(), before - result.diagnostics.len()));
        }
        if let Some(path) = &args.baseline {
            let baseline = crate::baseline::Baseline::load(path)?;
            let root = crate::source::project_root(&cwd);
            result.baseline = Some(baseline.apply(&mut result.diagnostics, &cwd, &root));
        }
        Ok(())
    };
    narrow(&mut result)?;
    if args.fix || args.diff {
        let changes = fixes(&result, args.unsafe_fixes)?;
        if args.diff {
            let mut out = std::io::stdout().lock();
            for (f, new) in &changes {
                out.write_all(
                    crate::fix::unified_diff(&f.file.display, &f.file.text, new).as_bytes(),
                )?;
            }
            if !args.quiet {
                eprintln!(
                    "{}",
                    fix_summary(&changes, "would fix", &result, args.unsafe_fixes)
                );
            }
            return Ok(if changes.is_empty() {
                exit::CLEAN
            } else {
                exit::FINDINGS
            });
        }
        for (f, new) in &changes {
            output::write_file(&f.file.path, |w| w.write_all(new.as_bytes()))?;
        }
        if !args.quiet {
            eprintln!(
                "{}",
                fix_summary(&changes, "fixed", &result, args.unsafe_fixes)
            );
        }
        if !changes.is_empty() {
            result = engine::scan(opts)?;
            narrow(&mut result)?;
        }
    }
    let color = args.format == Format::Human
        && args.output.is_none()
        && match args.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
            }
        };
    if args.format == Format::Sarif && result.diagnostics.len() > report::sarif::MAX_RESULTS {
        eprintln!(
            "toolaudit: warning: {}",
            report::sarif::cap_message(result.diagnostics.len() - report::sarif::MAX_RESULTS)
        );
    }
    let mut report = Report {
        scan: &result,
        rules: &opts.rules,
        targets: &opts.targets,
        root: crate::source::project_root(&cwd),
        cwd,
        color,
        category: args.category.clone(),
        statistics: args.statistics,
        show_suppressed: args.show_suppressed,
    };
    let threshold = resolved.fail_on;
    let code = if result.had_errors() {
        exit::ERROR
    } else if result.diagnostics.iter().any(|d| d.severity >= threshold) {
        exit::FINDINGS
    } else {
        exit::CLEAN
    };
    for (format, path) in &args.also_write {
        let plain = Report {
            color: false,
            ..report
        };
        output::write_file(path, |w| report::render(*format, &plain, w))?;
        report = plain;
        report.color = color;
    }
    match &args.output {
        Some(path) => output::write_file(path, |w| report::render(args.format, &report, w))?,
        None => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            match report::render(args.format, &report, &mut out).and_then(|()| out.flush()) {
                // `scan | head`: the reader left early; the findings still count.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(code),
                r => r.context("cannot write to standard output")?,
            }
        }
    }
    Ok(code)
}

fn tools(args: ToolsArgs) -> Result<u8> {
    // Extraction only: no rule runs.
    let mut opts = settings::resolve(&args.input, &[], &[], None)?.opts;
    opts.rules.clear();
    let result = engine::scan(&opts)?;
    print_notifications(&result, args.input.verbose);
    let mut out = String::new();
    if args.budget {
        out = budget_view(&result.tools, args.format)?;
        std::io::stdout().lock().write_all(out.as_bytes())?;
        return Ok(if result.had_errors() {
            exit::ERROR
        } else {
            exit::CLEAN
        });
    }
    match args.format {
        ListFormat::Json => {
            let tools: Vec<serde_json::Value> = result
                .tools
                .iter()
                .map(|t| {
                    let at = t.file.line_col(defined_at(t));
                    let handler = t.handler.as_ref().map(|h| {
                        let lc = h.file.line_col(h.span.start);
                        serde_json::json!({"function": h.name, "file": h.file.display, "line": lc.line, "column": lc.column})
                    });
                    serde_json::json!({
                        "name": t.name.value,
                        "name_is_template": t.name_is_template(),
                        "format": t.format,
                        "file": t.file.display,
                        "line": at.line,
                        "column": at.column,
                        "pointer": t.pointer,
                        "description": t.description.as_ref().map(|d| &d.value),
                        "parameters": t.parameter_names(),
                        "required": t.required_names(),
                        "schema_derived": t.schema_derived,
                        "handler": handler,
                        "strict": t.strict,
                    })
                })
                .collect();
            let doc = serde_json::json!({"version": 1, "tools": tools});
            out = serde_json::to_string_pretty(&doc)?;
            out.push('\n');
        }
        ListFormat::Table => {
            let rows: Vec<[String; 5]> = result
                .tools
                .iter()
                .map(|t| {
                    let at = t.file.line_col(defined_at(t));
                    let handler = t.handler.as_ref().map_or_else(
                        || "-".to_string(),
                        |h| {
                            let lc = h.file.line_col(h.span.start);
                            format!("{} {}:{}", h.name, h.file.display, lc.line)
                        },
                    );
                    let params = t.parameter_names();
                    let shown = if params.len() > 6 {
                        format!("{} (+{} more)", params[..6].join(", "), params.len() - 6)
                    } else {
                        params.join(", ")
                    };
                    // An OpenAPI operation without `operationId` has no name.
                    let name = if t.name.value.is_empty()
                        && t.format == crate::model::ToolFormat::OpenApi
                    {
                        crate::extract::openapi::operation_label(t)
                            .map_or_else(|| "(no name)".to_string(), |op| format!("({op})"))
                    } else {
                        t.name.value.escape_debug().to_string()
                    };
                    [
                        name,
                        t.format.as_str().to_string(),
                        format!("{}:{}:{}", t.file.display, at.line, at.column),
                        handler,
                        shown,
                    ]
                })
                .collect();
            table(
                &mut out,
                ["NAME", "FORMAT", "DEFINED AT", "HANDLER", "PARAMETERS"],
                &rows,
            );
            let files: std::collections::BTreeSet<&str> = result
                .tools
                .iter()
                .map(|t| t.file.display.as_str())
                .collect();
            out.push_str(&format!(
                "\n{} in {} ({} scanned).\n",
                report::plural(result.tools.len(), "tool"),
                report::plural(files.len(), "file"),
                report::plural(result.files_scanned, "file"),
            ));
        }
    }
    std::io::stdout().lock().write_all(out.as_bytes())?;
    Ok(if result.had_errors() {
        exit::ERROR
    } else {
        exit::CLEAN
    })
}

/// The fixes `--fix` / `--diff` would apply, with each file's new text.
/// A file that changed on disk since it was read is left alone, and so
/// is one whose new text would not parse (a fix that broke it).
fn fixes(
    result: &engine::Scan,
    unsafe_fixes: bool,
) -> Result<Vec<(crate::fix::FileFixes, String)>> {
    let mut out = Vec::new();
    for f in crate::fix::plan(&result.diagnostics, &result.tools, unsafe_fixes) {
        let new = crate::fix::apply(&f.file.text, &f.edits);
        let syntax = crate::fix::Syntax::of(&f.file).expect("plan keeps manifests only");
        if !crate::fix::still_parses(syntax, &new) {
            eprintln!(
                "toolaudit: warning: {}: not fixed, the fixed text would not parse (please report this)",
                f.file.display
            );
            continue;
        }
        let on_disk = std::fs::read_to_string(&f.file.path)
            .with_context(|| format!("cannot read {}", f.file.display))?;
        if on_disk != *f.file.text {
            eprintln!(
                "toolaudit: warning: {}: not fixed, it changed while it was scanned",
                f.file.display
            );
            continue;
        }
        out.push((f, new));
    }
    Ok(out)
}

/// `fixed 3 problems (S104 ×1, S105 ×2) in 2 files; 4 more with --unsafe-fixes`.
fn fix_summary(
    changes: &[(crate::fix::FileFixes, String)],
    verb: &str,
    result: &engine::Scan,
    unsafe_fixes: bool,
) -> String {
    let mut by_code: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for (f, _) in changes {
        for d in &f.fixed {
            *by_code.entry(d.code).or_default() += 1;
        }
    }
    let n: usize = by_code.values().sum();
    let codes: Vec<String> = by_code.iter().map(|(c, k)| format!("{c} ×{k}")).collect();
    let mut s = format!(
        "toolaudit: {verb} {}{} in {}",
        report::plural(n, "problem"),
        if codes.is_empty() {
            String::new()
        } else {
            format!(" ({})", codes.join(", "))
        },
        report::plural(changes.len(), "file"),
    );
    if !unsafe_fixes {
        let count = |plan: Vec<crate::fix::FileFixes>| -> usize {
            plan.iter().map(|f| f.fixed.len()).sum()
        };
        let more =
            count(crate::fix::plan(&result.diagnostics, &result.tools, true)).saturating_sub(
                count(crate::fix::plan(&result.diagnostics, &result.tools, false)),
            );
        if more > 0 {
            s.push_str(&format!("; {more} more with --unsafe-fixes"));
        }
    }
    s
}

/// `tools --budget`: the estimated tokens of each tool, by tool list
/// (largest first), and of each list.
fn budget_view(tools: &[crate::model::ToolDef], format: ListFormat) -> Result<String> {
    use crate::budget;
    use crate::rules::thousands;
    let mut groups: std::collections::BTreeMap<String, Vec<(usize, &crate::model::ToolDef)>> =
        std::collections::BTreeMap::new();
    for t in tools {
        let label = match t.group.strip_prefix("dir:") {
            Some(_) => format!(
                "dir:{}",
                t.file.display.rsplit_once('/').map_or(".", |(d, _)| d)
            ),
            None => t.list_label(&t.file.display),
        };
        groups
            .entry(label)
            .or_default()
            .push((budget::tool_tokens(t), t));
    }
    for list in groups.values_mut() {
        list.sort_by(|a, b| {
            b.0.cmp(&a.0)
                .then_with(|| a.1.name.value.cmp(&b.1.name.value))
        });
    }
    let total: usize = groups.values().flatten().map(|c| c.0).sum();
    let mut out = String::new();
    match format {
        ListFormat::Json => {
            let groups: Vec<serde_json::Value> = groups
                .iter()
                .map(|(g, list)| {
                    let tools: Vec<serde_json::Value> = list
                        .iter()
                        .map(|(n, t)| {
                            let at = t.file.line_col(defined_at(t));
                            serde_json::json!({"name": t.name.value, "file": t.file.display, "line": at.line, "column": at.column, "tokens": n})
                        })
                        .collect();
                    serde_json::json!({"group": g, "tokens": list.iter().map(|c| c.0).sum::<usize>(), "tools": tools})
                })
                .collect();
            let doc = serde_json::json!({"version": 1, "estimate": budget::ACCURACY, "tokens": total, "groups": groups});
            out = serde_json::to_string_pretty(&doc)?;
            out.push('\n');
        }
        ListFormat::Table => {
            for (g, list) in &groups {
                let sum: usize = list.iter().map(|c| c.0).sum();
                out.push_str(&format!(
                    "{g}: {}, ~{} tokens\n",
                    report::plural(list.len(), "tool"),
                    thousands(sum)
                ));
                let rows: Vec<[String; 3]> = list
                    .iter()
                    .map(|(n, t)| {
                        let at = t.file.line_col(defined_at(t));
                        [
                            format!("{:>7}", thousands(*n)),
                            t.name.value.escape_debug().to_string(),
                            format!("{}:{}:{}", t.file.display, at.line, at.column),
                        ]
                    })
                    .collect();
                table(&mut out, ["TOKENS", "NAME", "DEFINED AT"], &rows);
                out.push('\n');
            }
            out.push_str(&format!(
                "{} in {}, ~{} tokens in all ({}).\n",
                report::plural(tools.len(), "tool"),
                report::plural(groups.len(), "list"),
                thousands(total),
                budget::ACCURACY
            ));
        }
    }
    Ok(out)
}

/// Where a tool is defined: its name in a manifest, its declaration in code.
fn defined_at(t: &crate::model::ToolDef) -> usize {
    if std::sync::Arc::ptr_eq(&t.file, &t.name_file) && t.name.span.start >= t.span.start {
        t.name.span.start
    } else {
        t.span.start
    }
}

fn table<const N: usize>(out: &mut String, header: [&str; N], rows: &[[String; N]]) {
    let mut widths = header.map(|h| h.chars().count());
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut line = |cells: Vec<&str>| {
        let mut s = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            if i + 1 == N {
                s.push_str(cell);
            } else {
                s.push_str(&format!("{cell:<w$}  "));
            }
        }
        out.push_str(s.trim_end());
        out.push('\n');
    };
    line(header.to_vec());
    for row in rows {
        line(row.iter().map(String::as_str).collect());
    }
}

fn list_rules(args: RulesArgs) -> Result<u8> {
    let mut out = String::new();
    if args.targets {
        match args.format {
            ListFormat::Table => {
                let rows: Vec<[String; 5]> = TARGETS
                    .iter()
                    .map(|t| {
                        [
                            t.id.to_string(),
                            if t.default { "yes" } else { "no" }.to_string(),
                            format!("{} ({})", t.names.max_len, t.names.level),
                            t.as_of.to_string(),
                            format!("{}: {}", t.title, t.source),
                        ]
                    })
                    .collect();
                table(
                    &mut out,
                    ["TARGET", "DEFAULT", "MAX NAME", "AS OF", "SOURCE"],
                    &rows,
                );
            }
            ListFormat::Json => {
                let v: Vec<serde_json::Value> = TARGETS
                    .iter()
                    .map(|t| {
                        serde_json::json!({
                            "id": t.id, "title": t.title, "default": t.default,
                            "name_punctuation": t.names.punctuation,
                            "name_letter_or_underscore_first": t.names.letter_or_underscore_first,
                            "name_max_len": t.names.max_len,
                            "name_warn_len": t.names.warn_len.map(|w| w.0),
                            "level": t.names.level,
                            "source": t.source, "as_of": t.as_of,
                        })
                    })
                    .collect();
                out = serde_json::to_string_pretty(&v)? + "\n";
            }
        }
    } else {
        match args.format {
            ListFormat::Table => {
                let rows: Vec<[String; 5]> = REGISTRY
                    .iter()
                    .map(|e| {
                        let m = e.meta();
                        [
                            e.code.to_string(),
                            m.name.clone(),
                            m.family.clone(),
                            m.severity.to_string(),
                            m.summary.clone(),
                        ]
                    })
                    .collect();
                table(
                    &mut out,
                    ["CODE", "NAME", "FAMILY", "SEVERITY", "SUMMARY"],
                    &rows,
                );
                out.push_str("\nFamilies:\n");
                for f in FAMILIES {
                    out.push_str(&format!(
                        "  {:<3} {:<16} {}\n",
                        f.id, f.title, f.description
                    ));
                }
            }
            ListFormat::Json => {
                let v: Vec<serde_json::Value> = REGISTRY
                    .iter()
                    .map(|e| {
                        let m = e.meta();
                        serde_json::json!({
                            "code": e.code, "name": m.name, "family": m.family,
                            "severity": m.severity, "summary": m.summary, "since": m.since,
                            "help_uri": report::help_uri(e.code),
                        })
                    })
                    .collect();
                out = serde_json::to_string_pretty(&v)? + "\n";
            }
        }
    }
    std::io::stdout().lock().write_all(out.as_bytes())?;
    Ok(exit::CLEAN)
}

fn write_baseline(args: BaselineArgs) -> Result<u8> {
    let resolved = settings::resolve(&args.input, &args.select, &args.ignore, None)?;
    let result = engine::scan(&resolved.opts)?;
    print_notifications(&result, args.input.verbose);
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let root = crate::source::project_root(&cwd);
    let text = crate::baseline::render(&result.diagnostics, &cwd, &root);
    output::write_file(&args.output, |w| w.write_all(text.as_bytes()))?;
    eprintln!(
        "toolaudit: wrote {} to {}",
        report::plural(result.diagnostics.len(), "finding"),
        args.output.display()
    );
    Ok(if result.had_errors() {
        exit::ERROR
    } else {
        exit::CLEAN
    })
}

/// `toolaudit surface`: prints the snapshot of the tools found, writes it
/// (`--write`), or compares it with the committed one (`--check`).
fn surface(args: SurfaceArgs) -> Result<u8> {
    // Extraction only: no rule runs, so no P rule reads the old snapshot.
    let mut opts = settings::resolve(&args.input, &[], &[], None)?.opts;
    opts.rules.clear();
    let result = engine::scan(&opts)?;
    print_notifications(&result, args.input.verbose);
    if result.had_errors() {
        anyhow::bail!("some files could not be read, so the tool surface is incomplete");
    }
    let path = opts
        .surface
        .path
        .clone()
        .unwrap_or_else(|| std::path::PathBuf::from(crate::surface::FILE_NAME));
    let read: Vec<&Path> = result.read.iter().map(|p| p.as_path()).collect();
    let current = crate::surface::build(&result.tools, &opts.surface, &read);
    for message in current.unmatched_warnings() {
        eprintln!("toolaudit: warning: {message}");
    }
    let text = crate::surface::render(&current.snapshot);
    let tools: usize = current.snapshot.groups.values().map(Vec::len).sum();
    let counts = format!(
        "{} in {}{}",
        report::plural(tools, "tool"),
        report::plural(current.snapshot.groups.len(), "group"),
        match current.snapshot.profiles.len() {
            0 => String::new(),
            n => format!(" and {}", report::plural(n, "profile")),
        }
    );
    let shown = crate::discover::display_path(&path);
    if args.write {
        output::write_file(&path, |w| w.write_all(text.as_bytes()))?;
        eprintln!("toolaudit: wrote {counts} to {shown}");
        return Ok(exit::CLEAN);
    }
    if !args.check {
        std::io::stdout().lock().write_all(text.as_bytes())?;
        return Ok(exit::CLEAN);
    }
    let Some(old) = crate::surface::load(&path)? else {
        anyhow::bail!(
            "no tool-surface snapshot at {shown}; write one with `toolaudit surface --write`"
        );
    };
    if old.file.text.as_ref() == text {
        println!("The tool surface matches {shown} ({counts}).");
        return Ok(exit::CLEAN);
    }
    let changes = crate::surface::diff(&old, &current);
    let mut out = String::new();
    if changes.is_empty() {
        out.push_str(&format!(
            "{shown} records the same tools, but not as `toolaudit surface --write` writes them (a file moved within a group, or the file was edited by hand).\n"
        ));
    } else {
        out.push_str(&format!(
            "The tool surface differs from {shown} ({}):\n",
            report::plural(changes.len(), "change")
        ));
        for c in &changes {
            let sign = match c.kind.verb() {
                "added" => '+',
                "removed" => '-',
                _ => '~',
            };
            let tool = if c.tool.is_empty() {
                String::new()
            } else {
                format!(" `{}`", c.tool)
            };
            let breaking = if c.breaking { " [breaking]" } else { "" };
            out.push_str(&format!(
                "  {sign} {}:{tool} {}{breaking}\n",
                c.group, c.what
            ));
            if let Some(o) = &c.old {
                out.push_str(&format!("      before: {o}\n"));
            }
            if let Some(n) = &c.new {
                out.push_str(&format!("      now:    {n}\n"));
            }
        }
    }
    out.push_str(
        "If the changes are intended, run `toolaudit surface --write` and commit the file.\n",
    );
    std::io::stdout().lock().write_all(out.as_bytes())?;
    Ok(exit::FINDINGS)
}

fn show_config(args: ConfigArgs) -> Result<u8> {
    let resolved = settings::resolve(&args.input, &[], &[], None)?;
    let mut out = match &resolved.config {
        Some(l) => format!("Config file: {}\n\n", crate::discover::display_path(&l.path)),
        None => "Config file: none found (looked for toolaudit.toml, .toolaudit.toml and [tool.toolaudit] in pyproject.toml)\n\n".to_string(),
    };
    let rows: Vec<[String; 3]> = resolved
        .shown
        .iter()
        .map(|(k, v, src)| [k.to_string(), v.clone(), src.clone()])
        .collect();
    table(&mut out, ["SETTING", "VALUE", "FROM"], &rows);
    std::io::stdout().lock().write_all(out.as_bytes())?;
    Ok(exit::CLEAN)
}

fn explain(given: &str) -> Result<u8> {
    let e = rules::lookup(given)?;
    let m = e.meta();
    let fam = e.family();
    let text = format!(
        "# {} {}\n\nFamily {} ({}); default severity {}; since {}.\n{}\n\n{}\n",
        e.code,
        m.name,
        fam.id,
        fam.title,
        m.severity,
        m.since,
        m.summary,
        e.docs.trim_end()
    );
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(exit::CLEAN)
}
