//! The notes folder: reading, listing, searching, appending.

use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Clone)]
pub struct NoteStore {
    root: PathBuf,
}

pub struct Hit {
    pub path: String,
    pub snippet: String,
}

impl NoteStore {
    pub fn open(root: impl Into<PathBuf>) -> std::io::Result<Self> {
        let root = root.into();
        std::fs::metadata(&root)?;
        Ok(Self { root })
    }

    fn resolve(&self, rel: &str) -> std::io::Result<PathBuf> {
        let p = self.root.join(rel);
        if !p.starts_with(&self.root) {
            return Err(std::io::Error::other("path leaves the notes folder"));
        }
        Ok(p)
    }

    pub fn read(&self, rel: &str) -> std::io::Result<String> {
        std::fs::read_to_string(self.resolve(rel)?)
    }

    pub fn list(&self, folder: &str) -> std::io::Result<Vec<String>> {
        let mut names: Vec<String> = std::fs::read_dir(self.resolve(folder)?)?
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        Ok(names)
    }

    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit> {
        let mut hits = Vec::new();
        for name in self.list("").unwrap_or_default() {
            let Ok(body) = self.read(&name) else { continue };
            if let Some(at) = body.find(query) {
                let end = (at + 80).min(body.len());
                hits.push(Hit {
                    path: name,
                    snippet: body[at..end].to_string(),
                });
            }
        }
        hits.truncate(limit);
        hits
    }

    pub fn append(&self, rel: &str, text: &str) -> std::io::Result<()> {
        let path = self.resolve(rel)?;
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(Path::new(&path))?;
        writeln!(f, "{text}")
    }
}
