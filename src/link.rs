//! A linked unit (a Rust crate today; a Python package, an npm package, a
//! Go module, a .NET project as front-ends come): its tools with their
//! handlers and argument types, and the tool-call surface — the handlers,
//! the functions they call, and which parameters carry tool arguments —
//! that decides which code-rule candidates are reported. Front-ends build
//! a [`Unit`] from their facts (the Rust linker today); rules read it.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use crate::model::code::{
    Accepts, CallFact, Candidate, FileFacts, FnFact, KeyRead, Need, Quiet, SiteKind, StructFact,
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
    /// For parameters that receive a requested value as sent, the names
    /// the model knows it by (`per_page` of a client function is the
    /// tool's `limit`).
    pub names: std::collections::BTreeMap<usize, BTreeSet<String>>,
    /// Parameters that receive, at some call (or as a handler's input), a
    /// requested value no check on the way refused out of a set.
    pub unchecked: u64,
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
            if is_quiet(k, r, &c.quiet, &marked_callees) {
                continue;
            }
            let mut d = c.diag;
            if d.tool.is_none() {
                name_tools(k, r, &mut d);
            }
            if let Need::Args(m) | Need::Tainted(m) = c.need {
                name_argument(k, r, m, &mut d);
            }
            out.push(d);
        }
    }
    out
}

/// The tools whose handlers reach function `r`.
fn reaching_tools(k: &Unit, r: FnRef) -> Vec<&ToolDef> {
    k.surface
        .get(&r)
        .map(|reach| reach.tools.iter().map(|t| &k.tools[*t].def).collect())
        .unwrap_or_default()
}

/// Says which tool a finding in function `r` is about: the one tool whose
/// handler reaches it, or, in code several tools share, a note naming them.
fn name_tools(k: &Unit, r: FnRef, d: &mut Diagnostic) {
    const SHOWN: usize = 4;
    let Some(reach) = k.surface.get(&r) else {
        return;
    };
    let names: BTreeSet<&str> = reach
        .tools
        .iter()
        .map(|t| k.tools[*t].def.name.value.as_str())
        .collect();
    match names.len() {
        0 => {}
        1 => d.tool = names.first().map(|n| n.to_string()),
        n => {
            let mut shown: Vec<String> =
                names.iter().take(SHOWN).map(|n| format!("`{n}`")).collect();
            if n > SHOWN {
                shown.push(format!("{} more", n - SHOWN));
            }
            d.notes.push(format!(
                "reached from the tools {}",
                crate::rules::join_and(&shown)
            ));
        }
    }
}

/// Says which argument a finding is about when the code calls it
/// otherwise: a parameter of a function the handler calls (`per_page`)
/// that receives one argument as sent (`limit`).
fn name_argument(k: &Unit, r: FnRef, mask: u64, d: &mut Diagnostic) {
    if mask.count_ones() != 1 {
        return;
    }
    let param = mask.trailing_zeros() as usize;
    let Some(local) = k.fact(r).params.get(param) else {
        return;
    };
    let Some(names) = k.surface.get(&r).and_then(|reach| reach.names.get(&param)) else {
        return;
    };
    if let [name] = names.iter().collect::<Vec<_>>()[..]
        && *name != local.name
    {
        d.notes.push(format!(
            "`{}` is the `{name}` argument the model sent, passed on to `{}`",
            local.name,
            k.fact(r).name
        ));
    }
}

