'use strict';
/**
 * The host adapters of examples/ (OpenCode, Claude Agent SDK, Copilot SDK),
 * each driven by a stub of its host: a few lines that call the plugin or
 * callback as the host does, with the payloads the host sends, and do with
 * the answer what the host does (block the call with a reason, run it with
 * rewritten arguments, run it unchanged, ask). The assertions are on that
 * outcome, so an adapter that returns a well-formed answer the host would
 * read differently fails. No network, no host package: the stubs are
 * written from each host's source, cited at each stub.
 *
 *     node --test crates/hookc-node/test/adapters.test.js
 */
const { test, describe, before } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const examples = path.join(__dirname, '..', 'examples');
const load = (file) => import(path.join(examples, file));

// The shared payload members: a session in a project at /home/u/app.
const CWD = '/home/u/app';

describe('OpenCode plugin (examples/opencode/plugin.mjs)', () => {
  // OpenCode's plugin loader (its packages/opencode/src/plugin/index.ts): every
  // export of the module is a plugin function, called once with the plugin
  // input; `trigger` hands each plugin's hook the same `(input, output)`.
  async function loadPlugins(mod) {
    const input = { client: {}, project: { id: 'proj_1' }, directory: CWD, worktree: CWD, $: () => {} };
    const hooks = [];
    const seen = new Set();
    for (const fn of Object.values(mod)) {
      if (seen.has(fn)) continue;
      seen.add(fn);
      hooks.push(await fn(input));
    }
    return hooks;
  }

  // How OpenCode runs a tool (its packages/opencode/src/session/tools.ts): the
  // hooks get `{ args }`, then the tool runs with that same `args` object;
  // an Error thrown by a hook fails the call with its message.
  async function runTool(hooks, tool, args) {
    const input = { tool, sessionID: 'ses_1', callID: 'call_1' };
    const output = { args };
    try {
      for (const hook of hooks) await hook['tool.execute.before']?.(input, output);
    } catch (error) {
      return { blocked: error.message };
    }
    return { ran: args };
  }

  let hooks;
  before(async () => {
    hooks = await loadPlugins(await load('opencode/plugin.mjs'));
  });

  test('rm -rf / is blocked, the reason naming the hook', async () => {
    const outcome = await runTool(hooks, 'bash', { command: 'rm -rf /', description: 'Remove everything' });
    assert.match(outcome.blocked ?? '', /recursive force-remove is not allowed \[hook no_rm_rf\]/);
  });

  test('a force-remove after an innocent command is blocked', async () => {
    const outcome = await runTool(hooks, 'bash', { command: 'ls && rm -rf ~' });
    assert.match(outcome.blocked ?? '', /\[hook no_rm_rf\]/);
  });

  test('a command that is not a string is blocked, not let through', async () => {
    const outcome = await runTool(hooks, 'bash', { command: ['rm', '-rf', '/'] });
    assert.match(outcome.blocked ?? '', /^policy error in unreadable_command \[hook unreadable_command\]$/);
  });

  test('an ordinary command runs with its arguments unchanged', async () => {
    const args = { command: 'git status', description: 'Show the working tree status' };
    const outcome = await runTool(hooks, 'bash', args);
    assert.deepEqual(outcome, { ran: { command: 'git status', description: 'Show the working tree status' } });
  });

  test('pip install runs as uv pip install, in the object the tool runs with', async () => {
    const outcome = await runTool(hooks, 'bash', { command: 'pip install requests', description: 'Install requests' });
    assert.deepEqual(outcome, { ran: { command: 'uv pip install requests', description: 'Install requests' } });
  });

  test('pip install after cd is blocked, not rewritten', async () => {
    const outcome = await runTool(hooks, 'bash', { command: 'cd app && pip install requests' });
    assert.match(outcome.blocked ?? '', /\[hook uv_only\]/);
  });

  test('reading a secrets file is blocked; reading a source file is not', async () => {
    const secrets = await runTool(hooks, 'read', { filePath: `${CWD}/.env` });
    assert.match(secrets.blocked ?? '', /\[hook secrets_files\]/);
    const source = await runTool(hooks, 'read', { filePath: `${CWD}/src/index.ts` });
    assert.deepEqual(source, { ran: { filePath: `${CWD}/src/index.ts` } });
  });

  test('a write outside the plugin directory is blocked', async () => {
    const outcome = await runTool(hooks, 'write', { filePath: `${CWD}/../other/notes.txt`, content: 'x' });
    assert.match(outcome.blocked ?? '', /\[hook writes_in_project\]/);
  });
});

