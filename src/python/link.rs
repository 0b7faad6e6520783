//! Python files' tools linked to their code. A unit is a file with tool
//! code (tools, a `call_tool` dispatcher, an agent loop) together with the
//! modules of the scan its code imports, followed a few levels (see
//! [`super::modules`]); files that import one another share a unit, as a
//! package does. Each tool gets its handler (the decorated function, the
//! arm of a `call_tool` dispatch on its name, or a function of the same
//! name), the tool-call surface runs from there across the unit's files,
//! and the code rules report on it.

use std::collections::{BTreeSet, HashMap};

use super::modules::{Imported, Index};
use crate::link::{CodeTool, FnRef, Unit};
use crate::model::code::{CallFact, CallTarget, FileFacts};
use crate::model::{Diagnostic, Handler, ToolDef};
use crate::rules::{Context, RuleEntry};

/// One file with tool code, before it is linked into its unit.
pub struct PyFile {
    pub facts: FileFacts,
    /// Its tools, with handler and argument record in this file (file 0).
    pub tools: Vec<CodeTool>,
    /// Its dispatchers (`call_tool(name, arguments)`), by function index.
    pub dispatchers: Vec<usize>,
    /// Arguments are validated against the schema before the handler runs.
    pub validates_args: bool,
    /// The file turns that validation off (`validate_input=False`).
    pub skips_validation: bool,
}

/// Gives each tool whose definition does not name its handler (a
/// `types.Tool(..)` dispatched by `call_tool`) the one found in its file,
/// and keeps what the unit needs of the file.
pub fn prepare(facts: FileFacts, tools: &mut [ToolDef]) -> PyFile {
    let f = &facts;
    let handler_of = |t: &ToolDef| -> Option<usize> {
        // The decorated function.
        if let Some(h) = &t.handler {
            return f.fns.iter().position(|g| g.name_span == h.span);
        }
        // The arm of a dispatch on the name, else a function so named,
        // unless a decorator makes that function a tool of its own (an
        // Agents SDK `@function_tool def extract_star(messages)` beside an
        // `extract_star` dict it sends to a model for structured output).
        let name = &t.name.value;
        let own_tool = |g: &crate::model::code::FnFact| {
            tools
                .iter()
                .any(|o| o.handler.as_ref().is_some_and(|h| h.span == g.name_span))
        };
        f.dispatch
            .iter()
            .find(|d| d.tool == *name)
            .and_then(|d| f.fns.iter().position(|g| g.name_span == d.span))
            .or_else(|| {
                f.fns.iter().position(|g| {
                    g.name == *name && !g.is_test && g.impl_id.is_none() && !own_tool(g)
                })
            })
    };
    let handlers: Vec<Option<usize>> = tools.iter().map(handler_of).collect();
    for (t, h) in tools.iter_mut().zip(&handlers) {
        if t.handler.is_none()
            && let Some(g) = h.map(|i| &f.fns[i])
        {
            // `call_tool[read_note]`: shown as `call_tool`, at the arm.
            let name = g.name.split('[').next().unwrap_or(&g.name);
            t.handler = Some(crate::model::Handler {
                file: std::sync::Arc::clone(&f.file),
                span: g.name_span,
                name: name.to_string(),
            });
        }
    }
    let code_tools: Vec<CodeTool> = tools
        .iter()
        .zip(&handlers)
        .filter(|(t, _)| !t.format.is_reference())
        .map(|(t, h)| {
            // A parameter typed as a model or dataclass of this file:
            // pydantic validates that argument into it.
            let record = h.and_then(|i| {
                // Not a framework's context (`ctx: RunContext[Deps]`: the
                // application supplies the deps, not the model).
                f.fns[i]
                    .params
                    .iter()
                    .filter(|p| !p.is_context)
                    .find_map(|p| {
                        let s = f.structs.iter().position(|s| {
                            p.ty.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                                .any(|w| w == s.name)
                        })?;
                        Some(((0, s), (0, p.span)))
                    })
            });
            CodeTool {
                def: t.clone(),
                handler: h.map(|index| FnRef { file: 0, index }),
                args: record.map(|r| r.0),
                args_site: record.map(|r| r.1),
            }
        })
        .collect();
    // pydantic validates a FastMCP tool's arguments against its signature,
    // and the MCP SDK's low-level server validates them against the input
    // schema unless told not to.
    let text = &f.file.text;
    let skips_validation = text.contains("validate_input=False");
    let validates_args = tools.iter().any(|t| t.schema_derived)
        || (text.contains(".call_tool(") && !skips_validation);
    let dispatchers = f
        .fns
        .iter()
        .enumerate()
        .filter(|(_, g)| g.takes_request)
        .map(|(index, _)| index)
        .collect();
    PyFile {
        facts,
        tools: code_tools,
        dispatchers,
        validates_args,
        skips_validation,
    }
}

