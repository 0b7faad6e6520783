//! Python code nothing runs.
//!
//! Top-level functions that only a commented-out call reaches. A tool
//! list returned by `get_search_tools()` is offered only if something
//! calls it; when its one call is commented out (`# tools.extend(
//! get_search_tools())`), it is not, and neither is anything only it calls.
//! Names are matched as words, across every Python file of the scan, so a
//! name used anywhere else (code or string) keeps the function alive; a
//! function nothing mentions at all is left alone (a library's API is
//! called from outside the scan).
//!
//! Modules that only define things ([`only_defines`]): imported by
//! nothing, they do nothing (the engine's `modules_nothing_runs`).

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use super::scripts::words;
use super::unused::Lines;
use crate::source::{SourceFile, Span};

/// Set-up calls a module makes on import, script or not.
const SET_UP: &[&str] = &[
    "logging.",
    "warnings.",
    "load_dotenv(",
    "dotenv.load_dotenv(",
    "sys.path.",
    "os.environ",
    "nest_asyncio.apply(",
];

/// Does a module only define things at its top level (imports, functions,
/// classes, decorators, assignments, import guards, set-up calls such as
/// `logging.basicConfig(..)`), so that it does nothing unless imported? A
/// bare call (`main()`, `st.title(..)`) or an `if __name__ == "__main__":`
/// makes it a script.
pub fn only_defines(text: &str) -> bool {
    let lines = Lines::of(text);
    lines
        .bare
        .iter()
        .filter(|l| l.starts_with(|c: char| !c.is_whitespace()))
        .all(|l| {
            let l = l.trim_end();
            let word = l
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .unwrap_or_default();
            matches!(
                word,
                "def"
                    | "async"
                    | "class"
                    | "try"
                    | "except"
                    | "else"
                    | "finally"
                    | "import"
                    | "from"
            ) || l.starts_with(['@', ')', ']', '}', '"', '\''])
                || SET_UP.iter().any(|p| l.starts_with(p))
                || l == "if TYPE_CHECKING:"
                || (!word.is_empty() && {
                    // `NAME = ..`, `NAME: T = ..`, `a, b = ..`
                    let rest = l[word.len()..].trim_start();
                    (rest.starts_with('=') && !rest.starts_with("=="))
                        || rest.starts_with(':')
                        || rest.starts_with(',')
                        || rest.starts_with("+=")
                })
        })
}

/// A function: the index of its file, and its name.
type Key<'a> = (usize, &'a str);

/// The names called in `text` (`f` and `g` in `x.f(g(1))`).
fn called_names(text: &str) -> impl Iterator<Item = &str> {
    text.match_indices('(').filter_map(move |(i, _)| {
        let before = &text[..i];
        let start = before
            .char_indices()
            .rev()
            .find(|&(_, c)| !(c.is_alphanumeric() || c == '_'))
            .map_or(0, |(j, c)| j + c.len_utf8());
        (start < i).then(|| &text[start..i])
    })
}

/// A top-level `def` of one file: its name, its lines, and whether a
/// decorator registers it (a registered function is called by its
/// framework, not by name).
struct Def {
    name: String,
    lines: std::ops::Range<usize>,
    decorated: bool,
}

