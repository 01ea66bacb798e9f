#!/usr/bin/env node
// `hookc` from npm (`npx hookc init --host claude-code`): runs the native
// command of this platform's package (platform.js) with the same
// arguments, standard streams and exit code.
'use strict';

const { spawnSync } = require('node:child_process');
const { commandName, locate } = require('../platform.js');

const command = locate(commandName());
if (command instanceof Error) {
  process.stderr.write(`${command.message}\n`);
  process.exit(2);
}
const run = spawnSync(command, process.argv.slice(2), { stdio: 'inherit' });
if (run.error) {
  process.stderr.write(`hookc: cannot run ${command}: ${run.error.message}\n`);
  process.exit(2);
}
if (run.signal) {
  process.kill(process.pid, run.signal);
}
process.exit(run.status === null ? 2 : run.status);
