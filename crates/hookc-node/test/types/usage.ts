// Exercises every declaration of index.d.ts with correct types, and a few
// misuses the compiler must refuse (`@ts-expect-error`: tsc fails when
// the line below it is NOT an error). Type-checked, never run, by
// test/types.test.js with `tsc --noEmit --strict`.
import * as hookc from '../..';
import {
  compile,
  compileSources,
  Policy,
  HookcError,
  CompileError,
  ArtifactError,
  ContextError,
  EvaluationError,
  version,
} from '../..';
import type {
  Action,
  CallOptions,
  CompileOptions,
  Context,
  Diagnostic,
  Evaluation,
  FullDecision,
  HookFailure,
  HookOptions,
  HookReply,
  HostName,
  Match,
  Trace,
} from '../..';

// ---- compiling ----
const quiet: CompileOptions = { quiet: true };
const one: Policy = compile('hooks.yaml');
const many: Policy = compile(['a.yaml', 'b.xml'], quiet);
const layered: Policy = compile({ layers: { base: 'base.yaml', team: ['team.yaml', 'more.yaml'] } });
const layeredQuiet: Policy = compile({ layers: { base: 'base.yaml' }, quiet: false });
const fromText: Policy = compileSources({ 'hooks.yaml': 'hooks: []' });
const fromTextQuiet: Policy = compileSources({ 'hooks.yaml': 'hooks: []' }, { quiet: true });

// ---- artifacts and sharing ----
const bytes: Uint8Array = one.toArtifact();
const loaded: Policy = Policy.fromArtifact(bytes);
const loadedPlain: Policy = hookc.Policy.fromArtifact(new Uint8Array(bytes));
const token: string = many.share();
const sharedPolicy: Policy = Policy.fromShared(token);

// ---- properties ----
const ids: string[] = layered.hookIds;
const events: string[] = layeredQuiet.events;
const warnings: Diagnostic[] = fromText.warnings;
for (const d of warnings) {
  const code: string = d.code;
  const severity: 'error' | 'warning' = d.severity;
  const message: string = d.message;
  const where: string | undefined = d.file;
  const line: number | undefined = d.line;
  const column: number | undefined = d.column;
  const endLine: number | undefined = d.end_line;
  const endColumn: number | undefined = d.end_column;
  const nodePath: string | undefined = d.node_path;
  const label: string | undefined = d.label;
  const help: string | undefined = d.help;
  const notes: string[] | undefined = d.notes;
  void [code, severity, message, where, line, column, endLine, endColumn, nodePath, label, help, notes];
}

// ---- questions ----
const contexts: Context[] = [{ tool_name: 'Bash' }, '{"tool_name": "Bash"}', new TextEncoder().encode('{}'), new Uint8Array(2), [1, 2]];
const options: CallOptions = { disable: ['h1'], results: { branch: 'main', other: { n: 1 } } };
for (const ctx of contexts) {
  const evaluation: Evaluation = fromTextQuiet.evaluate('PreToolUse', ctx);
  const withOptions: Evaluation = loaded.evaluate('PreToolUse', ctx, options);
  const disabledOnly: Evaluation = loaded.evaluate('PreToolUse', ctx, { disable: [] });
  const resultsOnly: Evaluation = loaded.evaluate('PreToolUse', ctx, { results: {} });
  void [withOptions, disabledOnly, resultsOnly];
  if (evaluation !== null) {
    const hook: string | null = evaluation.hook;
    const action: Action | null = evaluation.action;
    if (action !== null) {
      const type: string = action.type;
      const parameter: unknown = action['reason'];
      void [type, parameter];
    }
    if ('pending' in evaluation) {
      const full: FullDecision = evaluation;
      const collected: Match[] | undefined = full.collected;
      const transforms: Match[] | undefined = full.transforms;
      const patched: Record<string, unknown> | undefined = full.patched;
      const errors: HookFailure[] | undefined = full.errors;
      const pending: Match | undefined = full.pending;
      if (errors) {
        for (const e of errors) {
          const failed: string = e.hook;
          const detail: unknown = e['cause'];
          void [failed, detail];
        }
      }
      void [collected, transforms, patched, pending];
    }
    void hook;
  }
  const decided: string | null = sharedPolicy.decide('PreToolUse', ctx, options);
  const all: Match[] = loadedPlain.evaluateAll('PreToolUse', ctx);
  for (const m of all) {
    const hook: string = m.hook;
    const action: Action = m.action;
    void [hook, action];
  }
  const trace: Trace = many.explain('PreToolUse', ctx, { disable: ['h1'] });
  const event: string = trace.event;
  const hooks: Array<Record<string, unknown>> = trace.hooks;
  const winner: unknown = trace['winner'];
  void [decided, event, hooks, winner];
}

