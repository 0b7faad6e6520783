//! Linking the files of one crate: tool names through constants and the
//! functions that build them, schemas from types and schema functions,
//! handlers through impls and name dispatch, and the tool-call surface
//! (handlers, the functions they call, and which parameters carry tool
//! arguments) that decides which code-rule candidates are reported.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use super::analyze::{CALL_METHODS, SCHEMA_METHODS, synth};
use super::values::{owned_type, type_name};
use crate::link::{CodeTool, FnRef, Unit};
use crate::model::code::*;
use crate::model::{Handler, Intake, Label, NameAlternative, SchemaKind, Spanned, ToolDef};
use crate::source::{SourceFile, Span};
use crate::syntax::{Member, Node, NodeKind};

/// How far the surface reaches from a handler through calls.
/// A name defined this many times in a crate is too common to follow.
const MAX_SAME_NAME: usize = 4;

struct Index<'a> {
    files: &'a [FileFacts],
    fns: HashMap<&'a str, Vec<FnRef>>,
    structs: HashMap<&'a str, Vec<(usize, usize)>>,
    consts: HashMap<&'a str, Vec<(usize, &'a ConstFact)>>,
    /// `static`/`const` items whose value is a schema, by name.
    statics: HashMap<&'a str, Vec<(usize, &'a SchemaExpr)>>,
    /// Methods by (self type, name), for `self.f()` and `Type::f()`.
    methods: HashMap<(&'a str, &'a str), Vec<FnRef>>,
    /// The first registration of each tool name: its file and the
    /// handler's type as written there.
    registered: HashMap<&'a str, (usize, &'a str)>,
    /// The first dispatch arm of each tool name, with its file.
    dispatched: HashMap<&'a str, (usize, &'a Dispatch)>,
    /// Calls that pass followable string values, by callee name.
    calls_to: HashMap<&'a str, Vec<(FnRef, &'a CallFact)>>,
    /// Values struct literals put in fields, by (type, field), with their file.
    field_inits: HashMap<(&'a str, &'a str), Vec<(usize, &'a FieldInit)>>,
}

/// A schema node, the file its spans point into, and the struct it was
/// derived from, if any ([`PARAMS`] for rmcp `#[tool(param)]` parameters).
type ResolvedSchema = (Node, usize, Option<(usize, usize)>);

/// The "struct" of a schema derived from a method's parameters.
const PARAMS: (usize, usize) = (usize::MAX, usize::MAX);

/// A resolved name: its text, holes, and where it is written.
struct Name {
    value: String,
    holes: Vec<(usize, usize)>,
    file: usize,
    span: Span,
    /// Other values the name may have (`if`/`match` branches, callers
    /// passing different names).
    alternatives: Vec<Name>,
}

impl Name {
    fn new(value: String, holes: Vec<(usize, usize)>, file: usize, span: Span) -> Self {
        Name {
            value,
            holes,
            file,
            span,
            alternatives: Vec::new(),
        }
    }

    /// The first of `names` with the others as its alternatives.
    fn may_be(names: Vec<Name>) -> Option<Name> {
        let mut all = Vec::new();
        for mut n in names {
            let alts = std::mem::take(&mut n.alternatives);
            all.push(n);
            all.extend(alts);
        }
        let mut seen = BTreeSet::new();
        all.retain(|n| seen.insert((n.value.clone(), n.holes.clone())));
        let mut it = all.into_iter();
        let mut first = it.next()?;
        first.alternatives = it.collect();
        Some(first)
    }
}

impl<'a> Index<'a> {
    fn new(files: &'a [FileFacts]) -> Self {
        let mut fns: HashMap<&str, Vec<FnRef>> = HashMap::new();
        let mut structs: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
        let mut consts: HashMap<&str, Vec<(usize, &ConstFact)>> = HashMap::new();
        let mut statics: HashMap<&str, Vec<(usize, &SchemaExpr)>> = HashMap::new();
        let mut methods: HashMap<(&str, &str), Vec<FnRef>> = HashMap::new();
        let mut registered: HashMap<&str, (usize, &str)> = HashMap::new();
        let mut dispatched: HashMap<&str, (usize, &Dispatch)> = HashMap::new();
        let mut calls_to: HashMap<&str, Vec<(FnRef, &CallFact)>> = HashMap::new();
        let mut field_inits: HashMap<(&str, &str), Vec<(usize, &FieldInit)>> = HashMap::new();
        for (fi, f) in files.iter().enumerate() {
            for init in &f.field_inits {
                field_inits
                    .entry((init.ty.as_str(), init.field.as_str()))
                    .or_default()
                    .push((fi, init));
            }
            for r in &f.registrations {
                registered.entry(&r.tool).or_insert((fi, &r.handler_type));
            }
            for d in &f.dispatch {
                // An arm that hands the arguments on (`"exec" => exec(ws,
                // &input)`) over one that only makes a label from them
                // (`"exec" => format!("Running {target}")`).
                let e = dispatched.entry(&d.tool).or_insert((fi, d));
                if d.hands && !e.1.hands {
                    *e = (fi, d);
                }
            }
            for (i, func) in f.fns.iter().enumerate() {
                let r = FnRef { file: fi, index: i };
                fns.entry(&func.name).or_default().push(r);
                // Tests call with names of their own making.
                let calls = func.calls.iter().filter(|_| !func.is_test);
                for call in calls.filter(|c| !c.values.is_empty()) {
                    calls_to.entry(&call.callee).or_default().push((r, call));
                }
                if let Some(id) = func.impl_id {
                    methods
                        .entry((f.impls[id].self_type.as_str(), func.name.as_str()))
                        .or_default()
                        .push(r);
                }
            }
            for (i, s) in f.structs.iter().enumerate() {
                structs.entry(&s.name).or_default().push((fi, i));
            }
            for c in &f.consts {
                consts.entry(&c.name).or_default().push((fi, c));
            }
            for (name, e) in &f.schema_statics {
                statics.entry(name).or_default().push((fi, e));
            }
        }
        Index {
            statics,
            field_inits,
            files,
            fns,
            structs,
            consts,
            methods,
            registered,
            dispatched,
            calls_to,
        }
    }

    /// Functions a call to `name` may reach: none when the name is too
    /// common to tell.
    fn callees(&self, name: &str) -> &[FnRef] {
        match self.fns.get(name) {
            Some(v) if v.len() <= MAX_SAME_NAME => v,
            _ => &[],
        }
    }

    fn self_type(&self, f: FnRef) -> Option<&str> {
        let fact = &self.files[f.file].fns[f.index];
        fact.impl_id
            .map(|i| self.files[f.file].impls[i].self_type.as_str())
    }