/// The top-level functions, among those holding one of `inside` (a file's
/// path and a byte offset in it), that only a commented-out call reaches,
/// directly or through other such functions: each function's file, span
/// and name.
pub fn commented_out_functions<'a>(
    files: impl Iterator<Item = &'a Arc<SourceFile>>,
    inside: &[(PathBuf, usize)],
) -> Vec<(PathBuf, Span, String)> {
    let files: Vec<&Arc<SourceFile>> = files.collect();
    // A byte-level look first: some comment must call a function some file
    // defines (`# tools.extend(get_search_tools())`, `def get_search_tools(`).
    let mut called: HashSet<&str> = HashSet::new();
    for f in &files {
        for l in f.text.lines() {
            if let Some((_, c)) = l.split_once('#') {
                called.extend(called_names(c));
            }
        }
    }
    if !called
        .iter()
        .any(|n| files.iter().any(|f| f.text.contains(&format!("def {n}("))))
    {
        return Vec::new();
    }
    let lex = |f: &SourceFile| {
        let lines = Lines::of(&f.text);
        let defs = top_level_defs(&lines.bare);
        (lines, defs)
    };
    // Only a tool inside a top-level function needs the whole scan lexed.
    let holds = |f: &SourceFile, defs: &[Def]| {
        inside
            .iter()
            .filter(|(p, _)| *p == f.path)
            .any(|&(_, at)| defs.iter().any(|d| d.lines.contains(&f.line_index(at))))
    };
    let mut lexed: Vec<Option<(Lines, Vec<Def>)>> = files
        .iter()
        .map(|f| inside.iter().any(|(p, _)| *p == f.path).then(|| lex(f)))
        .collect();
    let any_held = files
        .iter()
        .zip(&lexed)
        .any(|(f, l)| l.as_ref().is_some_and(|(_, defs)| holds(f, defs)));
    if !any_held {
        return Vec::new();
    }
    let lexed: Vec<(Lines, Vec<Def>)> = files
        .iter()
        .zip(lexed.iter_mut())
        .map(|(f, l)| l.take().unwrap_or_else(|| lex(f)))
        .collect();
    // A function is keyed by its file and name. A name in the file that
    // defines it is that file's function (Python's module scope); in another
    // file, it may be any function of that name.
    let mut by_name: HashMap<&str, Vec<Key>> = HashMap::new();
    for (fi, (_, defs)) in lexed.iter().enumerate() {
        for d in defs {
            by_name
                .entry(d.name.as_str())
                .or_default()
                .push((fi, d.name.as_str()));
        }
    }
    let targets = |fi: usize, name: &str| -> Vec<Key> {
        let all = by_name.get(name).map(Vec::as_slice).unwrap_or_default();
        match all.iter().find(|(f, _)| *f == fi) {
            Some(&own) => vec![own],
            None => all.to_vec(),
        }
    };
    // Every mention of a known name, once per file, name and the function
    // it is in (None: the module, a class, `if __name__ == "__main__"`).
    let mut seen: HashSet<(usize, &str, Option<usize>)> = HashSet::new();
    let mut commented: HashSet<Key> = HashSet::new();
    for (fi, (lines, defs)) in lexed.iter().enumerate() {
        let mut owner: Vec<Option<usize>> = vec![None; lines.code.len()];
        for (di, d) in defs.iter().enumerate() {
            for o in
                &mut owner[d.lines.start.min(lines.code.len())..d.lines.end.min(lines.code.len())]
            {
                *o = Some(di);
            }
        }
        for (li, line) in lines.code.iter().enumerate() {
            let within = owner[li];
            for w in words(line) {
                let Some((&name, _)) = by_name.get_key_value(w) else {
                    continue;
                };
                // Its own `def` line.
                if within.is_some_and(|di| defs[di].name == name && defs[di].lines.start == li) {
                    continue;
                }
                seen.insert((fi, name, within));
            }
        }
        for c in &lines.comments {
            for w in words(c).filter(|w| by_name.contains_key(w)) {
                if c.contains(&format!("{w}(")) {
                    commented.extend(targets(fi, w));
                }
            }
        }
    }
    // Each mention as edges: the function it may stand for, and where it is.
    let mut edges: Vec<(Key, Option<Key>)> = Vec::new();
    for &(fi, name, within) in &seen {
        let at = within.map(|di| (fi, lexed[fi].1[di].name.as_str()));
        edges.extend(targets(fi, name).into_iter().map(|k| (k, at)));
    }
    edges.sort_unstable();
    edges.dedup();
    // Alive: registered by a decorator, mentioned outside every function,
    // or mentioned in an alive function.
    let mut alive: HashSet<Key> = lexed
        .iter()
        .enumerate()
        .flat_map(|(fi, (_, defs))| {
            defs.iter()
                .filter(|d| d.decorated)
                .map(move |d| (fi, d.name.as_str()))
        })
        .collect();
    loop {
        let before = alive.len();
        for (to, at) in &edges {
            if at.is_none_or(|k| alive.contains(&k)) {
                alive.insert(*to);
            }
        }
        if alive.len() == before {
            break;
        }
    }
    // Dead: a commented-out call and no live one, or mentioned only in dead
    // functions.
    let mut dead: HashSet<Key> = commented.difference(&alive).copied().collect();
    let mut from: HashMap<Key, Vec<Option<Key>>> = HashMap::new();
    for (to, at) in &edges {
        if !alive.contains(to) {
            from.entry(*to).or_default().push(*at);
        }
    }
    loop {
        let more: Vec<Key> = from
            .iter()
            .filter(|(k, _)| !dead.contains(*k))
            .filter(|(_, at)| at.iter().all(|a| a.is_some_and(|a| dead.contains(&a))))
            .map(|(k, _)| *k)
            .collect();
        if more.is_empty() {
            break;
        }
        dead.extend(more);
    }
    let mut out = Vec::new();
    for (fi, (f, (_, defs))) in files.iter().zip(&lexed).enumerate() {
        for d in defs
            .iter()
            .filter(|d| dead.contains(&(fi, d.name.as_str())))
        {
            let holds_tool = inside
                .iter()
                .any(|(p, at)| *p == f.path && d.lines.contains(&f.line_index(*at)));
            if holds_tool {
                let start = f.line_range(d.lines.start).start;
                let end = f.line_range(d.lines.end - 1).end;
                out.push((f.path.clone(), Span::new(start, end), d.name.clone()));
            }
        }
    }
    out.sort_by(|a, b| (&a.0, a.1.start).cmp(&(&b.0, b.1.start)));
    out
}

