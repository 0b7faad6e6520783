//! What changed between the committed snapshot and the surface of this
//! scan: tools added, removed, renamed or moved, their descriptions,
//! arguments and other members, and the members of each profile.

use std::collections::{BTreeMap, BTreeSet};

use super::{ArgSnap, Current, Loaded, ToolKey, ToolSnap};

/// Is a recorded tool like a current one? (See the pairing in [`diff`].)
type Likeness<'a> = &'a dyn Fn(&ToolSnap, &ToolSnap) -> bool;
use crate::source::Span;

/// Where a change is best shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum At {
    /// A tool of this scan (`group`, index in the group), at a part of its
    /// definition: `""` its name, `"description"`, or an argument's name.
    Current {
        group: String,
        index: usize,
        part: Part,
    },
    /// An entry of the committed snapshot (a removed tool, a profile member
    /// that left).
    Snapshot(Span),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    Name,
    Description,
    /// A top-level property of the input schema.
    Argument(String),
    /// The input schema as a whole (a removed argument, a nested change).
    Schema,
    /// The whole definition (`annotations`, `_meta`, ..).
    Definition,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ChangeKind {
    ToolAdded,
    ToolRemoved,
    ToolRenamed,
    ToolMoved,
    Description,
    ArgumentAdded,
    ArgumentRemoved,
    ArgumentType,
    ArgumentRequired,
    ArgumentEnum,
    ArgumentDefault,
    ArgumentDescription,
    /// Inside an argument: nested properties, `items`, constraints.
    ArgumentSchema,
    /// `title`, `annotations`, `_meta`, `outputSchema` or `strict`.
    Member,
    Schema,
    ProfileEntered,
    ProfileLeft,
    ProfileAdded,
    ProfileRemoved,
}

impl ChangeKind {
    /// `added`, `removed` or `changed`, for a summary table.
    pub fn verb(self) -> &'static str {
        match self {
            ChangeKind::ToolAdded | ChangeKind::ProfileEntered | ChangeKind::ProfileAdded => {
                "added"
            }
            ChangeKind::ToolRemoved | ChangeKind::ProfileLeft | ChangeKind::ProfileRemoved => {
                "removed"
            }
            _ => "changed",
        }
    }
}

/// One difference between the snapshot and this scan.
#[derive(Clone, Debug)]
pub struct Change {
    pub kind: ChangeKind,
    /// The snapshot group, or `profile NAME` for a profile's members.
    pub group: String,
    /// The tool (the new name of a renamed one); empty for a whole profile.
    pub tool: String,
    /// What changed, in a phrase: "argument `timeout` is now required".
    pub what: String,
    pub old: Option<String>,
    pub new: Option<String>,
    /// Breaks callers: a removed or renamed tool or argument, a newly
    /// required argument, a changed type, an enum value taken away.
    pub breaking: bool,
    pub at: At,
}

