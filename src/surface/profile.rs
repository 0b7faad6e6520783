//! Profiles: the tools one role of an agent is offered (a main turn, a
//! subagent, a scheduled task), built by composition from the inventory as
//! `[[profile]]` tables of the config say.
//!
//! A profile starts from the profiles it `extends` and the snapshot groups
//! it names, adds what `include` matches anywhere in the inventory, and
//! takes out what `exclude` matches; with none of `extends`, `groups` and
//! `include` it starts from every tool. `deny` never changes membership: it
//! says what must not be in the profile, and P102 reports it when it is.

use std::collections::{BTreeMap, BTreeSet};

use globset::{Glob, GlobMatcher};

use super::{Members, Snapshot, ToolKey, ToolSnap};
use crate::config::ProfileEntry;

/// A glob on the tool name (`spawn_*`), or with `source:` on the path of
/// the file that defines it (`source:src/admin/**`).
#[derive(Clone, Debug)]
pub struct Pattern {
    pub text: String,
    source: bool,
    glob: GlobMatcher,
}

impl Pattern {
    fn new(text: &str) -> Result<Pattern, String> {
        let (source, body) = match text.strip_prefix("source:") {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        if body.trim().is_empty() {
            return Err(format!("the pattern `{text}` is empty"));
        }
        let glob = Glob::new(body)
            .map_err(|e| format!("invalid pattern `{text}`: {}", e.kind()))?
            .compile_matcher();
        Ok(Pattern {
            text: text.to_string(),
            source,
            glob,
        })
    }

    pub fn matches(&self, t: &ToolSnap) -> bool {
        self.glob
            .is_match(if self.source { &t.defined_in } else { &t.name })
    }
}

/// One `[[profile]]`, checked.
#[derive(Clone, Debug)]
pub struct Profile {
    pub name: String,
    pub extends: Vec<String>,
    pub groups: Vec<(String, GlobMatcher)>,
    pub include: Vec<Pattern>,
    pub exclude: Vec<Pattern>,
    pub deny: Vec<Pattern>,
    /// `toolaudit.toml:12`: where the profile is defined.
    pub origin: String,
}

/// How a tool entered a profile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entered {
    /// The profile names no source: it holds every tool.
    Everything,
    Extends(String),
    Group(String),
    Include(String),
}

impl Entered {
    pub fn describe(&self) -> String {
        match self {
            Entered::Everything => {
                "the profile names no `extends`, `groups` or `include`, so it holds every tool"
                    .into()
            }
            Entered::Extends(p) => format!("the profile extends `{p}`, which holds it"),
            Entered::Group(g) => format!("the profile takes the tools of groups `{g}`"),
            Entered::Include(p) => format!("`include` pattern `{p}` matches it"),
        }
    }
}

/// Checks `[[profile]]` entries: names unique and non-empty, `extends`
/// naming known profiles without cycles, patterns valid. An error is the
/// entry's index and a message.
pub fn compile(
    entries: &[ProfileEntry],
    origin: &dyn Fn(usize) -> String,
) -> Result<Vec<Profile>, (usize, String)> {
    let mut seen = BTreeSet::new();
    for (i, e) in entries.iter().enumerate() {
        if e.name.trim().is_empty() {
            return Err((i, "`name` is empty: name the profile".into()));
        }
        if !seen.insert(e.name.as_str()) {
            return Err((
                i,
                format!("a profile named `{}` is already defined", e.name),
            ));
        }
    }
    let mut out = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        for parent in &e.extends {
            if parent == &e.name {
                return Err((i, format!("profile `{}` extends itself", e.name)));
            }
            if !seen.contains(parent.as_str()) {
                let hint = crate::error::suggest(parent, seen.iter().copied())
                    .map(|s| format!(" (did you mean `{s}`?)"))
                    .unwrap_or_default();
                return Err((
                    i,
                    format!("`extends` names `{parent}`, which is not a profile{hint}"),
                ));
            }
        }
        let patterns = |list: &[String]| {
            list.iter()
                .map(|p| Pattern::new(p))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|m| (i, m))
        };
        let groups = e
            .groups
            .iter()
            .map(|g| {
                Glob::new(g)
                    .map(|glob| (g.clone(), glob.compile_matcher()))
                    .map_err(|err| (i, format!("invalid group pattern `{g}`: {}", err.kind())))
            })
            .collect::<Result<Vec<_>, _>>()?;
        out.push(Profile {
            name: e.name.clone(),
            extends: e.extends.clone(),
            groups,
            include: patterns(&e.include)?,
            exclude: patterns(&e.exclude)?,
            deny: patterns(&e.deny)?,
            origin: origin(i),
        });
    }
    // Cycles: a profile may only extend profiles that resolve without it.
    let index: BTreeMap<&str, usize> = out
        .iter()
        .enumerate()
        .map(|(i, p)| (p.name.as_str(), i))
        .collect();
    for (i, p) in out.iter().enumerate() {
        let mut stack: Vec<(&str, Vec<&str>)> = vec![(p.name.as_str(), vec![p.name.as_str()])];
        while let Some((at, path)) = stack.pop() {
            for parent in &out[index[at]].extends {
                if parent == &p.name {
                    let mut cycle = path.clone();
                    cycle.push(parent);
                    return Err((
                        i,
                        format!("`extends` makes a cycle: {}", cycle.join(" -> ")),
                    ));
                }
                if !path.contains(&parent.as_str()) {
                    let mut next = path.clone();
                    next.push(parent);
                    stack.push((parent, next));
                }
            }
        }
    }
    Ok(out)
}

