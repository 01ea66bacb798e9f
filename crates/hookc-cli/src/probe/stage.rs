//! The throw-away world `hookc probe` runs a host in
//! (`docs/src/hosts/probe.md`): a temporary folder holding a copy of the
//! project's hook settings and guard folder, a private home with the
//! host's configuration files copied from the user's (the project's path
//! renamed to the copy's, so the trust the user gave the project comes
//! along), and a `bin/` first on PATH with a logging stand-in per program
//! a case runs and a `hookc` that counts its calls before running the real
//! one. Nothing is written in the user's project or home; the folder is
//! removed when the stage is dropped (unless kept).

use serde_json::Value;
use std::path::{Path, PathBuf};

/// The largest configuration file copied from the user's home.
const MAX_CONFIG_BYTES: u64 = 4 << 20;
/// The most files of the guard's folder copied.
const MAX_GUARD_FILES: usize = 256;

/// Why the stage could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum StageError {
    /// A file or folder could not be read or written.
    #[error("cannot {what} `{path}`: {source}")]
    Io {
        /// What was done.
        what: &'static str,
        /// The path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

fn io<'p>(what: &'static str, path: &'p Path) -> impl FnOnce(std::io::Error) -> StageError + 'p {
    move |source| StageError::Io {
        what,
        path: path.to_owned(),
        source,
    }
}

/// The temporary folder and what is in it.
pub struct Stage {
    /// The temporary folder.
    pub root: PathBuf,
    /// The copy of the project.
    pub project: PathBuf,
    /// The private home.
    pub home: PathBuf,
    /// The folder first on PATH.
    pub bin: PathBuf,
    keep: bool,
}

impl Stage {
    /// A new, empty stage in the system's temporary folder.
    pub fn new(keep: bool) -> Result<Stage, StageError> {
        let base = std::env::temp_dir();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let root = base.join(format!("hookc-probe-{}-{nanos}", std::process::id()));
        let project = root.join("project");
        let home = root.join("home");
        let bin = root.join("bin");
        // A new folder, never one that is there already.
        std::fs::create_dir(&root).map_err(io("create", &root))?;
        for dir in [&project, &home, &bin, &root.join("tmp")] {
            std::fs::create_dir(dir).map_err(io("create", dir))?;
        }
        Ok(Stage {
            root,
            project,
            home,
            bin,
            keep,
        })
    }

    /// Copies `rel` of the project `from` into the copy.
    pub fn copy_file(&self, from: &Path, rel: &Path) -> Result<(), StageError> {
        let to = self.project.join(rel);
        create_parent(&to)?;
        std::fs::copy(from.join(rel), &to).map_err(io("copy", &from.join(rel)))?;
        Ok(())
    }

    /// Copies the files of the folder `rel` of the project `from` (not its
    /// subfolders) into the copy.
    pub fn copy_folder(&self, from: &Path, rel: &Path) -> Result<(), StageError> {
        let source = from.join(rel);
        let entries = std::fs::read_dir(&source).map_err(io("read", &source))?;
        for entry in entries.flatten().take(MAX_GUARD_FILES) {
            if entry.file_type().is_ok_and(|t| t.is_file()) {
                self.copy_file(from, &rel.join(entry.file_name()))?;
            }
        }
        Ok(())
    }

    /// Copies the host's configuration file `rel` from the user's home
    /// `user_home` into the private home, each of `renamed` (the project's
    /// folder and its parents) as a whole quoted string renamed to the
    /// copy's folder. A file that is not there is no error.
    pub fn copy_config(
        &self,
        user_home: &Path,
        rel: &str,
        renamed: &[PathBuf],
    ) -> Result<(), StageError> {
        let from = user_home.join(rel);
        let Ok(meta) = std::fs::metadata(&from) else {
            return Ok(());
        };
        if !meta.is_file() || meta.len() > MAX_CONFIG_BYTES {
            return Ok(());
        }
        let text = std::fs::read_to_string(&from).map_err(io("read", &from))?;
        let copy = self.project.to_string_lossy().into_owned();
        let mut text = text;
        for path in renamed {
            let path = path.to_string_lossy();
            for quote in ['"', '\''] {
                text = text.replace(
                    &format!("{quote}{path}{quote}"),
                    &format!("{quote}{copy}{quote}"),
                );
                text = text.replace(
                    &format!("{quote}{path}/{quote}"),
                    &format!("{quote}{copy}{quote}"),
                );
            }
        }
        let to = self.home.join(rel);
        create_parent(&to)?;
        std::fs::write(&to, text).map_err(io("write", &to))
    }

    /// Creates the private home's folder `rel`.
    pub fn make_dir(&self, rel: &str) -> Result<(), StageError> {
        let dir = self.home.join(rel);
        std::fs::create_dir_all(&dir).map_err(io("create", &dir))
    }

    /// Writes `text` as the private home's `rel`; a JSON object is merged
    /// over the file copied there, its members winning.
    pub fn write_config(&self, rel: &str, text: &str) -> Result<(), StageError> {
        let to = self.home.join(rel);
        let ours: Option<Value> = serde_json::from_str(text).ok();
        let theirs: Option<Value> = std::fs::read_to_string(&to)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok());
        let text = match (theirs, ours) {
            (Some(mut theirs @ Value::Object(_)), Some(ours @ Value::Object(_))) => {
                merge(&mut theirs, ours);
                theirs.to_string()
            }
            _ => text.to_owned(),
        };
        create_parent(&to)?;
        std::fs::write(&to, text).map_err(io("write", &to))
    }

    /// A stand-in `program` on PATH that logs its name and arguments to
    /// [`Stage::ran_log`] and does nothing else.
    pub fn stand_in(&self, program: &str) -> Result<(), StageError> {
        let log = shell_quote(&self.ran_log().to_string_lossy());
        // Each word after one space, none at the end (`ls` logs `ls`).
        self.script(
            program,
            &format!("{{ printf '%s' {name}; for a in \"$@\"; do printf ' %s' \"$a\"; done; echo; }} >> {log}\n", name = shell_quote(program)),
        )
    }

    /// A `hookc` on PATH that logs each call to [`Stage::hookc_log`], then
    /// runs `real`.
    pub fn counting_hookc(&self, real: &Path) -> Result<(), StageError> {
        let log = shell_quote(&self.hookc_log().to_string_lossy());
        let real = shell_quote(&real.to_string_lossy());
        self.script(
            "hookc",
            &format!("echo call >> {log}\nexec {real} \"$@\"\n"),
        )
    }

    fn script(&self, name: &str, body: &str) -> Result<(), StageError> {
        let path = self.bin.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}")).map_err(io("write", &path))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                .map_err(io("make executable", &path))?;
        }
        Ok(())
    }

    /// What the stand-ins logged.
    pub fn ran_log(&self) -> PathBuf {
        self.root.join("ran.log")
    }

    /// Where the counting `hookc` logs.
    pub fn hookc_log(&self) -> PathBuf {
        self.root.join("hookc-calls.log")
    }

    /// The lines the stand-ins logged.
    pub fn ran(&self) -> Vec<String> {
        read_lines(&self.ran_log())
    }

    /// How many times the host ran `hookc`.
    pub fn hookc_calls(&self) -> usize {
        read_lines(&self.hookc_log()).len()
    }

    /// Empties the logs, for the next case.
    pub fn clear_logs(&self) {
        let _ = std::fs::remove_file(self.ran_log());
        let _ = std::fs::remove_file(self.hookc_log());
    }
}

