//! Every bound hookc enforces on its input, in one place.
//!
//! Each is checked at the earliest stage that can see it, before any recursion
//! over the input, so that hostile input gets a clear error instead of a stack
//! overflow or an unbounded allocation. Each constant's doc says where it is
//! checked and what happens past it; `crates/hookc/tests/suite/limits.rs` goes one
//! past every one of them.
//!
//! Not bounded separately: the number of `${...}` references in one string
//! (each takes at least four bytes, `${a}`, so [`MAX_STRING_BYTES`] bounds it,
//! and the artifact decoder bounds template parts by [`MAX_TABLE_LEN`]), and
//! the number of arguments of a call (every function has a fixed arity, and
//! [`MAX_INPUT_BYTES`] bounds the text).

// ---- Policy sources ---------------------------------------------------------

/// Largest policy source file read, in bytes. Checked by `hookc` on the file's
/// metadata before reading it, by each front end
/// (`hookc::frontend::yaml_doc`, `hookc::frontend::xml`) before parsing,
/// and by `hookc::compile::compile` for each input: `E0006`.
pub const MAX_INPUT_BYTES: usize = 16 * 1024 * 1024;

/// Deepest nesting of an expression (parentheses, operators, calls, lists).
/// Checked by the parser (`hookc::syntax::parser`) as it descends, before
/// it recurses further: `E0004`.
pub const MAX_EXPR_DEPTH: usize = 128;

/// Deepest nesting of a YAML or XML document (mappings, sequences, elements).
/// Checked while the document's events arrive (`hookc::frontend::yaml_doc`,
/// `hookc::frontend::xml`), so no tree deeper than this is ever built, and
/// again by every recursive reader of a document tree (condition trees in
/// `hookc::resolve::tree_to_ir`, schemas, action values): `E0004`.
pub const MAX_DOC_DEPTH: usize = 128;

/// Most nodes a YAML document may expand to, aliases included: stops alias
/// bombs ("billion laughs") before they allocate. Checked by
/// `hookc::frontend::yaml_doc` before an alias is expanded: `E0006`.
pub const MAX_DOC_NODES: usize = 1_000_000;

/// Most bytes of scalar text that YAML aliases may copy in one document:
/// with [`MAX_DOC_NODES`], bounds what an alias bomb of long strings
/// allocates (a 1 MB string aliased ten at a time, three levels deep, is
/// 1,000 nodes but 1 GB of text). Checked by `hookc::frontend::yaml_doc`
/// before an alias is expanded: `E0006`.
pub const MAX_ALIAS_BYTES: usize = MAX_INPUT_BYTES;

/// Most hooks in one compilation. Checked by each front end as hooks are read
/// (per file) and by `hookc::compile::compile` over all files: `E0006`;
/// the verifier rejects an artifact with more.
pub const MAX_HOOKS: usize = 100_000;

/// Longest string constant in a policy, in bytes (after escapes are
/// decoded): a string literal in an expression (checked by the parser), a
/// string in a condition leaf's `value:` (checked by `hookc::resolve::tree_to_ir`),
/// and a string in an action parameter value (checked by the action checker,
/// `hookc::check::actions::check_action`); mapping keys inside such values count
/// too: `E0006`.
pub const MAX_STRING_BYTES: usize = 1 << 20;

/// Most items of one list constant in a policy: a list literal in an
/// expression (checked by the parser as items arrive), a list in a condition
/// leaf's `value:` (checked by `hookc::resolve::tree_to_ir`), and a list in an
/// action parameter value (checked by the action checker): `E0006`.
pub const MAX_LIST_ITEMS: usize = 100_000;

/// Most elements of one array, or members of one object, that a binding
/// converts from a host language's value into a context value (the Node
/// package's `convert.rs`): as many as the largest policy input could
/// spell as JSON text (`0,` per element). Past it the value is refused
/// (a context error naming its path) before anything is converted, so a
/// sparse JavaScript array of length 2^32 - 1 costs nothing.
pub const MAX_HOST_VALUES: usize = MAX_INPUT_BYTES / 2;

/// Largest string a builtin function builds (`replace`, `join`, ...), in
/// bytes: past it the call is an `invalid argument` error. Each input is at
/// most [`MAX_INPUT_BYTES`], but `'ab'.replace('', big)` multiplies two
/// inputs' sizes; this bound keeps one call's memory linear in the input.
pub const MAX_RESULT_BYTES: usize = MAX_INPUT_BYTES;

/// Largest compiled size of one regex, in bytes (the `regex` crate's
/// `size_limit`). Checked when the regex is compiled: by the type checker
/// (`E0304`), and in a loaded policy on its first search that needs the
/// compiled regex (past it, that search is `invalid argument`).
pub const MAX_REGEX_SIZE: usize = 1 << 20;

