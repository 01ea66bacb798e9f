// The hookc Node package: compile agent-hook policies and decide hook
// events in-process. This file is the API (index.d.ts is its reference):
// thin JavaScript over the native addon `hookc.node` (src/, built by
// scripts/build.js), which answers exactly what the `hookc` command prints
// through the binding layer the CLI and the Python package share.
//
// What lives here rather than in the addon: the error classes (the addon
// throws errors whose message starts with a stable code, turned into a
// class by `rethrow` only when one is thrown), warnings
// (`process.emitWarning`), the argument shapes of `compile` and `hook`,
// and the answer for an event no hook hears (no native call).
'use strict';

const native = loadAddon();
const flat = require('./flat.js');

/**
 * The native addon: `hookc.node` beside this file (a checkout's build), or
 * the one of this platform's prebuilt package (platform.js; the `hookc`
 * package from npm or `scripts/dist`). Installed from a checkout (`npm
 * install ./crates/hookc-node`), it is built by the package's `install`
 * script when npm runs it; npm 11 skips the install scripts of
 * dependencies it was not told to allow, so when `hookc.node` is missing
 * and the checkout is there, the first `require` builds it (cargo's output
 * goes to standard error, never to the program's standard output).
 */
function loadAddon() {
  const fs = require('node:fs');
  const path = require('node:path');
  let addon = path.join(__dirname, 'hookc.node');
  const build = path.join(__dirname, 'scripts', 'build.js');
  if (!fs.existsSync(addon)) {
    const prebuilt = require('./platform.js').locate('hookc.node');
    if (!(prebuilt instanceof Error) && fs.existsSync(prebuilt)) {
      addon = prebuilt;
    } else if (!fs.existsSync(build)) {
      throw prebuilt instanceof Error ? prebuilt : new Error(`hookc: ${prebuilt} is missing`);
    } else {
      const { spawnSync } = require('node:child_process');
      process.stderr.write('hookc: building the native addon (first use of this checkout)\n');
      const run = spawnSync(process.execPath, [build], { stdio: ['ignore', 2, 2] });
      if (run.error || run.status !== 0 || !fs.existsSync(addon)) {
        throw new Error(
          `hookc: the native addon ${addon} is missing and could not be built: ` +
            `run \`node ${build}\` to see why (it needs cargo and the hookc checkout)`,
        );
      }
    }
  }
  try {
    return require(addon);
  } catch (e) {
    throw new Error(`hookc: the native addon ${addon} did not load: ${e && e.message}`);
  }
}

/** The base of every error hookc throws; `code` is stable. */
class HookcError extends Error {
  constructor(message, code) {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}

/** The policy sources have errors: `message` is the rendered diagnostics,
 * `diagnostics` their JSON (as `hookc check --format json` prints them). */
class CompileError extends HookcError {
  constructor(message, diagnostics) {
    super(message, 'HOOKC_COMPILE');
    this.diagnostics = diagnostics;
  }
}

/** Artifact bytes that do not load: damaged, of another format version, or
 * failing verification. */
class ArtifactError extends HookcError {}

/** A context that cannot be read: JSON text that is not JSON, a value with
 * no JSON form (NaN, a Date, ...), or a read that threw. */
class ContextError extends HookcError {}

/** An evaluation with no answer: the matched action's filled parameters do
 * not fit their types, or a hook failed under `on_error: fail`. */
class EvaluationError extends HookcError {}

const CLASSES = {
  HOOKC_ARTIFACT: ArtifactError,
  HOOKC_CONTEXT: ContextError,
  HOOKC_EVALUATION: EvaluationError,
};

/** The typed error of an error the addon threw (`CODE: message`). */
function typed(e) {
  const m = e instanceof Error ? /^(HOOKC_[A-Z]+|ENOENT): /.exec(e.message) : null;
  if (!m) return e;
  const [prefix, code] = m;
  const message = e.message.slice(prefix.length);
  if (code === 'HOOKC_TYPE') return new TypeError(message);
  if (code === 'ENOENT') {
    const err = new HookcError(message, 'ENOENT');
    err.errno = -2;
    return err;
  }
  const Class = CLASSES[code] || HookcError;
  return new Class(message, code);
}

function rethrow(e) {
  throw typed(e);
}

/** A compiled, verified hookc policy. Immutable: share it between calls
 * freely, and between worker threads with `share()` / `fromShared()`. */
// The questions of `native.ask` (src/fast.rs).
const EVALUATE = 0;
const DECIDE = 1;
const ALL = 2;
const EXPLAIN = 3;

class Policy {
  #native;
  #handle;
  #warnings;
  // The events hooks name, to their position in the addon's list (passed
  // with each call, so the addon need not read the event's string), and
  // whether a hook listens to every event: an object context of any other
  // event has no hook to run, so its answer is known without a native
  // call (the same test the addon makes).
  #heard;
  #everyEvent;
  // Per heard event, its flat plan made ready (flat.js), or null: `decide`
  // answers such an event in JavaScript.
  #plans = new Map();