/// Does what `quiet` names hold for the candidate in function `r`?
fn is_quiet(k: &Unit, r: FnRef, quiet: &Quiet, marked_callees: &BTreeSet<&str>) -> bool {
    let f = &k.files[r.file];
    match quiet {
        Quiet::Never => false,
        Quiet::IfFieldDocumentsBound(key, numbers) => {
            // The schema promises more than the code gives (`le=20` on a
            // `min(page_size, 5)`): the model was told a wrong bound.
            if promises_more(k, r, key, numbers) {
                return false;
            }
            reaching_tool_documents_bound(k, r)
                || reaching_tool_documents_range(k, r, key, numbers)
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
        Quiet::IfToolDocumentsTruncation => {
            let reaching = reaching_tools(k, r);
            !reaching.is_empty()
                && reaching.iter().all(|t| {
                    t.description
                        .as_ref()
                        .is_some_and(|d| crate::model::words::says_output_cut(&d.value))
                })
        }
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
            let reaching = reaching_tools(k, r);
            // The argument by its own name, or, in a helper that receives
            // it as sent (`_bounded_limit(value)` called with `limit`), by
            // the names the model knows it by.
            let param = f.fns[r.index].params.iter().position(|p| p.name == *key);
            let aliases = param.and_then(|i| k.surface.get(&r)?.names.get(&i));
            k.validates_args
                && !reaching.is_empty()
                && reaching.iter().all(|t| {
                    let Some(props) = t.input_schema.as_ref().and_then(|s| s.get("properties"))
                    else {
                        return false;
                    };
                    let found: Vec<&Node> = std::iter::once(key)
                        .chain(aliases.into_iter().flatten())
                        .filter_map(|name| props.get(name))
                        .collect();
                    !found.is_empty() && found.iter().all(|p| type_admits_only(p, *accepts))
                })
        }
        Quiet::IfSchemaEnum(key, known) => {
            let reaching = reaching_tools(k, r);
            let covered = |t: &&ToolDef| {
                let Some(NodeKind::Array(values)) = t
                    .input_schema
                    .as_ref()
                    .and_then(|s| s.get("properties"))
                    .and_then(|p| p.get(key))
                    .and_then(|p| p.get("enum"))
                    .map(|e| &e.kind)
                else {
                    return false;
                };
                let others = values
                    .iter()
                    .filter(|v| {
                        !v.as_str()
                            .is_some_and(|v| known.iter().any(|k| k.trim_matches('"') == v))
                    })
                    .count();
                !values.is_empty() && others <= 1
            };
            k.validates_args && !reaching.is_empty() && reaching.iter().all(covered)
        }
        Quiet::IfCheckedByCallers(mask) => k
            .surface
            .get(&r)
            .is_some_and(|reach| *mask != 0 && reach.unchecked & mask == 0),
        Quiet::IfToolDocumentsFallback(value) => k.surface.get(&r).is_some_and(|reach| {
            !reach.tools.is_empty()
                && reach
                    .tools
                    .iter()
                    .all(|t| documents_fallback(&k.tools[*t].def, value))
        }),
        Quiet::Any(all) => all.iter().any(|q| is_quiet(k, r, q, marked_callees)),
    }
}

/// Does a tool's description say that other values fall back to `value`
/// (a word, its quotes aside): "falls back to a generic summary",
/// "defaults to `auto`", "anything else is treated as text"?
fn documents_fallback(t: &ToolDef, value: &str) -> bool {
    let value = value.trim_matches(['"', '\'']).to_ascii_lowercase();
    if value.is_empty()
        || !value
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
    {
        return false;
    }
    t.description.as_ref().is_some_and(|d| {
        let d = d.value.to_ascii_lowercase();
        let says = [
            "fall back",
            "falls back",
            "fallback",
            "defaults to",
            "treated as",
        ]
        .iter()
        .any(|w| d.contains(w));
        let names = d
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
            .any(|w| w == value);
        says && names
    })
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

/// Does every number of a clamp lie below the `maximum` that a tool whose
/// handler reaches `f` states for `key`?
fn promises_more(k: &Unit, f: FnRef, key: &str, numbers: &[String]) -> bool {
    let Some(largest) = numbers
        .iter()
        .filter_map(|n| n.parse::<f64>().ok())
        .reduce(f64::max)
    else {
        return false;
    };
    k.surface.get(&f).is_some_and(|reach| {
        reach.tools.iter().any(|t| {
            let property = k.tools[*t]
                .def
                .input_schema
                .as_ref()
                .and_then(|s| s.get("properties"))
                .and_then(|p| p.get(key));
            let max = property
                .and_then(|p| p.get("maximum").or_else(|| p.get("exclusiveMaximum")))
                .and_then(|m| match &m.kind {
                    NodeKind::Number(n) => n.parse::<f64>().ok(),
                    _ => None,
                });
            max.is_some_and(|m| largest < m)
        })
    })
}

/// Does a tool whose handler reaches `f` give a range for `key` that ends
/// at one of `numbers`, in the property's description or on a line of the
/// tool's description that names it (`k: Number of results (1-100)`)?
fn reaching_tool_documents_range(k: &Unit, f: FnRef, key: &str, numbers: &[String]) -> bool {
    let states = |text: &str| {
        let text = text.to_ascii_lowercase();
        numbers
            .iter()
            .any(|n| crate::model::words::states_range_to(&text, n))
    };
    let documents = |def: &ToolDef| {
        let property = def
            .input_schema
            .as_ref()
            .and_then(|s| s.get("properties"))
            .and_then(|p| p.get(key))
            .and_then(|p| p.get("description"))
            .and_then(Node::as_str);
        property.is_some_and(states)
            || def.description.as_ref().is_some_and(|d| {
                d.value.lines().any(|l| {
                    has_phrase(&l.to_ascii_lowercase(), &key.to_ascii_lowercase()) && states(l)
                })
            })
    };
    k.surface.get(&f).is_some_and(|reach| {
        if reach.tools.is_empty() {
            // Reached from a dispatcher whose arm for each tool is not
            // known (a table of lambdas): the tools that declare `key`.
            let declaring: Vec<&ToolDef> = k
                .tools
                .iter()
                .map(|t| &t.def)
                .filter(|d| declares(d, key))
                .collect();
            return !declaring.is_empty() && declaring.iter().all(|d| documents(d));
        }
        reach.tools.iter().any(|t| documents(&k.tools[*t].def))
    })
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

/// How many calls deep the surface follows a handler.
const MAX_CALL_DEPTH: usize = 3;

/// The names the model knows a value by that a caller passes as `name`:
/// the names its parameter `name` has, or `name` itself (a key read).
fn model_names<'a>(
    caller: &FnFact,
    reach: &'a Reach,
    name: &'a str,
) -> impl Iterator<Item = String> + 'a {
    let param = caller.params.iter().position(|p| p.name == name);
    let known = param.and_then(|p| reach.names.get(&p));
    // Not a parameter: a key read, whose name is the model's.
    let own = param.is_none().then(|| name.to_string());
    known.into_iter().flatten().cloned().chain(own)
}

