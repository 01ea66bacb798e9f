#!/usr/bin/env node
// Builds the native addon from the checkout: `cargo build -p hookc-node`
// (release unless HOOKC_NODE_PROFILE=debug), then copies the library
// cargo wrote to `hookc.node` beside package.json, which index.js loads.
//
//   node scripts/build.js               build and copy
//   node scripts/build.js --if-missing  nothing when hookc.node is there
//                                       (npm's `install` script: a packed
//                                       package carries its hookc.node)
//
// CARGO_TARGET_DIR is honoured; cargo must be on PATH (or in ~/.cargo/bin).
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const pkg = path.resolve(__dirname, '..');
const addon = path.join(pkg, 'hookc.node');

function main() {
  if (process.argv.includes('--if-missing') && fs.existsSync(addon)) {
    return 0;
  }
  const workspace = path.resolve(pkg, '..', '..');
  if (!fs.existsSync(path.join(workspace, 'Cargo.toml'))) {
    console.error(
      `hookc: ${addon} is missing and there is no hookc checkout around ${pkg} to build it from;\n` +
        'install from a checkout (npm install ./crates/hookc-node) or from a package made by `npm pack`.',
    );
    return 1;
  }
  const debug = process.env.HOOKC_NODE_PROFILE === 'debug';
  const cargo = findCargo();
  const args = ['build', '-p', 'hookc-node', '--lib'];
  if (!debug) args.push('--release');
  const run = spawnSync(cargo, args, { cwd: workspace, stdio: 'inherit' });
  if (run.error || run.status !== 0) {
    console.error(`hookc: \`${cargo} ${args.join(' ')}\` failed${run.error ? `: ${run.error.message}` : ''}`);
    return 1;
  }
  const target = process.env.CARGO_TARGET_DIR
    ? path.resolve(workspace, process.env.CARGO_TARGET_DIR)
    : path.join(workspace, 'target');
  const built = path.join(target, debug ? 'debug' : 'release', libraryName());
  // Copy to a temporary name, then rename: a process that has the old
  // addon loaded keeps its mapping, and no one sees half a file.
  const tmp = `${addon}.${process.pid}.tmp`;
  fs.copyFileSync(built, tmp);
  fs.renameSync(tmp, addon);
  return 0;
}

function libraryName() {
  switch (os.platform()) {
    case 'win32':
      return 'hookc_node.dll';
    case 'darwin':
      return 'libhookc_node.dylib';
    default:
      return 'libhookc_node.so';
  }
}

function findCargo() {
  const home = path.join(os.homedir(), '.cargo', 'bin', os.platform() === 'win32' ? 'cargo.exe' : 'cargo');
  const probe = spawnSync('cargo', ['--version'], { stdio: 'ignore' });
  if (!probe.error && probe.status === 0) return 'cargo';
  return fs.existsSync(home) ? home : 'cargo';
}

process.exitCode = main();
