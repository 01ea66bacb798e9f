// Shared helpers of the hookc Node package's tests: the repository root,
// the `hookc` command to compare with (found as the Python package's
// conftest finds it), the seed bench contexts, and temporary directories
// (the only place the tests write).
'use strict';

const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/** The repository root: crates/hookc-node/test/ is three levels down. */
const ROOT = path.resolve(__dirname, '..', '..', '..');
const PKG = path.resolve(__dirname, '..');
const SEED = path.join(ROOT, 'crates', 'hookc', 'benches', 'data', 'seed');
const SEED_POLICY = path.join(SEED, 'policy.yaml');

/** The `hookc` command: $HOOKC_BIN, else the cargo target dir's build. */
function hookcBin() {
  if (process.env.HOOKC_BIN) return process.env.HOOKC_BIN;
  const target = process.env.CARGO_TARGET_DIR
    ? path.resolve(ROOT, process.env.CARGO_TARGET_DIR)
    : path.join(ROOT, 'target');
  for (const profile of ['debug', 'release']) {
    const exe = path.join(target, profile, process.platform === 'win32' ? 'hookc.exe' : 'hookc');
    if (fs.existsSync(exe)) return exe;
  }
  throw new Error(`no hookc binary under ${target}: run \`cargo build -p hookc-cli\` or set HOOKC_BIN`);
}

/** Runs `hookc ...args` in ROOT and returns its standard output (as
 * `{status, stdout, stderr}` with `{raw: true}` as the last argument,
 * without asserting the exit status). */
function cli(...args) {
  let raw = false;
  if (args.length > 0 && typeof args[args.length - 1] === 'object') {
    raw = Boolean(args.pop().raw);
  }
  const run = spawnSync(hookcBin(), args, {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (run.error) throw run.error;
  if (raw) return { status: run.status, stdout: run.stdout, stderr: run.stderr };
  assert.equal(run.status, 0, `hookc ${args.join(' ')} failed:\n${run.stderr}`);
  return run.stdout;
}

/** `{name, event, context}` of every seed bench context, sorted by name. */
function seedCases() {
  const dir = path.join(SEED, 'contexts');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const doc = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
      return { name: path.basename(f, '.json'), event: doc.event, context: doc.context };
    });
}

/** A new temporary directory, removed when the process exits. */
function tempDir(prefix = 'hookc-node-test-') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  process.once('exit', () => {
    try {
      fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // Best effort: a leftover temporary directory is harmless.
    }
  });
  return dir;
}

/** The context as an object, as JSON text and as a Buffer of that text. */
function forms(context) {
  const text = JSON.stringify(context);
  return [
    ['object', context],
    ['string', text],
    ['Buffer', Buffer.from(text)],
  ];
}

module.exports = { ROOT, PKG, SEED, SEED_POLICY, hookcBin, cli, seedCases, tempDir, forms };
