//! Decision logs a team can ship (`docs/src/hosts/teams.md`): one JSON line
//! per decided call, `{"decision_id", "time", "host", "event", "hook",
//! "decision", "policy_digest", "hookc", "context"}`, appended in one write
//! (concurrent calls append whole lines), the file rotated to `FILE.1`
//! once it passes its size bound. The members `--mask` names, and those
//! the policy marks `sensitive:`, are replaced
//! in the logged context by `hmac-sha256:HEX` of their JSON text, keyed
//! (`HOOKC_LOG_KEY`, else a key made once in the state folder), so that
//! equal values still log equal and nobody without the key reads them.
//! `hookc eval --events` and `hookc diff` replay the lines (a masked
//! member replays as its hash).
//!
//! A [`DecisionSink`] also receives each line once it is built (and
//! written, when there is a file): `hookc hook --otlp-endpoint` exports
//! them as OpenTelemetry log records (`crates/hookc-cli/src/otlp.rs`),
//! without this crate knowing anything of OpenTelemetry.

use super::memory::state_dir;
use super::HookError;
use hmac::{Hmac, Mac};
use hookc_runtime::{Decision, Policy};
use serde_json::{Map, Value};
use sha2::Sha256;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where and how a call's decision is logged (`--log`, `--mask`,
/// `--log-max-bytes`, and a [`DecisionSink`]).
#[derive(Debug, Clone, Copy)]
pub struct DecisionLog<'a> {
    /// The file lines are appended to; `None` when the lines only go to
    /// [`DecisionLog::sink`] (`hookc hook --otlp-endpoint` without `--log`).
    pub path: Option<&'a Path>,
    /// Context members to mask, as dotted paths (`tool_input.command`).
    pub mask: &'a [String],
    /// Past this size the file is renamed `FILE.1` (replacing an older
    /// one) before the next line is written.
    pub max_bytes: u64,
    /// The policy's digest when the caller knows it (from the artifact's
    /// bytes, or the artifact cache's entry); else it is computed, which
    /// encodes the policy again.
    pub policy_digest: Option<&'a str>,
    /// The decision id to write (a shadow line names its live line's);
    /// `None` for a fresh one.
    pub decision_id: Option<&'a str>,
    /// Also given each line, once built (and written, when there is a
    /// file).
    pub sink: Option<DecisionSink<'a>>,
}

/// A receiver of each decision line (a JSON object) as it is logged, masked members
/// already hashed: the CLI's OpenTelemetry exporter. It must not fail the
/// call (it returns nothing), and it is called on the thread that decides.
#[derive(Clone, Copy)]
pub struct DecisionSink<'a>(pub &'a (dyn Fn(&Value) + Sync));

impl std::fmt::Debug for DecisionSink<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DecisionSink(..)")
    }
}

impl<'a> DecisionLog<'a> {
    /// A log at `path`, nothing masked, rotated at
    /// [`hookc_runtime::limits::MAX_LOG_BYTES`].
    pub fn at(path: &'a Path) -> DecisionLog<'a> {
        DecisionLog::new(Some(path))
    }

    /// [`DecisionLog::at`], or with no file (lines for a sink only).
    pub fn new(path: Option<&'a Path>) -> DecisionLog<'a> {
        DecisionLog {
            path,
            mask: &[],
            max_bytes: hookc_runtime::limits::MAX_LOG_BYTES,
            policy_digest: None,
            decision_id: None,
            sink: None,
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A decision id: 128 bits of the system's random source, in hex (the
/// time and process when it has none).
pub fn new_decision_id() -> String {
    let mut id = [0u8; 16];
    if getrandom::fill(&mut id).is_err() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos();
        let mixed = nanos ^ (u128::from(std::process::id()) << 96);
        id = mixed.to_le_bytes();
    }
    hex(&id)
}

/// The masking key: `HOOKC_LOG_KEY`, else `STATE/log.key`, made (32 random
/// bytes, mode 0600) the first time.
fn mask_key() -> Result<Vec<u8>, HookError> {
    if let Some(key) = std::env::var_os("HOOKC_LOG_KEY").filter(|k| !k.is_empty()) {
        return Ok(key.to_string_lossy().into_owned().into_bytes());
    }
    let no_key = |problem: String| HookError::Log {
        path: PathBuf::from("log.key"),
        source: std::io::Error::other(problem),
    };
    let dir = state_dir(|name| std::env::var_os(name)).ok_or_else(|| {
        no_key("no state folder for the masking key: set HOOKC_LOG_KEY".to_owned())
    })?;
    let path = dir.join("log.key");
    if let Ok(key) = std::fs::read(&path) {
        if !key.is_empty() {
            return Ok(key);
        }
    }
    let mut key = [0u8; 32];
    getrandom::fill(&mut key).map_err(|e| no_key(e.to_string()))?;
    let io = |source| HookError::Log {
        path: path.clone(),
        source,
    };
    std::fs::create_dir_all(&dir).map_err(io)?;
    // Written whole, then renamed: two first calls agree on one key.
    let tmp = dir.join(format!(".log.key.{}", std::process::id()));
    std::fs::write(&tmp, hex(&key)).map_err(io)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o600));
    }
    if std::fs::hard_link(&tmp, &path).is_err() && !path.exists() {
        std::fs::rename(&tmp, &path).map_err(io)?;
    }
    let _ = std::fs::remove_file(&tmp);
    std::fs::read(&path).map_err(io)
}

/// `context` with each masked member replaced by its keyed hash.
fn masked(context: &Value, mask: &[String]) -> Result<Value, HookError> {
    if mask.is_empty() {
        return Ok(context.clone());
    }
    let key = mask_key()?;
    let mut out = context.clone();
    for path in mask {
        let Some(at) = path
            .split('.')
            .try_fold(&mut out, |at, part| at.get_mut(part))
        else {
            continue;
        };
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&key).map_err(|e| HookError::Log {
            path: PathBuf::from("log.key"),
            source: std::io::Error::other(e.to_string()),
        })?;
        mac.update(at.to_string().as_bytes());
        *at = Value::from(format!("hmac-sha256:{}", hex(&mac.finalize().into_bytes())));
    }
    Ok(out)
}

