//! Tools the scan finds but no model is offered, set aside with a note
//! naming each file and why: API documents, schemas and examples beside
//! code, templates, stale or shadowed modules, lists and framework tools
//! nothing names, small servers nothing starts. Each pass leaves out the
//! tools and the findings inside what it sets aside.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::read_capped;
use crate::discover::{self, Candidate, FileKind};
use crate::model::{Diagnostic, Notification, Severity, ToolDef, ToolFormat};
use crate::source::SourceFile;
use crate::syntax::{Node, json};

/// An OpenAPI document in a scan that also finds tools written another way
/// (code, manifests) is the API those tools call, or a copy of one, not a
/// tool list: MCP servers keep their backend's spec beside the code, and
/// converters that do offer it (`FastMCP.from_openapi`) name operations
/// without an `operationId` from their summary. Its operations leave the
/// inventory with their findings, and a note says which documents were
/// set aside. Alone (a Bedrock action group, a ChatGPT Action's spec), a
/// document is a tool list.
pub(super) fn api_documents_beside_tools(
    tools: &mut Vec<ToolDef>,
    diagnostics: &mut Vec<Diagnostic>,
    notifications: &mut Vec<Notification>,
) {
    let is_api = |t: &ToolDef| t.format == ToolFormat::OpenApi;
    documents_beside(
        tools,
        diagnostics,
        notifications,
        |t| !is_api(t),
        is_api,
        "OpenAPI document read as the API the tools call, not as a tool list: the scan found tools in code or manifests",
    );
}

/// A tool defined in source code (not a manifest).
fn in_code(t: &ToolDef) -> bool {
    matches!(
        t.file.path.extension().and_then(|e| e.to_str()),
        Some("rs" | "py")
    )
}

/// A JSON document whose root is itself a JSON Schema (it declares a
/// json-schema.org `$schema`) and that holds tool definitions is a contract
/// or design document describing tools (`specs/…/contracts/tool-metadata-
/// schema.json`, its `$ref`s resolved against the document), not a list a
/// program offers. When the scan finds tools in source code, its tools and
/// their findings are set aside with a note; alone, it is read as a tool
/// list.
pub(super) fn schema_documents_beside_code(
    tools: &mut Vec<ToolDef>,
    diagnostics: &mut Vec<Diagnostic>,
    notifications: &mut Vec<Notification>,
) {
    // The file is parsed again only when it names a dialect at all.
    let is_contract = |t: &ToolDef| {
        t.file.path.extension().and_then(|e| e.to_str()) == Some("json")
            && t.file.text.contains("json-schema.org")
            && matches!(json::parse(&t.file.text), Ok(Some(root))
                if root.get("$schema").and_then(Node::as_str).is_some_and(|s| s.contains("json-schema.org")))
    };
    documents_beside(
        tools,
        diagnostics,
        notifications,
        in_code,
        is_contract,
        "a JSON Schema document (its root declares `$schema`) that describes tools, read as a contract, not a tool list: the scan found the tools in source code",
    );
}

/// The display paths of manifests with tools found under a documentation
/// folder (`docs/concept/tool_definitions.json`; `in_docs`) whose file name
/// no source file of the scan mentions (`texts`): nothing loads them.
pub(super) fn unnamed_doc_manifests<'a>(
    tools: &[ToolDef],
    in_docs: &std::collections::BTreeSet<&Path>,
    texts: impl Iterator<Item = &'a str>,
) -> std::collections::BTreeSet<String> {
    let mut docs: std::collections::BTreeSet<String> = tools
        .iter()
        .filter(|t| !in_code(t) && !t.format.is_reference())
        .filter(|t| in_docs.contains(t.file.path.as_path()))
        .map(|t| t.file.display.to_string())
        .collect();
    if docs.is_empty() {
        return docs;
    }
    for text in texts {
        docs.retain(|d| {
            let name = d.rsplit('/').next().unwrap_or(d);
            !text.contains(name)
        });
        if docs.is_empty() {
            break;
        }
    }
    docs
}

/// Manifests under a documentation folder that no source file names
/// (`docs`, from [`unnamed_doc_manifests`]) show or copy tools rather than
/// offer them. When the scan finds tools in source code, their tools and
/// findings are set aside with a note; alone, they are read as tool lists.
pub(super) fn doc_manifests_beside_code(
    tools: &mut Vec<ToolDef>,
    diagnostics: &mut Vec<Diagnostic>,
    notifications: &mut Vec<Notification>,
    docs: &std::collections::BTreeSet<String>,
) {
    documents_beside(
        tools,
        diagnostics,
        notifications,
        in_code,
        |t| docs.contains(&*t.file.display),
        "tool list under a documentation folder that no source file names, read as documentation: the scan found the tools in source code",
    );
}

