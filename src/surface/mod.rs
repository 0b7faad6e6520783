//! The tool surface under review: what tools are offered, in which groups
//! and profiles, as a committed snapshot (`toolaudit.surface.json`) that
//! `toolaudit surface --write` records and the P rules compare against.
//!
//! The snapshot is plain data, sorted, with paths relative to the project
//! folder (the config file's, else the first scanned one) and no line
//! numbers, so it is byte-identical across runs, thread
//! counts and file-system orders, and survives edits that move code around
//! inside a file. [`build`] makes it from the inventory, [`load`] reads a
//! committed one (keeping spans, so a finding about a removed tool can
//! point at its entry), [`diff`] lists what changed.

mod diff;
mod profile;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use diff::{At, Change, ChangeKind, Part, diff};
pub use profile::{Entered, Pattern, Profile, compile as compile_profiles};

use crate::model::ToolDef;
use crate::source::{SourceFile, Span};
use crate::syntax::{Node, NodeKind};

/// The snapshot's default file name, in the config file's folder or the
/// first scanned folder.
pub const FILE_NAME: &str = "toolaudit.surface.json";

/// The key that marks a snapshot and gives its format version. Manifest
/// extraction skips documents that have it.
pub const MARKER: &str = "toolaudit-surface";
pub const VERSION: u64 = 1;

/// A recorded tool: its group and its index in the group.
pub type ToolKey = (String, usize);

/// A profile's members, each with how it entered.
pub type Members = Vec<(ToolKey, Entered)>;

/// Where the snapshot is and which profiles to resolve.
#[derive(Clone, Debug, Default)]
pub struct SurfaceOptions {
    /// The snapshot file; `None` when no folder to look in is known.
    pub path: Option<PathBuf>,
    /// Named on the command line or in the config: a missing file is an
    /// error rather than "no snapshot committed".
    pub explicit: bool,
    /// The folder the snapshot's paths are relative to: the config file's
    /// folder, else the first scanned folder, wherever the snapshot is.
    pub root: PathBuf,
    pub profiles: Vec<Profile>,
}

impl SurfaceOptions {
    /// The default snapshot beside the first of `paths` (a folder, or a
    /// file's folder), with no profiles.
    pub fn beside(paths: &[PathBuf]) -> SurfaceOptions {
        let first = paths.first().map_or(Path::new("."), PathBuf::as_path);
        let dir = if first.is_file() {
            first.parent().unwrap_or(Path::new("."))
        } else {
            first
        };
        SurfaceOptions {
            path: Some(dir.join(FILE_NAME)),
            explicit: false,
            root: dir.to_path_buf(),
            profiles: Vec::new(),
        }
    }

    /// [`SurfaceOptions::root`], absolute.
    pub fn base(&self) -> PathBuf {
        let cwd = std::env::current_dir().unwrap_or_default();
        crate::source::normalize(&cwd.join(&self.root))
    }
}

/// The recorded surface: every group's tools and every profile's members.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Snapshot {
    #[serde(rename = "toolaudit-surface")]
    pub version: u64,
    /// Group (a manifest's list, a source file's tools) → its tools,
    /// sorted by name.
    pub groups: BTreeMap<String, Vec<ToolSnap>>,
    /// Profile → the names of its tools, sorted.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub profiles: BTreeMap<String, Vec<String>>,
}

/// One tool as recorded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ToolSnap {
    pub name: String,
    /// The file that defines it, relative to the project's folder (the
    /// config file's, else the first scanned one).
    pub defined_in: String,
    pub format: String,
    /// SHA-256 of the whole definition (name, description, input schema
    /// and the members of `other`, keys sorted): any change shows,
    /// summarised or not.
    pub hash: String,
    /// SHA-256 of the input schema without `properties` and `required`
    /// (root keywords such as `additionalProperties`, `$defs`, `anyOf`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema_rest: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The input schema's top-level properties, summarised.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub arguments: BTreeMap<String, ArgSnap>,
    /// Other members of the definition that clients read, as written:
    /// `title`, `annotations`, `_meta` (an MCP app's `ui.visibility`
    /// decides whether the model sees the tool), `outputSchema`, `strict`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub other: BTreeMap<String, serde_json::Value>,
}