/// What a file's imports resolve to among the scan's Python files (by
/// scan file index): the name it binds → what it is, and its star
/// imports' files.
pub struct Imports {
    pub names: HashMap<String, Imported>,
    /// Of `names`, those its functions call with some value of theirs:
    /// the only ones the tool-call surface can go through, so the only
    /// modules parsed for it (a module used for a constant, a type or a
    /// tool list is not, unless it has tool code of its own).
    called: std::collections::HashSet<String>,
    pub stars: Vec<usize>,
}

impl Imports {
    pub fn of(facts: &FileFacts, index: &Index) -> Imports {
        let mut out = Imports {
            names: HashMap::new(),
            called: std::collections::HashSet::new(),
            stars: Vec::new(),
        };
        let called = called_imports(facts);
        // A package's `__init__.py` re-exports: every name it imports may
        // be what an importer calls.
        let reexports = facts
            .file
            .path
            .file_name()
            .is_some_and(|n| n == "__init__.py");
        for (alias, path) in &facts.uses {
            let Some(found) = index.resolve(&facts.file.path, path) else {
                continue;
            };
            if alias == "*" {
                if let Imported::Module(m) = found {
                    out.stars.push(m);
                }
                continue;
            }
            // A name of a package: its `__init__.py` says where it is
            // defined, and may join the unit to the module of a tool list.
            let package = matches!(found, Imported::Name(m, _) if index.is_package(m));
            if reexports || package || called.contains(alias.as_str()) {
                out.called.insert(alias.clone());
            }
            out.names.entry(alias.clone()).or_insert(found);
        }
        out
    }

    /// Every file this one imports from.
    pub fn files(&self) -> impl Iterator<Item = usize> + '_ {
        self.names
            .values()
            .map(file_of)
            .chain(self.stars.iter().copied())
    }

    /// The files this one's code calls into: worth parsing to follow.
    pub fn followed(&self) -> impl Iterator<Item = usize> + '_ {
        self.names
            .iter()
            .filter(|(alias, _)| self.called.contains(*alias))
            .map(|(_, i)| file_of(i))
            .chain(self.stars.iter().copied())
    }
}

fn file_of(i: &Imported) -> usize {
    match i {
        Imported::Module(m) | Imported::Name(m, _) => *m,
    }
}

