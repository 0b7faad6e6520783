//! Which Python file of the scan an import names: `from .client import
//! fetch` in `pkg/server.py` is `fetch` of `pkg/client.py`; `import
//! utils` is `utils.py` (or `utils/__init__.py`) beside the importer or in
//! a folder above it (a project run from its root, or with `src/` on the
//! path). Only files of the scan are candidates, so an installed package
//! is never taken for a project module.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What an imported name is in the scan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Imported {
    /// A module: its file.
    Module(usize),
    /// A name defined in a module (`from .m import f`): the file and name.
    Name(usize, String),
}

/// How many folders above the importer an absolute import is looked for.
const MAX_ANCESTORS: usize = 6;

/// The Python files of a scan, by normalised absolute path.
pub struct Index {
    by_path: HashMap<PathBuf, usize>,
    /// Which files are a package's `__init__.py`.
    packages: Vec<bool>,
}

/// `p` made absolute and without `.`/`..` parts, so that paths as the walk
/// found them compare.
pub fn canonical(p: &Path) -> PathBuf {
    crate::rust::modules::normalise(&std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()))
}

impl Index {
    /// `paths[i]` is file `i`.
    pub fn new<'a>(paths: impl IntoIterator<Item = &'a Path>) -> Index {
        let paths: Vec<&Path> = paths.into_iter().collect();
        Index {
            packages: paths
                .iter()
                .map(|p| p.file_name().is_some_and(|n| n == "__init__.py"))
                .collect(),
            by_path: paths
                .into_iter()
                .enumerate()
                .map(|(i, p)| (canonical(p), i))
                .collect(),
        }
    }

    /// Is file `i` a package's `__init__.py` (which mostly re-exports
    /// names of its modules)?
    /// A file's index, by its path.
    pub fn position(&self, p: &Path) -> Option<usize> {
        self.by_path.get(&canonical(p)).copied()
    }

    pub fn is_package(&self, i: usize) -> bool {
        self.packages.get(i).copied().unwrap_or(false)
    }

    /// The module `parts` (`["a", "b"]`) under `dir`: `a/b.py` or
    /// `a/b/__init__.py`.
    fn module(&self, dir: &Path, parts: &[String]) -> Option<usize> {
        let mut p = dir.to_path_buf();
        for part in parts {
            p.push(part);
        }
        let file = p.with_extension("py");
        if let Some(i) = self.by_path.get(&file) {
            return Some(*i);
        }
        p.push("__init__.py");
        self.by_path.get(&p).copied()
    }

    /// What `path` (as `FileFacts::uses` writes it, a `"."` per leading
    /// dot) imported in `importer` is, when it is a file of the scan.
    pub fn resolve(&self, importer: &Path, path: &[String]) -> Option<Imported> {
        let level = path.iter().take_while(|s| *s == ".").count();
        let rest = &path[level..];
        let dir = canonical(importer.parent()?);
        let bases: Vec<PathBuf> = if level > 0 {
            let mut b = dir.as_path();
            for _ in 1..level {
                b = b.parent()?;
            }
            vec![b.to_path_buf()]
        } else {
            dir.ancestors()
                .take(MAX_ANCESTORS)
                .flat_map(|a| [a.to_path_buf(), a.join("src")])
                .collect()
        };
        for b in &bases {
            if !rest.is_empty()
                && let Some(i) = self.module(b, rest)
            {
                return Some(Imported::Module(i));
            }
            let Some((name, module)) = rest.split_last() else {
                continue;
            };
            let file = if module.is_empty() {
                // `from . import x`: a name of the package's `__init__.py`.
                (level > 0)
                    .then(|| self.by_path.get(&b.join("__init__.py")).copied())
                    .flatten()
            } else {
                self.module(b, module)
            };
            if let Some(i) = file {
                return Some(Imported::Name(i, name.clone()));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(s: &str) -> Vec<String> {
        let mut out = Vec::new();
        let dots = s.chars().take_while(|c| *c == '.').count();
        out.extend(std::iter::repeat_n(".".to_string(), dots));
        out.extend(
            s[dots..]
                .split('.')
                .filter(|p| !p.is_empty())
                .map(str::to_string),
        );
        out
    }

    #[test]
    fn resolves_relative_absolute_and_package_imports() {
        let files = [
            "/p/src/pkg/__init__.py",
            "/p/src/pkg/server.py",
            "/p/src/pkg/client.py",
            "/p/src/pkg/tools/__init__.py",
            "/p/src/pkg/tools/search.py",
            "/p/utils.py",
        ];
        let ix = Index::new(files.iter().map(Path::new));
        let server = Path::new("/p/src/pkg/server.py");
        let search = Path::new("/p/src/pkg/tools/search.py");
        assert_eq!(
            ix.resolve(server, &path(".client")),
            Some(Imported::Module(2))
        );
        assert_eq!(
            ix.resolve(server, &path(".client.fetch")),
            Some(Imported::Name(2, "fetch".into()))
        );
        assert_eq!(
            ix.resolve(search, &path("..client.fetch")),
            Some(Imported::Name(2, "fetch".into()))
        );
        assert_eq!(
            ix.resolve(search, &path(".helper")),
            Some(Imported::Name(3, "helper".into()))
        );
        assert_eq!(
            ix.resolve(server, &path("pkg.tools.search.run")),
            Some(Imported::Name(4, "run".into()))
        );
        assert_eq!(
            ix.resolve(search, &path("utils")),
            Some(Imported::Module(5))
        );
        assert_eq!(
            ix.resolve(server, &path("pkg.tools")),
            Some(Imported::Module(3))
        );
        // Installed packages are not files of the scan.
        assert_eq!(ix.resolve(server, &path("httpx.AsyncClient")), None);
        assert_eq!(ix.resolve(server, &path("....too.far")), None);
    }
}
