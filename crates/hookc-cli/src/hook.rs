//! `hookc hook --host NAME POLICY`: be the hook a host spawns. The payload
//! on standard input (or `--payload FILE`), the policy loaded, and the
//! reply of the binding layer's hosts written
//! (`hookc_binding::hosts::hook`, shared with `hookc serve` and the Python
//! and Node packages: what each host answers, the awaited host actions,
//! failing closed, `--log`; its module doc says how). What stays here is
//! the command's own: its arguments, reading the payload, and a policy
//! that does not load, answered as every other failure with the host's
//! block (`--fail-open`: no decision, the reason on standard error); and
//! `--otlp-endpoint`, the decision lines exported once the reply is
//! written (`crate::otlp`).

use crate::args::host_parser;
use crate::exit::Exit;
use crate::otlp::OtlpEndpoint;
use hookc::files::PolicyFile;
use hookc_binding::hosts::{Call, HookError, HookOptions, Host};
use hookc_binding::hosts::{DecisionLog, DecisionSink, Reply};
use hookc_runtime::Policy;
use opentelemetry_proto::tonic::logs::v1::LogRecord as OtlpRecord;
use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// `hookc hook`'s arguments.
#[derive(clap::Args, Clone)]
#[command(group(clap::ArgGroup::new("decision_out").args(["log", "otlp_endpoint"]).multiple(true)))]
pub struct HookArgs {
    /// The host that runs the hook: how its payload reads and how it is
    /// answered.
    #[arg(long, value_parser = host_parser())]
    host: Host,
    /// The policy: one artifact (`.hkb`, from `hookc compile`), or its
    /// source files, compiled first.
    #[arg(value_name = "POLICY", required = true)]
    files: Vec<PathBuf>,
    /// Find each relative POLICY path in the payload's `cwd` or the
    /// nearest folder above it that has it (`--find .hookc/guard.yaml`),
    /// so that a settings entry works from any folder of the project
    /// without naming it.
    #[arg(long)]
    find: bool,
    /// The event the payload is for, for hosts whose payloads do not name
    /// it (required for `copilot`: `--event preToolUse`); a payload that
    /// names another event in its `hook_event_name` is refused.
    #[arg(long, value_name = "EVENT")]
    event: Option<String>,
    /// On a failure (no policy, a bad payload, an evaluation error), answer
    /// "no decision" instead of the host's block; the reason goes to
    /// standard error.
    #[arg(long)]
    fail_open: bool,
    /// Append one JSON line per evaluated call to FILE: `{"decision_id",
    /// "time", "host", "event", "hook", "decision", "policy_digest",
    /// "hookc", "context"}` (replay it with `hookc eval --events` or `hookc
    /// diff`), rotated to `FILE.1` past `--log-max-bytes`.
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// A context member (`tool_input.command`) to log as its keyed hash
    /// (`hmac-sha256:...`, key `HOOKC_LOG_KEY` or one made in the state
    /// folder) instead of its value; repeatable.
    #[arg(long, value_name = "PATH", requires = "decision_out")]
    mask: Vec<String>,
    /// Also decide each call with this candidate policy and log (or
    /// export) its decision beside the live one (`"shadow": true`, the
    /// same `decision_id`); the host is answered with the live decision only,
    /// whatever the candidate does. `hookc diff --log FILE` reports what
    /// it would have changed.
    #[arg(long, value_name = "CANDIDATE", requires = "decision_out")]
    shadow: Option<PathBuf>,
    /// Rotate the log to `FILE.1` once it is this large.
    #[arg(long, value_name = "BYTES", requires = "log", default_value_t = hookc_runtime::limits::MAX_LOG_BYTES)]
    log_max_bytes: u64,
    /// Also export each decision (live and shadow) as an OpenTelemetry log
    /// record, OTLP over HTTP, to URL (`http://127.0.0.1:4318`: sent to
    /// `URL/v1/logs`; a URL ending in `/v1/logs` is used as given), with
    /// the headers of `OTEL_EXPORTER_OTLP_HEADERS` and
    /// `OTEL_EXPORTER_OTLP_LOGS_HEADERS`. Sent once the answer is written,
    /// within `--otlp-timeout-ms` and `--deadline`; a failed export changes
    /// nothing (said on standard error only when it is a terminal).
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` is not read.
    #[arg(long, value_name = "URL", value_parser = crate::otlp::parse_endpoint)]
    otlp_endpoint: Option<OtlpEndpoint>,
    /// Milliseconds the export may take, connecting included; past them it
    /// is given up.
    #[arg(long, value_name = "MS", requires = "otlp_endpoint", default_value_t = crate::otlp::TIMEOUT_MS,
          value_parser = clap::value_parser!(u64).range(1..))]
    otlp_timeout_ms: u64,
    /// Read the payload from FILE instead of standard input (to try the
    /// hook on a saved payload).
    #[arg(long, value_name = "FILE")]
    payload: Option<PathBuf>,
    /// Run only an artifact signed (`hookc sign`) by one of these public
    /// keys (`hookc keygen`), over exactly its bytes; anything else is
    /// answered with the host's block.
    #[arg(long, value_name = "PUBKEY")]
    trust: Vec<PathBuf>,
    /// Run the policy file only while its digest is DIGEST (`sha256:...`,
    /// as `hookc init --pin` writes it); a changed file is answered with
    /// the host's block. One per POLICY file, in their order.
    #[arg(long, value_name = "DIGEST")]
    pin: Vec<String>,
    /// Answer the host's block (nothing, with `--fail-open`) when the call
    /// is not decided MS milliseconds after it started: a slow `run`, a
    /// huge payload, a slow disk. The programs `run` actions started are
    /// ended then.
    #[arg(long, value_name = "MS")]
    deadline: Option<u64>,
}

impl HookArgs {
    /// The arguments of `hookc hook ARGS...` from the process's command
    /// line, read by this command's parser alone; `None` for another
    /// command, or for arguments it does not take (the full parser then
    /// says why).
    pub fn from_command_line() -> Option<HookArgs> {
        use clap::{Args, FromArgMatches};
        let mut argv = std::env::args_os().skip(1);
        if argv.next()? != "hook" {
            return None;
        }
        let command = HookArgs::augment_args(clap::Command::new("hook"));
        let matches = command
            .try_get_matches_from(std::iter::once("hook".into()).chain(argv))
            .ok()?;
        HookArgs::from_arg_matches(&matches).ok()
    }
}

/// The OTLP records of a call's decision lines, gathered while it is
/// decided (`--otlp-endpoint`) and sent once it is answered.
type ExportedRecords = Arc<Mutex<Vec<OtlpRecord>>>;

/// Runs `hookc hook`: the reply is written, and its exit code returned;
/// with `--otlp-endpoint`, the call's decisions are exported after.
pub fn run(args: &HookArgs) -> Exit {
    // Zero cost when off: nothing is made (or timed) unless the flag is
    // given.
    let exported: Option<(ExportedRecords, Instant)> = args
        .otlp_endpoint
        .as_ref()
        .map(|_| (Arc::new(Mutex::new(Vec::new())), Instant::now()));
    let records = exported.as_ref().map(|(records, _)| records);
    let reply = match args.deadline {
        None => answer(args, None, records),
        Some(ms) => within_deadline(args, ms, records),
    };
    write_reply(&reply);
    if let (Some(endpoint), Some((records, started))) = (&args.otlp_endpoint, &exported) {
        let _ = std::io::stdout().flush();
        let _ = std::io::stderr().flush();
        export(args, endpoint, records, *started);
    }
    Exit::Host(reply.exit)
}

/// `--otlp-endpoint`: the call's records sent, within `--otlp-timeout-ms`
/// and what is left of `--deadline` from `started`. The answer is written
/// already and nothing here changes it: a failure is said only to a
/// person (standard error a terminal); a host reads standard error, and
/// some show it.
fn export(args: &HookArgs, endpoint: &OtlpEndpoint, records: &ExportedRecords, started: Instant) {
    let records = match records.lock() {
        Ok(mut records) => std::mem::take(&mut *records),
        Err(_) => return,
    };
    let mut budget = Duration::from_millis(args.otlp_timeout_ms);
    if let Some(ms) = args.deadline {
        let left = (started + Duration::from_millis(ms)).saturating_duration_since(Instant::now());
        budget = budget.min(left);
    }
    if records.is_empty() || budget.is_zero() {
        return;
    }
    if let Err(e) = crate::otlp::export_blocking(endpoint, records, budget) {
        if std::io::stderr().is_terminal() {
            eprintln!("hookc: {e}");
        }
    }
}

/// Writes a reply to the host. Nothing more can be said if the host closed
/// our output.
fn write_reply(reply: &Reply) {
    let _ = std::io::stdout().write_all(reply.stdout.as_bytes());
    let _ = std::io::stderr().write_all(reply.stderr.as_bytes());
}

/// The reply a call that missed its deadline gives, once the payload is
/// read (the host's block may depend on it).
type DeadlineReply = Arc<Mutex<Option<Reply>>>;

/// `--deadline MS`: the call decided on this thread, and the host's block
/// (or nothing, with `--fail-open`) answered if it is not done MS
/// milliseconds from now (the process's start, give or take its loading).
/// A timer thread waits for the deadline; whichever of the two claims the
/// answer first gives it, so exactly one is written. The timer's answer
/// is written there and ends the process. The `run` programs the call
/// started end at the same instant (`host_actions::set_deadline`); they
/// are waited for, a moment at most, so that none outlives the call.
// PERF: the decision stays on the main thread, whose stack the loading
// already touched: deciding on a thread of its own cost 117k instructions
// and 21 page faults a call (callgrind and `perf stat`, the bundled guard,
// the static release build), the new thread's stack faulted in page by
// page.
fn within_deadline(args: &HookArgs, ms: u64, exported: Option<&ExportedRecords>) -> Reply {
    let at = Instant::now() + Duration::from_millis(ms);
    hookc_binding::hosts::host_actions::set_deadline(at);
    let early: DeadlineReply = Arc::new(Mutex::new(None));
    let claimed = Arc::new(Mutex::new(false));
    let missed = {
        let (host, event, fail_open) = (args.host, args.event.clone(), args.fail_open);
        let early = Arc::clone(&early);
        move || missed_deadline(host, event.as_deref(), fail_open, ms, &early)
    };
    let timer = {
        let (claimed, missed) = (Arc::clone(&claimed), missed.clone());
        std::thread::Builder::new()
            .name("hookc-deadline".to_owned())
            .spawn(move || {
                std::thread::sleep(at.saturating_duration_since(Instant::now()));
                match claimed.lock() {
                    Ok(mut claimed) if !*claimed => *claimed = true,
                    _ => return,
                }
                let reply = missed();
                write_reply(&reply);
                let _ = std::io::stdout().flush();
                let _ = std::io::stderr().flush();
                std::process::exit(i32::from(reply.exit));
            })
    };
    // A deadline that cannot be kept is a call that cannot decide in time.
    if timer.is_err() {
        return missed();
    }
    let reply = answer(args, Some((ms, &early)), exported);
    match claimed.lock() {
        Ok(mut claimed) if !*claimed => *claimed = true,
        // The timer answers, and ends the process.
        _ => loop {
            std::thread::park();
        },
    }
    // An answer that came at the deadline came because of it (a `run`
    // program ended then answers "timed out"): it is the deadline's.
    if Instant::now() < at {
        reply
    } else {
        missed()
    }
}

/// The deadline's reply: the one the call left once its payload was read,
/// else the host's block for the event given; after the `run` programs
/// the call started have ended (waited for 100 ms at most).
fn missed_deadline(
    host: Host,
    event: Option<&str>,
    fail_open: bool,
    ms: u64,
    early: &DeadlineReply,
) -> Reply {
    let grace = Instant::now() + Duration::from_millis(100);
    while hookc_binding::hosts::host_actions::running_programs() > 0 && Instant::now() < grace {
        std::thread::sleep(Duration::from_millis(1));
    }
    let said = early.lock().ok().and_then(|mut e| e.take());
    said.unwrap_or_else(|| host.failed(event, &HookError::Deadline { ms }, fail_open))
}

/// The call's reply. With a deadline, the reply for missing it is left in
/// its slot as soon as the payload is read. With `exported`, each
/// decision line's record is gathered there.
fn answer(
    args: &HookArgs,
    deadline: Option<(u64, &DeadlineReply)>,
    exported: Option<&ExportedRecords>,
) -> Reply {
    let gather = |line: &serde_json::Value| {
        if let Some(Ok(mut records)) = exported.map(|r| r.lock()) {
            records.push(crate::otlp::record(line, crate::otlp::now_nanos()));
        }
    };
    let sink = exported.map(|_| DecisionSink(&gather));
    let logged = args.log.is_some() || sink.is_some();
    let options = HookOptions {
        event: args.event.as_deref(),
        fail_open: args.fail_open,
        log: logged.then(|| DecisionLog {
            path: args.log.as_deref(),
            mask: &args.mask,
            max_bytes: args.log_max_bytes,
            policy_digest: None,
            decision_id: None,
            sink,
        }),
    };
    let reply = match read_payload(args.payload.as_ref()) {
        // The event given is known even when the payload is not readable:
        // the block is that event's.
        Err(e) => args.host.failed(options.event, &e, options.fail_open),
        // `hosts::hook`'s two steps, with the policy loaded between them:
        // a payload that is not the host's is said without loading it, and
        // a policy that does not load blocks on the payload's event.
        Ok(payload) => match Call::read(args.host, &payload, options.event) {
            Err(e) => args.host.failed(options.event, &e, options.fail_open),
            Ok(call) => {
                if let Some((ms, slot)) = deadline {
                    if let Ok(mut slot) = slot.lock() {
                        *slot = Some(call.failed(&HookError::Deadline { ms }, options.fail_open));
                    }
                }
                match located(&args.files, args.find, call.cwd())
                    .and_then(|f| trusted(args, f))
                    .and_then(|f| loaded(&f, logged))
                {
                    Ok((policy, digest)) => {
                        // With a shadow, its line names the live line's id.
                        let id = args
                            .shadow
                            .as_ref()
                            .map(|_| hookc_binding::hosts::decision_log::new_decision_id());
                        let options = HookOptions {
                            log: options.log.map(|log| DecisionLog {
                                policy_digest: digest.as_deref(),
                                decision_id: id.as_deref(),
                                ..log
                            }),
                            ..options
                        };
                        let reply = call.reply(&policy, &options);
                        if let (Some(candidate), Some(log)) = (&args.shadow, options.log) {
                            // A candidate that does not load logs nothing
                            // and changes nothing.
                            if let Ok((shadow, digest)) =
                                loaded(&[project_named(candidate.clone())], true)
                            {
                                call.log_shadow(
                                    &shadow,
                                    DecisionLog {
                                        policy_digest: digest.as_deref(),
                                        ..log
                                    },
                                );
                                std::mem::forget(shadow);
                            }
                        }
                        // PERF: the process exits next, and the system frees
                        // its memory at once; freeing a policy's tables one
                        // allocation at a time first is a few percent of a
                        // call on a 10,000-hook policy, read by no one.
                        std::mem::forget(policy);
                        reply
                    }
                    Err(e) => call.failed(&e, options.fail_open),
                }
            }
        },
    };
    reply
}

/// `--trust` and `--pin`: the policy's files are the ones trusted
/// (`crate::trust`), or the call is refused. Each file is read once, and
/// the bytes checked are the bytes loaded (a file swapped after the check
/// is never the one that runs).
fn trusted(args: &HookArgs, files: Vec<PathBuf>) -> Result<Vec<PolicyFile>, HookError> {
    if args.pin.is_empty() && args.trust.is_empty() {
        return Ok(files.into_iter().map(project_named).collect());
    }
    let refused = |e: crate::trust::TrustError| HookError::Policy(e.to_string());
    let read: Vec<(PathBuf, Vec<u8>)> = files
        .into_iter()
        .map(|path| match std::fs::read(&path) {
            Ok(bytes) => Ok((path, bytes)),
            Err(source) => Err(refused(crate::trust::TrustError::Io { path, source })),
        })
        .collect::<Result<_, _>>()?;
    if !args.pin.is_empty() {
        crate::trust::check_pin(&read, &args.pin).map_err(refused)?;
    }
    if !args.trust.is_empty() {
        let keys = args
            .trust
            .iter()
            .map(|k| crate::trust::trusted_key(k))
            .collect::<Result<Vec<_>, _>>()
            .map_err(refused)?;
        crate::trust::check_signed(&read, &keys).map_err(refused)?;
    }
    Ok(read
        .into_iter()
        .map(|(path, bytes)| project_named(path).with_contents(bytes))
        .collect())
}

/// A policy file named as its project names it: an absolute path into a
/// `.hookc` folder from that folder on (`/home/u/proj/.hookc/guard.yaml`
/// is `.hookc/guard.yaml`), any other as given. The name is in the
/// compiled policy (default hook ids, locations), so a call compiles the
/// same policy, with the digest `hookc disasm .hookc/guard.yaml` prints in
/// the project, whether the host's settings name the guard by an absolute
/// path (`"$CLAUDE_PROJECT_DIR"/.hookc/guard.yaml`) or found it with
/// `--find`; and no user's folder reaches a log.
fn project_named(path: PathBuf) -> PolicyFile {
    match hookc::files::from_project_folder(&path) {
        Some(name) => PolicyFile::named(name.display().to_string(), path),
        None => PolicyFile::new(path),
    }
}

/// The payload: standard input, or `--payload FILE`.
fn read_payload(file: Option<&PathBuf>) -> Result<Vec<u8>, HookError> {
    match file {
        None => {
            let mut payload = Vec::new();
            std::io::stdin()
                .read_to_end(&mut payload)
                .map(|_| payload)
                .map_err(HookError::Stdin)
        }
        Some(path) => std::fs::read(path).map_err(|source| HookError::PayloadFile {
            path: path.clone(),
            source,
        }),
    }
}

/// The policy's files: as given, or with `--find` each relative one found
/// in `cwd` (the payload's, else the process's) or the nearest folder
/// above it that has it.
fn located(files: &[PathBuf], find: bool, cwd: Option<&str>) -> Result<Vec<PathBuf>, HookError> {
    if !find {
        return Ok(files.to_vec());
    }
    let start = match cwd {
        Some(cwd) => PathBuf::from(cwd),
        None => std::env::current_dir().map_err(|e| {
            HookError::Policy(format!("`--find` needs a folder to start from: {e}"))
        })?,
    };
    files
        .iter()
        .map(|file| {
            if file.is_absolute() {
                return Ok(file.clone());
            }
            start
                .ancestors()
                .map(|dir| dir.join(file))
                .find(|candidate| candidate.exists())
                .ok_or_else(|| {
                    HookError::Policy(format!(
                        "`{}` is not in the payload's folder or any folder above it (`--find`)",
                        file.display(),
                    ))
                })
        })
        .collect()
}

/// The policy: one artifact, or sources compiled through the artifact
/// cache (`docs/src/reference/cache.md`; their warnings are not the host's business
/// and are dropped). A file that is not there is said
/// in hookc's words, not the system's: Claude Code reads "No such file or
/// directory" from a Stop hook as a hook that could not start, and lets
/// the agent stop (`docs/src/hosts/claude-code.md`).
pub fn load(files: &[PathBuf]) -> Result<Policy, HookError> {
    loaded(&hookc::files::policy_files(files), false).map(|(policy, _)| policy)
}

/// [`load`], with the policy's digest when `digest` asks for it and it is
/// known cheaply: an artifact's bytes hashed, or the artifact cache's entry
/// (else the decision log computes it).
fn loaded(files: &[PolicyFile], digest: bool) -> Result<(Policy, Option<String>), HookError> {
    if let Some(missing) = files
        .iter()
        .find(|f| f.contents.is_none() && !f.path.exists())
    {
        return Err(HookError::Policy(format!(
            "the policy `{}` is not there: run `hookc init`, or fix the path in the host's settings",
            missing.path.display()
        )));
    }
    let loaded = hookc::cache::load_policy_cached(files)
        .map_err(|e| HookError::Policy(e.render().trim_end().to_owned()))?;
    let known = match (digest, loaded.digest, files) {
        (false, _, _) => None,
        (true, Some(d), _) => Some(d),
        // One artifact: its bytes are the policy's encoding (those read
        // already, when a check read them).
        (true, None, [one]) => match &one.contents {
            Some(bytes) => {
                hookc::files::is_artifact(bytes).then(|| hookc::files::artifact_digest(bytes))
            }
            None => std::fs::read(&one.path)
                .ok()
                .filter(|b| hookc::files::is_artifact(b))
                .map(|b| hookc::files::artifact_digest(&b)),
        },
        (true, None, _) => None,
    };
    Ok((loaded.policy, known))
}