/// The callee parameters that receive, at a call, an argument holding one
/// of the caller's `roots` (the arguments object itself).
fn positions(call: &CallFact, offset: usize, shift: usize, roots: u64) -> u64 {
    let mut out = 0u64;
    for pos in offset..call.args.len() {
        let param = pos - offset + shift;
        if param >= 63 {
            break;
        }
        if call.roots.get(pos).is_some_and(|r| r & roots != 0) {
            out |= 1 << param;
        }
    }
    out
}

/// Parameters of a handler that carry the tool's input.
fn input_params(f: &FnFact) -> u64 {
    f.params
        .iter()
        .enumerate()
        .take(63)
        .filter(|(_, p)| !p.is_self && !p.is_context)
        .fold(0, |m, (i, _)| m | (1 << i))
}

/// Logging, auditing and metrics: what they do with arguments does not
/// reach the model, so the surface does not go into them.
fn side_channel(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    [
        "audit",
        "log_",
        "_log",
        "logging",
        "trace",
        "metric",
        "telemetry",
        "summary",
        "debug_",
        "emit_event",
        "record_",
    ]
    .iter()
    .any(|w| n.contains(w))
        || n == "log"
}

/// For each tool (by index), the functions of the surface that reach it,
/// in order.
pub fn by_tool(surface: &HashMap<FnRef, Reach>, tools: usize) -> Vec<Vec<FnRef>> {
    let mut by_tool: Vec<Vec<FnRef>> = vec![Vec::new(); tools];
    let mut reached: Vec<(&FnRef, &Reach)> = surface.iter().collect();
    reached.sort_by_key(|(f, _)| **f);
    for (f, reach) in reached {
        for t in &reach.tools {
            by_tool[*t].push(*f);
        }
    }
    by_tool
}

