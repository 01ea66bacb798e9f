/**
 * Benchmark: hookc from Node (from an object, from JSON text) against seed
 * 000's evaluator ported to plain JavaScript (seed000.js), on the seed set and
 * on 1,000 hooks, plus the call overhead. Prints a Markdown table with the
 * targets' verdicts. The Node counterpart of
 * crates/hookc-python/bench/bench_eval.py, with the same inputs.
 *
 *     node crates/hookc-node/bench/bench.js [--quick] [--hookc PATH]
 *
 * Every evaluator is first checked to pick the same hook on every context;
 * then each call is timed in batches whose loop count is calibrated so that
 * one batch takes at least 50 ms (5 ms with --quick), best of 5 batches (3),
 * per call. Every timed call's result is used: the calls that found a hook
 * are counted, which keeps V8 from dropping them, and the count must say
 * that each call found one, or none, as the checked call did. The
 * JavaScript evaluator runs the policy's own hooks, as `hookc compile --emit
 * json` prints them, in hookc's evaluation order. `--hookc` is that binary
 * (default: the cargo target dir's release build, else its debug build).
 *
 * Beside evaluating from an object (read lazily, at the paths the policy
 * reads), it times evaluating from `JSON.stringify(ctx)` made inside the timed
 * call, the alternative of handing the addon JSON text, and from JSON text
 * made beforehand. The call overhead is timed for an event no hook hears
 * (the target's measure, which the package may answer without entering the
 * addon) and, for comparison, for an event hooks hear with `{}`, where
 * nothing matches. Exit status 0 whether targets are met or missed (they are
 * reported); 1 when the evaluators disagree.
 */

'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const hookc = require('..');
const { evaluateHooks } = require('./seed000.js');

const ROOT = path.resolve(__dirname, '..', '..', '..');
const SEED = path.join(ROOT, 'crates', 'hookc', 'benches', 'data', 'seed');
// As given to `hookc compile`, relative to ROOT: the id-less hooks are named by it.
const POLICY_PATH = 'crates/hookc/benches/data/seed/policy.yaml';

/** The evaluators did not decide alike: the results mean nothing. */
class Disagreement extends Error {}

function parseArgs(argv) {
  const args = { quick: false, hookc: null };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--quick') args.quick = true;
    else if (argv[i] === '--hookc' && i + 1 < argv.length) args.hookc = argv[++i];
    else {
      console.error('usage: node crates/hookc-node/bench/bench.js [--quick] [--hookc PATH]');
      process.exit(2);
    }
  }
  return args;
}

/**
 * A command as given: a path is resolved against the current directory, as
 * hookc runs in ROOT; a bare name is left for the PATH lookup.
 */
function commandPath(cmd) {
  return cmd.includes(path.sep) ? path.resolve(cmd) : cmd;
}

function defaultHookcBin() {
  const target = process.env.CARGO_TARGET_DIR || path.join(ROOT, 'target');
  for (const profile of ['release', 'debug']) {
    const exe = path.join(target, profile, 'hookc');
    if (fs.existsSync(exe)) return exe;
  }
  throw new Error(`no hookc binary under ${target}: run \`cargo build -p hookc-cli\` or pass --hookc`);
}

// ---- inputs ----------------------------------------------------------------

/** The seed policy's hooks as `hookc compile --emit json` prints them, in hookc's order. */
function seedHooks(hookcBin) {
  const out = spawnSync(hookcBin, ['compile', '--emit', 'json', POLICY_PATH], {
    cwd: ROOT, encoding: 'utf8',
  });
  if (out.error) throw out.error;
  if (out.status !== 0) throw new Error(`hookc compile --emit json failed:\n${out.stderr}`);
  const doc = JSON.parse(out.stdout);
  // hookc's evaluation order at equal priority: the directive layer
  // (`hooks`), then `builtin_hooks`.
  return [...(doc.hooks ?? []), ...(doc.builtin_hooks ?? [])];
}

/**
 * n hooks on one event, each `classification.category == cat_i`, with every
 * 7th a membership test and every 5th a two-part `all`; as seed 000 YAML
 * (written as JSON, which YAML reads) and as the hook list. As `scale_policy`
 * of the Python bench.
 */
function scalePolicy(n) {
  const hooks = [];
  for (let i = 0; i < n; i++) {
    const eq = { path: 'classification.category', op: 'eq', value: `cat_${i}` };
    let cond;
    if (i % 7 === 3) {
      cond = { path: 'classification.category', op: 'in', value: [`cat_${i}`, `alias_${i}`] };
    } else if (i % 5 === 1) {
      cond = { all: [{ path: 'cost.spend', op: 'gte', value: 0 }, eq] };
    } else {
      cond = eq;
    }
    hooks.push({
      id: `h${i}`, event: 'error', priority: 0,
      condition: cond, action: { type: 'retry', max_attempts: 3 },
    });
  }
  const text = JSON.stringify({ hooks });
  const policy = hookc.compileSources({ 'scale.yaml': text }, { quiet: true });
  return { policy, hooks };
}

