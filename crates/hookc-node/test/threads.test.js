// One policy shared by worker threads: the main thread compiles it and
// `share()`s a token; workers load the same policy with
// `Policy.fromShared(token)` and evaluate every seed context thousands of
// times, all answering as the main thread does. Also tokens that are not
// tokens, and a token whose policy every thread dropped (in a child
// process run with --expose-gc, so collection can be forced).
'use strict';

const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { Worker } = require('node:worker_threads');
const { test, before } = require('node:test');

const hookc = require('..');
const { PKG, SEED_POLICY, seedCases } = require('./helpers.js');

let policy;
before(() => {
  policy = hookc.compile(SEED_POLICY, { quiet: true });
});

// The worker's code, run with `eval: true` (a file under test/ would be
// run by `node --test` as a test file of its own).
const WORKER = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const hookc = require(workerData.pkg);
const { token, cases, rounds, id } = workerData;
const policy = hookc.Policy.fromShared(token);
const first = {};
let calls = 0;
const wrong = [];
for (let n = 0; n < rounds; n++) {
  for (let i = 0; i < cases.length; i++) {
    const c = cases[(i + n + id) % cases.length];
    const text = JSON.stringify(c.context);
    const form = [c.context, text, Buffer.from(text)][(n + i) % 3];
    const answer = JSON.stringify({
      evaluate: policy.evaluate(c.event, form),
      decide: policy.decide(c.event, form),
      all: policy.evaluateAll(c.event, form),
    });
    calls += 3;
    if (!(c.name in first)) first[c.name] = answer;
    else if (first[c.name] !== answer) wrong.push([c.name, n]);
  }
}
parentPort.postMessage({ first, calls, wrong, hookIds: policy.hookIds, events: policy.events, artifact: policy.toArtifact() });
`;

function runWorker(workerData) {
  return new Promise((resolve, reject) => {
    const w = new Worker(WORKER, { eval: true, workerData });
    let message;
    w.once('message', (m) => {
      message = m;
    });
    w.once('error', reject);
    w.once('exit', (code) => (code === 0 && message ? resolve(message) : reject(new Error(`worker exited with ${code}`))));
  });
}

test('four worker threads sharing one policy answer every seed context as the main thread, thousands of times each', async () => {
  const cases = seedCases();
  const want = {};
  for (const c of cases) {
    want[c.name] = JSON.stringify({
      evaluate: policy.evaluate(c.event, c.context),
      decide: policy.decide(c.event, c.context),
      all: policy.evaluateAll(c.event, c.context),
    });
  }
  const token = policy.share();
  assert.equal(typeof token, 'string');
  const rounds = 120;
  const results = await Promise.all([0, 1, 2, 3].map((id) => runWorker({ pkg: PKG, token, cases, rounds, id })));
  for (const r of results) {
    assert.deepStrictEqual(r.wrong, []);
    assert.ok(r.calls >= 3000, `${r.calls} calls`);
    assert.deepStrictEqual(r.first, want);
    assert.deepStrictEqual(r.hookIds, policy.hookIds);
    assert.deepStrictEqual(r.events, policy.events);
    assert.deepStrictEqual(Buffer.from(r.artifact), policy.toArtifact());
  }
  // The main thread still answers the same afterwards.
  for (const c of cases) assert.equal(JSON.stringify({ evaluate: policy.evaluate(c.event, c.context), decide: policy.decide(c.event, c.context), all: policy.evaluateAll(c.event, c.context) }), want[c.name]);
});

test('fromShared in the same thread gives the same policy; every share gives a new token', () => {
  const a = policy.share();
  const b = policy.share();
  assert.notEqual(a, b);
  const again = hookc.Policy.fromShared(a);
  assert.ok(again instanceof hookc.Policy);
  assert.deepStrictEqual(again.toArtifact(), policy.toArtifact());
  for (const c of seedCases()) assert.deepStrictEqual(again.evaluate(c.event, c.context), policy.evaluate(c.event, c.context));
  // A policy from a token can share again.
  assert.deepStrictEqual(hookc.Policy.fromShared(again.share()).hookIds, policy.hookIds);
  // A shared policy has no compile warnings of its own.
  assert.deepStrictEqual(again.warnings, []);
});

test('fromShared of a string that is not a token is a TypeError; of a non-string too', () => {
  for (const token of ['garbage', '', 'hookc-policy:', 'hookc-policy:x', 'hookc-policy:-1', `${policy.share()} `]) {
    assert.throws(() => hookc.Policy.fromShared(token), (e) => e instanceof TypeError && /is not a token of `policy\.share\(\)`/.test(e.message), JSON.stringify(token));
  }
  for (const token of [1, null, undefined, {}, Buffer.from('hookc-policy:1')]) {
    assert.throws(() => hookc.Policy.fromShared(token), (e) => e instanceof TypeError && /fromShared takes the string/.test(e.message));
  }
});

test('a token no policy was shared under is a HookcError (HOOKC_ARGUMENT) saying the policy is gone', () => {
  assert.throws(
    () => hookc.Policy.fromShared('hookc-policy:18446744073709551615'),
    (e) => e instanceof hookc.HookcError && e.code === 'HOOKC_ARGUMENT' && /is gone/.test(e.message),
  );
});

test('a token whose policy every object dropped is gone once collected (child process with --expose-gc)', () => {
  // The child shares a policy, drops every reference, forces collection
  // (finalizers run after a collection, so it yields between rounds) and
  // reports what fromShared then does; it also checks that a policy held
  // by an object made with fromShared outlives the original.
  const script = `
    const hookc = require(${JSON.stringify(PKG)});
    const src = {'p.yaml': 'hooks:\\n  - {id: a, event: e, when: "x == 1", action: {type: abort}}\\n'};
    function shared() { return hookc.compileSources(src, {quiet: true}).share(); }
    (async () => {
      const gone = shared();
      const kept = shared();
      const holder = hookc.Policy.fromShared(kept);
      let error = null;
      for (let i = 0; i < 50 && error === null; i++) {
        global.gc();
        await new Promise((r) => setImmediate(r));
        try { hookc.Policy.fromShared(gone); } catch (e) { error = {name: e.name, code: e.code, message: e.message}; }
      }
      const alive = hookc.Policy.fromShared(kept).decide('e', {x: 1});
      console.log(JSON.stringify({error, alive, holder: holder.decide('e', {x: 1})}));
    })();
  `;
  const run = spawnSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8', timeout: 60000 });
  assert.equal(run.status, 0, run.stderr);
  const out = JSON.parse(run.stdout.trim().split('\n').pop());
  assert.ok(out.error !== null, 'the dropped policy was never collected in 50 forced collections');
  assert.equal(out.error.name, 'HookcError');
  assert.equal(out.error.code, 'HOOKC_ARGUMENT');
  assert.match(out.error.message, /is gone: no object holds it any more/);
  assert.equal(out.alive, 'a');
  assert.equal(out.holder, 'a');
});

test('worker threads that each compile their own policy answer alike (no shared state between policies)', async () => {
  const script = `
    const { parentPort, workerData } = require('node:worker_threads');
    const hookc = require(workerData.pkg);
    const p = hookc.compile(workerData.file, {quiet: true});
    parentPort.postMessage(workerData.cases.map((c) => p.evaluate(c.event, c.context)));
  `;
  const cases = seedCases();
  const want = cases.map((c) => policy.evaluate(c.event, c.context));
  const runs = [0, 1].map(
    () =>
      new Promise((resolve, reject) => {
        const w = new Worker(script, { eval: true, workerData: { pkg: PKG, file: SEED_POLICY, cases } });
        w.once('message', resolve);
        w.once('error', reject);
      }),
  );
  for (const got of await Promise.all(runs)) assert.deepStrictEqual(got, want);
  assert.ok(path.isAbsolute(PKG));
});
