//! Host profiles: the declarations of each agent host hookc plugs into
//! (its events with their payload schemas, its tool names, its decision
//! words as action types), shipped as hook files of declarations
//! (`src/hosts/NAME.yaml`, embedded). A policy that says `host: NAME` is
//! compiled with its host's profile as if the profile were given first, as
//! declarations only (`docs/src/hosts/index.md`).

use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// One host's profile as the build script read it (`build.rs`).
struct ProfileSource {
    /// The host's name: the file's stem.
    name: &'static str,
    /// `host_profile.title`.
    title: &'static str,
    /// `host_profile.help`.
    help: Option<&'static str>,
    /// The profile's text, compiled with a `host:` policy.
    text: &'static str,
    /// The `host_profile` section as JSON, but its answers, settings,
    /// probe and left-out lists.
    meta: &'static str,
    /// `host_profile.settings`, as JSON.
    settings: &'static str,
    /// `host_profile.probe`, as JSON (`null` when there is none).
    probe: &'static str,
    /// `host_profile.left_out`, as JSON (`null` when there is none).
    left_out: &'static str,
    /// Each part, parsed by the first call that reads it.
    parsed_meta: OnceLock<ProfileMeta>,
    parsed_settings: OnceLock<SettingsSpec>,
    parsed_probe: OnceLock<Option<ProbeSpec>>,
    parsed_left_out: OnceLock<LeftOut>,
    /// The events of the answer table, in the profile's order.
    events: &'static [&'static str],
    /// Each event's answer table, as JSON, sorted by event.
    answers: &'static [(&'static str, &'static str)],
    /// The starter guard `hookc init` writes (`examples/hosts/NAME/`).
    guard: Option<&'static str>,
    /// Its tests.
    guard_tests: Option<&'static str>,
}

include!(concat!(env!("OUT_DIR"), "/host_profiles.rs"));

/// `json` parsed, or the type's default: the parts of a profile are
/// checked at build time and by the profiles' tests
/// ([`HostProfile::check_meta`]), so one that does not read is a hookc
/// bug, answered with defaults rather than a panic.
fn parse_or_default<T: serde::de::DeserializeOwned + Default>(json: &str) -> T {
    serde_json::from_str(json).unwrap_or_default()
}

/// The hosts hookc has a profile for, in the profiles' `order`.
pub fn names() -> impl Iterator<Item = &'static str> {
    SOURCES.iter().map(|s| s.name)
}

/// The profile's file name in diagnostics: `<host claude-code>`.
pub fn profile_name(host: &str) -> String {
    format!("<host {host}>")
}

/// Whether a file name is a profile's (`<host NAME>`): only a profile may
/// have a `host_profile` section.
pub fn is_profile_name(file_name: &str) -> bool {
    file_name
        .strip_prefix("<host ")
        .and_then(|rest| rest.strip_suffix('>'))
        .is_some_and(|name| find(name).is_some())
}

/// The text of `host`'s profile; `None` for a host hookc has none for.
pub fn profile(host: &str) -> Option<&'static str> {
    find(host).map(|h| h.source().text)
}

/// The host named `name`.
pub fn find(name: &str) -> Option<HostProfile> {
    all().find(|h| h.name() == name)
}

/// Every host, in the profiles' `order`.
pub fn all() -> impl Iterator<Item = HostProfile> {
    SOURCES
        .iter()
        .enumerate()
        .map(|(index, source)| HostProfile { index, source })
}

/// A host with a profile: a handle to what its profile says beyond the
/// declarations a policy is compiled with (`host_profile`,
/// `docs/src/hosts/profiles.md`): how its payloads are read, what each
/// event answers, how a failure blocks, how `hookc init` sets it up.
#[derive(Clone, Copy)]
pub struct HostProfile {
    /// Its position in the profiles' order.
    index: usize,
    source: &'static ProfileSource,
}

impl PartialEq for HostProfile {
    fn eq(&self, other: &HostProfile) -> bool {
        self.index == other.index
    }
}