// ---- host answers ----
const hosts: HostName[] = ['claude-code', 'codex', 'gemini-cli', 'cursor', 'copilot'];
const hookOptions: HookOptions = { event: 'preToolUse', failOpen: true, log: 'decisions.jsonl' };
for (const host of hosts) {
  const reply: HookReply = one.hook(host, { hook_event_name: 'PreToolUse' }, hookOptions);
  const stdout: string = reply.stdout;
  const stderr: string = reply.stderr;
  const exitCode: number = reply.exitCode;
  const output: Record<string, unknown> | null = reply.output;
  void [stdout, stderr, exitCode, output];
}
one.hook('claude-code', '{"hook_event_name": "Stop"}');
one.hook('codex', new Uint8Array(0), { event: null, log: null });
// @ts-expect-error: not a host hookc answers for
one.hook('opencode', {});
// @ts-expect-error: failOpen is a boolean
one.hook('cursor', {}, { failOpen: 'yes' });

// ---- errors ----
try {
  compileSources({ 'bad.yaml': 'hooks: [' });
} catch (e) {
  if (e instanceof CompileError) {
    const code: 'HOOKC_COMPILE' = e.code;
    const diagnostics: Diagnostic[] = e.diagnostics;
    const message: string = e.message;
    void [code, diagnostics, message];
  } else if (e instanceof ArtifactError) {
    const code: 'HOOKC_ARTIFACT' = e.code;
    void code;
  } else if (e instanceof ContextError) {
    const code: 'HOOKC_CONTEXT' = e.code;
    void code;
  } else if (e instanceof EvaluationError) {
    const code: 'HOOKC_EVALUATION' = e.code;
    void code;
  } else if (e instanceof HookcError) {
    const code: string = e.code;
    const base: Error = e;
    void [code, base];
  }
}
const v: string = version;
const v2: string = hookc.version;
void [v, v2, ids, events];

// ---- misuse the declarations refuse ----
// @ts-expect-error: paths are strings
compile(42);
// @ts-expect-error: layers map names to paths
compile({ layers: { base: 1 } });
// @ts-expect-error: source texts are strings
compileSources({ 'hooks.yaml': 1 });
// @ts-expect-error: the event is a string
one.evaluate(1, {});
// @ts-expect-error: a number is not a context
one.decide('e', 5);
// @ts-expect-error: disable takes an array of ids
one.evaluate('e', {}, { disable: 'h1' });
// @ts-expect-error: no such option
one.evaluateAll('e', {}, { quiet: true });
// @ts-expect-error: decide may answer null
const notNull: string = one.decide('e', {});
// @ts-expect-error: an artifact is bytes
Policy.fromArtifact('not bytes');
// @ts-expect-error: a token is a string
Policy.fromShared(1);
// @ts-expect-error: policies are not made by hand
new Policy();
// @ts-expect-error: hookIds is read-only
one.hookIds = [];
// @ts-expect-error: a CompileError's code is HOOKC_COMPILE
const wrongCode: 'HOOKC_CONTEXT' = new CompileError().code;
void [notNull, wrongCode];