  /** @private Policies come from `compile`, `compileSources`,
   * `Policy.fromArtifact` and `Policy.fromShared`. */
  constructor(handle, warnings) {
    if (!(handle instanceof native.NativePolicy)) {
      throw new TypeError('hookc.Policy is made by compile(), compileSources(), Policy.fromArtifact() or Policy.fromShared()');
    }
    this.#native = handle;
    this.#handle = handle.handle();
    this.#warnings = warnings;
    this.#heard = new Map(handle.events().map((name, i) => [name, i]));
    this.#everyEvent = handle.listensToEveryEvent();
  }

  /** Whether `context` is an object whose event no hook hears, asked
   * without options (whose hook ids must still be checked). */
  #unheard(event, context, options) {
    return (
      options === undefined &&
      typeof context === 'object' &&
      context !== null &&
      !this.#everyEvent &&
      !this.#heard.has(event) &&
      typeof event === 'string' &&
      !(context instanceof Uint8Array)
    );
  }

  #ask(question, event, context, options) {
    try {
      const index = typeof event === 'string' ? this.#heard.get(event) : undefined;
      return native.ask(this.#handle, question, event, context, options, index);
    } catch (e) {
      return rethrow(e);
    }
  }

  /** Loads artifact bytes (what `hookc compile` writes, or `toArtifact()`
   * returns), decoded and verified. */
  static fromArtifact(data) {
    if (!(data instanceof Uint8Array)) {
      throw new TypeError('an artifact is a Buffer or Uint8Array');
    }
    try {
      return new Policy(native.NativePolicy.fromArtifact(data), []);
    } catch (e) {
      return rethrow(e);
    }
  }

  /** The policy another thread shared with `policy.share()`. */
  static fromShared(token) {
    if (typeof token !== 'string') {
      throw new TypeError('fromShared takes the string policy.share() returned');
    }
    try {
      return new Policy(native.NativePolicy.fromShared(token), []);
    } catch (e) {
      return rethrow(e);
    }
  }

  /** A token another worker thread passes to `Policy.fromShared` to use
   * this same loaded policy (valid while a Policy object holds it). */
  share() {
    return this.#native.share();
  }

  /** The artifact bytes (deterministic). */
  toArtifact() {
    return this.#native.toArtifact();
  }

  /** Every hook id, in evaluation order. */
  get hookIds() {
    return this.#native.hookIds();
  }

  /** The event names hooks name. */
  get events() {
    return this.#native.events();
  }

  /** The compilation's warnings ([] for a loaded artifact). */
  get warnings() {
    return this.#warnings.slice();
  }

  /** What `hookc eval` prints: null, `{hook, action}`, or with collected
   * matches and the decision model's parts. */
  evaluate(event, context, options) {
    if (this.#unheard(event, context, options)) return null;
    return this.#ask(EVALUATE, event, context, options);
  }

  /** The deciding hook's id, or null: builds no action. */
  decide(event, context, options) {
    if (this.#unheard(event, context, options)) return null;
    if (
      options === undefined &&
      typeof context === 'object' &&
      context !== null &&
      this.#heard.has(event) &&
      !Array.isArray(context) &&
      !(context instanceof Uint8Array)
    ) {
      const plan = this.#flatPlan(event);
      if (plan !== null) {
        const id = flat.decide(plan, context);
        if (id !== flat.BAIL) return id;
      }
    }
    return this.#ask(DECIDE, event, context, options);
  }

  /** The flat plan of a heard event, made once (null: none). */
  #flatPlan(event) {
    let plan = this.#plans.get(event);
    if (plan === undefined) {
      const text = this.#native.flatPlan(event);
      plan = text === null || text === undefined ? null : flat.prepare(JSON.parse(text));
      this.#plans.set(event, plan);
    }
    return plan;
  }

  /** Every match in evaluation order: what `hookc eval --all` prints. */
  evaluateAll(event, context, options) {
    if (this.#unheard(event, context, options)) return [];
    return this.#ask(ALL, event, context, options);
  }

  /** What happened to every hook and why: `hookc eval --explain --format json`. */
  explain(event, context, options) {
    return this.#ask(EXPLAIN, event, context, options);
  }

  /**
   * The answer of `host` ('claude-code', 'codex', 'gemini-cli', 'cursor',
   * 'copilot') to one hook payload (an object, JSON text or its bytes):
   * exactly what `hookc hook --host HOST` writes and exits with, as
   * `{stdout, stderr, exitCode, output}` (`output`: `stdout` parsed, or
   * null). Options: `event` (for hosts whose payloads do not name it:
   * Copilot's `preToolUse`), `failOpen`, `log` (a file to append the
   * decision to, as `--log`).
   */
  hook(host, payload, options) {
    if (typeof host !== 'string') {
      throw new TypeError("the host is a string: 'claude-code', 'codex', 'gemini-cli', 'cursor' or 'copilot'");
    }
    const { event, failOpen, log } = hookOptions(options);
    const text = typeof payload === 'string' || payload instanceof Uint8Array ? payload : payloadText(payload);
    let reply;
    try {
      reply = this.#native.hook(host, text, event, failOpen, log);
    } catch (e) {
      return rethrow(e);
    }
    return {
      stdout: reply.stdout,
      stderr: reply.stderr,
      exitCode: reply.exitCode,
      output: reply.stdout === '' ? null : JSON.parse(reply.stdout),
    };
  }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    return `Policy <${this.#native.describe()}>`;
  }
}

const HOOK_OPTIONS = ['event', 'failOpen', 'log'];

/** The options of `hook`, checked. */
function hookOptions(options) {
  if (options === undefined || options === null) return { event: null, failOpen: false, log: null };
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError('the options of hook are an object: {event, failOpen, log}');
  }
  for (const key of Object.keys(options)) {
    if (!HOOK_OPTIONS.includes(key)) {
      throw new TypeError(`unknown option \`${key}\` of hook (the options are ${HOOK_OPTIONS.join(', ')})`);
    }
  }
  const { event = null, failOpen = false, log = null } = options;
  if (event !== null && typeof event !== 'string') throw new TypeError('`event` is an event name (a string)');
  if (typeof failOpen !== 'boolean') throw new TypeError('`failOpen` is a boolean');
  if (log !== null && typeof log !== 'string') throw new TypeError('`log` is a file path (a string)');
  return { event, failOpen, log };
}

