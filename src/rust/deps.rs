//! What a crate's dependencies do to the schemas toolaudit derives: rmcp
//! derives `Parameters<T>` through schemars, and until 0.17 it rewrote an
//! `Option<T>` field's `"type": [T, "null"]` to `nullable: true` (the
//! `AddNullable` transform, removed in modelcontextprotocol/rust-sdk#664).
//! And what the crates of one tree know of each other: which depend on
//! which by path, which Cargo workspace each is in, and the facts that
//! hold across them (arguments validated by an agent loop in another
//! crate, tool names renamed by a wire layer in another crate).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use crate::model::code::FileFacts;

/// The first rmcp version whose derived schemas keep schemars' type arrays.
const RMCP_TYPE_ARRAYS: (u64, u64) = (0, 17);

/// Does the crate at `root` use an rmcp that writes an `Option<T>` field as
/// `"type": [T, "null"]`? Read from the nearest `Cargo.lock` (the version
/// resolved), else from the crate's `Cargo.toml` requirement. `false` when
/// neither says (the older, `nullable` form is assumed: it reports less).
pub fn rmcp_writes_type_arrays(root: &Path) -> bool {
    let locked = root
        .ancestors()
        .map(|d| d.join("Cargo.lock"))
        .find(|p| p.is_file())
        .and_then(|p| std::fs::read_to_string(p).ok())
        .and_then(|text| locked_version(&text, "rmcp"));
    let version = locked.or_else(|| {
        let text = std::fs::read_to_string(root.join("Cargo.toml")).ok()?;
        required_version(&text, "rmcp")
    });
    version.is_some_and(|v| v >= RMCP_TYPE_ARRAYS)
}