/// Tool code under a documentation folder (`docs_examples/retries.py`, a
/// copy of a framework's documented example; `in_docs`) shows how tools
/// are written, beside a project whose own tools are in code elsewhere:
/// its tools and findings are set aside with a note. Alone (a scan of the
/// examples themselves), it is checked.
pub(super) fn doc_code_beside_code(
    tools: &mut Vec<ToolDef>,
    diagnostics: &mut Vec<Diagnostic>,
    notifications: &mut Vec<Notification>,
    in_docs: &std::collections::BTreeSet<&Path>,
) {
    let in_doc = |t: &ToolDef| in_docs.contains(t.file.path.as_path());
    documents_beside(
        tools,
        diagnostics,
        notifications,
        |t| in_code(t) && !in_doc(t),
        |t| in_code(t) && in_doc(t),
        "tool code under a documentation folder, read as an example: the scan found the project's tools in code elsewhere",
    );
}

/// Templates (`tools/__template.py`, `tool-implementation-template.json`;
/// [`discover::is_template`]) beside a project's other tools are copied
/// from, not loaded: their tools and findings are set aside with a note.
/// Alone (a scan of the template), they are checked.
pub(super) fn templates_beside_tools(
    tools: &mut Vec<ToolDef>,
    diagnostics: &mut Vec<Diagnostic>,
    notifications: &mut Vec<Notification>,
) {
    let template = |t: &ToolDef| discover::is_template(&t.file.path);
    documents_beside(
        tools,
        diagnostics,
        notifications,
        |t| !template(t),
        template,
        "a template to copy tools from, not a module or list a server loads: the scan found the project's tools elsewhere",
    );
}

/// LangChain tools of a project whose agent is a text ReAct agent
/// (`initialize_agent(.., agent=AgentType.CONVERSATIONAL_REACT_DESCRIPTION)`)
/// and none that calls tools with keyed arguments: the model writes one
/// free-text input, handed whole to the tool's single parameter, so there
/// are no argument keys to drop (M102) and no parameter it fills by name
/// (M104); the tool names are written in the prompt, never sent to a
/// provider's tool API, so no provider rejects them (N101, N102). Those
/// findings are left out, with a note on each file.
pub(super) fn langchain_tools_of_text_agents(
    tools: &[ToolDef],
    diagnostics: &mut Vec<Diagnostic>,
    notifications: &mut Vec<Notification>,
) {
    let langchain: std::collections::BTreeSet<(&str, &str)> = tools
        .iter()
        .filter(|t| t.group.ends_with("#langchain"))
        .map(|t| (&*t.file.display, t.name.value.as_str()))
        .collect();
    let mut files = std::collections::BTreeSet::new();
    diagnostics.retain(|d| {
        let of_text_agent = matches!(d.code, "M102" | "M104" | "N101" | "N102")
            && d.tool
                .as_deref()
                .is_some_and(|n| langchain.contains(&(&*d.file.display, n)));
        if of_text_agent {
            files.insert(d.file.display.to_string());
        }
        !of_text_agent
    });
    note_files(
        notifications,
        files,
        "M102, M104, N101 and N102 not reported on LangChain tools here: the project's agent is a text ReAct agent, which names the tools in its prompt text (no provider API receives the names) and hands the model's one free-text input to the tool whole",
    );
}

/// Sets aside the files of the tools `is_doc` picks, with `why`, when some
/// other tool is one `beside` picks (references aside).
fn documents_beside(
    tools: &mut Vec<ToolDef>,
    diagnostics: &mut Vec<Diagnostic>,
    notifications: &mut Vec<Notification>,
    beside: impl Fn(&ToolDef) -> bool,
    is_doc: impl Fn(&ToolDef) -> bool,
    why: &str,
) {
    if !tools
        .iter()
        .any(|t| beside(t) && !is_doc(t) && !t.format.is_reference())
    {
        return;
    }
    let mut seen = std::collections::BTreeSet::new();
    let docs: std::collections::BTreeSet<String> = tools
        .iter()
        .filter(|t| seen.insert(&*t.file.display))
        .filter(|t| is_doc(t))
        .map(|t| t.file.display.to_string())
        .collect();
    set_aside_files(tools, diagnostics, notifications, docs, why);
}

/// Leaves out the tools and findings of `files` (by display path), with a
/// note on each saying why; nothing when `files` is empty.
pub(super) fn set_aside_files(
    tools: &mut Vec<ToolDef>,
    diagnostics: &mut Vec<Diagnostic>,
    notifications: &mut Vec<Notification>,
    files: std::collections::BTreeSet<String>,
    why: &str,
) {
    tools.retain(|t| !files.contains(&*t.file.display));
    diagnostics.retain(|d| !files.contains(&*d.file.display));
    note_files(notifications, files, why);
}

/// A note on each of `files` (display paths) saying `why`.
fn note_files(
    notifications: &mut Vec<Notification>,
    files: impl IntoIterator<Item = String>,
    why: &str,
) {
    notifications.extend(files.into_iter().map(|f| Notification {
        level: Severity::Note,
        path: Some(f),
        line: None,
        message: why.to_string(),
    }));
}

