//! Whether a text names a Python script to run: `python src/k8s.py`,
//! `fastmcp run k8s.py:mcp`, `python -m pkg.k8s`, `"pkg.k8s:main"` in
//! `pyproject.toml`, `args: ["-m", "pkg.k8s"]` in an MCP client's config.
//! The scan uses it to tell a server someone starts from one nothing does.

use std::path::Path;

/// The dotted module names `path` can be imported or run by (`k8s`,
/// `src.k8s`, `app.src.k8s`: its stem, then with up to three folders),
/// while each part is an identifier.
pub fn module_names(path: &Path) -> Vec<String> {
    let mut parts: Vec<&str> = Vec::new();
    let stem = path.file_stem().and_then(|s| s.to_str());
    let folders = path
        .parent()
        .into_iter()
        .flat_map(|p| p.components().rev())
        .map(|c| c.as_os_str().to_str());
    let mut out = Vec::new();
    for part in std::iter::once(stem).chain(folders).take(4) {
        match part {
            Some(p) if is_identifier(p) => parts.insert(0, p),
            _ => break,
        }
        out.push(parts.join("."));
    }
    out
}

fn is_identifier(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// Does `text` name the script `file_name` (`k8s.py`) or one of its
/// `modules` ([`module_names`]) as something to run or import? Lines that
/// are Python comments are left out when `python` is set (a launch
/// commented out starts nothing).
pub fn names_script(text: &str, file_name: &str, modules: &[String], python: bool) -> bool {
    text.lines()
        .filter(|l| !(python && l.trim_start().starts_with('#')))
        .any(|l| {
            words_at(l, file_name).any(|(before, after)| {
                !before.ends_with(is_name_char) && !after.starts_with(is_name_char)
            }) || modules.iter().any(|m| {
                words_at(l, m).any(|(before, after)| {
                    if before.ends_with(|c: char| is_name_char(c) || c == '.') {
                        return false;
                    }
                    let quoted = before.ends_with(['"', '\''])
                        && after.starts_with(before.chars().last().unwrap_or('"'));
                    let entry_point = after
                        .strip_prefix(':')
                        .is_some_and(|a| a.starts_with(|c: char| c.is_alphabetic() || c == '_'));
                    let run = before.trim_end().ends_with("-m") && !after.starts_with(is_name_char);
                    quoted || entry_point || run
                })
            })
        })
}

/// The words of `text` made of letters, digits and `_`.
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}

/// Each place `word` occurs in `line`: the text before it and after it.
fn words_at<'a>(line: &'a str, word: &'a str) -> impl Iterator<Item = (&'a str, &'a str)> + 'a {
    line.match_indices(word)
        .map(move |(i, w)| (&line[..i], &line[i + w.len()..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_of_a_text() {
        let found: Vec<&str> = words("python -m src.k8s_tools:main # k8s-mcp").collect();
        assert_eq!(
            found,
            ["python", "m", "src", "k8s_tools", "main", "k8s", "mcp"]
        );
    }

    fn names(text: &str, python: bool) -> bool {
        let path = Path::new("proj/src/k8s.py");
        names_script(text, "k8s.py", &module_names(path), python)
    }

    #[test]
    fn modules_of_a_path() {
        assert_eq!(
            module_names(Path::new("a-b/proj/src/k8s.py")),
            ["k8s", "src.k8s", "proj.src.k8s"]
        );
        assert!(module_names(Path::new("my-server.py")).is_empty());
    }

    #[test]
    fn launches() {
        assert!(names("python src/k8s.py", false));
        assert!(names("fastmcp run k8s.py:mcp", false));
        assert!(names("CMD [\"python\", \"k8s.py\"]", false));
        assert!(names("python -m src.k8s", false));
        assert!(names("k8s-tool = \"proj.src.k8s:main\"", false));
        assert!(names("args=[\"-m\", \"src.k8s\"]", true));
    }

    #[test]
    fn not_launches() {
        assert!(!names("docker pull me/k8s-mcp-server", false));
        assert!(!names("python my_k8s.py", false));
        assert!(!names("\"k8s-mcp-server\": {", false));
        assert!(!names("# python src/k8s.py", true));
        assert!(names("# python src/k8s.py", false));
        assert!(!names("import k8s_client", true));
        assert!(!names("see the k8s docs", false));
    }
}