/// The crates of the same tree the crate at `root` depends on by path
/// (`dep = { path = "../dep" }`, or `dep = { workspace = true }` with the
/// path in the workspace's `[workspace.dependencies]`), as folders written
/// without `.` or `..`. Normal and target-specific dependencies only: dev-
/// and build-dependencies do not run in the tool's process.
pub fn path_deps(root: &Path) -> Vec<std::path::PathBuf> {
    let Some(manifest) = read_table(&root.join("Cargo.toml")) else {
        return Vec::new();
    };
    let mut tables: Vec<&toml::Table> = Vec::new();
    if let Some(t) = manifest.get("dependencies").and_then(toml::Value::as_table) {
        tables.push(t);
    }
    if let Some(targets) = manifest.get("target").and_then(toml::Value::as_table) {
        for target in targets.values() {
            if let Some(t) = target.get("dependencies").and_then(toml::Value::as_table) {
                tables.push(t);
            }
        }
    }
    // The workspace that `workspace = true` refers to: the nearest folder
    // above whose manifest has a `[workspace]`.
    let mut workspace: Option<Option<(std::path::PathBuf, toml::Table)>> = None;
    let mut out = Vec::new();
    for (name, spec) in tables.iter().flat_map(|t| t.iter()) {
        let Some(spec) = spec.as_table() else {
            continue;
        };
        if let Some(path) = spec.get("path").and_then(toml::Value::as_str) {
            out.push(normalize(&root.join(path)));
        } else if spec.get("workspace").and_then(toml::Value::as_bool) == Some(true) {
            let ws = workspace.get_or_insert_with(|| {
                root.ancestors().find_map(|d| {
                    let t = read_table(&d.join("Cargo.toml"))?;
                    t.contains_key("workspace").then(|| (d.to_path_buf(), t))
                })
            });
            if let Some((dir, t)) = ws
                && let Some(path) = t
                    .get("workspace")
                    .and_then(|w| w.get("dependencies"))
                    .and_then(|d| d.get(name))
                    .and_then(|d| d.get("path"))
                    .and_then(toml::Value::as_str)
            {
                out.push(normalize(&dir.join(path)));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The Cargo workspace a crate belongs to: the nearest folder at or above
/// `root` whose manifest has a `[workspace]`, else `root` itself (written
/// without `.` or `..`).
pub fn workspace_root(root: &Path) -> std::path::PathBuf {
    let root = normalize(root);
    root.ancestors()
        .find(|d| read_table(&d.join("Cargo.toml")).is_some_and(|t| t.contains_key("workspace")))
        .unwrap_or(&root)
        .to_path_buf()
}

fn read_table(path: &Path) -> Option<toml::Table> {
    std::fs::read_to_string(path).ok()?.parse().ok()
}

/// `a/b/../c/.` → `a/c`, without touching the file system.
pub fn normalize(path: &Path) -> std::path::PathBuf {
    crate::source::normalize(path)
}

/// The crates whose tool arguments are validated against their schemas:
/// those that build a JSON Schema validator themselves, and those that
/// depend by path (directly or through other crates of the tree) on one
/// that does: an agent loop in a core crate runs the tools of the others.
pub fn validated_crates(crates: &BTreeMap<PathBuf, Vec<FileFacts>>) -> BTreeSet<PathBuf> {
    let validating: BTreeSet<PathBuf> = crates
        .iter()
        .filter(|(_, files)| super::link::validates_tool_arguments(files))
        .map(|(root, _)| normalize(root))
        .collect();
    if validating.is_empty() {
        return BTreeSet::new();
    }
    let mut deps: HashMap<PathBuf, Vec<PathBuf>> = HashMap::new();
    crates
        .keys()
        .filter(|root| {
            let mut seen: BTreeSet<PathBuf> = BTreeSet::new();
            let mut todo = vec![normalize(root)];
            while let Some(dir) = todo.pop() {
                if validating.contains(&dir) {
                    return true;
                }
                if !seen.insert(dir.clone()) {
                    continue;
                }
                let next = deps.entry(dir.clone()).or_insert_with(|| path_deps(&dir));
                todo.extend(next.iter().filter(|d| !seen.contains(*d)).cloned());
            }
            false
        })
        .cloned()
        .collect()
}

/// The crates of a Cargo workspace (the nearest folder above with a
/// `[workspace]` manifest, else the crate alone) one of whose crates puts a
/// sanitised name in the `name` field of what it sends (see
/// [`super::link::maps_tool_names`]): an agent runtime whose wire layer
/// escapes `srv:fs/list` to `srv_3Afs_2Flist`.
pub fn name_mapping_crates(crates: &BTreeMap<PathBuf, Vec<FileFacts>>) -> BTreeSet<PathBuf> {
    let maps: Vec<bool> = crates
        .values()
        .map(|files| super::link::maps_tool_names(files))
        .collect();
    if !maps.contains(&true) {
        return BTreeSet::new();
    }
    // Each crate's workspace, read once.
    let roots: Vec<(&PathBuf, PathBuf)> = crates
        .keys()
        .map(|root| (root, workspace_root(root)))
        .collect();
    let workspaces: BTreeSet<&PathBuf> = roots
        .iter()
        .zip(&maps)
        .filter(|(_, maps)| **maps)
        .map(|((_, ws), _)| ws)
        .collect();
    roots
        .iter()
        .filter(|(_, ws)| workspaces.contains(ws))
        .map(|(root, _)| (*root).clone())
        .collect()
}

/// The highest `version` of package `name` in a `Cargo.lock`.
fn locked_version(lock: &str, name: &str) -> Option<(u64, u64)> {
    let wanted = format!("name = \"{name}\"");
    let mut lines = lock.lines().map(str::trim);
    let mut best = None;
    while let Some(line) = lines.next() {
        if line == wanted
            && let Some(v) = lines
                .next()
                .and_then(|l| l.strip_prefix("version = \""))
                .and_then(|l| l.strip_suffix('"'))
                .and_then(major_minor)
        {
            best = best.max(Some(v));
        }
    }
    best
}

/// The version a `Cargo.toml` asks for: `name = "1.2"`, `name = { version =
/// "^0.8", .. }` (its first numbers).
fn required_version(toml: &str, name: &str) -> Option<(u64, u64)> {
    toml.lines().map(str::trim).find_map(|l| {
        let rest = l
            .strip_prefix(name)?
            .trim_start()
            .strip_prefix('=')?
            .trim_start();
        let req = match rest.strip_prefix('{') {
            Some(table) => table.split("version").nth(1)?.split('"').nth(1)?,
            None => rest.split('"').nth(1)?,
        };
        major_minor(req.trim_start_matches(['^', '~', '=', '>', ' ']))
    })
}

/// `0.17.2` → `(0, 17)`.
fn major_minor(v: &str) -> Option<(u64, u64)> {
    let mut parts = v.split('.');
    let major = parts.next()?.trim().parse().ok()?;
    let minor = parts.next().map_or(Some(0), |m| m.trim().parse().ok())?;
    Some((major, minor))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_from_lock_files_and_requirements() {
        let lock = "[[package]]\nname = \"rmcp\"\nversion = \"0.16.0\"\n\n[[package]]\nname = \"rmcp\"\nversion = \"1.2.0\"\n";
        assert_eq!(locked_version(lock, "rmcp"), Some((1, 2)));
        assert_eq!(locked_version(lock, "rmcp-macros"), None);
        assert_eq!(required_version("rmcp = \"0.8\"\n", "rmcp"), Some((0, 8)));
        assert_eq!(
            required_version(
                "rmcp = { version = \"^1.0\", features = [\"server\"] }\n",
                "rmcp"
            ),
            Some((1, 0))
        );
        assert_eq!(required_version("rmcp-macros = \"1.0\"\n", "rmcp"), None);
        assert!((0, 17) >= RMCP_TYPE_ARRAYS && (0, 16) < RMCP_TYPE_ARRAYS);
    }
}
