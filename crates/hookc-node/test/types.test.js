// The TypeScript declarations (index.d.ts) match the package: every
// export, every Policy method, getter and static declared exists at run
// time and nothing exported is undeclared; the interfaces name the fields
// the answers carry; and test/types/usage.ts, which uses every
// declaration (and misuses a few, `@ts-expect-error`), type-checks with
// `tsc --noEmit --strict`. The compiler is $HOOKC_TSC, else
// node_modules/.bin/tsc of the package or the repository, run with no
// ambient types (Node's included: the declarations need none). Without a
// compiler the tsc test skips, saying so; scripts/test-all installs one.
'use strict';

const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { describe, test } = require('node:test');

const hookc = require('..');
const { ROOT, PKG, SEED_POLICY, tempDir } = require('./helpers.js');

const DTS = fs.readFileSync(path.join(PKG, 'index.d.ts'), 'utf8');

/** The body of `export (class|interface) NAME ... { ... }` in index.d.ts. */
function block(kind, name) {
  const start = new RegExp(`^export ${kind} ${name}\\b[^{]*\\{`, 'm').exec(DTS);
  assert.ok(start, `index.d.ts declares ${kind} ${name}`);
  let depth = 1;
  let i = start.index + start[0].length;
  const from = i;
  for (; i < DTS.length && depth > 0; i++) {
    if (DTS[i] === '{') depth += 1;
    else if (DTS[i] === '}') depth -= 1;
  }
  // Comments out, so their words are not read as members.
  return DTS.slice(from, i - 1).replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
}

/** The declared fields of an interface: {name: required?}, and whether it
 * has an index signature. */
function fields(name) {
  const body = block('interface', name);
  const out = {};
  for (const m of body.matchAll(/^\s*(?:readonly\s+)?([A-Za-z_]\w*)(\?)?\s*:/gm)) out[m[1]] = !m[2];
  return { fields: out, open: /^\s*\[\w+: string\]:/m.test(body) };
}

/** The runtime names index.d.ts exports (functions, classes, consts). */
function declaredExports() {
  return new Set([...DTS.matchAll(/^export (?:declare )?(?:function|class|const|let) ([A-Za-z_]\w*)/gm)].map((m) => m[1]));
}