/// The names a file's functions call, with a value of theirs, that an
/// import may bind: `f` of `f(x)`, `m` of `m.f(x)`, and the classes it
/// builds (`Client(..)`, in a function or at the top of the module) when
/// some method is called with a value (`self.client.search(q)`,
/// `client.search(q)`).
fn called_imports(facts: &FileFacts) -> std::collections::HashSet<&str> {
    let mut out = std::collections::HashSet::new();
    let mut methods = false;
    let calls = || facts.fns.iter().flat_map(|g| &g.calls);
    for call in calls() {
        let receiver = usize::from(call.method);
        let passes = call.args.iter().skip(receiver).any(|m| *m != 0)
            || call.roots.iter().skip(receiver).any(|r| *r != 0)
            || call.escapes != 0;
        if !passes {
            continue;
        }
        match &call.target {
            CallTarget::Free => {
                out.insert(call.callee.as_str());
            }
            CallTarget::Type(obj) => {
                out.insert(obj.as_str());
                methods = true;
            }
            CallTarget::Method => methods = true,
            CallTarget::OwnType | CallTarget::External => {}
        }
    }
    // The types of tool parameters the body never uses (`input:
    // ListVaultsInput`): a record with no fields has nothing to use.
    for g in &facts.fns {
        for p in g.unused_params.iter().filter_map(|&i| g.params.get(i)) {
            for w in p.ty.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                if facts.uses.iter().any(|(alias, _)| alias == w) {
                    out.insert(w);
                }
            }
        }
    }
    if methods {
        let text = &facts.file.text;
        for (alias, _) in &facts.uses {
            if alias.starts_with(|c: char| c.is_ascii_uppercase())
                && text.contains(&format!("{alias}("))
            {
                out.insert(alias.as_str());
            }
        }
    }
    out
}

/// The files of one unit, as the scan found them.
pub struct UnitFiles {
    /// Files with tool code.
    pub roots: Vec<PyFile>,
    /// Modules they import.
    pub followed: Vec<FileFacts>,
    /// What each file's imports are (roots, then followed), in scan file
    /// indices.
    pub imports: Vec<Imports>,
    /// A scan file index's place in the unit.
    pub pos: HashMap<usize, usize>,
}

/// A call into another module, as the linker fixes it up.
struct CallFix {
    caller: FnRef,
    call: usize,
    /// Keyword arguments' moves: (from, to).
    moves: Vec<(usize, usize)>,
    /// No function of the unit was found: the arguments object escapes.
    lost: bool,
}

