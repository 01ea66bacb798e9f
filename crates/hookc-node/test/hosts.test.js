// `policy.hook(host, payload)` answers exactly what `hookc hook --host
// HOST` writes and exits with: every case of the CLI's host test data
// (crates/hookc-cli/tests/data/hosts/HOST/cases/*.json, under the guide's
// guard of each host), from the payload's bytes, its text and its parsed
// object; payloads that are not the host's, fail-open, the decision log,
// and the arguments' checks.
'use strict';

const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { describe, test } = require('node:test');

const hookc = require('..');
const { ROOT, hookcBin, tempDir } = require('./helpers.js');

// Hook reasons name where the hook is written, as the CLI run from the
// repository root with the same relative path names it.
process.chdir(ROOT);

const HOSTS = ['claude-code', 'codex', 'gemini-cli', 'cursor', 'copilot'];
const CASES = path.join('crates', 'hookc-cli', 'tests', 'data', 'hosts');

/** `hookc hook` on a payload file, as the host runs it. */
function cli(host, policy, payloadFile, extra = []) {
  const run = spawnSync(hookcBin(), ['hook', '--host', host, ...extra, '--payload', payloadFile, policy], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  assert.ifError(run.error);
  return { stdout: run.stdout, stderr: run.stderr, exitCode: run.status };
}

/** The event options of a case: Copilot's payloads do not name theirs. */
function eventOf(host, name) {
  return host === 'copilot' ? name.split('.')[0] : undefined;
}

describe('every host case answers as hookc hook', () => {
  for (const host of HOSTS) {
    test(host, () => {
      const guard = path.join('examples', 'hosts', host, 'guard.yaml');
      const policy = hookc.compile(guard, { quiet: true });
      const dir = path.join(CASES, host, 'cases');
      const names = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
      assert.ok(names.length >= 5, `${host} has cases`);
      for (const file of names) {
        const name = file.slice(0, -'.json'.length);
        const event = eventOf(host, name);
        const payloadFile = path.join(dir, file);
        const want = cli(host, guard, payloadFile, event ? ['--event', event] : []);
        const bytes = fs.readFileSync(payloadFile);
        for (const payload of [bytes, bytes.toString('utf8'), JSON.parse(bytes)]) {
          const got = policy.hook(host, payload, { event });
          assert.deepEqual(
            { stdout: got.stdout, stderr: got.stderr, exitCode: got.exitCode },
            want,
            `${host} ${name}`,
          );
          assert.deepEqual(got.output, want.stdout === '' ? null : JSON.parse(want.stdout), `${host} ${name}`);
        }
      }
    });
  }
});

describe('failures', () => {
  const guard = path.join('examples', 'hosts', 'claude-code', 'guard.yaml');

  test('a payload that is not JSON, or not the host\'s, is the host\'s block; fail-open says why on stderr', () => {
    const policy = hookc.compile(guard, { quiet: true });
    const dir = tempDir();
    for (const text of ['{not json', '[1, 2]', '{"tool_name": "Bash"}']) {
      const file = path.join(dir, 'payload.json');
      fs.writeFileSync(file, text);
      for (const failOpen of [false, true]) {
        const want = cli('claude-code', guard, file, failOpen ? ['--fail-open'] : []);
        const got = policy.hook('claude-code', text, { failOpen });
        assert.deepEqual({ stdout: got.stdout, stderr: got.stderr, exitCode: got.exitCode }, want, text);
        assert.equal(got.exitCode, failOpen ? 0 : 2, text);
      }
    }
  });

  test('Copilot without an event is refused as the CLI refuses it', () => {
    const copilot = path.join('examples', 'hosts', 'copilot', 'guard.yaml');
    const policy = hookc.compile(copilot, { quiet: true });
    const file = path.join(CASES, 'copilot', 'cases', 'agentStop.second_stop.json');
    const got = policy.hook('copilot', fs.readFileSync(file));
    assert.deepEqual({ stdout: got.stdout, stderr: got.stderr, exitCode: got.exitCode }, cli('copilot', copilot, file));
    assert.match(got.stderr, /does not name its event/);
  });

  test('the decision log gets the line hookc hook --log appends', () => {
    const policy = hookc.compile(guard, { quiet: true });
    const dir = tempDir();
    const payload = path.join('examples', 'hosts', 'claude-code', 'payloads', 'rm-rf.json');
    const mine = path.join(dir, 'node.jsonl');
    const theirs = path.join(dir, 'cli.jsonl');
    policy.hook('claude-code', fs.readFileSync(payload), { log: mine });
    cli('claude-code', guard, payload, ['--log', theirs]);
    const line = (f) => {
      const entry = JSON.parse(fs.readFileSync(f, 'utf8'));
      assert.match(entry.time, /^\d{4}-\d\d-\d\dT/);
      assert.match(entry.decision_id, /^[0-9a-f]{32}$/);
      delete entry.time;
      delete entry.decision_id;
      return entry;
    };
    assert.deepEqual(line(mine), line(theirs));
  });

  test('arguments are checked: the host, the payload, the options', () => {
    const policy = hookc.compile(guard, { quiet: true });
    assert.throws(() => policy.hook('claud-code', {}), (e) => e instanceof hookc.HookcError && e.code === 'HOOKC_ARGUMENT' && /one of claude-code/.test(e.message));
    assert.throws(() => policy.hook(3, {}), TypeError);
    for (const payload of [undefined, null, 3, true]) {
      assert.throws(() => policy.hook('claude-code', payload), TypeError);
    }
    assert.throws(() => policy.hook('claude-code', {}, { fail_open: true }), /unknown option `fail_open`/);
    assert.throws(() => policy.hook('claude-code', {}, { failOpen: 'yes' }), TypeError);
    const cyclic = {};
    cyclic.self = cyclic;
    assert.throws(() => policy.hook('claude-code', cyclic), hookc.ContextError);
  });
});
