//! Words shared by the front-ends and the rules on code (M2, M3), in any
//! language: what a message shows of a value, which words mark a
//! truncation or a limit, which names are settings or result collections.
//! Words only: recognising sites is the front-ends' work
//! (`crate::model::code::Site`), judging them the rules'.

use crate::model::code::ValueRef;

/// The parameter mask of a value the model sent as is (or of any value
/// under `scope = "all"`); `None` when the rule should skip it.
pub fn requested(all: bool, v: &ValueRef) -> Option<u64> {
    (all || (v.mask != 0 && v.direct)).then_some(v.mask)
}

/// A short one-line rendering of code for a message.
pub fn snippet(code: &str) -> String {
    let t: String = code.split_whitespace().collect::<Vec<_>>().join(" ");
    if t.chars().count() > 60 {
        let cut: String = t.chars().take(57).collect();
        format!("{cut}…")
    } else {
        t
    }
}

/// A value that names a tool or method (`request.name`, `tool_name`): a
/// catch-all over it is a dispatcher's "unknown tool" path, not a default.
pub fn names_a_tool(code: &str) -> bool {
    code.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| {
        w.eq_ignore_ascii_case("name")
            || w.eq_ignore_ascii_case("tool")
            || w.eq_ignore_ascii_case("method")
    })
}

