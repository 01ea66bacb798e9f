//! The artifact cache of policy sources (`docs/src/reference/cache.md`): a policy
//! given as sources to a command that runs it on every call (`hookc hook`,
//! `hookc serve`, the bindings' compile-from-path) is compiled once, and
//! later calls load the artifact the cache keeps, as fast as from a `.hkb`.
//!
//! - **Key.** An entry is found by a 128-bit XXH3 hash of the hookc version, the
//!   artifact format version, the layer order and every source's name,
//!   layer and text, read on each call; a changed byte of any source, or
//!   another hookc, finds no entry and compiles.
//! - **Where.** `.hookc/cache/` beside the first source (its folder's
//!   `cache/` when that folder is `.hookc` itself), else the user's cache
//!   folder (`$XDG_CACHE_HOME/hookc`, `~/.cache/hookc`,
//!   `%LOCALAPPDATA%\hookc\cache`); `HOOKC_CACHE_DIR` names one folder
//!   instead, and `HOOKC_CACHE=off` turns the cache off. A folder that
//!   cannot be written is passed over; with none, the call compiles and
//!   answers as without a cache.
//! - **Trust.** An entry is read like any artifact (checksum, decoding,
//!   verification) and carries its key; one that does not load, or names
//!   another key, is compiled again and replaced, never used.
//! - **Races.** An entry is written to a temporary file of its own and
//!   renamed into place, so a reader sees a whole entry or none; two cold
//!   calls both compile, and the last rename wins with the same bytes.
//!   Writing an entry removes the policy's older entries (same sources,
//!   other contents).

use crate::compile::{Compilation, Input, LayerName, LayerOrder};
use crate::files::{
    loaded, only_artifact, read_files, LoadedPolicy, PolicyError, PolicyFile, ReadError,
};
use hookc_runtime::Policy;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::Xxh3;

/// The first line of every entry.
const ENTRY_MAGIC: &str = "hookc-cache 1";

/// The environment variable that turns the cache off (`off`).
pub const CACHE_SWITCH_VAR: &str = "HOOKC_CACHE";

/// The environment variable that names the one folder to keep entries in.
pub const CACHE_DIR_VAR: &str = "HOOKC_CACHE_DIR";

/// How a policy came out of the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheUse {
    /// Loaded from an entry.
    Hit,
    /// Compiled, and its entry written.
    Stored,
    /// Compiled, and kept nowhere (the cache is off, or no folder could
    /// be written).
    Uncached,
}

/// A policy loaded through the cache.
#[derive(Debug)]
pub struct CachedPolicy {
    /// The policy, verified.
    pub policy: Policy,
    /// What the caller stored beside it when it compiled (its warnings).
    pub notes: Value,
    /// Whether it came from an entry.
    pub used: CacheUse,
}

/// Loads the policy of sources `files` through the cache: the entry for
/// their content when one loads, else `build` compiles them and what it
/// returns (the policy and notes of the caller's, such as warnings) is
/// kept for the next call. Reading the sources is the one error the
/// cache itself can give; `build`'s errors are returned as they are and
/// nothing is kept.
pub fn load_through_cache<E: From<ReadError>>(
    files: &[PolicyFile],
    order: Option<LayerOrder>,
    build: impl FnOnce(Compilation) -> Result<(Policy, Value), E>,
) -> Result<CachedPolicy, E> {
    let inputs = read_files(files)?;
    let key = entry_key(&inputs, order);
    let folders = folders(files);
    for folder in &folders {
        if let Some((policy, notes)) = read_entry(&folder.join(entry_name(files, &key)), &key) {
            return Ok(CachedPolicy {
                policy,
                notes,
                used: CacheUse::Hit,
            });
        }
    }
    let (policy, notes) = build(crate::files::compile_read(&inputs, order))?;
    let entry = encode_entry(&key, &notes, &policy.to_artifact());
    let stored = folders
        .iter()
        .any(|folder| write_entry(folder, files, &key, &entry).is_ok());
    Ok(CachedPolicy {
        policy,
        notes,
        used: if stored {
            CacheUse::Stored
        } else {
            CacheUse::Uncached
        },
    })
}