impl Drop for Stage {
    fn drop(&mut self) {
        if self.keep {
            eprintln!("hookc probe: kept {}", self.root.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }
}

fn read_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .map(|t| t.lines().map(str::to_owned).collect())
        .unwrap_or_default()
}

fn create_parent(path: &Path) -> Result<(), StageError> {
    match path.parent() {
        Some(parent) => std::fs::create_dir_all(parent).map_err(io("create", parent)),
        None => Ok(()),
    }
}

/// `text` in single quotes for sh.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// Merges `ours` over `theirs`: objects member by member, anything else
/// replaced.
fn merge(theirs: &mut Value, ours: Value) {
    match (theirs, ours) {
        (Value::Object(theirs), Value::Object(ours)) => {
            for (key, value) in ours {
                match theirs.get_mut(&key) {
                    Some(slot) => merge(slot, value),
                    None => {
                        theirs.insert(key, value);
                    }
                }
            }
        }
        (slot, ours) => *slot = ours,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ours_are_merged_over_theirs_member_by_member() {
        let mut theirs = json!({"security": {"folderTrust": {"enabled": true}, "auth": {"selectedType": "oauth"}}, "x": 1});
        merge(
            &mut theirs,
            json!({"security": {"auth": {"selectedType": "gemini-api-key"}}}),
        );
        assert_eq!(
            theirs,
            json!({"security": {"folderTrust": {"enabled": true}, "auth": {"selectedType": "gemini-api-key"}}, "x": 1})
        );
    }

    #[test]
    fn the_projects_path_and_its_parents_are_renamed_in_copied_config() {
        let stage = Stage::new(false).unwrap();
        let user_home = stage.root.join("user");
        std::fs::create_dir_all(user_home.join(".tool")).unwrap();
        std::fs::write(
            user_home.join(".tool/trust.json"),
            r#"{"/work/app": "TRUST_FOLDER", "/work": "TRUST_FOLDER", "/work/apple": "TRUST_FOLDER", "/work/app/": 1}"#,
        )
        .unwrap();
        let renamed = [PathBuf::from("/work/app"), PathBuf::from("/work")];
        stage
            .copy_config(&user_home, ".tool/trust.json", &renamed)
            .unwrap();
        let text = std::fs::read_to_string(stage.home.join(".tool/trust.json")).unwrap();
        let copy = stage.project.to_string_lossy();
        assert_eq!(text.matches(&*copy).count(), 3, "{text}");
        assert!(text.contains("\"/work/apple\""), "{text}");
        // Not there: nothing copied, no error.
        stage
            .copy_config(&user_home, ".tool/none.json", &renamed)
            .unwrap();
        assert!(!stage.home.join(".tool/none.json").exists());
    }

    #[test]
    fn a_stand_in_logs_its_words_and_the_stage_goes_when_dropped() {
        let stage = Stage::new(false).unwrap();
        stage.stand_in("rm").unwrap();
        let out = std::process::Command::new(stage.bin.join("rm"))
            .args(["-rf", "it's"])
            .status()
            .unwrap();
        assert!(out.success());
        stage.stand_in("ls").unwrap();
        let out = std::process::Command::new(stage.bin.join("ls"))
            .status()
            .unwrap();
        assert!(out.success());
        assert_eq!(stage.ran(), ["rm -rf it's", "ls"]);
        let root = stage.root.clone();
        drop(stage);
        assert!(!root.exists());
    }
}