/// Tool lists in Python modules that nothing loads: a list bound to a
/// module-level name its own file never uses, in a module no other Python
/// file of the scan imports (by its name; tests aside), is generated or
/// left-over code, not offered to a model (`controllers/billing.py`
/// beside a server that imports none of them). Its tools and their
/// findings are set aside with a note. Not when any file imports by a
/// computed name (`importlib.import_module`), nor in a file named on the
/// command line.
pub(super) fn lists_nothing_imports(
    tools: &mut Vec<ToolDef>,
    diagnostics: &mut Vec<Diagnostic>,
    notifications: &mut Vec<Notification>,
    imports: &[(PathBuf, Vec<String>)],
    explicit: &[&Path],
) {
    let imported = |t: &ToolDef, module: &str| {
        explicit.contains(&t.file.path.as_path())
            || imports.iter().any(|(path, names)| {
                *path != t.file.path && names.binary_search_by(|n| n.as_str().cmp(module)).is_ok()
            })
    };
    let dormant: Vec<(String, crate::source::Span)> = tools
        .iter()
        .filter(|t| t.needs_import.as_deref().is_some_and(|m| !imported(t, m)))
        .map(|t| (t.file.display.to_string(), t.span))
        .collect();
    set_aside_spans(
        tools,
        diagnostics,
        notifications,
        &dormant,
        "tool list not checked: it is bound to a name nothing in its module uses, and no other Python file imports the module",
    );
}

/// A Python module with tools that no file of the scan imports, beside a
/// module of the same file name that one does (`k8s_client.py` at the root,
/// a stale copy of `src/k8s_client.py`, which `src/main.py` imports): its
/// tools register only when it is imported, so none is offered. Its tools
/// and findings are set aside with a note. Not a script (`__main__`), not
/// a file named on the command line; imports are resolved as Python does
/// from the importing file's folder and its parents (tests aside).
pub(super) fn stale_module_copies(
    tools: &mut Vec<ToolDef>,
    diagnostics: &mut Vec<Diagnostic>,
    notifications: &mut Vec<Notification>,
    import_paths: &[(PathBuf, Vec<Vec<String>>)],
    imports: &Imports,
    explicit: &[&Path],
) {
    let name_of = |p: &Path| p.file_name().map(|n| n.to_os_string());
    let mut seen = std::collections::BTreeSet::new();
    let mut stale = std::collections::BTreeSet::new();
    for t in tools.iter().filter(|t| in_code(t)) {
        if !seen.insert(&*t.file.display) || explicit.contains(&t.file.path.as_path()) {
            continue;
        }
        let Some(i) = imports.index.position(&t.file.path) else {
            continue;
        };
        if imports.imported(i) || t.file.text.contains("__main__") {
            continue;
        }
        let name = name_of(&t.file.path);
        let twin_imported = import_paths
            .iter()
            .enumerate()
            .any(|(j, (p, _))| j != i && name_of(p) == name && imports.imported(j));
        if twin_imported {
            stale.insert(t.file.display.to_string());
        }
    }
    set_aside_files(
        tools,
        diagnostics,
        notifications,
        stale,
        "tools not checked: no Python file of the scan imports this module, and the scan imports another module of the same name (a stale copy)",
    );
}

/// Python tool modules left out of their server: a module whose tools
/// register on a server object it imports from another module of the scan
/// (`from app.shared import mcp`, then `@mcp.tool()`) registers them only
/// when something imports it. When no Python file of the scan imports it,
/// while another module registering on the same object is imported, the
/// project picks its tool modules and has left this one out (`# from
/// app.tools import layers  # DISABLED`); only its tests, which are not
/// scanned, import it. Returns their files (display paths), to set aside.
/// Not when any file of the scan names the module's stem in an import,
/// resolved or not (the resolver may miss a route Python takes), nor when
/// the scan's Python code (comments aside) or a README, Dockerfile, script
/// or configuration names it ([`crate::python::scripts::names_script`]);
/// not a package's `__init__.py`, a script (`__main__`) or a file named on
/// the command line.
pub(super) fn tool_modules_left_out(
    tools: &[ToolDef],
    import_paths: &[(PathBuf, Vec<Vec<String>>)],
    imports: &Imports,
    explicit: &[&Path],
    sources: &[&SourceFile],
    launchers: &[PathBuf],
) -> std::collections::BTreeSet<String> {
    use crate::python::modules::Imported;
    // Each Python file with tools on an imported server object: the object
    // (its module's index and name), and whether the file is imported.
    let mut by_object: BTreeMap<(usize, &str), Vec<(usize, bool)>> = BTreeMap::new();
    let mut seen = std::collections::BTreeSet::new();
    for t in tools.iter().filter(|t| in_code(t)) {
        let Some((_, server)) = t.group.rsplit_once('#') else {
            continue;
        };
        // Each file and server object once (a file holds many tools).
        if !seen.insert((t.file.path.as_path(), server)) {
            continue;
        }
        let Some(i) = imports.index.position(&t.file.path) else {
            continue;
        };
        let made_elsewhere = import_paths[i].1.iter().find_map(|p| {
            match imports.index.resolve(&import_paths[i].0, p)? {
                Imported::Name(j, name) if j != i && name == server => Some(j),
                _ => None,
            }
        });
        if let Some(j) = made_elsewhere {
            by_object
                .entry((j, server))
                .or_default()
                .push((i, imports.imported(i)));
        }
    }
    let named_in_imports = |stem: &str| {
        import_paths
            .iter()
            .any(|(_, paths)| paths.iter().flatten().any(|part| part == stem))
    };
    let mut paths: Vec<&Path> = Vec::new();
    for files in by_object.values() {
        if !files.iter().any(|&(_, imported)| imported) {
            continue;
        }
        for &(i, _) in files.iter().filter(|(_, imported)| !imported) {
            let path = import_paths[i].0.as_path();
            let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
                continue;
            };
            let script = tools
                .iter()
                .find(|t| t.file.path == path)
                .is_none_or(|t| t.file.text.contains("__main__"));
            if !(stem == "__init__"
                || stem == "__main__"
                || script
                || explicit.contains(&path)
                || named_in_imports(stem)
                || paths.contains(&path))
            {
                paths.push(path);
            }
        }
    }
    if paths.is_empty() {
        return Default::default();
    }
    let paths = unnamed_in_launchers(unnamed_in_python(paths, sources), launchers);
    tools
        .iter()
        .filter(|t| paths.contains(&t.file.path.as_path()))
        .map(|t| t.file.display.to_string())
        .collect()
}