/// What a line logs: the live decision, or a shadow policy's (or why it
/// could not decide).
#[derive(Debug, Clone, Copy)]
pub(super) enum Logged<'d, 'p> {
    /// The decision the host is answered with.
    Live(&'d Decision<'p>),
    /// A candidate's, beside it (`--shadow`).
    Shadow(Result<&'d Decision<'p>, &'d str>),
}

/// Appends the call's line to the log, rotating it first when it is past
/// its bound, then gives it to the log's sink. Without a file, nothing
/// here can fail the call: a line whose masking key cannot be had is
/// given to no sink (never unmasked).
pub(super) fn append(
    log: &DecisionLog<'_>,
    host: &str,
    policy: &Policy,
    event: &str,
    context: &Value,
    decided: Logged<'_, '_>,
) -> Result<(), HookError> {
    let mut line = Map::new();
    let id = log.decision_id.map_or_else(new_decision_id, str::to_owned);
    line.insert("decision_id".to_owned(), Value::from(id));
    line.insert("time".to_owned(), Value::from(super::now_utc()));
    line.insert("host".to_owned(), Value::from(host));
    line.insert("event".to_owned(), Value::from(event));
    match decided {
        Logged::Live(decision) | Logged::Shadow(Ok(decision)) => {
            line.insert(
                "hook".to_owned(),
                decision
                    .terminal
                    .as_ref()
                    .map_or(Value::Null, |m| Value::from(m.hook)),
            );
            line.insert("decision".to_owned(), decision.to_json());
        }
        Logged::Shadow(Err(e)) => {
            line.insert("hook".to_owned(), Value::Null);
            line.insert("error".to_owned(), Value::from(e));
        }
    }
    if matches!(decided, Logged::Shadow(_)) {
        line.insert("shadow".to_owned(), Value::Bool(true));
    }
    let digest = log.policy_digest.map_or_else(
        || hookc::files::artifact_digest(&policy.to_artifact()),
        str::to_owned,
    );
    line.insert("policy_digest".to_owned(), Value::from(digest));
    line.insert("hookc".to_owned(), Value::from(env!("CARGO_PKG_VERSION")));
    // The members the policy marks sensitive are masked with `--mask`'s.
    let marked = policy.sensitive_members();
    let context = if marked.is_empty() {
        masked(context, log.mask)
    } else {
        let mut mask = log.mask.to_vec();
        mask.extend(marked.into_iter().filter(|m| !log.mask.contains(m)));
        masked(context, &mask)
    };
    let context = match (context, log.path) {
        (Ok(context), _) => context,
        (Err(e), Some(_)) => return Err(e),
        (Err(_), None) => return Ok(()),
    };
    line.insert("context".to_owned(), context);
    let line = Value::Object(line);
    let Some(path) = log.path else {
        if let Some(DecisionSink(sink)) = log.sink {
            sink(&line);
        }
        return Ok(());
    };
    let text = format!("{line}\n");
    let io = |source| HookError::Log {
        path: path.to_owned(),
        source,
    };
    if std::fs::metadata(path).is_ok_and(|m| m.len() >= log.max_bytes) {
        let mut rotated = path.as_os_str().to_owned();
        rotated.push(".1");
        // Another call may have rotated it first: then this one writes to
        // the fresh file.
        let _ = std::fs::rename(path, PathBuf::from(rotated));
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(io)?;
    // One write per line: concurrent hooks append whole lines.
    file.write_all(text.as_bytes()).map_err(io)?;
    if let Some(DecisionSink(sink)) = log.sink {
        sink(&line);
    }
    Ok(())
}