/// A name written as a constant (`MAX_RESULTS`, `LIMIT2`).
pub fn is_const_name(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && s.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// Is this (lower-case) word a name for a tool call's arguments
/// (`arguments`, `args`, `input`, `params`, `tool_args`, `raw_input`)?
pub fn arguments_word(w: &str) -> bool {
    matches!(w, "arguments" | "args" | "input" | "params" | "parameters")
        || w.ends_with("_args")
        || w.ends_with("_arguments")
        || w.ends_with("_input")
}

/// Does a message tell the model the tool cannot do anything yet (a stub:
/// "not available", "not implemented", "extension is not connected")?
pub fn says_unavailable(s: &str) -> bool {
    const WORDS: &[&str] = &[
        "not available",
        "unavailable",
        "not implemented",
        "unimplemented",
        "not connected",
        "coming soon",
        "premium feature",
    ];
    // Only messages: a word or two cannot say it.
    if s.len() < 11 || !s.contains(' ') {
        return false;
    }
    let s = s
        .to_lowercase()
        .replace("not currently ", "not ")
        .replace("not yet ", "not ")
        .replace("not fully ", "not ")
        .replace("not completely ", "not ");
    contains_any(&s, WORDS)
}

/// Does a tool's description tell the model that its output may be cut
/// ("returns the (truncated) extracted text", "long pages are cut off")?
/// Narrower than [`mentions_truncation`]: "more" or "..." in a description
/// says nothing about cuts.
pub fn says_output_cut(description: &str) -> bool {
    let d = description.to_lowercase();
    contains_any(
        &d,
        &["truncat", "cut off", "cut to", "clipped", "shortened"],
    )
}

/// Does a string in the output tell the model that something was cut?
/// `extra` are the project's own markers (`[options] truncation-markers`).
pub fn mentions_truncation(s: &str, extra: &[String]) -> bool {
    const MARKERS: &[&str] = &[
        "truncat",
        "…",
        "...",
        " more",
        "omitted",
        "elided",
        "not shown",
        "cut off",
        "clipped",
        "remaining",
        "exceed",
        "too long",
        "too large",
        "showing first",
        "showing up to",
        "[cut",
        "limit reached",
        "was cut",
        "shortened",
    ];
    let lower = s.to_lowercase();
    contains_any(&lower, MARKERS) || extra.iter().any(|m| lower.contains(&m.to_lowercase()))
}

/// A key that gives the whole count beside a cut list (`"total"`,
/// `"total_sellers"`, `"totalCount"`): the model can see that it got fewer
/// than there are.
pub fn names_a_total(key: &str) -> bool {
    let ident = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    // What is counted: a plural noun (`total_sellers`, `totalMatches`),
    // not a measure (`total_ms`, `total_tokens`, `total_cost`).
    let counted = |rest: &str| {
        let rest = rest.trim_start_matches('_').to_ascii_lowercase();
        rest == "count"
            || (rest.len() > 2
                && rest.ends_with('s')
                && ![
                    "ms", "tokens", "secs", "seconds", "millis", "nanos", "credits",
                ]
                .iter()
                .any(|m| rest.ends_with(m)))
    };
    ident
        && (key == "total"
            || key.strip_prefix("total_").is_some_and(counted)
            || key
                .strip_prefix("total")
                .filter(|r| r.starts_with(|c: char| c.is_ascii_uppercase()))
                .is_some_and(counted))
}

/// A field that carries "there was more" in a structured result.
pub fn truncation_field(name: &str) -> bool {
    matches!(
        name,
        "truncated"
            | "is_truncated"
            | "was_truncated"
            | "has_more"
            | "omitted"
            | "next_cursor"
            | "nextCursor"
            | "remaining"
            | "total_count"
            | "iteration_limit_reached"
    )
}

/// Does a string say that a value was limited (a reported clamp)?
pub fn mentions_limit(s: &str) -> bool {
    const WORDS: &[&str] = &[
        "clamp",
        "capped",
        "limited to",
        "at most",
        "maximum",
        "reduced to",
        "adjusted",
        "exceed",
        "too large",
        "too many",
        "lowered",
        "raised to",
    ];
    contains_any(&s.to_lowercase(), WORDS)
}

/// Does a string say that a value was not recognised (`"Unknown format
/// type. Use: date, number"`, `"unsupported mode"`)?
pub fn says_unrecognised(s: &str) -> bool {
    const WORDS: &[&str] = &[
        "unknown",
        "unsupported",
        "not supported",
        "unrecognized",
        "unrecognised",
        "invalid",
        "one of",
        "valid values",
        "use:",
    ];
    contains_any(&s.to_lowercase(), WORDS)
}

/// Words that state a bound, matched on word boundaries ("max" but not
/// "maximize").
pub const BOUND_WORDS: &[&str] = &[
    "max",
    "max.",
    "maximum",
    "at most",
    "up to",
    "cap",
    "capped",
    "clamped",
    "limited to",
    "no more than",
    "between",
];

/// Does a (lower-case) text state a bound in one of [`BOUND_WORDS`]?
pub fn states_bound(text: &str) -> bool {
    BOUND_WORDS.iter().any(|w| has_phrase(text, w))
        // Chinese and Japanese: "最大 100", "最多", "上限", "不超过"; written
        // without spaces, so no word boundary is asked for.
        || ["最大", "最多", "上限", "不超过", "以内"].iter().any(|w| text.contains(w))
}

/// Does a parameter's description say it has no effect ("Not currently
/// used", "Reserved for future use", "Ignored", "has no effect")?
pub fn says_unused(description: &str) -> bool {
    let d = description.to_ascii_lowercase();
    [
        "not currently used",
        "not used",
        "unused",
        "reserved for future",
        "has no effect",
        "no effect",
        "ignored",
        "deprecated",
        "not yet implemented",
        "not implemented",
        "no input required",
        "no fields required",
        "no parameters required",
        "takes no parameters",
    ]
    .iter()
    .any(|w| has_phrase(&d, w))
}

/// Does `text` give a range that ends at `n` ("1-20", "1 – 1000", "0 to
/// 50", "1..=100"), or a list of the values allowed that ends at it ("10,
/// 50, or 100", "25 | 100")?
pub fn states_range_to(text: &str, n: &str) -> bool {
    text.match_indices(n).any(|(i, _)| {
        if text[i + n.len()..].starts_with(|c: char| c.is_ascii_digit()) {
            return false;
        }
        let before = text[..i].trim_end();
        if let Some(rest) = ["-", "–", "to", "..=", ".."]
            .iter()
            .find_map(|sep| before.strip_suffix(sep))
        {
            return rest.trim_end().ends_with(|c: char| c.is_ascii_digit());
        }
        // A list: the value before the separator is a number of its own
        // (not the `8` of `utf-8, 20 shown`).
        let Some(rest) = [",", "|", "/"]
            .iter()
            .find_map(|sep| before.strip_suffix(sep))
            .or_else(|| {
                let rest = before.strip_suffix("or")?.trim_end();
                Some(rest.strip_suffix(',').unwrap_or(rest))
            })
        else {
            return false;
        };
        rest.split_whitespace()
            .next_back()
            .map(|w| w.trim_start_matches(['(', '[']))
            .is_some_and(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_digit()))
    })
}