// ---- timing ----------------------------------------------------------------

/** Runs `fn` n times; the elapsed nanoseconds and how many calls returned non-null. */
function batch(fn, n) {
  let hits = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) if (fn() !== null) hits++;
  const t1 = process.hrtime.bigint();
  return { ns: Number(t1 - t0), hits };
}

/**
 * Nanoseconds per call of `fn`: the best of the batches, each of a loop count
 * that takes at least `minNs`. Every call must return non-null iff `hit`.
 */
function perCallNs(label, fn, hit, opts) {
  const check = (b, n) => {
    if (b.hits !== (hit ? n : 0)) {
      throw new Disagreement(`${label}: ${b.hits} of ${n} timed calls matched, expected ${hit ? n : 0}`);
    }
  };
  // Calibrate: grow the loop count until one batch takes minNs, at most 10×
  // a step, as the first (cold) batches misjudge the rate.
  let n = 1;
  for (;;) {
    const b = batch(fn, n);
    check(b, n);
    if (b.ns >= opts.minNs) break;
    n = Math.min(n * 10, Math.max(n * 2, Math.ceil((n * opts.minNs * 1.2) / Math.max(b.ns, 1))));
  }
  // Time; if the warmed-up code got faster than the calibration said, so that
  // the best batch is under minNs, lengthen the batches and time again.
  for (;;) {
    let best = Infinity;
    for (let r = 0; r < opts.repeats; r++) {
      const b = batch(fn, n);
      check(b, n);
      best = Math.min(best, b.ns);
    }
    if (best >= opts.minNs) return best / n;
    n = Math.ceil((n * opts.minNs * 1.2) / best);
  }
}

function fmt(ns) {
  return ns >= 1000 ? `${(ns / 1000).toFixed(2)} µs` : `${ns.toFixed(0)} ns`;
}

/**
 * One case: checks that the JavaScript evaluator and hookc (decide and
 * evaluate, from the object and from JSON text) pick the same hook, then
 * times each way of calling.
 */