/// The changes from `old` to `new`, in snapshot order.
pub fn diff(old: &Loaded, new: &Current) -> Vec<Change> {
    let mut out = Vec::new();
    let o = &old.snapshot;
    let n = &new.snapshot;
    let keys = |s: &super::Snapshot| -> BTreeSet<ToolKey> {
        s.groups
            .iter()
            .flat_map(|(g, l)| (0..l.len()).map(move |i| (g.clone(), i)))
            .collect()
    };
    // Tools recorded in files this scan did not read (a scan of a
    // subfolder, an excluded file) are neither removed nor compared.
    let mut old_left: BTreeSet<ToolKey> = keys(o)
        .into_iter()
        .filter(|k| new.in_scope(&o.groups[&k.0][k.1].defined_in))
        .collect();
    let mut new_left = keys(n);
    let get = |s: &'_ super::Snapshot, k: &ToolKey| -> ToolSnap { s.groups[&k.0][k.1].clone() };
    let mut pairs: Vec<(ToolKey, ToolKey, bool)> = Vec::new();
    // 1. Same group, same name, in order.
    for (g, list) in &n.groups {
        let Some(olist) = o.groups.get(g) else {
            continue;
        };
        // Two tools of one name in a group (a duplicate): the closest
        // recorded one first, so an unchanged copy pairs with itself.
        let mut used = BTreeSet::new();
        let mut taken = BTreeSet::new();
        let likeness: [Likeness; 4] = [
            &|a, b| a.hash == b.hash,
            &|a, b| a.description == b.description,
            &|a, b| a.arguments.keys().eq(b.arguments.keys()),
            &|_, _| true,
        ];
        for alike in likeness {
            for (i, t) in list.iter().enumerate() {
                if taken.contains(&i) {
                    continue;
                }
                if let Some(j) = (0..olist.len())
                    .find(|j| !used.contains(j) && olist[*j].name == t.name && alike(&olist[*j], t))
                {
                    used.insert(j);
                    taken.insert(i);
                    pairs.push(((g.clone(), j), (g.clone(), i), false));
                }
            }
        }
    }
    for (ok, nk, _) in &pairs {
        old_left.remove(ok);
        new_left.remove(nk);
    }
    // 2. Moved: one unmatched old and one unmatched new tool of a name.
    let mut moved = Vec::new();
    for nk in &new_left {
        let name = &n.groups[&nk.0][nk.1].name;
        let olds: Vec<&ToolKey> = old_left
            .iter()
            .filter(|k| &o.groups[&k.0][k.1].name == name)
            .collect();
        let news = new_left
            .iter()
            .filter(|k| &n.groups[&k.0][k.1].name == name)
            .count();
        if let ([ok], 1) = (olds.as_slice(), news) {
            moved.push(((*ok).clone(), nk.clone(), true));
        }
    }
    for (ok, nk, _) in &moved {
        old_left.remove(ok);
        new_left.remove(nk);
    }
    pairs.extend(moved);
    // 3. Renamed: same group, same description, arguments and other members.
    let mut renamed = Vec::new();
    for nk in new_left.clone() {
        let t = get(n, &nk);
        if let Some(ok) = old_left
            .iter()
            .find(|k| k.0 == nk.0 && same_body(&get(o, k), &t))
            .cloned()
        {
            old_left.remove(&ok);
            new_left.remove(&nk);
            renamed.push((ok, nk));
        }
    }
    for (ok, nk) in renamed {
        let (was, now) = (get(o, &ok), get(n, &nk));
        out.push(Change {
            kind: ChangeKind::ToolRenamed,
            group: nk.0.clone(),
            tool: now.name.clone(),
            what: format!("renamed from `{}`", was.name),
            old: Some(was.name.clone()),
            new: Some(now.name.clone()),
            breaking: true,
            at: at(&nk, Part::Name),
        });
    }
    for (ok, nk, was_moved) in &pairs {
        let (was, now) = (get(o, ok), get(n, nk));
        if *was_moved {
            out.push(Change {
                kind: ChangeKind::ToolMoved,
                group: nk.0.clone(),
                tool: now.name.clone(),
                what: format!("moved from group `{}`", ok.0),
                old: Some(ok.0.clone()),
                new: Some(nk.0.clone()),
                breaking: false,
                at: at(nk, Part::Name),
            });
        }
        compare(&was, &now, nk, &mut out);
    }
    for nk in &new_left {
        let t = get(n, nk);
        out.push(Change {
            kind: ChangeKind::ToolAdded,
            group: nk.0.clone(),
            tool: t.name.clone(),
            what: match t.arguments.len() {
                0 => "new tool".to_string(),
                k => format!("new tool with {}", crate::report::plural(k, "argument")),
            },
            old: None,
            new: t.description.as_deref().map(short),
            breaking: false,
            at: at(nk, Part::Name),
        });
    }
    for ok in &old_left {
        let t = get(o, ok);
        out.push(Change {
            kind: ChangeKind::ToolRemoved,
            group: ok.0.clone(),
            tool: t.name.clone(),
            what: "tool removed".into(),
            old: t.description.as_deref().map(short),
            new: None,
            breaking: true,
            at: At::Snapshot(old.tool_span(&ok.0, ok.1)),
        });
    }
    profiles(old, new, &mut out);
    out.sort_by(|a, b| {
        (&a.group, &a.tool, a.kind, &a.what).cmp(&(&b.group, &b.tool, b.kind, &b.what))
    });
    out
}

fn at(k: &ToolKey, part: Part) -> At {
    At::Current {
        group: k.0.clone(),
        index: k.1,
        part,
    }
}

fn same_body(a: &ToolSnap, b: &ToolSnap) -> bool {
    a.description == b.description
        && a.arguments == b.arguments
        && a.other == b.other
        && (a.description.is_some() || !a.arguments.is_empty())
}

