// `decide` in JavaScript (flat.js) against the addon's, on random policies
// whose hooks are flat conjunctions or not (regex leaves, short lists,
// `||`), terminal or collected, and on random contexts full of values the
// addon reads in its own way or refuses (NaN, BigInt, a Date, undefined,
// a getter, surrogates, numbers past 2^53). `decide(event, ctx, {})` asks
// the addon (options skip the JavaScript path); `decide(event, ctx)`
// takes it where the event has a plan. Both must give the same id, or
// throw the same error class.
'use strict';

const assert = require('node:assert/strict');
const test = require('node:test');
const hookc = require('..');
const flatModule = require('../flat.js');

/** How often the JavaScript path answered, and how often it asked the addon. */
const taken = { answered: 0, bailed: 0 };
const original = flatModule.decide;
flatModule.decide = (plan, context) => {
  const r = original(plan, context);
  if (r === flatModule.BAIL) taken.bailed++;
  else taken.answered++;
  return r;
};

/** A small deterministic generator (xorshift). */
function rng(seed) {
  let s = seed >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
  return {
    below: (n) => next() % n,
    pick: (xs) => xs[next() % xs.length],
  };
}

const PATHS = ['x', 'a.b', 'a.c[0]', 'a.c[1]', 'n'];
const STRINGS = ["'p'", "'q'", "''", "'é'"];
const NUMBERS = ['0', '1', '2.5', '-3', '1e3'];

function leaf(g) {
  const p = g.pick(PATHS);
  switch (g.below(9)) {
    case 0:
      return `${p} == ${g.pick(STRINGS)}`;
    case 1:
      return `${p} != ${g.pick([...STRINGS, ...NUMBERS, 'true', 'null'])}`;
    case 2:
      return `${p} ${g.pick(['<', '<=', '>', '>='])} ${g.pick(NUMBERS)}`;
    case 3:
      return `has(${p})`;
    case 4:
      // A list of eight or more: a set, which the plan reads.
      return `${p} in ['p', 'q', 'r', 's', 't', 'u', 'v', 'w', 1, 2.5]`;
    case 5:
      // A short list: no leaf, so no plan for its event.
      return `${p} in ['p', 1]`;
    case 6:
      return `${p}.matches('^p')`;
    case 7:
      return `${p} == ${g.pick(['true', 'false', 'null'])}`;
    default:
      return `${p} == ${g.pick(NUMBERS)}`;
  }
}

function policy(g) {
  let text = 'action_types:\n  observe: {effect: collected, parameters: {}}\nhooks:\n';
  const n = 1 + g.below(6);
  for (let h = 0; h < n; h++) {
    const leaves = Array.from({ length: g.below(4) }, () => leaf(g));
    const when = leaves.length === 0 ? '' : `    when: "${leaves.join(g.below(8) === 0 ? ' || ' : ' && ')}"\n`;
    const action = g.below(4) === 0 ? 'observe' : 'abort';
    text += `  - id: h${h}\n    event: ${g.pick(['e', 'e', 'f'])}\n${when}    action: {type: ${action}}\n`;
  }
  return text;
}

/** A value for a context member: plain ones, and the odd ones. */
function value(g, depth) {
  const plain = ['p', 'q', '', 'é', 0, 1, 2.5, -3, 1000, -0, true, false, null];
  const odd = [
    NaN,
    Infinity,
    2 ** 60,
    5n,
    undefined,
    () => 1,
    Symbol('s'),
    new Date(0),
    new String('p'),
    { toJSON: () => 'p' },
    '\uD800',
    'a\uD83D\uDE00',
  ];
  switch (g.below(depth > 1 ? 2 : 8)) {
    case 0:
    case 1:
      return g.below(5) === 0 ? g.pick(odd) : g.pick(plain);
    case 2:
    case 3: {
      const o = {};
      if (g.below(3)) o.b = value(g, depth + 1);
      if (g.below(3)) o.c = Array.from({ length: g.below(3) }, () => value(g, depth + 1));
      if (g.below(6) === 0) {
        Object.defineProperty(o, 'b', { get: () => 'p', enumerable: true, configurable: true });
      }
      if (g.below(12) === 0) {
        Object.defineProperty(o, 'b', {
          get: () => {
            throw new Error('down');
          },
          enumerable: true,
        });
      }
      return o;
    }
    case 4:
      return [value(g, depth + 1)];
    case 5:
      return { b: { nested: g.pick([NaN, 1, 'p']) } };
    default:
      return g.pick(plain);
  }
}

function context(g) {
  const ctx = {};
  for (const k of ['x', 'a', 'n']) {
    if (g.below(4)) ctx[k] = value(g, 0);
  }
  return ctx;
}

function outcome(f) {
  try {
    return { id: f() };
  } catch (e) {
    return { error: e.constructor.name };
  }
}

test('decide in JavaScript answers as the addon on random policies and contexts', () => {
  const g = rng(0x5eed1234);
  let compared = 0;
  for (let c = 0; c < 300; c++) {
    const text = policy(g);
    const p = hookc.compileSources({ 'p.yaml': text }, { quiet: true });
    for (let k = 0; k < 40; k++) {
      const ctx = context(g);
      const event = g.pick(['e', 'f']);
      const addon = outcome(() => p.decide(event, ctx, {}));
      const here = outcome(() => p.decide(event, ctx));
      if (JSON.stringify(here) !== JSON.stringify(addon)) {
        let shown;
        try {
          shown = JSON.stringify(ctx, (_, v) => (typeof v === 'bigint' ? `${v}n` : v));
        } catch (e) {
          shown = `(not printable: ${e.message})`;
        }
        assert.deepEqual(here, addon, `policy:\n${text}\nevent ${event}, context ${shown}`);
      }
      compared++;
    }
  }
  assert.equal(compared, 12000);
  // Both ways were taken, many times: answered here, and handed to the addon.
  assert.ok(taken.answered > 2000, `answered in JavaScript ${taken.answered} times`);
  assert.ok(taken.bailed > 200, `handed to the addon ${taken.bailed} times`);
});
