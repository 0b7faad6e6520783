//! What a crate's dependencies do to the schemas toolaudit derives: rmcp
//! derives `Parameters<T>` through schemars, and until 0.17 it rewrote an
//! `Option<T>` field's `"type": [T, "null"]` to `nullable: true` (the
//! `AddNullable` transform, removed in modelcontextprotocol/rust-sdk#664).

use std::path::Path;

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
