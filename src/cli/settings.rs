//! Flags + config file → the options a scan runs with. Command-line values
//! win over the config file, which wins over defaults (`--exclude` adds to
//! the config's `exclude`); each resolved value keeps its source for
//! `toolaudit config`.

use std::collections::BTreeMap;

use anyhow::{Context as _, Result};
use clap::ValueEnum as _;

use super::args::{FailOn, InputArgs};
use crate::config::{self, Loaded, SizeValue};
use crate::discover::{Exclude, WalkOptions};
use crate::engine::{DEFAULT_MAX_FILE_SIZE, ScanOptions, Scope, human_size, parse_size};
use crate::model::Severity;
use crate::rules;
use crate::suppress::{ConfigSuppression, PathGlob, PerFileIgnore};
use crate::surface::SurfaceOptions;
use crate::targets;

pub struct Resolved {
    pub opts: ScanOptions,
    pub fail_on: Severity,
    pub config: Option<Loaded>,
    /// (key, value, source) for `toolaudit config`.
    pub shown: Vec<(&'static str, String, String)>,
}

fn fail_on(f: FailOn) -> Severity {
    match f {
        FailOn::Error => Severity::Error,
        FailOn::Warning => Severity::Warning,
        FailOn::Note => Severity::Note,
    }
}

/// Picks the flag's value, else the config's, else the default, and says which.
fn pick<T: Clone>(
    flag: Option<T>,
    flag_name: &str,
    from_config: Option<T>,
    cfg: Option<&Loaded>,
    key: &str,
    default: T,
) -> (T, String) {
    match (flag, from_config, cfg) {
        (Some(v), _, _) => (v, flag_name.to_string()),
        (None, Some(v), Some(c)) => (v, c.origin(key)),
        _ => (default, "default".to_string()),
    }
}

fn non_empty(v: &[String]) -> Option<Vec<String>> {
    (!v.is_empty()).then(|| v.to_vec())
}

pub fn resolve(
    input: &InputArgs,
    select_flag: &[String],
    ignore_flag: &[String],
    fail_on_flag: Option<FailOn>,
) -> Result<Resolved> {
    let loaded = if input.no_config {
        None
    } else if let Some(path) = &input.config {
        Some(config::load(path)?)
    } else {
        let start = input
            .paths
            .first()
            .map_or(std::path::Path::new("."), |p| p.as_path());
        config::discover(start)?
    };
    let cfg = loaded.as_ref();
    let c = cfg.map(|l| &l.config);
    let mut shown = Vec::new();

    if let (Some(l), Some(t)) = (cfg, c.and_then(|c| c.targets.as_ref()))
        && t.is_empty()
    {
        return Err(l
            .value_error(
                "targets",
                "the list is empty: name the providers to check against (`toolaudit rules --targets`), or remove the key for the default set",
            )
            .into());
    }
    let (target_ids, src) = pick(
        non_empty(&input.target),
        "--target",
        c.and_then(|c| c.targets.clone()),
        cfg,
        "targets",
        Vec::new(),
    );
    let targets = targets::resolve(&target_ids).map_err(|e| match (src.as_str(), cfg) {
        ("--target" | "default", _) | (_, None) => anyhow::Error::new(e),
        (_, Some(l)) => l.value_error("targets", e).into(),
    })?;
    shown.push((
        "targets",
        targets.iter().map(|t| t.id).collect::<Vec<_>>().join(", "),
        src,
    ));

    let (select, select_src) = pick(
        non_empty(select_flag),
        "--select",
        c.and_then(|c| c.select.clone()),
        cfg,
        "select",
        Vec::new(),
    );
    let (ignore, ignore_src) = pick(
        non_empty(ignore_flag),
        "--ignore",
        c.and_then(|c| c.ignore.clone()),
        cfg,
        "ignore",
        Vec::new(),
    );
    let selected = rules::select(&select, &ignore).map_err(|e| match cfg {
        Some(l)
            if select_src != "--select" && ignore_src != "--ignore" && select_src != "default" =>
        {
            anyhow::Error::new(l.value_error(
                if ignore_src == "default" {
                    "select"
                } else {
                    "ignore"
                },
                e,
            ))
        }
        _ => anyhow::Error::new(e),
    })?;
    shown.push((
        "select",
        if select.is_empty() {
            "ALL".into()
        } else {
            select.join(", ")
        },
        select_src,
    ));
    shown.push((
        "ignore",
        if ignore.is_empty() {
            "(none)".into()
        } else {
            ignore.join(", ")
        },
        ignore_src,
    ));

    let mut excludes: Vec<Exclude> = Vec::new();
    if let Some(l) = cfg {
        for glob in c.and_then(|c| c.exclude.as_ref()).into_iter().flatten() {
            excludes.push(Exclude {
                glob: glob.clone(),
                base: l.dir().to_path_buf(),
                origin: l.origin("exclude"),
            });
        }
    }
    let exclude_src = match (excludes.is_empty(), input.exclude.is_empty()) {
        (true, true) => "default".to_string(),
        (true, false) => "--exclude".to_string(),
        (false, true) => cfg.map_or_else(String::new, |l| l.origin("exclude")),
        (false, false) => format!(
            "{} and --exclude",
            cfg.map_or_else(String::new, |l| l.origin("exclude"))
        ),
    };
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    excludes.extend(input.exclude.iter().map(|glob| Exclude {
        glob: glob.clone(),
        base: cwd.clone(),
        origin: "--exclude".into(),
    }));
    shown.push((
        "exclude",
        if excludes.is_empty() {
            "(none)".into()
        } else {
            excludes
                .iter()
                .map(|e| e.glob.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        },
        exclude_src,
    ));

    let config_size = match c.and_then(|c| c.max_file_size.as_ref()) {
        None => None,
        Some(SizeValue::Bytes(n)) => Some(*n),
        Some(SizeValue::Text(t)) => Some(parse_size(t).map_err(|e| {
            cfg.expect("a value comes from a file")
                .value_error("max-file-size", e)
        })?),
    };
    let (max_file_size, src) = pick(
        input.max_file_size,
        "--max-file-size",
        config_size,
        cfg,
        "max-file-size",
        DEFAULT_MAX_FILE_SIZE,
    );
    shown.push(("max-file-size", human_size(max_file_size), src));

    let config_fail_on = match c.and_then(|c| c.fail_on.as_deref()) {
        None => None,
        Some(s) => Some(Severity::parse(s).ok_or_else(|| {
            cfg.expect("a value comes from a file").value_error(
                "fail-on",
                format!("unknown severity `{s}`; use error, warning or note"),
            )
        })?),
    };
    let (fail_on, src) = pick(
        fail_on_flag.map(fail_on),
        "--fail-on",
        config_fail_on,
        cfg,
        "fail-on",
        Severity::Warning,
    );
    shown.push(("fail-on", fail_on.to_string(), src));

    let (include_tests, src) = pick(
        input.include_tests.then_some(true),
        "--include-tests",
        c.and_then(|c| c.include_tests),
        cfg,
        "include-tests",
        false,
    );
    shown.push(("include-tests", include_tests.to_string(), src));

    let truncation_markers: Vec<String> = c
        .and_then(|c| c.options.as_ref())
        .and_then(|o| o.truncation_markers.clone())
        .unwrap_or_default();
    if let Some(l) = cfg.filter(|_| !truncation_markers.is_empty()) {
        if truncation_markers.iter().any(|m| m.trim().is_empty()) {
            return Err(l
                .value_error(
                    "options",
                    "`truncation-markers` has an empty marker, which would match everything",
                )
                .into());
        }
        shown.push((
            "options.truncation-markers",
            truncation_markers.join(", "),
            l.origin("options"),
        ));
    }

    let tool_budget = c
        .and_then(|c| c.options.as_ref())
        .and_then(|o| o.tool_budget);
    if let (Some(l), Some(b)) = (cfg, tool_budget) {
        if b == 0 {
            return Err(l
                .value_error(
                    "options",
                    "`tool-budget` is 0 tokens, which every tool list exceeds",
                )
                .into());
        }
        shown.push(("options.tool-budget", b.to_string(), l.origin("options")));
    }

    let config_scope = match c.and_then(|c| c.scope.as_deref()) {
        None => None,
        Some(given) => Some(
            <Scope as clap::ValueEnum>::from_str(given, false).map_err(|_| {
                let names = Scope::value_variants().iter().map(|s| s.as_str());
                cfg.expect("a value comes from a file").value_error(
                    "scope",
                    format!(
                        "unknown scope `{given}`{}; use {}",
                        crate::error::suggest(given, names.clone())
                            .map(|s| format!(" (did you mean `{s}`?)"))
                            .unwrap_or_default(),
                        names.collect::<Vec<_>>().join(" or ")
                    ),
                )
            })?,
        ),
    };
    let (scope, src) = pick(
        input.scope,
        "--scope",
        config_scope,
        cfg,
        "scope",
        Scope::Surface,
    );
    shown.push(("scope", scope.as_str().to_string(), src));

    let mut severity = BTreeMap::new();
    for (code, level) in c.and_then(|c| c.severity.as_ref()).into_iter().flatten() {
        let l = cfg.expect("a value comes from a file");
        let key = format!("severity.{code}");
        let entry = rules::lookup(code).map_err(|e| l.value_error(&key, e))?;
        let s = Severity::parse(level).ok_or_else(|| {
            l.value_error(
                &key,
                format!("unknown severity `{level}`; use error, warning or note"),
            )
        })?;
        severity.insert(entry.code, s);
    }
    if !severity.is_empty() {
        let v: Vec<String> = severity.iter().map(|(k, v)| format!("{k} = {v}")).collect();
        shown.push((
            "severity",
            v.join(", "),
            cfg.map_or_else(String::new, |l| l.origin("severity")),
        ));
    }

    let mut per_file_ignores = Vec::new();
    for (glob, selectors) in c
        .and_then(|c| c.per_file_ignores.as_ref())
        .into_iter()
        .flatten()
    {
        let l = cfg.expect("a value comes from a file");
        let (path, codes) =
            glob_and_codes(l, &format!("per-file-ignores.{glob}"), glob, selectors)?;
        per_file_ignores.push(PerFileIgnore { path, codes });
    }
    let suppressions = config_suppressions(cfg)?;
    if !suppressions.is_empty() {
        shown.push((
            "suppress",
            match suppressions.len() {
                1 => "1 entry".to_string(),
                n => format!("{n} entries"),
            },
            cfg.map_or_else(String::new, |l| l.origin("suppress")),
        ));
    }
    if !per_file_ignores.is_empty() {
        let v: Vec<String> = per_file_ignores
            .iter()
            .map(|p| format!("{} = {}", p.path.glob, p.codes.join(" ")))
            .collect();
        shown.push((
            "per-file-ignores",
            v.join("; "),
            cfg.map_or_else(String::new, |l| l.origin("per-file-ignores")),
        ));
    }
    let surface = surface_options(input, cfg)?;
    if let Some(path) = &surface.path {
        shown.push((
            "surface",
            crate::discover::display_path(path),
            match (&input.surface, cfg.and_then(|l| l.config.surface.as_ref())) {
                (Some(_), _) => "--surface".to_string(),
                (None, Some(_)) => cfg.map_or_else(String::new, |l| l.origin("surface")),
                (None, None) => "default".to_string(),
            },
        ));
    }
    if !surface.profiles.is_empty() {
        shown.push((
            "profile",
            surface
                .profiles
                .iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            cfg.map_or_else(String::new, |l| l.origin("profile")),
        ));
    }
    shown.push((
        "rules",
        selected
            .iter()
            .map(|e| e.code)
            .collect::<Vec<_>>()
            .join(", "),
        "select and ignore".into(),
    ));

    Ok(Resolved {
        opts: ScanOptions {
            scope,
            truncation_markers,
            tool_budget: tool_budget.unwrap_or(crate::budget::DEFAULT_GROUP_BUDGET),
            walk: WalkOptions {
                paths: input.paths.clone(),
                excludes,
                hidden: input.hidden,
                no_ignore: input.no_ignore,
                threads: input.threads,
                include_tests,
            },
            max_file_size,
            named_targets: targets::named(&target_ids),
            targets,
            explicit: rules::explicit_codes(&select),
            rules: selected,
            severity,
            per_file_ignores,
            suppressions,
            surface,
        },
        fail_on,
        config: loaded,
        shown,
    })
}

/// Where the tool-surface snapshot is (`--surface`, else the config's
/// `surface`, else `toolaudit.surface.json` beside the config file, else in
/// the first scanned folder) and the config's profiles, checked.
fn surface_options(input: &InputArgs, cfg: Option<&Loaded>) -> Result<SurfaceOptions> {
    let beside = SurfaceOptions::beside(&input.paths);
    let root = cfg.map_or(beside.root, |l| l.dir().to_path_buf());
    let (path, explicit) = match (&input.surface, cfg) {
        (Some(p), _) => (p.clone(), true),
        (None, Some(l)) => match &l.config.surface {
            Some(p) => (l.dir().join(p), true),
            None => (root.join(crate::surface::FILE_NAME), false),
        },
        (None, None) => (root.join(crate::surface::FILE_NAME), false),
    };
    let profiles = match cfg {
        Some(l) => {
            let entries = l.config.profile.as_deref().unwrap_or_default();
            crate::surface::compile_profiles(entries, &|i| l.origin(&format!("profile[{i}]")))
                .map_err(|(i, message)| l.value_error(&format!("profile[{i}]"), message))?
        }
        None => Vec::new(),
    };
    Ok(SurfaceOptions {
        path: Some(path),
        explicit,
        root,
        profiles,
    })
}

/// A glob of the config file (relative to its folder) and the codes its
/// rule selectors name, each error naming `key`.
fn glob_and_codes(
    l: &Loaded,
    key: &str,
    glob: &str,
    selectors: &[String],
) -> Result<(PathGlob, Vec<&'static str>)> {
    // No selector would select every rule: say so rather than leave all out.
    if selectors.is_empty() {
        return Err(l
            .value_error(
                key,
                "the list of rules is empty: name the codes to leave out",
            )
            .into());
    }
    let base = std::path::absolute(l.dir()).context("cannot resolve the config file's folder")?;
    let path =
        PathGlob::new(glob, &base).map_err(|e| l.value_error(key, format!("invalid glob: {e}")))?;
    let codes = rules::select(selectors, &[])
        .map_err(|e| l.value_error(key, e))?
        .iter()
        .map(|e| e.code)
        .collect();
    Ok((path, codes))
}

/// The `[[suppress]]` entries of the config file, checked: a reason, valid
/// rules, a valid glob, and a tool or pointer to narrow it down.
fn config_suppressions(cfg: Option<&Loaded>) -> Result<Vec<ConfigSuppression>> {
    let Some(l) = cfg else { return Ok(Vec::new()) };
    let mut out = Vec::new();
    for (i, e) in l.config.suppress.iter().flatten().enumerate() {
        let key = format!("suppress[{i}]");
        if e.reason.trim().is_empty() {
            return Err(l
                .value_error(&key, "`reason` is empty: say why the finding is acceptable")
                .into());
        }
        if e.tool.is_none() && e.pointer.is_none() {
            return Err(l
                .value_error(
                    &key,
                    "give `tool` or `pointer`; to leave a rule out for whole files use `per-file-ignores`",
                )
                .into());
        }
        if let Some(p) = e.pointer.as_deref().filter(|p| !p.starts_with('/')) {
            return Err(l
                .value_error(
                    &key,
                    format!("`pointer` `{p}` is not a JSON Pointer: it must start with `/`"),
                )
                .into());
        }
        if e.rules.is_empty() {
            return Err(l
                .value_error(&key, "`rules` is empty: name the codes to suppress")
                .into());
        }
        let (path, codes) = glob_and_codes(l, &key, &e.path, &e.rules)?;
        out.push(ConfigSuppression {
            path,
            tool: e.tool.clone(),
            pointer: e.pointer.clone(),
            codes,
            reason: e.reason.trim().to_string(),
            origin: l.origin(&key),
        });
    }
    Ok(out)
}