function row(label, event, ctx, policy, hooks, opts) {
  const text = JSON.stringify(ctx);
  const idOf = new Map(hooks.map((h) => [h.action, h.id]));
  const action = evaluateHooks(event, ctx, hooks);
  const want = action === null ? null : idOf.get(action);
  const hookOf = (evaluation) => (evaluation === null ? null : evaluation.hook);
  const got = {
    'decide, object': policy.decide(event, ctx),
    'decide, JSON text': policy.decide(event, text),
    'evaluate, object': hookOf(policy.evaluate(event, ctx)),
    'evaluate, JSON text': hookOf(policy.evaluate(event, text)),
  };
  for (const [how, id] of Object.entries(got)) {
    if (id !== want) {
      throw new Disagreement(`${label}: hookc ${how} picks ${id}, the seed evaluator ${want}`);
    }
  }
  const hit = want !== null;
  const time = (what, fn) => perCallNs(`${label}, ${what}`, fn, hit, opts);
  return {
    label,
    hook: want,
    js: time('seed 000 JS', () => evaluateHooks(event, ctx, hooks)),
    object: time('evaluate, object', () => policy.evaluate(event, ctx)),
    stringify: time('evaluate, stringify + text', () => policy.evaluate(event, JSON.stringify(ctx))),
    text: time('evaluate, JSON text', () => policy.evaluate(event, text)),
    decide: time('decide, object', () => policy.decide(event, ctx)),
  };
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  // Taken before the bench adds its own: on a shared machine, the other load
  // says how far to trust the absolute times (the ratios compare evaluators
  // timed in the same run).
  const load = os.loadavg()[0];
  const opts = { minNs: args.quick ? 5e6 : 50e6, repeats: args.quick ? 3 : 5 };
  const hookcBin = args.hookc === null ? defaultHookcBin() : commandPath(args.hookc);

  const seedPolicy = hookc.compile([path.join(ROOT, POLICY_PATH)], { quiet: true });
  // Hooks without an id are named by the policy path as given: the package
  // was given it absolute, `hookc compile` relative to ROOT.
  const hooks = seedHooks(hookcBin).map((h) => (h.id.includes('#') ? { ...h, id: path.join(ROOT, h.id) } : h));
  const ids = hooks.map((h) => h.id);
  if (JSON.stringify(ids) !== JSON.stringify(seedPolicy.hookIds)) {
    throw new Disagreement(
      `the seed hooks differ: hookc compile --emit json has ${JSON.stringify(ids)}, `
      + `the package ${JSON.stringify(seedPolicy.hookIds)}`,
    );
  }

  const rows = [];
  const contexts = path.join(SEED, 'contexts');
  for (const file of fs.readdirSync(contexts).filter((f) => f.endsWith('.json')).sort()) {
    const doc = JSON.parse(fs.readFileSync(path.join(contexts, file), 'utf8'));
    const name = `seed/${path.basename(file, '.json')}`;
    rows.push(row(name, doc.event, doc.context, seedPolicy, hooks, opts));
  }
  const scale = scalePolicy(1000);
  const last = { classification: { category: 'cat_999' }, cost: { spend: 1.0 } };
  const none = { classification: { category: 'other' }, cost: { spend: 1.0 } };
  for (const [label, ctx] of [['1000/last', last], ['1000/none', none]]) {
    rows.push(row(label, 'error', ctx, scale.policy, scale.hooks, opts));
  }
  const empty = {};
  const overhead = perCallNs('overhead, evaluate', () => seedPolicy.evaluate('no_such_event', empty), false, opts);
  const overheadDecide = perCallNs('overhead, decide', () => seedPolicy.decide('no_such_event', empty), false, opts);
  // The package may answer an event no hook hears without entering the
  // addon; an event hooks hear, with nothing in the context to match, is the
  // cost of a call that does.
  if (evaluateHooks('error', empty, hooks) !== null) {
    throw new Disagreement('the seed evaluator finds a hook for `error` in `{}`');
  }
  const heard = perCallNs('heard, evaluate', () => seedPolicy.evaluate('error', empty), false, opts);
  const heardDecide = perCallNs('heard, decide', () => seedPolicy.decide('error', empty), false, opts);

  const cpus = os.cpus();
  console.log(`machine: ${cpus.length ? cpus[0].model.trim() : os.arch()}, ${cpus.length} cores, `
    + `Node ${process.version}, hookc ${hookc.version}; load average ${load.toFixed(1)} at the start`);
  console.log();
  console.log('| case | hook | seed 000 JS | hookc evaluate, object | hookc evaluate, stringify + text '
    + '| hookc evaluate, JSON text | hookc decide, object | speed-up evaluate / decide, object |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const short = r.hook === null ? 'none' : r.hook.split('/').pop();
    console.log(`| ${r.label} | ${short} | ${fmt(r.js)} | ${fmt(r.object)} | ${fmt(r.stringify)} `
      + `| ${fmt(r.text)} | ${fmt(r.decide)} | ${(r.js / r.object).toFixed(1)}× / ${(r.js / r.decide).toFixed(1)}× |`);
  }
  const lowest = (prefix, of) => Math.min(...rows.filter((r) => r.label.startsWith(prefix)).map(of));
  const seedMin = lowest('seed/', (r) => r.js / r.object);
  const seedMinDecide = lowest('seed/', (r) => r.js / r.decide);
  const scaleMin = lowest('1000/', (r) => r.js / r.object);
  const scaleMinDecide = lowest('1000/', (r) => r.js / r.decide);
  console.log();
  console.log(`call overhead (an event with no hooks, \`{}\`): evaluate ${fmt(overhead)}, decide ${fmt(overheadDecide)}; `
    + `an event hooks hear (\`error\`, \`{}\`, nothing matches): evaluate ${fmt(heard)}, decide ${fmt(heardDecide)}`);
  console.log();
  const ok = (b) => (b ? 'met' : 'MISSED');
  console.log(`- ≥ 10× the JavaScript evaluator on every seed context, from an object: `
    + `${ok(seedMin >= 10)} with evaluate (lowest ${seedMin.toFixed(1)}×), `
    + `${ok(seedMinDecide >= 10)} with decide (lowest ${seedMinDecide.toFixed(1)}×)`);
  console.log(`- ≥ 100× at 1,000 hooks (last hook and no match), from an object: `
    + `${ok(scaleMin >= 100)} with evaluate (lowest ${scaleMin.toFixed(0)}×), `
    + `${ok(scaleMinDecide >= 100)} with decide (lowest ${scaleMinDecide.toFixed(0)}×)`);
  console.log(`- call overhead ≤ 300 ns: ${ok(overhead <= 300)} with evaluate (${fmt(overhead)}), `
    + `${ok(overheadDecide <= 300)} with decide (${fmt(overheadDecide)})`);
  console.log('- faster context path for evaluate, object or `JSON.stringify` + text, per case:');
  for (const r of rows) {
    const [faster, ratio] = r.object <= r.stringify
      ? ['object', r.stringify / r.object]
      : ['stringify + text', r.object / r.stringify];
    console.log(`  - ${r.label}: ${faster}, ${ratio.toFixed(1)}× (object ${fmt(r.object)}, `
      + `stringify + text ${fmt(r.stringify)})`);
  }
}

try {
  main();
} catch (err) {
  if (!(err instanceof Disagreement)) throw err;
  console.error(`results disagree: ${err.message}`);
  process.exitCode = 1;
}