impl Eq for HostProfile {}

impl std::hash::Hash for HostProfile {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.index.hash(state);
    }
}

impl std::fmt::Debug for HostProfile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HostProfile({})", self.name())
    }
}

impl HostProfile {
    fn source(self) -> &'static ProfileSource {
        self.source
    }

    /// The host's name (`claude-code`).
    pub fn name(self) -> &'static str {
        self.source().name
    }

    /// The host's name for people (`host_profile.title`).
    pub fn title(self) -> &'static str {
        self.source().title
    }

    /// What `--help` says of the host, when more than its title.
    pub fn help(self) -> Option<&'static str> {
        self.source().help
    }

    /// The profile's `host_profile` section: what a hook call reads (how a
    /// payload is read, how a failure blocks), parsed once per process and
    /// only for this host.
    ///
    /// The section is checked when the crate is built and by the tests of
    /// every profile ([`HostProfile::check_meta`]), so a failure here is a
    /// hookc bug: it is answered with the section's defaults rather than a
    /// panic.
    pub fn meta(self) -> &'static ProfileMeta {
        let s = self.source();
        s.parsed_meta.get_or_init(|| parse_or_default(s.meta))
    }

    /// How `hookc init` sets the host up (`host_profile.settings`).
    pub fn settings(self) -> &'static SettingsSpec {
        let s = self.source();
        s.parsed_settings
            .get_or_init(|| parse_or_default(s.settings))
    }

    /// How `hookc probe` runs the host (`host_profile.probe`); `None` for a
    /// host without a CLI.
    pub fn probe(self) -> Option<&'static ProbeSpec> {
        let s = self.source();
        s.parsed_probe
            .get_or_init(|| parse_or_default(s.probe))
            .as_ref()
    }

    /// What the host has that the profile leaves out (`host_profile.left_out`).
    pub fn left_out(self) -> &'static LeftOut {
        let s = self.source();
        s.parsed_left_out
            .get_or_init(|| parse_or_default::<Option<LeftOut>>(s.left_out).unwrap_or_default())
    }

    /// [`HostProfile::meta`], or why the section does not read; every
    /// other part of `host_profile` is checked too (the profiles' tests
    /// call this).
    pub fn check_meta(self) -> Result<ProfileMeta, String> {
        let s = self.source();
        let name = self.name();
        let part = |what: &str, e: serde_json::Error| format!("{name}: {what}: {e}");
        serde_json::from_str::<SettingsSpec>(s.settings).map_err(|e| part("settings", e))?;
        serde_json::from_str::<Option<ProbeSpec>>(s.probe).map_err(|e| part("probe", e))?;
        serde_json::from_str::<Option<LeftOut>>(s.left_out).map_err(|e| part("left_out", e))?;
        serde_json::from_str(s.meta).map_err(|e| format!("{name}: {e}"))
    }

    /// The events the host's answer table names (every event of the
    /// profile has one), in the profile's order.
    pub fn answered_events(self) -> impl Iterator<Item = &'static str> {
        self.source().events.iter().copied()
    }

    /// `event`'s answer table: for each situation (a decision word, `*`
    /// for any other word, `none` for no word; each with `+rewrite` for
    /// the same with a rewritten input), the answer's JSON template.
    /// `None` for an event the host does not have; `Err` for a table that
    /// does not read (a hookc bug, found by the profiles' tests).
    pub fn answers(self, event: &str) -> Option<Result<AnswerTable, String>> {
        let answers = self.source().answers;
        let i = answers.binary_search_by(|(e, _)| (*e).cmp(event)).ok()?;
        let (_, json) = answers.get(i)?;
        Some(serde_json::from_str(json).map_err(|e| format!("{}: {event}: {e}", self.name())))
    }

    /// The starter guard `hookc init` writes, and its tests.
    pub fn guard(self) -> Option<(&'static str, &'static str)> {
        let s = self.source();
        Some((s.guard?, s.guard_tests?))
    }
}

