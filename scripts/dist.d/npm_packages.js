// Stages and packs the npm packages of this platform (scripts/dist), in
// the layout the hosts' own CLIs use: `hookc`, the API (index.js) and the
// `hookc` command (bin/hookc.js), with one optional dependency per
// platform; and this platform's `hookc-<os>-<cpu>[-<libc>]` package
// (platform.js names it), holding the prebuilt command and addon, which
// npm installs only where its `os`, `cpu` and `libc` match.
//
//   node npm_packages.js VERSION OUT COMMAND ADDON
//
// Writes OUT/hookc-VERSION.tgz and OUT/hookc-<platform>-VERSION.tgz.
'use strict';

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const [version, out, command, addon] = process.argv.slice(2);
if (!addon) {
  console.error('usage: node npm_packages.js VERSION OUT COMMAND ADDON');
  process.exit(2);
}
const root = path.resolve(__dirname, '..', '..');
const source = path.join(root, 'crates', 'hookc-node');
const platform = require(path.join(source, 'platform.js'));
const base = JSON.parse(fs.readFileSync(path.join(source, 'package.json'), 'utf8'));
const stage = path.join(out, 'npm-stage');
fs.rmSync(stage, { recursive: true, force: true });

function copy(from, to, mode) {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(from, to);
  if (mode) fs.chmodSync(to, mode);
}

function pack(dir) {
  const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', path.resolve(out)], {
    cwd: dir,
    encoding: 'utf8',
  }).trim();
  console.log(`wrote ${path.join(out, name.split('\n').pop())}`);
}

const licenses = ['LICENSE-MIT', 'LICENSE-APACHE'];
const common = {
  version,
  license: base.license,
  engines: base.engines,
  repository: base.repository,
};

// This platform's package: the command and the addon.
const platformName = platform.packageName();
const [os_, cpu, libc] = platform.platformKey().split('-');
const platformDir = path.join(stage, platformName);
copy(command, path.join(platformDir, platform.commandName()), 0o755);
copy(addon, path.join(platformDir, 'hookc.node'));
for (const l of licenses) copy(path.join(root, l), path.join(platformDir, l));
fs.writeFileSync(
  path.join(platformDir, 'README.md'),
  `# ${platformName}\n\nThe prebuilt \`hookc\` command and Node addon for ${platform.platformKey()}. ` +
    'Install the `hookc` package, which depends on this one where it fits.\n',
);
const platformJson = {
  name: platformName,
  description: `The prebuilt hookc command and Node addon for ${platform.platformKey()}`,
  ...common,
  os: [os_],
  cpu: [cpu],
  ...(os_ === 'linux' && libc ? { libc: [libc === 'gnu' ? 'glibc' : libc] } : {}),
  files: [platform.commandName(), 'hookc.node', 'README.md', ...licenses],
};
fs.writeFileSync(path.join(platformDir, 'package.json'), `${JSON.stringify(platformJson, null, 2)}\n`);

// The `hookc` package: the API and the command, no build step.
const mainDir = path.join(stage, 'hookc');
for (const f of ['index.js', 'index.d.ts', 'platform.js', 'flat.js', 'README.md']) {
  copy(path.join(source, f), path.join(mainDir, f));
}
copy(path.join(source, 'bin', 'hookc.js'), path.join(mainDir, 'bin', 'hookc.js'), 0o755);
for (const l of licenses) copy(path.join(root, l), path.join(mainDir, l));
const mainJson = {
  name: base.name,
  description: base.description,
  ...common,
  main: base.main,
  types: base.types,
  bin: { hookc: 'bin/hookc.js' },
  files: ['index.js', 'index.d.ts', 'platform.js', 'flat.js', 'bin/hookc.js', 'README.md', ...licenses],
  optionalDependencies: { [platformName]: version },
};
fs.writeFileSync(path.join(mainDir, 'package.json'), `${JSON.stringify(mainJson, null, 2)}\n`);

pack(platformDir);
pack(mainDir);
