// A JavaScript object as a context is read lazily, path by path; these
// tests check that this reads exactly what the object's `JSON.stringify`
// text reads: a differential test on random policies and random contexts
// (seeded, so a failure replays), then targeted cases where the two could
// part (numbers, members JSON.stringify leaves out or turns into null,
// objects that are not plain), and that integer-valued numbers print as
// the CLI prints them.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { describe, test, before } = require('node:test');

const hookc = require('..');
const { cli, tempDir } = require('./helpers.js');

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = ['a', 'b', 'c', 'x'];
const STRINGS = ['a', 'ab', 'ba', 'b a', '', 'é', 'a\nb', '"q"', 'x'];
const NUMBERS = [0, 1, 2, 3, -1, -7, 1.5, -2.25, 0.1, 1e20, 1e21, 2 ** 40, -(2 ** 52), 2 ** 53, 2 ** 60, -(2 ** 63), 2 ** 64, 123456789, 5e-324, -0];

function pick(rng, list) {
  return list[Math.floor(rng() * list.length)];
}

/** A random JSON-ish value; `undefined`, functions and holes among array
 * elements and object members (JSON.stringify writes null for the first
 * and leaves the second out). */
function randomValue(rng, depth) {
  const r = rng();
  if (depth <= 0 || r < 0.45) {
    const s = rng();
    if (s < 0.35) return pick(rng, STRINGS);
    if (s < 0.7) return pick(rng, NUMBERS);
    if (s < 0.85) return rng() < 0.5;
    return null;
  }
  if (r < 0.7) {
    const n = Math.floor(rng() * 4);
    const out = [];
    for (let i = 0; i < n; i++) {
      const e = rng();
      if (e < 0.05) out.push(undefined);
      else if (e < 0.1) out.push(() => 1);
      else if (e < 0.15) out.length += 1; // a hole
      else out.push(randomValue(rng, depth - 1));
    }
    return out;
  }
  return randomObject(rng, depth - 1);
}

function randomObject(rng, depth) {
  const out = {};
  for (const k of KEYS) {
    const r = rng();
    if (r < 0.35) continue;
    if (r < 0.4) out[k] = undefined;
    else if (r < 0.45) out[k] = () => 1;
    else out[k] = randomValue(rng, depth);
  }
  return out;
}

function randomPath(rng) {
  let p = pick(rng, KEYS);
  const steps = Math.floor(rng() * 3);
  for (let i = 0; i < steps; i++) {
    p += rng() < 0.6 ? `.${pick(rng, KEYS)}` : `[${Math.floor(rng() * 3)}]`;
  }
  return p;
}

function literal(rng) {
  const v = pick(rng, [1, 2, 0, -1, 1.5, 0.1, 'a', 'ab', 'x', true, false, null]);
  return typeof v === 'string' ? `'${v}'` : String(v);
}

function randomCondition(rng) {
  const p = randomPath(rng);
  switch (Math.floor(rng() * 14)) {
    case 0:
      return `${p} == ${literal(rng)}`;
    case 1:
      return `${p} != ${literal(rng)}`;
    case 2:
      return `${p} < ${pick(rng, ['1', '2.5', '0', '-1'])}`;
    case 3:
      return `${p} >= 'a'`;
    case 4:
      return `${p} in [1, 'a', 2.5, true, null]`;
    case 5:
      return `'a' in ${p}`;
    case 6:
      return `${p}.startsWith('a')`;
    case 7:
      return `${p}.contains('b')`;
    case 8:
      return `${p}.matches('^a|x$')`;
    case 9:
      return `has(${p})`;
    case 10:
      return `!has(${p})`;
    case 11:
      return `size(${p}) > 1`;
    case 12:
      return `${p}.exists(e, e == 1 || e == 'a')`;
    default:
      return `${randomCondition(rng)} ${rng() < 0.5 ? '&&' : '||'} ${randomCondition(rng)}`;
  }
}

