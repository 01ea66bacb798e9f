// Every error path of the Node package: arguments of the wrong type, JSON
// text that is not JSON, context values with no JSON form, reads that
// throw, unknown hook ids, compile and artifact errors, actions outside
// their declared types, the native entry point given junk. Each throws a
// typed error naming what to fix; none crashes the process, and the
// package keeps answering afterwards. The Node counterpart of the Python
// package's test_errors.py.
'use strict';

const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { describe, test, before } = require('node:test');

const hookc = require('..');
const { ROOT, tempDir } = require('./helpers.js');

const POLICY = `
hooks:
  - id: by_code
    event: error
    when: "error.code == 'E1'"
    action: {type: retry, max_attempts: 2}
  - id: by_list
    event: error
    when: "items[1] == 7"
    action: {type: abort}
  - id: echo
    event: limit
    when: "has(payload)"
    action: {type: emit_event, event_type: echo, payload: {value: "\${payload}"}}
`;

let policy;
let dir;
before(() => {
  policy = hookc.compileSources({ 'p.yaml': POLICY }, { quiet: true });
  dir = tempDir();
});

/** The payload `echo` reports for `context` (event `limit`). */
const echoed = (context) => {
  const got = policy.evaluate('limit', context);
  return got === null ? undefined : got.action.payload.value;
};

/** An assert.throws matcher: an instance of `Class` whose message matches. */
function fails(Class, pattern, code) {
  return (e) => {
    assert.ok(e instanceof Class, `expected a ${Class.name}, got ${e && e.constructor && e.constructor.name}: ${e && e.message}`);
    assert.match(e.message, pattern);
    if (code !== undefined) assert.equal(e.code, code);
    return true;
  };
}

/** The process still answers after an error. */
function stillWorks() {
  assert.equal(policy.decide('error', { error: { code: 'E1' } }), 'by_code');
  assert.equal(policy.decide('error', '{"error": {"code": "E1"}}'), 'by_code');
}

describe('argument types', () => {
  const others = [
    ['a number', 42],
    ['a float', 1.5],
    ['null', null],
    ['undefined', undefined],
    ['a boolean', true],
    ['a symbol', Symbol('ctx')],
    ['a function', () => ({})],
    ['a BigInt', 10n],
  ];
  for (const [what, context] of others) {
    test(`a context that is ${what} is a TypeError, for every question`, () => {
      for (const ask of ['evaluate', 'decide', 'evaluateAll', 'explain']) {
        assert.throws(() => policy[ask]('error', context), fails(TypeError, /the context must be an object/), ask);
        // Also for an event no hook names (no shortcut skips the check).
        assert.throws(() => policy[ask]('nope', context), fails(TypeError, /the context must be an object/), ask);
      }
    });
  }

  test('an array context is an object whose fields never resolve, as its JSON text `[...]` reads', () => {
    for (const ctx of [[1, 2], [], [{ error: { code: 'E1' } }]]) {
      assert.equal(policy.decide('error', ctx), null);
      assert.equal(policy.evaluate('error', ctx), null);
      assert.deepStrictEqual(policy.evaluateAll('error', ctx), policy.evaluateAll('error', JSON.stringify(ctx)));
      assert.deepStrictEqual(policy.explain('error', ctx), policy.explain('error', JSON.stringify(ctx)));
    }
  });

  test('JSON text whose top level is not an object reads as a context where no path resolves', () => {
    for (const text of ['null', '3', '"error"', '[1, 7]', 'true']) {
      assert.equal(policy.evaluate('error', text), null, text);
      assert.equal(policy.evaluate('limit', text), null, text);
      assert.equal(policy.evaluate('limit', Buffer.from(text)), null, text);
    }
  });

  for (const [what, event] of [
    ['a number', 1],
    ['undefined', undefined],
    ['a symbol', Symbol('error')],
    ['a Buffer', Buffer.from('error')],
    ['a String object', new String('error')],
  ]) {
    test(`an event that is ${what} is a TypeError`, () => {
      for (const ask of ['evaluate', 'decide', 'evaluateAll', 'explain']) {
        assert.throws(() => policy[ask](event, {}), fails(TypeError, /the event must be a string/), ask);
        assert.throws(() => policy[ask](event, '{}'), fails(TypeError, /the event must be a string/), ask);
      }
    });
  }

  test('options that are not an object are a TypeError', () => {
    for (const options of [[], 'by_code', 3, true]) {
      assert.throws(() => policy.evaluate('error', {}, options), fails(TypeError, /the options are an object/));
    }
    // An option the package does not know is a mistake, named with the
    // closest one it does.
    assert.throws(
      () => policy.evaluate('error', {}, { disabled: ['by_code'] }),
      fails(TypeError, /unknown option `disabled`; did you mean `disable`\?/),
    );
    // null and an empty object are no options.
    assert.equal(policy.decide('error', { error: { code: 'E1' } }, null), 'by_code');
    assert.equal(policy.decide('error', { error: { code: 'E1' } }, {}), 'by_code');
  });
});