/// A placeholder's value when a template is filled: `$NAME` strings stand
/// for these (`docs/src/hosts/profiles.md#answers`).
#[derive(Debug, Clone)]
pub struct Filled {
    /// The value put in the placeholder's place.
    pub value: Value,
    /// Whether it makes an optional member (`key?`) worth writing: the
    /// reason, context and rewritten input do; the event's name and the
    /// decision word, which every answer repeats, do not.
    pub live: bool,
}

/// `template` filled in: each string `$NAME` is replaced by what `lookup`
/// gives for `NAME`, and a member whose placeholder has no value is left
/// out, as is a member whose key ends in `?` when nothing live was filled
/// in its value (the `?` is dropped from the key). `None` when the template
/// itself is a placeholder without a value.
pub fn fill(template: &Value, lookup: &dyn Fn(&str) -> Option<Filled>) -> Option<Value> {
    fill_live(template, lookup).map(|(value, _)| value)
}

fn fill_live(template: &Value, lookup: &dyn Fn(&str) -> Option<Filled>) -> Option<(Value, bool)> {
    match template {
        Value::String(s) => match s.strip_prefix('$') {
            Some(name) => lookup(name).map(|f| (f.value, f.live)),
            None => Some((template.clone(), false)),
        },
        Value::Object(members) => {
            let mut out = serde_json::Map::new();
            let mut live = false;
            for (key, member) in members {
                let (key, optional) = match key.strip_suffix('?') {
                    Some(key) => (key, true),
                    None => (key.as_str(), false),
                };
                let Some((value, member_live)) = fill_live(member, lookup) else {
                    continue;
                };
                if optional && !member_live {
                    continue;
                }
                live |= member_live;
                out.insert(key.to_owned(), value);
            }
            Some((Value::Object(out), live))
        }
        Value::Array(items) => {
            let mut live = false;
            let items = items
                .iter()
                .filter_map(|t| fill_live(t, lookup))
                .map(|(v, l)| {
                    live |= l;
                    v
                })
                .collect();
            Some((Value::Array(items), live))
        }
        other => Some((other.clone(), false)),
    }
}

/// The template of `table` for a decision `word` (or none), with or
/// without a rewritten input: `WORD+rewrite`, `WORD`, `*+rewrite`, `*`,
/// then `none+rewrite`, `none`; `None` when the table has none of them
/// (the host reads nothing then).
pub fn situation<'t>(
    table: &'t AnswerTable,
    word: Option<&str>,
    rewrite: bool,
) -> Option<&'t Value> {
    let mut keys: Vec<String> = Vec::with_capacity(6);
    if let Some(word) = word {
        for w in [word, "*"] {
            if rewrite {
                keys.push(format!("{w}+rewrite"));
            }
            keys.push(w.to_owned());
        }
    }
    if rewrite {
        keys.push("none+rewrite".to_owned());
    }
    keys.push("none".to_owned());
    keys.iter().find_map(|k| table.get(k.as_str()))
}

/// An event's answer table: situation to template
/// (`docs/src/hosts/profiles.md#answers`).
pub type AnswerTable = BTreeMap<String, Value>;

/// A profile's `host_profile` section as a hook call reads it: but its
/// answers ([`HostProfile::answers`]), settings, probe and left-out lists
/// (each read apart, by what needs it).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileMeta {
    /// Where the host is listed among the others.
    pub order: i64,
    /// The host's name for people: `Claude Code`.
    pub title: String,
    /// What `hookc hook --help` says of the host, when more than its
    /// title.
    #[serde(default)]
    pub help: Option<String>,
    /// The host packages, by npm name, and the versions the profile is
    /// verified against (its snapshot, the end-to-end suite).
    #[serde(default)]
    pub verified: BTreeMap<String, String>,
    /// How a payload is read.
    #[serde(default)]
    pub payload: PayloadSpec,
    /// How a failure of hookc blocks.
    #[serde(default)]
    pub failure: FailureSpec,
}