/** A hook payload object as the JSON text a host would send. */
function payloadText(payload) {
  if (payload === null || typeof payload !== 'object') {
    throw new TypeError('a hook payload is an object, JSON text (a string) or its bytes (a Buffer or Uint8Array)');
  }
  try {
    return JSON.stringify(payload);
  } catch (e) {
    throw new ContextError(`the hook payload has no JSON text: ${e && e.message}`, 'HOOKC_CONTEXT');
  }
}

/** The policy of a compilation, its warnings emitted unless `quiet`. */
function finish(compiled, options) {
  if (compiled.failed) {
    throw new CompileError(compiled.text, compiled.diagnostics);
  }
  const warnings = compiled.diagnostics;
  if (warnings.length > 0 && !(options && options.quiet)) {
    process.emitWarning(compiled.text, { type: 'PolicyWarning', code: warnings[0].code });
  }
  return new Policy(compiled.policy(), warnings);
}

function pathList(value, what) {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length === 0 || !list.every((p) => typeof p === 'string')) {
    throw new TypeError(`${what} takes file paths: a string or an array of strings`);
  }
  return list;
}

/**
 * Compiles policy files (YAML hook files, directive XML) in source order:
 * `compile('hooks.yaml')`, `compile(['a.yaml', 'b.xml'])`; or by layer,
 * lowest first: `compile({layers: {base: 'base.yaml', team: ['team.yaml']}})`.
 * Throws `CompileError` for errors; warnings are emitted as `PolicyWarning`s
 * unless `{quiet: true}`, and kept in `policy.warnings`.
 */
function compile(paths, options) {
  if (paths !== null && typeof paths === 'object' && !Array.isArray(paths)) {
    options = paths;
    const layers = options.layers;
    if (layers === null || typeof layers !== 'object' || Array.isArray(layers)) {
      throw new TypeError('compile takes file paths, or {layers: {name: paths}}');
    }
    const entries = Object.entries(layers).map(([name, files]) => [name, pathList(files, `layer \`${name}\``)]);
    try {
      return finish(native.compileLayers(entries), options);
    } catch (e) {
      return rethrow(e);
    }
  }
  const list = pathList(paths, 'compile');
  try {
    return finish(native.compilePaths(list), options);
  } catch (e) {
    return rethrow(e);
  }
}

/**
 * Compiles policy sources given as text, `{name: text}` in source order
 * (the names are what diagnostics and default hook ids use; the format is
 * detected from the name and text, as for files).
 */
function compileSources(sources, options) {
  if (sources === null || typeof sources !== 'object' || Array.isArray(sources)) {
    throw new TypeError('compileSources takes {name: text}: {"hooks.yaml": "hooks: ..."}');
  }
  const entries = Object.entries(sources);
  for (const [name, text] of entries) {
    if (typeof text !== 'string') {
      throw new TypeError(`the source \`${name}\` must be a string of policy text`);
    }
  }
  try {
    return finish(native.compileSources(entries), options);
  } catch (e) {
    return rethrow(e);
  }
}

module.exports = {
  compile,
  compileSources,
  Policy,
  HookcError,
  CompileError,
  ArtifactError,
  ContextError,
  EvaluationError,
  version: require('./package.json').version,
};
