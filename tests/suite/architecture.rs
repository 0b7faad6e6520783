//! The layering that lets one rule serve every language: rules, the model
//! and the linker read language-neutral facts only. A front-end (today
//! `src/rust/`) is the only place that knows a grammar.

use std::path::Path;

use super::util::root;

/// Paths that must not name a grammar or a front-end.
const NEUTRAL: &[&str] = &["src/rules", "src/model", "src/link.rs"];

/// What a neutral file must not mention.
const FORBIDDEN: &[&str] = &["tree_sitter", "crate::rust", "crate::lang", "super::rust"];

fn rust_files(p: &Path, out: &mut Vec<std::path::PathBuf>) {
    if p.is_dir() {
        for e in std::fs::read_dir(p).unwrap() {
            rust_files(&e.unwrap().path(), out);
        }
    } else if p.extension().is_some_and(|e| e == "rs") {
        out.push(p.to_path_buf());
    }
}

/// `file:line: word` for each code line of `files` that names one of
/// `forbidden` (comments may name anything).
fn violations(files: &[std::path::PathBuf], forbidden: &[&str]) -> Vec<String> {
    let mut bad = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            for word in forbidden {
                if code.contains(word) {
                    bad.push(format!("{}:{}: {word}", f.display(), i + 1));
                }
            }
        }
    }
    bad
}

#[test]
fn rules_model_and_linker_import_no_grammar_or_front_end() {
    let mut files = Vec::new();
    for p in NEUTRAL {
        let path = root().join(p);
        assert!(path.exists(), "{p} is gone: update NEUTRAL");
        rust_files(&path, &mut files);
    }
    assert!(files.len() > 20, "found only {} files", files.len());
    let bad = violations(&files, FORBIDDEN);
    assert!(
        bad.is_empty(),
        "language-specific code in neutral files:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_front_end_uses_no_rule_but_through_the_rule_interface() {
    // A front-end fills the model and runs the rules' `check_function`;
    // words it shares with rules live in `model::words`, so a rule can
    // change without a front-end noticing.
    let mut files = Vec::new();
    rust_files(&root().join("src/rust"), &mut files);
    assert!(files.len() >= 5, "found only {} files", files.len());
    let bad: Vec<String> = violations(&files, &["crate::rules"])
        .into_iter()
        .filter(|v| {
            let (path, rest) = v.split_once(':').unwrap();
            let line: usize = rest.split(':').next().unwrap().parse().unwrap();
            let text = std::fs::read_to_string(path).unwrap();
            text.lines().nth(line - 1).unwrap().trim() != "use crate::rules::{Context, RuleEntry};"
        })
        .collect();
    assert!(
        bad.is_empty(),
        "front-end reaches into rules:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_checker_sees_a_violation_and_skips_comments() {
    // The tests above are only worth something if they can fail: a file
    // that imports a grammar is caught by the same scan, a comment is not.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.rs");
    std::fs::write(
        &bad,
        "//! Built from `tree_sitter` trees by the front-end.\nuse tree_sitter::Node as TsNode;\n",
    )
    .unwrap();
    let found = violations(&[bad], FORBIDDEN);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].ends_with(":2: tree_sitter"), "{found:?}");
}