describe('JSON text', () => {
  for (const [text, where] of [
    ['{', 'line 1 column 1'],
    ['{"a": 1,}', 'line 1 column 9'],
    ['{}\n x', 'line 2 column 2'],
    ['', 'line 1 column 0'],
  ]) {
    test(`invalid JSON ${JSON.stringify(text)} is a ContextError naming ${where}, as a string and as a Buffer`, () => {
      for (const form of [text, Buffer.from(text), new Uint8Array(Buffer.from(text))]) {
        for (const ask of ['evaluate', 'decide', 'evaluateAll', 'explain']) {
          assert.throws(
            () => policy[ask]('error', form),
            fails(hookc.ContextError, new RegExp(`not valid JSON.*${where}`), 'HOOKC_CONTEXT'),
          );
        }
      }
      stillWorks();
    });
  }

  test('bytes that are not UTF-8 are a ContextError', () => {
    const bytes = Buffer.concat([Buffer.from('{"a": "'), Buffer.from([0xff]), Buffer.from('"}')]);
    assert.throws(() => policy.evaluate('error', bytes), fails(hookc.ContextError, /not valid JSON.*utf-8/i, 'HOOKC_CONTEXT'));
    // Also for an event no hook names: text is always read.
    assert.throws(() => policy.evaluate('nope', bytes), hookc.ContextError);
  });

  test('invalid text for an event no hook names is still a ContextError', () => {
    assert.throws(() => policy.evaluate('nope', '{'), hookc.ContextError);
    assert.throws(() => policy.decide('nope', '{'), hookc.ContextError);
  });
});

describe('disable', () => {
  test('an unknown hook id is a HookcError (HOOKC_ARGUMENT) suggesting a close one', () => {
    for (const event of ['error', 'nope']) {
      for (const ctx of [{}, '{}']) {
        assert.throws(
          () => policy.evaluate(event, ctx, { disable: ['by_cod'] }),
          fails(hookc.HookcError, /no hook has the id `by_cod`; did you mean `by_code`\?/, 'HOOKC_ARGUMENT'),
        );
      }
    }
  });

  test('disable that is not an array of strings is a TypeError', () => {
    for (const disable of ['by_code', [1], { by_code: true }, [null], 7]) {
      assert.throws(
        () => policy.evaluate('error', {}, { disable }),
        fails(TypeError, /`disable` takes an array of hook ids/),
        JSON.stringify(disable),
      );
    }
  });

  test('a disabled hook does not match; null disable is none', () => {
    const ctx = { error: { code: 'E1' } };
    assert.equal(policy.decide('error', ctx, { disable: ['by_code'] }), null);
    assert.equal(policy.decide('error', ctx, { disable: null }), 'by_code');
    assert.equal(policy.decide('error', ctx, { disable: [] }), 'by_code');
  });
});