/// Every profile's members, and the `include`/`groups` patterns that
/// matched nothing.
pub(super) struct Resolved {
    pub members: BTreeMap<String, Members>,
    pub unmatched: Vec<(String, String)>,
}

pub(super) fn resolve(profiles: &[Profile], s: &Snapshot) -> Resolved {
    let all: Vec<(ToolKey, &ToolSnap)> = s
        .groups
        .iter()
        .flat_map(|(g, list)| list.iter().enumerate().map(|(i, t)| ((g.clone(), i), t)))
        .collect();
    let mut members: BTreeMap<String, Members> = BTreeMap::new();
    let mut unmatched = Vec::new();
    // Parents first: `compile` rejected cycles, so this ends.
    let mut pending: Vec<&Profile> = profiles.iter().collect();
    while !pending.is_empty() {
        let before = pending.len();
        pending.retain(|p| {
            if !p.extends.iter().all(|e| members.contains_key(e)) {
                return true;
            }
            let mut got: BTreeMap<ToolKey, Entered> = BTreeMap::new();
            let mut add = |key: &ToolKey, why: Entered| {
                got.entry(key.clone()).or_insert(why);
            };
            if p.extends.is_empty() && p.groups.is_empty() && p.include.is_empty() {
                for (key, _) in &all {
                    add(key, Entered::Everything);
                }
            }
            for parent in &p.extends {
                for (key, _) in &members[parent] {
                    add(key, Entered::Extends(parent.clone()));
                }
            }
            for (text, glob) in &p.groups {
                let mut any = false;
                for (key, _) in all.iter().filter(|(k, _)| glob.is_match(&k.0)) {
                    add(key, Entered::Group(text.clone()));
                    any = true;
                }
                if !any {
                    unmatched.push((p.name.clone(), format!("groups pattern `{text}`")));
                }
            }
            for pat in &p.include {
                let mut any = false;
                for (key, _) in all.iter().filter(|(_, t)| pat.matches(t)) {
                    add(key, Entered::Include(pat.text.clone()));
                    any = true;
                }
                if !any {
                    unmatched.push((p.name.clone(), format!("include pattern `{}`", pat.text)));
                }
            }
            let kept = got
                .into_iter()
                .filter(|(key, _)| {
                    let t = &s.groups[&key.0][key.1];
                    !p.exclude.iter().any(|x| x.matches(t))
                })
                .collect();
            members.insert(p.name.clone(), kept);
            false
        });
        assert!(
            pending.len() < before,
            "profile cycles are rejected by compile"
        );
    }
    Resolved { members, unmatched }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, extends: &[&str]) -> ProfileEntry {
        ProfileEntry {
            name: name.into(),
            extends: extends.iter().map(|s| s.to_string()).collect(),
            ..ProfileEntry::default()
        }
    }

    fn err(entries: &[ProfileEntry]) -> String {
        compile(entries, &|i| format!("p{i}")).unwrap_err().1
    }

    #[test]
    fn bad_profiles_are_named() {
        assert!(err(&[entry("a", &[]), entry("a", &[])]).contains("already defined"));
        assert!(err(&[entry(" ", &[])]).contains("`name` is empty"));
        assert_eq!(
            err(&[entry("main", &[]), entry("sub", &["mian"])]),
            "`extends` names `mian`, which is not a profile (did you mean `main`?)"
        );
        assert!(err(&[entry("a", &["a"])]).contains("extends itself"));
        assert_eq!(
            err(&[entry("a", &["b"]), entry("b", &["a"])]),
            "`extends` makes a cycle: a -> b -> a"
        );
        let mut bad = entry("a", &[]);
        bad.include = vec!["source:".into()];
        assert!(err(&[bad]).contains("empty"));
        let mut bad = entry("a", &[]);
        bad.deny = vec!["[".into()];
        assert!(err(&[bad]).contains("invalid pattern `[`"));
    }

    fn tool(name: &str, defined_in: &str) -> ToolSnap {
        ToolSnap {
            name: name.into(),
            defined_in: defined_in.into(),
            format: "mcp".into(),
            hash: String::new(),
            schema_rest: None,
            description: None,
            arguments: BTreeMap::new(),
            other: BTreeMap::new(),
        }
    }

    #[test]
    fn composition_extends_includes_and_excludes() {
        let mut s = Snapshot::default();
        s.groups.insert(
            "a.json".into(),
            vec![tool("read", "a.json"), tool("spawn", "a.json")],
        );
        s.groups
            .insert("admin.json".into(), vec![tool("drop_db", "admin.json")]);
        let mut main = entry("main", &[]);
        main.groups = vec!["a.json".into()];
        let mut sub = entry("sub", &["main"]);
        sub.exclude = vec!["spawn".into()];
        sub.include = vec!["source:admin*".into(), "nothing_*".into()];
        let all = entry("all", &[]);
        let p = compile(&[main, sub, all], &|i| format!("p{i}")).unwrap();
        let r = resolve(&p, &s);
        let names = |p: &str| -> Vec<String> {
            r.members[p]
                .iter()
                .map(|((g, i), _)| s.groups[g][*i].name.clone())
                .collect()
        };
        assert_eq!(names("main"), ["read", "spawn"]);
        assert_eq!(names("sub"), ["read", "drop_db"]);
        assert_eq!(names("all").len(), 3);
        assert_eq!(
            r.unmatched,
            [("sub".to_string(), "include pattern `nothing_*`".to_string())]
        );
        let why: Vec<&Entered> = r.members["sub"].iter().map(|(_, w)| w).collect();
        assert_eq!(why[0], &Entered::Extends("main".into()));
        assert_eq!(why[1], &Entered::Include("source:admin*".into()));
    }
}