/// How `hookc probe` runs a host (`host_profile.probe`,
/// `docs/src/hosts/probe.md`). In its strings `$url` is the scripted
/// model's base URL, `$home` the probe's private home, `$project` the
/// throw-away copy of the project, `$prompt` the prompt and `$command` a
/// case's shell command.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProbeSpec {
    /// The host's command, looked up on PATH.
    pub program: String,
    /// The npm package that installs it.
    pub package: String,
    /// The arguments that print its version.
    pub version_args: Vec<String>,
    /// The model API the host speaks: `anthropic-messages`,
    /// `openai-responses`, `openai-chat` or `gemini`.
    pub wire: String,
    /// The model name the host is told to use.
    pub model: String,
    /// The arguments of one headless run.
    pub args: Vec<String>,
    /// The environment of the run, besides HOME and PATH.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Files of the host's configuration copied from the user's home into
    /// the private home (paths relative to the home), the project's folder
    /// and its parents named in them renamed to the copy: what the host
    /// trusts comes with them.
    #[serde(default)]
    pub copy: Vec<String>,
    /// Folders created in the private home (a host that wants its
    /// configuration folder to exist).
    #[serde(default)]
    pub dirs: Vec<String>,
    /// Files written in the private home (relative path to text); a JSON
    /// object is merged over a copied file of that name, its members
    /// winning.
    #[serde(default)]
    pub files: BTreeMap<String, String>,
    /// The tool call that runs a shell command.
    pub shell: ProbeShell,
    /// What the probe cannot see of the host and says after its report.
    #[serde(default)]
    pub note: Option<String>,
}

/// How a case's shell command is recognised and played
/// (`host_profile.probe.shell`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProbeShell {
    /// The event a shell command is decided on.
    pub event: String,
    /// Members a case's payload has when it is a shell command, by JSON
    /// pointer (`/tool_name: Bash`).
    pub when: BTreeMap<String, Value>,
    /// Where the command is in a case's payload (a JSON pointer).
    pub command: String,
    /// The tool's name in the model's call.
    pub tool: String,
    /// The call's arguments (`$command`).
    pub arguments: Value,
}

/// How a host's payload is read (`host_profile.payload`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PayloadSpec {
    /// Whether the payload names its event in `hook_event_name`; when not,
    /// `hookc hook --event` must (and an event the profile does not have
    /// is refused).
    #[serde(default = "yes")]
    pub names_event: bool,
    /// An event to name in the message that asks for `--event`.
    #[serde(default)]
    pub example_event: Option<String>,
    /// The member holding the tool's input, which a `rewrite` patches.
    #[serde(default = "tool_input")]
    pub tool_input: String,
    /// Members the host sends as JSON text, parsed in place before the
    /// evaluation (a text that is not a JSON object stays as it is).
    #[serde(default)]
    pub json_text: Vec<String>,
    /// The member holding the session's id, which names the session's
    /// memory (`remember` actions, `docs/src/hosts/index.md`).
    #[serde(default = "session_id")]
    pub session: String,
}

fn yes() -> bool {
    true
}

fn tool_input() -> String {
    "tool_input".to_owned()
}

fn session_id() -> String {
    "session_id".to_owned()
}

impl Default for PayloadSpec {
    fn default() -> PayloadSpec {
        PayloadSpec {
            names_event: true,
            example_event: None,
            tool_input: tool_input(),
            json_text: Vec::new(),
            session: session_id(),
        }
    }
}

/// How a failure of hookc itself is answered, fail-closed
/// (`host_profile.failure`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FailureSpec {
    /// The answer on an event without one of its own.
    #[serde(default)]
    pub default: FailureAnswer,
    /// The answers of events that block otherwise.
    #[serde(default)]
    pub events: BTreeMap<String, FailureAnswer>,
    /// The answer when the event is not known (the payload named none);
    /// else `default`.
    #[serde(default)]
    pub unknown_event: Option<FailureAnswer>,
}