/// [`crate::files::load_policy`] for a command that runs the policy on every call
/// (`hookc hook`, `hookc serve`): sources go through the artifact cache
/// (this module), so an unchanged policy loads as fast as its
/// artifact. Their warnings are not the caller's business and are not
/// kept.
pub fn load_policy_cached(files: &[PolicyFile]) -> Result<LoadedPolicy, PolicyError> {
    if let Some(artifact) = only_artifact(files)? {
        return Ok(artifact);
    }
    // The entry keeps the artifact's digest, for decision logs to name
    // without encoding the policy again.
    let cached = load_through_cache(files, None, |c| {
        loaded(c, |_| false).map(|l| {
            let digest = crate::files::artifact_digest(&l.policy.to_artifact());
            (l.policy, serde_json::json!({ "digest": digest }))
        })
    })?;
    Ok(LoadedPolicy {
        policy: cached.policy,
        warnings: String::new(),
        sources: Vec::new(),
        digest: cached
            .notes
            .get("digest")
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned),
    })
}

/// The key of an entry: what the compiled artifact depends on.
fn entry_key(inputs: &[(Input, Option<LayerName>)], order: Option<LayerOrder>) -> String {
    let mut h = Xxh3::new();
    let mut field = |bytes: &[u8]| {
        h.update(&(bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    field(ENTRY_MAGIC.as_bytes());
    field(env!("CARGO_PKG_VERSION").as_bytes());
    field(&hookc_runtime::artifact::FORMAT_VERSION.to_le_bytes());
    field(format!("{order:?}").as_bytes());
    for (input, layer) in inputs {
        field(input.name.as_bytes());
        field(layer.as_ref().map_or("", |l| l.as_str()).as_bytes());
        field(input.text.as_bytes());
    }
    format!("{:032x}", h.digest128())
}

/// The file name of a policy's entry: which sources (their paths), then
/// the key, so that a policy's older entries can be found and removed.
fn entry_name(files: &[PolicyFile], key: &str) -> String {
    format!("{}-{key}.hkb", policy_id(files))
}

/// A short name for the sources of a policy: a hash of their paths and
/// of the names they go by (which the artifact's hook ids and locations
/// use: `guard.yaml` and `./guard.yaml` are two entries, and one does not
/// remove the other).
fn policy_id(files: &[PolicyFile]) -> String {
    let mut h = Xxh3::new();
    for f in files {
        let path = std::path::absolute(&f.path).unwrap_or_else(|_| f.path.clone());
        for part in [path.to_string_lossy().as_ref(), f.name.as_str()] {
            h.update(&(part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
    }
    format!("{:016x}", h.digest())
}

/// The folders to keep entries in, in the order tried.
fn folders(files: &[PolicyFile]) -> Vec<PathBuf> {
    let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if env(CACHE_SWITCH_VAR).is_some_and(|v| v == "off" || v == "0") {
        return Vec::new();
    }
    if let Some(dir) = env(CACHE_DIR_VAR) {
        return vec![PathBuf::from(dir)];
    }
    let mut out = Vec::new();
    if let Some(dir) = files.first().and_then(|f| f.path.parent()) {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        out.push(if dir.file_name().is_some_and(|n| n == ".hookc") {
            dir.join("cache")
        } else {
            dir.join(".hookc").join("cache")
        });
    }
    let user = env("XDG_CACHE_HOME")
        .map(|d| PathBuf::from(d).join("hookc"))
        .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".cache").join("hookc")))
        .or_else(|| env("LOCALAPPDATA").map(|d| PathBuf::from(d).join("hookc").join("cache")));
    out.extend(user);
    out
}

/// An entry: the magic line, the key line, the notes' length line, the
/// notes (JSON), then the artifact.
fn encode_entry(key: &str, notes: &Value, artifact: &[u8]) -> Vec<u8> {
    let notes = notes.to_string();
    let mut out = format!("{ENTRY_MAGIC}\n{key}\n{}\n{notes}", notes.len()).into_bytes();
    out.extend_from_slice(artifact);
    out
}

/// The policy and notes of the entry at `path`, when it is there, names
/// `key` and loads; `None` otherwise (a damaged entry is then rebuilt).
fn read_entry(path: &Path, key: &str) -> Option<(Policy, Value)> {
    let bytes = std::fs::read(path).ok()?;
    let mut rest = bytes.as_slice();
    let mut line = || -> Option<&[u8]> {
        let end = rest.iter().position(|&b| b == b'\n')?;
        let (l, r) = rest.split_at(end);
        rest = r.get(1..)?;
        Some(l)
    };
    if line()? != ENTRY_MAGIC.as_bytes() || line()? != key.as_bytes() {
        return None;
    }
    let len: usize = std::str::from_utf8(line()?).ok()?.parse().ok()?;
    let notes = rest.get(..len)?;
    let artifact = rest.get(len..)?;
    let notes: Value = serde_json::from_slice(notes).ok()?;
    let policy = Policy::from_artifact(artifact).ok()?;
    Some((policy, notes))
}

/// Writes an entry into `folder` (made if need be): a temporary file of
/// this call's, renamed into place; then the policy's older entries go.
fn write_entry(
    folder: &Path,
    files: &[PolicyFile],
    key: &str,
    entry: &[u8],
) -> std::io::Result<()> {
    if !folder.is_dir() {
        std::fs::create_dir_all(folder)?;
        // The cache is not the project's: keep it out of version control.
        std::fs::write(folder.join(".gitignore"), "*\n")?;
    }
    let name = entry_name(files, key);
    let tmp = folder.join(format!(
        ".{name}.{}.{}.tmp",
        std::process::id(),
        unique_suffix()
    ));
    let written = std::fs::File::create(&tmp).and_then(|mut f| f.write_all(entry));
    let renamed = written.and_then(|()| std::fs::rename(&tmp, folder.join(&name)));
    if renamed.is_err() {
        let _ = std::fs::remove_file(&tmp);
        return renamed;
    }
    // Best effort: an older entry another call still reads stays readable
    // to it (an open file outlives its name).
    let prefix = format!("{}-", policy_id(files));
    if let Ok(dir) = std::fs::read_dir(folder) {
        for old in dir.flatten() {
            let n = old.file_name();
            let n = n.to_string_lossy();
            if n.starts_with(&prefix) && n.ends_with(".hkb") && *n != *name {
                let _ = std::fs::remove_file(old.path());
            }
        }
    }
    Ok(())
}

/// A number that differs between the threads of one process.
fn unique_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_reads_back_only_under_its_key() {
        let policy = crate::compile::compile(&[Input::new(
            "p.yaml",
            "hooks:\n- id: h\n  event: e\n  action: {type: abort}\n",
        )])
        .into_policy()
        .unwrap();
        let dir = std::env::temp_dir().join(format!("hookc-cache-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("e.hkb");
        let notes = serde_json::json!({"warnings": "w"});
        std::fs::write(&path, encode_entry("k1", &notes, &policy.to_artifact())).unwrap();
        let (_, back) = read_entry(&path, "k1").unwrap();
        assert_eq!(back, notes);
        assert!(read_entry(&path, "k2").is_none());
        // Cut short, or a byte of the artifact changed: not used.
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
        assert!(read_entry(&path, "k1").is_none());
        let mut flipped = bytes.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 0x40;
        std::fs::write(&path, &flipped).unwrap();
        assert!(read_entry(&path, "k1").is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_key_follows_every_source_and_layer() {
        let a = Input::new("a.yaml", "x");
        let b = Input::new("b.yaml", "y");
        let layer = LayerName::new("base").unwrap();
        let k = |inputs: &[(Input, Option<LayerName>)]| entry_key(inputs, None);
        let base = k(&[(a.clone(), None), (b.clone(), None)]);
        assert_eq!(base, k(&[(a.clone(), None), (b.clone(), None)]));
        assert_ne!(base, k(&[(b.clone(), None), (a.clone(), None)]));
        assert_ne!(base, k(&[(a.clone(), Some(layer)), (b.clone(), None)]));
        assert_ne!(
            base,
            k(&[(a.clone(), None), (Input::new("b.yaml", "y "), None)])
        );
        // Length-prefixed: moving a byte between two fields changes it.
        assert_ne!(
            k(&[(Input::new("ab", "c"), None)]),
            k(&[(Input::new("a", "bc"), None)])
        );
    }
}
