//! The rule catalogue: the [`Rule`] trait, the registry, rule metadata read
//! from `rules/<CODE>/{rule.toml,docs.md}`, and `--select`/`--ignore`.
//!
//! Rules are pure and `Sync`: they read tool definitions and push
//! [`Diagnostic`]s. They never print, never touch the file system and never
//! spawn threads; `engine` decides what runs where.

mod ambiguous_namespace_separator;
mod args_accept_unknown_fields;
pub mod code;
mod default_violates_schema;
mod description_restates_name;
mod description_undeclared_parameter;
mod duplicate_tool_name;
mod input_schema_not_object;
mod invalid_input_schema;
mod invalid_tool_name;
mod malformed_arguments_defaulted;
mod missing_description;
mod open_input_schema;
mod parse_error_defaulted;
mod profile_boundary;
mod required_property_undeclared;
mod sanitized_name_collision;
mod silent_clamp;
mod silent_truncation;
mod silent_value_fallback;
mod target_schema_unsupported;
mod tool_list_budget;

pub(crate) use tool_list_budget::thousands;
mod tool_surface_drift;
mod undeclared_argument_read;
mod unread_declared_argument;
mod wildcard_arm_default;

use std::sync::OnceLock;

use serde::Deserialize;

use crate::error::{Error, suggest};
use crate::link::Unit;
use crate::model::code::{Candidate, FunctionView};
use crate::model::{Diagnostic, Severity, ToolDef};
use crate::surface;
use crate::targets::Target;

/// A rule family: the taxonomy of DESIGN.md, used for grouping and SARIF taxa.
#[derive(Debug)]
pub struct Family {
    pub id: &'static str,
    pub title: &'static str,
    pub description: &'static str,
}

pub static FAMILIES: &[Family] = &[
    Family {
        id: "M1",
        title: "silent discard",
        description: "An unknown, misspelled or declared-but-unread argument is dropped without telling the model.",
    },
    Family {
        id: "M2",
        title: "silent coercion",
        description: "A present but invalid argument value becomes a default without telling the model.",
    },
    Family {
        id: "M3",
        title: "silent override",
        description: "A requested value is clamped or replaced, or the output truncated, without telling the model.",
    },
    Family {
        id: "N",
        title: "name contract",
        description: "Tool names that a provider rejects, or that collide once sanitised.",
    },
    Family {
        id: "S",
        title: "schema contract",
        description: "Input schemas that are invalid, self-contradictory, or rejected by a target.",
    },
    Family {
        id: "P",
        title: "tool surface",
        description: "The set of tools, their descriptions or schemas changed without review.",
    },
];

pub fn family(id: &str) -> Option<&'static Family> {
    FAMILIES.iter().find(|f| f.id == id)
}

/// What a rule needs to know about the run.
pub struct Context<'a> {
    pub targets: &'a [&'static Target],
    /// Targets named on `--target` or in the config's `targets` (not
    /// reached through the default set): some checks apply only when the
    /// user says the tools go there (S105's Gemini `parameters` subset for
    /// JSON Schema tools).
    pub named_targets: &'a [&'static str],
    /// Rule codes named in full on `--select`: some rules check more when
    /// asked for by name (S106 checks parameters too).
    pub explicit: &'a [&'static str],
    /// `scope = "all"`: code rules check all code, not only values that
    /// come from tool arguments on the tool-call surface.
    pub all: bool,
    /// `[options] truncation-markers`: more words that mark a truncation.
    pub truncation_markers: &'a [String],
    /// `[options] tool-budget`: S109's threshold per tool list, in tokens.
    pub tool_budget: usize,
}

pub trait Rule: Sync {
    /// Checks one tool definition. Runs in parallel, file by file.
    fn check_tool(&self, _cx: &Context, _tool: &ToolDef, _out: &mut Vec<Diagnostic>) {}

    /// Checks the tools offered to a model together (one `ToolDef::group`,
    /// in source order). Runs once the whole inventory is known.
    fn check_group(&self, _cx: &Context, _tools: &[&ToolDef], _out: &mut Vec<Diagnostic>) {}