/// Does `text` hold `w` between non-alphanumeric characters?
pub fn has_phrase(text: &str, w: &str) -> bool {
    text.match_indices(w).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + w.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

fn contains_any(lower: &str, words: &[&str]) -> bool {
    words.iter().any(|w| lower.contains(w))
}

/// Option values that stand for "everything" or "the default": a branch
/// for every other value is the normal case, not a fallback.
pub fn wildcard_literal(lit: &str) -> bool {
    matches!(
        lit.trim_matches('"').to_ascii_lowercase().as_str(),
        "*" | "all" | "any" | "none" | "" | "default" | "auto" | "*.*" | "." | "-"
    )
}

/// A string default that is itself a message to the model (`"No text
/// provided"`): the model sees it, so the default is not silent.
pub fn reads_as_diagnostic(default: &str) -> bool {
    let d = default.to_ascii_lowercase();
    [
        "no ",
        "not provided",
        "missing",
        "unknown",
        "invalid",
        "error",
        "please provide",
        "required",
    ]
    .iter()
    .any(|w| d.contains(w))
}

/// Names of settings that change how fast or how often, not what: capping
/// them never makes a result look like more than it is.
pub fn throughput_setting(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    [
        "concurren",
        "worker",
        "thread",
        "parallel",
        "yield",
        "poll",
        "batch",
        "interval",
        "wait",
    ]
    .iter()
    .any(|w| n.contains(w))
}

/// Names of collections of results (search hits, matches): keeping the
/// first N is what a search returns, not a cut of its output.
pub fn result_collection(name: &str) -> bool {
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .map(str::to_ascii_lowercase)
        .any(|w| {
            matches!(
                w.as_str(),
                "results"
                    | "hits"
                    | "matches"
                    | "items"
                    | "entries"
                    | "candidates"
                    | "scores"
                    | "scored"
                    | "ranked"
                    | "docs"
                    | "documents"
                    | "rows"
                    | "suggestions"
                    | "paths"
                    | "files"
            )
        })
}

#[cfg(test)]
mod tests {
    use super::{says_unavailable, says_unused, states_range_to};

    #[test]
    fn messages_that_say_the_tool_cannot_act() {
        assert!(says_unavailable(
            "Error: Multi-plugin job submission not yet fully implemented."
        ));
        assert!(says_unavailable("This feature is not currently available."));
        assert!(!says_unavailable("Submitted the job to 3 nodes."));
    }

    #[test]
    fn descriptions_that_say_a_parameter_does_nothing() {
        assert!(says_unused("Reserved for future use; currently ignored."));
        assert!(says_unused(
            "Not currently used. Accepted but has no effect."
        ));
        assert!(says_unused("Validated input (no fields required)"));
        assert!(!says_unused("Files to use as context"));
        assert!(!says_unused("Whether to refuse unusual paths"));
    }

    #[test]
    fn ranges_that_end_at_the_bound() {
        assert!(states_range_to(
            "number of instructions (1-1000, default: 10)",
            "1000"
        ));
        assert!(states_range_to("page size, 1 – 200", "200"));
        assert!(states_range_to("0 to 50 rows", "50"));
        assert!(states_range_to("1..=100", "100"));
        assert!(!states_range_to("1-10000 rows", "1000"));
        assert!(!states_range_to("returns 1000 rows", "1000"));
        assert!(!states_range_to("utf-8, 20 shown", "20"));
        assert!(states_range_to("results per page (10, 50, or 100)", "100"));
        assert!(states_range_to("page size: 25 | 100", "100"));
        assert!(!states_range_to("the top 100", "100"));
        assert!(!states_range_to("for 100 rows", "100"));
    }
}
