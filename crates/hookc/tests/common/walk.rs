//! Finding files for tests that run over every example or data file.

use std::path::{Path, PathBuf};

/// Every file under `dir`, recursively, whose name `keep` accepts, sorted.
pub fn files_under(dir: &Path, keep: &dyn Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else if path.file_name().is_some_and(|n| keep(&n.to_string_lossy())) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}
