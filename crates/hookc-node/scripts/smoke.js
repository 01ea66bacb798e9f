#!/usr/bin/env node
// The smoke test of a packed package (`npm pack`, installed into an empty
// project by scripts/test-all): run from that project, it requires `hookc`
// as an installed dependency and checks that a policy compiles, decides,
// explains, and survives an artifact round trip.
'use strict';

const assert = require('node:assert/strict');
const hookc = require(require.resolve('hookc', { paths: [process.cwd()] }));

const source = `hooks:
  - id: no_rm
    event: PreToolUse
    when: "tool_input.command.startsWith('rm ')"
    action: {type: retry, max_attempts: 1}
`;
const policy = hookc.compileSources({ 'guard.yaml': source }, { quiet: true });
const deny = { tool_input: { command: 'rm -rf /' } };
assert.equal(policy.decide('PreToolUse', deny), 'no_rm');
assert.equal(policy.decide('PreToolUse', { tool_input: { command: 'ls' } }), null);
assert.equal(policy.evaluate('PreToolUse', JSON.stringify(deny)).hook, 'no_rm');
assert.equal(policy.explain('PreToolUse', deny).event, 'PreToolUse');
const loaded = hookc.Policy.fromArtifact(policy.toArtifact());
assert.deepEqual(loaded.hookIds, ['no_rm']);
assert.throws(() => hookc.compileSources({ 'bad.yaml': 'hooks: [' }), hookc.CompileError);
console.log(`hookc ${hookc.version}: the packed package installs and decides`);
