/**
 * The JavaScript port of seed 000's evaluator (bench/seed000.js), which the
 * Node benchmark measures hookc against, decides as the `hookc` command does
 * on every seed bench context, and keeps the Python semantics it claims where
 * JavaScript's own operators differ. Needs only the `hookc` binary, not the
 * native addon:
 *
 *     node --test crates/hookc-node/test/seed_port.test.js
 *
 * The binary is $HOOKC_BIN, else the cargo target dir's ($CARGO_TARGET_DIR,
 * default `<repo>/target`) debug build, else its release build.
 */

'use strict';

const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const test = require('node:test');

const { evaluateHooks, matchesCondition, resolvePath, applyOperator } = require('../bench/seed000.js');

const ROOT = path.resolve(__dirname, '..', '..', '..');
// Relative to ROOT, so hookc names the id-less hooks the same in `compile` and `eval`.
const SEED_POLICY = 'crates/hookc/benches/data/seed/policy.yaml';
const SEED_CONTEXTS = path.join(ROOT, 'crates', 'hookc', 'benches', 'data', 'seed', 'contexts');

function hookcBin() {
  // A path is resolved against the current directory, as hookc runs in ROOT;
  // a bare name is left for the PATH lookup.
  const env = process.env.HOOKC_BIN;
  if (env) return env.includes(path.sep) ? path.resolve(env) : env;
  const target = process.env.CARGO_TARGET_DIR || path.join(ROOT, 'target');
  for (const profile of ['debug', 'release']) {
    const exe = path.join(target, profile, 'hookc');
    if (fs.existsSync(exe)) return exe;
  }
  throw new Error(`no hookc binary under ${target}: run \`cargo build -p hookc-cli\` or set HOOKC_BIN`);
}

/** Runs `hookc ARGS...` in the repository root; its standard output (exit 0 required). */
function hookc(args, input) {
  const out = spawnSync(hookcBin(), args, { cwd: ROOT, input, encoding: 'utf8' });
  if (out.error) throw out.error;
  assert.equal(out.status, 0, out.stderr);
  return out.stdout;
}

/** The hook ids, in the order they are listed, of `hooks` whose `not skip.ID` holds. */
function order(hooks) {
  const skip = {};
  const picked = [];
  for (;;) {
    const action = evaluateHooks('e', { skip }, hooks);
    if (action === null) return picked;
    picked.push(action.id);
    skip[action.id] = true;
  }
}

/** A hook on event `e` with action `{id}` that holds unless `skip.ID` exists. */
function skippable(id, priority) {
  const hook = {
    event: 'e',
    condition: { not: { path: `skip.${id}`, op: 'exists' } },
    action: { id },
  };
  return priority === undefined ? hook : { ...hook, priority };
}

test('the port picks the hook hookc eval picks, on every seed context', () => {
  const doc = JSON.parse(hookc(['compile', '--emit', 'json', SEED_POLICY]));
  // hookc's evaluation order at equal priority: `hooks`, then `builtin_hooks`.
  const hooks = [...(doc.hooks ?? []), ...(doc.builtin_hooks ?? [])];
  const idOf = new Map(hooks.map((h) => [h.action, h.id]));
  const files = fs.readdirSync(SEED_CONTEXTS).filter((f) => f.endsWith('.json')).sort();
  assert.ok(files.length > 0, `no contexts in ${SEED_CONTEXTS}`);
  const picks = [];
  for (const file of files) {
    const { event, context } = JSON.parse(fs.readFileSync(path.join(SEED_CONTEXTS, file), 'utf8'));
    const out = JSON.parse(hookc(
      ['eval', '--event', event, '--context', '-', SEED_POLICY],
      JSON.stringify(context),
    ));
    const want = out === null ? null : out.hook;
    const action = evaluateHooks(event, context, hooks);
    const got = action === null ? null : idOf.get(action);
    assert.equal(got, want, `${file}: the port picks ${got}, hookc ${want}`);
    picks.push(got);
  }
  // The seed set has both outcomes, so agreeing is not agreeing on null.
  assert.ok(picks.some((p) => p === null) && picks.some((p) => p !== null));
});