/// Links one unit and returns the code rules' findings.
pub fn check(unit: UnitFiles, cx: &Context, rules: &[&'static RuleEntry]) -> Checked {
    let UnitFiles {
        roots,
        followed,
        imports,
        pos,
    } = unit;
    // A server of the unit validates (a FastMCP tool file, a low-level
    // `call_tool`), and none turns it off.
    let validates_args =
        roots.iter().any(|r| r.validates_args) && !roots.iter().any(|r| r.skips_validation);
    let mut files: Vec<FileFacts> = Vec::new();
    let mut tools: Vec<CodeTool> = Vec::new();
    let mut dispatchers: BTreeSet<FnRef> = BTreeSet::new();
    for (fi, root) in roots.into_iter().enumerate() {
        for mut t in root.tools {
            t.handler = t.handler.map(|h| FnRef { file: fi, ..h });
            t.args = t.args.map(|(_, s)| (fi, s));
            t.args_site = t.args_site.map(|(_, s)| (fi, s));
            tools.push(t);
        }
        dispatchers.extend(
            root.dispatchers
                .into_iter()
                .map(|index| FnRef { file: fi, index }),
        );
        files.push(root.facts);
    }
    files.extend(followed);
    let handlers = dispatched_elsewhere(&files, &mut tools);
    // Imports in unit file indices; a module outside the unit is not one
    // the linker can follow.
    let local = |i: usize| pos.get(&i).copied();
    let imports: Vec<(HashMap<&str, Imported>, Vec<usize>)> = imports
        .iter()
        .map(|im| {
            let names = im
                .names
                .iter()
                .filter_map(|(alias, to)| {
                    let to = match to {
                        Imported::Module(m) => Imported::Module(local(*m)?),
                        Imported::Name(m, n) => Imported::Name(local(*m)?, n.clone()),
                    };
                    Some((alias.as_str(), to))
                })
                .collect();
            (names, im.stars.iter().filter_map(|m| local(*m)).collect())
        })
        .collect();
    let resolver = Resolver {
        files: &files,
        imports: &imports,
    };
    // Calls into other modules: keyword arguments move to the callee's
    // parameters, and the arguments object handed to a function found is
    // followed, not lost.
    let mut fixes: Vec<CallFix> = Vec::new();
    for (fi, f) in files.iter().enumerate() {
        for (gi, g) in f.fns.iter().enumerate() {
            let caller = FnRef {
                file: fi,
                index: gi,
            };
            for (ci, call) in g.calls.iter().enumerate() {
                if call.keywords.is_empty() && call.escapes == 0 {
                    continue;
                }
                let found = resolver.targets(call, caller);
                let moves = found
                    .first()
                    .map(|t| keyword_moves(call, &files[t.file].fns[t.index]))
                    .unwrap_or_default();
                fixes.push(CallFix {
                    caller,
                    call: ci,
                    moves,
                    lost: found.is_empty(),
                });
            }
        }
    }
    for CallFix {
        caller,
        call: ci,
        moves,
        lost,
    } in fixes
    {
        let g = &mut files[caller.file].fns[caller.index];
        if lost {
            g.escapes |= g.calls[ci].escapes;
        }
        let call = &mut g.calls[ci];
        for (from, to) in moves {
            let grow = |v: &mut Vec<u64>| {
                if v.len() <= to {
                    v.resize(to + 1, 0);
                }
            };
            grow(&mut call.args);
            grow(&mut call.roots);
            if call.direct.len() <= to {
                call.direct.resize(to + 1, false);
            }
            call.args[to] |= std::mem::take(&mut call.args[from]);
            call.roots[to] |= std::mem::take(&mut call.roots[from]);
            let d = std::mem::take(&mut call.direct[from]);
            call.direct[to] |= d;
            if from < 63 && to < 63 && call.checked & (1 << from) != 0 {
                call.checked = call.checked & !(1 << from) | (1 << to);
            }
            if let Some(n) = call.arg_names.get_mut(from).and_then(Option::take) {
                if call.arg_names.len() <= to {
                    call.arg_names.resize(to + 1, None);
                }
                call.arg_names[to] = Some(n);
            }
        }
    }
    pre_checks_of_lost_handlers(&mut files, &tools, &dispatchers);
    let resolver = Resolver {
        files: &files,
        imports: &imports,
    };
    let targets = |call: &CallFact, caller: FnRef| resolver.targets(call, caller);
    let surface = crate::link::surface(&files, &tools, &dispatchers, &targets);
    let by_tool = crate::link::by_tool(&surface, tools.len());
    let mut k = Unit {
        files,
        tools,
        field_reads: BTreeSet::new(),
        accessor_calls: BTreeSet::new(),
        surface,
        dispatchers,
        by_tool,
        validates_args,
    };
    let mut diagnostics = crate::link::findings(&mut k, cx.all);
    for entry in rules {
        entry.rule.check_unit(cx, &k, &mut diagnostics);
    }
    Checked {
        diagnostics,
        handlers,
    }
}

/// A tool's arm in a helper rather than in the dispatcher
/// (`_preflight_write_gate(name, params)` with `if name == "vault_rename":`)
/// is only a check on the way when a dispatcher also hands the arguments
/// whole to code the unit cannot follow (`params = transform(arguments)`
/// from a table, then `bridge.call(method, params)`): the tool's work is
/// there, so the arm's reads are not all the tool's. The arm is marked as
/// letting the arguments escape.
fn pre_checks_of_lost_handlers(
    files: &mut [FileFacts],
    tools: &[CodeTool],
    dispatchers: &BTreeSet<FnRef>,
) {
    if !dispatchers
        .iter()
        .any(|d| files[d.file].fns[d.index].escapes != 0)
    {
        return;
    }
    for h in tools.iter().filter_map(|t| t.handler) {
        let f = &files[h.file];
        let span = f.fns[h.index].name_span;
        let in_helper = f
            .dispatch
            .iter()
            .any(|d| d.span == span && !f.fns[d.fn_index].takes_request);
        if in_helper {
            files[h.file].fns[h.index].escapes = u64::MAX;
        }
    }
}

/// What linking a unit found.
pub struct Checked {
    pub diagnostics: Vec<Diagnostic>,
    /// Handlers found in another file of the unit, for tools declared
    /// without one: (the tool's file, its span's start, the handler).
    pub handlers: Vec<(std::path::PathBuf, usize, Handler)>,
}

/// Tools listed in one module (`types.Tool(name="x", ..)` in
/// `tool_definitions.py`) and dispatched by name in another of the unit
/// (`if name == "x":` in the server's `call_tool`): the arm is the
/// handler, when it is the only one for that name and no other tool of
/// the unit has the name (a draft copy of the server beside it).
fn dispatched_elsewhere(
    files: &[FileFacts],
    tools: &mut [CodeTool],
) -> Vec<(std::path::PathBuf, usize, Handler)> {
    let mut declared: HashMap<String, usize> = HashMap::new();
    for t in tools.iter() {
        *declared.entry(t.def.name.value.clone()).or_default() += 1;
    }
    let mut found = Vec::new();
    for t in tools
        .iter_mut()
        .filter(|t| t.handler.is_none() && t.def.handler.is_none())
    {
        let name = &t.def.name.value;
        if declared.get(name).copied().unwrap_or(0) > 1 {
            continue;
        }
        let arms: Vec<FnRef> = files
            .iter()
            .enumerate()
            .flat_map(|(file, f)| {
                f.dispatch
                    .iter()
                    .filter(|d| d.tool == *name)
                    .filter_map(move |d| {
                        let index = f.fns.iter().position(|g| g.name_span == d.span)?;
                        Some(FnRef { file, index })
                    })
            })
            .collect();
        let [h] = arms[..] else {
            continue;
        };
        let g = &files[h.file].fns[h.index];
        let handler = Handler {
            file: std::sync::Arc::clone(&files[h.file].file),
            span: g.name_span,
            name: g.name.split('[').next().unwrap_or(&g.name).to_string(),
        };
        t.handler = Some(h);
        t.def.handler = Some(handler.clone());
        found.push((t.def.file.path.clone(), t.def.span.start, handler));
    }
    found
}

/// Where each keyword argument put after the positional ones (see
/// `CallFact::keywords`) goes among `callee`'s parameters: (from, to).
fn keyword_moves(call: &CallFact, callee: &crate::model::code::FnFact) -> Vec<(usize, usize)> {
    // As `link::surface` maps positions to parameters.
    let has_self = callee.params.first().is_some_and(|p| p.is_self);
    let offset = usize::from(call.method && !has_self);
    let shift = usize::from(!call.method && has_self && !call.self_arg);
    call.keywords
        .iter()
        .filter_map(|(name, from)| {
            let p = callee.params.iter().position(|p| p.name == *name)?;
            let to = (p + offset).checked_sub(shift)?;
            (to != *from).then_some((*from, to))
        })
        .collect()
}

/// How many `__init__.py` re-exports a name is followed through.
const MAX_REEXPORTS: usize = 3;

/// Which functions of the unit a call may reach.
struct Resolver<'a> {
    files: &'a [FileFacts],
    /// For each unit file: imported name → what it is, and star imports.
    imports: &'a [(HashMap<&'a str, Imported>, Vec<usize>)],
}

