// Results from Node equal what the `hookc` command prints for the same
// policy and contexts: every seed bench context and every example context
// under the bundled policy (evaluate, evaluateAll, explain, decide; from an
// object, JSON text and a Buffer), `disable`,
// every case of every example test file (`examples/**/*.test.yaml`,
// replayed from `hookc test --format json`), artifacts both ways, and the
// hook ids in the CLI's order. The Node counterpart of the Python
// package's test_cli_parity.py.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { describe, test, before } = require('node:test');

const hookc = require('..');
const { ROOT, SEED_POLICY, cli, seedCases, tempDir, forms } = require('./helpers.js');

let seed;
let dir;
before(() => {
  seed = hookc.compile(SEED_POLICY, { quiet: true });
  dir = tempDir();
});

/** The CLI's answers for one seed context: eval, --all, --explain json. */
function cliAnswers(name, event, context) {
  const file = path.join(dir, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify(context));
  const args = ['eval', SEED_POLICY, '--event', event, '--context', file];
  const lines = cli(...args, '--explain', '--format', 'json').split('\n');
  return {
    args,
    evaluate: JSON.parse(cli(...args)),
    all: JSON.parse(cli(...args, '--all')),
    // The result line first, then the trace.
    trace: JSON.parse(lines[1]),
  };
}

describe('every seed context answers as `hookc eval`', () => {
  test('there are seed contexts', () => {
    assert.ok(seedCases().length >= 10);
  });
  for (const { name, event, context } of seedCases()) {
    test(`seed context ${name}: evaluate, evaluateAll, explain and decide from an object, a string and a Buffer`, () => {
      const want = cliAnswers(name, event, context);
      for (const [form, ctx] of forms(context)) {
        assert.deepStrictEqual(seed.evaluate(event, ctx), want.evaluate, `evaluate from ${form}`);
        assert.deepStrictEqual(seed.evaluateAll(event, ctx), want.all, `evaluateAll from ${form}`);
        assert.deepStrictEqual(seed.explain(event, ctx), want.trace, `explain from ${form}`);
        assert.equal(seed.decide(event, ctx), want.evaluate ? want.evaluate.hook : null, `decide from ${form}`);
      }
    });
  }

  test('a Uint8Array view into a larger buffer reads only its own bytes', () => {
    const { event, context } = seedCases().find((c) => c.name === 'error_rate_limited');
    const text = Buffer.from(JSON.stringify(context));
    const big = Buffer.concat([Buffer.from('garbage{'), text, Buffer.from('}garbage')]);
    const view = new Uint8Array(big.buffer, big.byteOffset + 8, text.length);
    assert.deepStrictEqual(seed.evaluate(event, view), seed.evaluate(event, context));
    assert.deepStrictEqual(seed.evaluate(event, big.subarray(8, 8 + text.length)), seed.evaluate(event, context));
  });
});

describe('every example context answers as `hookc eval` under the bundled policy', () => {
  // examples/contexts/*.json, as the README's tour evaluates them against
  // examples/policy.xml; each context names its event in `event.type`.
  const policyFile = path.join(ROOT, 'examples', 'policy.xml');
  const contexts = path.join(ROOT, 'examples', 'contexts');
  const files = fs.readdirSync(contexts).filter((f) => f.endsWith('.json'));
  test('there are example contexts', () => {
    assert.ok(files.length >= 5);
  });
  for (const file of files) {
    test(`examples/contexts/${file}`, () => {
      const policy = hookc.compile(policyFile, { quiet: true });
      const ctxFile = path.join(contexts, file);
      const context = JSON.parse(fs.readFileSync(ctxFile, 'utf8'));
      const event = context.event.type;
      const args = ['eval', policyFile, '--event', event, '--context', ctxFile];
      const want = JSON.parse(cli(...args));
      const all = JSON.parse(cli(...args, '--all'));
      const trace = JSON.parse(cli(...args, '--explain', '--format', 'json').split('\n')[1]);
      for (const [form, ctx] of forms(context)) {
        assert.deepStrictEqual(policy.evaluate(event, ctx), want, `evaluate from ${form}`);
        assert.deepStrictEqual(policy.evaluateAll(event, ctx), all, `evaluateAll from ${form}`);
        assert.deepStrictEqual(policy.explain(event, ctx), trace, `explain from ${form}`);
        assert.equal(policy.decide(event, ctx), want ? want.hook : null, `decide from ${form}`);
      }
    });
  }
});