/// One top-level property of an input schema, summarised.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArgSnap {
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub ty: Option<String>,
    #[serde(default)]
    pub required: bool,
    #[serde(rename = "enum", default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<serde_json::Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// SHA-256 of the rest of the property's schema (nested properties,
    /// `items`, constraints such as `maximum` or `pattern`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rest: Option<String>,
}

/// The surface of this scan: the snapshot it would write, and for each
/// recorded tool the definition it comes from.
pub struct Current<'a> {
    pub snapshot: Snapshot,
    /// `(group, index in the group)` → the tool's definition.
    pub defs: BTreeMap<ToolKey, &'a ToolDef>,
    /// Each profile's members, `(group, index)`, with how each entered.
    pub members: BTreeMap<String, Members>,
    /// `include` and `groups` patterns that matched no tool: `(profile,
    /// pattern)`.
    pub unmatched: Vec<(String, String)>,
    /// The files this scan read, relative to the project's folder.
    pub read: BTreeSet<String>,
    /// The project's folder.
    pub base: PathBuf,
}

impl Current<'_> {
    pub fn def(&self, group: &str, index: usize) -> Option<&ToolDef> {
        self.defs.get(&(group.to_string(), index)).copied()
    }

    /// A warning for each `include`/`groups` pattern that matched nothing.
    pub fn unmatched_warnings(&self) -> impl Iterator<Item = String> + '_ {
        self.unmatched
            .iter()
            .map(|(profile, what)| format!("profile `{profile}`: {what} matches no tool"))
    }

    pub fn tool(&self, group: &str, index: usize) -> Option<&ToolSnap> {
        self.snapshot.groups.get(group)?.get(index)
    }

    /// Was a tool recorded in `defined_in` (relative to the project)
    /// looked for by this scan? Yes when the scan read that file, or the
    /// file is gone; not when it exists unread (outside the scanned
    /// folder, excluded, ignored, over the size cap).
    pub fn in_scope(&self, defined_in: &str) -> bool {
        self.read.contains(defined_in) || !self.base.join(defined_in).exists()
    }
}

/// The surface of `tools` (declared ones: a tool this code only dispatches
/// is declared elsewhere) found by a scan that read the files `read`, with
/// paths relative to the project's folder.
pub fn build<'a>(tools: &'a [ToolDef], opts: &SurfaceOptions, read: &[&Path]) -> Current<'a> {
    let cwd = std::env::current_dir().unwrap_or_default();
    let base = &opts.base();
    let profiles = &opts.profiles;
    let read = read.iter().map(|p| relative(p, &cwd, base)).collect();
    let mut grouped: BTreeMap<String, Vec<(ToolSnap, &ToolDef)>> = BTreeMap::new();
    for t in tools.iter().filter(|t| !t.format.is_reference()) {
        let path = relative(&t.file.path, &cwd, base);
        grouped
            .entry(group_of(t, &path, &cwd, base))
            .or_default()
            .push((tool_snap(t, path), t));
    }
    let mut snapshot = Snapshot {
        version: VERSION,
        ..Snapshot::default()
    };
    let mut defs = BTreeMap::new();
    for (group, mut list) in grouped {
        list.sort_by(|a, b| {
            (&a.0.name, &a.0.defined_in, &a.0.hash).cmp(&(&b.0.name, &b.0.defined_in, &b.0.hash))
        });
        for (i, (_, def)) in list.iter().enumerate() {
            defs.insert((group.clone(), i), *def);
        }
        snapshot
            .groups
            .insert(group, list.into_iter().map(|(s, _)| s).collect());
    }
    let resolved = profile::resolve(profiles, &snapshot);
    for (name, members) in &resolved.members {
        let mut names: Vec<String> = members
            .iter()
            .filter_map(|((g, i), _)| snapshot.groups.get(g).and_then(|l| l.get(*i)))
            .map(|t| t.name.clone())
            .collect();
        names.sort();
        snapshot.profiles.insert(name.clone(), names);
    }
    Current {
        snapshot,
        defs,
        members: resolved.members,
        unmatched: resolved.unmatched,
        read,
        base: base.clone(),
    }
}