    /// Checks one function of any language through its facts and sites
    /// (`model::code`). Findings are candidates: they are reported when
    /// the function turns out to be on the tool-call surface (see `link`).
    fn check_function(&self, _cx: &Context, _f: &FunctionView, _out: &mut Vec<Candidate>) {}

    /// Checks one linked unit (a crate): its tools, their handlers and types.
    fn check_unit(&self, _cx: &Context, _k: &Unit, _out: &mut Vec<Diagnostic>) {}

    /// Checks the whole tool surface against the committed snapshot and
    /// the profiles of the config. Runs once, after every other check.
    fn check_surface(&self, _cx: &Context, _s: &SurfaceView, _out: &mut Vec<Diagnostic>) {}
}

/// The tool surface of a scan (see `crate::surface`), for the P rules.
pub struct SurfaceView<'a> {
    pub current: &'a surface::Current<'a>,
    /// The committed snapshot, if there is one.
    pub snapshot: Option<&'a surface::Loaded>,
    /// What changed since the snapshot (empty without one).
    pub changes: &'a [surface::Change],
    pub profiles: &'a [surface::Profile],
}

/// A rule with its metadata. Build with [`declare`]: one line per rule.
pub struct RuleEntry {
    pub code: &'static str,
    rule_toml: &'static str,
    pub docs: &'static str,
    pub rule: &'static dyn Rule,
}

/// `rules/<CODE>/rule.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleMeta {
    pub code: String,
    pub name: String,
    pub family: String,
    pub severity: Severity,
    pub summary: String,
    pub since: String,
    /// In the default rule set; `false` for opt-in rules, which run only
    /// when a selector names them (their code, prefix, family or `ALL`).
    #[serde(default = "yes")]
    pub default: bool,
}

fn yes() -> bool {
    true
}

impl<'de> Deserialize<'de> for Severity {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Severity::parse(&s).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown severity `{s}`; use error, warning or note"
            ))
        })
    }
}

macro_rules! declare {
    ($code:literal, $rule:expr) => {
        RuleEntry {
            code: $code,
            rule_toml: include_str!(concat!("../../rules/", $code, "/rule.toml")),
            docs: include_str!(concat!("../../rules/", $code, "/docs.md")),
            rule: &$rule,
        }
    };
}

/// Every rule, sorted by code. Adding a rule is one line here.
#[rustfmt::skip]
pub static REGISTRY: &[RuleEntry] = &[
    declare!("M101", open_input_schema::OpenInputSchema),
    declare!("M102", args_accept_unknown_fields::ArgsAcceptUnknownFields),
    declare!("M103", undeclared_argument_read::UndeclaredArgumentRead),
    declare!("M104", unread_declared_argument::UnreadDeclaredArgument),
    declare!("M201", wildcard_arm_default::WildcardArmDefault),
    declare!("M202", parse_error_defaulted::ParseErrorDefaulted),
    declare!("M203", malformed_arguments_defaulted::MalformedArgumentsDefaulted),
    declare!("M301", silent_clamp::SilentClamp),
    declare!("M302", silent_truncation::SilentTruncation),
    declare!("M303", silent_value_fallback::SilentValueFallback),
    declare!("N101", invalid_tool_name::InvalidToolName),
    declare!("N102", sanitized_name_collision::SanitizedNameCollision),
    declare!("N103", duplicate_tool_name::DuplicateToolName),
    declare!("N104", ambiguous_namespace_separator::AmbiguousNamespaceSeparator),
    declare!("P101", tool_surface_drift::ToolSurfaceDrift),
    declare!("P102", profile_boundary::ProfileBoundary),
    declare!("S101", invalid_input_schema::InvalidInputSchema),
    declare!("S102", input_schema_not_object::InputSchemaNotObject),
    declare!("S103", required_property_undeclared::RequiredPropertyUndeclared),
    declare!("S104", default_violates_schema::DefaultViolatesSchema),
    declare!("S105", target_schema_unsupported::TargetSchemaUnsupported),
    declare!("S106", missing_description::MissingDescription),
    declare!("S107", description_undeclared_parameter::DescriptionUndeclaredParameter),
    declare!("S108", description_restates_name::DescriptionRestatesName),
    declare!("S109", tool_list_budget::ToolListBudget),
];

