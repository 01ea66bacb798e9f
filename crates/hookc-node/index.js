// The hookc Node package: compile agent-hook policies and decide hook
// events in-process. This file is the API (index.d.ts is its reference):
// thin JavaScript over the native addon `hookc.node` (src/, built by
// scripts/build.js), which answers exactly what the `hookc` command prints
// through the binding layer the CLI and the Python package share.
//
// What lives here rather than in the addon: the error classes (the addon
// throws errors whose message starts with a stable code, turned into a
// class by `rethrow` only when one is thrown), warnings
// (`process.emitWarning`), and the argument shapes of `compile`.
'use strict';


let native;
try {
  native = require('./hookc.node');
} catch (e) {
  const hint =
    e && e.code === 'MODULE_NOT_FOUND'
      ? 'the native addon was not built: run `node scripts/build.js` in ' + __dirname
      : `the native addon did not load (${e && e.message})`;
  throw new Error(`hookc: ${hint}`);
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
class Policy {
  #native;
  #warnings;

  /** @private Policies come from `compile`, `compileSources`,
   * `Policy.fromArtifact` and `Policy.fromShared`. */
  constructor(handle, warnings) {
    if (!(handle instanceof native.NativePolicy)) {
      throw new TypeError('hookc.Policy is made by compile(), compileSources(), Policy.fromArtifact() or Policy.fromShared()');
    }
    this.#native = handle;
    this.#warnings = warnings;
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
    try {
      return this.#native.evaluate(event, context, options);
    } catch (e) {
      return rethrow(e);
    }
  }

  /** The deciding hook's id, or null: builds no action. */
  decide(event, context, options) {
    try {
      return this.#native.decide(event, context, options);
    } catch (e) {
      return rethrow(e);
    }
  }

  /** Every match in evaluation order: what `hookc eval --all` prints. */
  evaluateAll(event, context, options) {
    try {
      return this.#native.evaluateAll(event, context, options);
    } catch (e) {
      return rethrow(e);
    }
  }

  /** What happened to every hook and why: `hookc eval --explain --format json`. */
  explain(event, context, options) {
    try {
      return this.#native.explain(event, context, options);
    } catch (e) {
      return rethrow(e);
    }
  }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    return `Policy <${this.#native.describe()}>`;
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