/// Handlers and dispatchers, then what they call, up to [`MAX_CALL_DEPTH`]:
/// each function with the parameters that carry tool arguments, those that
/// hold the arguments object, and the tools that reach it. A tool's reach
/// stops at another tool's handler.
pub fn surface(
    files: &[FileFacts],
    tools: &[CodeTool],
    dispatchers: &BTreeSet<FnRef>,
    targets: &dyn Fn(&CallFact, FnRef) -> Vec<FnRef>,
) -> HashMap<FnRef, Reach> {
    let mut out: HashMap<FnRef, Reach> = HashMap::new();
    let mut frontier: Vec<FnRef> = Vec::new();
    let add = |out: &mut HashMap<FnRef, Reach>,
               f: FnRef,
               flow: (u64, u64, u64),
               tools: &[(usize, u64)],
               names: Vec<(usize, String)>,
               unchecked: u64| {
        let e = out.entry(f).or_default();
        let before = (e.taint, e.direct, e.roots, e.unchecked);
        e.taint |= flow.0;
        e.direct |= flow.1;
        e.roots |= flow.2;
        e.unchecked |= unchecked;
        let mut changed = before != (e.taint, e.direct, e.roots, e.unchecked);
        for (param, name) in names {
            changed |= e.names.entry(param).or_default().insert(name);
        }
        for (t, r) in tools {
            changed |= e.tools.insert(*t);
            let mine = e.roots_by_tool.entry(*t).or_default();
            changed |= *mine | r != *mine;
            *mine |= r;
        }
        changed
    };
    let handlers: BTreeSet<FnRef> = tools.iter().filter_map(|t| t.handler).collect();
    for (ti, t) in tools.iter().enumerate() {
        if let Some(h) = t.handler {
            let fact = &files[h.file].fns[h.index];
            // A handler's input is the arguments: keys it reads from them
            // (`args.get(..)`, `request.arguments[..]`) are the tool's.
            let input = input_params(fact);
            // Its parameters are the arguments of the same names.
            let names = fact
                .params
                .iter()
                .enumerate()
                .filter(|(i, p)| input & (1 << i) != 0 && !p.is_args_object)
                .map(|(i, p)| (i, p.name.clone()))
                .collect();
            if add(
                &mut out,
                h,
                (input, input, input),
                &[(ti, input)],
                names,
                input,
            ) {
                frontier.push(h);
            }
        }
    }
    // Dispatchers are handler code too: an MCP server's `call_tool(request)`
    // and a `match` on the names of the crate's tools.
    for (fi, f) in files.iter().enumerate() {
        for (i, func) in f.fns.iter().enumerate() {
            let r = FnRef { file: fi, index: i };
            if func.is_test || !(func.takes_request || dispatchers.contains(&r)) {
                continue;
            }
            let input = input_params(func);
            if add(&mut out, r, (input, input, input), &[], Vec::new(), input) {
                frontier.push(r);
            }
        }
    }
    for _ in 0..MAX_CALL_DEPTH {
        let mut next = Vec::new();
        for f in frontier {
            let reach = out[&f].clone();
            let fact = &files[f.file].fns[f.index];
            for call in &fact.calls {
                for callee in targets(call, f) {
                    let target = &files[callee.file].fns[callee.index];
                    if target.is_test || side_channel(&target.name) {
                        continue;
                    }
                    // Map argument positions to the callee's parameters.
                    let has_self = target.params.first().is_some_and(|p| p.is_self);
                    let offset = usize::from(call.method && !has_self);
                    let shift = usize::from(!call.method && has_self && !call.self_arg);
                    let (mut taint, mut direct, mut roots) = (0u64, 0u64, 0u64);
                    let mut names = Vec::new();
                    let mut unchecked = 0u64;
                    for pos in offset..call.args.len() {
                        let param = pos - offset + shift;
                        if param >= 63 {
                            break;
                        }
                        if call.args[pos] & reach.taint != 0 {
                            taint |= 1 << param;
                        }
                        if call.args[pos] & reach.direct != 0
                            && call.direct.get(pos).copied().unwrap_or(false)
                        {
                            direct |= 1 << param;
                            if let Some(Some(n)) = call.arg_names.get(pos) {
                                names.extend(model_names(fact, &reach, n).map(|m| (param, m)));
                            }
                            // Checked here, or holding only parameters every
                            // caller checked.
                            let checked = (pos < 63 && call.checked & (1 << pos) != 0)
                                || call.args[pos] & reach.unchecked == 0;
                            if !checked {
                                unchecked |= 1 << param;
                            }
                        }
                        if call.roots.get(pos).is_some_and(|r| r & reach.roots != 0) {
                            roots |= 1 << param;
                        }
                    }
                    // Another tool's handler is that tool's, not this one's.
                    let tools: Vec<(usize, u64)> = if handlers.contains(&callee) {
                        Vec::new()
                    } else {
                        reach
                            .tools
                            .iter()
                            .map(|t| {
                                let mine = reach.roots_by_tool.get(t).copied().unwrap_or(0);
                                (t.to_owned(), positions(call, offset, shift, mine))
                            })
                            .collect()
                    };
                    if add(
                        &mut out,
                        callee,
                        (taint, direct, roots),
                        &tools,
                        names,
                        unchecked,
                    ) {
                        next.push(callee);
                    }
                }
            }
        }
        frontier = next;
        if frontier.is_empty() {
            break;
        }
    }
    out
}