/// A description or value cut for a message.
fn short(s: &str) -> String {
    const MAX: usize = 160;
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= MAX {
        return one_line;
    }
    let cut: String = one_line.chars().take(MAX).collect();
    format!("{cut}… ({} characters in all)", one_line.chars().count())
}

fn json(v: &Option<serde_json::Value>) -> String {
    v.as_ref()
        .map_or_else(|| "none".into(), |v| short(&v.to_string()))
}

/// The changes of one tool that is in both surfaces.
fn compare(was: &ToolSnap, now: &ToolSnap, k: &ToolKey, out: &mut Vec<Change>) {
    let start = out.len();
    let change = |kind, what: String, old, new, breaking, part| Change {
        kind,
        group: k.0.clone(),
        tool: now.name.clone(),
        what,
        old,
        new,
        breaking,
        at: at(k, part),
    };
    if was.description != now.description {
        out.push(change(
            ChangeKind::Description,
            "description changed".into(),
            Some(was.description.as_deref().map_or("none".into(), short)),
            Some(now.description.as_deref().map_or("none".into(), short)),
            false,
            Part::Description,
        ));
    }
    let names: BTreeSet<&String> = was.arguments.keys().chain(now.arguments.keys()).collect();
    for name in names {
        let arg = |what: &str| format!("argument `{name}` {what}");
        let part = Part::Argument(name.clone());
        match (was.arguments.get(name), now.arguments.get(name)) {
            (None, Some(a)) => out.push(change(
                ChangeKind::ArgumentAdded,
                arg(if a.required {
                    "added, required"
                } else {
                    "added, optional"
                }),
                None,
                a.ty.clone(),
                a.required,
                part,
            )),
            (Some(a), None) => out.push(change(
                ChangeKind::ArgumentRemoved,
                arg("removed"),
                a.ty.clone(),
                None,
                true,
                Part::Schema,
            )),
            (Some(a), Some(b)) => compare_arg(a, b, &arg, &part, &change, out),
            (None, None) => {}
        }
    }
    let members: BTreeSet<&String> = was.other.keys().chain(now.other.keys()).collect();
    for key in members {
        let (a, b) = (was.other.get(key).cloned(), now.other.get(key).cloned());
        if a == b {
            continue;
        }
        let what = match (&a, &b) {
            (None, _) => "added",
            (_, None) => "removed",
            _ => "changed",
        };
        out.push(change(
            ChangeKind::Member,
            format!("`{key}` {what}"),
            Some(json(&a)),
            Some(json(&b)),
            false,
            Part::Definition,
        ));
    }
    // The root's other keywords (`additionalProperties`, `$defs`), or a
    // changed hash that nothing above explains.
    let rest_changed = was.schema_rest != now.schema_rest;
    if rest_changed || (out.len() == start && was.hash != now.hash) {
        out.push(change(
            ChangeKind::Schema,
            "input schema changed outside its arguments (root keywords such as `additionalProperties` or `$defs`)".into(),
            None,
            None,
            false,
            Part::Schema,
        ));
    }
}

type MakeChange<'a> =
    dyn Fn(ChangeKind, String, Option<String>, Option<String>, bool, Part) -> Change + 'a;

