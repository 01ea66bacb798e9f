// The hookc Node package's API: compile agent-hook policies and decide hook
// events in-process. Every answer is exactly what the `hookc` command prints
// as JSON for the same policy, event and context. `test/types.test.js`
// checks these declarations against the package with the TypeScript
// compiler.

/** A diagnostic, as `hookc check --format json` prints it. */
export interface Diagnostic {
  /** A stable code: `E0001`... for errors, `W0001`... for warnings. */
  code: string;
  severity: 'error' | 'warning';
  message: string;
  file?: string;
  line?: number;
  column?: number;
  end_line?: number;
  end_column?: number;
  /** Where in a YAML document: `hooks[2].condition`. */
  node_path?: string;
  label?: string;
  help?: string;
  notes?: string[];
}

/**
 * A context: a plain object, read only at the paths the policy reads (as
 * its `JSON.stringify` text would read), or JSON text as a string or a
 * `Buffer`/`Uint8Array`.
 */
export type Context = object | string | Uint8Array;

/** What narrows one call. */
export interface CallOptions {
  /** Hook ids switched off for this call; an id the policy does not know is
   * a `HookcError` (code `HOOKC_ARGUMENT`) naming the closest one. */
  disable?: string[];
  /** The results of awaited hooks, by hook id: the evaluation resumes past
   * them (docs: "Resumable decisions"). */
  results?: Record<string, unknown>;
}

/** An action with its templates filled: its type and parameters. */
export interface Action {
  type: string;
  [parameter: string]: unknown;
}

/** A hook that matched, and its action. */
export interface Match {
  hook: string;
  action: Action;
}

/** A hook that could not decide (`on_error: skip`, or answered by `on_error`). */
export interface HookFailure {
  hook: string;
  /** Why, as a sentence. */
  cause: string;
}

/** A decision with collected matches or the decision model's parts. */
export interface FullDecision {
  /** The deciding hook, or null when only collected hooks matched. */
  hook: string | null;
  action: Action | null;
  collected?: Match[];
  transforms?: Match[];
  /** Top-level context members a transform patched (null: removed). */
  patched?: Record<string, unknown>;
  errors?: HookFailure[];
  /** The awaited match the evaluation paused at: resume with `results`. */
  pending?: Match;
}

/** What `hookc eval` prints: no match, the deciding match, or a full decision. */
export type Evaluation = null | Match | FullDecision;

/** The explain trace, as `hookc eval --explain --format json` prints it. */
export interface Trace {
  event: string;
  hooks: Array<Record<string, unknown>>;
  [part: string]: unknown;
}

/** The hosts whose hook answers hookc gives. */
export type HostName = 'claude-code' | 'codex' | 'gemini-cli' | 'cursor' | 'copilot';

/** Options of `policy.hook`: `hookc hook`'s flags. */
export interface HookOptions {
  /** The event the payload is for, for hosts whose payloads do not name it
   * (`'preToolUse'` for Copilot); a payload naming another event is refused. */
  event?: string | null;
  /** On a failure answer "no decision" (the reason on `stderr`) instead of
   * the host's block. */
  failOpen?: boolean;
  /** A file to append one JSON line per decided call to (`--log`). */
  log?: string | null;
}

/** Exactly what `hookc hook --host HOST` writes and exits with. */
export interface HookReply {
  /** '' or one JSON document and a newline. */
  stdout: string;
  stderr: string;
  exitCode: number;
  /** `stdout` parsed: the host's answer object, or null when it is empty. */
  output: Record<string, unknown> | null;
}

/** A compiled, verified policy. Immutable: share it between calls freely,
 * and between worker threads with `share()` and `Policy.fromShared()`. */
export class Policy {
  private constructor();
  /** Loads artifact bytes (what `hookc compile` writes or `toArtifact()`
   * returns), decoded and verified. Throws `ArtifactError`. */
  static fromArtifact(data: Uint8Array): Policy;
  /** The policy another worker thread shared with `policy.share()`. */
  static fromShared(token: string): Policy;
  /** A token for `Policy.fromShared` in another worker thread: the same
   * loaded policy, not a copy (valid while some Policy object holds it). */
  share(): string;
  /** The artifact bytes (deterministic): a `Buffer` in Node, declared as
   * the `Uint8Array` it is so that the declarations need no Node types. */
  toArtifact(): Uint8Array;
  /** Every hook id, in evaluation order. */
  readonly hookIds: string[];
  /** The event names hooks name. */
  readonly events: string[];
  /** The compilation's warnings ([] for a loaded artifact). */
  readonly warnings: Diagnostic[];
  /** What `hookc eval` prints. */
  evaluate(event: string, context: Context, options?: CallOptions): Evaluation;
  /** The deciding hook's id, or null: builds no action, the cheapest question. */
  decide(event: string, context: Context, options?: CallOptions): string | null;
  /** Every match in evaluation order: what `hookc eval --all` prints. */
  evaluateAll(event: string, context: Context, options?: CallOptions): Match[];
  /** What happened to every hook and why. */
  explain(event: string, context: Context, options?: CallOptions): Trace;
  /** The answer of `host` to one hook payload (an object, JSON text or its
   * bytes): what `hookc hook --host HOST` prints, host actions (`run`,
   * `test_path`) performed as the command does, synchronously. */
  hook(host: HostName, payload: object | string | Uint8Array, options?: HookOptions): HookReply;
}

/** Options of `compile` and `compileSources`. */
export interface CompileOptions {
  /** Do not emit warnings with `process.emitWarning` (they are still in
   * `policy.warnings`). */
  quiet?: boolean;
}

/** Compiles policy files (YAML hook files, directive XML) in source order. */
export function compile(paths: string | string[], options?: CompileOptions): Policy;
/** Compiles policy files by layer, lowest first:
 * `compile({layers: {base: 'base.yaml', team: ['team.yaml']}})`. */
export function compile(options: CompileOptions & { layers: Record<string, string | string[]> }): Policy;
/** Compiles policy sources given as text, `{name: text}` in source order. */
export function compileSources(sources: Record<string, string>, options?: CompileOptions): Policy;

/** The base of every error hookc throws; `code` is stable. */
export class HookcError extends Error {
  readonly code: string;
  /** -2 for a policy file that does not exist (code `ENOENT`). */
  readonly errno?: number;
}
/** The policy sources have errors; `message` is the rendered diagnostics. */
export class CompileError extends HookcError {
  readonly code: 'HOOKC_COMPILE';
  readonly diagnostics: Diagnostic[];
}
/** Artifact bytes that do not load. */
export class ArtifactError extends HookcError {
  readonly code: 'HOOKC_ARTIFACT';
}
/** A context that cannot be read: not JSON, a value with no JSON form, or a
 * read that threw. */
export class ContextError extends HookcError {
  readonly code: 'HOOKC_CONTEXT';
}
/** An evaluation with no answer (an action's parameters that do not fit, a
 * hook failing under `on_error: fail`). */
export class EvaluationError extends HookcError {
  readonly code: 'HOOKC_EVALUATION';
}

/** The package's version. */
export const version: string;
