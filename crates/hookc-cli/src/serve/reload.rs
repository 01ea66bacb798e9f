//! The policy versions `hookc serve` decides with, and their reload.
//!
//! The current version is one `Arc` behind an [`ArcSwap`]: a request takes
//! it once and decides with it to the end, so a reload never splits a
//! request between two policies, and an old version lives until its last
//! request is answered.
//!
//! [`watch`] checks the policy's files every poll by their contents (a
//! fingerprint of their bytes: a file replaced within the granularity of
//! its modification time is still seen). A change is loaded only once the
//! same contents are seen on two polls in a row, so a file caught half
//! written is not loaded; and it is swapped in only if the files still read
//! the same after the load, so what serves is what the files say. A policy
//! that does not load is refused and said on standard error, and the
//! current one keeps serving; the refusal is counted for `/health`.

use crate::hook::load;
use arc_swap::ArcSwap;
use hookc_binding::hosts::{now_utc, HookError};
use hookc_runtime::Policy;
use std::hash::{DefaultHasher, Hasher};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// One loaded policy and how to tell it apart from the others.
pub struct Version {
    /// The policy, loaded and verified.
    pub policy: Policy,
    /// 1 for the policy loaded at start, one more for each reload.
    pub version: u64,
    /// The fingerprint of the files' contents it was loaded from (not a
    /// cryptographic hash: it tells versions apart).
    pub fingerprint: u64,
    /// When it was loaded (RFC 3339, UTC).
    pub loaded_at: String,
    /// Whether a hook awaits a result (`run`, `test_path`: a program or the
    /// file system); its evaluations go to the blocking pool.
    pub awaits: bool,
    /// The policy's digest (`hookc disasm`'s), for the decision lines;
    /// computed at the first one (it encodes the policy).
    digest: std::sync::OnceLock<String>,
}

impl Version {
    /// The version `version` of `policy`, read from contents `fingerprint`.
    fn new(policy: Policy, version: u64, fingerprint: u64) -> Version {
        Version {
            awaits: policy.awaits(),
            policy,
            version,
            fingerprint,
            loaded_at: now_utc(),
            digest: std::sync::OnceLock::new(),
        }
    }

    /// The policy's digest, `sha256:HEX`, as `hookc disasm` prints it.
    pub fn digest(&self) -> &str {
        self.digest
            .get_or_init(|| hookc::files::artifact_digest(&self.policy.to_artifact()))
    }
}

/// The policy's files and the version that serves them.
pub struct Versions {
    /// The policy's files, as given.
    files: Vec<PathBuf>,
    /// The current version.
    current: ArcSwap<Version>,
    /// Changed policies refused since the start.
    refused: AtomicU64,
}

impl Versions {
    /// Loads the first version; an error when the policy does not load.
    pub fn load(files: Vec<PathBuf>) -> Result<Versions, HookError> {
        let before = fingerprint(&files);
        let policy = load(&files)?;
        let first = Version::new(policy, 1, before);
        Ok(Versions {
            files,
            current: ArcSwap::from_pointee(first),
            refused: AtomicU64::new(0),
        })
    }

    /// The version that serves now (a request keeps it to its end).
    pub fn current(&self) -> Arc<Version> {
        self.current.load_full()
    }

    /// How many changed policies were refused.
    pub fn refused(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }

    /// The policy files, loaded if they still read as `expected` after
    /// loading: `None` when they changed meanwhile (the next polls see the
    /// new contents).
    fn reload(&self, expected: u64) -> Option<Result<Policy, HookError>> {
        let loaded = load(&self.files);
        (fingerprint(&self.files) == expected).then_some(loaded)
    }
}

/// Checks the policy's files every `poll` and swaps in what they say when
/// it loads (see the module's doc); runs until the server stops.
pub async fn watch(versions: Arc<Versions>, poll: Duration) {
    // The contents last acted on (loaded, or refused; at first, what the
    // first version was read from, so a change during the start is seen),
    // and the contents seen on the previous poll, not yet acted on.
    let mut settled = versions.current().fingerprint;
    let mut pending: Option<u64> = None;
    let mut ticks = tokio::time::interval(poll);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let seen = fingerprint_of(&versions).await;
        if seen == settled {
            pending = None;
            continue;
        }
        if pending != Some(seen) {
            // Changed since the last poll: wait for it to hold still.
            pending = Some(seen);
            continue;
        }
        pending = None;
        let job = Arc::clone(&versions);
        let Ok(Some(outcome)) = tokio::task::spawn_blocking(move || job.reload(seen)).await else {
            // Changed while loading (or the load's thread was lost): the
            // next polls see what the files say now.
            continue;
        };
        settled = seen;
        match outcome {
            Ok(policy) => {
                let version = versions.current().version + 1;
                let next = Version::new(policy, version, seen);
                versions.current.store(Arc::new(next));
                eprintln!(
                    "hookc serve: reloaded the policy: version {version}, {}",
                    hex(seen)
                );
            }
            Err(e) => {
                versions.refused.fetch_add(1, Ordering::Relaxed);
                eprintln!(
                    "hookc serve: the changed policy is refused, version {} keeps serving: {e}",
                    versions.current().version
                );
            }
        }
    }
}

/// [`fingerprint`] of the policy's files, read on the blocking pool.
async fn fingerprint_of(versions: &Arc<Versions>) -> u64 {
    let job = Arc::clone(versions);
    tokio::task::spawn_blocking(move || fingerprint(&job.files))
        .await
        // A lost read counts as a change, tried again on the next poll.
        .unwrap_or(0)
}

/// A fingerprint of the files' contents, in order; a file that cannot be
/// read counts by its error, so its return is a change too.
fn fingerprint(files: &[PathBuf]) -> u64 {
    let mut hasher = DefaultHasher::new();
    for file in files {
        match std::fs::read(file) {
            Ok(bytes) => {
                hasher.write_u8(1);
                hasher.write_usize(bytes.len());
                hasher.write(&bytes);
            }
            Err(e) => {
                hasher.write_u8(0);
                hasher.write(e.kind().to_string().as_bytes());
            }
        }
    }
    hasher.finish()
}

/// A fingerprint as 16 hex digits.
pub fn hex(fingerprint: u64) -> String {
    format!("{fingerprint:016x}")
}