function policyMembers() {
  const body = block('class', 'Policy');
  const statics = new Set();
  const methods = new Set();
  const getters = new Set();
  for (const line of body.split('\n')) {
    let m;
    if ((m = /^\s*static\s+(\w+)\s*\(/.exec(line))) statics.add(m[1]);
    else if ((m = /^\s*readonly\s+(\w+)\s*:/.exec(line))) getters.add(m[1]);
    else if ((m = /^\s*(?!private\b|constructor\b)(\w+)\s*\(/.exec(line))) methods.add(m[1]);
  }
  return { statics, methods, getters };
}

describe('index.d.ts against the package at run time', () => {
  test('every declared export exists, and nothing exported is undeclared', () => {
    const declared = declaredExports();
    assert.ok(declared.size >= 9, [...declared].join(', '));
    assert.deepStrictEqual(new Set(Object.keys(hookc)), declared);
    for (const name of declared) {
      if (/^export class /m.test(DTS) && new RegExp(`^export class ${name}\\b`, 'm').test(DTS)) {
        assert.equal(typeof hookc[name], 'function', `${name} is a class`);
      }
      if (new RegExp(`^export function ${name}\\b`, 'm').test(DTS)) assert.equal(typeof hookc[name], 'function', name);
    }
    assert.equal(typeof hookc.version, 'string');
  });

  test('every declared Policy method, getter and static exists as declared, and no public one is undeclared', () => {
    const { statics, methods, getters } = policyMembers();
    assert.ok(methods.has('evaluate') && getters.has('hookIds') && statics.has('fromArtifact'));
    const proto = hookc.Policy.prototype;
    const actualMethods = new Set();
    const actualGetters = new Set();
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === 'constructor') continue;
      const d = Object.getOwnPropertyDescriptor(proto, name);
      if (d.get) actualGetters.add(name);
      else if (typeof d.value === 'function') actualMethods.add(name);
    }
    assert.deepStrictEqual(actualMethods, methods);
    assert.deepStrictEqual(actualGetters, getters);
    for (const name of getters) {
      assert.equal(Object.getOwnPropertyDescriptor(proto, name).set, undefined, `${name} is read-only`);
    }
    const actualStatics = new Set(
      Object.getOwnPropertyNames(hookc.Policy).filter((n) => !['length', 'name', 'prototype'].includes(n) && typeof hookc.Policy[n] === 'function'),
    );
    assert.deepStrictEqual(actualStatics, statics);
  });

  test('every error class declared is a HookcError with the declared code', () => {
    const codes = {};
    for (const m of DTS.matchAll(/^export class (\w+) extends HookcError \{\s*readonly code: '(\w+)'/gm)) codes[m[1]] = m[2];
    assert.deepStrictEqual(Object.keys(codes).sort(), ['ArtifactError', 'CompileError', 'ContextError', 'EvaluationError']);
    const made = {
      CompileError: () => hookc.compileSources({ 'b.yaml': 'hooks: [' }, { quiet: true }),
      ArtifactError: () => hookc.Policy.fromArtifact(Buffer.from('junk')),
      ContextError: () => hookc.compileSources({ 'p.yaml': 'hooks: []' }, { quiet: true }).evaluate('e', '{'),
      EvaluationError: () =>
        hookc.compile(path.join(ROOT, 'crates/hookc-cli/tests/data/policy_tests/typed_results.yaml'), { quiet: true }).evaluate('limit', { limit_code: 'nuke', limit_max: 5 }),
    };
    for (const [name, code] of Object.entries(codes)) {
      assert.throws(made[name], (e) => e instanceof hookc[name] && e instanceof hookc.HookcError && e.code === code && e.name === name, name);
    }
  });

  const POLICY = `
combine: strictest
on_error: {action: {type: deny, reason: "error in \${policy_error.hook}"}}
action_types:
  deny: {severity: 30, parameters: {reason: {type: string}}}
  note: {effect: collected, parameters: {text: {type: string}}}
  rewrite: {effect: transform, parameters: {patch: {type: object}}}
  git: {effect: await, bind: git.branch, parameters: {argv: {type: array}}}
hooks:
  - {id: noted, event: E, action: {type: note, text: seen}}
  - {id: bad, event: E, when: "has(n) && n > 3", action: {type: deny, reason: "too many"}}
  - {id: rw, event: E, when: "has(cmd)", action: {type: rewrite, patch: {cmd: "x \${cmd}"}}}
  - {id: wait, event: E, when: "has(cmd)", action: {type: git, argv: [git]}}
`;

  function answers() {
    const p = hookc.compileSources({ 'm.yaml': POLICY }, { quiet: true });
    return {
      failed: p.evaluate('E', { n: 'many' }),
      suspended: p.evaluate('E', { cmd: 'ls' }),
      collected: p.evaluate('E', {}),
      all: p.evaluateAll('E', { cmd: 'ls' }),
      trace: p.explain('E', { cmd: 'ls' }),
    };
  }

  /** Asserts `value` has every required field of `iface` and, unless it
   * is open (an index signature), no undeclared one. */
  function conforms(value, iface, where) {
    const { fields: f, open } = fields(iface);
    for (const [name, required] of Object.entries(f)) {
      if (required) assert.ok(name in value, `${where}: ${iface}.${name} is required, missing from ${JSON.stringify(value)}`);
    }
    if (!open) {
      for (const key of Object.keys(value)) assert.ok(key in f, `${where}: \`${key}\` is not declared in ${iface}`);
    }
  }

  test('a host answer carries the fields HookReply declares', () => {
    const guard = path.join(ROOT, 'examples', 'hosts', 'claude-code', 'guard.yaml');
    const p = hookc.compile(guard, { quiet: true });
    const deny = { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'rm -rf /' } };
    for (const payload of [deny, '{not json']) conforms(p.hook('claude-code', payload), 'HookReply', JSON.stringify(payload));
  });

  test('answers carry the fields FullDecision, Match, Action and Trace declare', () => {
    const a = answers();
    for (const key of ['failed', 'suspended', 'collected']) conforms(a[key], 'FullDecision', key);
    assert.ok(a.suspended.transforms && a.suspended.pending && a.suspended.patched && a.collected.collected && a.failed.errors);
    for (const m of [...a.all, a.suspended.pending, ...a.suspended.transforms, ...a.collected.collected]) {
      conforms(m, 'Match', 'match');
      conforms(m.action, 'Action', 'action');
    }
    conforms(a.trace, 'Trace', 'trace');
  });

  test('a hook failure carries the fields HookFailure declares', () => {
    const { failed } = answers();
    assert.ok(failed.errors.length > 0);
    for (const e of failed.errors) conforms(e, 'HookFailure', 'errors[]');
  });

  test('diagnostics carry only the fields Diagnostic declares', () => {
    const seen = [...hookc.compile(SEED_POLICY, { quiet: true }).warnings];
    try {
      hookc.compileSources({ 'bad.yaml': 'hooks:\n  - id: a\n    event: e\n    when: "x =="\n    action: {type: abort}\n' });
    } catch (e) {
      seen.push(...e.diagnostics);
    }
    assert.ok(seen.some((d) => d.severity === 'error') && seen.some((d) => d.severity === 'warning'));
    assert.ok(seen.some((d) => d.help !== undefined) && seen.some((d) => d.notes !== undefined));
    for (const d of seen) conforms(d, 'Diagnostic', d.code);
  });
});

