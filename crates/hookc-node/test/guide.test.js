// The guide's TypeScript chapter (docs/src/embedding/typescript.md): its
// usage example runs as written, from the repository root, with `hookc`
// resolved to this package, and prints what the chapter says.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..', '..');
const PACKAGE = path.resolve(__dirname, '..');

test('the guide usage example runs and prints what it says', () => {
  const chapter = fs.readFileSync(path.join(ROOT, 'docs', 'src', 'embedding', 'typescript.md'), 'utf8');
  const start = chapter.indexOf('```js\n') + '```js\n'.length;
  assert.ok(start > '```js\n'.length, 'the chapter has a js block');
  const code = chapter.slice(start, chapter.indexOf('```', start));
  assert.match(code, /require\('hookc'\)/);
  // As an installed package would resolve: `hookc` is this package.
  const runnable = code.replace("require('hookc')", `require(${JSON.stringify(PACKAGE)})`);
  const run = spawnSync(process.execPath, ['-e', runnable], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, 'examples/thread-hooks/directive_hooks.yaml#directive[0] call_directive\ntrue\n');
});
