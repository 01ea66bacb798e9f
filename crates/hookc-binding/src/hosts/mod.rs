//! The hosts' hook answers, for every binding: [`hook`] reads one payload
//! of an agent host (Claude Code, Codex, Gemini CLI, Cursor, GitHub
//! Copilot), decides it with a policy and answers in the host's wire, as
//! a [`Reply`] (standard output, standard error, exit code). `hookc hook`
//! writes that reply, `hookc serve` maps it to an HTTP response, and the
//! Python and Node packages return it from `policy.hook(host, payload)`,
//! so the four answer alike by construction.
//!
//! The event is taken from the payload's `hook_event_name` or given
//! ([`HookOptions::event`]; GitHub Copilot's payloads do not name theirs).
//! Nothing here is written per host: each host's profile
//! (`crates/hookc/src/hosts/NAME.yaml`, its `host_profile` section, read
//! by [`hookc::hosts`]) says how its payloads are read, what each event
//! answers and how a failure blocks, and `outcome.rs` fills those answers
//! in (a [`Ruling`] of the evaluation, then the host's [`Reply`]); the
//! guide's pages (`docs/src/hosts/`) say what each host reads.
//!
//! The session's memory ([`memory`]) is read into the context as
//! `remembered`, and what its `remember` actions store is stored after the
//! evaluation.
//!
//! Awaited hooks of the host actions `run` and `test_path` are performed
//! here ([`host_actions`]) and the evaluation resumed with their results,
//! in hook order.
//!
//! Fail closed by default: a payload that is not the host's, an evaluation
//! error, a host action that fails or times out, or an awaited hook of any
//! other action (only the host can give its result) answers the host's
//! block with a reason naming the problem ([`HookError`]; a binding that
//! cannot load its policy answers [`Host::failed`] with
//! [`HookError::Policy`]); [`HookOptions::fail_open`] (`--fail-open`)
//! answers "no decision" instead and says why on standard error.
//! [`HookOptions::log`] (`--log FILE`) appends one JSON line per evaluated
//! call ([`decision_log`]: its decision id, host, event, hook, decision,
//! policy digest and context, masked members hashed), which `hookc eval
//! --events` and `hookc diff` replay, and hands it to its
//! [`DecisionSink`], if any (the CLI's OpenTelemetry export).

pub mod decision_log;
pub mod hook_answer;
pub mod host_actions;
pub mod memory;
mod outcome;

pub use outcome::{Reply, Ruling, Verdict};

use crate::error::BindingError;
pub use decision_log::{DecisionLog, DecisionSink};
use hookc::hosts::HostProfile;
use hookc_runtime::{Context, Policy, QueryError, Results};
use host_actions::{HostAction, HostActionError};
use memory::SessionMemory;
use serde_json::{Map, Value};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use thiserror::Error;

/// The answer of `host` to `payload`, one hook call, decided by `policy`:
/// what `hookc hook --host NAME POLICY` writes and exits with, byte for
/// byte. Never fails: a failure is answered as [`Host::failed`] says.
///
/// It is [`Call::read`], then [`Call::reply`]: `hookc hook` runs the two
/// steps itself to load its policy between them (a policy that does not
/// load blocks on the payload's event), and `hookc serve` to answer a
/// payload that does not read with a 400.
pub fn hook(policy: &Policy, host: Host, payload: &[u8], options: &HookOptions<'_>) -> Reply {
    answer(
        policy,
        host,
        Call::read(host, payload, options.event),
        options,
    )
}

/// [`hook`] for a payload already read as JSON (a binding's dict or
/// object), not written out and parsed again.
pub fn hook_value(policy: &Policy, host: Host, payload: Value, options: &HookOptions<'_>) -> Reply {
    answer(
        policy,
        host,
        Call::of_value(host, payload, options.event),
        options,
    )
}

/// The reply to a call, or to the failure of reading it.
fn answer(
    policy: &Policy,
    host: Host,
    call: Result<Call, HookError>,
    options: &HookOptions<'_>,
) -> Reply {
    match call {
        Ok(call) => call.reply(policy, options),
        Err(e) => host.failed(options.event, &e, options.fail_open),
    }
}

