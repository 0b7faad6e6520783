//! A linked unit (a Rust crate today; a Python package, an npm package, a
//! Go module, a .NET project as front-ends come): its tools with their
//! handlers and argument types, and the tool-call surface — the handlers,
//! the functions they call, and which parameters carry tool arguments —
//! that decides which code-rule candidates are reported. Front-ends build
//! a [`Unit`] from their facts (the Rust linker today); rules read it.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use crate::model::code::{
    Accepts, Candidate, FileFacts, FnFact, KeyRead, Need, Quiet, SiteKind, StructFact,
};
use crate::model::words::{has_phrase, states_bound};
use crate::model::{Diagnostic, ToolDef};
use crate::source::{SourceFile, Span};
use crate::syntax::{Node, NodeKind};

/// A function of the crate: file index and function index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FnRef {
    pub file: usize,
    pub index: usize,
}

/// A tool declared in code, with what the crate knows about it.
pub struct CodeTool {
    pub def: ToolDef,
    pub handler: Option<FnRef>,
    /// The struct its arguments are deserialised into: (file, struct index).
    pub args: Option<(usize, usize)>,
    /// Where the handler says which type it deserialises into.
    pub args_site: Option<(usize, Span)>,
}

/// One crate after linking.
pub struct Unit {
    pub files: Vec<FileFacts>,
    pub tools: Vec<CodeTool>,
    /// Every field name read anywhere in the crate.
    pub field_reads: BTreeSet<String>,
    /// Every method called with no arguments anywhere in the crate.
    pub accessor_calls: BTreeSet<String>,
    /// Functions on the tool-call surface.
    pub surface: HashMap<FnRef, Reach>,
    /// Functions that dispatch on the unit's tool names.
    pub(crate) dispatchers: BTreeSet<FnRef>,
    /// For each tool, the surface functions its handler reaches, in order.
    pub(crate) by_tool: Vec<Vec<FnRef>>,
    /// The unit, or a crate of the tree it depends on, validates tool
    /// arguments with a JSON Schema validator before the handler runs
    /// (an agent loop's `jsonschema::validator_for(&tool.parameters)`).
    pub validates_args: bool,
}

/// How a function is on the tool-call surface.
#[derive(Clone, Debug, Default)]
pub struct Reach {
    /// Parameters that carry values from tool arguments.
    pub taint: u64,
    /// Parameters that receive a tool argument as sent (not computed).
    pub direct: u64,
    /// Parameters that hold the arguments object itself (so their key reads
    /// are reads of the tool's top-level arguments).
    pub roots: u64,
    /// `roots` for each tool whose handler reaches the function: a helper
    /// handed the whole arguments by one tool and an item of an array by
    /// another (`read_xy(args)`, `read_xy(item)`) reads the first tool's
    /// keys only.
    pub roots_by_tool: std::collections::BTreeMap<usize, u64>,
    /// The tools whose handlers reach the function.
    pub tools: BTreeSet<usize>,
}

impl Unit {
    /// Does `f` dispatch on the names of the crate's tools (so its code
    /// serves every tool)? A `match` on an operation argument is not.
    pub fn is_dispatcher(&self, f: FnRef) -> bool {
        self.dispatchers.contains(&f)
    }

    pub fn fact(&self, f: FnRef) -> &FnFact {
        &self.files[f.file].fns[f.index]
    }

    pub fn file(&self, i: usize) -> &Arc<SourceFile> {
        &self.files[i].file
    }

    pub fn structure(&self, (file, index): (usize, usize)) -> &StructFact {
        &self.files[file].structs[index]
    }

    /// Key reads of top-level arguments that tool arguments reach, in `f`
    /// and what it calls with them, only from this tool's handler (not from
    /// shared dispatchers).
    pub fn reads_of(&self, tool: usize) -> (Vec<(FnRef, &KeyRead)>, bool) {
        self.reads(tool, false)
    }

    /// Is `key` written as a string literal (`"path"`) in a function this
    /// tool's handler reaches: read some way the key reads do not show
    /// (`ctx.resolved_path("path")`, a table of keys)?
    pub fn mentions_key(&self, tool: usize, key: &str) -> bool {
        self.by_tool.get(tool).into_iter().flatten().any(|f| {
            self.fact(*f)
                .key_literals
                .binary_search_by(|k| k.as_str().cmp(key))
                .is_ok()
        })
    }

    /// Key reads one level down, in an object under a top-level key
    /// (`updates.get("width")` of `args.get("updates")`).
    pub fn nested_reads_of(&self, tool: usize) -> Vec<(FnRef, &KeyRead)> {
        self.reads(tool, true).0
    }