    /// The functions of the crate `call` (made in `caller`) may reach, as
    /// far as its form tells: a method of the same type, of a named type, a
    /// free function, or a method of another value when the name is unique.
    fn targets(&self, call: &CallFact, caller: FnRef) -> Vec<FnRef> {
        let Some(all) = self.fns.get(call.callee.as_str()) else {
            return Vec::new();
        };
        let has_self = |r: &FnRef| {
            self.files[r.file].fns[r.index]
                .params
                .first()
                .is_some_and(|p| p.is_self)
        };
        let picked: Vec<FnRef> = match &call.target {
            CallTarget::External => Vec::new(),
            CallTarget::OwnType => self
                .self_type(caller)
                .and_then(|t| self.methods.get(&(t, call.callee.as_str())))
                .cloned()
                .unwrap_or_default(),
            CallTarget::Type(t) => self
                .methods
                .get(&(t.as_str(), call.callee.as_str()))
                .cloned()
                .unwrap_or_default(),
            CallTarget::Free => {
                let free: Vec<FnRef> = all.iter().filter(|r| !has_self(r)).copied().collect();
                let same_file: Vec<FnRef> = free
                    .iter()
                    .filter(|r| r.file == caller.file)
                    .copied()
                    .collect();
                if same_file.is_empty() {
                    free
                } else {
                    same_file
                }
            }
            CallTarget::Method => {
                // `self.vault.add_tags(..)` in `Server::add_tags`: a method
                // called on another value is not one of the caller's own
                // type (a handler and the store method it calls often share
                // a name).
                let own = self.self_type(caller);
                let any: Vec<FnRef> = all.iter().filter(|r| has_self(r)).copied().collect();
                let others: Vec<FnRef> = any
                    .iter()
                    .filter(|r| own.is_none() || self.self_type(**r) != own)
                    .copied()
                    .collect();
                // The own type's method stays the answer when it is the only
                // one (`this.execute(..)` on a clone of `self`).
                let methods = if others.len() == 1 { others } else { any };
                if methods.len() == 1 {
                    methods
                } else {
                    Vec::new()
                }
            }
        };
        if picked.len() > MAX_SAME_NAME {
            Vec::new()
        } else {
            picked
        }
    }

    fn resolve_name(
        &self,
        e: &ValueExpr,
        file: usize,
        impl_id: Option<usize>,
        depth: usize,
    ) -> Option<Name> {
        if depth > 4 {
            return None;
        }
        match e {
            ValueExpr::Str(s) => Some(Name::new(s.value.clone(), Vec::new(), file, s.span)),
            ValueExpr::Format {
                template,
                holes,
                span,
            } => Some(Name::new(template.clone(), holes.clone(), file, *span)),
            ValueExpr::OneOf(alts) => Name::may_be(
                alts.iter()
                    .filter_map(|a| self.resolve_name(a, file, impl_id, depth + 1))
                    .collect(),
            ),
            // What the function's callers pass (one level of call sites).
            ValueExpr::Param {
                position, fn_index, ..
            } => {
                let target = FnRef {
                    file,
                    index: *fn_index,
                };
                let fact = self.files.get(file)?.fns.get(*fn_index)?;
                let callers = self.calls_to.get(fact.name.as_str())?;
                if callers.len() > 4 * MAX_SAME_NAME {
                    return None;
                }
                let names: Vec<Name> = callers
                    .iter()
                    .filter(|(caller, call)| self.targets(call, *caller).contains(&target))
                    .filter_map(|(caller, call)| {
                        let v = call.values.get(*position)?;
                        let c = &self.files[caller.file].fns[caller.index];
                        self.resolve_name(v, caller.file, c.impl_id, depth + 1)
                    })
                    .collect();
                Name::may_be(names)
            }
            ValueExpr::Const(name, _) => {
                let all = self.consts.get(name.as_str())?;
                // The same impl, then the same file, then the only one.
                let pick = all
                    .iter()
                    .find(|(f, c)| *f == file && impl_id.is_some() && c.impl_id == impl_id)
                    .or_else(|| all.iter().find(|(f, c)| *f == file && c.impl_id.is_none()))
                    .or_else(|| (all.len() == 1).then(|| &all[0]))?;
                self.resolve_name(&pick.1.value, pick.0, pick.1.impl_id, depth + 1)
            }
            ValueExpr::Call(name, _) => {
                let fns = self.fns.get(name.as_str())?;
                // Prefer the function of the same impl.
                let same_impl: Vec<&FnRef> = self.in_impl(fns, file, impl_id).collect();
                let candidates: Vec<&FnRef> = if same_impl.is_empty() {
                    fns.iter().collect()
                } else {
                    same_impl
                };
                // A name defined in many places says nothing (and following
                // every one of them is exponential in the depth).
                if candidates.len() > MAX_SAME_NAME {
                    return None;
                }
                let mut resolved: Vec<Name> = candidates
                    .iter()
                    .filter_map(|f| {
                        let fact = &self.files[f.file].fns[f.index];
                        self.resolve_name(&fact.returns, f.file, fact.impl_id, depth + 1)
                    })
                    .collect();
                // Say nothing unless every definition agrees.
                let first = resolved.pop()?;
                (resolved.iter().all(|r| r.value == first.value)
                    && candidates.len() == resolved.len() + 1)
                    .then_some(first)
            }
            // `&self.tool_name`: what the type's struct literals put there
            // (`Self { tool_name: format!("{}.{}", skill, tool.name), .. }`).
            ValueExpr::Field(field, _) => {
                let id = impl_id?;
                let ty = self.files.get(file)?.impls.get(id)?.self_type.as_str();
                let inits = self.field_inits.get(&(ty, field.as_str()))?;
                if inits.len() > MAX_SAME_NAME {
                    return None;
                }
                Name::may_be(
                    inits
                        .iter()
                        .filter_map(|(fi, init)| {
                            let owner = self.files[*fi].fns.get(init.fn_index)?;
                            self.resolve_name(&init.value, *fi, owner.impl_id, depth + 1)
                        })
                        .collect(),
                )
            }
            ValueExpr::Unknown => None,
        }
    }