/// How one hook call is answered besides its payload: `hookc hook`'s
/// options.
#[derive(Debug, Clone, Copy, Default)]
pub struct HookOptions<'a> {
    /// The event the payload is for (`--event`), for hosts whose payloads
    /// do not name it (required for GitHub Copilot: `preToolUse`); a
    /// payload that names another event in its `hook_event_name` is
    /// refused.
    pub event: Option<&'a str>,
    /// On a failure, answer "no decision" instead of the host's block, the
    /// reason on standard error (`--fail-open`).
    pub fail_open: bool,
    /// Append one JSON line per evaluated call (`--log FILE`, `--mask`).
    pub log: Option<DecisionLog<'a>>,
}

/// A host whose hook answers hookc gives: a handle to its profile
/// (`hookc::hosts`), where everything host-specific is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Host(HostProfile);

impl Host {
    /// Every host, in the order `hookc hook --help` lists them.
    pub fn all() -> impl Iterator<Item = Host> {
        hookc::hosts::all().map(Host)
    }

    /// The host's name, as `hookc hook --host` and `hookc serve`'s routes
    /// spell it: `claude-code`, `codex`, `gemini-cli`, `cursor`, `copilot`.
    pub fn name(self) -> &'static str {
        self.0.name()
    }

    /// The host named `name` (as [`Host::name`] spells it).
    pub fn from_name(name: &str) -> Option<Host> {
        hookc::hosts::find(name).map(Host)
    }

    /// The host's profile.
    pub fn profile(self) -> HostProfile {
        self.0
    }

    /// The answer to an evaluation's outcome on `event`, as the host's
    /// answer table says; nothing on an event the host does not have.
    pub fn answer(self, event: &str, outcome: &Ruling) -> Reply {
        outcome::answer(self.0, event, outcome)
    }

    /// The payload member holding the tool's input, which a `rewrite`
    /// patches.
    fn input_member(self) -> &'static str {
        &self.0.meta().payload.tool_input
    }

    /// Prepares `payload` for the evaluation on `event` as the profile
    /// says: an event the host does not have is refused when the payload
    /// does not name it (it was given, and a misspelt one would never
    /// decide), and the members sent as JSON text are parsed in place (a
    /// text that is not a JSON object stays as it is).
    fn prepare(self, event: &str, payload: &mut Map<String, Value>) -> Result<(), HookError> {
        let spec = &self.0.meta().payload;
        if !spec.names_event && self.0.answers(event).is_none() {
            return Err(HookError::UnknownEvent {
                host: self.name(),
                event: event.to_owned(),
                events: self.0.answered_events().collect::<Vec<_>>().join(", "),
            });
        }
        for member in &spec.json_text {
            let Some(Value::String(text)) = payload.get(member.as_str()) else {
                continue;
            };
            if let Ok(parsed @ Value::Object(_)) = serde_json::from_str::<Value>(text) {
                payload.insert(member.clone(), parsed);
            }
        }
        Ok(())
    }
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Host {
    type Err = UnknownHost;

    fn from_str(name: &str) -> Result<Host, UnknownHost> {
        Host::from_name(name).ok_or_else(|| UnknownHost(name.to_owned()))
    }
}

/// A name that is no [`Host::name`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("no host `{0}`: one of {names}", names = Host::all().map(Host::name).collect::<Vec<_>>().join(", "))]
pub struct UnknownHost(pub String);

impl From<UnknownHost> for BindingError {
    fn from(e: UnknownHost) -> BindingError {
        BindingError::Argument(e.to_string())
    }
}