impl Resolver<'_> {
    /// Where `name` of file `file` is defined: there, or where the file
    /// imports it from (a package's `__init__.py` re-exporting it).
    fn defined<'n>(&'n self, file: usize, name: &'n str) -> (usize, &'n str) {
        let (mut file, mut name) = (file, name);
        for _ in 0..MAX_REEXPORTS {
            let f = &self.files[file];
            let here = f.fns.iter().any(|g| g.name == name && g.impl_id.is_none())
                || f.impls.iter().any(|i| i.self_type == name);
            match self
                .imports
                .get(file)
                .and_then(|(names, _)| names.get(name))
            {
                Some(Imported::Name(m, n)) if !here => (file, name) = (*m, n.as_str()),
                _ => break,
            }
        }
        (file, name)
    }

    /// Functions named `name` in file `file` whose class (`None` for a
    /// free function) `class` accepts.
    fn named(&self, file: usize, name: &str, class: impl Fn(Option<&str>) -> bool) -> Vec<FnRef> {
        let f = &self.files[file];
        f.fns
            .iter()
            .enumerate()
            .filter(|(_, g)| {
                g.name == name && class(g.impl_id.map(|i| f.impls[i].self_type.as_str()))
            })
            .map(|(index, _)| FnRef { file, index })
            .collect()
    }

    /// Free functions named `name` in file `file`.
    fn free(&self, file: usize, name: &str) -> Vec<FnRef> {
        let (file, name) = self.defined(file, name);
        self.named(file, name, |c| c.is_none())
    }

    /// Methods named `name` of class `class` in file `file`.
    fn methods(&self, file: usize, class: &str, name: &str) -> Vec<FnRef> {
        let (file, class) = self.defined(file, class);
        self.named(file, name, |c| c == Some(class))
    }

    /// Methods named `name` of any class in file `file`.
    fn any_method(&self, file: usize, name: &str) -> Vec<FnRef> {
        self.named(file, name, |c| c.is_some())
    }

    /// The one method named `name` among the classes a file imports.
    fn imported_method(&self, names: &HashMap<&str, Imported>, name: &str) -> Vec<FnRef> {
        unique(
            names
                .values()
                .filter_map(|i| match i {
                    Imported::Name(m, class) => Some(self.methods(*m, class, name)),
                    Imported::Module(_) => None,
                })
                .flatten()
                .collect(),
        )
    }

    fn targets(&self, call: &CallFact, caller: FnRef) -> Vec<FnRef> {
        let fns = &self.files[caller.file].fns;
        let own = fns[caller.index].impl_id;
        // The caller's own file first, as before modules were followed.
        let here: Vec<FnRef> = fns
            .iter()
            .enumerate()
            .filter(|(_, g)| g.name == call.callee)
            .filter(|(_, g)| match call.target {
                CallTarget::Free => g.impl_id.is_none(),
                CallTarget::OwnType => own.is_some() && g.impl_id == own,
                CallTarget::Method => g.impl_id.is_some(),
                CallTarget::Type(_) | CallTarget::External => false,
            })
            .map(|(index, _)| FnRef {
                file: caller.file,
                index,
            })
            .collect();
        if !here.is_empty() {
            return here;
        }
        let Some((names, stars)) = self.imports.get(caller.file) else {
            return Vec::new();
        };
        match &call.target {
            // `fetch(..)` of `from .client import fetch` (or `import *`).
            CallTarget::Free => match names.get(call.callee.as_str()) {
                Some(Imported::Name(m, n)) => self.free(*m, n),
                Some(Imported::Module(_)) => Vec::new(),
                None => stars
                    .iter()
                    .flat_map(|m| self.free(*m, &call.callee))
                    .collect(),
            },
            // `client.fetch(..)` of `from . import client`;
            // `Store.open(..)` of `from .store import Store`.
            // An object the module made (`from .client import client`):
            // the one method of that name in its module.
            CallTarget::Type(obj) => match names.get(obj.as_str()) {
                Some(Imported::Module(m)) => self.free(*m, &call.callee),
                Some(Imported::Name(m, class)) => {
                    let found = self.methods(*m, class, &call.callee);
                    if found.is_empty() {
                        unique(self.any_method(self.defined(*m, class).0, &call.callee))
                    } else {
                        found
                    }
                }
                // `client.fetch(..)` of a module-level `client = Client()`.
                None => self.imported_method(names, &call.callee),
            },
            // `self.client.fetch(..)`: a method of a class the file
            // imports, when exactly one has it.
            CallTarget::Method => self.imported_method(names, &call.callee),
            CallTarget::OwnType | CallTarget::External => Vec::new(),
        }
    }
}

/// `found` when it is one function, else none: a name several classes
/// share tells nothing.
fn unique(found: Vec<FnRef>) -> Vec<FnRef> {
    if found.len() == 1 { found } else { Vec::new() }
}