    /// The functions of `fns` in impl `impl_id` of `file` (none without one).
    fn in_impl<'f>(
        &self,
        fns: &'f [FnRef],
        file: usize,
        impl_id: Option<usize>,
    ) -> impl Iterator<Item = &'f FnRef> {
        fns.iter().filter(move |f| {
            f.file == file
                && impl_id.is_some()
                && self.files[f.file].fns[f.index].impl_id == impl_id
        })
    }

    fn find_struct(&self, name: &str, file: usize) -> Option<(usize, usize)> {
        let all = self.structs.get(type_name(name))?;
        all.iter()
            .find(|(f, _)| *f == file)
            .or_else(|| (all.len() == 1).then(|| &all[0]))
            .copied()
    }

    /// A `"description": NO_RUN_DESC` in a `json!` schema: the constant's
    /// text when it is a literal, so the description is known (a bound it
    /// states, a change of it), not a run-time value.
    fn fill_descriptions(&self, n: &mut Node, file: usize, impl_id: Option<usize>, depth: usize) {
        if depth > crate::syntax::MAX_DEPTH {
            return;
        }
        match &mut n.kind {
            NodeKind::Object(members) => {
                for m in members {
                    if m.key == "description"
                        && let NodeKind::Opaque(text) = &m.value.kind
                        && let e @ ValueExpr::Const(..) =
                            super::values::value_from_text(text, m.value.span)
                        && let Some(name) = self.resolve_name(&e, file, impl_id, 0)
                        && name.holes.is_empty()
                        && name.alternatives.is_empty()
                    {
                        m.value.kind = NodeKind::String(name.value);
                    } else {
                        self.fill_descriptions(&mut m.value, file, impl_id, depth + 1);
                    }
                }
            }
            NodeKind::Array(items) => {
                for i in items {
                    self.fill_descriptions(i, file, impl_id, depth + 1);
                }
            }
            _ => {}
        }
    }

    /// The schema node, the file its spans point into, and whether it was
    /// derived from a type (with that type).
    fn resolve_schema(
        &self,
        e: &SchemaExpr,
        file: usize,
        impl_id: Option<usize>,
        depth: usize,
    ) -> Option<ResolvedSchema> {
        if depth > 4 {
            return None;
        }
        match e {
            SchemaExpr::Json(n) => {
                let mut n = n.clone();
                self.fill_descriptions(&mut n, file, impl_id, 0);
                Some((n, file, None))
            }
            SchemaExpr::Type(t, at) | SchemaExpr::Schemars(t, at) => {
                let nulls = matches!(e, SchemaExpr::Schemars(..));
                let Some(s) = self.find_struct(t, file) else {
                    // `schema_for::<Vec<Entry>>()`: an array at the root.
                    if json_type(t) != Some("array") {
                        return None;
                    }
                    let derive = Derive::new(self.files, file, nulls);
                    let members = derive.type_schema(t, *at, &mut Vec::new());
                    return Some((synth(NodeKind::Object(members), *at), file, Some(PARAMS)));
                };
                let st = &self.files[s.0].structs[s.1];
                let derive = Derive::new(self.files, s.0, nulls);
                let mut within = vec![st.name.as_str()];
                Some((
                    derive.struct_schema(st, st.name_span, &mut within),
                    s.0,
                    Some(s),
                ))
            }
            SchemaExpr::Params(fields, at) => {
                // Derived, but from parameters rather than a struct.
                let derive = Derive::new(self.files, file, false);
                let node = derive.fields_schema(fields, false, *at, &mut Vec::new());
                Some((node, file, Some(PARAMS)))
            }
            SchemaExpr::Static(name, _) => {
                let all = self.statics.get(name.as_str())?;
                let (f, e) = all
                    .iter()
                    .find(|(f, _)| *f == file)
                    .or_else(|| (all.len() == 1).then(|| &all[0]))?;
                self.resolve_schema(e, *f, None, depth + 1)
            }
            SchemaExpr::Call(name, _) => {
                let fns = self.fns.get(name.as_str())?;
                // The same impl, then the same file, then the only one.
                let f = self
                    .in_impl(fns, file, impl_id)
                    .next()
                    .or_else(|| fns.iter().find(|f| f.file == file))
                    .or_else(|| (fns.len() == 1).then(|| &fns[0]))?;
                let fact = &self.files[f.file].fns[f.index];
                self.resolve_schema(
                    fact.returns_schema.as_ref()?,
                    f.file,
                    fact.impl_id,
                    depth + 1,
                )
            }
        }
    }
}

/// The JSON Schema type of a Rust type, as schemars would write it.
fn json_type(ty: &str) -> Option<&'static str> {
    let base = type_name(
        ty.trim_start_matches('&')
            .trim_start_matches("'static ")
            .trim(),
    );
    Some(match base {
        "String" | "str" | "PathBuf" | "Path" | "Cow" | "char" | "Url" => "string",
        "bool" => "boolean",
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64" | "u128"
        | "usize" => "integer",
        "f32" | "f64" => "number",
        "Vec" | "HashSet" | "BTreeSet" | "VecDeque" => "array",
        "HashMap" | "BTreeMap" | "Map" | "JsonObject" => "object",
        "Option" => {
            let inner = ty.split_once('<')?.1.strip_suffix('>')?;
            return json_type(inner);
        }
        _ => return None,
    })
}

/// Derives schemas as schemars writes them, from the structs of one file:
/// a field whose type is another struct of the file that derives
/// `JsonSchema` gets that struct's schema, inline (schemars may write it
/// under `$defs` with a `$ref`; what it says is the same).
struct Derive<'a> {
    structs: &'a [StructFact],
    /// With schemars' own settings, an `Option<T>` is `"type": [T,
    /// "null"]`; SDKs that derive through schemars may rewrite it (rmcp 0.x
    /// added `nullable: true` instead), so it is left as `T` there.
    nulls: bool,
}

impl<'a> Derive<'a> {
    fn new(files: &'a [FileFacts], file: usize, nulls: bool) -> Self {
        Derive {
            structs: files.get(file).map_or(&[], |f| f.structs.as_slice()),
            nulls,
        }
    }

    /// The struct of the file a type names, when it derives `JsonSchema`.
    fn nested(&self, ty: &str) -> Option<&'a StructFact> {
        let name = type_name(ty);
        self.structs
            .iter()
            .find(|s| s.name == name && s.derives("JsonSchema"))
    }

    /// The members of the schema schemars writes for a Rust type: its
    /// `type`, for sequences their `items` (`{}` when the element type is
    /// not known here), for a struct of the file its properties. `within`:
    /// the structs being derived, so a recursive type stops at `{}`.
    fn type_schema(&self, ty: &str, at: Span, within: &mut Vec<&'a str>) -> Vec<Member> {
        let owned = |ty: &str| ty.trim_start_matches('&').trim().to_string();
        let (ty, optional) = match owned(ty)
            .strip_prefix("Option<")
            .and_then(|r| r.strip_suffix('>'))
        {
            Some(inner) => (inner.trim().to_string(), true),
            None => (owned(ty), false),
        };
        let ty = ty.as_str();
        let Some(t) = json_type(ty) else {
            return match self.nested(ty) {
                Some(st) if within.len() < 8 && !within.contains(&st.name.as_str()) => {
                    within.push(&st.name);
                    let node = self.struct_schema(st, at, within);
                    within.pop();
                    match node.kind {
                        NodeKind::Object(members) => members,
                        _ => Vec::new(),
                    }
                }
                _ => Vec::new(),
            };
        };
        let type_value = if self.nulls && optional {
            NodeKind::Array(vec![
                synth(NodeKind::String(t.into()), at),
                synth(NodeKind::String("null".into()), at),
            ])
        } else {
            NodeKind::String(t.into())
        };
        let mut members = vec![member("type", synth(type_value, at), at)];
        if t == "array" {
            let inner = ty
                .split_once('<')
                .and_then(|(_, r)| r.rsplit_once('>'))
                .map(|(i, _)| i.trim())
                .unwrap_or("");
            // schemars writes `"items": true` for a `Vec<serde_json::Value>`.
            let item = if type_name(inner) == "Value" {
                NodeKind::Bool(true)
            } else if within.len() < 8 {
                within.push("");
                let item = NodeKind::Object(self.type_schema(inner, at, within));
                within.pop();
                item
            } else {
                NodeKind::Object(Vec::new())
            };
            members.push(member("items", synth(item, at), at));
        }
        members
    }

    /// The schema schemars derives from a struct: spans point at its fields.
    fn struct_schema(&self, st: &'a StructFact, at: Span, within: &mut Vec<&'a str>) -> Node {
        self.fields_schema(&st.fields, st.deny_unknown_fields, at, within)
    }

    fn fields_schema(
        &self,
        fields: &'a [FieldFact],
        closed: bool,
        at: Span,
        within: &mut Vec<&'a str>,
    ) -> Node {
        let mut props = Vec::new();
        let mut required = Vec::new();
        for f in fields.iter().filter(|f| !f.skip && !f.flatten) {
            let ty = f.schema_with.as_deref().unwrap_or(&f.ty);
            // `schema_with = "f"`: `f` writes the schema, unknown here.
            let mut members = if f.schema_fn {
                Vec::new()
            } else {
                self.type_schema(ty, f.span, within)
            };
            for (key, bound) in [("minimum", &f.range.0), ("maximum", &f.range.1)] {
                let Some(b) = bound else { continue };
                // A literal as a number; a constant (`max = MAX_PAGE`) as a
                // run-time value: stated, but not known here.
                let n = b.replace('_', "");
                let kind = if n.parse::<f64>().is_ok() {
                    NodeKind::Number(n)
                } else {
                    NodeKind::Opaque(b.clone())
                };
                members.push(member(key, synth(kind, f.span), f.span));
            }
            if let Some(d) = &f.description {
                members.push(member(
                    "description",
                    synth(NodeKind::String(d.clone()), f.span),
                    f.span,
                ));
            }
            // schemars writes `true` for a bare `serde_json::Value` (any JSON
            // value); a doc comment turns it into `{"description": …}`.
            let any_value = type_name(ty.trim_start_matches('&').trim()) == "Value"
                || ty
                    .trim()
                    .strip_prefix("Option<")
                    .and_then(|r| r.strip_suffix('>'))
                    .is_some_and(|i| type_name(i.trim()) == "Value");
            // `#[serde(default)]`: schemars writes the default beside it.
            if any_value && f.serde_default && members.is_empty() {
                members.push(member("default", synth(NodeKind::Null, f.span), f.span));
            }
            let value = if any_value && members.is_empty() && !f.schema_fn {
                NodeKind::Bool(true)
            } else {
                NodeKind::Object(members)
            };
            props.push(member(&f.wire, synth(value, f.span), f.span));
            if !f.optional {
                required.push(synth(NodeKind::String(f.wire.clone()), f.span));
            }
        }
        let mut root = vec![
            member("type", synth(NodeKind::String("object".into()), at), at),
            member("properties", synth(NodeKind::Object(props), at), at),
        ];
        if !required.is_empty() {
            root.push(member("required", synth(NodeKind::Array(required), at), at));
        }
        if closed {
            root.push(member(
                "additionalProperties",
                synth(NodeKind::Bool(false), at),
                at,
            ));
        }
        synth(NodeKind::Object(root), at)
    }
}

