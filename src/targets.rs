//! Provider profiles: what each API or client accepts as a tool name.
//!
//! One row per target in [`TARGETS`], each with its source and the date the
//! source was read, so a changed limit is a one-line edit. The values come
//! from `provider-constraints.md` (evidence levels D/E/O there); warnings
//! encode limits that are documented but not enforced everywhere.

use crate::error::{Error, suggest};
use crate::model::Severity;

#[derive(Debug)]
pub struct Target {
    pub id: &'static str,
    pub title: &'static str,
    /// Part of the default `--target` set.
    pub default: bool,
    pub names: NameRules,
    pub source: &'static str,
    pub as_of: &'static str,
}

#[derive(Debug)]
pub struct NameRules {
    /// Characters allowed besides ASCII letters and digits.
    pub punctuation: &'static str,
    /// Names must start with an ASCII letter or `_`.
    pub letter_or_underscore_first: bool,
    /// Longest accepted name, in characters.
    pub max_len: usize,
    /// A shorter limit that is documented or enforced by some clients.
    pub warn_len: Option<(usize, &'static str)>,
    /// `Error` when the target rejects the request; `Warning` when the rule
    /// is advice (MCP's SHOULD).
    pub level: Severity,
    /// Names must also differ after case folding and `-`≡`_`.
    pub fold_case: bool,
}

const fn names(punctuation: &'static str, max_len: usize, level: Severity) -> NameRules {
    NameRules {
        punctuation,
        letter_or_underscore_first: false,
        max_len,
        warn_len: None,
        level,
        fold_case: false,
    }
}

use Severity::{Error as E, Warning as W};

const ANTHROPIC_DOCS_64: Option<(usize, &str)> = Some((
    64,
    "the documented limit, and what claude.ai connectors enforce",
));

pub static TARGETS: &[Target] = &[
    Target {
        id: "anthropic",
        title: "Anthropic Messages API",
        default: true,
        names: NameRules {
            warn_len: ANTHROPIC_DOCS_64,
            ..names("_-", 128, E)
        },
        source: "platform.claude.com tool-use docs; API errors `^[a-zA-Z0-9_-]{1,128}$` 2025-07..2026-09",
        as_of: "2026-09",
    },
    Target {
        id: "anthropic-strict",
        title: "Anthropic strict tool use",
        default: false,
        names: NameRules {
            warn_len: ANTHROPIC_DOCS_64,
            ..names("_-", 128, E)
        },
        source: "platform.claude.com structured-outputs docs",
        as_of: "2026-09",
    },
    Target {
        id: "claude-connectors",
        title: "claude.ai and Claude Desktop remote MCP connectors",
        default: true,
        names: names("_-", 64, E),
        source: "API errors on FrontendRemoteMcpToolDefinition.name `^[a-zA-Z0-9_-]{1,64}$`",
        as_of: "2026-03",
    },
    Target {
        id: "openai",
        title: "OpenAI Chat Completions and Responses",
        default: true,
        names: NameRules {
            warn_len: Some((64, "the documented Chat Completions limit")),
            ..names("_-", 128, E)
        },
        source: "openai-python OpenAPI 2.3.0 FunctionObject.name; API errors 2025-05..2026-09",
        as_of: "2026-08",
    },
    Target {
        id: "openai-strict",
        title: "OpenAI strict mode (Structured Outputs)",
        default: false,
        names: NameRules {
            warn_len: Some((64, "the documented Chat Completions limit")),
            ..names("_-", 128, E)
        },
        source: "developers.openai.com structured-outputs guide",
        as_of: "2026-09",
    },
    Target {
        id: "gemini",
        title: "Gemini API and Vertex AI",
        default: true,
        names: NameRules {
            letter_or_underscore_first: true,
            warn_len: Some((64, "the limit every API error seen through 2026-03 quotes")),
            ..names("_.:-", 128, E)
        },
        source: "googleapis/python-genai types.py FunctionDeclaration.name (max 128 since 2026-05-20)",
        as_of: "2026-08",
    },
    Target {
        id: "bedrock",
        title: "AWS Bedrock Converse",
        default: true,
        names: names("_-", 64, E),
        source: "docs.aws.amazon.com Bedrock API_runtime_ToolSpecification",
        as_of: "2026-09",
    },
    Target {
        id: "mistral",
        title: "Mistral chat completions",
        default: true,
        names: names("_-", 64, E),
        source: "API errors `must be a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length of 64` 2025-04, 2026-07",
        as_of: "2026-07",
    },
    Target {
        id: "mcp",
        title: "MCP specification 2025-11-25 (SHOULD)",
        default: true,
        names: names("_.-", 128, W),
        source: "modelcontextprotocol specification 2025-11-25 server/tools.mdx, Tool Names",
        as_of: "2026-08",
    },
    Target {
        id: "portable",
        title: "Portable intersection of all targets",
        default: false,
        names: NameRules {
            letter_or_underscore_first: true,
            fold_case: true,
            ..names("_-", 64, E)
        },
        source: "derived from every row of provider-constraints.md",
        as_of: "2026-09",
    },
];

impl NameRules {
    pub fn allows(&self, c: char) -> bool {
        c.is_ascii_alphanumeric() || self.punctuation.contains(c)
    }