/// `path` relative to `base` with `/` separators; absolute when it lies
/// outside `base` (as baselines and SARIF name files).
fn relative(path: &Path, cwd: &Path, base: &Path) -> String {
    crate::source::project_path(path, cwd, base).unwrap_or_else(|abs| abs)
}

/// The group a tool is recorded under: its file, with the list inside it
/// for a manifest holding several (`tools.json#/tools`), or its folder for
/// one-tool-per-file layouts (`dir:snaps`).
fn group_of(t: &ToolDef, path: &str, cwd: &Path, base: &Path) -> String {
    if t.group.starts_with("dir:") {
        let dir = t.file.path.parent().unwrap_or(Path::new("."));
        return format!("dir:{}", relative(dir, cwd, base));
    }
    t.list_label(path)
}

fn tool_snap(t: &ToolDef, defined_in: String) -> ToolSnap {
    let schema = t.input_schema.as_ref().map(Node::to_json);
    let other: BTreeMap<String, serde_json::Value> = t
        .extras
        .as_ref()
        .and_then(Node::members)
        .map(|m| {
            m.iter()
                .map(|m| (m.key.clone(), m.value.to_json()))
                .collect()
        })
        .unwrap_or_default();
    let description = t.description.as_ref().map(|d| d.value.clone());
    let whole = serde_json::json!({
        "name": t.name.value,
        "description": description,
        "inputSchema": schema,
        "other": other,
    });
    ToolSnap {
        name: t.name.value.clone(),
        defined_in,
        format: t.format.as_str().to_string(),
        hash: sha256(&whole),
        schema_rest: schema.map(|mut s| {
            if let Some(obj) = s.as_object_mut() {
                obj.remove("properties");
                obj.remove("required");
            }
            sha256(&s)
        }),
        description,
        arguments: t
            .input_schema
            .as_ref()
            .map(|s| arguments(s, &t.required_names()))
            .unwrap_or_default(),
        other,
    }
}

