//! Checks on the rule catalogue itself: every rule has metadata, complete
//! docs and fixtures; nothing is orphaned; messages follow one convention;
//! the README lists every rule.

use toolaudit::rules::{self, FAMILIES, REGISTRY};

use super::util::{fixtures, root, scan};

const SECTIONS: &[&str] = &[
    "What it does",
    "Why is this bad?",
    "Example",
    "Use instead",
    "References",
];

#[test]
fn registry_is_sorted_unique_and_matches_metadata() {
    for pair in REGISTRY.windows(2) {
        assert!(
            pair[0].code < pair[1].code,
            "REGISTRY not sorted at {}",
            pair[1].code
        );
    }
    for e in REGISTRY {
        let m = e
            .parse_meta()
            .unwrap_or_else(|err| panic!("{}: {err}", e.code));
        assert_eq!(m.code, e.code);
        assert!(
            m.name.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
            "{}: name `{}` is not kebab-case",
            e.code,
            m.name
        );
        assert!(
            rules::family(&m.family).is_some(),
            "{}: family {}",
            e.code,
            m.family
        );
        assert!(
            e.code.starts_with(m.family.as_str()),
            "{}: code outside family",
            e.code
        );
        assert!(
            !m.summary.ends_with('.'),
            "{}: summary ends with a period",
            e.code
        );
        for s in SECTIONS {
            let section = e.doc_section(s);
            assert!(
                section.is_some_and(|t| !t.is_empty()),
                "{}: docs.md lacks `## {s}`",
                e.code
            );
        }
    }
    assert_eq!(FAMILIES.len(), 6);
}

#[test]
fn no_orphan_rule_folders_or_fixtures() {
    for dir in ["rules", "tests/fixtures"] {
        for entry in std::fs::read_dir(root().join(dir)).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            let looks_like_code = name.len() == 4 && name.as_bytes()[0].is_ascii_uppercase();
            if looks_like_code {
                assert!(
                    rules::by_code(&name).is_some(),
                    "{dir}/{name} has no rule in REGISTRY"
                );
            }
        }
    }
    for e in REGISTRY {
        let dir = fixtures().join(e.code);
        let names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap_or_else(|_| panic!("{} has no fixtures folder", e.code))
            .map(|f| f.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            names.iter().any(|n| n.starts_with("bad")),
            "{}: no bad fixture",
            e.code
        );
        assert!(
            names.iter().any(|n| n.starts_with("good")),
            "{}: no good fixture",
            e.code
        );
    }
}

/// One message convention (clippy's lint_message_convention): messages are a
/// lowercase phrase without a final period; help is an instruction.
#[test]
fn messages_follow_the_convention() {
    let found = scan(&[&fixtures()], &[], &[]).diagnostics;
    assert!(!found.is_empty());
    for d in &found {
        let first = d.message.chars().next().unwrap();
        assert!(!first.is_uppercase(), "{}: `{}`", d.code, d.message);
        assert!(!d.message.ends_with('.'), "{}: `{}`", d.code, d.message);
        assert!(!d.label.is_empty(), "{}: no label", d.code);
        let help = d
            .help
            .as_deref()
            .unwrap_or_else(|| panic!("{}: no help", d.code));
        assert!(!help.ends_with('.'), "{}: help `{help}`", d.code);
        assert!(
            !d.notes.is_empty(),
            "{}: no note saying why it matters",
            d.code
        );
    }
}

#[test]
fn readme_lists_every_rule_and_target() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    for e in REGISTRY {
        let row = format!("| {} | `{}` |", e.code, e.meta().name);
        assert!(readme.contains(&row), "README.md lacks the row `{row}`");
    }
    for t in toolaudit::targets::TARGETS {
        assert!(
            readme.contains(&format!("`{}`", t.id)),
            "README.md does not mention target `{}`",
            t.id
        );
    }
}

/// The sample output in README.md is the current output: every paragraph
/// of it (a family header, a finding, the summary) is what `scan examples`
/// prints now (refresh with
/// `cargo run -q -- scan examples --color never | python3 scripts/readme-sample.py`).
#[test]
fn readme_sample_output_is_current() {
    let out = super::util::bin()
        .args(["scan", "examples", "--color", "never"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let section = readme.find("## What it says").expect("the section");
    let start = section + readme[section..].find("```text\n").expect("a text block") + 8;
    let sample = &readme[start..start + readme[start..].find("```\n").expect("its end")];
    let paragraphs: Vec<&str> = sample.split("\n\n").map(str::trim_end).collect();
    assert!(paragraphs.len() > 5, "{sample}");
    for p in paragraphs.iter().filter(|p| !p.trim().is_empty()) {
        assert!(
            text.contains(p),
            "README.md's sample is stale; refresh it with scripts/readme-sample.py:\n{p}"
        );
    }
}