fn compare_arg(
    a: &ArgSnap,
    b: &ArgSnap,
    arg: &dyn Fn(&str) -> String,
    part: &Part,
    change: &MakeChange,
    out: &mut Vec<Change>,
) {
    // A type not stated (a `$ref`, a Rust enum whose schema is derived
    // elsewhere) may be the same values: a change to or from it is shown,
    // not called breaking.
    let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "not stated".into());
    if a.ty != b.ty {
        out.push(change(
            ChangeKind::ArgumentType,
            arg("changed type"),
            Some(opt(&a.ty)),
            Some(opt(&b.ty)),
            a.ty.is_some() && b.ty.is_some(),
            part.clone(),
        ));
    }
    if a.required != b.required {
        let req = |r: bool| if r { "required" } else { "optional" }.to_string();
        out.push(change(
            ChangeKind::ArgumentRequired,
            arg(if b.required {
                "is now required"
            } else {
                "is now optional"
            }),
            Some(req(a.required)),
            Some(req(b.required)),
            b.required,
            part.clone(),
        ));
    }
    if a.values != b.values {
        let gone = match (&a.values, &b.values) {
            (Some(x), Some(y)) => x.iter().any(|v| !y.contains(v)),
            // An enum where there was none narrows what callers may send.
            (None, Some(_)) => true,
            _ => false,
        };
        let list = |v: &Option<Vec<serde_json::Value>>| {
            v.as_ref().map_or("any".into(), |items| {
                short(
                    &items
                        .iter()
                        .map(|i| i.to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                )
            })
        };
        out.push(change(
            ChangeKind::ArgumentEnum,
            arg("allowed values changed"),
            Some(list(&a.values)),
            Some(list(&b.values)),
            gone,
            part.clone(),
        ));
    }
    if a.default != b.default {
        out.push(change(
            ChangeKind::ArgumentDefault,
            arg("default changed"),
            Some(json(&a.default)),
            Some(json(&b.default)),
            false,
            part.clone(),
        ));
    }
    if a.rest != b.rest {
        out.push(change(
            ChangeKind::ArgumentSchema,
            arg("changed inside (nested properties, items or constraints such as `maximum`)"),
            None,
            None,
            false,
            part.clone(),
        ));
    }
    if a.description != b.description {
        out.push(change(
            ChangeKind::ArgumentDescription,
            arg("description changed"),
            Some(a.description.as_deref().map_or("none".into(), short)),
            Some(b.description.as_deref().map_or("none".into(), short)),
            false,
            part.clone(),
        ));
    }
}

/// Tools that entered or left each profile, and profiles added or removed.
fn profiles(old: &Loaded, new: &Current, out: &mut Vec<Change>) {
    let o = &old.snapshot.profiles;
    let n = &new.snapshot.profiles;
    let recorded_in_scope = |name: &str| {
        old.snapshot
            .groups
            .values()
            .flatten()
            .any(|t| t.name == name && new.in_scope(&t.defined_in))
    };
    for (p, names) in n {
        let group = format!("profile {p}");
        let Some(before) = o.get(p) else {
            out.push(Change {
                kind: ChangeKind::ProfileAdded,
                group,
                tool: String::new(),
                what: format!(
                    "profile `{p}` is not in the snapshot ({})",
                    crate::report::plural(names.len(), "tool")
                ),
                old: None,
                new: Some(names.join(", ")),
                breaking: false,
                at: At::Snapshot(old.profile_span(p, None)),
            });
            continue;
        };
        fn count(list: &[String]) -> BTreeMap<&str, usize> {
            let mut m: BTreeMap<&str, usize> = BTreeMap::new();
            for s in list {
                *m.entry(s.as_str()).or_default() += 1;
            }
            m
        }
        let (was, now) = (count(before), count(names));
        for (name, k) in &now {
            if was.get(name).copied().unwrap_or(0) >= *k {
                continue;
            }
            // The member's definition: the last one of that name, so a
            // second tool of a name is shown where it is.
            let key = new.members.get(p).and_then(|m| {
                m.iter()
                    .map(|(key, _)| key)
                    .rfind(|key| new.tool(&key.0, key.1).is_some_and(|t| t.name == *name))
            });
            out.push(Change {
                kind: ChangeKind::ProfileEntered,
                group: group.clone(),
                tool: name.to_string(),
                what: format!("entered profile `{p}`"),
                old: None,
                new: None,
                breaking: false,
                at: key.map_or_else(
                    || At::Snapshot(old.profile_span(p, None)),
                    |key| at(key, Part::Name),
                ),
            });
        }
        for (name, k) in &was {
            if now.get(name).copied().unwrap_or(0) >= *k || !recorded_in_scope(name) {
                continue;
            }
            out.push(Change {
                kind: ChangeKind::ProfileLeft,
                group: group.clone(),
                tool: name.to_string(),
                what: format!("left profile `{p}`"),
                old: None,
                new: None,
                breaking: false,
                at: At::Snapshot(old.profile_span(p, Some(name))),
            });
        }
    }
    for (p, names) in o {
        if !n.contains_key(p) {
            out.push(Change {
                kind: ChangeKind::ProfileRemoved,
                group: format!("profile {p}"),
                tool: String::new(),
                what: format!(
                    "profile `{p}` is no longer defined ({} recorded)",
                    crate::report::plural(names.len(), "tool")
                ),
                old: Some(names.join(", ")),
                new: None,
                breaking: false,
                at: At::Snapshot(old.profile_span(p, None)),
            });
        }
    }
}