/// `sha256:` and the hex SHA-256 of `v`'s canonical text.
fn sha256(v: &serde_json::Value) -> String {
    let mut text = String::new();
    canonical(v, &mut text);
    let hash = Sha256::digest(text.as_bytes());
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// The hash of a property's schema without what [`ArgSnap`] summarises,
/// when anything is left: nested properties, items, constraints.
fn property_rest(p: &Node) -> Option<String> {
    let mut v = p.to_json();
    let obj = v.as_object_mut()?;
    for key in ["type", "enum", "default", "description"] {
        obj.remove(key);
    }
    (!obj.is_empty()).then(|| sha256(&v))
}

fn arguments(schema: &Node, required: &[&str]) -> BTreeMap<String, ArgSnap> {
    let Some(props) = schema.get("properties").and_then(Node::members) else {
        return BTreeMap::new();
    };
    props
        .iter()
        .map(|m| {
            let p = &m.value;
            let ty = p.get("type").and_then(|t| match &t.kind {
                NodeKind::String(s) => Some(s.clone()),
                NodeKind::Array(items) => {
                    let names: Vec<&str> = items.iter().filter_map(Node::as_str).collect();
                    Some(names.join("|"))
                }
                _ => None,
            });
            let snap = ArgSnap {
                ty,
                required: required.contains(&m.key.as_str()),
                values: p
                    .get("enum")
                    .and_then(Node::items)
                    .map(|items| items.iter().map(Node::to_json).collect()),
                default: p.get("default").map(Node::to_json),
                description: p
                    .get("description")
                    .and_then(Node::as_str)
                    .map(String::from),
                rest: property_rest(p),
            };
            (m.key.clone(), snap)
        })
        .collect()
}

/// JSON text with object keys sorted at every level, so that reordering a
/// schema's keys does not change its hash.
fn canonical(v: &serde_json::Value, out: &mut String) {
    use serde_json::Value;
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                canonical(&map[k], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// The snapshot as `surface --write` writes it: pretty JSON, keys in a
/// fixed order, a final newline.
pub fn render(s: &Snapshot) -> String {
    let mut text = serde_json::to_string_pretty(s).expect("a snapshot is plain data");
    text.push('\n');
    text
}

/// A committed snapshot, with the tree it was read from (for spans).
pub struct Loaded {
    pub file: Arc<SourceFile>,
    pub snapshot: Snapshot,
    root: Node,
}

/// Why a snapshot could not be used.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read the tool-surface snapshot {}: {cause}", .path.display())]
    Read {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("{}:{line}:{column}: {message}; rewrite it with `toolaudit surface --write`", .path.display())]
    Invalid {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
}

/// Reads the snapshot at `path`: `Ok(None)` when there is none.
pub fn load(path: &Path) -> Result<Option<Loaded>, LoadError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(cause) => {
            return Err(LoadError::Read {
                path: path.to_path_buf(),
                cause,
            });
        }
    };
    let display = crate::discover::display_path(path);
    let file = Arc::new(SourceFile::new(path.to_path_buf(), display, text));
    let invalid = |offset: usize, message: String| {
        let at = file.line_col(offset);
        LoadError::Invalid {
            path: path.to_path_buf(),
            line: at.line,
            column: at.column,
            message,
        }
    };
    let root = crate::syntax::json::parse(&file.text)
        .map_err(|e| invalid(e.offset, format!("not valid JSON: {}", e.message)))?
        .ok_or_else(|| invalid(0, "the file is empty".into()))?;
    let snapshot: Snapshot = serde_json::from_str(&file.text).map_err(|e| {
        let offset = file
            .line_range(e.line().saturating_sub(1))
            .start
            .saturating_add(e.column().saturating_sub(1));
        invalid(offset, format!("not a tool-surface snapshot: {e}"))
    })?;
    if snapshot.version != VERSION {
        return Err(invalid(
            root.get_member(MARKER).map_or(0, |m| m.value.span.start),
            format!(
                "snapshot format {} is not the {VERSION} this toolaudit writes",
                snapshot.version
            ),
        ));
    }
    Ok(Some(Loaded {
        file,
        snapshot,
        root,
    }))
}

impl Loaded {
    /// Where the `n`-th recorded tool of `group` is written: its name.
    pub fn tool_span(&self, group: &str, index: usize) -> Span {
        self.root
            .get("groups")
            .and_then(|g| g.get(group))
            .and_then(Node::items)
            .and_then(|items| items.get(index))
            .map_or(self.root.span.start_only(), |t| {
                t.get("name").map_or(t.span, |n| n.span)
            })
    }

    /// Where `tool` is listed among `profile`'s members, or the profile.
    pub fn profile_span(&self, profile: &str, tool: Option<&str>) -> Span {
        let Some(p) = self
            .root
            .get("profiles")
            .and_then(|p| p.get_member(profile))
        else {
            return self.root.span.start_only();
        };
        tool.and_then(|name| {
            p.value
                .items()?
                .iter()
                .find(|n| n.as_str() == Some(name))
                .map(|n| n.span)
        })
        .unwrap_or(p.key_span)
    }
}

/// What a scan learned about the surface, for the P rules and reports.
pub struct Outcome {
    /// The snapshot file, when one is committed.
    pub snapshot_file: Option<String>,
    pub changes: Vec<Change>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_json_sorts_keys_at_every_level() {
        let v = serde_json::json!({"b": 1, "a": {"d": [1, {"z": 0, "y": null}], "c": "x"}});
        let mut out = String::new();
        canonical(&v, &mut out);
        assert_eq!(out, r#"{"a":{"c":"x","d":[1,{"y":null,"z":0}]},"b":1}"#);
    }

    #[test]
    fn default_path_is_beside_the_first_folder() {
        let o = SurfaceOptions::beside(&[PathBuf::from("some/dir")]);
        assert_eq!(o.path.unwrap(), Path::new("some/dir").join(FILE_NAME));
        let o = SurfaceOptions::beside(&[]);
        assert_eq!(o.path.unwrap(), Path::new(".").join(FILE_NAME));
    }
}
