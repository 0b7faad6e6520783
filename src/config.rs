//! `toolaudit.toml` (or `[tool.toolaudit]` in `pyproject.toml`): discovery,
//! strict parsing, and merging with command-line flags into the settings a
//! scan runs with, each value remembering where it came from.
//!
//! toolaudit holds itself to its own M1 rule: an unknown key or a bad value
//! is an error that names the file, line and key and suggests the nearest
//! valid one, never a silently ignored setting.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::de::{DeTable, DeValue};

use crate::error::suggest;

/// Top-level keys of the config table, in documentation order.
pub const KEYS: &[&str] = &[
    "targets",
    "select",
    "ignore",
    "exclude",
    "include-tests",
    "max-file-size",
    "fail-on",
    "scope",
    "severity",
    "per-file-ignores",
    "suppress",
    "options",
    "surface",
    "profile",
];

/// The config as written, after validation of its keys.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct FileConfig {
    pub targets: Option<Vec<String>>,
    pub select: Option<Vec<String>>,
    pub ignore: Option<Vec<String>>,
    pub exclude: Option<Vec<String>>,
    /// Also read test, benchmark and fixture folders.
    pub include_tests: Option<bool>,
    pub max_file_size: Option<SizeValue>,
    pub fail_on: Option<String>,
    /// `surface` or `all`: where the M2/M3 code rules look.
    pub scope: Option<String>,
    /// Rule code -> `error` | `warning` | `note`.
    pub severity: Option<BTreeMap<String, String>>,
    /// Glob (relative to the config file's folder) -> codes or families.
    pub per_file_ignores: Option<BTreeMap<String, Vec<String>>>,
    /// `[[suppress]]`: findings left out by file, tool, pointer and rule.
    pub suppress: Option<Vec<SuppressEntry>>,
    /// `[options]`: settings of individual rules.
    pub options: Option<RuleOptions>,
    /// The tool-surface snapshot, relative to the config file's folder
    /// [default: `toolaudit.surface.json`].
    pub surface: Option<String>,
    /// `[[profile]]`: named sets of tools offered to one role (P101, P102).
    pub profile: Option<Vec<ProfileEntry>>,
}

/// One `[[profile]]` table: the tools one role of an agent is offered,
/// built by composition. Patterns are globs on the tool name (`spawn_*`)
/// or, with `source:`, on the path of the file that defines the tool
/// (`source:src/admin/**`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileEntry {
    pub name: String,
    /// Profiles whose tools this one starts from.
    #[serde(default)]
    pub extends: Vec<String>,
    /// Snapshot groups (globs) whose tools this one starts from.
    #[serde(default)]
    pub groups: Vec<String>,
    /// Tools of the whole inventory added to the profile.
    #[serde(default)]
    pub include: Vec<String>,
    /// Tools taken out again.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Tools that must never be in the profile (P102).
    #[serde(default)]
    pub deny: Vec<String>,
}

/// `[options]`: settings of individual rules. Unknown keys are errors.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RuleOptions {
    /// M302: more words that mark a truncation in a tool's output
    /// (`"[snip]"`, `"see full log"`), beside the built-in ones.
    pub truncation_markers: Option<Vec<String>>,
    /// S109: the most tokens one tool list may cost (estimated).
    pub tool_budget: Option<usize>,
}

/// One `[[suppress]]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuppressEntry {
    /// Glob of the files, relative to the config file's folder.
    pub path: String,
    /// The tool the finding is about.
    pub tool: Option<String>,
    /// The finding's JSON Pointer (as in `--format json`), or a prefix of it.
    pub pointer: Option<String>,
    /// Codes, prefixes or families.
    pub rules: Vec<String>,
    pub reason: String,
}

/// `max-file-size = "4MiB"` or `max-file-size = 4194304`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum SizeValue {
    Bytes(u64),
    Text(String),
}

#[derive(Debug, Deserialize)]
struct PyProject {
    tool: Option<PyTool>,
}

#[derive(Debug, Deserialize)]
struct PyTool {
    toolaudit: Option<FileConfig>,
}