describe('context values with no JSON form', () => {
  for (const [what, value, found] of [
    ['NaN', NaN, /`payload` is NaN, which JSON cannot hold/],
    ['Infinity', Infinity, /`payload` is Infinity, which JSON cannot hold/],
    ['-Infinity', -Infinity, /`payload` is -Infinity, which JSON cannot hold/],
    ['a Date', new Date(0), /`payload` is an object with a `toJSON` method/],
    ['a Buffer (it has toJSON)', Buffer.from('ab'), /`payload` is an object with a `toJSON` method/],
    ['a BigInt beyond 64 bits', 2n ** 70n, /`payload` is a BigInt beyond 64 bits/],
    ['a BigInt below -2^63', -(2n ** 63n) - 1n, /`payload` is a BigInt beyond 64 bits/],
  ]) {
    test(`${what} at a read path is a ContextError naming the path, for every question`, () => {
      for (const ask of ['evaluate', 'decide', 'evaluateAll', 'explain']) {
        assert.throws(() => policy[ask]('limit', { payload: value }), fails(hookc.ContextError, found, 'HOOKC_CONTEXT'), ask);
      }
      stillWorks();
    });
  }

  test('a value with no JSON form nested inside a read value names its full path', () => {
    assert.throws(
      () => policy.evaluate('limit', { payload: { a: [1, { b: NaN }] } }),
      fails(hookc.ContextError, /`payload\.a\[1\]\.b` is NaN/),
    );
    assert.throws(
      () => policy.evaluate('error', { error: { code: new Date(0) } }),
      fails(hookc.ContextError, /`error\.code` is an object with a `toJSON` method/),
    );
  });

  test('undefined, functions and symbols read as missing where JSON.stringify leaves them out', () => {
    for (const value of [undefined, () => 1, Symbol('s')]) {
      const ctx = { payload: value };
      assert.equal(policy.evaluate('limit', ctx), null);
      assert.equal(policy.evaluate('limit', ctx), policy.evaluate('limit', JSON.stringify(ctx)));
      // Inside a read value: left out of objects, null in arrays.
      const nested = { payload: { a: value, b: 1, list: [value, 2] } };
      assert.deepStrictEqual(echoed(nested), { b: 1, list: [null, 2] });
      assert.deepStrictEqual(policy.evaluate('limit', nested), policy.evaluate('limit', JSON.stringify(nested)));
    }
  });

  test('a BigInt that fits 64 bits is a number, as in JSON text', () => {
    for (const big of [5n, -(2n ** 63n), 2n ** 60n, 2n ** 64n - 1n]) {
      const got = policy.evaluate('limit', { payload: big });
      assert.deepStrictEqual(got, policy.evaluate('limit', `{"payload": ${big}}`), String(big));
      assert.equal(typeof got.action.payload.value, 'number');
      assert.equal(got.action.payload.value, Number(big));
    }
    // And a BigInt is compared as a number.
    assert.equal(policy.decide('error', { items: [0, 7n] }), 'by_list');
  });

  test('values the policy does not read are never looked at', () => {
    let fired = 0;
    const ctx = {
      error: {
        code: 'E1',
        get other() {
          fired += 1;
          throw new Error('read an unread key');
        },
      },
      get junk() {
        fired += 1;
        throw new Error('read an unread key');
      },
      n: NaN,
      d: new Date(0),
      big: 2n ** 100n,
    };
    assert.equal(policy.decide('error', ctx), 'by_code');
    assert.deepStrictEqual(policy.evaluate('error', ctx), policy.evaluate('error', '{"error": {"code": "E1"}}'));
    assert.ok(policy.explain('error', ctx));
    assert.equal(fired, 0);
  });

  test('steps of the wrong kind do not resolve (a field of an array or a scalar, an index of an object)', () => {
    for (const ctx of [{ error: [1] }, { error: 'E1' }, { items: { 1: 7 } }, { items: 'x7' }, { error: { code: ['E1'] } }]) {
      assert.equal(policy.decide('error', ctx), null, JSON.stringify(ctx));
      assert.equal(policy.decide('error', JSON.stringify(ctx)), null, JSON.stringify(ctx));
    }
  });
});