/// Deepest nesting of one regex pattern (groups, repetitions, alternations;
/// the `regex` crate's `nest_limit`, its default made explicit). Checked by
/// the regex parser, before its recursive passes: `E0304`, and in a loaded
/// policy on the pattern's first search (past it, `invalid argument`).
pub const MAX_REGEX_NESTING: u32 = 250;

/// Most literals the prefilter tests before a regex (`value::policy_regex`:
/// the longest of those every match contains, the rarest in practice). The
/// compiler records at most this many per regex in the artifact, and the
/// verifier refuses more: each is searched for on every search of its
/// regex.
pub const MAX_REGEX_LITERALS: usize = 4;

/// Most literals a regex's one-of set holds, in the compiler's analysis
/// and in an artifact (`bytecode::Program::regex_one_of`): a search tests
/// each before the regex, so more would cost more than they save.
pub const MAX_REGEX_ONE_OF: usize = 16;

/// Most backtracking steps one search of a regex on the backtracking
/// engine (a pattern with look-around or a backreference,
/// `value::policy_regex`) may take: `fancy-regex`'s `backtrack_limit`.
/// Past it the search is an error value (`EvalError::RegexStepLimit`), so
/// the hook does not match and a catastrophic pattern (`^((?=a)a+)+$` on
/// `aaa…b`) cannot hang an evaluation. The value is `fancy-regex`'s own
/// default: an unanchored search spends at least one step per start
/// position, so the limit must pass the longest texts policies search (a
/// string constant is at most [`MAX_STRING_BYTES`], a host action's output
/// [`MAX_HOST_OUTPUT_BYTES`]) with room for ordinary backtracking, and a
/// search that reaches it stops after 20 to 35 ms (optimized build,
/// measured with such patterns). A step is not bounded work: a step may
/// scan the text (a backreference, a part handed to the `regex` crate), so
/// this bounds a search's time by about the limit times the text length,
/// not by the limit alone (`docs/src/semantics.md#regular-expressions`).
/// Checked while searching, by the VM and the compiler alike.
pub const MAX_REGEX_BACKTRACK_STEPS: usize = 1_000_000;

// ---- Evaluation -------------------------------------------------------------

/// Most macro iterations (`exists`, `all`, `exists_one`, over all nesting
/// levels) one evaluation of one hook may run; past it the macro is an error
/// value (`EvalError::IterationLimit`), so the hook does not match and a huge
/// context list cannot make evaluation unbounded. Counted by the VM
/// and by the compiler's reference evaluator. With forward-only jumps it
/// bounds one hook's evaluation to `code length × (1 + MAX_MACRO_ITERATIONS)`
/// instructions (the VM counts them while tracing errors).
pub const MAX_MACRO_ITERATIONS: usize = 100_000;

/// Deepest nesting of a context given as JSON text (arrays and objects,
/// counted from the document's root), anywhere in the text: it is read with
/// `serde_json`, whose fixed recursion limit of 128 admits 127 levels, the
/// parts no path reads too (parsed, not built), so the text is accepted
/// exactly when `serde_json::from_slice::<Value>` accepts it. Past it, a
/// [`crate::Query`] on [`Context::Json`](crate::Context::Json) answers with a
/// `ContextError`.
pub const MAX_CONTEXT_DEPTH: usize = 127;

// ---- Artifacts ----------------------------------------------------------------

/// Largest `.hkb` artifact [`crate::artifact::decode`] reads, in bytes;
/// checked before the checksum is computed or anything is allocated.
pub const MAX_ARTIFACT_BYTES: usize = 256 * 1024 * 1024;

/// Most entries one table of an artifact may claim (strings, paths,
/// constants, regexes, sets, instructions, hooks, actions, events, and the
/// items of one list, object, path or template); every count is also
/// checked against the bytes left, so the decoder never allocates more than
/// the input justifies. Checked by the decoder and again by the verifier.
pub const MAX_TABLE_LEN: usize = 1 << 24;

/// Deepest operand stack one hook's code may need (the verifier's bound on
/// [`crate::bytecode::HookEntry::max_stack`]).
pub const MAX_STACK_DEPTH: usize = 1 << 16;

/// Deepest nesting of macros (`exists`, `all`, `exists_one`) in one hook's
/// code; a macro needs at least one expression level, so this is
/// [`MAX_EXPR_DEPTH`]. Checked by the verifier.
pub const MAX_MACRO_NESTING: usize = MAX_EXPR_DEPTH;

/// Local slots one hook's condition or one template expression may use
/// (`LocalLoad` / `LocalStore`: a local name's value, kept for its later
/// uses in the same code; `docs/src/semantics.md#local-names`). The
/// compiler gives each kept name of a code one slot; checked by the
/// verifier, and the VM holds at most this many values per code run.
pub const MAX_LOCAL_SLOTS: usize = 1024;