test('disable answers as `hookc eval --disable`', () => {
  const { event, context } = seedCases().find((c) => c.name === 'error_rate_limited');
  const first = seed.decide(event, context);
  assert.equal(typeof first, 'string');
  const file = path.join(dir, 'disable.json');
  fs.writeFileSync(file, JSON.stringify(context));
  const want = JSON.parse(cli('eval', SEED_POLICY, '--event', event, '--context', file, '--disable', first));
  for (const [form, ctx] of forms(context)) {
    const got = seed.evaluate(event, ctx, { disable: [first] });
    assert.deepStrictEqual(got, want, form);
    assert.ok(got === null || got.hook !== first, form);
    assert.equal(seed.decide(event, ctx, { disable: [first] }), want ? want.hook : null, form);
  }
});

function exampleTestFiles() {
  const out = [];
  const walk = (d) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'target' && entry.name !== 'node_modules') walk(p);
      } else if (entry.name.endsWith('.test.yaml')) {
        out.push(path.relative(ROOT, p).split(path.sep).join('/'));
      }
    }
  };
  walk(path.join(ROOT, 'examples'));
  return out.sort();
}

// The CLI's own test file whose cases expect evaluation errors (no
// example's do), so the error branch below is exercised.
const ERROR_CASES = 'crates/hookc-cli/tests/data/policy_tests/typed_results.test.yaml';
let errorCases = 0;

describe('every example test file replays through Node', () => {
  test('there are example test files', () => {
    assert.ok(exampleTestFiles().length >= 7);
  });
  for (const testFile of [...exampleTestFiles(), ERROR_CASES]) {
    test(`${testFile}: every case answers as \`hookc test\` reports`, () => {
      // `hookc test` exits 0 only if every case met its expectation.
      const report = JSON.parse(cli('test', '--format', 'json', testFile));
      assert.equal(report.files.length, 1);
      const [entry] = report.files;
      const folder = path.dirname(path.join(ROOT, testFile));
      // Named as the test file writes them, so default hook ids agree.
      const sources = {};
      for (const name of entry.policy) sources[name] = fs.readFileSync(path.join(folder, name), 'utf8');
      const policy = hookc.compileSources(sources, { quiet: true });
      assert.ok(entry.cases.length > 0, testFile);
      for (const c of entry.cases) {
        assert.equal(c.outcome, 'ok', c.name);
        const options = { disable: c.disabled };
        if (c.results !== undefined) options.results = c.results;
        for (const [form, ctx] of forms(c.context)) {
          const call = () => policy.evaluate(c.event, ctx, options);
          if ('error' in c.expected) {
            errorCases += 1;
            assert.throws(
              call,
              (e) => e instanceof hookc.EvaluationError && e.code === 'HOOKC_EVALUATION' && e.message === c.actual.error,
              `${c.name} (${form})`,
            );
          } else {
            assert.deepStrictEqual(call(), c.actual, `${c.name} (${form})`);
          }
        }
      }
    });
  }
});

test('some replayed cases expect an EvaluationError', () => {
  assert.ok(errorCases > 0);
});

test('an artifact round trip gives equal bytes and equal answers', () => {
  const data = seed.toArtifact();
  assert.ok(Buffer.isBuffer(data));
  assert.deepStrictEqual(seed.toArtifact(), data, 'deterministic');
  const loaded = hookc.Policy.fromArtifact(data);
  assert.deepStrictEqual(loaded.toArtifact(), data);
  assert.deepStrictEqual(loaded.hookIds, seed.hookIds);
  assert.deepStrictEqual(loaded.events, seed.events);
  assert.deepStrictEqual(loaded.warnings, []);
  // A plain Uint8Array (not a Buffer) loads too.
  const plain = hookc.Policy.fromArtifact(new Uint8Array(data));
  for (const { event, context } of seedCases()) {
    assert.deepStrictEqual(loaded.evaluate(event, context), seed.evaluate(event, context));
    assert.deepStrictEqual(plain.evaluate(event, context), seed.evaluate(event, context));
    assert.deepStrictEqual(loaded.explain(event, context), seed.explain(event, context));
  }
});