/// Why a hook call could not be answered with the policy's decision.
#[derive(Debug, Error)]
pub enum HookError {
    /// The policy does not load: a missing or unreadable file, a damaged
    /// or stale artifact, sources with errors.
    #[error("hookc: the policy does not load: {0}")]
    Policy(String),
    /// Standard input could not be read.
    #[error("hookc: cannot read the payload from standard input: {0}")]
    Stdin(std::io::Error),
    /// `--payload FILE` could not be read.
    #[error("hookc: cannot read the payload `{path}`: {source}")]
    PayloadFile {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The payload is not JSON.
    #[error("hookc: the payload is not JSON: {0}")]
    NotJson(serde_json::Error),
    /// The payload is JSON but not a hook payload of the host.
    #[error("hookc: the payload is not a hook payload: {0}")]
    Shape(&'static str),
    /// Neither `--event` nor the payload names the event.
    #[error(
        "hookc: the payload does not name its event (no `hook_event_name`): give it with `--event`, e.g. `hookc hook --host {host} --event {example} POLICY`"
    )]
    NoEvent {
        /// The host, as `--host` names it.
        host: &'static str,
        /// One of its events.
        example: &'static str,
    },
    /// `--event` and the payload's `hook_event_name` differ.
    #[error("hookc: `--event {given}` but the payload's `hook_event_name` is `{named}`")]
    EventMismatch {
        /// `--event`.
        given: String,
        /// The payload's `hook_event_name`.
        named: String,
    },
    /// `--event` names an event the host does not have.
    #[error("hookc: `{event}` is not an event of `--host {host}` (its events: {events})")]
    UnknownEvent {
        /// The host, as `--host` names it.
        host: &'static str,
        /// The event given.
        event: String,
        /// The host's events, listed.
        events: String,
    },
    /// The evaluation failed (`on_error: fail`, a bad action parameter).
    #[error("hookc: the policy could not decide {event}: {source}")]
    Eval {
        /// The event.
        event: String,
        /// Why.
        source: QueryError,
    },
    /// A host action (`run`, `test_path`) could not be performed.
    #[error("hookc: hook `{hook}`: {source}")]
    HostAction {
        /// The awaiting hook.
        hook: String,
        /// Why.
        source: HostActionError,
    },
    /// The call was not decided by its deadline (`hookc hook --deadline`).
    #[error("hookc: no decision within the deadline of {ms} ms (`--deadline`), so the guard cannot decide")]
    Deadline {
        /// The deadline, in milliseconds from the call's start.
        ms: u64,
    },
    /// A host action's program ran past its timeout.
    #[error("hookc: hook `{hook}`: its program ran past its timeout, so the guard cannot decide")]
    TimedOut {
        /// The awaiting hook.
        hook: String,
    },
    /// A hook awaits a result that only its host can give.
    #[error(
        "hookc: hook `{hook}` awaits a `{action}` result, which only the host can give (`hookc hook` performs `run` and `test_path`)"
    )]
    Pending {
        /// The awaiting hook.
        hook: String,
        /// Its action type.
        action: String,
    },
    /// The session's memory could not be read or stored (`remember`).
    #[error("hookc: the session's memory `{}`: {problem}", path.display())]
    Memory {
        /// The memory file.
        path: PathBuf,
        /// What is wrong, and what to do.
        problem: String,
    },
    /// A `remember` action's parameters are not what it stores.
    #[error("hookc: hook `{hook}`: `remember`: {problem}")]
    Remember {
        /// The hook.
        hook: String,
        /// What is wrong.
        problem: String,
    },
    /// The decision log could not be written.
    #[error("hookc: cannot append to the log `{path}`: {source}")]
    Log {
        /// The log file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl Host {
    /// The reply to a failure on `event` (`None`: the payload named none):
    /// the host's block, or with `fail_open` no decision and the reason on
    /// standard error.
    pub fn failed(self, event: Option<&str>, error: &HookError, fail_open: bool) -> Reply {
        self.failed_with(event, None, error, fail_open)
    }

    /// [`Host::failed`], the payload read (a failure answer may depend on
    /// it: [`hookc::hosts::FailureAnswer::unless`]).
    fn failed_with(
        self,
        event: Option<&str>,
        payload: Option<&Value>,
        error: &HookError,
        fail_open: bool,
    ) -> Reply {
        let reason = outcome::without_project_folders(&error.to_string());
        if fail_open {
            Reply {
                stderr: format!("{reason} (--fail-open: no decision)\n"),
                ..Reply::nothing()
            }
        } else {
            outcome::block(self.0, event, payload, &reason)
        }
    }
}

/// One hook call: the payload, read as JSON, its host and its event.
#[derive(Debug)]
pub struct Call {
    /// The host whose payload it is.
    pub host: Host,
    /// The event: the payload's `hook_event_name`, or the one given.
    pub event: String,
    /// The payload as JSON, as the host prepared it: what is evaluated (it
    /// is parsed anyway, for its event, so the evaluation reads the value
    /// rather than scanning the text a second time).
    context: Value,
}

impl Call {
    /// Reads `host`'s payload: a JSON object, for `event` when given (a
    /// payload naming another event in `hook_event_name` is refused), else
    /// for the event its `hook_event_name` names.
    pub fn read(host: Host, payload: &[u8], event: Option<&str>) -> Result<Call, HookError> {
        let context: Value = serde_json::from_slice(payload).map_err(HookError::NotJson)?;
        Call::of_value(host, context, event)
    }