/// The top-level functions of a file, from its lines with strings and
/// comments blanked: a `def` at column 0 runs to the next line that starts
/// at column 0 (a closing bracket of its signature aside).
fn top_level_defs(bare: &[String]) -> Vec<Def> {
    let mut out: Vec<Def> = Vec::new();
    let mut decorated = false;
    for (i, l) in bare.iter().enumerate() {
        let starts_block = l.starts_with(|c: char| !c.is_whitespace() && !")]}".contains(c));
        if !starts_block {
            continue;
        }
        if let Some(open) = out.last_mut()
            && open.lines.end == usize::MAX
        {
            open.lines.end = i;
        }
        let def = l
            .strip_prefix("async ")
            .unwrap_or(l)
            .strip_prefix("def ")
            .and_then(|r| r.split_once('('))
            .map(|(name, _)| name.trim());
        match def {
            Some(name) if !name.is_empty() => out.push(Def {
                name: name.to_string(),
                lines: i..usize::MAX,
                decorated: std::mem::take(&mut decorated),
            }),
            _ => decorated = l.starts_with('@'),
        }
    }
    if let Some(open) = out.last_mut()
        && open.lines.end == usize::MAX
    {
        open.lines.end = bare.len();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, text: &str) -> Arc<SourceFile> {
        Arc::new(SourceFile::new(PathBuf::from(path), path.to_string(), text))
    }

    fn text(lines: &[&str]) -> String {
        lines.join("\n") + "\n"
    }

    fn schemas() -> String {
        text(&[
            "import mcp.types as types",
            "",
            "def get_search_tools():",
            "    return [types.Tool(name=\"search\", inputSchema={})]",
            "",
            "def get_all_search_tools():",
            "    tools = []",
            "    tools.extend(get_search_tools())",
            "    return tools",
            "",
            "def get_chroma_tools():",
            "    return [types.Tool(name=\"query\", inputSchema={})]",
        ])
    }

    fn dead_names(server: &[&str]) -> Vec<String> {
        let src = schemas();
        let at = |s: &str| src.find(s).unwrap();
        let inside = [
            (PathBuf::from("tools/schemas.py"), at("\"search\"")),
            (PathBuf::from("tools/schemas.py"), at("\"query\"")),
        ];
        let schemas = file("tools/schemas.py", &src);
        let server = file("server.py", &text(server));
        commented_out_functions([&schemas, &server].into_iter(), &inside)
            .into_iter()
            .map(|(_, _, n)| n)
            .collect()
    }

    #[test]
    fn only_a_commented_out_call() {
        let server = [
            "from tools.schemas import get_all_search_tools, get_chroma_tools",
            "",
            "def all_tools():",
            "    tools = get_chroma_tools()",
            "    # tools.extend(get_all_search_tools())",
            "    return tools",
            "",
            "@server.list_tools()",
            "async def list_tools():",
            "    return all_tools()",
        ];
        assert_eq!(dead_names(&server), ["get_search_tools"]);
    }

    #[test]
    fn a_live_call_beside_the_comment() {
        let server = [
            "from tools.schemas import get_all_search_tools, get_chroma_tools",
            "",
            "# tools.extend(get_all_search_tools())",
            "TOOLS = get_chroma_tools() + get_all_search_tools()",
        ];
        assert!(dead_names(&server).is_empty());
    }

    #[test]
    fn a_live_namesake_in_another_module() {
        // `other.py` defines and calls its own `get_search_tools`: the
        // schemas module's function of that name is still reached only
        // through the commented-out call.
        let src = schemas();
        let other = file(
            "other.py",
            &text(&[
                "def get_search_tools():",
                "    return []",
                "",
                "TOOLS = get_search_tools()",
            ]),
        );
        let server = file(
            "server.py",
            &text(&[
                "from tools.schemas import get_all_search_tools",
                "# get_all_search_tools()",
            ]),
        );
        let schemas = file("tools/schemas.py", &src);
        let inside = [(
            PathBuf::from("tools/schemas.py"),
            src.find("\"search\"").unwrap(),
        )];
        let dead = commented_out_functions([&schemas, &other, &server].into_iter(), &inside);
        assert_eq!(dead.len(), 1);
        assert_eq!(dead[0].2, "get_search_tools");
        assert_eq!(dead[0].0, PathBuf::from("tools/schemas.py"));
    }

    #[test]
    fn no_comment_is_a_library() {
        let server = [
            "from tools.schemas import get_chroma_tools",
            "TOOLS = get_chroma_tools()",
        ];
        assert!(dead_names(&server).is_empty());
    }

    #[test]
    fn modules_that_only_define() {
        let lib = text(&[
            "\"\"\"A client.\"\"\"",
            "import json",
            "from typing import TYPE_CHECKING",
            "if TYPE_CHECKING:",
            "    import x",
            "TIMEOUT: int = 30",
            "log = logging.getLogger(__name__)",
            "@dataclass",
            "class Client:",
            "    def run(self):",
            "        main()",
            "try:",
            "    import fast",
            "except ImportError:",
            "    fast = None",
        ]);
        assert!(only_defines(&lib));
        assert!(!only_defines(&text(&[
            "import streamlit as st",
            "st.title(\"x\")"
        ])));
        assert!(!only_defines(&text(&[
            "def main():",
            "    pass",
            "if __name__ == \"__main__\":",
            "    main()"
        ])));
        assert!(only_defines(&text(&[
            "load_dotenv()",
            "logging.basicConfig(level=1)"
        ])));
        assert!(!only_defines(&text(&["main()"])));
    }

    #[test]
    fn names_called() {
        let names: Vec<&str> = called_names(" tools.extend(get_tools()) and (x)").collect();
        assert_eq!(names, ["extend", "get_tools"]);
        let names: Vec<&str> = called_names(" 格式：ChestPropID(宝箱PropID) → f（x）").collect();
        assert_eq!(names, ["ChestPropID"]);
    }

    #[test]
    fn defs_of_a_file() {
        let bare: Vec<String> = [
            "@app.get('/')",
            "def index(",
            "    a,",
            ") -> str:",
            "    return a",
            "x = 1",
            "async def run():",
            "    pass",
        ]
        .map(String::from)
        .to_vec();
        let defs = top_level_defs(&bare);
        assert_eq!(defs.len(), 2);
        assert_eq!(
            (
                defs[0].name.as_str(),
                defs[0].lines.clone(),
                defs[0].decorated
            ),
            ("index", 1..5, true)
        );
        assert_eq!(
            (
                defs[1].name.as_str(),
                defs[1].lines.clone(),
                defs[1].decorated
            ),
            ("run", 6..8, false)
        );
    }
}