/// A config file that was found and read.
#[derive(Debug)]
pub struct Loaded {
    pub path: PathBuf,
    pub config: FileConfig,
    /// `path:line` of each top-level key, for `toolaudit config`.
    pub lines: BTreeMap<String, usize>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {}: {cause}", .path.display())]
    Read {
        path: PathBuf,
        /// In the message, not a `source`: shown once, not twice by `{:#}`.
        cause: std::io::Error,
    },
    #[error("{}:{line}:{column}: {message}", .path.display())]
    Invalid {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    /// More than one problem, each on its own line.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    Several(Vec<ConfigError>),
}

/// Looks for `toolaudit.toml`, `.toolaudit.toml`, or a `pyproject.toml` with
/// a `[tool.toolaudit]` table, in `start` and then each parent folder.
pub fn discover(start: &Path) -> Result<Option<Loaded>, ConfigError> {
    let start = if start.is_file() {
        start.parent().unwrap_or(Path::new("."))
    } else {
        start
    };
    let abs = std::path::absolute(start).unwrap_or_else(|_| start.to_path_buf());
    for dir in abs.ancestors() {
        for name in ["toolaudit.toml", ".toolaudit.toml"] {
            let p = dir.join(name);
            if p.is_file() {
                return load(&p).map(Some);
            }
        }
        let p = dir.join("pyproject.toml");
        if p.is_file() {
            let text = read(&p)?;
            if has_tool_table(&text) {
                return parse(&p, &text).map(Some);
            }
        }
    }
    Ok(None)
}

fn read(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|cause| ConfigError::Read {
        path: path.to_path_buf(),
        cause,
    })
}

/// Loads a config file named explicitly (`--config`).
pub fn load(path: &Path) -> Result<Loaded, ConfigError> {
    let text = read(path)?;
    parse(path, &text)
}

fn is_pyproject(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "pyproject.toml")
}

fn has_tool_table(text: &str) -> bool {
    let Ok(doc) = DeTable::parse(text) else {
        // A broken pyproject.toml that mentions us is still ours to report.
        return text.contains("[tool.toolaudit");
    };
    table_get(doc.get_ref(), "tool")
        .and_then(|t| match t {
            DeValue::Table(t) => table_get(t, "toolaudit"),
            _ => None,
        })
        .is_some()
}

fn table_get<'a, 'i>(t: &'a DeTable<'i>, key: &str) -> Option<&'a DeValue<'i>> {
    t.iter()
        .find(|(k, _)| k.get_ref().as_ref() == key)
        .map(|(_, v)| v.get_ref())
}

/// Parses and validates a config file's text.
pub fn parse(path: &Path, text: &str) -> Result<Loaded, ConfigError> {
    let line_at = |offset: usize| text[..offset.min(text.len())].matches('\n').count() + 1;
    let invalid = |offset: usize, message: String| {
        let before = &text[..offset.min(text.len())];
        let line = line_at(offset);
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        ConfigError::Invalid {
            path: path.to_path_buf(),
            line,
            column,
            message,
        }
    };
    let doc = DeTable::parse(text).map_err(|e| {
        let offset = e.span().map_or(0, |s| s.start);
        invalid(offset, format!("invalid TOML: {}", e.message()))
    })?;
    let (table, prefix) = if is_pyproject(path) {
        let Some(DeValue::Table(tool)) = table_get(doc.get_ref(), "tool") else {
            return Ok(Loaded {
                path: path.to_path_buf(),
                config: FileConfig::default(),
                lines: BTreeMap::new(),
            });
        };
        match table_get(tool, "toolaudit") {
            Some(DeValue::Table(t)) => (t, "tool.toolaudit."),
            Some(_) => return Err(invalid(0, "`tool.toolaudit` must be a table".into())),
            None => unreachable!("has_tool_table checked it"),
        }
    } else {
        (doc.get_ref(), "")
    };
    let mut lines = BTreeMap::new();
    // Where each key's value is, to name the key in a type error.
    let mut values: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    // Every unknown key is reported, not only the first.
    let mut unknown = Vec::new();
    for (key, value) in table.iter() {
        let k = key.get_ref().as_ref();
        let at = key.span().start;
        values.push((key.span().start..value.span().end, format!("{prefix}{k}")));
        if !KEYS.contains(&k) {
            let hint = suggest(k, KEYS.iter().copied())
                .map(|s| format!("; did you mean `{prefix}{s}`?"))
                .unwrap_or_else(|| format!("; valid keys: {}", KEYS.join(", ")));
            unknown.push(invalid(at, format!("unknown key `{prefix}{k}`{hint}")));
            continue;
        }
        lines.insert(k.to_string(), line_at(at));
        // Nested tables: their keys are rule codes or globs, checked by the
        // caller against the rule table; remember where each one is.
        if matches!(k, "severity" | "per-file-ignores") {
            let DeValue::Table(inner) = value.get_ref() else {
                return Err(invalid(
                    value.span().start,
                    format!("`{prefix}{k}` must be a table"),
                ));
            };
            for (ik, _) in inner.iter() {
                lines.insert(format!("{k}.{}", ik.get_ref()), line_at(ik.span().start));
            }
        }
        // `[[suppress]]`, `[[profile]]`: remember where each entry starts.
        if matches!(k, "suppress" | "profile")
            && let DeValue::Array(items) = value.get_ref()
        {
            for (i, item) in items.iter().enumerate() {
                lines.insert(format!("{k}[{i}]"), line_at(item.span().start));
            }
        }
    }
    unknown.sort_by_key(|e| match e {
        ConfigError::Invalid { line, column, .. } => (*line, *column),
        _ => (0, 0),
    });
    match unknown.len() {
        0 => {}
        1 => return Err(unknown.remove(0)),
        _ => return Err(ConfigError::Several(unknown)),
    }
    // A type error names the key whose value it is about.
    let typed = |e: toml::de::Error| {
        let at = e.span().map_or(0, |s| s.start);
        let message = e.message().trim_end().to_string();
        match values.iter().find(|(r, _)| r.contains(&at)) {
            Some((_, key)) if !message.contains(&format!("`{key}`")) => {
                invalid(at, format!("`{key}`: {message}"))
            }
            _ => invalid(at, message),
        }
    };
    let config = if is_pyproject(path) {
        toml::from_str::<PyProject>(text)
            .map_err(typed)?
            .tool
            .and_then(|t| t.toolaudit)
            .unwrap_or_default()
    } else {
        toml::from_str::<FileConfig>(text).map_err(typed)?
    };
    // Values are checked against the rule and target tables by the caller,
    // which knows how to name them; point at the key when that fails.
    Ok(Loaded {
        path: path.to_path_buf(),
        config,
        lines,
    })
}