/// Tool lists a script of the scan captured from another server: a Python
/// file that asks a server for its tools (`client.list_tools()`) and writes
/// a file whose name matches the list's (`contract_root /
/// f"{version}.tools.json"` for `contracts/0.2.46.tools.json`) records
/// that server's surface, often trimmed on purpose (descriptions left out
/// of a fingerprint); the project offers the server itself, not the
/// record. Returns the lists' files (display paths), to set aside. The
/// name matches when the source holds it whole in a string, or a part of
/// it after a `.`, `-` or `_` right after an f-string hole (`}.tools.json"`).
pub(super) fn captured_tool_lists(
    tools: &[ToolDef],
    sources: &[&SourceFile],
) -> std::collections::BTreeSet<String> {
    let capturing: Vec<&str> = sources
        .iter()
        .map(|f| &*f.text)
        .filter(|t| t.contains("list_tools(") && WRITES.iter().any(|w| t.contains(w)))
        .collect();
    if capturing.is_empty() {
        return Default::default();
    }
    let mut out = std::collections::BTreeSet::new();
    let listed = |t: &&ToolDef| {
        matches!(
            t.file.path.extension().and_then(|e| e.to_str()),
            Some("json" | "yaml" | "yml")
        )
    };
    for t in tools.iter().filter(listed) {
        if out.contains(&*t.file.display) {
            continue;
        }
        let Some(name) = t.file.path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if capturing.iter().any(|text| writes_name(text, name)) {
            out.insert(t.file.display.to_string());
        }
    }
    out
}

/// Calls that write a file.
const WRITES: &[&str] = &["write_text(", "json.dump(", ".write("];

/// Does `text` hold the file name `name` in a string: whole after a quote
/// or `/`, or from a `.`, `-` or `_` on, right after an f-string hole?
fn writes_name(text: &str, name: &str) -> bool {
    let whole = ['"', '\'', '/'].iter().any(|q| {
        text.match_indices(name).any(|(i, _)| {
            text[..i].ends_with(*q) && text[i + name.len()..].starts_with(['"', '\''])
        })
    });
    whole
        || name
            .char_indices()
            .filter(|&(i, c)| i > 0 && matches!(c, '.' | '-' | '_'))
            .any(|(i, _)| {
                let part = &name[i..];
                // Not the bare extension: `}.json"` names any JSON file.
                Some(part)
                    != Path::new(name)
                        .extension()
                        .and_then(|e| e.to_str())
                        .map(|e| &name[name.len() - e.len() - 1..])
                    && [format!("}}{part}\""), format!("}}{part}'")]
                        .iter()
                        .any(|p| text.contains(p.as_str()))
            })
}

/// The scan's Python files (`import_paths`) and who imports each, resolved
/// as Python does from the importing file's folder and its parents: built
/// once, read by the passes that ask what nothing imports.
pub(super) struct Imports {
    index: crate::python::modules::Index,
    /// By file index: the files that import it.
    importers: Vec<Vec<usize>>,
}

impl Imports {
    pub(super) fn new(import_paths: &[(PathBuf, Vec<Vec<String>>)]) -> Imports {
        use crate::python::modules::{Imported, Index};
        let index = Index::new(import_paths.iter().map(|(p, _)| p.as_path()));
        let mut importers: Vec<Vec<usize>> = vec![Vec::new(); import_paths.len()];
        for (i, (path, paths)) in import_paths.iter().enumerate() {
            for p in paths {
                if let Some(Imported::Module(j) | Imported::Name(j, _)) = index.resolve(path, p)
                    && j != i
                    && !importers[j].contains(&i)
                {
                    importers[j].push(i);
                }
            }
        }
        Imports { index, importers }
    }

    /// Does another file of the scan import file `i`?
    fn imported(&self, i: usize) -> bool {
        !self.importers[i].is_empty()
    }
}