/// One failure answer: an exit code, the reason on standard error or not,
/// a JSON template on standard output or none.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FailureAnswer {
    /// The exit code.
    #[serde(default)]
    pub exit: u8,
    /// Whether the reason is written on standard error.
    #[serde(default)]
    pub stderr: bool,
    /// The answer on standard output (`$reason`, `$event`).
    #[serde(default)]
    pub json: Option<Value>,
    /// A payload member that, when it is `true`, makes the answer
    /// `otherwise` (`stop_hook_active`: a Stop hook that blocked once).
    #[serde(default)]
    pub unless: Option<String>,
    /// The answer when `unless` holds.
    #[serde(default)]
    pub otherwise: Option<Box<FailureAnswer>>,
}

/// How `hookc init` writes the host's settings (`host_profile.settings`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SettingsSpec {
    /// The settings file, relative to the project's folder.
    pub file: String,
    /// What each entry runs (`$event` stands for the entry's event).
    pub command: String,
    /// The commands of events that need another (a different fallback
    /// when `hookc` itself cannot run), by event; else `command`.
    #[serde(default)]
    pub commands: BTreeMap<String, String>,
    /// Members the file must have besides `hooks`.
    #[serde(default)]
    pub required: serde_json::Map<String, Value>,
    /// One entry (`$command`, `$event`, `$matcher`).
    pub entry: Value,
    /// The matcher of an entry for an event whose payload names a tool;
    /// none: no matcher member.
    #[serde(default)]
    pub tool_matcher: Option<String>,
    /// What the host needs before it runs a project's hooks, as `init`
    /// prints it.
    #[serde(default)]
    pub trust: Option<String>,
    /// What one unit of a settings hook's timeout member (the numeric
    /// member of `entry`'s hook) is worth, in milliseconds: 1000 for
    /// seconds (the default), 1 for Gemini CLI's milliseconds. `hookc init
    /// --adopt` reads an adopted hook's timeout with it.
    #[serde(default = "seconds")]
    pub timeout_unit_ms: u64,
    /// A folder of the project whose every `*.json` file holds hooks in
    /// the settings file's shape, which the host reads besides it
    /// (Copilot's `.github/hooks`): `hookc init --adopt` adopts theirs too.
    #[serde(default)]
    pub adopt_from: Option<String>,
    /// The host's machine-wide settings that an organisation installs and
    /// a developer cannot override (`hookc init --managed`); none: the host
    /// has none hookc writes.
    #[serde(default)]
    pub managed: Option<ManagedSpec>,
}

fn seconds() -> u64 {
    1000
}

/// How `hookc init --managed` writes the host's managed settings
/// (`host_profile.settings.managed`, `docs/src/hosts/managed.md`): the
/// host's own file at its system path, holding entries of the same shape
/// as the project's (`SettingsSpec::entry`) that run a machine-wide guard.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManagedSpec {
    /// The file by operating system (`linux`, `macos`, `windows`, as Rust's
    /// `std::env::consts::OS` names them), an absolute path each.
    pub files: BTreeMap<String, String>,
    /// The file's format.
    pub format: ManagedFormat,
    /// Members set to these values whatever the file has (a dotted path
    /// names a member of a table): what makes the hooks the only ones.
    #[serde(default)]
    pub set: serde_json::Map<String, Value>,
    /// Members added only where the file lacks them (dotted paths;
    /// `$guard_dir` stands for the guard's folder).
    #[serde(default)]
    pub required: serde_json::Map<String, Value>,
    /// What each entry runs: `$hookc` (the binary), `$pin` (the guard's
    /// digest) and `$guard` (its path) are filled in, the paths quoted for
    /// the shell.
    pub command: String,
    /// The commands of events that need another, by event; else `command`.
    #[serde(default)]
    pub commands: BTreeMap<String, String>,
    /// What the administrator should know once the file is written, as
    /// `init --managed` prints it.
    #[serde(default)]
    pub note: Option<String>,
}

/// The format of a managed settings file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ManagedFormat {
    /// A JSON object (Claude Code's `managed-settings.json`).
    #[default]
    Json,
    /// A TOML document (Codex's `requirements.toml`).
    Toml,
}