describe('reads that throw', () => {
  test('a getter that throws is a ContextError with its message, naming the path; the process keeps working', () => {
    const ctx = {
      error: {
        get code() {
          throw new Error('backend down');
        },
      },
    };
    for (const ask of ['evaluate', 'decide', 'evaluateAll', 'explain']) {
      assert.throws(
        () => policy[ask]('error', ctx),
        fails(hookc.ContextError, /reading the context at `error\.code` threw: backend down/, 'HOOKC_CONTEXT'),
        ask,
      );
      stillWorks();
    }
  });

  test('a Proxy whose get trap throws is a ContextError with the thrown message', () => {
    const ctx = {
      error: new Proxy(
        {},
        {
          get() {
            throw new RangeError('trap down');
          },
        },
      ),
    };
    assert.throws(() => policy.evaluate('error', ctx), fails(hookc.ContextError, /at `error\.code` threw: trap down/));
    stillWorks();
  });

  test('a Proxy whose ownKeys trap throws, converted whole, is a ContextError', () => {
    const payload = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('keys down');
        },
      },
    );
    assert.throws(() => policy.evaluate('limit', { payload }), fails(hookc.ContextError, /`payload` threw: keys down/));
    stillWorks();
  });

  test('a getter deep inside a read value that throws names where it was read', () => {
    const payload = {
      a: [
        1,
        {
          get b() {
            throw new Error('deep');
          },
        },
      ],
    };
    assert.throws(() => policy.evaluate('limit', { payload }), fails(hookc.ContextError, /`payload\.a\[1\]` threw: deep/));
    stillWorks();
  });

  test('a getter that throws something that is not an Error is still a ContextError', () => {
    const ctx = {
      error: {
        get code() {
          throw 'a plain string';
        },
      },
    };
    assert.throws(
      () => policy.evaluate('error', ctx),
      fails(hookc.ContextError, /reading the context at `error\.code` threw: "a plain string" was thrown/),
    );
    const numeric = { error: { get code() { throw 42; } } };
    assert.throws(() => policy.evaluate('error', numeric), fails(hookc.ContextError, /threw: 42 was thrown/));
    stillWorks();
  });

  test('a self-containing object or array is a ContextError (too deep), not a crash', () => {
    const loop = {};
    loop.self = loop;
    const list = [];
    list.push(list);
    for (const payload of [loop, list]) {
      assert.throws(
        () => policy.evaluate('limit', { payload }),
        fails(hookc.ContextError, /nests deeper than 127 arrays and objects/, 'HOOKC_CONTEXT'),
      );
      stillWorks();
    }
  });
  test('a getter that evaluates with the same policy while it is read (re-entrancy) answers both calls', () => {
    let inner;
    const ctx = {
      error: {
        get code() {
          inner = policy.evaluateAll('error', { error: { code: 'E1' }, items: [0, 7] });
          assert.throws(() => policy.evaluate('limit', { payload: NaN }), hookc.ContextError);
          return 'E1';
        },
      },
    };
    assert.equal(policy.decide('error', ctx), 'by_code');
    assert.deepStrictEqual(inner.map((m) => m.hook), ['by_code', 'by_list']);
    stillWorks();
  });

  test('a sparse array of length 2^32-1 at a read path is refused quickly, not converted element by element', () => {
    const script = `
      const hookc = require(${JSON.stringify(path.resolve(__dirname, '..'))});
      const p = hookc.compileSources({'p.yaml': ${JSON.stringify(POLICY)}}, {quiet: true});
      try { p.evaluate('limit', {payload: new Array(2 ** 32 - 1)}); console.log('answered'); }
      catch (e) { console.log(e.name); }
    `;
    const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 3000 });
    assert.equal(run.signal, null, 'still converting after 3 s (killed)');
    assert.equal(run.stdout.trim(), 'ContextError');
  });
});