function randomPolicy(rng) {
  const hooks = [];
  const n = 1 + Math.floor(rng() * 6);
  for (let i = 0; i < n; i++) {
    const cond = randomCondition(rng).replace(/"/g, '\\"');
    const p = randomPath(rng);
    const when = rng() < 0.1 ? '' : `    when: "${cond}"\n`;
    hooks.push(
      `  - id: h${i}\n    event: ${rng() < 0.8 ? 'e' : '"*"'}\n${when}` +
        `    action: {type: emit_event, event_type: t, payload: {whole: "\${${p}}", text: "at ${p}: \${${p}}"}}\n`,
    );
  }
  return `hooks:\n${hooks.join('')}`;
}

/** What a question answers, or the error it throws, comparably. */
function outcome(fn) {
  try {
    return { value: fn() };
  } catch (e) {
    return { error: `${e.constructor.name}: ${e.message}` };
  }
}

function sameAnswers(policy, event, obj, label) {
  const text = JSON.stringify(obj);
  for (const ask of ['evaluate', 'evaluateAll', 'decide']) {
    assert.deepStrictEqual(
      outcome(() => policy[ask](event, obj)),
      outcome(() => policy[ask](event, text)),
      `${ask} ${label}\ncontext: ${text}`,
    );
  }
}

describe('the lazy reader equals JSON.stringify text', () => {
  test('random policies and random contexts: evaluate, evaluateAll and decide agree (seeded)', () => {
    const rng = mulberry32(20261127);
    let compared = 0;
    let matched = 0;
    for (let n = 0; n < 60; n++) {
      const src = randomPolicy(rng);
      const policy = hookc.compileSources({ 'r.yaml': src }, { quiet: true });
      for (let i = 0; i < 8; i++) {
        const obj = randomObject(rng, 4);
        sameAnswers(policy, 'e', obj, `(policy ${n}, context ${i})\n${src}`);
        sameAnswers(policy, 'other', obj, `(policy ${n}, context ${i}, event other)\n${src}`);
        if (policy.evaluateAll('e', obj).length > 0) matched += 1;
        compared += 1;
      }
    }
    assert.equal(compared, 480);
    // The test means something only if hooks do match, and not always.
    assert.ok(matched > 50 && matched < compared, `${matched} of ${compared} contexts matched some hook`);
  });

  test('random contexts nested in a read value are converted as JSON.stringify writes them', () => {
    const policy = hookc.compileSources(
      { 'w.yaml': 'hooks:\n  - {id: w, event: e, action: {type: emit_event, event_type: t, payload: {v: "${v}", s: "${size(v)}"}}}\n' },
      { quiet: true },
    );
    const rng = mulberry32(7);
    for (let i = 0; i < 300; i++) {
      const obj = { v: randomObject(rng, 5) };
      sameAnswers(policy, 'e', obj, `context ${i}`);
    }
  });

  test('members JSON.stringify leaves out read as missing; inside a read array they are null', () => {
    const policy = hookc.compileSources(
      {
        'm.yaml':
          'hooks:\n' +
          '  - {id: has_x, event: e, when: "has(x)", action: {type: abort}}\n' +
          '  - {id: list, event: e, when: "has(l)", action: {type: emit_event, event_type: t, payload: {v: "${l}", n: "${size(l)}"}}}\n',
      },
      { quiet: true },
    );
    for (const gone of [undefined, () => 1, Symbol('s')]) {
      sameAnswers(policy, 'e', { x: gone }, String(gone));
      sameAnswers(policy, 'e', { l: [gone, 1, gone] }, String(gone));
      assert.deepStrictEqual(policy.evaluateAll('e', { x: gone, l: [gone, 1] })[0].action.payload.v, [null, 1]);
    }
  });

  test('undefined, a function or a hole read at an array index is null, as in the JSON.stringify text', () => {
    const policy = hookc.compileSources(
      { 'i.yaml': 'hooks:\n  - {id: first, event: e, when: "has(a[0])", action: {type: abort}}\n' },
      { quiet: true },
    );
    for (const a of [[undefined], [() => 1], [Symbol('s')], [, 1]]) {
      assert.equal(policy.decide('e', JSON.stringify({ a })), 'first');
      assert.equal(policy.decide('e', { a }), 'first', `a = [${String(a[0])}]`);
    }
  });

  test('an inherited property or a prototype getter is not read, as JSON.stringify leaves it out', () => {
    const policy = hookc.compileSources(
      { 'h.yaml': 'hooks:\n  - {id: has_x, event: e, when: "has(x)", action: {type: abort}}\n' },
      { quiet: true },
    );
    class WithGetter {
      get x() {
        return 5;
      }
    }
    for (const obj of [Object.create({ x: 1 }), new WithGetter()]) {
      assert.equal(policy.decide('e', JSON.stringify(obj)), null);
      assert.equal(policy.decide('e', obj), null);
    }
  });

  test('boxed primitives (new String, new Number, new Boolean) read as the primitive, as JSON.stringify writes them', () => {
    const policy = hookc.compileSources(
      { 'b.yaml': 'hooks:\n  - {id: v, event: e, when: "has(x)", action: {type: emit_event, event_type: t, payload: {v: "${x}"}}}\n' },
      { quiet: true },
    );
    for (const x of [new String('ab'), new Number(3), new Boolean(false)]) {
      sameAnswers(policy, 'e', { x }, `${typeof x} ${String(x)}`);
    }
  });

  test('a Proxy of an array reads as an array, as JSON.stringify writes it', () => {
    const policy = hookc.compileSources(
      { 'p.yaml': 'hooks:\n  - {id: v, event: e, when: "has(x)", action: {type: emit_event, event_type: t, payload: {v: "${x}"}}}\n' },
      { quiet: true },
    );
    sameAnswers(policy, 'e', { x: new Proxy([1, 2], {}) }, 'Proxy([1, 2])');
  });

  test('a plain Proxy of an object, a Map and a typed array read as JSON.stringify writes them', () => {
    const policy = hookc.compileSources(
      { 'p.yaml': 'hooks:\n  - {id: v, event: e, when: "has(x)", action: {type: emit_event, event_type: t, payload: {v: "${x}"}}}\n' },
      { quiet: true },
    );
    const hidden = Object.defineProperty({ b: 2 }, 'c', { value: 3, enumerable: false });
    for (const x of [new Proxy({ a: 1 }, {}), new Map([[1, 2]]), new Int16Array([1, 2]), hidden, { [Symbol('s')]: 1, b: 2 }, { b: 1, 2: 'two', 1: 'one' }]) {
      sameAnswers(policy, 'e', { x }, Object.prototype.toString.call(x));
    }
  });
});

describe('numbers', () => {
  let dir;
  before(() => {
    dir = tempDir();
  });

  const TEMPLATE =
    'hooks:\n  - {id: t, event: e, action: {type: emit_event, event_type: t, payload: {whole: "${x}", text: "n=${x}", list: "${[x]}"}}}\n';

  test('integer-valued numbers come back as the CLI prints them (x = 3 gives 3, "n=3")', () => {
    const file = path.join(dir, 't.yaml');
    fs.writeFileSync(file, TEMPLATE);
    const policy = hookc.compile(file, { quiet: true });
    for (const x of [3, -0, 0, -42, 123456789012, 2 ** 52, 0.5, 1e21, -1.25]) {
      const ctx = path.join(dir, 'ctx.json');
      fs.writeFileSync(ctx, JSON.stringify({ x }));
      const want = JSON.parse(cli('eval', file, '--event', 'e', '--context', ctx));
      assert.deepStrictEqual(policy.evaluate('e', { x }), want, `x = ${x}`);
      assert.deepStrictEqual(policy.evaluate('e', JSON.stringify({ x })), want, `x = ${x} as text`);
    }
    assert.equal(policy.evaluate('e', { x: 3 }).action.payload.text, 'n=3');
    assert.equal(policy.evaluate('e', { x: 3 }).action.payload.whole, 3);
  });

  test('integers from 2^53 to 2^63 are ints, as their JSON.stringify text is', () => {
    const policy = hookc.compileSources({ 't.yaml': TEMPLATE }, { quiet: true });
    for (const x of [2 ** 53, -(2 ** 53), 2 ** 60, 2 ** 62 + 2 ** 40]) {
      sameAnswers(policy, 'e', { x }, `x = ${x}`);
    }
  });

  test('a lone surrogate in a string reads as U+FFFD from an object (js.rs); its JSON text is refused by the JSON parser', () => {
    const policy = hookc.compileSources({ 't.yaml': TEMPLATE }, { quiet: true });
    assert.equal(policy.evaluate('e', { x: 'a\ud800' }).action.payload.whole, 'a\ufffd');
    assert.throws(() => policy.evaluate('e', JSON.stringify({ x: 'a\ud800' })), hookc.ContextError);
  });
});