/** The TypeScript compiler to use, or null. */
function findTsc() {
  if (process.env.HOOKC_TSC) return process.env.HOOKC_TSC;
  const bin = process.platform === 'win32' ? 'tsc.cmd' : 'tsc';
  for (const dir of [PKG, ROOT]) {
    const tsc = path.join(dir, 'node_modules', '.bin', bin);
    if (fs.existsSync(tsc)) return tsc;
  }
  return null;
}

const TSC = findTsc();
const SKIP = TSC
  ? false
  : 'no TypeScript compiler: set HOOKC_TSC to a tsc, or `npm install --no-save typescript` in crates/hookc-node';

test('test/types/usage.ts type-checks against index.d.ts with tsc --noEmit --strict', { skip: SKIP }, () => {
  // A tsconfig in a temporary directory: `"types": []` (no ambient types,
  // Node's included: the declarations stand alone) has no command-line
  // spelling every TypeScript version takes.
  const dir = tempDir();
  const config = path.join(dir, 'tsconfig.json');
  fs.writeFileSync(
    config,
    JSON.stringify({
      compilerOptions: {
        noEmit: true,
        strict: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        types: [],
      },
      files: [path.join(PKG, 'test', 'types', 'usage.ts')],
    }),
  );
  const run = spawnSync(TSC, ['-p', config], {
    cwd: PKG,
    encoding: 'utf8',
    timeout: 120000,
    shell: process.platform === 'win32',
  });
  assert.ifError(run.error);
  assert.equal(run.status, 0, `tsc failed:\n${run.stdout}${run.stderr}`);
});

test('usage.ts uses every export index.d.ts declares', () => {
  const usage = fs.readFileSync(path.join(__dirname, 'types', 'usage.ts'), 'utf8');
  const typeNames = [...DTS.matchAll(/^export (?:interface|type) (\w+)/gm)].map((m) => m[1]);
  for (const name of [...declaredExports(), ...typeNames]) {
    assert.match(usage, new RegExp(`\\b${name}\\b`), `usage.ts does not use ${name}`);
  }
  const { statics, methods, getters } = policyMembers();
  for (const name of [...statics, ...methods, ...getters]) {
    assert.match(usage, new RegExp(`\\.${name}\\b`), `usage.ts does not use Policy.${name}`);
  }
});