test('str() is Python\'s for contains, starts_with and ends_with', () => {
  assert.equal(applyOperator(null, 'contains', 'None'), true);
  assert.equal(applyOperator(null, 'contains', 'null'), false);
  assert.equal(applyOperator(true, 'starts_with', 'Tr'), true);
  assert.equal(applyOperator(false, 'ends_with', 'lse'), true);
  assert.equal(applyOperator(1e-5, 'contains', '1e-05'), true);
  assert.equal(applyOperator(0.1 + 0.2, 'contains', '0.30000000000000004'), true);
  assert.equal(applyOperator(12.5, 'contains', '12.5'), true);
  assert.equal(applyOperator(3, 'contains', '3.0'), false); // an integral number is an int
  assert.equal(
    applyOperator({ a: [1, null, true, "it's"], b: { c: 'x\ny' } }, 'contains',
      `{'a': [1, None, True, "it's"], 'b': {'c': 'x\\ny'}}`),
    true,
  );
  assert.equal(applyOperator(['\u00a0'], 'contains', "['\\xa0']"), true);
  // The expected value must be a str (Python raises TypeError: no match).
  assert.equal(applyOperator('None', 'contains', null), false);
  assert.equal(applyOperator('abc', 'starts_with', ['a']), false);
});

test('ordering: numbers and booleans by value, strings by code point, else no match', () => {
  assert.equal(applyOperator('b', 'gt', 1), false); // str > int: TypeError
  assert.equal(applyOperator(1, 'lt', 'b'), false);
  assert.equal(applyOperator('10', 'gte', 5), false);
  assert.equal(applyOperator(null, 'gt', 0.8), false); // None > 0.8: TypeError
  assert.equal(applyOperator(null, 'lte', 0.8), false);
  assert.equal(applyOperator('10', 'gt', '9'), false); // strings compare as strings
  assert.equal(applyOperator(10, 'gt', 9), true);
  assert.equal(applyOperator(0.8, 'gt', 0.8), false);
  assert.equal(applyOperator(0.8, 'gte', 0.8), true);
  assert.equal(applyOperator(0.8, 'lt', 0.8), false);
  assert.equal(applyOperator(0.8, 'lte', 0.8), true);
  assert.equal(applyOperator(true, 'gt', 0.5), true);
  assert.equal(applyOperator(false, 'lt', 1), true);
  assert.equal(applyOperator('\u{1F600}', 'gt', '\uffff'), true); // code points, not UTF-16 units
  assert.equal(applyOperator([1, 2], 'lt', [1, 3]), true);
  assert.equal(applyOperator([1, 2], 'lt', [1, 2, 0]), true);
  assert.equal(applyOperator([1, 'a'], 'lt', [1, 2]), false); // decided by 'a' < 2: TypeError
  assert.equal(applyOperator({}, 'lte', {}), false); // dicts do not order
});

test('eq, ne and in are Python ==: True == 1, deep, no cross-kind equality', () => {
  assert.equal(applyOperator(true, 'eq', 1), true);
  assert.equal(applyOperator(0, 'eq', false), true);
  assert.equal(applyOperator(true, 'ne', 1), false);
  assert.equal(applyOperator('1', 'eq', 1), false);
  assert.equal(applyOperator('a', 'eq', ['a']), false);
  assert.equal(applyOperator('a', 'ne', ['a']), true);
  assert.equal(applyOperator(null, 'eq', null), true);
  assert.equal(applyOperator({ a: [1, { b: true }] }, 'eq', { a: [1, { b: 1 }] }), true);
  assert.equal(applyOperator({ a: 1 }, 'eq', { a: 1, b: 2 }), false);
  assert.equal(applyOperator(1, 'in', [true]), true);
  assert.equal(applyOperator('a', 'in', ['a', 'b']), true);
  assert.equal(applyOperator(['a'], 'in', ['a']), false);
  assert.equal(applyOperator('bc', 'in', 'abc'), true); // a string: substring
  assert.equal(applyOperator(1, 'in', 'a1'), false); // int in str: TypeError
  assert.equal(applyOperator('k', 'in', { k: 0 }), true); // a dict: its keys
  assert.equal(applyOperator(['k'], 'in', { k: 0 }), false); // unhashable: TypeError
  assert.equal(applyOperator('a', 'in', null), false); // not iterable: TypeError
});