impl std::fmt::Debug for RuleEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code)
    }
}

impl RuleEntry {
    /// Parses `rule.toml`, the single source of a rule's metadata.
    pub fn parse_meta(&self) -> Result<RuleMeta, toml::de::Error> {
        toml::from_str(self.rule_toml)
    }

    pub fn meta(&self) -> &'static RuleMeta {
        let index = REGISTRY
            .iter()
            .position(|e| e.code == self.code)
            .expect("entries come from REGISTRY");
        &metas()[index]
    }

    pub fn family(&self) -> &'static Family {
        family(&self.meta().family).expect("tests/meta checks every family")
    }

    /// A section of `docs.md` (`## What it does` …), without its heading.
    pub fn doc_section(&self, heading: &str) -> Option<&'static str> {
        doc_section(self.docs, heading)
    }
}

fn metas() -> &'static [RuleMeta] {
    static METAS: OnceLock<Vec<RuleMeta>> = OnceLock::new();
    METAS.get_or_init(|| {
        REGISTRY
            .iter()
            .map(|e| {
                e.parse_meta()
                    .unwrap_or_else(|err| panic!("rules/{}/rule.toml: {err}", e.code))
            })
            .collect()
    })
}

pub fn doc_section<'a>(docs: &'a str, heading: &str) -> Option<&'a str> {
    let marker = format!("## {heading}\n");
    let start = docs.find(&marker)? + marker.len();
    let rest = &docs[start..];
    let end = rest.find("\n## ").map_or(rest.len(), |i| i + 1);
    Some(rest[..end].trim())
}

pub fn by_code(code: &str) -> Option<&'static RuleEntry> {
    REGISTRY.iter().find(|e| e.code.eq_ignore_ascii_case(code))
}

/// Finds a rule by code or kebab name, or says which one was probably meant.
pub fn lookup(given: &str) -> Result<&'static RuleEntry, Error> {
    by_code(given)
        .or_else(|| REGISTRY.iter().find(|e| e.meta().name == given))
        .ok_or_else(|| Error::UnknownRule {
            given: given.to_string(),
            suggestion: suggest(
                given,
                REGISTRY
                    .iter()
                    .flat_map(|e| [e.code, e.meta().name.as_str()]),
            ),
        })
}

/// Does `selector` (`ALL`, a family such as `N` or `M2`, `M` for every M
/// family, or a code prefix such as `N10` or `N101`) cover `entry`?
fn covers(selector: &str, entry: &RuleEntry) -> bool {
    selector == "ALL"
        || entry.code.starts_with(selector)
        || entry.meta().family.starts_with(selector)
}

fn check_selector(selector: &str) -> Result<String, Error> {
    let s = selector.trim().to_ascii_uppercase();
    let known_family = s == "M" || family(&s).is_some();
    if s == "ALL" || known_family || REGISTRY.iter().any(|e| e.code.starts_with(&s)) {
        return Ok(s);
    }
    let candidates = REGISTRY
        .iter()
        .map(|e| e.code)
        .chain(FAMILIES.iter().map(|f| f.id));
    Err(Error::UnknownSelector {
        given: selector.trim().to_string(),
        suggestion: suggest(&s, candidates),
    })
}