describe('compile', () => {
  test('compile errors carry the rendered text and the diagnostics (CompileError, HOOKC_COMPILE)', () => {
    const src = 'hooks:\n  - id: a\n    event: error\n    when: "x =="\n    action: {type: retry}\n';
    assert.throws(
      () => hookc.compileSources({ 'bad.yaml': src }),
      (e) => {
        assert.ok(e instanceof hookc.CompileError);
        assert.ok(e instanceof hookc.HookcError);
        assert.equal(e.code, 'HOOKC_COMPILE');
        assert.equal(e.name, 'CompileError');
        assert.match(e.message, /error\[/);
        assert.match(e.message, /bad\.yaml:4/);
        const errors = e.diagnostics.filter((d) => d.severity === 'error');
        assert.equal(errors.length, 1);
        const [d] = errors;
        assert.equal(d.file, 'bad.yaml');
        assert.equal(d.line, 4);
        for (const key of ['code', 'severity', 'message', 'file', 'line', 'column']) assert.ok(key in d, key);
        assert.match(d.code, /^E\d{4}$/);
        return true;
      },
    );
  });

  test('the diagnostics of a CompileError are what `hookc check --format json` prints', () => {
    const src = 'hooks:\n  - id: a\n    event: error\n    when: "x =="\n    action: {type: retry}\n';
    const file = path.join(dir, 'bad.yaml');
    fs.writeFileSync(file, src);
    const { cli } = require('./helpers.js');
    const run = cli('check', '--format', 'json', file, { raw: true });
    assert.notEqual(run.status, 0);
    // One diagnostic per line.
    const printed = run.stdout.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
    let thrown;
    try {
      hookc.compile(file);
    } catch (e) {
      thrown = e;
    }
    assert.ok(thrown instanceof hookc.CompileError);
    assert.ok(printed.length > 0);
    assert.deepStrictEqual(thrown.diagnostics, printed);
  });

  test('compile of a missing file is a HookcError with code ENOENT naming the file', () => {
    const missing = path.join(dir, 'nope.yaml');
    for (const call of [() => hookc.compile(missing), () => hookc.compile([missing]), () => hookc.compile({ layers: { base: missing } })]) {
      assert.throws(call, (e) => {
        assert.ok(e instanceof hookc.HookcError);
        assert.equal(e.code, 'ENOENT');
        assert.equal(e.errno, -2);
        assert.ok(e.message.includes('nope.yaml'), e.message);
        return true;
      });
    }
  });

  test('compile arguments are checked (TypeError, or HookcError HOOKC_ARGUMENT for a bad layer name)', () => {
    const file = path.join(dir, 'p.yaml');
    fs.writeFileSync(file, POLICY);
    assert.throws(() => hookc.compile(), fails(TypeError, /file paths/));
    assert.throws(() => hookc.compile(42), fails(TypeError, /file paths/));
    assert.throws(() => hookc.compile([]), fails(TypeError, /file paths/));
    assert.throws(() => hookc.compile([file, 1]), fails(TypeError, /file paths/));
    assert.throws(() => hookc.compile({}), fails(TypeError, /\{layers: \{name: paths\}\}/));
    assert.throws(() => hookc.compile({ layers: [file] }), fails(TypeError, /\{layers: \{name: paths\}\}/));
    assert.throws(() => hookc.compile({ layers: { base: 7 } }), fails(TypeError, /layer `base` takes file paths/));
    assert.throws(() => hookc.compile({ layers: {} }), fails(TypeError, /names at least one layer/));
    assert.throws(() => hookc.compile({ layers: { '9 bad': file } }), fails(hookc.HookcError, /is not a layer name/, 'HOOKC_ARGUMENT'));
    assert.throws(() => hookc.compileSources(['p.yaml']), fails(TypeError, /compileSources takes \{name: text\}/));
    assert.throws(() => hookc.compileSources(null), fails(TypeError, /compileSources takes \{name: text\}/));
    assert.throws(() => hookc.compileSources({ 'p.yaml': 1 }), fails(TypeError, /the source `p\.yaml` must be a string/));
    assert.throws(() => hookc.compileSources({}), fails(hookc.HookcError, /no policy given/, 'HOOKC_ARGUMENT'));
  });

  test('compile accepts one path, an array of paths, and layers of one path or several', () => {
    const file = path.join(dir, 'p.yaml');
    fs.writeFileSync(file, POLICY);
    for (const p of [
      hookc.compile(file, { quiet: true }),
      hookc.compile([file], { quiet: true }),
      hookc.compile({ layers: { base: file }, quiet: true }),
      hookc.compile({ layers: { base: [file] }, quiet: true }),
    ]) {
      assert.ok(p instanceof hookc.Policy);
      assert.equal(p.decide('error', { error: { code: 'E1' } }), 'by_code');
    }
  });

  test('warnings are emitted as PolicyWarnings, kept in policy.warnings, and not emitted with {quiet: true}', async () => {
    const seen = [];
    const listen = (w) => {
      if (w.name === 'PolicyWarning') seen.push(w);
    };
    process.on('warning', listen);
    try {
      const loud = hookc.compileSources({ 'p.yaml': POLICY });
      // process.emitWarning emits on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(seen.length, 1);
      assert.ok(loud.warnings.length > 0);
      assert.ok(loud.warnings.every((d) => d.severity === 'warning' && /^W\d{4}$/.test(d.code)));
      assert.equal(seen[0].code, loud.warnings[0].code);
      assert.match(seen[0].message, /warning\[W\d{4}\]/);
      // The copy handed out is the caller's to change.
      loud.warnings.pop();
      assert.ok(loud.warnings.length > 0);

      const quiet = hookc.compileSources({ 'p.yaml': POLICY }, { quiet: true });
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(seen.length, 1, 'quiet emits nothing');
      assert.deepStrictEqual(quiet.warnings, loud.warnings);
    } finally {
      process.off('warning', listen);
    }
  });

  test('a duplicate condition is a W0008 PolicyWarning', async () => {
    const src = `${POLICY}  - id: dup\n    event: error\n    when: "error.code == 'E1'"\n    action: {type: abort}\n`;
    const p = hookc.compileSources({ 'p.yaml': src }, { quiet: true });
    assert.ok(p.warnings.some((d) => d.code === 'W0008'), JSON.stringify(p.warnings.map((d) => d.code)));
  });
});

describe('artifacts', () => {
  for (const [what, data] of [
    ['empty bytes', Buffer.alloc(0)],
    ['bytes that are not an artifact', Buffer.from('not an artifact')],
    ['the wrong magic and zeros', Buffer.concat([Buffer.from('HKBC'), Buffer.alloc(40)])],
    ['a Uint8Array of junk', new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9])],
  ]) {
    test(`${what} are an ArtifactError`, () => {
      assert.throws(
        () => hookc.Policy.fromArtifact(data),
        fails(hookc.ArtifactError, /cannot load the policy artifact/, 'HOOKC_ARTIFACT'),
      );
    });
  }

  test('a damaged artifact is an ArtifactError; an artifact that is not bytes is a TypeError', () => {
    const data = policy.toArtifact();
    for (const at of [data.length >> 1, data.length - 1, 20]) {
      const damaged = Buffer.from(data);
      damaged[at] ^= 0xff;
      assert.throws(() => hookc.Policy.fromArtifact(damaged), fails(hookc.ArtifactError, /cannot load the policy artifact/));
    }
    assert.throws(() => hookc.Policy.fromArtifact(data.subarray(0, data.length - 1)), hookc.ArtifactError);
    for (const other of [data.toString('latin1'), data.buffer, [...data], null, undefined]) {
      assert.throws(() => hookc.Policy.fromArtifact(other), fails(TypeError, /an artifact is a Buffer or Uint8Array/));
    }
  });
});