impl Loaded {
    /// `file:line` of a top-level key, for messages and `toolaudit config`.
    pub fn origin(&self, key: &str) -> String {
        let path = crate::discover::display_path(&self.path);
        match self.lines.get(key) {
            Some(line) => format!("{path}:{line}"),
            None => path,
        }
    }

    /// An error about the value of `key` (`targets`, or `severity.N101`
    /// for a key of a nested table).
    pub fn value_error(&self, key: &str, message: impl std::fmt::Display) -> ConfigError {
        ConfigError::Invalid {
            path: self.path.clone(),
            line: self.lines.get(key).copied().unwrap_or(1),
            column: 1,
            message: format!("`{key}`: {message}"),
        }
    }

    /// The folder `per-file-ignores` and `[[suppress]]` globs are relative to.
    pub fn dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_text(name: &str, text: &str) -> Result<Loaded, ConfigError> {
        parse(Path::new(name), text)
    }

    #[test]
    fn reads_every_key() {
        let l = parse_text(
            "toolaudit.toml",
            r#"
targets = ["anthropic", "openai"]
select = ["N", "S"]
ignore = ["S106"]
exclude = ["tests/**"]
max-file-size = "1MiB"
fail-on = "error"
[severity]
N104 = "error"
[per-file-ignores]
"fixtures/**" = ["N101"]
"#,
        )
        .unwrap();
        assert_eq!(l.config.targets.unwrap(), ["anthropic", "openai"]);
        assert_eq!(l.config.severity.unwrap()["N104"], "error");
        assert_eq!(l.lines["fail-on"], 7);
        assert!(matches!(l.config.max_file_size, Some(SizeValue::Text(_))));
    }

    #[test]
    fn unknown_keys_are_named_with_position_and_suggestion() {
        let err = parse_text("toolaudit.toml", "targets = []\ntargts = [\"openai\"]\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "toolaudit.toml:2:1: unknown key `targts`; did you mean `targets`?"
        );
        let err = parse_text("pyproject.toml", "[tool.toolaudit]\nfail_on = \"error\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(
                "unknown key `tool.toolaudit.fail_on`; did you mean `tool.toolaudit.fail-on`?"
            ),
            "{err}"
        );
        let err = parse_text("toolaudit.toml", "zzz = 1\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("valid keys: targets"), "{err}");
    }

    #[test]
    fn bad_types_and_bad_toml_are_errors() {
        let err = parse_text("toolaudit.toml", "targets = \"openai\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("toolaudit.toml:1:"), "{err}");
        let err = parse_text("toolaudit.toml", "targets = [\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("invalid TOML"), "{err}");
        let err = parse_text("toolaudit.toml", "severity = \"error\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("`severity` must be a table"), "{err}");
    }

    #[test]
    fn pyproject_without_our_table_is_not_a_config() {
        assert!(!has_tool_table("[tool.ruff]\nline-length = 100\n"));
        assert!(has_tool_table("[tool.toolaudit]\ntargets = []\n"));
    }
}