/// The rules enabled by `--select` (default `ALL`) minus `--ignore`.
pub fn select(select: &[String], ignore: &[String]) -> Result<Vec<&'static RuleEntry>, Error> {
    let select: Vec<String> = select
        .iter()
        .map(|s| check_selector(s))
        .collect::<Result<_, _>>()?;
    let ignore: Vec<String> = ignore
        .iter()
        .map(|s| check_selector(s))
        .collect::<Result<_, _>>()?;
    Ok(REGISTRY
        .iter()
        // No selector: the default set, every rule but the opt-in ones.
        .filter(|e| match select.is_empty() {
            true => e.meta().default,
            false => select.iter().any(|s| covers(s, e)),
        })
        .filter(|e| !ignore.iter().any(|s| covers(s, e)))
        .collect())
}

/// The rule codes named in full in `select` (`S106`, not `S` or `S10`).
pub fn explicit_codes(select: &[String]) -> Vec<&'static str> {
    REGISTRY
        .iter()
        .map(|e| e.code)
        .filter(|code| select.iter().any(|s| s.trim().eq_ignore_ascii_case(code)))
        .collect()
}

/// Alternatives for a message: `a`, `a or b`, `a, b or c`; past `max`
/// items, `a, b or 3 more`.
pub(crate) fn join_or(items: &[impl AsRef<str>], max: usize) -> String {
    let shown: Vec<&str> = items.iter().take(max).map(AsRef::as_ref).collect();
    match (shown.as_slice(), items.len() - shown.len()) {
        ([], _) => String::new(),
        ([one], 0) => (*one).to_string(),
        ([init @ .., last], 0) => format!("{} or {last}", init.join(", ")),
        (all, more) => format!("{} or {more} more", all.join(", ")),
    }
}

/// Joins names for a message: `a`, `a and b`, `a, b and c`.
pub(crate) fn join_and(items: &[impl AsRef<str>]) -> String {
    match items {
        [] => String::new(),
        [one] => one.as_ref().to_string(),
        [init @ .., last] => format!(
            "{} and {}",
            init.iter()
                .map(AsRef::as_ref)
                .collect::<Vec<_>>()
                .join(", "),
            last.as_ref()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(sel: &[&str], ign: &[&str]) -> Vec<&'static str> {
        let s: Vec<String> = sel.iter().map(|s| s.to_string()).collect();
        let i: Vec<String> = ign.iter().map(|s| s.to_string()).collect();
        select(&s, &i).unwrap().iter().map(|e| e.code).collect()
    }

    #[test]
    fn selection_by_family_prefix_and_code() {
        assert_eq!(codes(&[], &[]).len(), REGISTRY.len() - 2);
        assert!(!codes(&[], &[]).contains(&"M101"), "M101 is opt-in");
        assert!(!codes(&[], &[]).contains(&"S109"), "S109 is opt-in");
        assert_eq!(codes(&["ALL"], &[]).len(), REGISTRY.len());
        assert!(codes(&["M1"], &[]).contains(&"M101"));
        assert_eq!(codes(&["M"], &[]).len(), 10);
        assert_eq!(
            codes(&["M1", "S10"], &["S"]),
            ["M101", "M102", "M103", "M104"]
        );
        assert_eq!(codes(&["M3"], &["M302"]), ["M301", "M303"]);
        assert_eq!(codes(&["N"], &["N104"]), ["N101", "N102", "N103"]);
        assert_eq!(codes(&["n101", "N103"], &[]), ["N101", "N103"]);
        assert_eq!(codes(&["N10"], &["N"]), Vec::<&str>::new());
        assert_eq!(codes(&["P"], &[]), ["P101", "P102"]);
    }

    #[test]
    fn unknown_selectors_name_the_value_and_suggest() {
        let err = select(&["N1011".into()], &[]).unwrap_err().to_string();
        assert!(
            err.contains("`N1011`") && err.contains("did you mean `N101`"),
            "{err}"
        );
        let err = select(&[], &["X9".into()]).unwrap_err().to_string();
        assert!(err.contains("`X9`"), "{err}");
    }

    #[test]
    fn join_and_reads_naturally() {
        assert_eq!(join_and(&["a"]), "a");
        assert_eq!(join_and(&["a", "b"]), "a and b");
        assert_eq!(join_and(&["a", "b", "c"]), "a, b and c");
    }
}
