// The prebuilt platform packages (scripts/dist): the `hookc` package names
// one optional dependency per platform, `hookc-<os>-<cpu>[-<libc>]`
// (`hookc-linux-x64-gnu`, `hookc-darwin-arm64`, `hookc-win32-x64-msvc`),
// and npm installs the one whose `os`, `cpu` and `libc` match. This file
// is the one place that names them: the native addon (index.js) and the
// `hookc` command (bin/hookc.js) are found here, and scripts/dist asks it
// which package it is building.
'use strict';

const path = require('node:path');

/** The C library of this Linux process: `gnu` (glibc) or `musl`. */
function linuxLibc() {
  const report = process.report && process.report.getReport && process.report.getReport();
  const header = report && (typeof report === 'string' ? JSON.parse(report) : report).header;
  return header && header.glibcVersionRuntime ? 'gnu' : 'musl';
}

/** The platform key of this process (`linux-x64-gnu`). */
function platformKey() {
  const base = `${process.platform}-${process.arch}`;
  switch (process.platform) {
    case 'linux':
      return `${base}-${linuxLibc()}`;
    case 'win32':
      return `${base}-msvc`;
    default:
      return base;
  }
}

/** The name of this platform's package (`hookc-linux-x64-gnu`). */
function packageName() {
  return `hookc-${platformKey()}`;
}

/** The file name of the `hookc` command in a platform package. */
function commandName() {
  return process.platform === 'win32' ? 'hookc.exe' : 'hookc';
}

/**
 * The path of `file` (`hookc.node`, the command) in this platform's
 * package, or an Error that says what is missing and what to do.
 */
function locate(file) {
  const name = packageName();
  let dir;
  try {
    dir = path.dirname(require.resolve(`${name}/package.json`));
  } catch (_) {
    return new Error(
      `hookc: no prebuilt hookc for this platform (${platformKey()}): the package \`${name}\` ` +
        'is not installed. npm installs it with `hookc` when it exists for your platform ' +
        '(do not install with --no-optional); otherwise build from source with Rust: ' +
        '`cargo install --path crates/hookc-cli` and `npm install ./crates/hookc-node` in a hookc checkout.',
    );
  }
  return path.join(dir, file);
}

module.exports = { platformKey, packageName, commandName, locate };

if (require.main === module) {
  // `node platform.js`: the package name, for scripts/dist.
  process.stdout.write(`${packageName()}\n`);
}
