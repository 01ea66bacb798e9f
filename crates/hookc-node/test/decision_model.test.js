// The decision model from Node: a transform's patch read by the later
// hooks and reported in `patched`, an awaited hook that suspends and
// resumes with `results`, strictest combining, error policies; from an
// object (converted whole only when a patch must be applied), JSON text
// and a Buffer, with the same answers as `hookc eval` (also on random
// policies replayed with `hookc eval --events`). The Node counterpart of
// the Python package's test_decision_model.py.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test, before } = require('node:test');

const hookc = require('..');
const { cli, tempDir, forms, mulberry32 } = require('./helpers.js');

const POLICY = `
combine: strictest
on_error: {action: {type: deny, reason: "policy error in \${policy_error.hook}"}}
action_types:
  deny: {severity: 30, parameters: {reason: {type: string}}}
  ask: {severity: 20, parameters: {reason: {type: string}}}
  rewrite: {effect: transform, parameters: {patch: {type: object}}}
  git: {effect: await, bind: git.branch, parameters: {argv: {type: array}}}
hooks:
  - id: ask_rm
    event: PreToolUse
    when: "has(tool_input.command) && tool_input.command.startsWith('rm ')"
    action: {type: ask, reason: "remove?"}
  - id: use_uv
    event: PreToolUse
    when: "has(tool_input.command) && tool_input.command.startsWith('pip ')"
    action: {type: rewrite, patch: {tool_input: {command: "uv \${tool_input.command}"}}}
  - id: branch
    event: PreToolUse
    when: "has(tool_input.command) && tool_input.command.startsWith('uv ')"
    action: {type: git, argv: [git, branch, --show-current]}
  - id: on_main
    event: PreToolUse
    when: "has(git.branch) && git.branch == 'main'"
    action: {type: deny, reason: "not on main: \${tool_input.command}"}
  - id: count
    event: Count
    when: "n > 3"
    action: {type: deny, reason: "too many"}
`;

let policy;
let dir;
before(() => {
  policy = hookc.compileSources({ 'm.yaml': POLICY }, { quiet: true });
  dir = tempDir();
});

test('a transform then an await suspends, with the patch and the pending match', () => {
  for (const [form, ctx] of forms({ tool_input: { command: 'pip install x' } })) {
    const d = policy.evaluate('PreToolUse', ctx);
    assert.equal(d.hook, null, form);
    assert.deepStrictEqual(d.patched, { tool_input: { command: 'uv pip install x' } }, form);
    assert.deepStrictEqual(
      d.transforms.map((t) => t.hook),
      ['use_uv'],
      form,
    );
    assert.equal(d.pending.hook, 'branch', form);
    assert.deepStrictEqual(d.pending.action.argv, ['git', 'branch', '--show-current'], form);
    assert.equal(policy.decide('PreToolUse', ctx), null, form);
  }
});

test('resuming with results binds the result for the later hooks; the caller\'s object is not changed by the patch', () => {
  const ctx = { tool_input: { command: 'pip install x' } };
  for (const [form, c] of forms(ctx)) {
    let d = policy.evaluate('PreToolUse', c, { results: { branch: 'main' } });
    assert.equal(d.hook, 'on_main', form);
    assert.equal(d.action.reason, 'not on main: uv pip install x', form);
    assert.ok(!('pending' in d), form);
    assert.equal(policy.decide('PreToolUse', c, { results: { branch: 'main' } }), 'on_main', form);
    d = policy.evaluate('PreToolUse', c, { results: { branch: 'dev' } });
    assert.equal(d.hook, null, form);
    assert.ok(!('pending' in d), form);
  }
  assert.deepStrictEqual(ctx, { tool_input: { command: 'pip install x' } });
});

test('a result for no hook is a HookcError naming the closest one that awaits', () => {
  // A typo in `results` left the decision pending, silently.
  assert.throws(
    () => policy.evaluate('PreToolUse', { tool_input: { command: 'pip x' } }, { results: { brnch: 'main' } }),
    (e) => e instanceof hookc.HookcError && /no hook of the policy; did you mean `branch`\?/.test(e.message),
  );
  // A hook that awaits nothing ignores its result.
  assert.equal(policy.decide('PreToolUse', {}, { results: { ask_rm: 1 } }), null);
});

test('strictest combining and the error action', () => {
  for (const [form, c] of forms({ tool_input: { command: 'rm -rf x' } })) {
    assert.equal(policy.evaluate('PreToolUse', c).hook, 'ask_rm', form);
  }
  for (const [form, c] of forms({ n: 'many' })) {
    const d = policy.evaluate('Count', c);
    assert.equal(d.hook, 'count', form);
    assert.equal(d.action.reason, 'policy error in count', form);
    assert.equal(d.errors[0].hook, 'count', form);
  }
});

test('answers equal `hookc eval` with and without --result', () => {
  const src = path.join(dir, 'm.yaml');
  fs.writeFileSync(src, POLICY);
  const ctx = { tool_input: { command: 'pip install x' } };
  const ctxFile = path.join(dir, 'ctx.json');
  fs.writeFileSync(ctxFile, JSON.stringify(ctx));
  for (const results of [undefined, { branch: 'main' }, { branch: 'dev' }, { branch: { nested: [1, null] } }]) {
    const args = ['eval', src, '--event', 'PreToolUse', '--context', ctxFile];
    if (results) args.push('--result', `branch=${JSON.stringify(results.branch)}`);
    const want = JSON.parse(cli(...args));
    for (const [form, c] of forms(ctx)) {
      assert.deepStrictEqual(policy.evaluate('PreToolUse', c, results && { results }), want, `${form} ${JSON.stringify(results)}`);
    }
  }
});

