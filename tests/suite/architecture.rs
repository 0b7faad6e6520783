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

#[test]
fn rules_model_and_linker_import_no_grammar_or_front_end() {
    let mut files = Vec::new();
    for p in NEUTRAL {
        let path = root().join(p);
        assert!(path.exists(), "{p} is gone: update NEUTRAL");
        rust_files(&path, &mut files);
    }
    assert!(files.len() > 20, "found only {} files", files.len());
    let mut bad = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (i, line) in text.lines().enumerate() {
            // Prose may name a front-end (`crate::rust::link` builds it).
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            for word in FORBIDDEN {
                if code.contains(word) {
                    bad.push(format!("{}:{}: {word}", f.display(), i + 1));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "language-specific code in neutral files:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_checker_sees_a_violation() {
    // The test above is only worth something if it can fail: a line that
    // imports a grammar is caught by the same scan.
    let line = "use tree_sitter::Node as TsNode;";
    assert!(FORBIDDEN.iter().any(|w| line.contains(w)));
}
