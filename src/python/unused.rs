//! Agent-framework tools nothing hands to a model. LangChain's `@tool` and
//! the OpenAI Agents SDK's `@function_tool` make a tool object of the
//! function; it reaches a model only through a list (`tools=[search]`,
//! `llm.bind_tools([search])`) that names it. A decorated function whose
//! name no Python code of the scan mentions again — its only list
//! commented out, say — is never offered, when the project does name its
//! other tools (a library of tools names none: others import them).

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use crate::model::{ToolDef, ToolFormat};
use crate::source::SourceFile;

/// The server names (see `framework_decorator`) whose tools exist only
/// through a reference to the decorated function.
const BY_REFERENCE: &[&str] = &["langchain", super::STRICT_AGENTS, "agents-lax"];

/// Calls that collect tools without naming them (`inspect.getmembers`,
/// `globals()`, `vars(module)`, `dir(module)`): when any file makes one,
/// every tool may be offered.
const INTROSPECTION: &[&str] = &["getmembers", "globals", "vars", "dir"];

/// The tools (by file and start) of `tools` made by a framework decorator
/// whose function name appears in no Python text of `texts` (comments and
/// imports aside; strings count) besides its own `def` line, when code
/// outside strings names at least one other such tool.
pub fn unreferenced<'a>(
    tools: &[ToolDef],
    texts: impl Iterator<Item = &'a Arc<SourceFile>>,
) -> Vec<(PathBuf, usize)> {
    let candidates: Vec<(&ToolDef, &str)> = tools
        .iter()
        .filter(|t| t.format == ToolFormat::PythonFunction)
        .filter(|t| {
            t.group
                .rsplit_once('#')
                .is_some_and(|(_, server)| BY_REFERENCE.contains(&server))
        })
        // The decorator form: the definition starts at its `@`.
        .filter(|t| t.file.text[t.span.start..].starts_with('@'))
        .filter_map(|t| Some((t, t.handler.as_ref()?.name.as_str())))
        .collect();
    if candidates.is_empty() {
        return Vec::new();
    }
    let files: Vec<(&Arc<SourceFile>, Lines)> = texts.map(|f| (f, Lines::of(&f.text))).collect();
    if files
        .iter()
        .flat_map(|(_, l)| &l.bare)
        .any(|l| INTROSPECTION.iter().any(|c| collects(l, c)))
    {
        return Vec::new();
    }
    // Where each candidate's name stands, by view: (file, line) pairs,
    // gathered in one pass over the words of every line.
    let names: HashSet<&str> = candidates.iter().map(|(_, n)| *n).collect();
    let index = |strings: bool| {
        let mut at: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
        for (fi, (_, lines)) in files.iter().enumerate() {
            let lines = if strings { &lines.code } else { &lines.bare };
            for (li, l) in lines.iter().enumerate() {
                for w in l.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                    if let Some(n) = names.get(w) {
                        at.entry(n).or_default().push((fi, li));
                    }
                }
            }
        }
        at
    };
    let (in_code, anywhere) = (index(false), index(true));
    // Is `name` of tool `t` on a line of the scan, its own `def` aside?
    let used = |strings: bool, t: &ToolDef, name: &str| {
        let def = format!("def {name}(");
        let at = if strings { &anywhere } else { &in_code };
        at.get(name).is_some_and(|places| {
            places.iter().any(|&(fi, li)| {
                let (f, lines) = &files[fi];
                let line = if strings {
                    &lines.code[li]
                } else {
                    &lines.bare[li]
                };
                !(f.path == t.file.path && line.contains(&def))
            })
        })
    };
    // A project whose code names none of its tools hands them to no list
    // of its own: a library of tools for others to import.
    if !candidates.iter().any(|(t, name)| used(false, t, name)) {
        return Vec::new();
    }
    candidates
        .iter()
        .filter(|(t, name)| !used(true, t, name))
        .map(|(t, _)| (t.file.path.clone(), t.span.start))
        .collect()
}

/// A file's lines without comments and imports (an import names a tool
/// without using it): `code` keeps string literals, `bare` blanks them
/// (docstrings included); `comments` holds each line's comment, `#` on.
pub(super) struct Lines {
    pub(super) code: Vec<String>,
    pub(super) bare: Vec<String>,
    pub(super) comments: Vec<String>,
}