/// Deepest nesting of a constant (a JSON value of the constant pool) or of
/// an action parameter value: constants come from documents
/// ([`MAX_DOC_DEPTH`]) and expressions ([`MAX_EXPR_DEPTH`]). Checked by the
/// decoder before it recurses and again by the verifier.
pub const MAX_VALUE_DEPTH: usize = MAX_DOC_DEPTH + MAX_EXPR_DEPTH;

/// Most segments of one context path after its root. Paths are written as
/// expressions, so the compiler never makes one longer than
/// [`MAX_EXPR_DEPTH`]; the artifact decoder and the verifier allow twice
/// that and reject longer paths before building them.
pub const MAX_PATH_SEGMENTS: usize = 2 * MAX_EXPR_DEPTH;

/// Most bytes of a host action's output (`run`'s stdout, and its stderr)
/// that a hook call (`hookc hook`, a binding's `hook`) keeps and binds
/// into the context; the rest is read and dropped, and the result says
/// `truncated`. Checked as the output is read (`hookc-binding`'s
/// `hosts::host_actions`).
pub const MAX_HOST_OUTPUT_BYTES: usize = 64 * 1024;

/// Longest a host action's program may run, in milliseconds, and the
/// timeout of one that gives none; it is killed then. Checked when the
/// action is read (`hookc-binding`'s `hosts::host_actions`).
pub const MAX_HOST_TIMEOUT_MS: u64 = 60_000;

/// Most bytes of one session's memory file (what its `remember` actions
/// stored, `hookc-binding`'s `hosts::memory`). Checked before the file is
/// read and before a line is appended: a larger file is not read, and the
/// hook call answers its failure (the host's block), since a guard that
/// reads the memory cannot decide without it.
pub const MAX_SESSION_MEMORY_BYTES: usize = 4 * 1024 * 1024;

/// Size past which a decision log (`hookc hook --log FILE`, unless
/// `--log-max-bytes` says otherwise) is renamed `FILE.1` before the next
/// line (`hookc-binding`'s `hosts::decision_log`).
pub const MAX_LOG_BYTES: u64 = 16 * 1024 * 1024;

/// Most bytes of one remembered value; a longer one is not stored (a path
/// or a name is far shorter). Checked when a `remember` action is read.
pub const MAX_REMEMBERED_VALUE_BYTES: usize = 4096;

/// Deepest nesting the shell-command parser follows (`shell.commands`):
/// subshells, command and process substitutions, `${...}`, and the
/// scripts of `bash -c`, `eval` and the like, counted together. Checked as
/// it descends (`functions::shell::parser`), before it recurses further:
/// the string is then invalid with `ShellError::NestingTooDeep`.
pub const MAX_SHELL_NESTING: usize = 16;

// The bounds agree, checked at compile time: the artifact bounds admit every
// program the compiler writes, and every table index fits a `u32`.
const _: () = {
    assert!(MAX_MACRO_NESTING >= MAX_EXPR_DEPTH);
    assert!(MAX_VALUE_DEPTH >= MAX_DOC_DEPTH + MAX_EXPR_DEPTH);
    assert!(MAX_PATH_SEGMENTS >= MAX_EXPR_DEPTH);
    assert!(MAX_HOOKS <= MAX_TABLE_LEN);
    assert!(MAX_LIST_ITEMS <= MAX_TABLE_LEN);
    assert!(MAX_STRING_BYTES <= MAX_INPUT_BYTES);
    assert!(MAX_INPUT_BYTES <= MAX_ARTIFACT_BYTES);
    assert!(MAX_TABLE_LEN < u32::MAX as usize);
    assert!(MAX_HOST_OUTPUT_BYTES <= MAX_STRING_BYTES);
};

/// The most bytes of variable values (`X=v; ... $X`) one command string's
/// analysis substitutes, at every nesting level together (a script of
/// `bash -c`, `eval` or a heredoc included): more is
/// `ShellError::TooLarge`, so that `A1=$A0$A0...; A2=$A1$A1...` cannot grow
/// the analysis of a 261-byte string to a gigabyte (a fuzz finding).
pub const MAX_SHELL_EXPANSION_BYTES: usize = 1 << 20;

/// The most words one shell word expands to by brace expansion and the
/// splitting of a variable's value (`functions::shell::expand`): more is
/// `ShellError::TooLarge`, so that `{a,b}{a,b}...` cannot grow a command
/// string's analysis exponentially.
pub const MAX_SHELL_BRACE_WORDS: usize = 256;

/// The most unquoted `{` one shell word may hold for brace expansion: more
/// is `ShellError::TooLarge`, which bounds the expansion's recursion.
pub const MAX_SHELL_BRACE_GROUPS: usize = 64;
