//! The library's typed errors. Each variant names the thing that was wrong;
//! the CLI adds context and maps every one of them to exit code 2.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("unknown rule code or family `{given}`{}; run `toolaudit rules` for the list", did_you_mean(.suggestion))]
    UnknownSelector {
        given: String,
        suggestion: Option<String>,
    },
    #[error("unknown target `{given}`{}; valid targets: {valid}", did_you_mean(.suggestion))]
    UnknownTarget {
        given: String,
        suggestion: Option<String>,
        valid: String,
    },
    #[error("unknown rule `{given}`{}; run `toolaudit rules` for the list", did_you_mean(.suggestion))]
    UnknownRule {
        given: String,
        suggestion: Option<String>,
    },
    #[error("{}: no such file or directory", .0.display())]
    MissingPath(PathBuf),
    #[error("invalid {} glob `{glob}`: {message}", glob_origin(.origin))]
    BadGlob {
        glob: String,
        /// `--exclude`, or the config file and line.
        origin: String,
        message: String,
    },
    #[error("could not start {threads} worker threads: {message}")]
    ThreadPool { threads: usize, message: String },
    #[error(transparent)]
    Surface(#[from] crate::surface::LoadError),
    #[error("no tool-surface snapshot at {}; write one with `toolaudit surface --write`", .0.display())]
    NoSurface(PathBuf),
}

fn glob_origin(origin: &str) -> String {
    if origin == "--exclude" {
        "--exclude".into()
    } else {
        format!("`exclude` ({origin})")
    }
}

fn did_you_mean(s: &Option<String>) -> String {
    s.as_ref()
        .map(|s| format!(" (did you mean `{s}`?)"))
        .unwrap_or_default()
}

/// The candidate closest to `given`, if one is close enough to be a typo.
pub fn suggest<'a>(given: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let given = given.to_ascii_lowercase();
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(&given, &c.to_ascii_lowercase()), c))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0).then_with(|| b.1.cmp(a.1)))
        .map(|(_, c)| c.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_catch_typos_only() {
        let c = ["anthropic", "openai", "gemini"];
        assert_eq!(suggest("antropic", c).as_deref(), Some("anthropic"));
        assert_eq!(suggest("OPENAI", c).as_deref(), Some("openai"));
        assert_eq!(suggest("zzz", c), None);
    }
}