    fn reads(&self, tool: usize, nested: bool) -> (Vec<(FnRef, &KeyRead)>, bool) {
        let mut reads = Vec::new();
        let mut escapes = false;
        for f in self.by_tool.get(tool).into_iter().flatten() {
            let reach = &self.surface[f];
            let roots = reach.roots_by_tool.get(&tool).copied().unwrap_or(0);
            // A dispatcher's reads (`request["name"]`) belong to no one tool.
            if self.is_dispatcher(*f) || roots == 0 {
                continue;
            }
            let fact = self.fact(*f);
            escapes |= fact.escapes & roots != 0;
            reads.extend(
                fact.key_reads
                    .iter()
                    .filter(|r| r.mask & roots != 0 && r.parent.is_some() == nested)
                    .map(|r| (*f, r)),
            );
        }
        reads.sort_by_key(|(f, r)| (*f, r.span.start));
        (reads, escapes)
    }
}

/// The candidates of a crate that are on the surface (or all, with
/// `scope = all`), as findings.
pub fn findings(k: &mut Unit, all: bool) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let candidates: Vec<Vec<Candidate>> = k
        .files
        .iter_mut()
        .map(|f| std::mem::take(&mut f.candidates))
        .collect();
    // Names called by functions that mark a truncation in their output.
    let marked_callees: BTreeSet<&str> = k
        .files
        .iter()
        .flat_map(|f| &f.fns)
        // A test's strings are its assertions, not output.
        .filter(|func| func.marks_truncation && !func.is_test)
        .flat_map(|func| func.calls.iter().map(|c| c.callee.as_str()))
        .collect();
    for (fi, cs) in candidates.into_iter().enumerate() {
        for c in cs {
            let r = FnRef {
                file: fi,
                index: c.fn_index,
            };
            let on_surface = match (k.surface.get(&r), c.need) {
                (_, Need::Always) | (Some(_), Need::Surface) => true,
                (Some(reach), Need::Args(m)) => reach.direct & m != 0,
                (Some(reach), Need::Tainted(m)) => reach.taint & m != 0,
                (None, _) => false,
            };
            if !(all || on_surface) {
                continue;
            }
            let quiet = is_quiet(k, r, &c.quiet, &marked_callees);
            if !quiet {
                out.push(c.diag);
            }
        }
    }
    out
}

/// Does what `quiet` names hold for the candidate in function `r`?
fn is_quiet(k: &Unit, r: FnRef, quiet: &Quiet, marked_callees: &BTreeSet<&str>) -> bool {
    let f = &k.files[r.file];
    match quiet {
        Quiet::Never => false,
        Quiet::IfFieldDocumentsBound(key, numbers) => {
            reaching_tool_documents_bound(k, r)
                || states_bound_at_run_time(k, &f.fns[r.index], key, numbers)
                || k.files.iter().flat_map(|f| &f.structs).any(|s| {
                    s.fields.iter().any(|f| {
                        (f.name == *key || f.wire == *key)
                            && f.description.as_deref().is_some_and(|d| {
                                let d = d.to_ascii_lowercase();
                                numbers.iter().any(|n| {
                                    has_phrase(&d, n)
                                        && (states_bound(&d)
                                            || crate::model::words::states_range_to(&d, n))
                                })
                            })
                    })
                })
        }
        Quiet::IfToolDocumentsBound => reaching_tool_documents_bound(k, r),
        Quiet::UnlessRequired(key) => {
            let reaching: Vec<usize> = k
                .surface
                .get(&r)
                .map(|reach| reach.tools.iter().copied().collect())
                .unwrap_or_default();
            let tools: Vec<&ToolDef> = if reaching.is_empty() {
                k.tools
                    .iter()
                    .map(|t| &t.def)
                    .filter(|t| declares(t, key))
                    .collect()
            } else {
                reaching.iter().map(|t| &k.tools[*t].def).collect()
            };
            !tools.iter().any(|t| requires(t, key))
        }
        Quiet::IfToolNames(known) => known.iter().all(|lit| {
            let lit = lit.trim_matches('"');
            k.tools.iter().any(|t| t.def.name.value == lit)
        }),
        Quiet::IfCallerMarksTruncation => marked_callees.contains(f.fns[r.index].name.as_str()),
        Quiet::IfValidatedBySibling(key) => {
            let me = &f.fns[r.index];
            // A trait's method, which an executor can run before the call;
            // not the handler itself, and not one that defaults the key too.
            let in_trait_impl = me
                .impl_id
                .and_then(|i| f.impls.get(i))
                .is_some_and(|i| i.trait_name.is_some());
            in_trait_impl
                && f.fns.iter().enumerate().any(|(gi, g)| {
                    gi != r.index
                        && g.impl_id == me.impl_id
                        && g.name.starts_with("validate")
                        && g.key_reads
                            .iter()
                            .any(|read| read.key == *key && read.parent.is_none())
                        && !g.sites.iter().any(|site| {
                            matches!(&site.kind, SiteKind::ParseFallback { value, .. } if value.name == *key)
                        })
                })
        }
        Quiet::IfSchemaValidated(key, accepts) => {
            let reaching: Vec<&ToolDef> = k
                .surface
                .get(&r)
                .map(|reach| reach.tools.iter().map(|t| &k.tools[*t].def).collect())
                .unwrap_or_default();
            k.validates_args
                && !reaching.is_empty()
                && reaching.iter().all(|t| {
                    t.input_schema
                        .as_ref()
                        .and_then(|s| s.get("properties"))
                        .and_then(|p| p.get(key))
                        .is_some_and(|p| type_admits_only(p, *accepts))
                })
        }
        Quiet::Any(all) => all.iter().any(|q| is_quiet(k, r, q, marked_callees)),
    }
}