    /// [`Call::read`] of a payload already parsed.
    pub fn of_value(
        host: Host,
        mut context: Value,
        event: Option<&str>,
    ) -> Result<Call, HookError> {
        let Value::Object(members) = &mut context else {
            return Err(HookError::Shape("it is not a JSON object"));
        };
        let named = match members.get("hook_event_name") {
            Some(Value::String(e)) => Some(e.clone()),
            Some(_) => return Err(HookError::Shape("`hook_event_name` is not a string")),
            None => None,
        };
        let event = match (event, named) {
            (Some(given), Some(named)) if given != named => {
                return Err(HookError::EventMismatch {
                    given: given.to_owned(),
                    named,
                })
            }
            (Some(given), _) => given.to_owned(),
            (None, Some(named)) => named,
            (None, None) if !host.profile().meta().payload.names_event => {
                return Err(HookError::NoEvent {
                    host: host.name(),
                    example: host
                        .profile()
                        .meta()
                        .payload
                        .example_event
                        .as_deref()
                        .unwrap_or("EVENT"),
                })
            }
            (None, None) => return Err(HookError::Shape("it has no `hook_event_name`")),
        };
        host.prepare(&event, members)?;
        Ok(Call {
            host,
            event,
            context,
        })
    }

    /// The host's reply to a failure on this call: [`Host::failed`] on its
    /// event and payload.
    pub fn failed(&self, error: &HookError, fail_open: bool) -> Reply {
        self.host
            .failed_with(Some(&self.event), Some(&self.context), error, fail_open)
    }

    /// The payload's `cwd`, where the host runs the hook.
    pub fn cwd(&self) -> Option<&str> {
        self.context.get("cwd").and_then(Value::as_str)
    }

    /// The host's reply to this call under `policy` and `options` (their
    /// `event` was the one given to [`Call::read`]): [`Call::decide`], or
    /// its failure answered as [`Host::failed`] says.
    pub fn reply(&self, policy: &Policy, options: &HookOptions<'_>) -> Reply {
        self.decide(policy, options.log)
            .unwrap_or_else(|e| self.failed(&e, options.fail_open))
    }

    /// The payload as it is evaluated (members the host sends as JSON text
    /// parsed).
    pub fn context(&self) -> &Value {
        &self.context
    }

    /// What `policy` rules on this call, without performing the host
    /// actions its hooks await (a decision still awaiting one has no
    /// verdict): what `hookc probe` reads of a test case.
    pub fn ruling(&self, policy: &Policy) -> Result<Ruling, HookError> {
        let decision = policy
            .query(&self.event, Context::Value(&self.context))
            .decision()
            .map_err(|source| HookError::Eval {
                event: self.event.clone(),
                source,
            })?;
        Ok(Ruling::of(policy, &decision, self.host.input_member()))
    }