test('results that are not an object are a TypeError', () => {
  for (const results of [['branch'], 'branch', 3, true]) {
    assert.throws(
      () => policy.evaluate('PreToolUse', {}, { results }),
      (e) => e instanceof TypeError && /results/.test(e.message),
      JSON.stringify(results),
    );
  }
  // null is no results.
  assert.equal(policy.evaluate('PreToolUse', { tool_input: { command: 'ls' } }, { results: null }), null);
});

// ---- random policies: Node (object and text) against hookc eval --events ----

const HEADER = `
action_types:
  deny: {severity: 30, parameters: {reason: {type: string}}}
  ask: {severity: 20, parameters: {reason: {type: string}}}
  allow: {severity: 10, parameters: {n: {type: integer}}}
  note: {effect: collected, parameters: {text: {type: string}, n: {type: integer}}}
  rw: {effect: transform, parameters: {patch: {type: object}}}
  wait: {effect: await, parameters: {what: {type: string}}}
  fetch: {effect: await, bind: {parameter: into}, parameters: {into: {type: [string, "null"]}}}
`;

const CONDITIONS = [
  '',
  'x == 1',
  'x > 2',
  'has(x)',
  '!has(x)',
  "y.z == 'b'",
  'w',
  'has(results.h1) && results.h1 == 1',
  "results.h2 == 'ok'",
  "x == 1 || y.z == 'c'",
];
const ACTIONS = [
  '{type: deny, reason: "d ${x}"}',
  '{type: ask, reason: a}',
  '{type: allow, n: "${x}"}',
  '{type: note, text: "saw ${y.z}"}',
  '{type: note, n: "${x}"}',
  '{type: rw, patch: {x: 1}}',
  '{type: rw, patch: {y: {z: "b"}, w: null}}',
  '{type: rw, patch: {x: "${y.z}"}}',
  '{type: wait, what: w}',
  '{type: fetch, into: w}',
  '{type: fetch, into: null}',
];

const choice = (rng, list) => list[Math.floor(rng() * list.length)];

function randomPolicy(rng) {
  let out = `${HEADER}combine: ${choice(rng, ['first_match', 'strictest'])}\n`;
  out += choice(rng, [
    'on_error: skip\n',
    'on_error: fail\n',
    'on_error: {action: {type: deny, reason: "error in ${policy_error.hook}"}}\n',
  ]);
  out += 'hooks:\n';
  const ids = [];
  const n = 1 + Math.floor(rng() * 7);
  for (let i = 0; i < n; i++) {
    const cond = choice(rng, CONDITIONS);
    out += `  - id: h${i}\n    event: ${choice(rng, ['A', 'A', '"*"'])}\n`;
    if (cond) out += `    when: "${cond}"\n`;
    out += `    action: ${choice(rng, ACTIONS)}\n`;
    ids.push(`h${i}`);
  }
  return { src: out, ids };
}

function randomContext(rng) {
  const ctx = {};
  if (rng() < 0.75) ctx.x = choice(rng, [1, 3, 'a', null, 2.5]);
  if (rng() < 0.6) ctx.y = choice(rng, [{ z: 'b' }, { z: 'c' }, { z: 1 }, 'y']);
  if (rng() < 0.5) ctx.w = choice(rng, [true, false, 't']);
  return ctx;
}

test('random policies answer as `hookc eval --events`, from an object and from JSON text', () => {
  const rng = mulberry32(20);
  let compared = 0;
  let errors = 0;
  for (let n = 0; n < 25; n++) {
    const { src, ids } = randomPolicy(rng);
    const file = path.join(dir, `p${n}.yaml`);
    fs.writeFileSync(file, src);
    // Named as the CLI names the file, so default ids and messages agree.
    const p = hookc.compileSources({ [file]: src }, { quiet: true });
    const records = [];
    for (let i = 0; i < 20; i++) {
      const results = {};
      for (const id of ids) if (rng() < 0.5) results[id] = choice(rng, [1, 'ok', null, 3]);
      records.push({ event: 'A', context: randomContext(rng), results });
    }
    const log = path.join(dir, `p${n}.jsonl`);
    fs.writeFileSync(log, records.map((r) => JSON.stringify(r)).join('\n'));
    // Exit 2 when a line's evaluation fails (`on_error: fail`): its line
    // is then `{"error": ...}`.
    const run = cli('eval', file, '--events', log, { raw: true });
    assert.ok(run.status === 0 || run.status === 2, run.stderr);
    const lines = run.stdout.split('\n').filter((l) => l !== '');
    assert.equal(lines.length, records.length, src);
    records.forEach((r, i) => {
      const want = JSON.parse(lines[i]);
      for (const form of [r.context, JSON.stringify(r.context)]) {
        let got;
        try {
          got = p.evaluate('A', form, { results: r.results });
        } catch (e) {
          assert.ok(e instanceof hookc.EvaluationError, `${e.name}: ${e.message}`);
          got = { error: e.message };
        }
        if (want !== null && typeof want === 'object' && 'error' in want && !('hook' in want)) {
          assert.ok(got !== null && 'error' in got, `${src}\n${JSON.stringify(r)}\nwant ${lines[i]}\ngot ${JSON.stringify(got)}`);
          assert.ok(want.error.endsWith(got.error), `${want.error}\n  does not end with\n${got.error}`);
          errors += 1;
        } else {
          assert.deepStrictEqual(got, want, `${src}\n${JSON.stringify(r)}`);
        }
        compared += 1;
      }
    });
  }
  assert.equal(compared, 1000);
  assert.ok(errors > 0, 'some lines fail under on_error: fail');
});