fn member(key: &str, value: Node, at: Span) -> Member {
    Member {
        key: key.to_string(),
        key_span: at,
        value,
    }
}

/// The crate's rewrites of tool `name()` results, once each, in file order.
fn name_rewrites(files: &[FileFacts]) -> Vec<(usize, &NameRewrite)> {
    let mut seen = BTreeSet::new();
    files
        .iter()
        .enumerate()
        .flat_map(|(fi, f)| f.name_rewrites.iter().map(move |r| (fi, r)))
        .filter(|(_, r)| seen.insert((r.from.as_str(), r.to.as_str())))
        .collect()
}

/// Does a crate build a JSON Schema validator outside tests and outside
/// code named for configuration (`load_config`, `settings.rs`): an agent
/// runtime checking tool arguments against the tool's schema?
pub fn validates_tool_arguments(files: &[FileFacts]) -> bool {
    let about_config = |s: &str| {
        let s = s.to_ascii_lowercase();
        ["config", "setting", "manifest"]
            .iter()
            .any(|w| s.contains(w))
    };
    // The file's own name, not the folder the scan was started from.
    let file_name = |f: &FileFacts| {
        f.file
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    files.iter().any(|f| {
        !about_config(&file_name(f))
            && f.fns
                .iter()
                .any(|g| g.validates_schema && !g.is_test && !about_config(&g.name))
    })
}

/// Does a crate fill a `name` field with a function that maps characters
/// outside a set to `_` (`"name": names::to_wire(&spec.name)`, where
/// `to_wire` or a function it calls sanitises: see
/// `sites::sanitises_names`)? Outside tests.
pub fn maps_tool_names(files: &[FileFacts]) -> bool {
    let sanitisers: BTreeSet<&str> = files
        .iter()
        .flat_map(|f| &f.fns)
        .filter(|g| g.sanitises_names && !g.is_test)
        .map(|g| g.name.as_str())
        .collect();
    if sanitisers.is_empty() {
        return false;
    }
    let maps = |name: &str| {
        sanitisers.contains(name)
            || files.iter().flat_map(|f| &f.fns).any(|g| {
                g.name == name
                    && !g.is_test
                    && g.calls
                        .iter()
                        .any(|c| sanitisers.contains(c.callee.as_str()))
            })
    };
    files
        .iter()
        .flat_map(|f| &f.fns)
        .any(|g| !g.is_test && g.name_field_callees.iter().any(|c| maps(c)))
}

/// Links one crate. `group` names the tool list the crate's tools form;
/// `own_group` says which files form lists of their own (examples);
/// `rmcp_type_arrays`: the crate's rmcp derives `Option<T>` as `"type": [T,
/// "null"]` (see [`super::deps`]); `validates_args`: the crate or
/// a crate it depends on validates tool arguments against their schemas.
pub fn link(
    files: Vec<FileFacts>,
    group: &str,
    own_group: &dyn Fn(&SourceFile) -> bool,
    rmcp_type_arrays: bool,
    validates_args: bool,
) -> Unit {
    let mut files = files;
    add_caller_tools(&mut files);
    add_registered_tools(&mut files);
    let idx = Index::new(&files);
    let rewrites = name_rewrites(&files);
    let mut tools = Vec::new();
    let mut seen: BTreeSet<(String, usize, usize)> = BTreeSet::new();
    for (fi, f) in files.iter().enumerate() {
        for decl in &f.tools {
            let name_fi = decl.name_file.unwrap_or(fi);
            // A name only known at run time stays a tool when its schema is
            // known: `{}`, one hole, which the name rules leave alone; its
            // schema and handler are still checked. Without a schema, such a
            // shape is as often a tool call or a `tool_choice` as a tool.
            let resolved = idx.resolve_name(&decl.name, name_fi, decl.impl_id, 0);
            let mut name = match resolved {
                Some(n) => n,
                None if decl.schema.as_ref().is_some_and(|s| {
                    idx.resolve_schema(s, fi, decl.impl_id, 0)
                        .is_some_and(|(n, _, _)| n.is_object())
                }) =>
                {
                    {
                        // Shown as the expression it comes from (`{tools::READ_FILE}`).
                        let expr: String = files[name_fi]
                            .file
                            .text
                            .get(decl.name_site.start..decl.name_site.end)
                            .unwrap_or("")
                            .split_whitespace()
                            .collect();
                        let expr = expr
                            .trim_end_matches(".to_string()")
                            .trim_end_matches(".to_owned()")
                            .trim_end_matches(".into()")
                            .trim_end_matches(".clone()")
                            .trim_start_matches('&');
                        let value =
                            if expr.is_empty() || expr.len() > 40 || expr.contains(['{', '}', '"'])
                            {
                                "{}".to_string()
                            } else {
                                format!("{{{expr}}}")
                            };
                        let len = value.len();
                        Name::new(value, vec![(0, len)], name_fi, decl.name_site)
                    }
                }
                None => continue,
            };
            // The crate sends `name()` rewritten: check what it sends.
            let mut rewritten = None;
            if decl.name_from_method && name.holes.is_empty() {
                for (rfi, r) in &rewrites {
                    let value = name.value.replace(&r.from, &r.to);
                    if value != name.value {
                        name.value = value;
                        rewritten.get_or_insert((*rfi, r.span));
                    }
                }
            }
            // One declaration per name and place (a trait tool is also
            // found through its `definition()`).
            if !seen.insert((name.value.clone(), fi, decl.span.start)) {
                continue;
            }
            // rmcp's `Parameters<T>` is derived as schemars writes it when
            // the crate's rmcp keeps the type arrays.
            let derived_by_rmcp = match &decl.schema {
                Some(SchemaExpr::Type(t, s))
                    if rmcp_type_arrays && decl.format == crate::model::ToolFormat::Rmcp =>
                {
                    Some(SchemaExpr::Schemars(t.clone(), *s))
                }
                _ => None,
            };
            let mut schema = derived_by_rmcp
                .as_ref()
                .or(decl.schema.as_ref())
                .and_then(|s| idx.resolve_schema(s, fi, decl.impl_id, 0));
            // The declaration's own method, then a dispatch on the name
            // (`"grep" => self.grep(args)`), then the impl's `call`.
            let handler = decl
                .handler
                .map(|index| FnRef { file: fi, index })
                .or_else(|| {
                    let ty = decl.handler_type.as_deref()?;
                    type_call_method(&idx, fi, ty).or_else(|| type_method(&idx, ty, CALL_METHODS))
                })
                // The tool's own impl runs it (`impl Tool for Bash { fn
                // execute }`), before any `match` on names elsewhere (a
                // permission gate, a preview, an icon table) — unless that
                // method is itself the dispatcher of a server's tools.
                .or_else(|| {
                    own_call_method(f, fi, decl.impl_id).filter(|h| !dispatches(f, h.index))
                })
                .or_else(|| dispatch_handler(&idx, &name.value))
                .or_else(|| registered_handler(&idx, &name.value))
                .or_else(|| own_call_method(f, fi, decl.impl_id))
                .or_else(|| {
                    decl.impl_id
                        .is_none()
                        .then(|| lone_call_fn(f, fi))
                        .flatten()
                });
            // `ToolSpec::for_args::<tool::Arguments>(..)` where every tool
            // module has its own `Arguments`: the one beside the handler.
            if schema.is_none()
                && let (Some(s @ (SchemaExpr::Type(..) | SchemaExpr::Schemars(..))), Some(h)) =
                    (&decl.schema, handler)
                && h.file != fi
            {
                schema = idx.resolve_schema(s, h.file, None, 0);
            }
            let args_decl = decl.args_type.as_ref().map(|(t, s)| (t.clone(), fi, *s));
            let args_from_handler = handler.and_then(|h| handler_args(&files, h));
            // A schema derived from `T` (`schema_for!(T)`) and a handler
            // that takes a `T`: the arguments are a `T`.
            let args_from_schema = match &decl.schema {
                Some(SchemaExpr::Type(t, span) | SchemaExpr::Schemars(t, span)) => handler
                    .filter(|h| {
                        files[h.file].fns[h.index]
                            .params
                            .iter()
                            .any(|p| !p.is_self && type_name(owned_type(&p.ty)) == t)
                    })
                    .map(|_| (t.clone(), fi, *span)),
                _ => None,
            };
            let (args, args_site) =
                args_struct(&idx, args_decl.or(args_from_handler).or(args_from_schema));
            let file = &f.file;
            let description = decl
                .description
                .as_ref()
                .map(|d| idx.resolve_name(d, fi, decl.impl_id, 0));
            let description_dynamic = matches!(description, Some(None));
            // Described in another file (a constant): point at the
            // declaration, which is in the tool's file.
            let description = description.flatten().map(|d| Spanned {
                value: d.value,
                span: if d.file == fi { d.span } else { decl.span },
            });
            let mut via = Vec::new();
            if name.file != name_fi || !decl.name_site_contains(name.span) {
                via.push(Label {
                    file: Arc::clone(&files[name_fi].file),
                    span: decl.name_site,
                    message: "used as the tool name here".into(),
                });
            }
            if let Some((rfi, span)) = rewritten {
                via.push(Label {
                    file: Arc::clone(&files[rfi].file),
                    span,
                    message: format!("sent as `{}` after this rewrite", name.value),
                });
            }
            let schema = schema.filter(|(n, _, _)| !matches!(n.kind, NodeKind::Opaque(_)));
            // `fn output_schema()`: the MCP `outputSchema`, kept when its
            // spans are in the tool's file (output views point there).
            let extras = decl
                .output_schema
                .as_ref()
                .and_then(|s| idx.resolve_schema(s, fi, decl.impl_id, 0))
                .filter(|(n, sf, _)| *sf == fi && !matches!(n.kind, NodeKind::Opaque(_)))
                .map(|(n, _, _)| {
                    let at = n.span;
                    synth(NodeKind::Object(vec![member("outputSchema", n, at)]), at)
                });
            let mut description = description;
            let (input_schema, schema_file, derived) = match schema {
                Some((node, sf, from)) => {
                    let (node, described) = declared_parameters(node);
                    // The declaration's own description, when the tool has
                    // none and it is written in the tool's file.
                    if description.is_none() && !description_dynamic && sf == fi {
                        description = described;
                    }
                    (Some(node), Arc::clone(&files[sf].file), from.is_some())
                }
                None => (None, Arc::clone(file), false),
            };
            // Tools offered together: an rmcp router (one impl), else the
            // tools declared in one file. Across files, a crate may hold
            // several independent tool sets (agents, tests, providers).
            let group = if own_group(file) {
                format!("{}#rust", file.display)
            } else if decl.crate_wide {
                format!("{group}#crate")
            } else if decl.format == crate::model::ToolFormat::Rmcp {
                format!(
                    "{group}#{}#impl{}",
                    file.display,
                    decl.impl_id.unwrap_or(usize::MAX)
                )
            } else {
                format!("{group}#{}", file.display)
            };
            tools.push(CodeTool {
                def: ToolDef {
                    name: Spanned {
                        value: name.value,
                        span: name.span,
                    },
                    name_file: Arc::clone(&files[name.file].file),
                    name_holes: name.holes,
                    name_via: via,
                    name_alternatives: name
                        .alternatives
                        .into_iter()
                        .map(|a| NameAlternative {
                            name: Spanned {
                                value: a.value,
                                span: a.span,
                            },
                            file: Arc::clone(&files[a.file].file),
                            holes: a.holes,
                        })
                        .collect(),
                    description,
                    description_dynamic,
                    input_schema,
                    schema_file,
                    schema_derived: derived,
                    handler: handler.map(|h| handler_info(&files, h)),
                    cfg: decl.cfg.clone(),
                    branch: decl.branch,
                    bound_before: decl.bound_before,
                    literal_list: decl.literal_list,
                    names_mapped: false,
                    intake: None,
                    needs_import: None,
                    strict: decl.strict,
                    extras,
                    format: decl.format,
                    file: Arc::clone(file),
                    span: decl.span,
                    pointer: String::new(),
                    name_pointer: "/name".into(),
                    schema_pointer: "/inputSchema".into(),
                    schema_kind: SchemaKind::JsonSchema,
                    group,
                },
                handler,
                args,
                args_site,
            });
        }
    }
    reference_tools(&files, &idx, group, &mut tools);
    tools.sort_by(|a, b| {
        (&a.def.file.display, a.def.span.start).cmp(&(&b.def.file.display, b.def.span.start))
    });
    // Functions that `match` on the names of the crate's tools.
    let names: BTreeSet<&str> = tools.iter().map(|t| t.def.name.value.as_str()).collect();
    // A `match` on tool names whose arms hand no arguments on (UI labels,
    // icons) is not where the calls run when another one's arms do.
    let handed: BTreeSet<&str> = files
        .iter()
        .flat_map(|f| &f.dispatch)
        .filter(|d| d.hands)
        .map(|d| d.tool.as_str())
        .collect();
    let handed = &handed;
    let dispatchers: BTreeSet<FnRef> = files
        .iter()
        .enumerate()
        .flat_map(|(fi, f)| {
            let handing: BTreeSet<usize> = f
                .dispatch
                .iter()
                .filter(|d| d.hands)
                .map(|d| d.fn_index)
                .collect();
            f.dispatch
                .iter()
                .filter(|d| names.contains(d.tool.as_str()))
                .filter(move |d| handing.contains(&d.fn_index) || !handed.contains(d.tool.as_str()))
                .map(move |d| FnRef {
                    file: fi,
                    index: d.fn_index,
                })
        })
        .collect();
    drop(names);
    let surface = crate::link::surface(idx.files, &tools, &dispatchers, &|call, f| {
        idx.targets(call, f)
    });
    drop(idx);
    let field_reads = files
        .iter()
        .flat_map(|f| f.field_reads.iter().cloned())
        .collect();
    let accessor_calls = files
        .iter()
        .flat_map(|f| f.accessor_calls.iter().cloned())
        .collect();
    let by_tool = crate::link::by_tool(&surface, tools.len());
    let mut k = Unit {
        files,
        tools,
        field_reads,
        accessor_calls,
        surface,
        dispatchers,
        by_tool,
        validates_args,
    };
    // What the handlers show of how they take their arguments.
    let intakes: Vec<Option<Intake>> = (0..k.tools.len())
        .map(|ti| {
            let t = &k.tools[ti];
            let h = t.handler?;
            if k.is_dispatcher(h) {
                return None;
            }
            let (reads, _) = k.reads_of(ti);
            let mut checked_keys: Vec<String> = reads
                .iter()
                .filter(|(_, r)| r.loud)
                .map(|(_, r)| r.key.clone())
                .collect();
            checked_keys.sort();
            checked_keys.dedup();
            Some(Intake {
                typed: t.args.is_some(),
                checked_keys,
            })
        })
        .collect();
    for (t, intake) in k.tools.iter_mut().zip(intakes) {
        t.def.intake = intake;
    }
    k
}

/// A tool record a helper builds from its parameters (`fn for_args<A>(name,
/// description) -> Self { Self { name: name.into(), .. } }`, an
/// `add_tool(name, ..)`) is a tool at each call of the helper: named,
/// described and (for a schema from the helper's type parameter) typed by
/// what the call passes, declared where the call is, and handled by the
/// impl the call is made for. With fewer than two calls the helper's own
/// declaration stands (its name followed to the one caller).
/// A "schema" that is a whole function declaration (`{"name": ..,
/// "description": .., "parameters": {..}}`, sent as the tool entry) holds
/// the input schema in `parameters`.
fn declared_parameters(node: Node) -> (Node, Option<Spanned<String>>) {
    let is_declaration = node.get("name").and_then(Node::as_str).is_some()
        && node.get("type").is_none()
        && node.get("properties").is_none();
    match node.get("parameters") {
        Some(p) if is_declaration && p.is_object() => {
            let described = node.get("description").and_then(|d| {
                d.as_str().map(|v| Spanned {
                    value: v.to_string(),
                    span: d.span,
                })
            });
            (p.clone(), described)
        }
        _ => (node, None),
    }
}

fn add_caller_tools(files: &mut [FileFacts]) {
    const MAX_CALLS: usize = 64;
    let mut new: Vec<(usize, ToolDecl)> = Vec::new();
    let mut expanded: BTreeSet<(usize, usize)> = BTreeSet::new();
    // The crate's non-test calls by callee, and the first impl whose method
    // calls each free function: built once, when a helper is found.
    type Calls<'f> = HashMap<&'f str, Vec<(usize, &'f FnFact, &'f CallFact)>>;
    let mut index: Option<(Calls, HashMap<&str, &str>)> = None;
    for (hf, f) in files.iter().enumerate() {
        for (di, decl) in f.tools.iter().enumerate() {
            let ValueExpr::Param {
                position, fn_index, ..
            } = decl.name
            else {
                continue;
            };
            let Some(helper) = f.fns.get(fn_index) else {
                continue;
            };
            let (calls, asking_impl) = index.get_or_insert_with(|| {
                let mut calls: Calls = HashMap::new();
                let mut asking: HashMap<&str, &str> = HashMap::new();
                for (cf, cfile) in files.iter().enumerate() {
                    for g in &cfile.fns {
                        for c in &g.calls {
                            if !g.is_test {
                                calls.entry(c.callee.as_str()).or_default().push((cf, g, c));
                            }
                            if let Some(id) = g.impl_id
                                && c.target == CallTarget::Free
                            {
                                asking
                                    .entry(c.callee.as_str())
                                    .or_insert(cfile.impls[id].self_type.as_str());
                            }
                        }
                    }
                }
                (calls, asking)
            });
            let helper_type = helper.impl_id.map(|id| f.impls[id].self_type.as_str());
            let mut sites = Vec::new();
            for &(cf, g, call) in calls.get(helper.name.as_str()).into_iter().flatten() {
                let own = g.impl_id.map(|id| files[cf].impls[id].self_type.as_str());
                let reaches = match (&call.target, helper_type) {
                    (CallTarget::Type(t), Some(ht)) => t == ht,
                    (CallTarget::OwnType, Some(_)) => own == helper_type,
                    (CallTarget::Free, None) => true,
                    _ => false,
                };
                let named = call
                    .values
                    .get(position)
                    .is_some_and(|v| *v != ValueExpr::Unknown);
                if reaches && named {
                    sites.push((cf, g, call));
                }
            }
            if sites.len() < 2 || sites.len() > MAX_CALLS {
                continue;
            }
            expanded.insert((hf, di));
            for (cf, caller, call) in sites {
                let name = call.values[position].clone();
                let mut d = ToolDecl::new(
                    name.clone(),
                    name.span().unwrap_or(call.span),
                    call.span,
                    decl.format,
                );
                // What the call passes; a value of the helper's own file
                // only when the call is in that file too (spans are per
                // file); else unknown, not absent.
                d.description = decl.description.as_ref().map(|desc| match desc {
                    ValueExpr::Param { position: p, .. } => {
                        call.values.get(*p).cloned().unwrap_or_default()
                    }
                    other if cf == hf => other.clone(),
                    _ => ValueExpr::Unknown,
                });
                d.schema = match &decl.schema {
                    Some(SchemaExpr::Type(t, _)) if helper.generics.contains(t) => call
                        .type_arg
                        .as_ref()
                        .map(|(ty, span)| SchemaExpr::Type(type_name(ty).to_string(), *span)),
                    Some(SchemaExpr::Schemars(t, _)) if helper.generics.contains(t) => call
                        .type_arg
                        .as_ref()
                        .map(|(ty, span)| SchemaExpr::Schemars(type_name(ty).to_string(), *span)),
                    other if cf == hf => other.clone(),
                    _ => None,
                };
                d.schema_site = d.schema.as_ref().map(|_| call.span);
                d.strict = decl.strict;
                d.cfg.clone_from(&caller.cfg);
                d.impl_id = caller.impl_id;
                // `fn spec(&self) -> ToolSpec { definitions::read_file() }`:
                // the impl that asks the caller for its tool handles it.
                if caller.impl_id.is_none() {
                    d.handler_type = asking_impl.get(caller.name.as_str()).map(|t| t.to_string());
                }
                new.push((cf, d));
            }
        }
    }
    for &(hf, di) in expanded.iter().rev() {
        files[hf].tools.remove(di);
    }
    for (cf, d) in new {
        files[cf].tools.push(d);
    }
}

/// A type registered under a name (`register_tool("echo", Box::new(Echo))`)
/// whose impl describes a tool (`fn description`, `fn input_schema`) but
/// names none: the registration names it.
fn add_registered_tools(files: &mut [FileFacts]) {
    let declared: BTreeSet<String> = files
        .iter()
        .flat_map(|f| &f.tools)
        .filter_map(|t| match &t.name {
            ValueExpr::Str(s) => Some(s.value.clone()),
            _ => None,
        })
        .collect();
    let regs: Vec<(usize, Registration)> = files
        .iter()
        .enumerate()
        .flat_map(|(i, f)| f.registrations.iter().map(move |r| (i, r.clone())))
        .filter(|(_, r)| !declared.contains(&r.tool))
        .collect();
    let mut impls: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
    for (ii, f) in files.iter().enumerate() {
        for (id, imp) in f.impls.iter().enumerate() {
            impls.entry(&imp.self_type).or_default().push((ii, id));
        }
    }
    // The impl of each registered type with a description or schema.
    let found: Vec<_> = regs
        .into_iter()
        .filter_map(|(fi, reg)| {
            let found = impls
                .get(reg.handler_type.as_str())?
                .iter()
                .find_map(|&(ii, id)| {
                    let f = &files[ii];
                    let fns: Vec<&FnFact> =
                        f.fns.iter().filter(|x| x.impl_id == Some(id)).collect();
                    let description = fns
                        .iter()
                        .find(|x| x.name == "description")
                        .map(|x| x.returns.clone());
                    let schema = fns
                        .iter()
                        .find(|x| SCHEMA_METHODS.contains(&x.name.as_str()))
                        .and_then(|x| x.returns_schema.clone());
                    (description.is_some() || schema.is_some()).then_some((
                        ii,
                        id,
                        description,
                        schema,
                    ))
                })?;
            Some((fi, reg, found))
        })
        .collect();
    drop(impls);
    for (fi, reg, (ii, id, description, schema)) in found {
        // Declared where the impl is, so the impl's methods handle it; named
        // where it is registered.
        files[ii].tools.push({
            let mut d = ToolDecl::new(
                ValueExpr::Str(Spanned {
                    value: reg.tool.clone(),
                    span: reg.name_span,
                }),
                reg.name_span,
                // The declaration is the impl; the registration names it.
                if ii == fi {
                    reg.span.start_only()
                } else {
                    files[ii].impls[id].span.start_only()
                },
                crate::model::ToolFormat::Rust,
            );
            d.description = description;
            d.schema = schema;
            d.impl_id = Some(id);
            d.name_file = (ii != fi).then_some(fi);
            d
        });
    }
}

impl ToolDecl {
    fn name_site_contains(&self, span: Span) -> bool {
        self.name_site.start <= span.start && span.end <= self.name_site.end
    }
}

/// A file that declares one tool and has a free `call`/`run`/`execute`
/// function (a single-tool plugin): that function handles it.
fn lone_call_fn(f: &FileFacts, fi: usize) -> Option<FnRef> {
    if f.tools.len() != 1 {
        return None;
    }
    CALL_METHODS.iter().find_map(|m| {
        f.fns
            .iter()
            .position(|x| x.name == *m && x.impl_id.is_none() && !x.is_test)
            .map(|index| FnRef { file: fi, index })
    })
}

/// The call-like method of the type registered for `tool`
/// (`register_handler("grep_files", Arc::new(GrepFilesHandler))`).
fn registered_handler(idx: &Index, tool: &str) -> Option<FnRef> {
    let &(fi, ty) = idx.registered.get(tool)?;
    type_call_method(idx, fi, ty).or_else(|| type_method(idx, ty, CALL_METHODS))
}

/// The call-like method of type `ty` as file `fi` names it, followed
/// through its imports (`use handlers::v2::WaitHandler as WaitHandlerV2`,
/// then `pub use wait::Handler as WaitHandler` in `v2`): the impl in the
/// module the path leads to, so that one of several types called `Handler`
/// is the one meant. Without an import, the file's own impl of `ty`.
fn type_call_method(idx: &Index, fi: usize, ty: &str) -> Option<FnRef> {
    let (tf, t) = resolve_type(idx.files, fi, ty, 0)?;
    let f = &idx.files[tf];
    CALL_METHODS.iter().find_map(|m| {
        f.fns
            .iter()
            .position(|x| x.name == *m && x.impl_id.is_some_and(|id| f.impls[id].self_type == t))
            .map(|index| FnRef { file: tf, index })
    })
}

/// The file that defines the type `name` as used in file `fi`, and its
/// name there: the file itself when it has an impl of it, else where its
/// import leads.
fn resolve_type(
    files: &[FileFacts],
    fi: usize,
    name: &str,
    depth: usize,
) -> Option<(usize, String)> {
    let f = &files[fi];
    if f.impls.iter().any(|i| i.self_type == name) {
        return Some((fi, name.to_string()));
    }
    if depth > 4 {
        return None;
    }
    let (_, path) = f.uses.iter().find(|(alias, _)| alias == name)?;
    let (item, module) = path.split_last()?;
    let mf = module_file(files, fi, module)?;
    resolve_type(files, mf, item, depth + 1)
}

/// The file of module `path` as written in file `fi` (`crate::a::b`,
/// `self::b`, `super::b`, or `b` relative to `fi`'s module), when exactly
/// one file of the crate is that module.
fn module_file(files: &[FileFacts], fi: usize, path: &[String]) -> Option<usize> {
    use std::path::{Path, PathBuf};
    let here = &files[fi].file.path;
    let dir = here.parent().unwrap_or(Path::new(""));
    let stem = here.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    // `lib.rs`, `main.rs` and `mod.rs` own their folder; `a.rs` owns `a/`.
    let own = if matches!(stem, "lib" | "main" | "mod") {
        dir.to_path_buf()
    } else {
        dir.join(stem)
    };
    let is = |f: &FileFacts, p: &Path| {
        f.file.path == p.with_extension("rs") || f.file.path == p.join("mod.rs")
    };
    let one = |found: Vec<usize>| (found.len() == 1).then(|| found[0]);
    let (first, rest) = path.split_first()?;
    match first.as_str() {
        // Absolute: the one file whose path ends with the module's.
        "crate" => {
            if rest.is_empty() {
                return None;
            }
            let tail: PathBuf = rest.iter().collect();
            one(files
                .iter()
                .enumerate()
                .filter(|(_, f)| {
                    let p = f.file.path.with_extension("");
                    p.ends_with(&tail)
                        || (p.ends_with("mod") && p.parent().is_some_and(|d| d.ends_with(&tail)))
                })
                .map(|(i, _)| i)
                .collect())
        }
        _ => {
            let (mut base, rest) = match first.as_str() {
                "self" => (own, rest),
                "super" => (own.parent()?.to_path_buf(), rest),
                _ => (own, path),
            };
            let mut rest = rest;
            while let [up, r @ ..] = rest
                && up == "super"
            {
                base = base.parent()?.to_path_buf();
                rest = r;
            }
            if rest.is_empty() {
                return None;
            }
            let target: PathBuf = base.join(rest.iter().collect::<PathBuf>());
            one(files
                .iter()
                .enumerate()
                .filter(|(_, f)| is(f, &target))
                .map(|(i, _)| i)
                .collect())
        }
    }
}

/// The first method named one of `names` of an impl of `ty` in the crate.
fn type_method(idx: &Index, ty: &str, names: &[&str]) -> Option<FnRef> {
    names
        .iter()
        .find_map(|m| idx.methods.get(&(ty, *m))?.first().copied())
}

/// Tools the crate only dispatches (`match tool { "disk.scan" =>
/// ops::disk::scan(args), .. }` with no declaration of `disk.scan` here):
/// declared in another file, language or service. They are listed, and
/// their handlers checked; their names and schemas are not judged here.
fn reference_tools(files: &[FileFacts], idx: &Index, group: &str, tools: &mut Vec<CodeTool>) {
    let declared: BTreeSet<String> = tools.iter().map(|t| t.def.name.value.clone()).collect();
    let mut seen = BTreeSet::new();
    for f in files {
        // A table, not one arm: two or more arms of the function each hand
        // the arguments whole to a function.
        let table = |index: usize| {
            f.dispatch
                .iter()
                .filter(|d| d.fn_index == index && d.names_tool)
                .nth(1)
                .is_some()
        };
        for d in &f.dispatch {
            if declared.contains(&d.tool)
                || !d.names_tool
                || !table(d.fn_index)
                || f.fns[d.fn_index].is_test
                || !seen.insert(d.tool.clone())
            {
                continue;
            }
            let handler = dispatch_handler(idx, &d.tool);
            let (args, args_site) = args_struct(idx, handler.and_then(|h| handler_args(files, h)));
            tools.push(reference_tool(
                files,
                f,
                (&d.tool, d.span),
                group,
                handler,
                (args, args_site),
            ));
        }
    }
    // Registered under a name (`register_handler("wait_agent",
    // Arc::new(WaitHandler))`) and declared elsewhere: the type's call
    // method handles the tool. Only a type the import paths (or the file
    // itself) resolve to one impl: a name like `Handler` may be many.
    let mut seen_regs = BTreeSet::new();
    for (fi, f) in files.iter().enumerate() {
        for r in &f.registrations {
            if declared.contains(&r.tool) || seen.contains(&r.tool) {
                continue;
            }
            let Some(h) = type_call_method(idx, fi, &r.handler_type) else {
                continue;
            };
            if !seen_regs.insert((r.tool.clone(), h)) {
                continue;
            }
            let (args, args_site) = args_struct(idx, handler_args(files, h));
            tools.push(reference_tool(
                files,
                f,
                (&r.tool, r.name_span),
                group,
                Some(h),
                (args, args_site),
            ));
        }
    }
}

/// A tool known only by its name where it is dispatched or registered:
/// listed with its handler, its name and schema not judged here.
fn reference_tool(
    files: &[FileFacts],
    f: &FileFacts,
    (tool, span): (&str, Span),
    group: &str,
    handler: Option<FnRef>,
    (args, args_site): ArgsAt,
) -> CodeTool {
    let file = Arc::clone(&f.file);
    CodeTool {
        def: ToolDef {
            name: Spanned {
                value: tool.to_string(),
                span,
            },
            name_file: Arc::clone(&file),
            name_holes: Vec::new(),
            name_via: Vec::new(),
            name_alternatives: Vec::new(),
            description: None,
            description_dynamic: true,
            input_schema: None,
            schema_file: Arc::clone(&file),
            schema_derived: false,
            handler: handler.map(|h| handler_info(files, h)),
            cfg: None,
            intake: None,
            needs_import: None,
            branch: None,
            bound_before: None,
            literal_list: None,
            names_mapped: false,
            strict: None,
            extras: None,
            format: crate::model::ToolFormat::Dispatch,
            span,
            pointer: String::new(),
            name_pointer: String::new(),
            schema_pointer: String::new(),
            schema_kind: SchemaKind::JsonSchema,
            group: format!("{group}#{}#dispatch", file.display),
            file,
        },
        handler,
        args,
        args_site,
    }
}

/// The type a handler deserialises the arguments into, and where. A
/// dispatcher deserialises each tool's arguments in its own arm: its first
/// type is not every tool's.
fn handler_args(files: &[FileFacts], h: FnRef) -> Option<(String, usize, Span)> {
    if dispatches(&files[h.file], h.index) {
        return None;
    }
    let (t, s, _) = files[h.file].fns[h.index].deserializes.first()?;
    Some((t.clone(), h.file, *s))
}

/// A tool's argument struct (file, index) and where the code says so.
type ArgsAt = (Option<(usize, usize)>, Option<(usize, Span)>);

/// The argument struct of a type name found in `file`, with the place that
/// says so.
fn args_struct(idx: &Index, found: Option<(String, usize, Span)>) -> ArgsAt {
    match found {
        Some((t, file, span)) => (idx.find_struct(&t, file), Some((file, span))),
        None => (None, None),
    }
}

/// What a tool's listing shows of its handler.
fn handler_info(files: &[FileFacts], h: FnRef) -> Handler {
    let fact = &files[h.file].fns[h.index];
    Handler {
        file: Arc::clone(&files[h.file].file),
        span: fact.name_span,
        name: fact.name.clone(),
    }
}

/// The function a name dispatch sends `tool` to: the first function called
/// in its arm that the crate defines; else the dispatcher itself.
fn dispatch_handler(idx: &Index, tool: &str) -> Option<FnRef> {
    let &(fi, d) = idx.dispatched.get(tool)?;
    let callee = d.callees.iter().find_map(|c| {
        let fns = idx.callees(c);
        fns.iter()
            .find(|r| {
                r.file == fi
                    && idx.files[r.file].fns[r.index].impl_id.is_some()
                        == idx.files[fi].fns[d.fn_index].impl_id.is_some()
            })
            .or_else(|| fns.iter().find(|r| r.file == fi))
            .or_else(|| (fns.len() == 1).then(|| &fns[0]))
            .copied()
    });
    Some(callee.unwrap_or(FnRef {
        file: fi,
        index: d.fn_index,
    }))
}

/// The call-like method of impl `impl_id` of file `f`.
fn own_call_method(f: &FileFacts, fi: usize, impl_id: Option<usize>) -> Option<FnRef> {
    let id = impl_id?;
    CALL_METHODS
        .iter()
        .find_map(|m| {
            f.fns
                .iter()
                .position(|x| x.impl_id == Some(id) && x.name == *m)
                .map(|index| FnRef { file: fi, index })
        })
        .or_else(|| {
            // Else the impl's one method named for running it with a
            // qualifier (`fn call_rmcp_tool`, `fn execute_tool`).
            let mut named = f.fns.iter().enumerate().filter(|(_, x)| {
                x.impl_id == Some(id)
                    && x.name.split_once('_').is_some_and(|(head, _)| {
                        ["call", "execute", "run", "invoke", "handle", "exec"].contains(&head)
                    })
            });
            match (named.next(), named.next()) {
                (Some((index, _)), None) => Some(FnRef { file: fi, index }),
                _ => None,
            }
        })
}

/// Does function `index` of `f` dispatch on tool names (`match name {
/// "a" => .., "b" => .. }`)?
fn dispatches(f: &FileFacts, index: usize) -> bool {
    f.dispatch
        .iter()
        .filter(|d| d.fn_index == index)
        .nth(1)
        .is_some()
}