test('an artifact from `hookc compile -o` loads and answers as the compiled sources, byte for byte', () => {
  const out = path.join(dir, 'seed.hkb');
  cli('compile', SEED_POLICY, '-o', out);
  const bytes = fs.readFileSync(out);
  const loaded = hookc.Policy.fromArtifact(bytes);
  assert.deepStrictEqual(loaded.toArtifact(), bytes);
  assert.deepStrictEqual(seed.toArtifact(), bytes);
  for (const { event, context } of seedCases()) {
    assert.deepStrictEqual(loaded.evaluate(event, context), seed.evaluate(event, context));
  }
});

test('hookIds are the CLI\'s hooks in evaluation order (`hookc disasm`)', () => {
  const listing = cli('disasm', SEED_POLICY);
  const ids = [];
  const events = new Set();
  for (const line of listing.split('\n')) {
    const m = /^hook (\d+) ("(?:[^"\\]|\\.)*") \(.*events ([^)]*)\)$/.exec(line);
    if (!m) continue;
    assert.equal(Number(m[1]), ids.length);
    ids.push(JSON.parse(m[2]));
    for (const e of m[3].split(/,\s*/)) events.add(e);
  }
  assert.ok(ids.length >= 7, listing);
  assert.deepStrictEqual(seed.hookIds, ids);
  assert.deepStrictEqual([...seed.events].sort(), [...events].sort());
});

test('the no-match path: no hook matches, and an event no hook names', () => {
  const ctx = { classification: { category: 'content_filter' } };
  for (const [form, c] of forms(ctx)) {
    assert.equal(seed.evaluate('error', c), null, form);
    assert.equal(seed.decide('error', c), null, form);
    assert.deepStrictEqual(seed.evaluateAll('error', c), [], form);
  }
  const file = path.join(dir, 'empty.json');
  fs.writeFileSync(file, '{}');
  const lines = cli('eval', SEED_POLICY, '--event', 'no_such_event', '--context', file, '--explain', '--format', 'json').split('\n');
  for (const [form, c] of forms({})) {
    assert.equal(seed.evaluate('no_such_event', c), JSON.parse(lines[0]), form);
    assert.equal(seed.decide('no_such_event', c), null, form);
    assert.deepStrictEqual(seed.evaluateAll('no_such_event', c), [], form);
    assert.deepStrictEqual(seed.explain('no_such_event', c), JSON.parse(lines[1]), form);
  }
});

test('unnamed events reach wildcard hooks only, and text for them must still be JSON', () => {
  const src =
    'hooks:\n' +
    "  - {id: named, event: error, when: 'x == 1', action: {type: abort}}\n" +
    "  - {id: any, event: '*', when: 'x == 1', action: {type: fail}}\n";
  const wild = hookc.compileSources({ 'w.yaml': src }, { quiet: true });
  const plain = hookc.compileSources({ 'p.yaml': src.split('  - {id: any')[0] }, { quiet: true });
  for (const [form, c] of forms({ x: 1 })) {
    assert.equal(wild.decide('other', c), 'any', form);
    assert.deepStrictEqual(wild.evaluateAll('other', c), [{ hook: 'any', action: { type: 'fail' } }], form);
    assert.equal(plain.evaluate('other', c), null, form);
    assert.deepStrictEqual(plain.evaluateAll('other', c), [], form);
  }
  assert.throws(() => plain.evaluate('other', '{'), hookc.ContextError);
  assert.throws(() => plain.evaluate('other', Buffer.from('{')), hookc.ContextError);
});

test('the package version is package.json\'s', () => {
  assert.equal(hookc.version, require('../package.json').version);
});