test('regex is re.search on str(actual), with Python syntax and errors', () => {
  assert.equal(applyOperator(null, 'regex', '^None$'), true);
  assert.equal(applyOperator('ab\n', 'regex', 'b$'), true); // $ before a final newline
  assert.equal(applyOperator('ab\nc', 'regex', 'b$'), false);
  assert.equal(applyOperator('a\rb', 'regex', 'a.b'), true); // Python's . matches \r
  assert.equal(applyOperator('aa', 'regex', '(?P<x>a)(?P=x)'), true);
  assert.equal(applyOperator('X', 'regex', '(?i)x'), true);
  assert.equal(applyOperator('a\nb\nc', 'regex', '(?m)^b$'), true);
  assert.equal(applyOperator('a\rb', 'regex', '(?m)^b'), false); // only \n ends a line
  assert.equal(applyOperator(']', 'regex', '[]]'), true);
  assert.equal(applyOperator('ab', 'regex', '\\Ab\\Z'), false);
  assert.equal(applyOperator('a', 'regex', null), false); // not a str: TypeError
  assert.throws(() => applyOperator('a', 'regex', '(')); // re.error escapes
});

test('errors other than TypeError escape, as in the listing', () => {
  assert.throws(() => applyOperator(1, 'no_such_op', 1), /KeyError/);
  assert.throws(() => matchesCondition({}, { op: 'exists' }), /KeyError/);
  assert.equal(applyOperator(1, ['eq'], 1), false); // unhashable op: TypeError
});

test('resolvePath reads dotted fields of nested objects, null when missing', () => {
  const ctx = { a: { b: { c: 0 }, n: null, list: [{ x: 1 }] } };
  assert.equal(resolvePath(ctx, 'a.b.c'), 0);
  assert.deepEqual(resolvePath(ctx, 'a.b'), { c: 0 });
  assert.equal(resolvePath(ctx, 'a.x'), null);
  assert.equal(resolvePath(ctx, 'a.n.y'), null);
  assert.equal(resolvePath(ctx, 'a.list.0'), null); // lists are not dicts
  assert.equal(applyOperator(resolvePath(ctx, 'a.n'), 'exists'), false);
});

test('combinators: all, any, not', () => {
  const t = { path: 'x', op: 'exists' };
  const f = { path: 'y', op: 'exists' };
  const ctx = { x: 1 };
  assert.equal(matchesCondition(ctx, { all: [t, t] }), true);
  assert.equal(matchesCondition(ctx, { all: [t, f] }), false);
  assert.equal(matchesCondition(ctx, { all: [] }), true);
  assert.equal(matchesCondition(ctx, { any: [f, t] }), true);
  assert.equal(matchesCondition(ctx, { any: [] }), false);
  assert.equal(matchesCondition(ctx, { not: f }), true);
});

test('hooks run by priority, descending and stable, on every call', () => {
  // As Python's sorted(hooks, key=lambda h: h.get('priority', 0), reverse=True):
  // absent is 0, True is 1, and equal priorities keep their given order.
  const hooks = [
    skippable('a', 1), skippable('b'), skippable('c', true),
    skippable('d', 2.5), skippable('e', 0), skippable('f', 1),
  ];
  assert.deepEqual(order(hooks), ['d', 'a', 'c', 'f', 'b', 'e']);
  assert.deepEqual(order([...hooks].reverse()), ['d', 'f', 'c', 'a', 'e', 'b']);
  // Only hooks of the event run; priorities that do not order are a TypeError, which escapes.
  assert.equal(evaluateHooks('other', {}, hooks), null);
  assert.throws(() => evaluateHooks('e', {}, [skippable('x', 'high'), skippable('y', 1)]));
});