/// What the host has that the profile leaves out (`host_profile.left_out`):
/// names to why.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeftOut {
    /// Events.
    #[serde(default)]
    pub events: BTreeMap<String, String>,
    /// Payload members, as `EVENT.member` or `*.member` for every event.
    #[serde(default)]
    pub fields: BTreeMap<String, String>,
    /// Tools.
    #[serde(default)]
    pub tools: BTreeMap<String, String>,
    /// Answer members, as `EVENT.member` or `*.member`.
    #[serde(default)]
    pub answers: BTreeMap<String, String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_host_has_a_profile() {
        for name in names() {
            assert!(profile(name).is_some(), "{name}");
        }
        assert!(profile("gemini").is_none());
    }

    #[test]
    fn every_profile_compiles_without_a_finding() {
        for name in names() {
            let policy = format!("host: {name}\nhooks: []\n");
            let c = crate::compile::compile(&[crate::compile::Input::new("p.yaml", policy)]);
            let found: Vec<_> = c.diagnostics.iter().map(|d| d.message.clone()).collect();
            assert!(found.is_empty(), "{name}: {found:?}");
        }
    }

    fn codes(inputs: &[crate::compile::Input]) -> Vec<&'static str> {
        let c = crate::compile::compile(inputs);
        c.diagnostics.iter().map(|d| d.code.as_str()).collect()
    }

    #[test]
    fn a_host_policy_is_checked_against_the_profile() {
        let input = |name: &str, text: &str| crate::compile::Input::new(name, text);
        // XML names its host on `<hooks>`; the profile's events apply.
        let xml = "<directive><hooks host=\"claude-code\">\
                   <hook event=\"PreTooluse\"><deny reason=\"no\"/></hook>\
                   </hooks></directive>";
        assert_eq!(codes(&[input("d.xml", xml)]), ["E0114"]);
        // Two files, two hosts.
        let a = input("a.yaml", "host: codex\nhooks: []\n");
        let b = input("b.yaml", "host: claude-code\nhooks: []\n");
        assert_eq!(codes(&[a.clone(), b]), ["E0115"]);
        // The same host twice is one profile.
        assert!(codes(&[a.clone(), a]).is_empty());
    }

    #[test]
    fn copilot_decides_where_its_reference_says_it_reads_an_answer() {
        let policy = |event: &str, action: &str| {
            let text = format!(
                "host: copilot\nhooks:\n  - id: h\n    event: {event}\n    action: {action}\n"
            );
            codes(&[crate::compile::Input::new("p.yaml", text)])
        };
        // preToolUse reads a permission and modified arguments; the parsed
        // `toolArgs` is typed.
        let deny = "{type: deny, reason: no}";
        assert!(policy("preToolUse", deny).is_empty());
        assert!(policy("permissionRequest", deny).is_empty());
        assert!(policy("agentStop", deny).is_empty());
        let rewrite = "{type: rewrite, patch: {toolArgs: {command: ls}}}";
        assert!(policy("preToolUse", rewrite).is_empty());
        // Copilot 1.0.102 reads context on these events, and a block of a
        // prompt (the end-to-end suite: /tmp/findings/copilot.md, F2).
        let context = "{type: context, text: hi}";
        for event in [
            "subagentStart",
            "sessionStart",
            "userPromptSubmitted",
            "preToolUse",
            "postToolUse",
            "postToolUseFailure",
        ] {
            assert!(policy(event, context).is_empty(), "{event}");
        }
        assert!(policy("userPromptSubmitted", deny).is_empty());
        // The events whose decision Copilot does not read take none.
        assert_eq!(policy("postToolUse", deny), ["E0406"]);
        assert_eq!(policy("sessionEnd", context), ["E0406"]);
        // The PascalCase events are another payload format: not these.
        assert_eq!(policy("PreToolUse", deny), ["E0114"]);
    }

    #[test]
    fn gemini_decides_where_the_real_host_obeys_an_answer() {
        let policy = |event: &str, when: &str, action: &str| {
            let when = match when {
                "" => String::new(),
                w => format!("    when: \"{w}\"\n"),
            };
            let text = format!(
                "host: gemini-cli\nhooks:\n  - id: h\n    event: {event}\n{when}    action: {action}\n"
            );
            codes(&[crate::compile::Input::new("p.yaml", text)])
        };
        let deny = "{type: deny, reason: no}";
        let context = "{type: context, text: hi}";
        assert!(policy("BeforeTool", "", deny).is_empty());
        assert!(policy("BeforeModel", "", deny).is_empty());
        assert!(policy("AfterTool", "", context).is_empty());
        // Gemini 0.61 ignores additionalContext on BeforeTool, and passes
        // a denied AfterModel chunk on (its tool calls run): neither is
        // an answer.
        assert_eq!(policy("BeforeTool", "", context), ["E0406"]);
        assert_eq!(policy("AfterModel", "", deny), ["E0406"]);
        // `remember` is hookc's own (`performed_by: hookc`): no event's
        // answer limits it, though it is collected.
        let remember = "{type: remember, set: written, values: x}";
        for event in ["BeforeTool", "SessionEnd", "AfterModel"] {
            assert!(policy(event, "", remember).is_empty(), "{event}");
        }
        // MCP tools are `mcp_SERVER_TOOL`; the tool names are open (new
        // versions add tools), so an unknown one is a warning.
        assert!(policy("BeforeTool", "tool_name == 'mcp_github_create_issue'", deny).is_empty());
        assert!(policy("BeforeTool", "tool_name == 'grep_search'", deny).is_empty());
        assert_eq!(
            policy(
                "BeforeTool",
                "tool_name == 'list_background_processes'",
                deny
            ),
            ["W0018"]
        );
        assert_eq!(
            policy("BeforeTool", "tool_name == 'save_memory'", deny),
            ["W0018"]
        );
    }

    #[test]
    fn permission_requests_take_what_their_hosts_read() {
        let policy = |host: &str, event: &str, action: &str| {
            let text = format!(
                "host: {host}\nhooks:\n  - id: h\n    event: {event}\n    action: {action}\n"
            );
            codes(&[crate::compile::Input::new("p.yaml", text)])
        };
        let rewrite = "{type: rewrite, patch: {tool_input: {command: ls}}}";
        let context = "{type: context, text: hi}";
        for host in ["claude-code", "codex"] {
            for word in ["allow", "deny", "ask"] {
                let action = format!("{{type: {word}, reason: why}}");
                assert!(policy(host, "PermissionRequest", &action).is_empty());
            }
            // PermissionRequest reads no additionalContext.
            assert_eq!(policy(host, "PermissionRequest", context), ["E0406"]);
        }
        // Claude Code reads updatedInput with an allow; Codex fails closed
        // on it.
        assert!(policy("claude-code", "PermissionRequest", rewrite).is_empty());
        assert_eq!(policy("codex", "PermissionRequest", rewrite), ["E0406"]);
        // A failed tool call cannot be blocked, only explained.
        assert!(policy("claude-code", "PostToolUseFailure", context).is_empty());
        let deny = "{type: deny, reason: no}";
        assert_eq!(policy("claude-code", "PostToolUseFailure", deny), ["E0406"]);
        assert_eq!(policy("codex", "PostToolUseFailure", context), ["E0114"]);
    }

    #[test]
    fn an_overlay_over_a_host_policy_gets_the_profile() {
        let base = crate::compile::Input::new("base.yaml", "host: codex\nhooks: []\n");
        let overlay = crate::compile::Input::new(
            "run.yaml",
            "hooks:\n  - {id: x, event: Stop, action: {type: deny, reason: later}}\n",
        );
        let layer = crate::compile::LayerName::new("run").unwrap();
        let c =
            crate::compile::compile_layers_with_declarations(&[base], &[(layer, vec![overlay])]);
        let found: Vec<_> = c.diagnostics.iter().map(|d| d.message.clone()).collect();
        assert!(found.is_empty(), "{found:?}");
    }
}