    /// The host's reply to this call under `policy`, performing the host
    /// actions its hooks await; one line appended to `log` when given.
    pub fn decide(
        &self,
        policy: &Policy,
        log: Option<DecisionLog<'_>>,
    ) -> Result<Reply, HookError> {
        let (host, event) = (self.host, &self.event);
        // Awaited host actions (`run`, `test_path`) are performed here and
        // the evaluation resumed with their results, one at a time, in hook
        // order; each awaiting hook resumes once, so the loop ends.
        let base = self
            .context
            .get("cwd")
            .and_then(Value::as_str)
            .map_or_else(|| PathBuf::from("."), PathBuf::from);
        // The session's memory, given to the evaluation as `remembered`
        // when it holds anything (the payload is copied only then).
        let memory = self.memory();
        let known = match &memory {
            Some(memory) => memory.load()?,
            None => Map::new(),
        };
        // The declared environment variables the policy reads, as `env`
        // (`docs/src/semantics.md#environment-variables`).
        let environment = environment(policy);
        let with_memory;
        let context = if known.is_empty() && environment.is_none() {
            &self.context
        } else {
            let mut context = self.context.clone();
            if let Value::Object(members) = &mut context {
                if !known.is_empty() {
                    members.insert(memory::MEMBER.to_owned(), Value::Object(known.clone()));
                }
                if let Some(env) = environment {
                    members.insert(hookc_runtime::bytecode::ENV_ROOT.to_owned(), env);
                }
            }
            with_memory = context;
            &with_memory
        };
        let mut results = Results::new();
        let decision = loop {
            let decision = policy
                .query(event, Context::Value(context))
                .with_results(&results)
                .decision()
                .map_err(|source| HookError::Eval {
                    event: event.clone(),
                    source,
                })?;
            let Some(pending) = &decision.pending else {
                break decision;
            };
            let hook = pending.hook.to_owned();
            let action = match HostAction::from_action(&pending.action) {
                Ok(action) => action,
                Err(HostActionError::Unknown(_)) => break decision,
                Err(e) => return Err(HookError::HostAction { hook, source: e }),
            };
            if results.get(&hook).is_some() {
                // Resumed, and the same hook is pending again: never
                // expected of a deterministic evaluation; stop rather than
                // loop.
                break decision;
            }
            // A program reading the payload reads it as the host sent it
            // (the members it sends as JSON text as text again) with the
            // rewrites of the hooks before it applied, in hook order.
            let json_text = &host.profile().meta().payload.json_text;
            let rewritten;
            let payload = if decision.patched.is_empty() && json_text.is_empty() {
                &self.context
            } else {
                let mut payload = self.context.clone();
                if let Value::Object(members) = &mut payload {
                    for (name, value) in &decision.patched {
                        members.insert(name.clone(), value.clone());
                    }
                    for name in json_text {
                        if let Some(value @ Value::Object(_)) = members.get_mut(name.as_str()) {
                            *value = Value::String(value.to_string());
                        }
                    }
                }
                rewritten = payload;
                &rewritten
            };
            let mut result =
                action
                    .perform(&base, payload)
                    .map_err(|source| HookError::HostAction {
                        hook: hook.clone(),
                        source,
                    })?;
            if result.get("timed_out") == Some(&Value::Bool(true)) {
                return Err(HookError::TimedOut { hook });
            }
            if matches!(&action, HostAction::Run(spec) if spec.read_answer) {
                let answer = hook_answer::read(host.profile(), event, &result);
                if let Value::Object(members) = &mut result {
                    members.insert("answer".to_owned(), answer);
                }
            }
            results.insert(hook, result);
        };
        if let Some(log) = &log {
            decision_log::append(
                log,
                host.name(),
                policy,
                event,
                context,
                decision_log::Logged::Live(&decision),
            )?;
        }
        if let Some(pending) = &decision.pending {
            return Err(HookError::Pending {
                hook: pending.hook.to_owned(),
                action: pending.action_type().to_owned(),
            });
        }
        if let Some(memory) = &memory {
            memory.store(&known, &memory::remembered(&decision.collected)?)?;
        }
        let ruling = Ruling::of(policy, &decision, host.input_member());
        Ok(host.answer(event, &ruling))
    }

    /// Logs what `candidate` decides on this call beside the live line
    /// (`--shadow`): on the payload as the host sent it, performing no host
    /// action (an awaiting hook is logged as pending), and never failing
    /// the call: what goes wrong is the line's `error`, or nothing.
    pub fn log_shadow(&self, candidate: &Policy, log: DecisionLog<'_>) {
        let decided = candidate
            .query(&self.event, Context::Value(&self.context))
            .decision();
        let error = decided.as_ref().err().map(ToString::to_string);
        let logged = match (&decided, &error) {
            (Ok(d), _) => decision_log::Logged::Shadow(Ok(d)),
            (Err(_), Some(e)) => decision_log::Logged::Shadow(Err(e.as_str())),
            (Err(_), None) => return,
        };
        let _ = decision_log::append(
            &log,
            self.host.name(),
            candidate,
            &self.event,
            &self.context,
            logged,
        );
    }

    /// The session's memory: none when the payload names no session or
    /// the environment no state folder (`memory`'s module doc).
    fn memory(&self) -> Option<SessionMemory> {
        let member = &self.host.profile().meta().payload.session;
        let id = self.context.get(member.as_str()).and_then(Value::as_str)?;
        SessionMemory::of(self.host.name(), id).filter(|_| !id.is_empty())
    }
}

/// The `env` member of a call's context: each environment variable the
/// policy declares and reads that is set (as UTF-8), or `None` when the
/// policy reads none.
fn environment(policy: &Policy) -> Option<Value> {
    let names = policy.environment_names();
    if names.is_empty() {
        return None;
    }
    let vars = names
        .into_iter()
        .filter_map(|name| Some((name.to_owned(), Value::from(std::env::var(name).ok()?))));
    Some(Value::Object(vars.collect()))
}

/// The current time in RFC 3339, UTC, to the millisecond (the log's
/// `time`; `hookc serve`'s `loaded_at`).
pub fn now_utc() -> String {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = since.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(i64::try_from(days).unwrap_or(0));
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        since.subsec_millis()
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (
        y,
        u32::try_from(m).unwrap_or(1),
        u32::try_from(d).unwrap_or(1),
    )
}

#[cfg(test)]
mod tests;