    pub fn allows_first(&self, c: char) -> bool {
        !self.letter_or_underscore_first || c.is_ascii_alphabetic() || c == '_'
    }
}

pub fn by_id(id: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.id == id)
}

pub fn defaults() -> Vec<&'static Target> {
    TARGETS.iter().filter(|t| t.default).collect()
}

/// The targets `ids` name one by one, or all of them for `all`; not those
/// reached through `default` or an empty list.
pub fn named(ids: &[String]) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = TARGETS
        .iter()
        .filter(|t| {
            ids.iter().any(|id| {
                let id = id.trim();
                id.eq_ignore_ascii_case(t.id) || id.eq_ignore_ascii_case("all")
            })
        })
        .map(|t| t.id)
        .collect();
    out.dedup();
    out
}

/// Resolves `--target` values; an empty list means the default set.
pub fn resolve(ids: &[String]) -> Result<Vec<&'static Target>, Error> {
    if ids.is_empty() {
        return Ok(defaults());
    }
    let mut out: Vec<&'static Target> = Vec::new();
    for id in ids {
        let id = id.trim();
        if id.eq_ignore_ascii_case("default") {
            out.extend(defaults());
        } else if id.eq_ignore_ascii_case("all") {
            out.extend(TARGETS.iter());
        } else {
            out.push(
                by_id(&id.to_ascii_lowercase()).ok_or_else(|| Error::UnknownTarget {
                    given: id.to_string(),
                    suggestion: suggest(id, TARGETS.iter().map(|t| t.id)),
                    valid: TARGETS.iter().map(|t| t.id).collect::<Vec<_>>().join(", "),
                })?,
            );
        }
    }
    // Keep table order so output does not depend on how flags were spelled.
    out.sort_by_key(|t| TARGETS.iter().position(|x| std::ptr::eq(x, *t)));
    out.dedup_by(|a, b| std::ptr::eq(*a, *b));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_kebab_case() {
        for (i, t) in TARGETS.iter().enumerate() {
            assert!(
                t.id.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
                "{}",
                t.id
            );
            assert!(TARGETS[i + 1..].iter().all(|o| o.id != t.id), "{}", t.id);
            assert!(!t.source.is_empty() && !t.as_of.is_empty());
        }
    }

    #[test]
    fn resolve_defaults_aliases_and_errors() {
        let d: Vec<_> = resolve(&[]).unwrap().iter().map(|t| t.id).collect();
        assert!(d.contains(&"anthropic") && d.contains(&"mcp") && !d.contains(&"portable"));
        let r: Vec<_> = resolve(&["mcp".into(), "OpenAI".into(), "mcp".into()])
            .unwrap()
            .iter()
            .map(|t| t.id)
            .collect();
        assert_eq!(r, ["openai", "mcp"]);
        let err = resolve(&["antropic".into()]).unwrap_err().to_string();
        assert!(
            err.contains("`antropic`") && err.contains("(did you mean `anthropic`?)"),
            "{err}"
        );
    }
}