/// Does a property's schema admit only values a conversion takes
/// (`"type": "boolean"` for a boolean, a non-negative `integer` for an
/// unsigned one), so that a validator refuses every value it would fail on?
fn type_admits_only(property: &Node, accepts: Accepts) -> bool {
    let ty = property.get("type").and_then(Node::as_str);
    let number = |key: &str| match property.get(key).map(|n| &n.kind) {
        Some(NodeKind::Number(n)) => n.parse::<f64>().ok(),
        _ => None,
    };
    let minimum = number("minimum").or_else(|| number("exclusiveMinimum"));
    match accepts {
        Accepts::Boolean => ty == Some("boolean"),
        Accepts::String => ty == Some("string"),
        Accepts::Integer => ty == Some("integer"),
        Accepts::NonNegativeInteger => ty == Some("integer") && minimum.is_some_and(|m| m >= 0.0),
        Accepts::Number => matches!(ty, Some("number" | "integer")),
        Accepts::Array => ty == Some("array"),
        Accepts::Object => ty == Some("object"),
        Accepts::Other => false,
    }
}

/// Does the crate build a schema for property `key` at run time with the
/// bound's largest number (`props.insert("limit".into(), integer_field(1,
/// 500))` for a `.clamp(1, 500)`)? When the clamped value is a local
/// (`lm`, `n`), a key the function reads stands for it.
fn states_bound_at_run_time(k: &Unit, func: &FnFact, key: &str, numbers: &[String]) -> bool {
    let Some(largest) = numbers.iter().max_by_key(|n| n.parse::<u64>().unwrap_or(0)) else {
        return false;
    };
    k.files
        .iter()
        .flat_map(|f| &f.stated_bounds)
        .any(|(prop, ns)| {
            ns.contains(largest) && (prop == key || func.key_reads.iter().any(|r| r.key == *prop))
        })
}

/// Does a tool tell the model about a bound on its input: a `maximum` in
/// the schema, or "at most", "maximum", "capped", "up to" in a description?
fn documents_bound(t: &ToolDef) -> bool {
    fn texts(n: &Node, out: &mut Vec<String>, bound: &mut bool, depth: usize) {
        if depth > crate::syntax::MAX_DEPTH {
            return;
        }
        match &n.kind {
            NodeKind::Object(members) => {
                for m in members {
                    match m.key.as_str() {
                        "maximum" | "exclusiveMaximum" | "maxItems" | "maxLength" => *bound = true,
                        "description" => {
                            if let Some(s) = m.value.as_str() {
                                out.push(s.to_ascii_lowercase());
                            }
                        }
                        _ => {}
                    }
                    texts(&m.value, out, bound, depth + 1);
                }
            }
            NodeKind::Array(items) => items.iter().for_each(|i| texts(i, out, bound, depth + 1)),
            _ => {}
        }
    }
    let mut all: Vec<String> = t
        .description
        .iter()
        .map(|d| d.value.to_ascii_lowercase())
        .collect();
    let mut bound = false;
    if let Some(s) = &t.input_schema {
        texts(s, &mut all, &mut bound, 0);
    }
    bound || all.iter().any(|text| states_bound(text))
}

/// Does a tool whose handler reaches `f` document a bound?
fn reaching_tool_documents_bound(k: &Unit, f: FnRef) -> bool {
    k.surface.get(&f).is_some_and(|reach| {
        reach
            .tools
            .iter()
            .any(|t| documents_bound(&k.tools[*t].def))
    })
}

/// Does a tool's input schema declare `key`?
fn declares(t: &ToolDef, key: &str) -> bool {
    t.input_schema
        .as_ref()
        .and_then(|s| s.get("properties"))
        .is_some_and(|p| p.get(key).is_some())
}

/// Does a tool's input schema require `key`?
fn requires(t: &ToolDef, key: &str) -> bool {
    t.input_schema
        .as_ref()
        .and_then(|s| s.get("required"))
        .and_then(Node::items)
        .is_some_and(|r| r.iter().any(|n| n.as_str() == Some(key)))
}