/// Most tools a stub server has ([`stub_servers`]).
const STUB_SERVER_TOOLS: usize = 2;
/// Largest file read to look for a script's name in it.
const LAUNCHER_CAP: u64 = 1 << 20;

/// Small MCP servers nothing starts (`src/k8s.py`, a tutorial's
/// `FastMCP("k8s")` with one tool, left beside the project's server): a
/// file that makes its own FastMCP server with at most two tools, that no
/// Python file of the scan imports, and that neither the scan's Python
/// code (comments aside) nor a README, Dockerfile, script or configuration
/// of the walk names ([`crate::python::scripts::names_script`]), when the
/// project has tools in code elsewhere that are not such stubs. Returns
/// their files (display paths), to set aside. Not a file named on the
/// command line; a file that cannot be read counts as naming them.
pub(super) fn stub_servers(
    tools: &[ToolDef],
    imports: &Imports,
    explicit: &[&Path],
    sources: &[&SourceFile],
    launchers: &[PathBuf],
) -> std::collections::BTreeSet<String> {
    let mut by_file: BTreeMap<&str, Vec<&ToolDef>> = BTreeMap::new();
    for t in tools.iter().filter(|t| in_code(t)) {
        by_file.entry(&t.file.display).or_default().push(t);
    }
    let mut candidates: Vec<&ToolDef> = by_file
        .values()
        .filter(|ts| ts.len() <= STUB_SERVER_TOOLS)
        .filter(|ts| {
            ts.iter().all(|t| {
                t.format == ToolFormat::Fastmcp
                    && t.group.rsplit_once('#').is_some_and(|(_, server)| {
                        crate::python::makes_fastmcp(&t.file.text, server)
                    })
            })
        })
        .map(|ts| ts[0])
        .filter(|t| !explicit.contains(&t.file.path.as_path()))
        .collect();
    if candidates.is_empty() {
        return Default::default();
    }
    candidates.retain(|t| {
        imports
            .index
            .position(&t.file.path)
            .is_some_and(|i| !imports.imported(i))
    });
    let paths: Vec<&Path> = candidates.iter().map(|t| t.file.path.as_path()).collect();
    let mut paths = unnamed_in_python(paths, sources);
    // Beside tools that are not stubs: two unnamed scripts alone are the project.
    if paths.is_empty() || by_file.len() == paths.len() {
        return Default::default();
    }
    paths = unnamed_in_launchers(paths, launchers);
    candidates.retain(|t| paths.contains(&t.file.path.as_path()));
    candidates
        .into_iter()
        .map(|t| t.file.display.to_string())
        .collect()
}

/// The script's file name and the module names it can be run by.
fn script_names(p: &Path) -> (String, Vec<String>) {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    (name.to_string(), crate::python::scripts::module_names(p))
}

/// The scripts of `paths` that no other Python file of `sources` names
/// (comments aside; [`crate::python::scripts::names_script`]). A text can
/// name a script only if the script's stem is one of its words, so each
/// source's words are gathered once and only the sources holding a stem
/// are read line by line (a scan of hundreds of small servers stays
/// linear).
fn unnamed_in_python<'p>(mut paths: Vec<&'p Path>, sources: &[&SourceFile]) -> Vec<&'p Path> {
    if paths.is_empty() {
        return paths;
    }
    let mut holding: std::collections::HashMap<&str, Vec<usize>> = Default::default();
    for (i, f) in sources.iter().enumerate() {
        let words: std::collections::HashSet<&str> =
            crate::python::scripts::words(&f.text).collect();
        for w in words {
            holding.entry(w).or_default().push(i);
        }
    }
    let all: Vec<usize> = (0..sources.len()).collect();
    paths.retain(|p| {
        let (name, modules) = script_names(p);
        let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        // A stem that is no identifier (`my-server`) is looked for everywhere.
        let candidates = if crate::python::scripts::words(stem).eq(std::iter::once(stem)) {
            holding.get(stem).map_or(&[][..], Vec::as_slice)
        } else {
            &all
        };
        !candidates
            .iter()
            .map(|&i| sources[i])
            .filter(|f| f.path != *p)
            .any(|f| crate::python::scripts::names_script(&f.text, &name, &modules, true))
    });
    paths
}