describe('Claude Agent SDK callbacks (examples/claude-agent-sdk/hooks.mjs)', () => {
  // The SDK's order for one tool call: the PreToolUse hook callbacks whose
  // matcher matches the tool (input: Claude Code's payload; a callback is
  // called as (input, toolUseID, { signal })), a deny or an allow of theirs
  // settles it, an updatedInput replaces the input; otherwise the
  // permission check calls canUseTool(toolName, input, { signal,
  // suggestions, toolUseID }) (this stub: for every call, as the default
  // permission mode does for Bash), whose result settles it.
  async function runTool(options, tool_name, tool_input) {
    const toolUseID = 'toolu_01';
    const signal = new AbortController().signal;
    const input = {
      session_id: 'sess-1', transcript_path: '/tmp/transcript.jsonl', cwd: CWD, permission_mode: 'default',
      hook_event_name: 'PreToolUse', tool_name, tool_input, tool_use_id: toolUseID,
    };
    let runs = tool_input;
    let decision;
    for (const matcher of options.hooks.PreToolUse ?? []) {
      if (matcher.matcher && !new RegExp(`^(?:${matcher.matcher})$`).test(tool_name)) continue;
      for (const callback of matcher.hooks) {
        const answer = await callback(input, toolUseID, { signal });
        const specific = answer.hookSpecificOutput ?? {};
        if (answer.decision === 'block') return { blocked: answer.reason };
        if (specific.updatedInput) runs = specific.updatedInput;
        if (specific.permissionDecision) decision = specific;
      }
    }
    if (decision?.permissionDecision === 'deny') return { blocked: decision.permissionDecisionReason };
    if (decision?.permissionDecision === 'allow') return { ran: runs, prompted: false };
    const result = await options.canUseTool(tool_name, runs, { signal, suggestions: [], toolUseID });
    if (result.behavior === 'deny') return { blocked: result.message, prompted: true };
    return { ran: result.updatedInput, prompted: true };
  }

  let sdk;
  let asked;
  let options;
  before(async () => {
    sdk = await load('claude-agent-sdk/hooks.mjs');
    // The application's own prompt: records the question, says yes.
    const askUser = async (toolName, input) => {
      asked.push({ toolName, input });
      return { behavior: 'allow', updatedInput: input };
    };
    options = { hooks: sdk.hooks, canUseTool: sdk.createCanUseTool(askUser, { cwd: CWD }) };
  });
  const fresh = () => { asked = []; };

  test('rm -rf / is blocked by the hook, the reason naming it; no one is asked', async () => {
    fresh();
    const outcome = await runTool(options, 'Bash', { command: 'rm -rf /', description: 'Remove everything' });
    assert.match(outcome.blocked ?? '', /recursive force-remove is not allowed \[hook no_rm_rf at .*guard\.yaml:\d+:\d+\]/);
    assert.deepEqual(asked, []);
  });

  test('a force-remove after an innocent command is blocked', async () => {
    fresh();
    const outcome = await runTool(options, 'Bash', { command: 'ls && rm -rf ~' });
    assert.match(outcome.blocked ?? '', /\[hook no_rm_rf /);
  });

  test('a command that is not a string is blocked, not let through', async () => {
    fresh();
    const outcome = await runTool(options, 'Bash', { command: 5 });
    assert.match(outcome.blocked ?? '', /^policy error in unreadable_command \[hook unreadable_command /);
    assert.deepEqual(asked, []);
  });

  test('ls is allowed by the hook and runs without a prompt', async () => {
    fresh();
    assert.deepEqual(await runTool(options, 'Bash', { command: 'ls' }), { ran: { command: 'ls' }, prompted: false });
    assert.deepEqual(asked, []);
  });

  test('an undecided command goes to the application, unchanged', async () => {
    fresh();
    const outcome = await runTool(options, 'Bash', { command: 'git status' });
    assert.deepEqual(outcome, { ran: { command: 'git status' }, prompted: true });
    assert.deepEqual(asked, [{ toolName: 'Bash', input: { command: 'git status' } }]);
  });

  test('pip install is rewritten by the hook before the prompt', async () => {
    fresh();
    const outcome = await runTool(options, 'Bash', { command: 'pip install requests', description: 'Install requests' });
    assert.deepEqual(outcome.ran, { command: 'uv pip install requests', description: 'Install requests' });
    assert.deepEqual(asked.map((a) => a.input.command), ['uv pip install requests']);
  });

  test('canUseTool permits cargo build, locked, without asking', async () => {
    fresh();
    const outcome = await runTool(options, 'Bash', { command: 'cargo build --release' });
    assert.deepEqual(outcome, { ran: { command: 'cargo build --release --locked' }, prompted: true });
    assert.deepEqual(asked, []);
  });

  test('canUseTool denies a command touching /etc, naming the hook', async () => {
    fresh();
    const outcome = await runTool(options, 'Bash', { command: 'cat /etc/shadow' });
    assert.match(outcome.blocked ?? '', /\[hook no_etc /);
    assert.deepEqual(asked, []);
  });

  test('Read: a secrets file is blocked by the hook; a project file is permitted as it is', async () => {
    fresh();
    const secrets = await runTool(options, 'Read', { file_path: `${CWD}/.env` });
    assert.match(secrets.blocked ?? '', /\.env holds secrets \[hook secrets /);
    const source = await runTool(options, 'Read', { file_path: `${CWD}/src/main.rs` });
    assert.deepEqual(source, { ran: { file_path: `${CWD}/src/main.rs` }, prompted: true });
    assert.deepEqual(asked, []);
  });

  test('the hook answers {} when no hook decides, and the host wire when one does', async () => {
    const base = { session_id: 's', cwd: CWD, hook_event_name: 'PreToolUse', tool_name: 'Bash' };
    assert.deepEqual(await sdk.hookCallback({ ...base, tool_input: { command: 'git status' } }, 'toolu_1', {}), {});
    const push = await sdk.hookCallback({ ...base, tool_input: { command: 'git push origin feature' } }, 'toolu_1', {});
    assert.equal(push.hookSpecificOutput.hookEventName, 'PreToolUse');
    assert.equal(push.hookSpecificOutput.permissionDecision, 'ask');
    assert.match(push.hookSpecificOutput.permissionDecisionReason, /^push to the remote\? \[hook confirm_push /);
  });

  test('a payload the policy cannot answer is blocked, not passed', async () => {
    // No hook_event_name: `hookc hook` exits 2, Claude Code's block.
    const answer = await sdk.hookCallback({ session_id: 's', cwd: CWD, tool_name: 'Bash', tool_input: { command: 'ls' } }, 'toolu_1', {});
    assert.equal(answer.decision, 'block');
    assert.match(answer.reason, /hook_event_name/);
  });

  test('an input with no JSON form is blocked, not thrown at the SDK', async () => {
    const input = { session_id: 's', cwd: CWD, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls', timeout: 10n } };
    const answer = await sdk.hookCallback(input, 'toolu_1', {});
    assert.equal(answer.hookSpecificOutput?.permissionDecision, 'deny');
    const result = await options.canUseTool('Bash', { command: 'ls', timeout: 10n }, { suggestions: [] });
    assert.equal(result.behavior, 'deny');
  });

  test('canUseTool without a prompt of the application denies what no hook permits', async () => {
    const canUseTool = sdk.createCanUseTool(undefined, { cwd: CWD });
    const result = await canUseTool('Bash', { command: 'make' }, { signal: new AbortController().signal, suggestions: [] });
    assert.equal(result.behavior, 'deny');
  });
});

describe('Copilot SDK handler (examples/copilot-sdk/hooks.mjs)', () => {
  // How the Node SDK calls the handler (_handleHooksInvoke and
  // deserializeHookInput in github/copilot-sdk's nodejs/src/session.ts): the wire input with its
  // `timestamp` made a Date and `cwd` renamed `workingDirectory`, the
  // invocation `{ sessionId }`; an exception is caught and counts as no
  // answer. Then what the CLI does with the answer (the pre-tool-use hook
  // documentation): deny blocks with the reason, ask asks, `modifiedArgs`
  // replace the arguments, nothing runs the tool unchanged.
  async function runTool(sessionHooks, toolName, toolArgs, { wire = true } = {}) {
    const sent = { sessionId: 'sess-1', timestamp: 1764201600000, cwd: CWD, toolName, toolArgs };
    const { cwd, ...rest } = sent;
    const input = wire ? { ...rest, timestamp: new Date(sent.timestamp), workingDirectory: cwd } : sent;
    let answer;
    try {
      answer = await sessionHooks.onPreToolUse(input, { sessionId: 'sess-1' });
    } catch {
      answer = undefined;
    }
    if (answer?.permissionDecision === 'deny') return { blocked: answer.permissionDecisionReason };
    if (answer?.permissionDecision === 'ask') return { asked: answer.permissionDecisionReason };
    return { ran: answer?.modifiedArgs ?? toolArgs, allowed: answer?.permissionDecision === 'allow' };
  }

  let sdk;
  before(async () => {
    sdk = await load('copilot-sdk/hooks.mjs');
  });

  test('rm -rf / is blocked, the reason naming the hook', async () => {
    const outcome = await runTool(sdk.hooks, 'bash', { command: 'rm -rf /', description: 'Remove everything' });
    assert.match(outcome.blocked ?? '', /recursive force-remove is not allowed \[hook no_rm_rf at .*guard\.yaml:\d+:\d+\]/);
  });

  test('a force-remove after an innocent command is blocked', async () => {
    const outcome = await runTool(sdk.hooks, 'bash', { command: 'ls && rm -rf ~' });
    assert.match(outcome.blocked ?? '', /\[hook no_rm_rf /);
  });

  test('a command that is not a string is blocked, not let through', async () => {
    const outcome = await runTool(sdk.hooks, 'bash', { command: null });
    assert.match(outcome.blocked ?? '', /^policy error in unreadable_command \[hook unreadable_command /);
  });

  test('an ordinary command runs unchanged, with no decision', async () => {
    const outcome = await runTool(sdk.hooks, 'bash', { command: 'git status', description: 'Status' });
    assert.deepEqual(outcome, { ran: { command: 'git status', description: 'Status' }, allowed: false });
  });

  test('ls is allowed', async () => {
    assert.deepEqual(await runTool(sdk.hooks, 'bash', { command: 'ls' }), { ran: { command: 'ls' }, allowed: true });
  });

  test('a push asks', async () => {
    const outcome = await runTool(sdk.hooks, 'bash', { command: 'git push origin feature' });
    assert.match(outcome.asked ?? '', /^push to the remote\? \[hook confirm_push /);
  });

  test('pip install runs as uv pip install, the other arguments kept', async () => {
    const outcome = await runTool(sdk.hooks, 'bash', { command: 'pip install requests', description: 'Install requests' });
    assert.deepEqual(outcome.ran, { command: 'uv pip install requests', description: 'Install requests' });
  });

  test('view: a secrets file is blocked, a source file is not', async () => {
    const secrets = await runTool(sdk.hooks, 'view', { path: `${CWD}/.env` });
    assert.match(secrets.blocked ?? '', /\.env holds secrets \[hook secrets /);
    assert.deepEqual(await runTool(sdk.hooks, 'view', { path: `${CWD}/README.md` }), { ran: { path: `${CWD}/README.md` }, allowed: false });
  });

  test('create: outside the project (the SDK\'s workingDirectory) is blocked, inside runs', async () => {
    const outside = await runTool(sdk.hooks, 'create', { path: `${CWD}/../other/notes.md` });
    assert.match(outside.blocked ?? '', /\[hook writes_in_project /);
    const inside = await runTool(sdk.hooks, 'create', { path: `${CWD}/docs/notes.md` });
    assert.deepEqual(inside, { ran: { path: `${CWD}/docs/notes.md` }, allowed: false });
  });

  test('the documented input (timestamp in milliseconds, cwd) is read alike', async () => {
    const inside = await runTool(sdk.hooks, 'create', { path: `${CWD}/docs/notes.md` }, { wire: false });
    assert.deepEqual(inside, { ran: { path: `${CWD}/docs/notes.md` }, allowed: false });
    const outcome = await runTool(sdk.hooks, 'bash', { command: 'ls && rm -rf ~' }, { wire: false });
    assert.match(outcome.blocked ?? '', /\[hook no_rm_rf /);
  });

  test('an input the handler cannot read is denied, not passed to the SDK as an exception', async () => {
    const answer = await sdk.onPreToolUse(null, { sessionId: 'sess-1' });
    assert.equal(answer.permissionDecision, 'deny');
  });
});

describe('the adapters\' guards', () => {
  // Their `hookc test` files (cargo test runs only the repository's
  // examples/): every case meets its expectation, as `hookc test` judges.
  const { cli } = require('./helpers.js');
  for (const file of ['opencode/guard.test.yaml', 'claude-agent-sdk/guard.test.yaml', 'copilot-sdk/guard.test.yaml']) {
    test(`hookc test ${file}`, () => {
      const report = JSON.parse(cli('test', '--format', 'json', path.join(examples, file)));
      const [entry] = report.files;
      assert.ok(entry.cases.length >= 5, `${file} has cases`);
      for (const c of entry.cases) assert.equal(c.outcome, 'ok', `${file}: ${c.name}`);
    });
  }
});