describe('evaluation errors', () => {
  test('an action outside its declared type is an EvaluationError; decide still names the hook', () => {
    const file = path.join(ROOT, 'crates/hookc-cli/tests/data/policy_tests/typed_results.yaml');
    const typed = hookc.compile(file, { quiet: true });
    const ctx = { limit_code: 'nuke', limit_max: 5 };
    for (const form of [ctx, JSON.stringify(ctx), Buffer.from(JSON.stringify(ctx))]) {
      for (const ask of ['evaluate', 'evaluateAll']) {
        assert.throws(
          () => typed[ask]('limit', form),
          fails(hookc.EvaluationError, /`target` of action `escalate` is "nuke"/, 'HOOKC_EVALUATION'),
          ask,
        );
      }
      // `decide` and `explain` build no action.
      assert.equal(typed.decide('limit', form), 'escalate_budget');
      assert.equal(typed.explain('limit', form).winner, 'escalate_budget');
    }
  });
});

describe('the native entry point and the Policy class', () => {
  test('a non-handle passed to the native ask is a HOOKC_TYPE error, not a crash', () => {
    const native = require('../hookc.node');
    for (const junk of [{}, null, undefined, 0, 'handle', () => {}, [], native, Symbol('h')]) {
      assert.throws(() => native.ask(junk, 0, 'e', {}), (e) => e instanceof Error && /^HOOKC_TYPE: not a policy handle/.test(e.message));
    }
    assert.throws(() => native.ask(), /^Error: HOOKC_TYPE: not a policy handle/);
    stillWorks();
  });

  test('a real handle with an unknown question is a HOOKC_TYPE error', () => {
    const native = require('../hookc.node');
    const handle = native.compileSources([['p.yaml', POLICY]]).policy().handle();
    assert.equal(native.ask(handle, 1, 'error', { error: { code: 'E1' } }), 'by_code');
    for (const question of [4, -1, 0.5, 1.5, NaN, 'decide', undefined, null]) {
      assert.throws(() => native.ask(handle, question, 'error', {}), /^Error: HOOKC_TYPE: not a question/);
    }
  });

  test('new Policy() by hand is a TypeError', () => {
    assert.throws(() => new hookc.Policy(), fails(TypeError, /hookc\.Policy is made by compile\(\)/));
    assert.throws(() => new hookc.Policy({}, []), fails(TypeError, /hookc\.Policy is made by compile\(\)/));
    assert.throws(() => new hookc.Policy(policy, []), TypeError);
  });

  test('the error classes form a hierarchy with stable codes and names', () => {
    for (const Class of [hookc.CompileError, hookc.ArtifactError, hookc.ContextError, hookc.EvaluationError]) {
      assert.ok(Object.prototype.isPrototypeOf.call(hookc.HookcError, Class), Class.name);
    }
    assert.ok(Object.prototype.isPrototypeOf.call(Error, hookc.HookcError));
    let thrown;
    try {
      policy.evaluate('limit', { payload: NaN });
    } catch (e) {
      thrown = e;
    }
    assert.equal(thrown.name, 'ContextError');
    assert.ok(thrown.stack.includes('ContextError'));
  });
});