/// The scripts of `paths` that no launcher names (a README, Dockerfile,
/// script or config of the walk), read one at a time until every script
/// is named. A launcher that cannot be read names them all; one larger
/// than the cap is data, not a launcher.
fn unnamed_in_launchers<'p>(mut paths: Vec<&'p Path>, launchers: &[PathBuf]) -> Vec<&'p Path> {
    for l in launchers {
        if paths.is_empty() {
            break;
        }
        let text = match read_capped(l, LAUNCHER_CAP) {
            Ok(Some(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
            Ok(None) => continue,
            Err(_) => return Vec::new(),
        };
        let words: std::collections::HashSet<&str> = crate::python::scripts::words(&text).collect();
        paths.retain(|p| {
            let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
            if crate::python::scripts::words(stem).eq(std::iter::once(stem))
                && !words.contains(stem)
            {
                return true;
            }
            let (name, modules) = script_names(p);
            !crate::python::scripts::names_script(&text, &name, &modules, false)
        });
    }
    paths
}

/// Python modules nothing runs: a module outside any package (no
/// `__init__.py` beside it; a package's modules are its API) that no
/// Python file of the scan imports, that only defines things
/// ([`crate::python::dead::only_defines`]: no script, no top-level call),
/// and that neither the scan's Python code (comments aside) nor a README,
/// Dockerfile, script or configuration names
/// ([`crate::python::scripts::names_script`]); and a module only such
/// modules import; a module with tools is never such a root (it is
/// served some way the scan may not see). Returns the display paths of
/// those without tools (other passes judge modules with tools), to set
/// aside with their findings, when some other module of the scan is run or imported. Not a
/// file named on the command line; a launcher that cannot be read counts
/// as naming them all.
pub(super) fn modules_nothing_runs(
    tools: &[ToolDef],
    sources: &[&SourceFile],
    import_paths: &[(PathBuf, Vec<Vec<String>>)],
    imports: &Imports,
    explicit: &[&Path],
    launchers: &[PathBuf],
) -> std::collections::BTreeSet<String> {
    let importers = &imports.importers;
    let text_of = |p: &Path| sources.iter().find(|f| f.path == p).map(|f| &*f.text);
    let packages: std::collections::HashSet<&Path> = import_paths
        .iter()
        .filter(|(p, _)| p.file_name().is_some_and(|n| n == "__init__.py"))
        .filter_map(|(p, _)| p.parent())
        .collect();
    let mut roots: Vec<usize> = (0..import_paths.len())
        .filter(|&i| importers[i].is_empty())
        .filter(|&i| {
            let p = import_paths[i].0.as_path();
            // A module with tools is served some way (other passes judge it).
            !explicit.contains(&p)
                && !tools.iter().any(|t| t.file.path == p)
                && p.parent().is_none_or(|d| !packages.contains(d))
                && !matches!(
                    p.file_name().and_then(|n| n.to_str()),
                    Some("__init__.py" | "__main__.py")
                )
                && text_of(p).is_some_and(|t| {
                    !t.contains("__main__") && crate::python::dead::only_defines(t)
                })
        })
        .collect();
    if roots.is_empty() {
        return Default::default();
    }
    let paths: Vec<&Path> = roots.iter().map(|&i| import_paths[i].0.as_path()).collect();
    let named = unnamed_in_launchers(unnamed_in_python(paths, sources), launchers);
    roots.retain(|&i| named.contains(&import_paths[i].0.as_path()));
    // And what only dead modules import.
    let mut dead: std::collections::HashSet<usize> = roots.into_iter().collect();
    loop {
        let more: Vec<usize> = (0..import_paths.len())
            .filter(|i| !dead.contains(i) && !importers[*i].is_empty())
            .filter(|&i| importers[i].iter().all(|j| dead.contains(j)))
            .filter(|&i| !explicit.contains(&import_paths[i].0.as_path()))
            .collect();
        if more.is_empty() {
            break;
        }
        dead.extend(more);
    }
    // Something else must run: a scan of loose helpers alone is checked.
    if dead.is_empty() || dead.len() == import_paths.len() {
        return Default::default();
    }
    dead.into_iter()
        .filter_map(|i| sources.iter().find(|f| f.path == import_paths[i].0))
        .filter(|f| !tools.iter().any(|t| t.file.path == f.path))
        .map(|f| f.display.clone())
        .collect()
}

/// Is `span` of file `file` (display path) inside one of `spans`?
fn within(spans: &[(String, crate::source::Span)], file: &str, span: crate::source::Span) -> bool {
    spans
        .iter()
        .any(|(f, s)| f == file && s.start <= span.start && span.end <= s.end)
}

/// Leaves out the tools and findings inside `spans` (by display path and
/// span), with a note on each file saying why; nothing when it is empty.
fn set_aside_spans(
    tools: &mut Vec<ToolDef>,
    diagnostics: &mut Vec<Diagnostic>,
    notifications: &mut Vec<Notification>,
    spans: &[(String, crate::source::Span)],
    why: &str,
) {
    tools.retain(|t| !within(spans, &t.file.display, t.span));
    diagnostics.retain(|d| !within(spans, &d.file.display, d.span));
    let files: std::collections::BTreeSet<&String> = spans.iter().map(|(f, _)| f).collect();
    note_files(notifications, files.into_iter().cloned(), why);
}

/// LangChain `@tool` and Agents SDK `@function_tool` functions that no
/// Python code of the scan names again, in a scan that names others
/// (`crate::python::unused`): no list hands them to a model. They leave
/// the inventory and their units, with the findings inside them, and a
/// note names each file. Not in a file named on the command line
/// (`explicit`).
pub(super) fn framework_tools_nothing_names(
    tools: &mut Vec<ToolDef>,
    py_roots: &mut [crate::python::link::PyFile],
    py_sources: &[Arc<SourceFile>],
    explicit: &[&Path],
    diagnostics: &mut Vec<Diagnostic>,
    notifications: &mut Vec<Notification>,
) {
    let texts = py_roots.iter().map(|r| &r.facts.file).chain(py_sources);
    let mut unused = crate::python::unused::unreferenced(tools, texts);
    unused.retain(|(path, _)| !explicit.contains(&path.as_path()));
    if unused.is_empty() {
        return;
    }
    let spans: Vec<(String, crate::source::Span)> = tools
        .iter()
        .filter(|t| unused.contains(&(t.file.path.clone(), t.span.start)))
        .map(|t| (t.file.display.to_string(), t.span))
        .collect();
    set_aside_before_units(
        tools,
        py_roots,
        diagnostics,
        notifications,
        &spans,
        "tools not checked: no Python code of the scan names their decorated functions again (a tool list, `bind_tools`), so none is handed to a model",
    );
}

/// Python tools inside top-level functions that only a commented-out call
/// reaches (`# tools.extend(get_search_tools())`), directly or through
/// other such functions ([`crate::python::dead`]): nothing builds them, so
/// none is offered. They leave the inventory and their units, with the
/// findings inside those functions, and a note names each file. Not in a
/// file named on the command line (`explicit`).
pub(super) fn tools_of_commented_out_functions(
    tools: &mut Vec<ToolDef>,
    py_roots: &mut [crate::python::link::PyFile],
    py_sources: &[Arc<SourceFile>],
    explicit: &[&Path],
    diagnostics: &mut Vec<Diagnostic>,
    notifications: &mut Vec<Notification>,
) {
    let inside: Vec<(PathBuf, usize)> = tools
        .iter()
        .filter(|t| t.file.path.extension().is_some_and(|e| e == "py"))
        .filter(|t| !explicit.contains(&t.file.path.as_path()))
        .map(|t| (t.file.path.clone(), t.span.start))
        .collect();
    if inside.is_empty() {
        return;
    }
    let texts = py_roots.iter().map(|r| &r.facts.file).chain(py_sources);
    let dead = crate::python::dead::commented_out_functions(texts, &inside);
    let display = |p: &Path| {
        tools
            .iter()
            .find(|t| t.file.path == p)
            .map(|t| t.file.display.to_string())
    };
    let spans: Vec<(String, crate::source::Span)> = dead
        .iter()
        .filter_map(|(p, span, _)| Some((display(p)?, *span)))
        .collect();
    set_aside_before_units(
        tools,
        py_roots,
        diagnostics,
        notifications,
        &spans,
        "tools not checked: the function that builds them is reached only through a commented-out call, so none is offered",
    );
}

/// [`set_aside_spans`], and the Python units lose the tools inside `spans`
/// too (they are linked after this).
fn set_aside_before_units(
    tools: &mut Vec<ToolDef>,
    py_roots: &mut [crate::python::link::PyFile],
    diagnostics: &mut Vec<Diagnostic>,
    notifications: &mut Vec<Notification>,
    spans: &[(String, crate::source::Span)],
    why: &str,
) {
    if spans.is_empty() {
        return;
    }
    for r in py_roots.iter_mut() {
        r.tools
            .retain(|t| !within(spans, &t.def.file.display, t.def.span));
    }
    set_aside_spans(tools, diagnostics, notifications, spans, why);
}

/// A Python module beside a package of the same name (`tools.py` and
/// `tools/__init__.py`) is never imported: Python finds the package first.
/// Its tools and the findings in it are set aside with a note, unless the
/// file is named on the command line.
pub(super) fn modules_shadowed_by_packages(
    tools: &mut Vec<ToolDef>,
    diagnostics: &mut Vec<Diagnostic>,
    notifications: &mut Vec<Notification>,
    candidates: &[Candidate],
) {
    let packages: std::collections::BTreeSet<&Path> = candidates
        .iter()
        .filter(|c| c.path.file_name().is_some_and(|n| n == "__init__.py"))
        .filter_map(|c| c.path.parent())
        .collect();
    let shadowed: std::collections::BTreeSet<&Path> = candidates
        .iter()
        .filter(|c| c.kind == FileKind::Python && !c.explicit)
        .filter(|c| packages.contains(c.path.with_extension("").as_path()))
        .map(|c| c.path.as_path())
        .collect();
    let with_tools: std::collections::BTreeSet<String> = tools
        .iter()
        .filter(|t| shadowed.contains(t.file.path.as_path()))
        .map(|t| t.file.display.to_string())
        .collect();
    set_aside_files(
        tools,
        diagnostics,
        notifications,
        with_tools,
        "tools not checked: a package of the same name beside this module is what `import` finds, so the module is never loaded",
    );
}

/// `@app.tool()` on an object that some Python file of the scan makes
/// from the MCP SDK's low-level `Server`, and none from another class
/// (`FastMCP`): that `Server` has no `tool` decorator, so the project
/// gave it one (`setattr(app, "tool", _tool_decorator)`), and the schema
/// it serves is the project's own, not the one FastMCP derives from the
/// signature. Such tools keep their names and descriptions; their schema
/// is left unknown, so no rule judges the signature as their schema.
/// Returns where they are (file, span start), for
/// [`unknown_schemas_in_units`].
pub(super) fn tools_of_own_decorators(
    tools: &mut [ToolDef],
    sources: &[&SourceFile],
) -> Vec<(PathBuf, usize)> {
    let object = |t: &ToolDef| {
        (t.schema_derived && t.format == ToolFormat::Fastmcp)
            .then(|| t.group.rsplit_once('#').map(|(_, obj)| obj.to_string()))
            .flatten()
    };
    // Each server object judged once, over every source.
    let objects: std::collections::BTreeSet<String> = tools.iter().filter_map(object).collect();
    let patched: std::collections::BTreeSet<String> = objects
        .into_iter()
        .filter(|obj| {
            let mut makers = sources
                .iter()
                .filter(|f| crate::python::made_by(&f.text, obj).is_some())
                .peekable();
            makers.peek().is_some()
                && makers.all(|f| crate::python::makes_lowlevel_server(&f.text, obj))
        })
        .collect();
    let own_decorator = |t: &ToolDef| object(t).is_some_and(|o| patched.contains(&o));
    let mut own = Vec::new();
    for t in tools.iter_mut().filter(|t| own_decorator(t)) {
        own.push((t.file.path.clone(), t.span.start));
        unknown_schema(t);
    }
    own
}

/// The Python units' copies of the tools [`tools_of_own_decorators`]
/// found lose their schema too.
pub(super) fn unknown_schemas_in_units(
    py_roots: &mut [crate::python::link::PyFile],
    own: &[(PathBuf, usize)],
) {
    for t in py_roots.iter_mut().flat_map(|r| r.tools.iter_mut()) {
        if own.contains(&(t.def.file.path.clone(), t.def.span.start)) {
            unknown_schema(&mut t.def);
        }
    }
}

fn unknown_schema(t: &mut ToolDef) {
    t.input_schema = None;
    t.schema_derived = false;
}

/// Parameters that code outside the tools reads from the arguments by key
/// (`tool_args.get("user_google_email")` in an auth middleware): a name
/// that at least [`CONVENTION`] Python tools of the scan declare from
/// their signatures, read by key in a Python file that declares none of
/// them. The middleware uses the value, so the tools that ignore it do not
/// ignore what the model sends (see [`read_elsewhere_in_units`]).
pub(super) fn parameters_read_elsewhere(
    tools: &[ToolDef],
    sources: &[&SourceFile],
) -> std::collections::BTreeSet<String> {
    let mut declared: BTreeMap<&str, Vec<&Path>> = BTreeMap::new();
    for t in tools.iter().filter(|t| t.schema_derived) {
        let Some(props) = t
            .input_schema
            .as_ref()
            .and_then(|s| s.get("properties")?.members())
        else {
            continue;
        };
        for m in props {
            declared.entry(&m.key).or_default().push(&t.file.path);
        }
    }
    declared.retain(|_, files| files.len() >= CONVENTION);
    if declared.is_empty() {
        return Default::default();
    }
    // Each file read once for the keys it reads by literal.
    let mut out = std::collections::BTreeSet::new();
    for f in sources {
        for key in keys_read(&f.text) {
            if let Some(files) = declared.get(key)
                && !files.contains(&f.path.as_path())
            {
                out.insert(key.to_string());
            }
        }
    }
    out
}

/// The keys `text` reads by literal: `k` in `.get("k"`, `["k"]` (either
/// quote), when `k` is a Python identifier.
fn keys_read(text: &str) -> impl Iterator<Item = &str> {
    let b = text.as_bytes();
    text.match_indices(['"', '\'']).filter_map(move |(i, q)| {
        let opens = b[..i].ends_with(b".get(") || b[..i].ends_with(b"[");
        if !opens {
            return None;
        }
        let rest = &text[i + 1..];
        let end = rest.find(q)?;
        let key = &rest[..end];
        let closes = if b[..i].ends_with(b"[") {
            rest[end + 1..].starts_with(']')
        } else {
            true
        };
        (closes && !key.is_empty() && key.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_'))
            .then_some(key)
    })
}

/// How many tools must declare a parameter for it to be a convention of
/// the server ([`parameters_read_elsewhere`]).
const CONVENTION: usize = 3;

/// The Python units' functions no longer count a parameter that
/// [`parameters_read_elsewhere`] found as unused.
pub(super) fn read_elsewhere_in_units(
    py_roots: &mut [crate::python::link::PyFile],
    names: &std::collections::BTreeSet<String>,
) {
    if names.is_empty() {
        return;
    }
    for f in py_roots.iter_mut().flat_map(|r| r.facts.fns.iter_mut()) {
        let params = &f.params;
        f.unused_params
            .retain(|&i| params.get(i).is_none_or(|p| !names.contains(&p.name)));
    }
}

#[cfg(test)]
mod tests {
    use super::keys_read;

    #[test]
    fn keys_read_by_literal() {
        let text = "a = args.get(\"user_email\") or args['account']\nrows = [\"x\", \"y\"]\nb = d[\"not a key\"] + d[\"k\"][0] + f.get('x-y')\n";
        let keys: Vec<&str> = keys_read(text).collect();
        assert_eq!(keys, ["user_email", "account", "k"]);
    }
}
