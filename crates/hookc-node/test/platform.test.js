// The prebuilt platform packages (platform.js, bin/hookc.js; scripts/dist
// packs them): the package name of this platform, the clear error on a
// platform without one, and the npm package's version being the
// workspace's one version.
'use strict';

const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const test = require('node:test');

const PKG = path.resolve(__dirname, '..');
const ROOT = path.resolve(PKG, '..', '..');
const platform = require(path.join(PKG, 'platform.js'));

test('the platform package is named hookc-<os>-<cpu>[-<libc>]', () => {
  const key = platform.platformKey();
  assert.match(key, /^[a-z0-9]+-[a-z0-9]+(-(gnu|musl|msvc))?$/);
  assert.equal(platform.packageName(), `hookc-${key}`);
  assert.ok(key.startsWith(`${process.platform}-${process.arch}`));
  if (process.platform === 'linux') {
    assert.match(key, /-(gnu|musl)$/);
  }
});

test('a platform without its package is told what to install', () => {
  // The checkout has no platform package installed.
  const missing = platform.locate('hookc.node');
  assert.ok(missing instanceof Error);
  assert.match(missing.message, new RegExp(`\`${platform.packageName()}\` is not installed`));
  assert.match(missing.message, /cargo install --path crates\/hookc-cli/);
  const run = spawnSync(process.execPath, [path.join(PKG, 'bin', 'hookc.js'), '--version'], {
    encoding: 'utf8',
  });
  assert.equal(run.status, 2);
  assert.match(run.stderr, /no prebuilt hookc for this platform/);
  assert.equal(run.stdout, '');
});

test("the npm package's version is the workspace's", () => {
  const cargo = fs.readFileSync(path.join(ROOT, 'Cargo.toml'), 'utf8');
  const workspace = cargo.match(/\[workspace\.package\][^[]*?\nversion = "([^"]+)"/);
  assert.ok(workspace, 'Cargo.toml has [workspace.package] version');
  assert.equal(require(path.join(PKG, 'package.json')).version, workspace[1]);
});