impl Lines {
    pub(super) fn of(text: &str) -> Lines {
        let b = text.as_bytes();
        let (mut code, mut bare): (Vec<Vec<u8>>, Vec<Vec<u8>>) =
            (vec![Vec::new()], vec![Vec::new()]);
        let mut comments: Vec<String> = Vec::new();
        // The open string: its quote and whether it is triple.
        let mut quote: Option<(u8, bool)> = None;
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            let (Some(line), Some(bare_line)) = (code.last_mut(), bare.last_mut()) else {
                break;
            };
            if c == b'\n' {
                code.push(Vec::new());
                bare.push(Vec::new());
                if quote.is_some_and(|(_, triple)| !triple) {
                    quote = None;
                }
                i += 1;
                continue;
            }
            match quote {
                Some((q, triple)) => {
                    let n = if c == b'\\' && b.get(i + 1).is_some_and(|&n| n != b'\n') {
                        2
                    } else if c == q && (!triple || b[i..].starts_with(&[q, q, q])) {
                        quote = None;
                        if triple { 3 } else { 1 }
                    } else {
                        1
                    };
                    line.extend_from_slice(&b[i..i + n]);
                    bare_line.extend(std::iter::repeat_n(b' ', n));
                    i += n;
                }
                None if c == b'#' => {
                    let end = b[i..]
                        .iter()
                        .position(|&x| x == b'\n')
                        .map_or(b.len(), |p| i + p);
                    comments.resize(code.len(), String::new());
                    comments[code.len() - 1] = String::from_utf8_lossy(&b[i..end]).into_owned();
                    i = end;
                }
                None => {
                    let n = if c == b'"' || c == b'\'' {
                        let triple = b[i..].starts_with(&[c, c, c]);
                        quote = Some((c, triple));
                        if triple { 3 } else { 1 }
                    } else {
                        1
                    };
                    line.extend_from_slice(&b[i..i + n]);
                    bare_line.extend_from_slice(&b[i..i + n]);
                    i += n;
                }
            }
        }
        let text = |l: Vec<u8>| String::from_utf8_lossy(&l).into_owned();
        let mut code: Vec<String> = code.into_iter().map(text).collect();
        let mut bare: Vec<String> = bare.into_iter().map(text).collect();
        // Imports and `__all__` (which exports a name for import) are not uses.
        let blank: Vec<std::ops::Range<usize>> = {
            let lines: Vec<&str> = bare.iter().map(String::as_str).collect();
            let mut blank = super::import_statements(&lines);
            blank.extend(export_lists(&lines));
            blank
        };
        for i in blank.into_iter().flatten() {
            code[i].clear();
            bare[i].clear();
        }
        comments.resize(code.len(), String::new());
        Lines {
            code,
            bare,
            comments,
        }
    }
}

/// The statements that build the module's `__all__` (`__all__ = [..]`,
/// `__all__ += [..]`, `__all__.extend(..)`), as ranges of `lines`, string
/// literals blanked: to the line where its brackets close.
fn export_lists(lines: &[&str]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let start = i;
        i += 1;
        let Some(rest) = lines[start].strip_prefix("__all__") else {
            continue;
        };
        let rest = rest.trim_start();
        if !(rest.starts_with('=') || rest.starts_with("+=") || rest.starts_with('.')) {
            continue;
        }
        let depth = |l: &str| {
            l.chars().fold(0i64, |d, c| match c {
                '[' | '(' | '{' => d + 1,
                ']' | ')' | '}' => d - 1,
                _ => d,
            })
        };
        let mut open = depth(lines[start]);
        while open > 0 && i < lines.len() {
            open += depth(lines[i]);
            i += 1;
        }
        out.push(start..i);
    }
    out
}

/// Does `line` call `name` to collect what it returns, not only to test
/// membership (`"get_logger" in globals()` collects nothing;
/// `for f in globals().values()` does)?
fn collects(line: &str, name: &str) -> bool {
    identifier_at(line, name).any(|end| {
        let start = end - name.len();
        let rest = line[end..].trim_start();
        let Some(after) = rest.strip_prefix('(') else {
            return false;
        };
        let before = line[..start].trim_end();
        let membership = (before == "in" || before.ends_with(" in") || before.ends_with("(in"))
            && after
                .trim_start()
                .strip_prefix(')')
                .is_some_and(|a| !a.trim_start().starts_with(['.', '[']));
        !membership
    })
}

/// Where each whole-identifier occurrence of `name` in `line` ends.
fn identifier_at<'a>(line: &'a str, name: &'a str) -> impl Iterator<Item = usize> + 'a {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    line.match_indices(name).filter_map(move |(i, _)| {
        let end = i + name.len();
        let before = line[..i].chars().next_back();
        let after = line[end..].chars().next();
        (!before.is_some_and(ident) && !after.is_some_and(ident)).then_some(end)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_strings_and_identifiers() {
        let l = Lines::of(
            "from t import (\n    a,\n)\nimport b\nx = [a, b]  # c\ny = '#not' # yes\n\"\"\"Doc\nabout a\n\"\"\"\n",
        );
        assert_eq!(
            l.code,
            [
                "",
                "",
                "",
                "",
                "x = [a, b]  ",
                "y = '#not' ",
                "\"\"\"Doc",
                "about a",
                "\"\"\"",
                ""
            ]
        );
        assert_eq!(l.bare[5].trim_end(), "y = '");
        assert_eq!(l.bare[7].trim(), "");
        let exports = [
            "__all__ = [",
            "    \"a\",",
            "]",
            "x = 1",
            "__all__ += [\"b\"]",
            "__all__.extend((\"c\",",
            "  \"d\"))",
            "__all_names = [1]",
        ];
        assert_eq!(export_lists(&exports), [0..3, 4..5, 5..7]);
        assert!(collects("names = dir(tools_module)", "dir"));
        assert!(!collects("for f in os.listdir(path):", "dir"));
        assert!(!collects("out_dir = tmp", "dir"));
        assert!(collects("for f in globals().values():", "globals"));
        assert!(collects("tools = [globals()[n] for n in NAMES]", "globals"));
        assert!(!collects(
            "log = get_log() if \"get_log\" in globals() else None",
            "globals"
        ));
        assert!(collects("tools = vars(module)", "vars"));
    }
}
